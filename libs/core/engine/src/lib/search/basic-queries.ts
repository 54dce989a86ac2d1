/** match_all, match_none, constant_score, boost, dis_max, boosting. */
import type { LeafReaderContext } from '../index/leaf-reader.js';
import { AllDocsIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreScorer, ConstantScoreWeight, Query, Scorer, type Weight } from './query.js';
import { DisjunctionMaxScorer, MappedScoreScorer } from './scorers.js';

export class MatchAllDocsQuery extends Query {
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    return new ConstantScoreWeight(this, boost, (ctx) => new AllDocsIterator(ctx.reader.maxDoc));
  }
  toString(): string {
    return '*:*';
  }
}

export class MatchNoDocsQuery extends Query {
  constructor(readonly reason = '') {
    super();
  }
  createWeight(): Weight {
    return { query: this, scorer: () => null };
  }
  toString(): string {
    return `MatchNoDocsQuery("${this.reason}")`;
  }
}

/** scores every match of the inner query with the boost */
export class ConstantScoreQuery extends Query {
  constructor(readonly inner: Query) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.inner.rewrite(searcher);
    return r === this.inner ? this : new ConstantScoreQuery(r);
  }
  createWeight(searcher: IndexSearcher, _needsScores: boolean, boost: number): Weight {
    const w = searcher.createWeight(this.inner, false, 1);
    return new ConstantScoreWeight(this, boost, (ctx) => w.scorer(ctx));
  }
  toString(): string {
    return `ConstantScore(${this.inner.toString()})`;
  }
}

/** multiplies the inner scores by a boost (Lucene's BoostQuery) */
export class BoostQuery extends Query {
  constructor(
    readonly inner: Query,
    readonly boost: number,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    if (this.boost === 1) return this.inner;
    const r = this.inner.rewrite(searcher);
    if (r instanceof BoostQuery) return new BoostQuery(r.inner, Math.fround(this.boost * r.boost));
    return r === this.inner ? this : new BoostQuery(r, this.boost);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    return this.inner.createWeight(searcher, needsScores, Math.fround(boost * this.boost));
  }
  toString(): string {
    return `(${this.inner.toString()})^${this.boost}`;
  }
}

export class DisjunctionMaxQuery extends Query {
  constructor(
    readonly disjuncts: readonly Query[],
    readonly tieBreaker = 0,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    if (this.disjuncts.length === 1 && this.tieBreaker === 0) return this.disjuncts[0]!;
    let changed = false;
    const r = this.disjuncts.map((q) => {
      const x = q.rewrite(searcher);
      if (x !== q) changed = true;
      return x;
    });
    return changed ? new DisjunctionMaxQuery(r, this.tieBreaker) : this;
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const ws = this.disjuncts.map((q) => searcher.createWeight(q, needsScores, boost));
    const tie = this.tieBreaker;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const subs = ws.map((w) => w.scorer(ctx)).filter((s): s is Scorer => s !== null);
        if (subs.length === 0) return null;
        return new DisjunctionMaxScorer(subs, tie);
      },
    };
  }
  toString(): string {
    return `(${this.disjuncts.map((d) => d.toString()).join(' | ')})~${this.tieBreaker}`;
  }
}

/** Elasticsearch's boosting query: scores of docs also matching `negative` are multiplied by negativeBoost */
export class BoostingQuery extends Query {
  constructor(
    readonly positive: Query,
    readonly negative: Query,
    readonly negativeBoost: number,
  ) {
    super();
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const pw = searcher.createWeight(this.positive, needsScores, boost);
    const nw = searcher.createWeight(this.negative, false, 1);
    const nb = this.negativeBoost;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const p = pw.scorer(ctx);
        if (!p) return null;
        const n = nw.scorer(ctx);
        if (!n || !needsScores) return p;
        return new MappedScoreScorer(p, (s) => {
          const doc = s.docID();
          let nd = n.docID();
          if (nd < doc) nd = n.advance(doc);
          const sc = s.score();
          return nd === doc ? Math.fround(sc * nb) : sc;
        });
      },
    };
  }
  toString(): string {
    return `Boosting(${this.positive.toString()}, ${this.negative.toString()}, ${this.negativeBoost})`;
  }
}

export { ConstantScoreScorer };

/** caps the inner query's scores (pinned query's organic part) */
export class CappedScoreQuery extends Query {
  constructor(
    readonly inner: Query,
    readonly max: number,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.inner.rewrite(searcher);
    return r === this.inner ? this : new CappedScoreQuery(r, this.max);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const w = searcher.createWeight(this.inner, needsScores, boost);
    const max = this.max;
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const s = w.scorer(ctx);
        return s ? new MappedScoreScorer(s, (x) => Math.min(x.score(), max)) : null;
      },
    };
  }
  toString(): string {
    return `CappedScore(${this.inner.toString()}, ${this.max})`;
  }
}
