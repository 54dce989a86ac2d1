/**
 * Aggregation kinds: generators and naive evaluators of terms, histogram, date_histogram, range, filters
 * and metrics (min/max/sum/avg/value_count/stats/cardinality), from the Elasticsearch aggregations reference.
 */
import fc from 'fast-check';
import type { AggEvalContext, AggGenContext, AggKind } from './kinds.js';
import {
  compareKey,
  dateMillis,
  fieldOf,
  ipCanonicalOfHex,
  isNumeric,
  keysOf,
  storedNumber,
  valuesOf,
  type Corpus,
  type Json,
  type OracleField,
  type SortKey,
} from './model.js';
import { KEYWORDS, scalarValue } from './values.js';

const one = <T>(x: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...x);

function numbersOf(doc: { source: Json; id: string }, f: OracleField): number[] {
  return valuesOf(doc, f.name).map((v) => (f.type === 'date' ? dateMillis(v) : storedNumber(f.type, v)));
}

// ------------------------------------------------------------------------------------------ terms

type TermsOrder = { _count: 'asc' | 'desc' } | { _key: 'asc' | 'desc' };

/** the rendered key of a terms bucket */
function renderKey(f: OracleField, k: SortKey): Json {
  if (f.type === 'ip') return { key: ipCanonicalOfHex(String(k)) };
  if (f.type === 'boolean') return { key: k, key_as_string: k === 1 ? 'true' : 'false' };
  if (f.type === 'date') return { key: k, key_as_string: new Date(Number(k)).toISOString() };
  return { key: k };
}

const terms: AggKind = {
  names: ['terms'],
  weight: 3,
  arbitrary(ctx, depth) {
    const fields = ctx.fields('keyword', 'long', 'integer', 'ip', 'boolean', 'date');
    if (fields.length === 0) return null;
    return fc
      .record({
        f: one(fields),
        size: fc.integer({ min: 1, max: 6 }),
        order: fc.option(
          one<TermsOrder>([{ _count: 'asc' }, { _count: 'desc' }, { _key: 'asc' }, { _key: 'desc' }]),
          { nil: undefined },
        ),
        minDocCount: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
        missing: fc.boolean(),
        subs: ctx.subAggs(depth - 1),
      })
      .map(({ f, size, order, minDocCount, missing, subs }) => {
        const body: Json = { field: f.name, size };
        if (order) body['order'] = order;
        if (minDocCount !== undefined) body['min_doc_count'] = minDocCount;
        if (missing && (f.type === 'keyword' || isNumeric(f.type))) body['missing'] = f.type === 'keyword' ? 'zz-missing' : 99;
        return subs ? { terms: body, aggs: subs } : { terms: body };
      });
  },
  evaluate(_t, body, subs, docs, ctx) {
    const f = fieldOf(ctx.mapping, String(body['field']));
    if (!f) return { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] };
    const groups = new Map<SortKey, Corpus[number][]>();
    for (const d of docs) {
      let keys = keysOf(d, f);
      if (keys.length === 0 && body['missing'] !== undefined) keys = [f.type === 'keyword' ? String(body['missing']) : Number(body['missing'])];
      for (const k of keys) {
        let g = groups.get(k);
        if (!g) groups.set(k, (g = []));
        g.push(d);
      }
    }
    const minDocCount = (body['min_doc_count'] as number | undefined) ?? 1;
    const order = (body['order'] as TermsOrder | undefined) ?? { _count: 'desc' };
    const byKey = (a: SortKey, b: SortKey) => compareKey(f.type, a, b);
    let buckets = [...groups.entries()].filter(([, ds]) => ds.length >= minDocCount);
    buckets.sort(([ka, da], [kb, db]) => {
      if ('_key' in order) return order._key === 'asc' ? byKey(ka, kb) : byKey(kb, ka);
      const c = order._count === 'asc' ? da.length - db.length : db.length - da.length;
      return c !== 0 ? c : byKey(ka, kb); // ties: _key asc
    });
    const size = Number(body['size']);
    const other = buckets.slice(size).reduce((s, [, ds]) => s + ds.length, 0);
    buckets = buckets.slice(0, size);
    return {
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: other,
      buckets: buckets.map(([k, ds]) => ({ ...renderKey(f, k), doc_count: ds.length, ...ctx.evaluateSubs(subs, ds) })),
    };
  },
};

