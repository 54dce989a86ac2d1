/** match, match_phrase, match_phrase_prefix, match_bool_prefix, multi_match */
import { EsError, Errors } from '@strata/core-common';
import type { Token } from '../../analysis/analyzer.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import { DisjunctionMaxQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { BooleanQuery, calculateMinShouldMatch, checkClauseCount } from '../../search/boolean-query.js';
import { FuzzyQuery, PrefixQuery, fuzzinessToEdits } from '../../search/multi-term-query.js';
import { PhrasePrefixQuery, PhraseQuery } from '../../search/phrase-query.js';
import type { Query } from '../../search/query.js';
import { TermQuery } from '../../search/term-query.js';
import {
  boolValue,
  boostOf,
  checkKeys,
  intValue,
  isObject,
  noMatch,
  numberValue,
  requireObject,
  singleField,
  termQueryFor,
  withBoost,
  type Json,
} from '../parse-utils.js';
import type { QueryParseContext, QueryParser } from '../query-parser.js';

export type MatchType = 'boolean' | 'phrase' | 'phrase_prefix' | 'bool_prefix';

export interface MatchOptions {
  type: MatchType;
  operator: 'or' | 'and';
  minimumShouldMatch?: string | number;
  fuzziness?: string | number;
  prefixLength: number;
  maxExpansions: number;
  transpositions: boolean;
  analyzer?: string;
  zeroTermsQuery: 'none' | 'all';
  lenient: boolean;
  slop: number;
}

export function defaultMatchOptions(type: MatchType): MatchOptions {
  return { type, operator: 'or', prefixLength: 0, maxExpansions: 50, transpositions: true, zeroTermsQuery: 'none', lenient: false, slop: 0 };
}

const MATCH_KEYS = [
  'query',
  'operator',
  'analyzer',
  'fuzziness',
  'prefix_length',
  'max_expansions',
  'fuzzy_transpositions',
  'lenient',
  'zero_terms_query',
  'minimum_should_match',
  'auto_generate_synonyms_phrase_query',
  'fuzzy_rewrite',
  'slop',
];

function readOptions(name: string, o: Json, type: MatchType): MatchOptions {
  const opts = defaultMatchOptions(type);
  for (const [k, v] of Object.entries(o)) {
    switch (k) {
      case 'operator': {
        const op = String(v).toLowerCase();
        if (op !== 'or' && op !== 'and') throw Errors.illegalArgument(`operator needs to be either [OR] or [AND], but not [${String(v)}]`);
        opts.operator = op;
        break;
      }
      case 'minimum_should_match':
        opts.minimumShouldMatch = v as string | number;
        break;
      case 'fuzziness':
        opts.fuzziness = v as string | number;
        break;
      case 'prefix_length':
        opts.prefixLength = intValue(name, k, v);
        break;
      case 'max_expansions':
        opts.maxExpansions = intValue(name, k, v);
        break;
      case 'fuzzy_transpositions':
        opts.transpositions = boolValue(name, k, v);
        break;
      case 'analyzer':
        opts.analyzer = String(v);
        break;
      case 'zero_terms_query': {
        const z = String(v).toLowerCase();
        if (z !== 'none' && z !== 'all') throw Errors.parsing(`Unsupported zero_terms_query value [${String(v)}]`);
        opts.zeroTermsQuery = z;
        break;
      }
      case 'lenient':
        opts.lenient = boolValue(name, k, v);
        break;
      case 'slop':
        opts.slop = intValue(name, k, v);
        break;
    }
  }
  return opts;
}

/** texts longer than this are first counted chunk by chunk, so one past the max clause count is refused early */
const LARGE_TEXT = 64 * 1024;

