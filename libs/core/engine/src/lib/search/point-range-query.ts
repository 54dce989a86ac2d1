/**
 * Range / exact / set queries over numeric points (long, double, date, boolean...). Binary-searches the
 * sorted (value, doc) pairs of PointIndex, so the cost follows the number of matching values.
 */
import type { PointIndex } from '../index/leaf-reader.js';
import { DocIdSetBuilder, type DocIdSetIterator, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

/** first index i with values[i] >= v (or > v when strict) */
export function lowerBound(values: Float64Array, v: number, strict: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = values[mid]!;
    if (strict ? x <= v : x < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sliceIterator(pi: PointIndex, from: number, to: number, maxDoc: number): DocIdSetIterator | null {
  if (to <= from) return null;
  const n = to - from;
  if (n === 1) return new SortedArrayIterator(pi.docs.subarray(from, to));
  // one value (a term on a numeric field): points are sorted by (value, doc), so the docs of the slice are
  // already in order — iterate them in place unless a doc holds the value twice
  if (pi.values[from] === pi.values[to - 1]) {
    const docs = pi.docs;
    let increasing = true;
    for (let i = from + 1; i < to; i++) {
      if (docs[i]! <= docs[i - 1]!) {
        increasing = false;
        break;
      }
    }
    if (increasing) return new SortedArrayIterator(docs.subarray(from, to));
  }
  const b = new DocIdSetBuilder(maxDoc);
  b.addAll(pi.docs, from, to);
  return b.build();
}

/** inclusive bounds; use ±Infinity for open ends (callers convert gt/lt to the next representable value) */
export class PointRangeQuery extends Query {
  constructor(
    readonly field: string,
    readonly lower: number,
    readonly upper: number,
    readonly includeLower = true,
    readonly includeUpper = true,
  ) {
    super();
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    const { field, lower, upper, includeLower, includeUpper } = this;
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const pi = ctx.reader.pointIndex(field);
      if (!pi || pi.values.length === 0) return null;
      const from = lowerBound(pi.values, lower, !includeLower);
      const to = lowerBound(pi.values, upper, includeUpper);
      return sliceIterator(pi, from, to, ctx.reader.maxDoc);
    });
  }
  toString(): string {
    return `${this.field}:${this.includeLower ? '[' : '{'}${this.lower} TO ${this.upper}${this.includeUpper ? ']' : '}'}`;
  }
}

export class PointInSetQuery extends Query {
  readonly values: number[];
  constructor(
    readonly field: string,
    values: number[],
  ) {
    super();
    this.values = [...new Set(values)].sort((a, b) => a - b);
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    const { field, values } = this;
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const pi = ctx.reader.pointIndex(field);
      if (!pi || pi.values.length === 0) return null;
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      let any = false;
      for (const v of values) {
        const from = lowerBound(pi.values, v, false);
        const to = lowerBound(pi.values, v, true);
        if (to > from) {
          b.addAll(pi.docs, from, to);
          any = true;
        }
      }
      return any ? b.build() : null;
    });
  }
  toString(): string {
    return `${this.field}:{${this.values.join(' ')}}`;
  }
}
