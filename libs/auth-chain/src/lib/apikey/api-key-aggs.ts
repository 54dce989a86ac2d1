/**
 * Aggregations of `GET|POST /_security/_query/api_key`: the subset Elasticsearch allows there (terms, range,
 * date_range, missing, cardinality, value_count, composite with terms sources, filter, filters, global), over
 * the same key fields the query accepts, computed on the keys the query matched. Anything else is refused
 * with Elasticsearch's messages ("Unsupported API Keys agg [name] of type [type]", pipeline aggregations,
 * scripts, composite value sources other than terms).
 */
import { DateFormatter, Errors, parseDateMath } from '@strata/core-common';
import type { ApiKeyRecord } from '../store/security-store.js';
import { aggFieldValues, compileQuery, fieldOf, fieldKind, indexFieldName } from './api-key-query.js';

type Key = string | number | boolean;
type Output = Record<string, unknown>;

const PIPELINE_TYPES = new Set([
  'avg_bucket', 'bucket_script', 'bucket_selector', 'bucket_sort', 'cumulative_cardinality', 'cumulative_sum', 'derivative',
  'extended_stats_bucket', 'inference', 'max_bucket', 'min_bucket', 'moving_fn', 'moving_percentiles', 'normalize',
  'percentiles_bucket', 'serial_diff', 'stats_bucket', 'sum_bucket',
]);
const SUPPORTED = new Set(['terms', 'range', 'date_range', 'missing', 'cardinality', 'value_count', 'composite', 'filter', 'filters', 'global']);

interface Ctx {
  now: number;
  typedKeys: boolean;
  /** every key the caller may see (global) */
  visible: ApiKeyRecord[];
}

