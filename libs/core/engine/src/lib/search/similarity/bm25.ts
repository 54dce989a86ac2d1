/**
 * BM25 exactly as Lucene 9's BM25Similarity (the Elasticsearch 8 default), with float32 rounding
 * at the same steps, so scores match Elasticsearch for single-shard data. Pure functions.
 */
import { LENGTH_TABLE } from '../../util/small-float.js';

export const BM25_K1 = Math.fround(1.2);
export const BM25_B = Math.fround(0.75);
const f = Math.fround;

/** idf = ln(1 + (N - n + 0.5) / (n + 0.5)), computed in double and cast to float */
export function bm25Idf(docFreq: number, docCount: number): number {
  return f(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/** average field length as Lucene: (float)(sumTotalTermFreq / (double) docCount) */
export function bm25AvgFieldLength(sumTotalTermFreq: number, docCount: number): number {
  return f(sumTotalTermFreq / docCount);
}

/** the 256-entry cache of 1 / (k1 * ((1 - b) + b * dl / avgdl)) indexed by norm byte */
export function bm25NormCache(avgdl: number, k1 = BM25_K1, b = BM25_B): Float32Array {
  const cache = new Float32Array(256);
  const oneMinusB = f(1 - b);
  for (let i = 0; i < 256; i++) {
    const t = f(oneMinusB + f(f(b * LENGTH_TABLE[i]!) / avgdl));
    cache[i] = f(1 / f(k1 * t));
  }
  return cache;
}

/** norm caches by (avgdl, k1, b): a field's average length changes with its segments, not per search */
const normCaches = new Map<string, Float32Array>();

/** bm25NormCache of these parameters, computed once while they last (read only) */
function sharedNormCache(avgdl: number, k1: number, b: number): Float32Array {
  const key = `${avgdl}/${k1}/${b}`;
  let c = normCaches.get(key);
  if (c === undefined) {
    // (a few fields and similarities: past 64, start over)
    if (normCaches.size >= 64) normCaches.clear();
    normCaches.set(key, (c = bm25NormCache(avgdl, k1, b)));
  }
  return c;
}

export class BM25SimScorer {
  readonly weight: number;
  readonly cache: Float32Array;
  constructor(
    readonly boost: number,
    readonly idf: number,
    readonly avgdl: number,
    k1 = BM25_K1,
    b = BM25_B,
  ) {
    this.weight = f(f(boost) * idf);
    this.cache = sharedNormCache(avgdl, k1, b);
  }
  private ones: Float64Array | null = null;
  /** score(1, norm) for every norm byte (computed once per scorer: the scores of freq 1 by lookup) */
  freqOneScores(): Float64Array {
    if (this.ones === null) {
      const t = new Float64Array(256);
      for (let i = 0; i < 256; i++) t[i] = this.score(1, i);
      this.ones = t;
    }
    return this.ones;
  }
  /** weight - weight / (1 + freq * normInverse), in float */
  score(freq: number, normByte: number): number {
    const normInverse = this.cache[normByte & 0xff]!;
    const w = this.weight;
    return f(w - f(w / f(1 + f(freq * normInverse))));
  }
}

/** builds the scorer from shard statistics; docCount 0 (unknown field) uses docFreq as Lucene does */
export function bm25Scorer(
  boost: number,
  stats: { docCount: number; sumTotalTermFreq: number },
  termDocFreqs: number[],
): BM25SimScorer {
  const docCount = stats.docCount > 0 ? stats.docCount : Math.max(1, ...termDocFreqs);
  let idf = 0;
  for (const df of termDocFreqs) idf = f(idf + bm25Idf(df, docCount));
  const sttf = stats.sumTotalTermFreq > 0 ? stats.sumTotalTermFreq : docCount;
  return new BM25SimScorer(boost, idf, bm25AvgFieldLength(sttf, docCount));
}
