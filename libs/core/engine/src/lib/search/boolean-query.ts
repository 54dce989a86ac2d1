import { EsError, Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../index/leaf-reader.js';
import type { DocIdSetIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreScorer, Query, Scorer, type Explanation, type Weight } from './query.js';
import {
  ConjunctionScorer,
  DisjunctionSumScorer,
  MinShouldMatchScorer,
  ReqExclScorer,
  ReqOptSumScorer,
} from './scorers.js';

/**
 * Lucene's IndexSearcher max clause count (`indices.query.bool.max_clause_count`; by default derived from the
 * heap and the search pool as Elasticsearch 8 does). Set once at boot by the search module.
 */
export const MaxClauseCount = { value: 4096 };

/** Lucene's TooManyClauses, which Elasticsearch answers with 400 */
export function tooManyClauses(): EsError {
  return new EsError('too_many_clauses', 400, `maxClauseCount is set to ${MaxClauseCount.value}`);
}

/** throws too_many_clauses when a query would hold more than the max clause count */
export function checkClauseCount(count: number): void {
  if (count > MaxClauseCount.value) throw tooManyClauses();
}

export type Occur = 'must' | 'should' | 'filter' | 'must_not';

export interface BooleanClause {
  occur: Occur;
  query: Query;
}

/** Lucene 9 BooleanQuery semantics (no coord). */
export class BooleanQuery extends Query {
  constructor(
    readonly clauses: readonly BooleanClause[],
    readonly minimumShouldMatch = 0,
  ) {
    super();
  }

  override rewrite(searcher: IndexSearcher): Query {
    let changed = false;
    const out = this.clauses.map((c) => {
      const r = c.query.rewrite(searcher);
      if (r !== c.query) changed = true;
      return { occur: c.occur, query: r };
    });
    return changed ? new BooleanQuery(out, this.minimumShouldMatch) : this;
  }

  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const weights = this.clauses.map((c) => ({
      occur: c.occur,
      weight: searcher.createWeight(c.query, needsScores && (c.occur === 'must' || c.occur === 'should'), boost),
    }));
    const msm = this.minimumShouldMatch;
    return {
      query: this as Query,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const must: Scorer[] = [];
        const filter: Scorer[] = [];
        const should: Scorer[] = [];
        const mustNot: Scorer[] = [];
        let numShould = 0;
        for (const { occur, weight } of weights) {
          const s = weight.scorer(ctx);
          if (occur === 'should') numShould++;
          if (!s) {
            if (occur === 'must' || occur === 'filter') return null;
            continue;
          }
          if (occur === 'must') must.push(s);
          else if (occur === 'filter') filter.push(s);
          else if (occur === 'should') should.push(s);
          else mustNot.push(s);
        }
        const hasRequired = must.length + filter.length > 0;
        if (numShould === 0 && !hasRequired) return null; // (empty bool is rewritten by the parser)
        if (msm > should.length) return null;
        // should part
        let opt: Scorer | null = null;
        if (should.length === 1) opt = should[0]!;
        else if (should.length > 1) opt = msm > 1 ? new MinShouldMatchScorer(should, msm) : new DisjunctionSumScorer(should);
        let req: Scorer;
        const reqIts: DocIdSetIterator[] = [...must, ...filter];
        const shouldRequired = msm > 0 || !hasRequired;
        if (shouldRequired) {
          if (!opt) return null;
          reqIts.push(opt);
          must.push(opt);
          opt = null;
        }
        if (reqIts.length === 1) {
          const only = reqIts[0]!;
          req = must.length === 1 ? must[0]! : new ConstantScoreScorer(only, 0);
        } else {
          req = new ConjunctionScorer(reqIts, must);
        }
        if (mustNot.length > 0) {
          const excl: DocIdSetIterator = mustNot.length === 1 ? mustNot[0]! : new DisjunctionSumScorer(mustNot);
          req = new ReqExclScorer(req, excl);
        }
        if (opt && needsScores) req = new ReqOptSumScorer(req, opt);
        return req;
      },
      explain(ctx: LeafReaderContext, doc: number): Explanation {
        const s = this.scorer(ctx);
        if (!s || s.advance(doc) !== doc) return { value: 0, description: 'no match on required clause', details: [] };
        const details: Explanation[] = [];
        for (const { occur, weight } of weights) {
          if (occur === 'must_not') continue;
          const sc = weight.scorer(ctx);
          if (!sc || sc.advance(doc) !== doc) continue;
          const e = weight.explain ? weight.explain(ctx, doc) : { value: sc.score(), description: weight.query.toString(), details: [] };
          if (occur === 'filter') details.push({ value: 0, description: `match on required clause, product of:`, details: [{ value: 0, description: '# clause', details: [] }, e] });
          else details.push(e);
        }
        return { value: s.score(), description: 'sum of:', details };
      },
    };
  }

  toString(): string {
    const sign: Record<Occur, string> = { must: '+', should: '', filter: '#', must_not: '-' };
    const s = this.clauses.map((c) => sign[c.occur] + wrap(c.query)).join(' ');
    return this.minimumShouldMatch > 0 ? `(${s})~${this.minimumShouldMatch}` : s;
  }
}

function wrap(q: Query): string {
  return q instanceof BooleanQuery ? `(${q.toString()})` : q.toString();
}

/**
 * Elasticsearch's Queries.calculateMinShouldMatch: "3", "-2", "75%", "-25%", "3<90%", "2<-25% 9<-3".
 */
export function calculateMinShouldMatch(optionalClauseCount: number, spec: string | number | undefined | null): number {
  if (spec === undefined || spec === null) return 0;
  let s = String(spec).trim();
  if (s.includes('<')) {
    let result = optionalClauseCount;
    for (const part of s.split(/\s+/)) {
      const idx = part.indexOf('<');
      const upper = parseInt(part.substring(0, idx).trim(), 10);
      if (Number.isNaN(upper)) throw Errors.illegalArgument(`invalid minimum_should_match [${s}]`);
      if (optionalClauseCount <= upper) return result;
      result = calculateMinShouldMatch(optionalClauseCount, part.substring(idx + 1));
    }
    return result;
  }
  let result: number;
  if (s.endsWith('%')) {
    s = s.substring(0, s.length - 1);
    const pct = parseInt(s, 10);
    if (Number.isNaN(pct)) throw Errors.illegalArgument(`invalid minimum_should_match [${spec}]`);
    // Java: float calc = (result * percent) * (1 / 100f); then (int) truncates toward zero
    const calc = Math.fround(Math.fround(optionalClauseCount * pct) * Math.fround(1 / 100));
    result = calc < 0 ? optionalClauseCount + Math.trunc(calc) : Math.trunc(calc);
  } else {
    const n = parseInt(s, 10);
    if (Number.isNaN(n)) throw Errors.illegalArgument(`invalid minimum_should_match [${spec}]`);
    result = n < 0 ? optionalClauseCount + n : n;
  }
  // not capped at the clause count: more required than there are optional clauses matches nothing (ES #15521)
  return result < 0 ? 0 : result;
}
