import { EsError, Errors } from '@strata/core-common';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { BoostQuery, ConstantScoreQuery, MatchAllDocsQuery, MatchNoDocsQuery } from '../search/basic-queries.js';
import { BooleanQuery } from '../search/boolean-query.js';
import { LegacyLongRangeQuery } from '../search/legacy-long-range-query.js';
import { encodeExactLong, exactLongField, exactLongLiteral, exactLongRange, isExactLongType } from '../index/exact-longs.js';
import { CaseInsensitiveTermQuery, TermRangeQuery } from '../search/multi-term-query.js';
import { PointRangeQuery } from '../search/point-range-query.js';
import { DocValuesRangeQuery, DocValuesTermsQuery } from '../search/doc-values-query.js';
import type { Query } from '../search/query.js';
import { TermQuery } from '../search/term-query.js';
import type { QueryParseContext } from './query-parser.js';
import { epochNanos, evalDateMath, splitDateMath, usesUnroundedNow, zoneOf } from '@strata/core-common';
import { cidrRange } from '../mapper/ip.js';

function parseDate(ft: MappedFieldType, value: unknown, roundUp: boolean, format?: string, timeZone?: string): number {
  if (ft.parseValue) return ft.parseValue(value, format, roundUp, timeZone);
  const t = ft.termValue(value);
  return typeof t === 'number' ? t : Number(t);
}

export type Json = Record<string, unknown>;

const REQUEST_LEVEL = new WeakSet<EsError>();

/**
 * Marks an error of a query parser as a request-level one: ES raises it while parsing the request body
 * (e.g. an IllegalArgumentException from a query builder's constructor), so it is reported as it is, not as
 * the shard's "failed to create query" query_shard_exception.
 */
export function requestLevel<E extends EsError>(e: E): E {
  REQUEST_LEVEL.add(e);
  return e;
}

export function isRequestLevel(e: unknown): boolean {
  return e instanceof EsError && REQUEST_LEVEL.has(e);
}

export function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function requireObject(name: string, json: unknown): Json {
  if (!isObject(json)) throw Errors.parsing(`[${name}] query malformed, no start_object after query name`);
  return json;
}

/** `{ field: value }` or `{ field: {...} }` with the multiple-fields error of ES */
export function singleField(name: string, json: unknown): [string, unknown] {
  const o = requireObject(name, json);
  let field: string | undefined;
  let value: unknown;
  for (const [k, v] of Object.entries(o)) {
    if (k === 'boost' || k === '_name') continue;
    if (field !== undefined) {
      throw Errors.parsing(`[${name}] query doesn't support multiple fields, found [${field}] and [${k}]`);
    }
    field = k;
    value = v;
  }
  if (field === undefined) throw Errors.illegalArgument(`[${name}] query requires a field`);
  return [field, value];
}

export function checkKeys(name: string, o: Json, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k) && k !== 'boost' && k !== '_name') {
      const v = o[k];
      if (isObject(v) || Array.isArray(v)) {
        throw Errors.parsing(`[${name}] query does not support [${k}]`);
      }
      throw Errors.parsing(`[${name}] query does not support [${k}]`);
    }
  }
}

export function numberValue(name: string, key: string, v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (Number.isNaN(n)) throw Errors.parsing(`[${name}] failed to parse field [${key}]`);
  return n;
}

export function intValue(name: string, key: string, v: unknown): number {
  const n = numberValue(name, key, v);
  return Math.trunc(n);
}

export function boolValue(name: string, key: string, v: unknown): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw Errors.parsing(`[${name}] failed to parse field [${key}]`);
}

export function boostOf(name: string, o: Json): number {
  return o['boost'] === undefined ? 1 : numberValue(name, 'boost', o['boost']);
}

export function withBoost(q: Query, boost: number): Query {
  return boost === 1 ? q : new BoostQuery(q, Math.fround(boost));
}

export function noMatch(reason: string): Query {
  return new MatchNoDocsQuery(reason);
}