// ------------------------------------------------------------------------------------------ histogram

const histogram: AggKind = {
  names: ['histogram'],
  weight: 2,
  arbitrary(ctx, depth) {
    const fields = ctx.fields('long', 'integer', 'double', 'float');
    if (fields.length === 0) return null;
    return fc
      .record({
        f: one(fields),
        interval: one([1, 2, 2.5, 5, 10]),
        offset: fc.option(one([1, 0.5]), { nil: undefined }),
        minDocCount: fc.option(one([0, 1, 2]), { nil: undefined }),
        subs: ctx.subAggs(depth - 1),
      })
      .map(({ f, interval, offset, minDocCount, subs }) => {
        const body: Json = { field: f.name, interval };
        if (offset !== undefined) body['offset'] = offset;
        if (minDocCount !== undefined) body['min_doc_count'] = minDocCount;
        return subs ? { histogram: body, aggs: subs } : { histogram: body };
      });
  },
  evaluate(_t, body, subs, docs, ctx) {
    const f = fieldOf(ctx.mapping, String(body['field']));
    if (!f) return { buckets: [] };
    const interval = Number(body['interval']);
    const offset = Number(body['offset'] ?? 0);
    const keyFor = (v: number) => Math.floor((v - offset) / interval) * interval + offset;
    return { buckets: fixedBuckets(docs, (d) => numbersOf(d, f).map(keyFor), (k) => k + interval, Number(body['min_doc_count'] ?? 0), (k) => ({ key: k }), subs, ctx) };
  },
};

/**
 * Buckets keyed by `keysOf(doc)` (a doc counts once per bucket), ascending; with min_doc_count 0 the empty
 * buckets between the first and last one are filled (`next` steps from one key to the next).
 */
function fixedBuckets(
  docs: Corpus,
  keysOfDoc: (d: Corpus[number]) => number[],
  next: (k: number) => number,
  minDocCount: number,
  render: (k: number) => Json,
  subs: Record<string, Json> | undefined,
  ctx: AggEvalContext,
): Json[] {
  const groups = new Map<number, Corpus[number][]>();
  for (const d of docs) {
    for (const k of new Set(keysOfDoc(d))) {
      let g = groups.get(k);
      if (!g) groups.set(k, (g = []));
      g.push(d);
    }
  }
  let keys = [...groups.keys()].sort((a, b) => a - b);
  if (minDocCount === 0 && keys.length > 0) {
    const filled: number[] = [];
    for (let k = keys[0]!; k <= keys[keys.length - 1]!; k = next(k)) filled.push(k);
    keys = filled;
  }
  return keys
    .map((k) => ({ k, ds: groups.get(k) ?? [] }))
    .filter(({ ds }) => ds.length >= minDocCount)
    .map(({ k, ds }) => ({ ...render(k), doc_count: ds.length, ...ctx.evaluateSubs(subs, ds) }));
}