interface Agg {
  name: string;
  type: string;
  meta?: unknown;
  subs: Agg[];
  /** the agg's own output for `keys` (sub-aggregations are added by the caller per bucket) */
  run(keys: ApiKeyRecord[], ctx: Ctx): Output;
  /** the name in the response with typed_keys (`sterms#name`) */
  typedName(): string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function unsupported(name: string, type: string): Error {
  return Errors.illegalArgument(`Unsupported API Keys agg [${name}] of type [${type}]`);
}

/** parses and checks an `aggs` object (ES's ApiKeyAggregationsBuilder rules) */
export function parseApiKeyAggs(json: unknown, now: number): Agg[] {
  if (!isObject(json)) throw Errors.parsing('Aggregation definition must be an object');
  return Object.entries(json).map(([name, def]) => parseOne(name, def, now));
}

function parseOne(name: string, def: unknown, now: number): Agg {
  if (!isObject(def)) throw Errors.parsing(`Expected [START_OBJECT] under [${name}], but got a [VALUE_STRING] in [${name}]`);
  let type: string | undefined;
  let body: unknown;
  let subs: Agg[] = [];
  let meta: unknown;
  for (const [k, v] of Object.entries(def)) {
    if (k === 'aggs' || k === 'aggregations') subs = parseApiKeyAggs(v, now);
    else if (k === 'meta') meta = v;
    else if (type !== undefined) throw Errors.parsing(`Found two aggregation type definitions in [${name}]: [${type}] and [${k}]`);
    else {
      type = k;
      body = v;
    }
  }
  if (type === undefined) throw Errors.parsing(`Missing definition for aggregation [${name}]`);
  if (PIPELINE_TYPES.has(type)) throw Errors.illegalArgument(`Unsupported pipeline aggregation of type [${type}]`);
  if (!SUPPORTED.has(type)) throw unsupported(name, type);
  const b = isObject(body) ? body : {};
  if ((type === 'global' || type === 'filter' || type === 'filters') === false && b['script'] !== undefined) {
    throw Errors.illegalArgument(`Unsupported script value source for [${name}] agg`);
  }
  const agg = build(name, type, b, now, subs);
  if (meta !== undefined) agg.meta = meta;
  return agg;
}

function requiredField(b: Record<string, unknown>): string {
  if (b['field'] === undefined) throw Errors.illegalArgument('Required one of fields [field, script], but none were specified. ');
  return fieldOf(String(b['field']));
}

/** the bucket key of a value as ES renders a terms key (dates and booleans are longs with key_as_string) */
function termsKey(v: Key): { key: Key; keyAsString?: string } {
  if (typeof v === 'boolean') return { key: v ? 1 : 0, keyAsString: String(v) };
  if (typeof v === 'number') return { key: v, keyAsString: String(v) };
  return { key: v };
}

function compareKeys(a: Key, b: Key): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function distinctValues(k: ApiKeyRecord, field: string): Key[] {
  return [...new Set(aggFieldValues(k, field))];
}

function build(name: string, type: string, b: Record<string, unknown>, now: number, subs: Agg[]): Agg {
  const base = { name, type, subs, typedName: () => `${type}#${name}` };
  switch (type) {
    case 'terms':
      return { ...base, ...termsAgg(name, b) };
    case 'missing': {
      const field = requiredField(b);
      return { ...base, run: (keys) => ({ doc_count: keys.filter((k) => aggFieldValues(k, field).length === 0).length }) };
    }
    case 'value_count': {
      const field = requiredField(b);
      return { ...base, run: (keys) => ({ value: keys.reduce((n, k) => n + aggFieldValues(k, field).length, 0) }) };
    }
    case 'cardinality': {
      const field = requiredField(b);
      return { ...base, run: (keys) => ({ value: new Set(keys.flatMap((k) => aggFieldValues(k, field).map(String))).size }) };
    }
    case 'range':
    case 'date_range':
      return { ...base, ...rangeAgg(name, type, b, now) };
    case 'composite':
      return { ...base, ...compositeAgg(name, b) };
    case 'filter': {
      const match = compileQuery(b, now);
      return { ...base, run: (keys) => ({ doc_count: keys.filter(match).length, $keys: keys.filter(match) }) };
    }
    case 'filters':
      return { ...base, ...filtersAgg(b, now) };
    default: // global
      return { ...base, run: (_keys, ctx) => ({ doc_count: ctx.visible.length, $keys: ctx.visible }) };
  }
}

/** runs `aggs` over `keys`; `$keys` in an output marks the keys its sub-aggregations run on */
export function runApiKeyAggs(aggs: Agg[], keys: ApiKeyRecord[], ctx: Ctx): Output {
  const out: Output = {};
  for (const a of aggs) out[ctx.typedKeys ? a.typedName() : a.name] = render(a, keys, ctx);
  return out;
}

function render(a: Agg, keys: ApiKeyRecord[], ctx: Ctx): Output {
  // an output (the agg's own, or one bucket) whose `$keys` are the keys its sub-aggregations run on
  const withSubs = (o: Output): Output => {
    const { $keys, ...rest } = o as Output & { $keys?: ApiKeyRecord[] };
    const out: Output = {};
    for (const [k, v] of Object.entries(rest)) {
      if (k === 'buckets' && Array.isArray(v)) out[k] = v.map((bk: Output) => withSubs(bk));
      else if (k === 'buckets' && isObject(v)) out[k] = Object.fromEntries(Object.entries(v).map(([bk, bv]) => [bk, withSubs(bv as Output)]));
      else out[k] = v;
    }
    return $keys ? { ...out, ...runApiKeyAggs(a.subs, $keys, ctx) } : out;
  };
  const out = withSubs(a.run(keys, ctx));
  return a.meta !== undefined ? { meta: a.meta, ...out } : out;
}

function termsAgg(name: string, b: Record<string, unknown>): Pick<Agg, 'run' | 'typedName'> {
  const field = requiredField(b);
  const size = b['size'] === undefined ? 10 : Number(b['size']);
  if (!Number.isInteger(size) || size < 1) throw Errors.illegalArgument(`[size] must be greater than 0. Found [${b['size']}] in [${name}]`);
  const minDocCount = b['min_doc_count'] === undefined ? 1 : Number(b['min_doc_count']);
  const missing = b['missing'] as Key | undefined;
  const orders: Array<{ by: '_count' | '_key'; desc: boolean }> = [];
  for (const o of b['order'] === undefined ? [] : Array.isArray(b['order']) ? b['order'] : [b['order']]) {
    if (!isObject(o)) throw Errors.parsing(`Unknown terms order definition in [${name}]`);
    for (const [by, dir] of Object.entries(o)) {
      const key = by === '_term' ? '_key' : by;
      if (key !== '_count' && key !== '_key') throw Errors.illegalArgument(`Invalid aggregator order path [${by}]. Unknown aggregation [${by}]`);
      if (dir !== 'asc' && dir !== 'desc') throw Errors.parsing(`Unknown order direction [${String(dir)}]`);
      orders.push({ by: key, desc: dir === 'desc' });
    }
  }
  if (orders.length === 0) orders.push({ by: '_count', desc: true });
  if (!orders.some((o) => o.by === '_key')) orders.push({ by: '_key', desc: false });
  const kind = fieldKind(field);
  return {
    typedName: () => `${kind === 'date' || kind === 'boolean' ? 'lterms' : 'sterms'}#${name}`,
    run: (keys, ctx) => {
      const buckets = new Map<string, { v: Key; keys: ApiKeyRecord[] }>();
      const slot = (v: Key) => {
        const id = `${typeof v}:${String(v)}`;
        let s = buckets.get(id);
        if (!s) buckets.set(id, (s = { v, keys: [] }));
        return s;
      };
      for (const k of keys) {
        const vals = distinctValues(k, field);
        if (vals.length === 0 && missing !== undefined) slot(missing).keys.push(k);
        for (const v of vals) slot(v).keys.push(k);
      }
      if (minDocCount === 0) for (const k of ctx.visible) for (const v of distinctValues(k, field)) slot(v);
      const list = [...buckets.values()].filter((s) => s.keys.length >= minDocCount);
      list.sort((x, y) => {
        for (const o of orders) {
          const c = o.by === '_count' ? x.keys.length - y.keys.length : compareKeys(termsKey(x.v).key, termsKey(y.v).key);
          if (c !== 0) return o.desc ? -c : c;
        }
        return 0;
      });
      const shown = list.slice(0, size);
      const other = list.slice(size).reduce((n, s) => n + s.keys.length, 0);
      return {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: other,
        buckets: shown.map((s) => {
          const { key, keyAsString } = termsKey(s.v);
          return { key, ...(keyAsString !== undefined ? { key_as_string: keyAsString } : {}), doc_count: s.keys.length, $keys: s.keys };
        }),
      };
    },
  };
}

function rangeAgg(name: string, type: string, b: Record<string, unknown>, now: number): Pick<Agg, 'run'> {
  const field = requiredField(b);
  const kind = fieldKind(field);
  if (kind !== 'date') {
    throw Errors.illegalArgument(`Field [${indexFieldName(field)}] of type [${kind}] is not supported for aggregation [${type}]`);
  }
  const fmt = type === 'date_range' && b['format'] !== undefined ? DateFormatter.of(String(b['format'])) : null;
  const asString = (v: number): string => (fmt ? fmt.format(v) : String(v));
  const bound = (v: unknown, which: string): number | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number') return v;
    if (type === 'date_range') return parseDateMath(String(v), { now, format: fmt ?? 'epoch_millis' });
    const n = Number(v);
    if (Number.isNaN(n)) throw Errors.parsing(`[${which}] in [${name}] is not a number: [${String(v)}]`);
    return n;
  };
  const rawRanges = b['ranges'];
  if (!Array.isArray(rawRanges) || rawRanges.length === 0) throw Errors.illegalArgument(`No [ranges] specified for the [${name}] aggregation`);
  const ranges = rawRanges.map((r) => {
    if (!isObject(r)) throw Errors.parsing(`[ranges] in [${name}] must hold objects`);
    const from = bound(r['from'], 'from');
    const to = bound(r['to'], 'to');
    const key = r['key'] !== undefined ? String(r['key']) : `${from === undefined ? '*' : asString(from)}-${to === undefined ? '*' : asString(to)}`;
    return { from, to, key };
  });
  ranges.sort((x, y) => (x.from ?? -Infinity) - (y.from ?? -Infinity) || (x.to ?? Infinity) - (y.to ?? Infinity));
  const keyed = b['keyed'] === true;
  return {
    run: (keys) => {
      const buckets = ranges.map((r) => {
        const inside = keys.filter((k) =>
          aggFieldValues(k, field).some((v) => typeof v === 'number' && (r.from === undefined || v >= r.from) && (r.to === undefined || v < r.to)),
        );
        const o: Output = keyed ? {} : { key: r.key };
        if (r.from !== undefined) Object.assign(o, { from: r.from, from_as_string: asString(r.from) });
        if (r.to !== undefined) Object.assign(o, { to: r.to, to_as_string: asString(r.to) });
        return [r.key, { ...o, doc_count: inside.length, $keys: inside }] as const;
      });
      return { buckets: keyed ? Object.fromEntries(buckets) : buckets.map(([, o]) => o) };
    },
  };
}

