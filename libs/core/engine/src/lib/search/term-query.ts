import type { LeafReaderContext, Postings } from '../index/leaf-reader.js';
import { SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreScorer, Query, Scorer, type Explanation, type Weight } from './query.js';
import { BM25SimScorer, BM25_B, BM25_K1, bm25Scorer } from './similarity/bm25.js';
import { LENGTH_TABLE } from '../util/small-float.js';

/** Scores one term's postings with BM25. */
export class TermScorer extends Scorer {
  private readonly it: SortedArrayIterator;
  /** the postings' docs and freqs (null: freq 1) */
  readonly docs: Uint32Array;
  readonly freqs: Uint32Array | null;
  constructor(
    postings: Postings,
    readonly sim: BM25SimScorer,
    readonly norms: Uint8Array | null,
  ) {
    super();
    this.docs = postings.docs;
    this.it = new SortedArrayIterator(postings.docs);
    this.freqs = postings.freqs;
  }
  /** index in docs of the current doc (-1 before the first) */
  index(): number {
    return this.it.index();
  }
  /** positions the scorer on docs[i] (past the end: exhausted) */
  setIndex(i: number): void {
    this.it.setIndex(i);
  }
  /** the score of docs[i], as score() gives it there (scores of freq 1 looked up when `ones` is given) */
  scoreAt(i: number, ones: Float64Array | null, doc = this.docs[i]!): number {
    const norm = this.norms ? this.norms[doc]! : 1;
    const freq = this.freqs ? this.freqs[i]! : 1;
    return freq === 1 && ones !== null ? ones[norm & 0xff]! : this.sim.score(freq, norm);
  }
  /** the freq-1 score table, when this term has enough docs to pay for it (else null) */
  onesTable(): Float64Array | null {
    return this.docs.length - this.it.index() > 256 ? this.sim.freqOneScores() : null;
  }
  override canBatch(): boolean {
    return true;
  }
  override nextBatch(docs: Int32Array, scores: Float64Array, max: number): number {
    const from = this.it.index() + 1;
    const n = Math.max(0, Math.min(max, this.docs.length - from));
    if (n === 0) {
      this.it.setIndex(this.docs.length);
      return 0;
    }
    const ones = this.onesTable();
    const src = this.docs;
    for (let j = 0; j < n; j++) {
      docs[j] = src[from + j]!;
      scores[j] = this.scoreAt(from + j, ones);
    }
    this.it.setIndex(from + n - 1);
    return n;
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
