import type { LeafReaderContext, Postings } from '../index/leaf-reader.js';
import { SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreScorer, Query, Scorer, type Explanation, type Weight } from './query.js';
import { BM25SimScorer, BM25_B, BM25_K1, bm25Scorer } from './similarity/bm25.js';
import { LENGTH_TABLE } from '../util/small-float.js';

/** Scores one term's postings with BM25. */
export class TermScorer extends Scorer {
  private readonly it: SortedArrayIterator;
  private readonly freqs: Uint32Array | null;
  constructor(
    postings: Postings,
    private readonly sim: BM25SimScorer,
    private readonly norms: Uint8Array | null,
  ) {
    super();
    this.it = new SortedArrayIterator(postings.docs);
    this.freqs = postings.freqs;
  }
  docID(): number {
    return this.it.docID();
  }
  nextDoc(): number {
    return this.it.nextDoc();
  }
  advance(target: number): number {
    return this.it.advance(target);
  }
  cost(): number {
    return this.it.cost();
  }
  override docArray(): Uint32Array | null {
    return this.it.docArray();
  }
  freq(): number {
    return this.freqs ? this.freqs[this.it.index()]! : 1;
  }
  score(): number {
    const norm = this.norms ? this.norms[this.it.docID()]! : 1;
    return this.sim.score(this.freq(), norm);
  }
  /** BM25 stays below boost × idf whatever the freq and length */
  override maxScore(): number {
    return this.sim.weight;
  }
  /** (a negative weight bounds nothing: the score lies between it and 0) */
  override scoreBound(): number {
    const w = this.sim.weight;
    return w >= 0 ? w : Infinity;
  }
  override minScoreBound(): number {
    return this.scoreBound();
  }
}

export class TermQuery extends Query {
  constructor(
    readonly field: string,
    readonly term: string,
  ) {
    super();
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const field = this.field;
    const term = this.term;
    const query: Query = this as Query;
    if (!needsScores) {
      return {
        query,
        scorer(ctx: LeafReaderContext) {
          const p = ctx.reader.postings(field, term);
          return p && p.docFreq > 0 ? new ConstantScoreScorer(new SortedArrayIterator(p.docs), 0) : null;
        },
      };
    }
    const ts = searcher.termStatistics(field, term);
    const cs = searcher.collectionStatistics(field);
    const sim = bm25Scorer(boost, cs, [ts.docFreq]);
    return {
      query,
      scorer(ctx: LeafReaderContext) {
        const p = searcher.termPostings(ctx, field, term);
        if (!p || p.docFreq === 0) return null;
        return new TermScorer(p, sim, ctx.reader.norms(field));
      },
      explain(ctx: LeafReaderContext, doc: number): Explanation {
        const s = this.scorer(ctx) as TermScorer | null;
        if (!s || s.advance(doc) !== doc) return { value: 0, description: `no matching term`, details: [] };
        const freq = s.freq();
        const docCount = cs.docCount > 0 ? cs.docCount : ts.docFreq;
        const norms = ctx.reader.norms(field);
        const dl = norms ? LENGTH_TABLE[norms[doc]!]! : 1;
        const score = s.score();
        const tf = Math.fround(score / sim.weight);
        const leaf = (value: number, description: string): Explanation => ({ value, description, details: [] });
        return {
          value: score,
          description: `weight(${query.toString()} in ${doc}) [PerFieldSimilarity], result of:`,
          details: [
            {
              value: score,
              description: `score(freq=${freq.toFixed(1)}), computed as boost * idf * tf from:`,
              details: [
                leaf(Math.fround(boost), 'boost'),
                {
                  value: sim.idf,
                  description: 'idf, computed as log(1 + (N - n + 0.5) / (n + 0.5)) from:',
                  details: [leaf(ts.docFreq, 'n, number of documents containing term'), leaf(docCount, 'N, total number of documents with field')],
                },
                {
                  value: tf,
                  description: 'tf, computed as freq / (freq + k1 * (1 - b + b * dl / avgdl)) from:',
                  details: [
                    leaf(freq, 'freq, occurrences of term within document'),
                    leaf(BM25_K1, 'k1, term saturation parameter'),
                    leaf(BM25_B, 'b, length normalization parameter'),
                    leaf(dl, 'dl, length of field'),
                    leaf(sim.avgdl, 'avgdl, average length of field'),
                  ],
                },
              ],
            },
          ],
        };
      },
    };
  }
  toString(): string {
    return `${this.field}:${this.term}`;
  }
}
