/**
 * The part of an exact long / unsigned_long range (query-dsl exactLongRangeQuery) that covers values written
 * before exact longs existed: a segment of that time holds values beyond 2^53 as doubles only, with no side
 * field (index/exact-longs.ts). Such a value matches as its double did (bounds compared as doubles), so old
 * segments answer as they always did. A value that has its exact side value is left to the term range.
 * Cost: the docs whose doubles lie beyond 2^53 inside the bounds (none in common data).
 */
import { ExactLongs, needsExact } from '../index/exact-longs.js';
import { numericReader } from '../index/doc-values-reader.js';
import { DocIdSetBuilder, NO_MORE_DOCS } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { PointRangeQuery } from './point-range-query.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

export class LegacyLongRangeQuery extends Query {
  constructor(
    readonly field: string,
    readonly type: string,
    readonly lower: number,
    readonly upper: number,
  ) {
    super();
  }
  createWeight(searcher: IndexSearcher, _needsScores: boolean, boost: number): Weight {
    const { field, type, lower, upper } = this;
    const points = searcher.createWeight(new PointRangeQuery(field, lower, upper), false, 1);
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const candidates = points.scorer(ctx);
      const dv = ctx.reader.numericDocValues(field);
      if (!candidates || !dv) return null;
      const ex = ExactLongs.of(ctx.reader, field, type);
      const rd = numericReader(dv);
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      for (let d = candidates.nextDoc(); d !== NO_MORE_DOCS; d = candidates.nextDoc()) {
        const n = rd.advance(d);
        for (let i = 0; i < n; i++) {
          const v = rd.value(i);
          if (v < lower || v > upper || !needsExact(v)) continue;
          if (!ex || !ex.valuesOf(d).some((x) => Number(x) === v)) {
            b.add(d);
            break;
          }
        }
      }
      return b.build();
    });
  }
  toString(): string {
    return `${this.field}:[${this.lower} TO ${this.upper}] (values without their exact side value)`;
  }
}