function analyze(ctx: QueryParseContext, ft: MappedFieldType, text: string, analyzerName: string | undefined, queryName: string): Token[] {
  let analyzer = ft.searchAnalyzer ?? ft.indexAnalyzer;
  if (analyzerName) {
    analyzer = ctx.analyzer(analyzerName);
    if (!analyzer) throw Errors.queryShard(`[${queryName}] analyzer [${analyzerName}] not found`, ctx.indexName, undefined, ctx.index?.uuid);
  }
  if (!analyzer) return text.length ? [{ term: text, position: 0, startOffset: 0, endOffset: text.length, type: 'word' }] : [];
  if (text.length > LARGE_TEXT) {
    // megabytes of text: stop as soon as the tokens seen exceed the max clause count (Lucene stops at the
    // first clause past it), instead of analysing everything first; chunks end at whitespace
    let count = 0;
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + LARGE_TEXT);
      if (end < text.length) {
        const ws = text.slice(end).search(/\s/);
        end = ws < 0 ? text.length : end + ws;
      }
      count += analyzer.analyze(text.slice(start, end)).length;
      checkClauseCount(count);
      start = end;
    }
  }
  return analyzer.analyze(text);
}

function byPosition(tokens: Token[]): { terms: string[][]; positions: number[] } {
  const map = new Map<number, string[]>();
  for (const t of tokens) {
    const arr = map.get(t.position);
    if (arr) {
      if (!arr.includes(t.term)) arr.push(t.term);
    } else map.set(t.position, [t.term]);
  }
  const positions = [...map.keys()].sort((a, b) => a - b);
  const base = positions[0] ?? 0;
  return { terms: positions.map((p) => map.get(p)!), positions: positions.map((p) => p - base) };
}

function termOrSynonyms(field: string, alts: string[], opts: MatchOptions): Query {
  const mk = (t: string): Query =>
    opts.fuzziness !== undefined && fuzzinessToEdits(opts.fuzziness, t) > 0
      ? new FuzzyQuery(field, t, fuzzinessToEdits(opts.fuzziness, t), opts.prefixLength, opts.maxExpansions, opts.transpositions)
      : new TermQuery(field, t);
  if (alts.length === 1) return mk(alts[0]!);
  return new BooleanQuery(alts.map((t) => ({ occur: 'should' as const, query: mk(t) })));
}

function zeroTerms(opts: MatchOptions): Query {
  return opts.zeroTermsQuery === 'all' ? new MatchAllDocsQuery() : noMatch('Matching no documents because no terms present');
}

/** builds the query of a match-family clause on one field (null-safe for unmapped fields) */
export function buildMatchQuery(ctx: QueryParseContext, field: string, value: unknown, opts: MatchOptions, queryName = 'match'): Query {
  const ft = ctx.fieldType(field);
  if (!ft) return noMatch(`unmapped field [${field}]`);
  try {
    if (ft.kind !== 'text') {
      if (ft.kind === 'keyword' && (opts.type === 'phrase_prefix' || opts.type === 'bool_prefix')) {
        return new PrefixQuery(field, String(ft.termValue(value)));
      }
      if (ft.kind === 'keyword' && opts.fuzziness !== undefined) {
        const t = String(ft.termValue(value));
        const e = fuzzinessToEdits(opts.fuzziness, t);
        if (e > 0) return new FuzzyQuery(field, t, e, opts.prefixLength, opts.maxExpansions, opts.transpositions);
      }
      return termQueryFor(ctx, ft, value);
    }
  } catch (e) {
    if (opts.lenient) return noMatch('failed query, caused by ' + (e as Error).message);
    throw e;
  }
  const text = typeof value === 'string' ? value : String(value);
  const tokens = analyze(ctx, ft, text, opts.analyzer, queryName);
  if (tokens.length === 0) return zeroTerms(opts);
  // a match over megabytes of text is refused before a query of that size is built (Lucene's TooManyClauses)
  checkClauseCount(tokens.length);
  const { terms, positions } = byPosition(tokens);
  if (opts.type === 'phrase') {
    if (terms.length === 1) return termOrSynonyms(field, terms[0]!, { ...opts, fuzziness: undefined });
    return new PhraseQuery(field, terms, positions, opts.slop);
  }
  if (opts.type === 'phrase_prefix') {
    return new PhrasePrefixQuery(field, terms, positions, opts.slop, opts.maxExpansions);
  }
  const clauses: Query[] = terms.map((alts, i) =>
    opts.type === 'bool_prefix' && i === terms.length - 1 ? new PrefixQuery(field, alts[0]!) : termOrSynonyms(field, alts, opts),
  );
  if (clauses.length === 1) return clauses[0]!;
  if (opts.operator === 'and') return new BooleanQuery(clauses.map((q) => ({ occur: 'must' as const, query: q })));
  const msm = opts.minimumShouldMatch === undefined ? 0 : calculateMinShouldMatch(clauses.length, opts.minimumShouldMatch);
  return new BooleanQuery(
    clauses.map((q) => ({ occur: 'should' as const, query: q })),
    msm,
  );
}

