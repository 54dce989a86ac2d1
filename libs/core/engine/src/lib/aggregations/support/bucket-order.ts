/**
 * Bucket ordering (ES BucketOrder): `_count`, `_key` (`_term`, `_time` aliases), or a sub-aggregation path,
 * compounded and tie-broken by `_key asc`.
 */
import { Errors, compareUtf8 } from '@strata/core-common';
import type { InternalAggregations } from '../api.js';
import { resolveBucketPath, type AggSpec } from '../framework.js';
import { encodeIp } from '../../mapper/ip.js';

export interface OrderElement {
  readonly kind: 'count' | 'key' | 'path';
  readonly path: string;
  readonly asc: boolean;
}

export type BucketOrder = readonly OrderElement[];

export function parseOrder(type: string, v: unknown, keyAliases: readonly string[] = ['_key', '_term']): BucketOrder {
  const items = Array.isArray(v) ? v : [v];
  const out: OrderElement[] = [];
  for (const it of items) {
    if (it === null || typeof it !== 'object' || Array.isArray(it)) {
      throw Errors.parsing(`Order elements must be of type object in [${type}] found token of type [${typeof it === 'string' ? 'VALUE_STRING' : 'START_ARRAY'}].`);
    }
    for (const [k, d] of Object.entries(it as Record<string, unknown>)) {
      const dir = String(d).toLowerCase();
      if (dir !== 'asc' && dir !== 'desc') throw Errors.parsing(`Unknown order direction [${String(d)}]`);
      const asc = dir === 'asc';
      if (k === '_count') out.push({ kind: 'count', path: k, asc });
      else if (keyAliases.includes(k) || k === '_key') out.push({ kind: 'key', path: '_key', asc });
      else out.push({ kind: 'path', path: k, asc });
    }
  }
  return out;
}

export function isKeyOrder(o: BucketOrder): boolean {
  return o.length > 0 && o[0]!.kind === 'key';
}

export function isCountDesc(o: BucketOrder): boolean {
  return o.length > 0 && o[0]!.kind === 'count' && !o[0]!.asc;
}

export function orderUsesPaths(o: BucketOrder): boolean {
  return o.some((e) => e.kind === 'path');
}

export function renderOrder(o: BucketOrder): Record<string, string> | Record<string, string>[] {
  const m = o.map((e) => ({ [e.path]: e.asc ? 'asc' : 'desc' }));
  return m.length === 1 ? m[0]! : m;
}

export interface OrderableBucket {
  key: Key;
  docCount: number;
  aggs: InternalAggregations;
}

/** NaN sorts last in both directions (ES Comparators.compareDiscardNaN) */
function cmpNum(a: number, b: number, asc: boolean): number {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? 1 : -1;
  if (a === b) return 0;
  return (a < b ? -1 : 1) * (asc ? 1 : -1);
}

export type Key = string | number | bigint | null | readonly (string | number | null)[];

