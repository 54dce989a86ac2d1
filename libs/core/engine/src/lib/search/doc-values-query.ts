/**
 * Queries answered from doc values for fields that are not indexed (`index: false` with doc values):
 * a scan over the segment, as Elasticsearch >= 8.1 does (slow, but allowed).
 */
import type { SortedSetDocValues } from '../index/leaf-reader.js';
import { numericReader, ordinalsReader } from '../index/doc-values-reader.js';
import { DocIdSetBuilder, type DocIdSetIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

/** the documents (a scan of the segment) with at least one of the ordinals; null when there are none */
export function docsWithOrds(maxDoc: number, dv: SortedSetDocValues, ords: ReadonlySet<number>): DocIdSetIterator | null {
  if (ords.size === 0) return null;
  const b = new DocIdSetBuilder(maxDoc);
  const rd = ordinalsReader(dv);
  for (let d = 0; d < maxDoc; d++) {
    const n = rd.advance(d);
    for (let i = 0; i < n; i++) {
      if (ords.has(rd.value(i))) {
        b.add(d);
        break;
      }
    }
  }
  return b.build();
}

export class DocValuesTermsQuery extends Query {
  constructor(
    readonly field: string,
    readonly terms: readonly string[],
  ) {
    super();
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    const { field, terms } = this;
    const wanted = new Set(terms);
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const dv = ctx.reader.sortedSetDocValues(field);
      if (!dv) return null;
      const ords = new Set<number>();
      dv.terms.forEach((t, i) => {
        if (wanted.has(t)) ords.add(i);
      });
      return docsWithOrds(ctx.reader.maxDoc, dv, ords);
    });
  }
  toString(): string {
    return `${this.field}:{${this.terms.join(' ')}} (doc values)`;
  }
}

export class DocValuesRangeQuery extends Query {
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
      const dv = ctx.reader.numericDocValues(field);
      if (!dv) return null;
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      const rd = numericReader(dv);
      for (let d = 0; d < ctx.reader.maxDoc; d++) {
        const n = rd.advance(d);
        for (let i = 0; i < n; i++) {
          const v = rd.value(i);
          if ((includeLower ? v >= lower : v > lower) && (includeUpper ? v <= upper : v < upper)) {
            b.add(d);
            break;
          }
        }
      }
      return b.build();
    });
  }
  toString(): string {
    return `${this.field}:[${this.lower} TO ${this.upper}] (doc values)`;
  }
}