function matchFamily(name: string, type: MatchType, extraKeys: string[] = []): QueryParser {
  return {
    name,
    parse(json, ctx) {
      const [field, v] = singleField(name, json);
      let o: Json;
      if (isObject(v)) {
        o = v;
        checkKeys(name, o, [...MATCH_KEYS, ...extraKeys]);
        if (!('query' in o)) throw Errors.illegalArgument(`[${name}] requires query value`);
      } else if (Array.isArray(v)) {
        throw Errors.parsing(`[${name}] unknown token [START_ARRAY] after [${field}]`);
      } else o = { query: v };
      if (o['query'] === null) throw Errors.illegalArgument(`[${name}] requires query value`);
      const opts = readOptions(name, o, type);
      return withBoost(buildMatchQuery(ctx, field, o['query'], opts, name), boostOf(name, o));
    },
  };
}

export const matchParser = matchFamily('match', 'boolean');
export const matchPhraseParser = matchFamily('match_phrase', 'phrase');
export const matchPhrasePrefixParser = matchFamily('match_phrase_prefix', 'phrase_prefix');
export const matchBoolPrefixParser = matchFamily('match_bool_prefix', 'bool_prefix');

/** parses `field^2` into name and boost */
export function fieldWithBoost(s: string): { field: string; boost: number } {
  const i = s.lastIndexOf('^');
  if (i > 0) {
    const b = Number(s.substring(i + 1));
    if (Number.isNaN(b)) throw Errors.illegalArgument(`invalid boost value in [${s}]`);
    return { field: s.substring(0, i), boost: b };
  }
  return { field: s, boost: 1 };
}

/** expands field patterns (`*`, `title*^2`) to concrete searchable fields with boosts */
export function resolveFields(ctx: QueryParseContext, specs: string[]): Array<{ field: string; boost: number; lenient: boolean }> {
  const out = new Map<string, { field: string; boost: number; lenient: boolean }>();
  for (const spec of specs) {
    const { field, boost } = fieldWithBoost(spec);
    if (field.includes('*')) {
      for (const f of ctx.matchingFieldNames(field)) {
        const ft = ctx.fieldType(f);
        if (!ft || !ft.searchable || f.startsWith('_')) continue;
        if (field === '*' && !['text', 'keyword', 'numeric', 'date', 'boolean', 'ip'].includes(ft.kind)) continue;
        if (!out.has(f)) out.set(f, { field: f, boost, lenient: true });
      }
    } else {
      const prev = out.get(field);
      out.set(field, { field, boost: prev ? prev.boost * boost : boost, lenient: false });
    }
  }
  return [...out.values()];
}

const MULTI_KEYS = [...MATCH_KEYS, 'fields', 'type', 'tie_breaker', 'use_dis_max'];