/** keys compare naturally; tuple keys (multi_terms) element by element, nulls first */
export function compareKeys(a: Key, b: Key): number {
  if (a === b) return 0;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareKeys(a[i] as Key, b[i] as Key);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  }
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'string' && typeof b === 'string') return Math.sign(compareUtf8(a, b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `_key` order of ip buckets: by the sortable 16-byte encoding, not by the text. */
export function compareIpKeys(a: Key, b: Key): number {
  if (typeof a !== 'string' || typeof b !== 'string') return compareKeys(a, b);
  let ea: string;
  let eb: string;
  try {
    ea = encodeIp(a);
    eb = encodeIp(b);
  } catch {
    return compareKeys(a, b);
  }
  return ea < eb ? -1 : ea > eb ? 1 : 0;
}

/** `_key` order of tuple keys (multi_terms) whose positions `ip[i]` hold ip addresses, each compared as an address. */
export function tupleKeyComparator(ip: readonly boolean[]): (a: Key, b: Key) => number {
  if (!ip.some(Boolean)) return compareKeys;
  return (a, b) => {
    if (!Array.isArray(a) || !Array.isArray(b)) return compareKeys(a, b);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = ip[i] ? compareIpKeys(a[i] as Key, b[i] as Key) : compareKeys(a[i] as Key, b[i] as Key);
      if (c !== 0) return c;
    }
    return a.length - b.length;
  };
}

/**
 * Comparator over buckets; adds the `_key asc` tie-breaker unless the order already ends in a key order.
 * `keyCompare` replaces the natural key order (ip keys compare as addresses, not as text).
 */
export function bucketComparator<B extends OrderableBucket>(
  order: BucketOrder,
  subs: AggSpec[],
  keyCompare: (a: Key, b: Key) => number = compareKeys,
): (a: B, b: B) => number {
  const full: OrderElement[] = [...order];
  if (!full.some((e) => e.kind === 'key')) full.push({ kind: 'key', path: '_key', asc: true });
  const cache = new Map<B, number[]>();
  const pathValues = (b: B): number[] => {
    let v = cache.get(b);
    if (!v) {
      v = full.map((e) => (e.kind === 'path' ? resolveBucketPath(subs, b.aggs, b.docCount, e.path) : 0));
      cache.set(b, v);
    }
    return v;
  };
  const hasPath = full.some((e) => e.kind === 'path');
  return (a, b) => {
    for (let i = 0; i < full.length; i++) {
      const e = full[i]!;
      let c: number;
      if (e.kind === 'count') c = cmpNum(a.docCount, b.docCount, e.asc);
      else if (e.kind === 'key') c = e.asc ? keyCompare(a.key, b.key) : -keyCompare(a.key, b.key);
      else c = hasPath ? cmpNum(pathValues(a)[i]!, pathValues(b)[i]!, e.asc) : 0;
      if (c !== 0) return c;
    }
    return 0;
  };
}

const SINGLE_BUCKET = new Set(['filter', 'missing', 'global', 'sampler']);

/** Validates order paths at aggregator creation, like ES: existing aggs, single-bucket hops, metric (or single-bucket) end. */
export function validateOrderPaths(order: BucketOrder, subs: AggSpec[], aggName: string): void {
  void aggName;
  for (const e of order) {
    if (e.kind !== 'path') continue;
    const parts = e.path.split('>');
    let level = subs;
    for (let i = 0; i < parts.length; i++) {
      const head = parts[i]!.split(/[.[]/)[0]!;
      const spec = level.find((s) => s.name === head);
      if (!spec || spec.pipeline !== 'none') {
        throw Errors.illegalArgument(
          `Invalid aggregator order path [${e.path}]. The provided aggregation [${head}] either does not exist, or is a pipeline aggregation and cannot be used to sort the buckets.`,
        );
      }
      const last = i === parts.length - 1;
      if (!spec.isMetric && !SINGLE_BUCKET.has(spec.type)) {
        throw Errors.illegalArgument(
          `Invalid aggregation order path [${e.path}]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`,
        );
      }
      if (!last && spec.isMetric) {
        throw Errors.illegalArgument(
          `Invalid aggregation order path [${e.path}]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.`,
        );
      }
      level = spec.subs;
    }
  }
}

/**
 * The best k items by `cmp` (ascending = better first), sorted. O(n log k) with a binary heap whose root is
 * the worst kept item; falls back to a full sort when k is not much smaller than n.
 */
export function topK<T>(items: T[], k: number, cmp: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (items.length <= k * 2) return items.slice().sort(cmp).slice(0, k);
  const heap: T[] = [];
  const worse = (i: number, j: number) => cmp(heap[i]!, heap[j]!) > 0;
  const down = (i: number) => {
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < n && worse(l, w)) w = l;
      if (r < n && worse(r, w)) w = r;
      if (w === i) return;
      const t = heap[i]!;
      heap[i] = heap[w]!;
      heap[w] = t;
      i = w;
    }
  };
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(i, p)) return;
      const t = heap[i]!;
      heap[i] = heap[p]!;
      heap[p] = t;
      i = p;
    }
  };
  for (const it of items) {
    if (heap.length < k) {
      heap.push(it);
      up(heap.length - 1);
    } else if (cmp(it, heap[0]!) < 0) {
      heap[0] = it;
      down(0);
    }
  }
  return heap.sort(cmp);
}
