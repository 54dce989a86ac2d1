/**
 * Whether a shard-level search may use the request cache, following Elasticsearch's
 * SearchService/IndicesService#canCache, plus the request-key ingredients that depend on the clock.
 */

/** What the policy needs to know about one shard-level search. */
export interface CacheabilityInput {
  /** the `request_cache` query parameter; undefined when absent */
  readonly requestCache?: boolean;
  /** `index.requests.cache.enable` of the index */
  readonly indexEnabled: boolean;
  /** effective size of the search (hits wanted) */
  readonly size: number;
  /** the request opens or continues a scroll */
  readonly scroll: boolean;
  /** profile: true */
  readonly profile: boolean;
  /** search_type (query_then_fetch by default); dfs cannot be cached */
  readonly searchType?: string;
  /** date math used `now` without rounding, or anything else made the parse non-deterministic */
  readonly nonDeterministic: boolean;
}

export type NotCachedReason =
  | 'scroll'
  | 'dfs'
  | 'profile'
  | 'disabled_by_index_setting'
  | 'size_not_zero'
  | 'disabled_by_request'
  | 'non_deterministic';

/**
 * Returns undefined when the request can be cached, else the reason it cannot.
 * The request parameter overrides the index setting both ways (as in ES): `request_cache=true` caches even
 * when the index disables the cache and when size > 0.
 */
export function notCacheableReason(r: CacheabilityInput): NotCachedReason | undefined {
  if (r.scroll) return 'scroll';
  if (r.searchType !== undefined && r.searchType !== 'query_then_fetch') return 'dfs';
  if (r.profile) return 'profile';
  if (r.requestCache === undefined) {
    if (!r.indexEnabled) return 'disabled_by_index_setting';
    if (r.size !== 0) return 'size_not_zero';
  } else if (r.requestCache === false) {
    return 'disabled_by_request';
  }
  if (r.nonDeterministic) return 'non_deterministic';
  return undefined;
}

export function canCache(r: CacheabilityInput): boolean {
  return notCacheableReason(r) === undefined;
}

// ------------------------------------------------------------------ source inspection

/** Result of scanning a search source for clock-dependent or non-deterministic parts. */
export interface SourceDeterminism {
  /** `now` used without rounding, a script with non-deterministic calls, random_score without seed, stored scripts */
  nonDeterministic: boolean;
  /**
   * Rounded `now` date math makes the result depend on the clock only through a bucket (day, hour, ...):
   * the bucket start to add to the key, or undefined when no rounded `now` is used.
   */
  nowBucket?: number;
}

const DATE_MATH_NOW = /^now((?:[+-]\d+[yMwdhHms])|(?:\/[yMwdhHms]))*$/;
const ROUNDING = /\/([yMwdhHms])/g;

/**
 * Calls Painless marks non-deterministic (Elasticsearch refuses to cache scripts using them).
 * Matched on the script source; conservative: a false positive only costs a cache miss.
 */
const NON_DETERMINISTIC_SCRIPT =
  /\b(?:Math\s*\.\s*random|Random|randomUUID|UUID|currentTimeMillis|nanoTime|now)\b|new\s+Date\s*\(/;

const BUCKET_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  H: 3_600_000,
  // day and coarser roundings change only at day boundaries (weeks, months and years start on days)
  d: 86_400_000,
  w: 86_400_000,
  M: 86_400_000,
  y: 86_400_000,
};
/** every time zone boundary in use falls on a quarter hour */
const TZ_SAFE_BUCKET_MS = 15 * 60_000;

/**
 * Walks a parsed search source and reports whether it can be cached deterministically.
 * `nowMillis` is the clock used to compute the bucket of rounded `now` expressions.
 */
export function inspectSource(source: unknown, nowMillis: number): SourceDeterminism {
  const st = { nonDeterministic: false, minBucket: Infinity, timeZone: false };
  walk(source, undefined, st);
  if (st.nonDeterministic) return { nonDeterministic: true };
  if (st.minBucket === Infinity) return { nonDeterministic: false };
  let bucket = st.minBucket;
  if (st.timeZone && bucket > TZ_SAFE_BUCKET_MS) bucket = TZ_SAFE_BUCKET_MS;
  return { nonDeterministic: false, nowBucket: Math.floor(nowMillis / bucket) * bucket };
}

interface WalkState {
  nonDeterministic: boolean;
  minBucket: number;
  timeZone: boolean;
}

function walk(node: unknown, parentKey: string | undefined, st: WalkState): void {
  if (st.nonDeterministic) return;
  if (typeof node === 'string') {
    checkString(node, parentKey, st);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const v of node) walk(v, parentKey, st);
    return;
  }
  const obj = node as Record<string, unknown>;
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'time_zone' || k === 'timezone') st.timeZone = true;
    if (k === 'script') checkScript(v, st);
    if (k === 'random_score') {
      const rs = v as Record<string, unknown> | null;
      if (!rs || typeof rs !== 'object' || rs['seed'] === undefined) {
        st.nonDeterministic = true;
        return;
      }
    }
    walk(v, k, st);
    if (st.nonDeterministic) return;
  }
}

/** `now` inside a query_string / simple_query_string expression, e.g. `@timestamp:[now-1d TO now]` */
const NOW_IN_QUERY_STRING = /(?:^|[\s:[{(>=<])now(?:[+\-/][0-9]*[yMwdhHms]?)*(?=$|[\s\]})])/;

function checkString(s: string, parentKey: string | undefined, st: WalkState): void {
  if (parentKey === 'query' && NOW_IN_QUERY_STRING.test(s)) {
    st.nonDeterministic = true;
    return;
  }
  const t = s.trim();
  if (!t.startsWith('now')) return;
  const anchor = t.split('||')[0];
  if (!DATE_MATH_NOW.test(anchor)) return;
  const roundings = [...anchor.matchAll(ROUNDING)];
  if (roundings.length === 0) {
    st.nonDeterministic = true;
    return;
  }
  // only the last rounding matters for the resolution of the result
  const last = roundings[roundings.length - 1][1];
  // an offset after the last rounding keeps the bucket width of the rounding
  st.minBucket = Math.min(st.minBucket, BUCKET_MS[last]);
}

function checkScript(script: unknown, st: WalkState): void {
  if (script === undefined || script === null) return;
  if (typeof script === 'string') {
    if (NON_DETERMINISTIC_SCRIPT.test(script)) st.nonDeterministic = true;
    return;
  }
  if (typeof script !== 'object') return;
  const s = script as Record<string, unknown>;
  if (typeof s['source'] === 'string') {
    if (NON_DETERMINISTIC_SCRIPT.test(s['source'])) st.nonDeterministic = true;
  } else if (s['id'] !== undefined) {
    // a stored script: its source is unknown here, so do not cache
    st.nonDeterministic = true;
  }
}