/** the single value of `_index` / constant_keyword fields (every doc of the index has it), or undefined */
export function constantValue(ft: MappedFieldType): string | undefined {
  if (ft.type !== '_index' && ft.type !== 'constant_keyword') return undefined;
  const v = ft.params['value'];
  return v === undefined || v === null ? undefined : String(v);
}

/** match_all when the constant value satisfies the predicate, else match_none */
export function constantQuery(ft: MappedFieldType, test: (v: string) => boolean): Query | undefined {
  if (ft.type !== '_index' && ft.type !== 'constant_keyword') return undefined;
  const v = constantValue(ft);
  return v !== undefined && test(v) ? new MatchAllDocsQuery() : new MatchNoDocsQuery(`constant field [${ft.name}] does not match`);
}

/** a term-level query for one value of a field, according to its type */
export function termQueryFor(ctx: QueryParseContext, ft: MappedFieldType, value: unknown, caseInsensitive = false): Query {
  if (value === null || value === undefined) throw Errors.illegalArgument('value cannot be null');
  const cq = constantQuery(ft, (v) => (caseInsensitive ? v.toLowerCase() === String(value).toLowerCase() : v === String(value)));
  if (cq) return cq;
  if (ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean') {
    const [lo, hi] = pointTermBounds(ctx, ft, value);
    const exact = exactLongRangeQuery(ft, value, value);
    if (exact) return exact;
    if (!ft.searchable && ft.hasDocValues) return new DocValuesRangeQuery(ft.name, lo, hi);
    return new PointRangeQuery(ft.name, lo, hi);
  }
  if (!ft.searchable && ft.hasDocValues && (ft.kind === 'keyword' || ft.kind === 'ip')) {
    return new DocValuesTermsQuery(ft.name, [String(ft.termValue(value))]);
  }
  if (!ft.searchable) {
    throw Errors.illegalArgument(`Cannot search on field [${ft.name}] since it is not indexed.`);
  }
  if (ft.kind === 'ip' && typeof value === 'string' && value.includes('/')) {
    // IpFieldType.termQuery: a CIDR block (v4 or v6) is the range of its addresses
    const [lo, hi] = cidrRange(value);
    return new TermRangeQuery(ft.name, lo, hi, true, true);
  }
  const t = String(ft.termValue(value));
  if (caseInsensitive && ft.kind === 'keyword') return new CaseInsensitiveTermQuery(ft.name, t);
  return new TermQuery(ft.name, t);
}

/**
 * The point range a term-level query on a numeric/date/boolean field matches. Dates as ES's
 * DateFieldType.termQuery, i.e. rangeQuery(v, v, inclusive): the upper bound uses the round-up parser, so
 * "2024-01-05" matches the whole day and "2024-01-05T10" the whole hour.
 */
export function pointTermBounds(ctx: QueryParseContext, ft: MappedFieldType, value: unknown): [number, number] {
  const lo = pointValue(ctx, ft, value, false);
  if (ft.kind !== 'date') return [lo, lo];
  return [lo, pointValue(ctx, ft, value, true)];
}

/** converts a query value to a point value (dates via the field's date parser, with date math) */
export function pointValue(ctx: QueryParseContext, ft: MappedFieldType, value: unknown, roundUp: boolean, format?: string, timeZone?: string): number {
  if (ft.kind === 'date') {
    if (typeof value === 'string') {
      const dm = splitDateMath(value);
      if (dm) {
        if (dm.anchor === null && usesUnroundedNow(value)) ctx.markNowUsed();
        const nanos = ft.type === 'date_nanos';
        let base = dm.anchor === null ? ctx.nowMillis() : parseDate(ft, dm.anchor, false, format, timeZone);
        if (nanos && dm.anchor !== null) base = Math.floor(Math.round(base / 1000) / 1000);
        const r = evalDateMath(dm.math, base, roundUp, zoneOf(timeZone), value);
        return nanos ? epochNanos(r, roundUp && dm.math.includes('/') ? 999_999 : 0) : r;
      }
    }
    return parseDate(ft, value, roundUp, format, timeZone);
  }
  if (ft.kind === 'numeric' && (typeof value === 'number' || (typeof value === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(value)))) {
    const n = Number(value);
    if (ft.isInteger) {
      // out-of-range check is the field type's job; fractional values are handled by the range bounds
      if (Number.isInteger(n)) return n;
    }
    if (!ft.isInteger) return n;
  }
  const t = ft.termValue(value);
  const n = typeof t === 'number' ? t : Number(t);
  if (Number.isNaN(n)) throw new EsError('number_format_exception', 400, `For input string: "${String(value)}"`);
  return n;
}