// ------------------------------------------------------------------------------------------ date_histogram

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function calendarStart(ms: number, unit: 'day' | 'month' | 'year'): number {
  const d = new Date(ms);
  if (unit === 'day') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  if (unit === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  return Date.UTC(d.getUTCFullYear(), 0, 1);
}

function calendarNext(ms: number, unit: 'day' | 'month' | 'year'): number {
  const d = new Date(ms);
  if (unit === 'day') return ms + DAY;
  if (unit === 'month') return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return Date.UTC(d.getUTCFullYear() + 1, 0, 1);
}

const dateHistogram: AggKind = {
  names: ['date_histogram'],
  weight: 2,
  arbitrary(ctx, depth) {
    const fields = ctx.fields('date');
    if (fields.length === 0) return null;
    return fc
      .record({
        f: one(fields),
        interval: one([{ calendar_interval: 'day' }, { calendar_interval: 'month' }, { calendar_interval: 'year' }, { fixed_interval: '12h' }, { fixed_interval: '30d' }]),
        minDocCount: fc.option(one([0, 1]), { nil: undefined }),
        subs: ctx.subAggs(depth - 1),
      })
      .map(({ f, interval, minDocCount, subs }) => {
        const body: Json = { field: f.name, ...interval };
        if (minDocCount !== undefined) body['min_doc_count'] = minDocCount;
        return subs ? { date_histogram: body, aggs: subs } : { date_histogram: body };
      });
  },
  evaluate(_t, body, subs, docs, ctx) {
    const f = fieldOf(ctx.mapping, String(body['field']));
    if (!f) return { buckets: [] };
    const cal = body['calendar_interval'] as 'day' | 'month' | 'year' | undefined;
    const fixedMs = cal ? 0 : body['fixed_interval'] === '12h' ? 12 * HOUR : 30 * DAY;
    const keyFor = (v: number) => (cal ? calendarStart(v, cal) : Math.floor(v / fixedMs) * fixedMs);
    const next = (k: number) => (cal ? calendarNext(k, cal) : k + fixedMs);
    const render = (k: number) => ({ key_as_string: new Date(k).toISOString(), key: k });
    return { buckets: fixedBuckets(docs, (d) => numbersOf(d, f).map(keyFor), next, Number(body['min_doc_count'] ?? 0), render, subs, ctx) };
  },
};

// ------------------------------------------------------------------------------------------ range

/** Java's Double.toString for the small bounds used here (always a decimal point) */
function javaDouble(n: number): string {
  return Number.isInteger(n) ? n.toFixed(1) : String(n);
}

const range: AggKind = {
  names: ['range'],
  arbitrary(ctx, depth) {
    const fields = ctx.fields('long', 'integer', 'double', 'float');
    if (fields.length === 0) return null;
    const bound = one([-2, 0, 1, 2.5, 4, 7, 10]);
    const r = fc
      .record({ from: fc.option(bound, { nil: undefined }), to: fc.option(bound, { nil: undefined }) }, { requiredKeys: [] })
      .map((x) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined)));
    return fc
      .record({ f: one(fields), ranges: fc.array(r, { minLength: 1, maxLength: 4 }), subs: ctx.subAggs(depth - 1) })
      .map(({ f, ranges, subs }) => (subs ? { range: { field: f.name, ranges }, aggs: subs } : { range: { field: f.name, ranges } }));
  },
  evaluate(_t, body, subs, docs, ctx) {
    const f = fieldOf(ctx.mapping, String(body['field']));
    const ranges = (body['ranges'] as Array<{ from?: number; to?: number }>).map((r) => ({
      from: r.from ?? -Infinity,
      to: r.to ?? Infinity,
      key: `${r.from === undefined ? '*' : javaDouble(r.from)}-${r.to === undefined ? '*' : javaDouble(r.to)}`,
      src: r,
    }));
    // buckets are rendered sorted by (from, to)
    ranges.sort((a, b) => (a.from !== b.from ? a.from - b.from : a.to - b.to));
    return {
      buckets: ranges.map((r) => {
        const ds = f ? docs.filter((d) => numbersOf(d, f).some((v) => v >= r.from && v < r.to)) : [];
        const out: Json = { key: r.key };
        if (r.src.from !== undefined) out['from'] = r.src.from;
        if (r.src.to !== undefined) out['to'] = r.src.to;
        return { ...out, doc_count: ds.length, ...ctx.evaluateSubs(subs, ds) };
      }),
    };
  },
};

// ------------------------------------------------------------------------------------------ filters

const filters: AggKind = {
  names: ['filters'],
  arbitrary(ctx, depth) {
    return fc
      .record({ qs: fc.array(ctx.query(1), { minLength: 1, maxLength: 3 }), subs: ctx.subAggs(depth - 1) })
      .map(({ qs, subs }) => {
        const named = Object.fromEntries(qs.map((q, i) => [`f${i}`, q]));
        return subs ? { filters: { filters: named }, aggs: subs } : { filters: { filters: named } };
      });
  },
  evaluate(_t, body, subs, docs, ctx) {
    const named = body['filters'] as Record<string, Json>;
    // keyed buckets come back in key order
    const names = Object.keys(named).sort();
    const buckets: Json = {};
    for (const n of names) {
      const ds = docs.filter((d) => ctx.matches(named[n]!, d));
      buckets[n] = { doc_count: ds.length, ...ctx.evaluateSubs(subs, ds) };
    }
    return { buckets };
  },
};