export const multiMatchParser: QueryParser = {
  name: 'multi_match',
  parse(json, ctx) {
    const o = requireObject('multi_match', json);
    checkKeys('multi_match', o, MULTI_KEYS);
    if (o['query'] === undefined || o['query'] === null) throw Errors.illegalArgument('[multi_match] requires query value');
    let fieldSpecs: string[];
    const f = o['fields'];
    if (f === undefined) fieldSpecs = ctx.defaultFields();
    else if (typeof f === 'string') fieldSpecs = [f];
    else if (Array.isArray(f)) fieldSpecs = f.map(String);
    else throw Errors.parsing('[multi_match] query does not support [fields]');
    const typeName = o['type'] === undefined ? 'best_fields' : String(o['type']).toLowerCase();
    const types: Record<string, MatchType> = {
      best_fields: 'boolean',
      most_fields: 'boolean',
      cross_fields: 'boolean',
      phrase: 'phrase',
      phrase_prefix: 'phrase_prefix',
      bool_prefix: 'bool_prefix',
    };
    const mt = types[typeName];
    if (!mt) throw Errors.parsing(`[multi_match] query does not support type ${typeName}`);
    if (o['slop'] !== undefined && (typeName === 'best_fields' || typeName === 'most_fields' || typeName === 'cross_fields')) {
      throw Errors.illegalArgument(`slop not allowed for type [${typeName}]`);
    }
    const opts = readOptions('multi_match', o, mt);
    const tie = o['tie_breaker'] === undefined ? 0 : numberValue('multi_match', 'tie_breaker', o['tie_breaker']);
    const fields = resolveFields(ctx, fieldSpecs);
    const queries: Query[] = [];
    for (const { field, boost, lenient } of fields) {
      let q: Query;
      try {
        q = buildMatchQuery(ctx, field, o['query'], { ...opts, lenient: opts.lenient || lenient }, 'multi_match');
      } catch (e) {
        if (e instanceof EsError && (opts.lenient || lenient)) continue;
        throw e;
      }
      queries.push(withBoost(q, boost));
    }
    if (queries.length === 0) return noMatch('no fields');
    const boost = boostOf('multi_match', o);
    if (queries.length === 1) return withBoost(queries[0]!, boost);
    if (typeName === 'most_fields' || typeName === 'bool_prefix') {
      return withBoost(new BooleanQuery(queries.map((q) => ({ occur: 'should' as const, query: q }))), boost);
    }
    return withBoost(new DisjunctionMaxQuery(queries, Math.fround(typeName === 'cross_fields' && o['tie_breaker'] === undefined ? 0 : tie)), boost);
  },
};

/** combined_fields: approximated as a cross-field disjunction per field (BM25F blending is not implemented) */
export const combinedFieldsParser: QueryParser = {
  name: 'combined_fields',
  parse(json, ctx) {
    const o = requireObject('combined_fields', json);
    checkKeys('combined_fields', o, ['query', 'fields', 'operator', 'minimum_should_match', 'zero_terms_query', 'auto_generate_synonyms_phrase_query']);
    if (o['query'] === undefined) throw Errors.illegalArgument('[combined_fields] requires query value');
    if (!Array.isArray(o['fields']) || o['fields'].length === 0) throw Errors.illegalArgument('[combined_fields] requires \'fields\' to be set');
    const fields = resolveFields(ctx, o['fields'].map(String));
    for (const f of fields) {
      const ft = ctx.fieldType(f.field);
      if (ft && ft.kind !== 'text') {
        throw Errors.illegalArgument(`Field [${f.field}] of type [${ft.type}] does not support [combined_fields] queries`);
      }
    }
    const opts = readOptions('combined_fields', o, 'boolean');
    const qs = fields.map((f) => withBoost(buildMatchQuery(ctx, f.field, o['query'], opts, 'combined_fields'), f.boost));
    if (qs.length === 0) return noMatch('no fields');
    return withBoost(qs.length === 1 ? qs[0]! : new DisjunctionMaxQuery(qs, 0), boostOf('combined_fields', o));
  },
};
