/**
 * Range / exact / set queries over numeric points (long, double, date, boolean...). Binary-searches the
 * sorted (value, doc) pairs of PointIndex (on disk: the resident block bounds, then the one block holding
 * each end), so the cost follows the number of matching values.
 */
import { pointAccess, type PointAccess } from '../index/point-access.js';
import { DocIdSetBuilder, type DocIdSetIterator, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

function sliceIterator(pa: PointAccess, from: number, to: number, maxDoc: number): DocIdSetIterator | null {
  if (to <= from) return null;
  // one value (a term on a numeric field): points are sorted by (value, doc), so the docs of the slice are
  // already in order — iterate them in place when they sit in one block and no doc holds the value twice
  if (pa.value(from) === pa.value(to - 1)) {
    const chunks = [...pa.docChunks(from, to)];
    if (chunks.length === 1) {
      const docs = chunks[0]!;
      let increasing = true;
      for (let i = 1; i < docs.length; i++) {
        if (docs[i]! <= docs[i - 1]!) {
          increasing = false;
          break;
        }
      }
      if (increasing) return new SortedArrayIterator(docs);
    }
  }
  const b = new DocIdSetBuilder(maxDoc);
  for (const docs of pa.docChunks(from, to)) b.addAll(docs);
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
      if (!pi) return null;
      const pa = pointAccess(pi);
      if (pa.size === 0) return null;
      const from = pa.lowerBound(lower, !includeLower);
      const to = pa.lowerBound(upper, includeUpper);
      return sliceIterator(pa, from, to, ctx.reader.maxDoc);
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
      if (!pi) return null;
      const pa = pointAccess(pi);
      if (pa.size === 0) return null;
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      let any = false;
      for (const v of values) {
        const from = pa.lowerBound(v, false);
        const to = pa.lowerBound(v, true);
        if (to > from) {
          for (const docs of pa.docChunks(from, to)) b.addAll(docs);
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
