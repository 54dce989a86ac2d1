// Shared sanity checks for run definitions. Every check throws an Error with a precise reason; the runner
// turns that into a FAILED row. A benchmark of errors is worthless, so checks are strict.

export class CheckError extends Error {}

export function fail(msg) {
  throw new CheckError(msg);
}

export function assert(cond, msg) {
  if (!cond) fail(typeof msg === 'function' ? msg() : msg);
}

/** The response must be HTTP 200 with a JSON object body and no shard failures. */
export function assertSearchOk(res) {
  assert(res.status === 200, () => `HTTP ${res.status}: ${res.text.slice(0, 400)}`);
  const j = res.json;
  assert(j && typeof j === 'object', 'response body is not a JSON object');
  assert(!j.error, () => `error in body: ${JSON.stringify(j.error).slice(0, 400)}`);
  assert(j.timed_out !== true, 'timed_out is true');
  if (j._shards) assert(!j._shards.failed, () => `shard failures: ${JSON.stringify(j._shards).slice(0, 400)}`);
  return j;
}

/**
 * hits.total under the default track_total_hits (10000): exact when expected <= 10000; above that either
 * { relation: 'gte', 10000 <= value <= expected } or an exact { relation: 'eq', value: expected }.
 */
export function assertTotal(j, expected) {
  const t = j?.hits?.total;
  assert(t && typeof t === 'object', () => `hits.total missing or not an object: ${JSON.stringify(t)}`);
  if (t.relation === 'eq') {
    assert(t.value === expected, () => `hits.total.value ${t.value} (eq), expected ${expected}`);
  } else {
    assert(t.relation === 'gte', () => `hits.total.relation ${t.relation}`);
    assert(expected > 10000 && t.value >= 10000 && t.value <= expected,
      () => `hits.total ${t.value} (gte), expected ${expected}`);
  }
}

/** hits.hits must hold exactly `n` hits. */
export function assertHitCount(j, n) {
  const hits = j?.hits?.hits;
  assert(Array.isArray(hits), 'hits.hits missing');
  assert(hits.length === n, () => `hits.hits has ${hits.length} hits, expected ${n}`);
  return hits;
}

/** Reads a dotted path from a _source object (nested objects or dotted keys). */
export function getPath(obj, dotted) {
  if (obj && dotted in obj) return obj[dotted];
  let cur = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[part];
  }
  return cur;
}

/** Buckets of an aggregation, non-empty. */
export function buckets(j, aggName) {
  const b = j?.aggregations?.[aggName]?.buckets;
  assert(Array.isArray(b), () => `aggregations.${aggName}.buckets missing: ${JSON.stringify(j?.aggregations ?? null).slice(0, 300)}`);
  assert(b.length > 0, () => `aggregations.${aggName}.buckets is empty`);
  return b;
}