function compositeAgg(name: string, b: Record<string, unknown>): Pick<Agg, 'run'> {
  const sources = b['sources'];
  if (!Array.isArray(sources) || sources.length === 0) throw Errors.illegalArgument(`Composite [sources] cannot be null or empty`);
  const specs = sources.map((s) => {
    if (!isObject(s) || Object.keys(s).length !== 1) throw Errors.parsing(`[composite] sources of [${name}] must be single-key objects`);
    const [srcName, def] = Object.entries(s)[0]!;
    if (!isObject(def) || Object.keys(def).length !== 1) throw Errors.parsing(`[composite] source [${srcName}] of [${name}] is malformed`);
    const [srcType, body] = Object.entries(def)[0]!;
    const sb = isObject(body) ? body : {};
    if (sb['script'] !== undefined) throw Errors.illegalArgument(`Unsupported script value source for [${srcName}] of composite agg [${name}]`);
    if (srcType !== 'terms') {
      throw Errors.illegalArgument(`Unsupported value source type for [${srcName}] of composite agg [${name}].Only [terms] value sources are allowed.`);
    }
    return { name: srcName, field: requiredField(sb), desc: sb['order'] === 'desc', missingBucket: sb['missing_bucket'] === true };
  });
  const size = b['size'] === undefined ? 10 : Number(b['size']);
  const after = isObject(b['after']) ? (b['after'] as Record<string, Key | null>) : undefined;
  const cmp = (x: Array<Key | null>, y: Array<Key | null>): number => {
    for (let i = 0; i < specs.length; i++) {
      const a = x[i] ?? null;
      const c = y[i] ?? null;
      const r = a === c ? 0 : a === null ? -1 : c === null ? 1 : compareKeys(a, c);
      if (r !== 0) return specs[i]!.desc ? -r : r;
    }
    return 0;
  };
  return {
    run: (keys) => {
      const groups = new Map<string, { key: Array<Key | null>; keys: ApiKeyRecord[] }>();
      for (const k of keys) {
        let combos: Array<Array<Key | null>> = [[]];
        for (const s of specs) {
          const vals: Array<Key | null> = distinctValues(k, s.field);
          if (vals.length === 0) {
            if (!s.missingBucket) {
              combos = [];
              break;
            }
            vals.push(null);
          }
          combos = combos.flatMap((c) => vals.map((v) => [...c, v]));
        }
        for (const c of combos) {
          const id = JSON.stringify(c);
          let g = groups.get(id);
          if (!g) groups.set(id, (g = { key: c, keys: [] }));
          g.keys.push(k);
        }
      }
      let list = [...groups.values()].sort((x, y) => cmp(x.key, y.key));
      if (after) {
        const a = specs.map((s) => after[s.name] ?? null);
        list = list.filter((g) => cmp(g.key, a) > 0);
      }
      list = list.slice(0, size);
      const keyObj = (key: Array<Key | null>) => Object.fromEntries(specs.map((s, i) => [s.name, key[i] ?? null]));
      const buckets = list.map((g) => ({ key: keyObj(g.key), doc_count: g.keys.length, $keys: g.keys }));
      return list.length > 0 ? { after_key: keyObj(list[list.length - 1]!.key), buckets } : { buckets };
    },
  };
}

