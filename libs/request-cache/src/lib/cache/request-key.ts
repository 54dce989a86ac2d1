/**
 * The request part of the cache key: a hash of the whole body exactly as sent (so a different key order
 * yields a different key, as Elasticsearch documents), plus whatever else of the shard request changes the
 * result (URL parameters such as size, q, sort; alias filters; the bucket of rounded `now`).
 */
import { createHash } from 'node:crypto';

/** URL parameters that never change a shard's query result. */
const RESULT_NEUTRAL_PARAMS = new Set([
  'pretty',
  'human',
  'error_trace',
  'filter_path',
  'format',
  'request_cache',
  'typed_keys',
  'rest_total_hits_as_int',
  'preference',
  'ccs_minimize_roundtrips',
  'max_concurrent_shard_requests',
  'pre_filter_shard_size',
  'batched_reduce_size',
  'allow_partial_search_results',
  'expand_wildcards',
  'ignore_unavailable',
  'allow_no_indices',
  'ignore_throttled',
  'source_content_type',
  'source',
]);

export function isResultNeutralParam(name: string): boolean {
  return RESULT_NEUTRAL_PARAMS.has(name);
}

/** Deterministic JSON: object keys sorted (for parts that are not the user's raw body). */
export function stableStringify(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') {
    if (typeof v === 'bigint') return `"${v.toString()}n"`;
    return JSON.stringify(v) ?? 'null';
  }
  if (ArrayBuffer.isView(v)) return stableStringify(Array.from(v as unknown as ArrayLike<number>));
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (v instanceof Map) return stableStringify(Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), x])));
  if (v instanceof Set) return stableStringify([...v]);
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k])}`).join(',')}}`;
}

export interface RequestKeyParts {
  /** the request body exactly as sent ('' when none) */
  readonly rawBody: string;
  /** URL query parameters (result-neutral ones are ignored) */
  readonly params?: Readonly<Record<string, string | undefined>>;
  /** anything else of the shard request that changes the result (alias filter, shard ordinal, ...) */
  readonly extra?: unknown;
}

/** sha256 over the raw body and the canonicalised other parts. */
export function hashRequest(parts: RequestKeyParts): string {
  const h = createHash('sha256');
  h.update('body\u0000');
  h.update(parts.rawBody);
  if (parts.params) {
    const names = Object.keys(parts.params)
      .filter((n) => parts.params![n] !== undefined && !RESULT_NEUTRAL_PARAMS.has(n))
      .sort();
    for (const n of names) {
      h.update('\u0000p\u0000');
      h.update(n);
      h.update('=');
      h.update(parts.params[n] as string);
    }
  }
  if (parts.extra !== undefined) {
    h.update('\u0000x\u0000');
    h.update(stableStringify(parts.extra));
  }
  return h.digest('base64url');
}
