/** distance_feature on date/numeric fields: boost * pivot / (pivot + |value - origin|), for docs with a value. */
import type { LeafReaderContext } from '../index/leaf-reader.js';
import { numericReader } from '../index/doc-values-reader.js';
import { existsIterator } from './exists-query.js';
import type { IndexSearcher } from './index-searcher.js';
import { Query, Scorer, type Weight } from './query.js';
import { MappedScoreScorer } from './scorers.js';
import { ConstantScoreScorer } from './query.js';

export class DistanceFeatureQuery extends Query {
  constructor(
    readonly field: string,
    readonly origin: number,
    readonly pivot: number,
  ) {
    super();
  }
  createWeight(_s: IndexSearcher, _needsScores: boolean, boost: number): Weight {
    const { field, origin, pivot } = this;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const it = existsIterator(ctx.reader, field);
        const dv = ctx.reader.numericDocValues(field);
        if (!it || !dv) return null;
        const rd = numericReader(dv);
        return new MappedScoreScorer(new ConstantScoreScorer(it, 0), (s) => {
          const n = rd.advance(s.docID());
          let best = Infinity;
          for (let i = 0; i < n; i++) best = Math.min(best, Math.abs(rd.value(i) - origin));
          if (best === Infinity) return 0;
          return Math.fround((boost * pivot) / (pivot + best));
        });
      },
    };
  }
  toString(): string {
    return `DistanceFeatureQuery(field=${this.field}, origin=${this.origin}, pivot=${this.pivot})`;
  }
}

/** terms_set: docs matching at least N of the terms, N read per doc from a numeric field (or a constant) */
export class TermsSetQuery extends Query {
  constructor(
    readonly field: string,
    readonly terms: Query[],
    readonly msmField: string | null,
    readonly msmConstant: number,
  ) {
    super();
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const ws = this.terms.map((t) => searcher.createWeight(t, needsScores, boost));
    const { msmField, msmConstant } = this;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const subs = ws.map((w) => w.scorer(ctx)).filter((s): s is Scorer => s !== null);
        if (subs.length === 0) return null;
        const dv = msmField ? ctx.reader.numericDocValues(msmField) : null;
        const rd = dv ? numericReader(dv) : null;
        return new TermsSetScorer(subs, (doc) => {
          if (!msmField) return msmConstant;
          if (!rd || rd.advance(doc) === 0) return Infinity;
          return rd.value(0);
        });
      },
    };
  }
  toString(): string {
    return `TermsSetQuery(${this.field})`;
  }
}

class TermsSetScorer extends Scorer {
  private doc = -1;
  private sum = 0;
  constructor(
    private readonly subs: Scorer[],
    private readonly required: (doc: number) => number,
  ) {
    super();
  }
  docID(): number {
    return this.doc;
  }
  private settle(target: number, next: boolean): number {
    for (;;) {
      let m = 2147483647;
      for (const s of this.subs) {
        let d = s.docID();
        if (next ? d <= this.doc : d < target) d = next ? s.nextDoc() : s.advance(target);
        if (d < m) m = d;
      }
      this.doc = m;
      if (m === 2147483647) return m;
      let count = 0;
      let sum = 0;
      for (const s of this.subs) {
        if (s.docID() === m) {
          count++;
          sum += s.score();
        }
      }
      if (count >= this.required(m)) {
        this.sum = Math.fround(sum);
        return m;
      }
      next = true;
    }
  }
  nextDoc(): number {
    return this.settle(this.doc + 1, true);
  }
  advance(target: number): number {
    return this.settle(target, false);
  }
  cost(): number {
    return this.subs.reduce((a, s) => a + s.cost(), 0);
  }
  score(): number {
    return this.sum;
  }
}