// ------------------------------------------------------------------------------------------ metrics

const METRICS = ['min', 'max', 'sum', 'avg', 'value_count', 'stats', 'cardinality'] as const;

const metrics: AggKind = {
  names: METRICS,
  weight: 3,
  arbitrary(ctx) {
    const numeric = ctx.fields('long', 'integer', 'double', 'float');
    const any = ctx.fields('keyword', 'long', 'integer', 'double', 'float', 'ip', 'date', 'boolean');
    const arbs: fc.Arbitrary<Json>[] = [];
    if (numeric.length) arbs.push(fc.record({ t: one(['min', 'max', 'sum', 'avg', 'stats'] as const), f: one(numeric) }).map(({ t, f }) => ({ [t]: { field: f.name } })));
    if (any.length) arbs.push(fc.record({ t: one(['value_count', 'cardinality'] as const), f: one(any) }).map(({ t, f }) => ({ [t]: { field: f.name } })));
    return arbs.length ? fc.oneof(...arbs) : null;
  },
  evaluate(type, body, _subs, docs, ctx) {
    const f = fieldOf(ctx.mapping, String(body['field']));
    // keyword and ip doc values are sorted sets (a value counts once per doc); numbers keep duplicates
    if (type === 'value_count') {
      const per = (d: Corpus[number]) => (f!.type === 'keyword' || f!.type === 'ip' ? keysOf(d, f!).length : valuesOf(d, f!.name).length);
      return { value: f ? docs.reduce((s, d) => s + per(d), 0) : 0 };
    }
    if (type === 'cardinality') {
      const all = new Set<SortKey>();
      if (f) for (const d of docs) for (const k of keysOf(d, f)) all.add(k);
      return { value: all.size };
    }
    const vs = f ? docs.flatMap((d) => numbersOf(d, f)) : [];
    const sum = vs.reduce((s, v) => s + v, 0);
    const min = vs.length ? Math.min(...vs) : null;
    const max = vs.length ? Math.max(...vs) : null;
    const avg = vs.length ? sum / vs.length : null;
    switch (type) {
      case 'min':
        return { value: min };
      case 'max':
        return { value: max };
      case 'sum':
        return { value: sum };
      case 'avg':
        return { value: avg };
      default:
        return { count: vs.length, min, max, avg, sum };
    }
  },
};

// ------------------------------------------------------------------------------------------ missing, global

const missing: AggKind = {
  names: ['missing'],
  arbitrary(ctx, depth) {
    const fields = ctx.mapping.fields.filter((f) => f.type !== 'text');
    if (fields.length === 0) return null;
    return fc
      .record({ f: one(fields), subs: ctx.subAggs(depth - 1) })
      .map(({ f, subs }) => (subs ? { missing: { field: f.name }, aggs: subs } : { missing: { field: f.name } }));
  },
  evaluate(_t, body, subs, docs, ctx) {
    const field = String(body['field']);
    const ds = docs.filter((d) => valuesOf(d, field).length === 0);
    return { doc_count: ds.length, ...ctx.evaluateSubs(subs, ds) };
  },
};

/** `global` ignores the query: its bucket is every live document (only at the top level) */
const global: AggKind = {
  names: ['global'],
  weight: 0.5,
  arbitrary(ctx, depth) {
    if (depth < 2) return null; // top level only
    return ctx.subAggs(depth - 1).map((subs) => (subs ? { global: {}, aggs: subs } : { global: {} }));
  },
  evaluate(_t, _body, subs, _docs, ctx) {
    return { doc_count: ctx.allDocs.length, ...ctx.evaluateSubs(subs, ctx.allDocs) };
  },
};

export const CORE_AGG_KINDS: readonly AggKind[] = [terms, histogram, dateHistogram, range, filters, metrics, missing, global];

/** the keyword pool (for kinds added by features) */
export const AGG_KEYWORDS = KEYWORDS;
export const aggScalar = scalarValue;
export type { AggGenContext };
