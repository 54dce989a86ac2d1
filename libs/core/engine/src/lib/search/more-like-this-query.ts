/**
 * more_like_this (text form): the like-text is analysed per field, terms are filtered by min_term_freq,
 * min_doc_freq / max_doc_freq and word length, the max_query_terms best by tf-idf are kept and OR-ed with
 * minimum_should_match (Lucene's MoreLikeThis, simplified). Liked documents are turned into text by the
 * coordinator before parsing.
 */
import { MatchNoDocsQuery } from './basic-queries.js';
import { BooleanQuery, calculateMinShouldMatch } from './boolean-query.js';
import type { IndexSearcher } from './index-searcher.js';
import { Query, type Weight } from './query.js';
import { TermQuery } from './term-query.js';

export interface MoreLikeThisOptions {
  minTermFreq: number;
  maxQueryTerms: number;
  minDocFreq: number;
  maxDocFreq: number;
  minWordLength: number;
  maxWordLength: number;
  minimumShouldMatch: string | number;
  stopWords: Set<string>;
  /** terms to exclude (from `unlike`) per field */
  unlike: Map<string, Set<string>>;
}

export class MoreLikeThisQuery extends Query {
  /** field → term → frequency in the like text */
  constructor(
    readonly termFreqs: Map<string, Map<string, number>>,
    readonly opts: MoreLikeThisOptions,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const scored: Array<{ field: string; term: string; score: number }> = [];
    for (const [field, tfs] of this.termFreqs) {
      const cs = searcher.collectionStatistics(field);
      const numDocs = Math.max(cs.docCount, 1);
      for (const [term, tf] of tfs) {
        if (tf < this.opts.minTermFreq) continue;
        const len = [...term].length;
        if (len < this.opts.minWordLength || (this.opts.maxWordLength > 0 && len > this.opts.maxWordLength)) continue;
        if (this.opts.stopWords.has(term) || this.opts.unlike.get(field)?.has(term)) continue;
        const df = searcher.termStatistics(field, term).docFreq;
        if (df < this.opts.minDocFreq || df > this.opts.maxDocFreq || df === 0) continue;
        const idf = Math.log(numDocs / (df + 1)) + 1;
        scored.push({ field, term, score: tf * idf });
      }
    }
    scored.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1));
    const top = scored.slice(0, this.opts.maxQueryTerms);
    if (top.length === 0) return new MatchNoDocsQuery('more_like_this: no terms');
    const msm = calculateMinShouldMatch(top.length, this.opts.minimumShouldMatch);
    return new BooleanQuery(
      top.map((t) => ({ occur: 'should' as const, query: new TermQuery(t.field, t.term) })),
      msm,
    );
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    return this.rewrite(searcher).createWeight(searcher, needsScores, boost);
  }
  toString(): string {
    return `like:${[...this.termFreqs.keys()].join(',')}`;
  }
}
