/** term, terms, ids, exists, prefix, wildcard, regexp, fuzzy, match_all, match_none */
import { Errors, type StringMatcher } from '@strata/core-common';
import { ConstantScoreQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { BooleanQuery } from '../../search/boolean-query.js';
import { FieldExistsQuery } from '../../search/exists-query.js';
import {
  DocValuesFuzzyQuery,
  FuzzyQuery,
  PrefixQuery,
  RegexpQuery,
  TermInSetQuery,
  WildcardQuery,
  fuzzinessToEdits,
  luceneRegexpMatcher,
  wildcardTermMatcher,
} from '../../search/multi-term-query.js';
import { PointInSetQuery, PointRangeQuery } from '../../search/point-range-query.js';
import { DocValuesTermsQuery } from '../../search/doc-values-query.js';
import type { Query } from '../../search/query.js';
import {
  boolValue,
  boostOf,
  checkKeys,
  constantQuery,
  constantValue,
  intValue,
  isObject,
  noMatch,
  pointTermBounds,
  exactLongRangeQuery,
  pointValue,
  requireObject,
  singleField,
  termQueryFor,
  withBoost,
  type Json,
} from '../parse-utils.js';
import type { QueryParseContext, QueryParser } from '../query-parser.js';

export const matchAllParser: QueryParser = {
  name: 'match_all',
  parse(json) {
    const o = requireObject('match_all', json ?? {});
    checkKeys('match_all', o, []);
    return withBoost(new MatchAllDocsQuery(), boostOf('match_all', o));
  },
};

export const matchNoneParser: QueryParser = {
  name: 'match_none',
  parse(json) {
    const o = requireObject('match_none', json ?? {});
    checkKeys('match_none', o, []);
    return noMatch('User requested "match_none" query.');
  },
};

/** `{field: value}` / `{field: {value, boost, ...}}` */
function fieldBody(name: string, json: unknown, valueKey = 'value'): { field: string; value: unknown; opts: Json; boost: number } {
  const [field, v] = singleField(name, json);
  if (isObject(v)) {
    if (!(valueKey in v)) throw Errors.illegalArgument(`[${name}] query requires a [${valueKey}]`);
    if (Array.isArray(v[valueKey]) || isObject(v[valueKey])) throw Errors.parsing(`[${name}] query does not support [${valueKey}] of type array or object`);
    return { field, value: v[valueKey], opts: v, boost: boostOf(name, v) };
  }
  if (Array.isArray(v)) throw Errors.parsing(`[${name}] query does not support array of values`);
  return { field, value: v, opts: {}, boost: 1 };
}

export const termParser: QueryParser = {
  name: 'term',
  parse(json, ctx) {
    const { field, value, opts, boost } = fieldBody('term', json);
    checkKeys('term', opts, ['value', 'case_insensitive']);
    if (value === null) throw Errors.illegalArgument('field name is null or empty');
    const ft = ctx.fieldType(field);
    if (!ft) return noMatch(`unmapped field [${field}]`);
    const ci = opts['case_insensitive'] === undefined ? false : boolValue('term', 'case_insensitive', opts['case_insensitive']);
    return withBoost(termQueryFor(ctx, ft, value, ci), boost);
  },
};

export const termsParser: QueryParser = {
  name: 'terms',
  parse(json, ctx) {
    const o = requireObject('terms', json);
    let field: string | undefined;
    let values: unknown[] | undefined;
    for (const [k, v] of Object.entries(o)) {
      if (k === 'boost' || k === '_name') continue;
      if (field !== undefined) throw Errors.parsing(`[terms] query does not support multiple fields`);
      if (!Array.isArray(v)) {
        if (isObject(v)) throw Errors.parsing('[terms] query does not support terms lookup');
        throw Errors.parsing(`[terms] query does not support [${k}]`);
      }
      field = k;
      values = v;
    }
    if (field === undefined || values === undefined) throw Errors.illegalArgument('No value specified for terms query');
    const boost = boostOf('terms', o);
    const ft = ctx.fieldType(field);
    if (!ft) return noMatch(`unmapped field [${field}]`);
    if (values.length === 0) return noMatch('empty terms');
    checkMaxTermsCount(ctx, values.length);
    const cq = constantQuery(ft, (v) => values.some((x) => String(x) === v));
    if (cq) return withBoost(cq, boost);
    if (ft.kind === 'ip' && values.some((v) => typeof v === 'string' && v.includes('/'))) {
      // IpFieldType.termsQuery: CIDR blocks are ranges, so the values become should clauses (constant score)
      const clauses = values.map((v) => ({ occur: 'should' as const, query: termQueryFor(ctx, ft, v) }));
      return withBoost(new ConstantScoreQuery(new BooleanQuery(clauses)), boost);
    }
    if (!ft.searchable && ft.hasDocValues) {
      if (ft.kind === 'keyword' || ft.kind === 'ip') return withBoost(new DocValuesTermsQuery(field, values.map((v) => String(ft.termValue(v)))), boost);
    }
    if (ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean') {
      if (!ft.searchable && ft.hasDocValues) {
        return withBoost(new BooleanQuery(values.map((v) => ({ occur: 'should' as const, query: termQueryFor(ctx, ft, v) }))), boost);
      }
      if (ft.kind === 'date') {
        // DateFieldType has no terms query of its own: one term (= range) query per value, like ES
        const bounds = values.map((v) => pointTermBounds(ctx, ft, v));
        if (bounds.some(([lo, hi]) => lo !== hi)) {
          const ranges = bounds.map(([lo, hi]) => ({ occur: 'should' as const, query: new PointRangeQuery(field, lo, hi) as Query }));
          return withBoost(new ConstantScoreQuery(new BooleanQuery(ranges)), boost);
        }
        return withBoost(new PointInSetQuery(field, bounds.map(([lo]) => lo)), boost);
      }
      const points = values.map((v) => pointValue(ctx, ft, v, false));
      if (values.some((v) => exactLongRangeQuery(ft, v, v) !== null)) {
        // a long beyond 2^53 given exactly: one exact term query per value
        return withBoost(new ConstantScoreQuery(new BooleanQuery(values.map((v) => ({ occur: 'should' as const, query: termQueryFor(ctx, ft, v) })))), boost);
      }
      return withBoost(new PointInSetQuery(field, points), boost);
    }
    return withBoost(new TermInSetQuery(field, values.map((v) => String(ft.termValue(v)))), boost);
  },
};

/** TermsQueryBuilder: `index.max_terms_count` (default 65536) bounds the number of values */
function checkMaxTermsCount(ctx: QueryParseContext, count: number): void {
  const v = ctx.index?.settings['index.max_terms_count'];
  const max = v === undefined || v === null ? DEFAULT_MAX_TERMS_COUNT : Number(v);
  if (count > max) {
    throw Errors.illegalArgument(
      `The number of terms [${count}] used in the Terms Query request has exceeded the allowed maximum of [${max}]. ` +
        'This maximum can be set by changing the [index.max_terms_count] index level setting.',
    );
  }
}

const DEFAULT_MAX_TERMS_COUNT = 65536;

export const idsParser: QueryParser = {
  name: 'ids',
  parse(json) {
    const o = requireObject('ids', json);
    checkKeys('ids', o, ['values', 'type', 'types']);
    const vals = o['values'];
    if (vals !== undefined && !Array.isArray(vals)) throw Errors.parsing('[ids] failed to parse field [values]');
    const ids = (vals ?? []).map((v) => String(v));
    if (ids.length === 0) return noMatch('Missing ids in "ids" query.');
    return withBoost(new TermInSetQuery('_id', ids), boostOf('ids', o));
  },
};

export const existsParser: QueryParser = {
  name: 'exists',
  parse(json, ctx) {
    const o = requireObject('exists', json);
    checkKeys('exists', o, ['field']);
    const f = o['field'];
    if (typeof f !== 'string') throw Errors.illegalArgument('[exists] must be provided with a [field]');
    let fields = f.includes('*') ? ctx.matchingFieldNames(f) : ctx.fieldType(f) ? [f] : ctx.matchingFieldNames(f + '.*');
    fields = fields.filter((x) => x !== '_id' || true);
    if (fields.length === 0) return noMatch(`no mappings found for field [${f}]`);
    if (fields.length === 1) {
      const ft = ctx.fieldType(fields[0]!);
      if (ft && ft.type === '_index') return withBoost(new MatchAllDocsQuery(), boostOf('exists', o));
      if (ft && ft.type === 'constant_keyword') return withBoost(constantQuery(ft, () => true)!, boostOf('exists', o));
    }
    return withBoost(new FieldExistsQuery(fields), boostOf('exists', o));
  },
};

function stringFieldCheck(name: string, ctx: QueryParseContext, field: string) {
  const ft = ctx.fieldType(field);
  if (!ft) return undefined;
  if (constantValue(ft) !== undefined || ft.type === '_index') return ft;
  if (ft.kind !== 'keyword' && ft.kind !== 'text' && ft.kind !== 'ip') {
    const what = name === 'prefix' ? 'prefix' : name === 'wildcard' ? 'wildcard' : name === 'regexp' ? 'regexp' : 'fuzzy';
    throw Errors.queryShard(
      `Can only use ${what} queries on keyword and text fields - not on [${field}] which is of type [${ft.type}]`,
      ctx.indexName,
      undefined,
      ctx.index?.uuid,
    );
  }
  return ft;
}

function normalized(ctx: QueryParseContext, field: string, value: string): string {
  const ft = ctx.fieldType(field);
  if (ft && ft.kind === 'keyword') {
    const t = ft.termValue(value);
    return String(t);
  }
  return value;
}

export const prefixParser: QueryParser = {
  name: 'prefix',
  parse(json, ctx) {
    const { field, value, opts, boost } = fieldBody('prefix', json);
    checkKeys('prefix', opts, ['value', 'rewrite', 'case_insensitive']);
    const ft = stringFieldCheck('prefix', ctx, field);
    if (!ft) return noMatch('unmapped');
    const ci = opts['case_insensitive'] === true || opts['case_insensitive'] === 'true';
    const cq = constantQuery(ft, (v) => (ci ? v.toLowerCase().startsWith(String(value).toLowerCase()) : v.startsWith(String(value))));
    if (cq) return withBoost(cq, boost);
    return withBoost(new PrefixQuery(field, normalized(ctx, field, String(value)), ci), boost);
  },
};

export const wildcardParser: QueryParser = {
  name: 'wildcard',
  parse(json, ctx) {
    const [field, v] = singleField('wildcard', json);
    let value: unknown = v;
    let opts: Json = {};
    let boost = 1;
    if (isObject(v)) {
      opts = v;
      value = v['value'] ?? v['wildcard'];
      boost = boostOf('wildcard', v);
      checkKeys('wildcard', v, ['value', 'wildcard', 'rewrite', 'case_insensitive']);
    }
    if (value === undefined) throw Errors.illegalArgument('[wildcard] query requires a [value]');
    const ft = stringFieldCheck('wildcard', ctx, field);
    if (!ft) return noMatch('unmapped');
    const ci = opts['case_insensitive'] === true || opts['case_insensitive'] === 'true';
    let pattern = String(value);
    const wm = wildcardTermMatcher(String(value), ci).re;
    const cq = constantQuery(ft, (v) => wm.test(v));
    if (cq) return withBoost(cq, boost);
    if (ft.kind === 'keyword' && !ci) pattern = normalizeWildcard(ctx, field, pattern);
    return withBoost(new WildcardQuery(field, pattern, ci), boost);
  },
};

/** applies the keyword normalizer to the literal parts of a wildcard pattern */
function normalizeWildcard(ctx: QueryParseContext, field: string, pattern: string): string {
  return pattern.replace(/[^*?\\]+/g, (lit) => {
    try {
      return normalized(ctx, field, lit);
    } catch {
      return lit;
    }
  });
}

export const regexpParser: QueryParser = {
  name: 'regexp',
  parse(json, ctx) {
    const { field, value, opts, boost } = fieldBody('regexp', json);
    checkKeys('regexp', opts, ['value', 'flags', 'flags_value', 'max_determinized_states', 'rewrite', 'case_insensitive']);
    const ft = stringFieldCheck('regexp', ctx, field);
    if (!ft) return noMatch('unmapped');
    const ci = opts['case_insensitive'] === true || opts['case_insensitive'] === 'true';
    const pattern = String(value);
    checkRegexLength(ctx, pattern);
    const flags = opts['flags_value'] !== undefined ? Number(opts['flags_value']) : opts['flags'] !== undefined ? String(opts['flags']) : undefined;
    let re: StringMatcher;
    try {
      re = luceneRegexpMatcher(pattern, ci, flags);
    } catch (e) {
      throw Errors.illegalArgument(`invalid regular expression [${pattern}]: ${(e as Error).message}`);
    }
    const cq = constantQuery(ft, (v) => re.test(v));
    if (cq) return withBoost(cq, boost);
    return withBoost(new RegexpQuery(field, pattern, ci, flags), boost);
  },
};

/** `index.max_regex_length` (default 1000), checked as Elasticsearch's RegexpQueryBuilder does */
export function checkRegexLength(ctx: QueryParseContext, pattern: string): void {
  const max = Number(ctx.index?.settings['index.max_regex_length'] ?? 1000);
  if (pattern.length > max) {
    throw Errors.illegalArgument(
      `The length of regex [${pattern.length}] used in the Regexp Query request has exceeded the allowed maximum of [${max}]. ` +
        'This maximum can be set by changing the [index.max_regex_length] index level setting.',
    );
  }
}

export const fuzzyParser: QueryParser = {
  name: 'fuzzy',
  parse(json, ctx) {
    const { field, value, opts, boost } = fieldBody('fuzzy', json);
    checkKeys('fuzzy', opts, ['value', 'fuzziness', 'prefix_length', 'max_expansions', 'transpositions', 'rewrite']);
    const ft = stringFieldCheck('fuzzy', ctx, field);
    if (!ft) return noMatch('unmapped');
    const term = normalized(ctx, field, String(value));
    const edits = fuzzinessToEdits(opts['fuzziness'] as string | number | undefined, term);
    const prefixLength = opts['prefix_length'] === undefined ? 0 : intValue('fuzzy', 'prefix_length', opts['prefix_length']);
    const transpositions = opts['transpositions'] === undefined ? true : boolValue('fuzzy', 'transpositions', opts['transpositions']);
    if (!ft.searchable && ft.hasDocValues) return withBoost(new DocValuesFuzzyQuery(field, term, edits, prefixLength, transpositions), boost);
    const q = new FuzzyQuery(
      field,
      term,
      edits,
      prefixLength,
      opts['max_expansions'] === undefined ? 50 : intValue('fuzzy', 'max_expansions', opts['max_expansions']),
      transpositions,
    );
    return withBoost(q, boost);
  },
};

export function disjunction(queries: Query[]): Query {
  return queries.length === 1 ? queries[0]! : new BooleanQuery(queries.map((q) => ({ occur: 'should' as const, query: q })));
}