function filtersAgg(b: Record<string, unknown>, now: number): Pick<Agg, 'run'> {
  const f = b['filters'];
  const otherBucket = b['other_bucket'] === true || b['other_bucket_key'] !== undefined;
  const otherKey = b['other_bucket_key'] !== undefined ? String(b['other_bucket_key']) : '_other_';
  if (Array.isArray(f)) {
    const preds = f.map((q) => compileQuery(q, now));
    return {
      run: (keys) => {
        const buckets: Output[] = preds.map((p) => {
          const inside = keys.filter(p);
          return { doc_count: inside.length, $keys: inside };
        });
        if (otherBucket) {
          const rest = keys.filter((k) => !preds.some((p) => p(k)));
          buckets.push({ doc_count: rest.length, $keys: rest });
        }
        return { buckets };
      },
    };
  }
  if (!isObject(f)) throw Errors.illegalArgument('[filters] cannot be empty.');
  const named = Object.entries(f)
    .map(([k, q]) => [k, compileQuery(q, now)] as const)
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return {
    run: (keys) => {
      const buckets: Record<string, Output> = {};
      for (const [k, p] of named) {
        const inside = keys.filter(p);
        buckets[k] = { doc_count: inside.length, $keys: inside };
      }
      if (otherBucket) {
        const rest = keys.filter((k) => !named.some(([, p]) => p(k)));
        buckets[otherKey] = { doc_count: rest.length, $keys: rest };
      }
      return { buckets };
    },
  };
}
