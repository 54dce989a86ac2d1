import { canCache, inspectSource, notCacheableReason, type CacheabilityInput } from './cache-policy.js';
import { hashRequest, stableStringify } from './request-key.js';

const base: CacheabilityInput = {
  indexEnabled: true,
  size: 0,
  scroll: false,
  profile: false,
  nonDeterministic: false,
};

describe('notCacheableReason', () => {
  it('caches size 0 by default', () => {
    expect(notCacheableReason(base)).toBeUndefined();
    expect(canCache({ ...base, searchType: 'query_then_fetch' })).toBe(true);
  });
  it('does not cache size > 0 unless request_cache=true', () => {
    expect(notCacheableReason({ ...base, size: 10 })).toBe('size_not_zero');
    expect(notCacheableReason({ ...base, size: 10, requestCache: true })).toBeUndefined();
  });
  it('request_cache overrides the index setting both ways', () => {
    expect(notCacheableReason({ ...base, indexEnabled: false })).toBe('disabled_by_index_setting');
    expect(notCacheableReason({ ...base, indexEnabled: false, requestCache: true })).toBeUndefined();
    expect(notCacheableReason({ ...base, requestCache: false })).toBe('disabled_by_request');
  });
  it('never caches scroll, dfs, profile or non-deterministic requests', () => {
    expect(notCacheableReason({ ...base, scroll: true, requestCache: true })).toBe('scroll');
    expect(notCacheableReason({ ...base, searchType: 'dfs_query_then_fetch', requestCache: true })).toBe('dfs');
    expect(notCacheableReason({ ...base, profile: true, requestCache: true })).toBe('profile');
    expect(notCacheableReason({ ...base, nonDeterministic: true, requestCache: true })).toBe('non_deterministic');
  });
});

describe('inspectSource', () => {
  const t = Date.UTC(2026, 10, 21, 13, 37, 42, 123);
  const range = (gte: string, extra: Record<string, unknown> = {}) => ({
    size: 0,
    query: { range: { '@timestamp': { gte, ...extra } } },
  });

  it('accepts sources without now', () => {
    expect(inspectSource({ size: 0, aggs: { a: { terms: { field: 'x' } } } }, t)).toEqual({ nonDeterministic: false });
    expect(inspectSource(range('2020-01-01||+1d'), t)).toEqual({ nonDeterministic: false });
    expect(inspectSource(undefined, t)).toEqual({ nonDeterministic: false });
  });
  it('rejects unrounded now', () => {
    expect(inspectSource(range('now'), t).nonDeterministic).toBe(true);
    expect(inspectSource(range('now-1d'), t).nonDeterministic).toBe(true);
    expect(inspectSource({ aggs: { r: { date_range: { field: 'd', ranges: [{ from: 'now-10M' }] } } } }, t).nonDeterministic).toBe(true);
    expect(inspectSource({ query: { query_string: { query: '@timestamp:[now-1d TO *]' } } }, t).nonDeterministic).toBe(true);
  });
  it('keys rounded now by its bucket', () => {
    const day = Date.UTC(2026, 10, 21);
    expect(inspectSource(range('now-1d/d'), t)).toEqual({ nonDeterministic: false, nowBucket: day });
    expect(inspectSource(range('now/M'), t)).toEqual({ nonDeterministic: false, nowBucket: day });
    expect(inspectSource(range('now-1h/h'), t)).toEqual({ nonDeterministic: false, nowBucket: Date.UTC(2026, 10, 21, 13) });
    // the finest rounding wins
    expect(
      inspectSource({ query: { bool: { filter: [{ range: { a: { gte: 'now/d', lt: 'now/m' } } }] } } }, t).nowBucket,
    ).toBe(Date.UTC(2026, 10, 21, 13, 37));
    // with a time zone, day rounding is bucketed by quarter hours
    expect(inspectSource(range('now/d', { time_zone: '+05:30' }), t).nowBucket).toBe(Date.UTC(2026, 10, 21, 13, 30));
    // a rounded and an unrounded now: not cacheable
    expect(inspectSource({ query: { range: { a: { gte: 'now/d', lt: 'now' } } } }, t).nonDeterministic).toBe(true);
  });
  it('rejects non-deterministic scripts, stored scripts and unseeded random_score', () => {
    const script = (source: string) => ({ aggs: { s: { sum: { script: { source } } } } });
    expect(inspectSource(script("doc['a'].value * 2"), t).nonDeterministic).toBe(false);
    expect(inspectSource(script('Math.random()'), t).nonDeterministic).toBe(true);
    expect(inspectSource(script('System.currentTimeMillis() - doc.t.value'), t).nonDeterministic).toBe(true);
    expect(inspectSource({ aggs: { s: { sum: { script: 'new Date().getTime()' } } } }, t).nonDeterministic).toBe(true);
    expect(inspectSource({ aggs: { s: { sum: { script: { id: 'stored' } } } } }, t).nonDeterministic).toBe(true);
    expect(inspectSource({ query: { function_score: { random_score: {} } } }, t).nonDeterministic).toBe(true);
    expect(inspectSource({ query: { function_score: { random_score: { seed: 1, field: '_seq_no' } } } }, t).nonDeterministic).toBe(
      false,
    );
  });
});

describe('hashRequest', () => {
  it('same body, same hash; different key order, different hash', () => {
    const a = '{"size":0,"aggs":{"a":{"terms":{"field":"x"}}}}';
    const b = '{"aggs":{"a":{"terms":{"field":"x"}}},"size":0}';
    expect(hashRequest({ rawBody: a })).toBe(hashRequest({ rawBody: a }));
    expect(hashRequest({ rawBody: a })).not.toBe(hashRequest({ rawBody: b }));
    // whitespace is part of the body as sent
    expect(hashRequest({ rawBody: a })).not.toBe(hashRequest({ rawBody: a.replace(':', ': ') }));
  });
  it('includes result-changing URL params, ignores neutral ones and their order', () => {
    const body = '{"size":0}';
    const h = hashRequest({ rawBody: body, params: { q: 'a:b', size: '0' } });
    expect(hashRequest({ rawBody: body, params: { size: '0', q: 'a:b', pretty: 'true', request_cache: 'true' } })).toBe(h);
    expect(hashRequest({ rawBody: body, params: { q: 'a:c', size: '0' } })).not.toBe(h);
    expect(hashRequest({ rawBody: body })).not.toBe(h);
  });
  it('includes extra parts canonically', () => {
    const x = hashRequest({ rawBody: '', extra: { aliasFilter: { term: { a: 1 } }, shardIndex: 0 } });
    expect(hashRequest({ rawBody: '', extra: { shardIndex: 0, aliasFilter: { term: { a: 1 } } } })).toBe(x);
    expect(hashRequest({ rawBody: '', extra: { shardIndex: 1, aliasFilter: { term: { a: 1 } } } })).not.toBe(x);
    expect(stableStringify({ b: 1, a: [new Uint8Array([1]), undefined] })).toBe('{"a":[[1],null],"b":1}');
  });
});
