/**
 * The query language of `GET|POST /_security/_query/api_key`: the query DSL subset Elasticsearch allows
 * there (bool, match_all, term, terms, match, prefix, wildcard, range, exists, ids) over the key fields
 * `id`, `name`, `type`, `username`, `realm_name`, `creation`, `expiration`, `invalidated`, `invalidation`
 * and `metadata.*`, with `from`, `size`, `sort` and `search_after`.
 */
import { Errors, automatonRegExp, parseDateMath } from '@strata/core-common';
import type { ApiKeyRecord } from '../store/security-store.js';

type Value = string | number | boolean | null | undefined;
type Predicate = (k: ApiKeyRecord) => boolean;

const DATE_FIELDS = new Set(['creation', 'expiration', 'invalidation']);
const FIELDS = new Set(['id', 'name', 'type', 'username', 'realm_name', 'creation', 'expiration', 'invalidated', 'invalidation']);

export function fieldOf(name: string): string {
  const f = name === 'owner' ? 'username' : name === 'realm' ? 'realm_name' : name;
  if (!FIELDS.has(f) && !f.startsWith('metadata.')) throw Errors.illegalArgument(`Field [${name}] is not allowed for querying or aggregation`);
  return f;
}

function valueOf(k: ApiKeyRecord, field: string): Value {
  switch (field) {
    case 'id':
      return k.id;
    case 'name':
      return k.name;
    case 'type':
      return k.type;
    case 'username':
      return k.creator.principal;
    case 'realm_name':
      return k.creator.realm;
    case 'creation':
      return k.creation;
    case 'expiration':
      return k.expiration;
    case 'invalidated':
      return k.invalidated;
    case 'invalidation':
      return k.invalidation;
    default: {
      let cur: unknown = k.metadata;
      for (const p of field.slice('metadata.'.length).split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
      return cur === undefined || (typeof cur === 'object' && cur !== null) ? undefined : (cur as Value);
    }
  }
}

function values(k: ApiKeyRecord, field: string): Value[] {
  if (field.startsWith('metadata.')) {
    let cur: unknown = k.metadata;
    for (const p of field.slice('metadata.'.length).split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
    if (Array.isArray(cur)) return cur.filter((x) => typeof x !== 'object') as Value[];
  }
  return [valueOf(k, field)];
}

/** the values of `field` an aggregation sees: none for a missing field; metadata is flattened (keywords) */
export function aggFieldValues(k: ApiKeyRecord, field: string): Array<string | number | boolean> {
  const out: Array<string | number | boolean> = [];
  for (const v of values(k, field)) {
    if (v === null || v === undefined) continue;
    out.push(field.startsWith('metadata.') ? String(v) : v);
  }
  return out;
}

/** the mapped type of a key field in Elasticsearch's security index */
export function fieldKind(field: string): 'date' | 'boolean' | 'flattened' | 'keyword' {
  if (DATE_FIELDS.has(field)) return 'date';
  if (field === 'invalidated') return 'boolean';
  return field.startsWith('metadata.') ? 'flattened' : 'keyword';
}

const INDEX_FIELDS: Record<string, string> = {
  username: 'creator.principal',
  realm_name: 'creator.realm',
  creation: 'creation_time',
  expiration: 'expiration_time',
  invalidation: 'invalidation_time',
  invalidated: 'api_key_invalidated',
};

/** the field's name in the security index (what Elasticsearch's messages name) */
export function indexFieldName(field: string): string {
  if (field.startsWith('metadata.')) return `metadata_flattened.${field.slice('metadata.'.length)}`;
  return INDEX_FIELDS[field] ?? field;
}

/** a date value or date math (`now+30d/d`); `roundUp` for `gt` and `lte`, as Elasticsearch rounds */
function parseDate(v: unknown, now: number, roundUp = false): number {
  if (typeof v === 'number') return v;
  return parseDateMath(String(v), { now, roundUp });
}

function same(a: Value, b: unknown, field: string, now: number): boolean {
  if (a === null || a === undefined) return false;
  if (DATE_FIELDS.has(field)) return a === parseDate(b, now);
  if (typeof a === 'boolean') return String(a) === String(b);
  return String(a) === String(b);
}

function single(q: unknown, type: string): [string, unknown] {
  if (q === null || typeof q !== 'object' || Array.isArray(q) || Object.keys(q).length !== 1) throw Errors.parsing(`[${type}] query malformed, no start_object after query name`);
  return Object.entries(q as Record<string, unknown>)[0];
}

function clauseValue(v: unknown, key: string): unknown {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : v;
}

function asList(v: unknown): unknown[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

export function compileQuery(q: unknown, now: number): Predicate {
  if (q === undefined || q === null) return () => true;
  const [type, body] = single(q, 'query');
  switch (type) {
    case 'match_all':
      return () => true;
    case 'bool': {
      const b = (body ?? {}) as Record<string, unknown>;
      for (const k of Object.keys(b)) {
        if (!['must', 'filter', 'should', 'must_not', 'minimum_should_match', 'boost'].includes(k)) throw Errors.parsing(`[bool] query does not support [${k}]`);
      }
      const must = [...asList(b['must']), ...asList(b['filter'])].map((c) => compileQuery(c, now));
      const should = asList(b['should']).map((c) => compileQuery(c, now));
      const not = asList(b['must_not']).map((c) => compileQuery(c, now));
      const msm = b['minimum_should_match'] !== undefined ? Number(b['minimum_should_match']) : must.length === 0 && should.length > 0 ? 1 : 0;
      return (k) => must.every((p) => p(k)) && !not.some((p) => p(k)) && should.filter((p) => p(k)).length >= msm;
    }
    case 'term': {
      const [f, v] = single(body, 'term');
      const field = fieldOf(f);
      const want = clauseValue(v, 'value');
      return (k) => values(k, field).some((x) => same(x, want, field, now));
    }
    case 'terms': {
      const [f, v] = single(body, 'terms');
      const field = fieldOf(f);
      if (!Array.isArray(v)) throw Errors.parsing('[terms] query requires an array of values');
      return (k) => values(k, field).some((x) => v.some((w) => same(x, w, field, now)));
    }
    case 'match': {
      const [f, v] = single(body, 'match');
      const field = fieldOf(f);
      const want = String(clauseValue(v, 'query'));
      return (k) => values(k, field).some((x) => x !== null && x !== undefined && (String(x) === want || String(x).toLowerCase().split(/\W+/).includes(want.toLowerCase())));
    }
    case 'prefix': {
      const [f, v] = single(body, 'prefix');
      const field = fieldOf(f);
      const want = String(clauseValue(v, 'value'));
      return (k) => values(k, field).some((x) => typeof x === 'string' && x.startsWith(want));
    }
    case 'wildcard': {
      const [f, v] = single(body, 'wildcard');
      const field = fieldOf(f);
      const re = automatonRegExp(String(clauseValue(v, 'value')));
      return (k) => values(k, field).some((x) => typeof x === 'string' && re.test(x));
    }
    case 'exists': {
      const field = fieldOf(String((body as Record<string, unknown>)?.['field']));
      return (k) => values(k, field).some((x) => x !== null && x !== undefined);
    }
    case 'ids': {
      const ids = asList((body as Record<string, unknown>)?.['values']).map(String);
      return (k) => ids.includes(k.id);
    }
    case 'range': {
      const [f, v] = single(body, 'range');
      const field = fieldOf(f);
      const r = (v ?? {}) as Record<string, unknown>;
      const conv = (x: unknown, roundUp: boolean) => (DATE_FIELDS.has(field) ? parseDate(x, now, roundUp) : x);
      const gt = r['gt'] !== undefined ? conv(r['gt'], true) : undefined;
      const gte = r['gte'] !== undefined ? conv(r['gte'], false) : undefined;
      const lt = r['lt'] !== undefined ? conv(r['lt'], false) : undefined;
      const lte = r['lte'] !== undefined ? conv(r['lte'], true) : undefined;
      return (k) =>
        values(k, field).some((x) => {
          if (x === null || x === undefined) return false;
          const c = x as string | number;
          return (gt === undefined || c > (gt as typeof c)) && (gte === undefined || c >= (gte as typeof c)) && (lt === undefined || c < (lt as typeof c)) && (lte === undefined || c <= (lte as typeof c));
        });
    }
    default:
      throw Errors.illegalArgument(`Query type [${type}] is not currently supported in this context`);
  }
}

export interface SortSpec {
  field: string;
  desc: boolean;
}

export function parseSort(v: unknown): SortSpec[] {
  return asList(v).map((s) => {
    if (typeof s === 'string') return { field: s === '_doc' ? '_doc' : fieldOf(s), desc: false };
    const [f, o] = single(s, 'sort');
    const order = typeof o === 'string' ? o : (o as Record<string, unknown>)?.['order'];
    return { field: f === '_doc' ? '_doc' : fieldOf(f), desc: order === 'desc' };
  });
}

export function sortValues(k: ApiKeyRecord, sort: SortSpec[], docIndex: number): Value[] {
  return sort.map((s) => (s.field === '_doc' ? docIndex : valueOf(k, s.field)));
}

export function compareSortValues(a: Value[], b: Value[], sort: SortSpec[]): number {
  for (let i = 0; i < sort.length; i++) {
    const x = a[i];
    const y = b[i];
    let c: number;
    if (x === y) c = 0;
    else if (x === null || x === undefined) c = 1;
    else if (y === null || y === undefined) c = -1;
    else c = x < y ? -1 : 1;
    if (c !== 0) return sort[i].desc && x !== null && x !== undefined && y !== null && y !== undefined ? -c : c;
  }
  return 0;
}
