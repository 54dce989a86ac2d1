/** bool, constant_score, boosting, dis_max, wrapper */
import { Errors } from '@strata/core-common';
import { BoostingQuery, ConstantScoreQuery, DisjunctionMaxQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { BooleanQuery, calculateMinShouldMatch, checkClauseCount, type BooleanClause, type Occur } from '../../search/boolean-query.js';
import { boolValue, boostOf, checkKeys, isObject, numberValue, requireObject, withBoost } from '../parse-utils.js';
import type { QueryParseContext, QueryParser } from '../query-parser.js';
import type { Query } from '../../search/query.js';

function clauseList(name: string, key: string, v: unknown, ctx: QueryParseContext): Query[] {
  if (Array.isArray(v)) {
    return v.map((x) => {
      if (!isObject(x)) throw Errors.parsing(`[${name}] query malformed, expected a query object in [${key}]`);
      return ctx.parseInnerQuery(x);
    });
  }
  if (isObject(v)) return [ctx.parseInnerQuery(v)];
  throw Errors.parsing(`[${name}] query does not support [${key}]`);
}

export const boolParser: QueryParser = {
  name: 'bool',
  parse(json, ctx) {
    const o = requireObject('bool', json);
    const clauses: BooleanClause[] = [];
    let msmSpec: string | number | undefined;
    let adjustPureNegative = true;
    for (const [k, v] of Object.entries(o)) {
      switch (k) {
        case 'must':
        case 'should':
        case 'filter':
        case 'must_not':
        case 'mustNot':
          for (const q of clauseList('bool', k, v, ctx)) clauses.push({ occur: (k === 'mustNot' ? 'must_not' : k) as Occur, query: q });
          break;
        case 'minimum_should_match':
        case 'minimumShouldMatch':
          msmSpec = v as string | number;
          break;
        case 'adjust_pure_negative':
          adjustPureNegative = boolValue('bool', k, v);
          break;
        case 'boost':
        case '_name':
        case 'disable_coord':
          break;
        default:
          throw Errors.parsing(`[bool] query does not support [${k}]`);
      }
    }
    const boost = boostOf('bool', o);
    if (clauses.length === 0) return withBoost(new MatchAllDocsQuery(), boost);
    const numShould = clauses.filter((c) => c.occur === 'should').length;
    let msm = 0;
    if (msmSpec !== undefined) {
      try {
        msm = calculateMinShouldMatch(numShould, msmSpec);
      } catch {
        throw Errors.illegalArgument(`invalid minimum_should_match [${String(msmSpec)}]`);
      }
      if (numShould === 0) msm = 0;
    }
    const positive = clauses.some((c) => c.occur !== 'must_not');
    if (!positive && adjustPureNegative) clauses.push({ occur: 'filter', query: new MatchAllDocsQuery() });
    checkClauseCount(clauses.length);
    return withBoost(new BooleanQuery(clauses, msm), boost);
  },
};

export const constantScoreParser: QueryParser = {
  name: 'constant_score',
  parse(json, ctx) {
    const o = requireObject('constant_score', json);
    checkKeys('constant_score', o, ['filter']);
    if (!isObject(o['filter'])) throw Errors.parsing('[constant_score] requires a \'filter\' element');
    return withBoost(new ConstantScoreQuery(ctx.parseInnerQuery(o['filter'])), boostOf('constant_score', o));
  },
};

export const boostingParser: QueryParser = {
  name: 'boosting',
  parse(json, ctx) {
    const o = requireObject('boosting', json);
    checkKeys('boosting', o, ['positive', 'negative', 'negative_boost']);
    if (!isObject(o['positive'])) throw Errors.parsing('[boosting] query requires \'positive\' query to be set\'');
    if (!isObject(o['negative'])) throw Errors.parsing('[boosting] query requires \'negative\' query to be set\'');
    if (o['negative_boost'] === undefined) throw Errors.parsing('[boosting] query requires \'negative_boost\' to be set to be a positive value\'');
    const nb = numberValue('boosting', 'negative_boost', o['negative_boost']);
    if (nb < 0) throw Errors.illegalArgument('[boosting] query requires negativeBoost to be set to positive value');
    const q = new BoostingQuery(ctx.parseInnerQuery(o['positive']), ctx.parseInnerQuery(o['negative']), Math.fround(nb));
    return withBoost(q, boostOf('boosting', o));
  },
};

export const disMaxParser: QueryParser = {
  name: 'dis_max',
  parse(json, ctx) {
    const o = requireObject('dis_max', json);
    checkKeys('dis_max', o, ['queries', 'tie_breaker']);
    if (o['queries'] === undefined) throw Errors.parsing('[dis_max] requires \'queries\' field with at least one clause');
    const qs = clauseList('dis_max', 'queries', o['queries'], ctx);
    if (qs.length === 0) throw Errors.parsing('[dis_max] requires \'queries\' field with at least one clause');
    const tie = o['tie_breaker'] === undefined ? 0 : numberValue('dis_max', 'tie_breaker', o['tie_breaker']);
    return withBoost(new DisjunctionMaxQuery(qs, Math.fround(tie)), boostOf('dis_max', o));
  },
};

/** wrapper: a base64-encoded query */
export const wrapperParser: QueryParser = {
  name: 'wrapper',
  parse(json, ctx) {
    const o = requireObject('wrapper', json);
    checkKeys('wrapper', o, ['query']);
    if (typeof o['query'] !== 'string') throw Errors.parsing('[wrapper] query is malformed, expected a base64 string');
    let inner: unknown;
    try {
      inner = JSON.parse(Buffer.from(o['query'], 'base64').toString('utf8'));
    } catch {
      throw Errors.parsing('[wrapper] query is malformed, failed to decode the base64 query');
    }
    return ctx.parseInnerQuery(inner);
  },
};