const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The exact range query over a long / unsigned_long field when a bound is an integer beyond 2^53 given
 * exactly (a string of digits; see index/exact-longs.ts): the safe values by their points, the larger ones by
 * the terms of the field's side field. null when no bound needs it (the point range on doubles is exact then).
 * Numbers and absent bounds are integers of the same range; the bounds are already validated by pointValue.
 */
export function exactLongRangeQuery(ft: MappedFieldType, lower: unknown, upper: unknown, incLower = true, incUpper = true): Query | null {
  if (!isExactLongType(ft.type) || !ft.searchable) return null;
  const lx = lower === null || lower === undefined ? undefined : exactLongLiteral(lower);
  const ux = upper === null || upper === undefined ? undefined : exactLongLiteral(upper);
  const unsafe = (x: bigint | undefined) => x !== undefined && (x > SAFE_MAX || x < -SAFE_MAX);
  if (!unsafe(lx) && !unsafe(ux)) return null;
  const [min, max] = exactLongRange(ft.type);
  const bound = (v: unknown, x: bigint | undefined, up: boolean): bigint => {
    if (x !== undefined) return x;
    if (v === null || v === undefined) return up ? max : min;
    const n = Number(v);
    if (n === Infinity || n === -Infinity) return n > 0 ? max : min;
    return BigInt(up ? Math.floor(n) : Math.ceil(n));
  };
  let lo = bound(lower, lx, false);
  let hi = bound(upper, ux, true);
  if (!incLower && lx !== undefined) lo++;
  else if (!incLower && typeof lower === 'number' && Number.isInteger(lower)) lo++;
  if (!incUpper && ux !== undefined) hi--;
  else if (!incUpper && typeof upper === 'number' && Number.isInteger(upper)) hi--;
  if (lo < min) lo = min;
  if (hi > max) hi = max;
  if (lo > hi) return new MatchNoDocsQuery('empty range');
  const unsigned = ft.type === 'unsigned_long';
  const side = exactLongField(ft.name);
  const clauses: Query[] = [];
  if (lo < -SAFE_MAX) clauses.push(new TermRangeQuery(side, encodeExactLong(lo, unsigned), encodeExactLong(hi < -SAFE_MAX ? hi : -SAFE_MAX - 1n, unsigned), true, true));
  if (lo <= SAFE_MAX && hi >= -SAFE_MAX) {
    clauses.push(new PointRangeQuery(ft.name, Number(lo < -SAFE_MAX ? -SAFE_MAX : lo), Number(hi > SAFE_MAX ? SAFE_MAX : hi)));
  }
  if (hi > SAFE_MAX) clauses.push(new TermRangeQuery(side, encodeExactLong(lo > SAFE_MAX ? lo : SAFE_MAX + 1n, unsigned), encodeExactLong(hi, unsigned), true, true));
  // values of segments written before exact longs (doubles only) match as their doubles always did
  if (lo < -SAFE_MAX || hi > SAFE_MAX) clauses.push(new LegacyLongRangeQuery(ft.name, ft.type, Number(lo), Number(hi)));
  return new ConstantScoreQuery(clauses.length === 1 ? clauses[0]! : new BooleanQuery(clauses.map((query) => ({ occur: 'should' as const, query }))));
}
