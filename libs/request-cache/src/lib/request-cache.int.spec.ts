/**
 * Black-box HTTP tests of the request cache through the real node (createTestHost + this feature).
 */
import { Client } from '@elastic/elasticsearch';
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { requestCacheFeature } from './request-cache.module.js';

const AGG_BODY = '{"size":0,"aggs":{"by_status":{"terms":{"field":"status"}}}}';
const AGG_BODY_REORDERED = '{"aggs":{"by_status":{"terms":{"field":"status"}}},"size":0}';

async function createLogsOn(host: TestHost, name: string, settings: Record<string, unknown> = {}): Promise<void> {
  const r = await host.request('PUT', `/${name}`, {
    settings: { number_of_shards: 1, number_of_replicas: 0, ...settings },
    mappings: { properties: { status: { type: 'keyword' }, bytes: { type: 'long' }, '@timestamp': { type: 'date' } } },
  });
  expect(r.status).toBe(200);
  const lines: object[] = [];
  const statuses = ['200', '200', '200', '404', '500'];
  statuses.forEach((status, i) => {
    lines.push({ index: { _index: name, _id: String(i + 1) } });
    lines.push({ status, bytes: 100 * (i + 1), '@timestamp': `2026-01-0${i + 1}T00:00:00Z` });
  });
  const b = await host.request('POST', '/_bulk?refresh=true', lines);
  expect(b.status).toBe(200);
  expect(b.body.errors).toBe(false);
}

async function cacheStatsOn(host: TestHost, index: string): Promise<Record<string, number>> {
  const r = await host.request('GET', `/${index}/_stats/request_cache`);
  expect(r.status).toBe(200);
  return r.body.indices[index].total.request_cache;
}

async function searchOn(host: TestHost, index: string, body: string, params = ''): Promise<any> {
  const r = await host.request('POST', `/${index}/_search${params}`, body);
  expect(r.status).toBe(200);
  return r.body;
}

describe('request cache over HTTP', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ features: [requestCacheFeature] });
  });
  afterAll(async () => {
    await host?.close();
  });

  const createLogs = (name: string, settings: Record<string, unknown> = {}) => createLogsOn(host, name, settings);
  const cacheStats = (index: string) => cacheStatsOn(host, index);
  const search = (index: string, body: string, params = '') => searchOn(host, index, body, params);

  const buckets = (res: any) => res.aggregations.by_status.buckets.map((b: any) => [b.key, b.doc_count]);

  it('registers index.requests.cache.enable (creation and dynamic update)', async () => {
    const c = await host.request('PUT', '/settings_test', { settings: { 'index.requests.cache.enable': false } });
    expect(c.status).toBe(200);
    const g = await host.request('GET', '/settings_test/_settings');
    expect(g.body.settings_test.settings.index.requests.cache.enable).toBe('false');
    const u = await host.request('PUT', '/settings_test/_settings', { index: { requests: { cache: { enable: true } } } });
    expect(u.status).toBe(200);
    const g2 = await host.request('GET', '/settings_test/_settings?flat_settings=true');
    expect(g2.body.settings_test.settings['index.requests.cache.enable']).toBe('true');
    const bad = await host.request('PUT', '/settings_test/_settings', { 'index.requests.cache.enable': 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('illegal_argument_exception');
    await host.request('DELETE', '/settings_test');
  });

  it('stats endpoints start at zero in Elasticsearch shapes', async () => {
    await host.request('PUT', '/empty', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
    const r = await host.request('GET', '/empty/_stats/request_cache');
    expect(r.status).toBe(200);
    expect(r.body.indices.empty.primaries).toEqual({
      request_cache: { memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 },
    });
    expect(r.body.indices.empty.total).toEqual(r.body.indices.empty.primaries);
    const h = await host.request('GET', '/empty/_stats/request_cache?human=true');
    expect(h.body.indices.empty.total.request_cache).toEqual({
      memory_size: '0b',
      memory_size_in_bytes: 0,
      evictions: 0,
      hit_count: 0,
      miss_count: 0,
    });
    const all = await host.request('GET', '/_stats/request_cache');
    expect(all.status).toBe(200);
    expect(Object.keys(all.body._all.primaries)).toEqual(['request_cache']);
    const n = await host.request('GET', '/_nodes/stats/indices/request_cache?human');
    expect(n.status).toBe(200);
    const nodes = Object.values(n.body.nodes) as any[];
    expect(nodes).toHaveLength(1);
    expect(Object.keys(nodes[0].indices)).toEqual(['request_cache']);
    expect(Object.keys(nodes[0].indices.request_cache)).toEqual([
      'memory_size',
      'memory_size_in_bytes',
      'evictions',
      'hit_count',
      'miss_count',
    ]);
    await host.request('DELETE', '/empty');
  });

  it('POST /{index}/_cache/clear answers with shard counts; missing index is 404', async () => {
    await host.request('PUT', '/clear_me', { settings: { number_of_shards: 2, number_of_replicas: 1 } });
    const r = await host.request('POST', '/clear_me/_cache/clear?request=true');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
    const m = await host.request('POST', '/nope/_cache/clear');
    expect(m.status).toBe(404);
    expect(m.body.error.type).toBe('index_not_found_exception');
    await host.request('DELETE', '/clear_me');
  });

  describe('with searches', () => {
    beforeAll(async () => {
      await createLogs('logs');
    });

    it('caches a size-0 aggregation: second call is a hit with the same result', async () => {
      const first = await search('logs', AGG_BODY);
      const second = await search('logs', AGG_BODY);
      expect(buckets(second)).toEqual(buckets(first));
      expect(buckets(first)).toEqual([
        ['200', 3],
        ['404', 1],
        ['500', 1],
      ]);
      expect(second.hits.total).toEqual(first.hits.total);
      const s = await cacheStats('logs');
      expect(s.hit_count).toBe(1);
      expect(s.miss_count).toBe(1);
      expect(s.memory_size_in_bytes).toBeGreaterThan(0);
    });

    it('a different key order is a different entry', async () => {
      const before = await cacheStats('logs');
      await search('logs', AGG_BODY_REORDERED);
      const after = await cacheStats('logs');
      expect(after.miss_count).toBe(before.miss_count + 1);
      expect(after.hit_count).toBe(before.hit_count);
    });

    it('a refresh after indexing invalidates: miss, and the new document counts', async () => {
      await search('logs', AGG_BODY);
      const before = await cacheStats('logs');
      const put = await host.request('PUT', '/logs/_doc/6?refresh=true', { status: '404', bytes: 1 });
      expect(put.status).toBe(201);
      // entries of the old reader generation were dropped eagerly by the refresh
      expect((await cacheStats('logs')).memory_size_in_bytes).toBe(0);
      const res = await search('logs', AGG_BODY);
      expect(buckets(res)).toEqual([
        ['200', 3],
        ['404', 2],
        ['500', 1],
      ]);
      const after = await cacheStats('logs');
      expect(after.miss_count).toBe(before.miss_count + 1);
      expect(after.hit_count).toBe(before.hit_count);
    });

    it('request_cache=false bypasses the cache without counting', async () => {
      await search('logs', AGG_BODY);
      const before = await cacheStats('logs');
      await search('logs', AGG_BODY, '?request_cache=false');
      await search('logs', AGG_BODY, '?request_cache=false');
      expect(await cacheStats('logs')).toEqual(before);
    });

    it('size > 0 is not cached unless request_cache=true', async () => {
      const body = '{"size":2,"query":{"term":{"status":"200"}},"sort":[{"bytes":"asc"}]}';
      const before = await cacheStats('logs');
      await search('logs', body);
      await search('logs', body);
      expect(await cacheStats('logs')).toEqual(before);
      const a = await search('logs', body, '?request_cache=true');
      const b = await search('logs', body, '?request_cache=true');
      expect(b.hits.hits.map((h: any) => h._id)).toEqual(a.hits.hits.map((h: any) => h._id));
      expect(b.hits.hits.map((h: any) => h._id)).toEqual(['1', '2']);
      const after = await cacheStats('logs');
      expect(after.miss_count).toBe(before.miss_count + 1);
      expect(after.hit_count).toBe(before.hit_count + 1);
    });

    it('POST /logs/_cache/clear?request=true empties the cache', async () => {
      await search('logs', AGG_BODY);
      expect((await cacheStats('logs')).memory_size_in_bytes).toBeGreaterThan(0);
      const r = await host.request('POST', '/logs/_cache/clear?request=true');
      expect(r.body).toEqual({ _shards: { total: 1, successful: 1, failed: 0 } });
      const s = await cacheStats('logs');
      expect(s.memory_size_in_bytes).toBe(0);
      await search('logs', AGG_BODY);
      expect((await cacheStats('logs')).miss_count).toBe(s.miss_count + 1);
    });

    it('index.requests.cache.enable=false (dynamic) disables; request_cache=true overrides', async () => {
      const u = await host.request('PUT', '/logs/_settings', { index: { requests: { cache: { enable: false } } } });
      expect(u.status).toBe(200);
      const before = await cacheStats('logs');
      await search('logs', AGG_BODY);
      await search('logs', AGG_BODY);
      expect(await cacheStats('logs')).toEqual(before);
      await search('logs', AGG_BODY, '?request_cache=true');
      const after = await cacheStats('logs');
      expect(after.hit_count + after.miss_count).toBe(before.hit_count + before.miss_count + 1);
      await host.request('PUT', '/logs/_settings', { 'index.requests.cache.enable': null });
    });

    it('unrounded now is not cached; a mapping update invalidates', async () => {
      const nowBody = '{"size":0,"query":{"range":{"@timestamp":{"gte":"now-100y"}}}}';
      const before = await cacheStats('logs');
      await search('logs', nowBody);
      await search('logs', nowBody);
      expect(await cacheStats('logs')).toEqual(before);

      await search('logs', AGG_BODY);
      const m = await host.request('PUT', '/logs/_mapping', { properties: { extra: { type: 'keyword' } } });
      expect(m.status).toBe(200);
      const mid = await cacheStats('logs');
      await search('logs', AGG_BODY);
      expect((await cacheStats('logs')).miss_count).toBe(mid.miss_count + 1);
    });

    it('rounded now is cached; profile and dfs are not', async () => {
      const rounded = '{"size":0,"query":{"range":{"@timestamp":{"gte":"now-100y/d"}}}}';
      const before = await cacheStats('logs');
      const a = await search('logs', rounded);
      const b = await search('logs', rounded);
      expect(b.hits.total).toEqual(a.hits.total);
      expect(await cacheStats('logs')).toMatchObject({ hit_count: before.hit_count + 1, miss_count: before.miss_count + 1 });
      const mid = await cacheStats('logs');
      const profiled = '{"size":0,"profile":true,"aggs":{"by_status":{"terms":{"field":"status"}}}}';
      await search('logs', profiled);
      await search('logs', profiled);
      await search('logs', AGG_BODY, '?search_type=dfs_query_then_fetch');
      await search('logs', AGG_BODY, '?search_type=dfs_query_then_fetch');
      expect(await cacheStats('logs')).toEqual(mid);
    });

    it('a closed index cannot be cleared (index_closed_exception)', async () => {
      await host.request('PUT', '/closed_one', { settings: { number_of_shards: 1, number_of_replicas: 0 } });
      await host.request('POST', '/closed_one/_close');
      const r = await host.request('POST', '/closed_one/_cache/clear');
      expect(r.status).toBe(400);
      expect(r.body.error.type).toBe('index_closed_exception');
      await host.request('DELETE', '/closed_one');
    });

    it('counts per shard on a multi-shard index; deleting the index drops its stats', async () => {
      await createLogs('multi', { number_of_shards: 3 });
      const a = await search('multi', AGG_BODY);
      const b = await search('multi', AGG_BODY);
      expect(buckets(b)).toEqual(buckets(a));
      expect(buckets(a)).toEqual([
        ['200', 3],
        ['404', 1],
        ['500', 1],
      ]);
      const s = await cacheStats('multi');
      expect(s.miss_count).toBe(3);
      expect(s.hit_count).toBe(3);
      await host.request('DELETE', '/multi');
      const n = await host.request('GET', '/_stats/request_cache');
      expect(n.body.indices.multi).toBeUndefined();
    });

    it('cached responses equal uncached ones for every aggregation family', async () => {
      const bodies: Record<string, unknown> = {
        terms_sub: { terms: { field: 'status' }, aggs: { b: { avg: { field: 'bytes' } } } },
        date_histogram: { date_histogram: { field: '@timestamp', calendar_interval: 'day' } },
        histogram: { histogram: { field: 'bytes', interval: 200 } },
        stats: { stats: { field: 'bytes' } },
        extended_stats: { extended_stats: { field: 'bytes' } },
        cardinality: { cardinality: { field: 'status' } },
        percentiles: { percentiles: { field: 'bytes', percents: [50, 95] } },
        range: { range: { field: 'bytes', ranges: [{ to: 300 }, { from: 300 }] } },
        filters: { filters: { filters: { ok: { term: { status: '200' } }, ko: { term: { status: '500' } } } } },
        composite: { composite: { sources: [{ s: { terms: { field: 'status' } } }] } },
        top_hits: { top_hits: { size: 1, sort: [{ bytes: 'desc' }] } },
        missing: { missing: { field: 'nope' } },
        pipeline: {
          date_histogram: { field: '@timestamp', calendar_interval: 'day' },
          aggs: { s: { sum: { field: 'bytes' } }, c: { cumulative_sum: { buckets_path: 's' } } },
        },
      };
      for (const [name, agg] of Object.entries(bodies)) {
        const body = JSON.stringify({ size: 0, track_total_hits: true, aggs: { [name]: agg } });
        const uncached = await host.request('POST', '/logs/_search?request_cache=false', body);
        expect([name, uncached.status]).toEqual([name, 200]);
        const before = await cacheStats('logs');
        const miss = await search('logs', body);
        const hit = await search('logs', body);
        const after = await cacheStats('logs');
        expect([name, after.hit_count - before.hit_count, after.miss_count - before.miss_count]).toEqual([name, 1, 1]);
        for (const r of [miss, hit]) {
          expect([name, r.aggregations]).toEqual([name, uncached.body.aggregations]);
          expect(r.hits.total).toEqual(uncached.body.hits.total);
        }
      }
    });

    it('works with the official client (search request_cache, indices.clearCache, indices.stats, nodes.stats)', async () => {
      const client = new Client({ node: host.url });
      try {
        const agg = { by_status: { terms: { field: 'status' } } };
        await client.indices.clearCache({ index: 'logs', request: true });
        const before = await client.indices.stats({ index: 'logs', metric: 'request_cache' });
        const r1 = await client.search({ index: 'logs', size: 0, aggs: agg, request_cache: true });
        const r2 = await client.search({ index: 'logs', size: 0, aggs: agg, request_cache: true });
        expect(r2.aggregations).toEqual(r1.aggregations);
        const after = await client.indices.stats({ index: 'logs', metric: 'request_cache' });
        const b = before.indices!['logs'].total!.request_cache!;
        const a = after.indices!['logs'].total!.request_cache!;
        expect(a.hit_count - b.hit_count).toBe(1);
        expect(a.miss_count - b.miss_count).toBe(1);
        const cleared = await client.indices.clearCache({ index: 'logs', request: true });
        expect(cleared._shards).toEqual({ total: 1, successful: 1, failed: 0 });
        const nodes = await client.nodes.stats({ metric: 'indices', index_metric: 'request_cache' });
        const node = Object.values(nodes.nodes)[0]!;
        expect(node.indices!.request_cache!.hit_count).toBeGreaterThanOrEqual(a.hit_count);
      } finally {
        await client.close();
      }
    });

    it('a deleted and re-created index caches again from scratch', async () => {
      await createLogs('again');
      for (let i = 0; i < 3; i++) {
        await search('again', AGG_BODY);
        await host.request('PUT', `/again/_doc/x${i}?refresh=true`, { status: '201' });
      }
      await host.request('DELETE', '/again');
      await createLogs('again');
      const a = await search('again', AGG_BODY);
      const b = await search('again', AGG_BODY);
      expect(buckets(b)).toEqual(buckets(a));
      expect(await cacheStats('again')).toMatchObject({ hit_count: 1, miss_count: 1 });
      await host.request('DELETE', '/again');
    });

    it('node stats add up the index counters', async () => {
      const n = await host.request('GET', '/_nodes/stats/indices/request_cache');
      const node = Object.values(n.body.nodes)[0] as any;
      const s = await cacheStats('logs');
      expect(node.indices.request_cache.hit_count).toBeGreaterThanOrEqual(s.hit_count);
      expect(node.indices.request_cache.miss_count).toBeGreaterThanOrEqual(s.miss_count);
      const all = await host.request('GET', '/_stats/request_cache');
      expect(all.body._all.total.request_cache.hit_count).toBe(all.body.indices.logs.total.request_cache.hit_count);
    });
  });
});

describe('request cache size and expiry over HTTP', () => {
  it('evicts the least recently used entry when indices.requests.cache.size is reached', async () => {
    // measure one entry on a default host, then size a second host for one and a half entries
    const probe = await createTestHost({ features: [requestCacheFeature] });
    let entry: number;
    try {
      await createLogsOn(probe, 'logs');
      await searchOn(probe, 'logs', AGG_BODY);
      entry = (await cacheStatsOn(probe, 'logs')).memory_size_in_bytes;
      expect(entry).toBeGreaterThan(0);
    } finally {
      await probe.close();
    }
    const host = await createTestHost({
      features: [requestCacheFeature],
      settings: { 'indices.requests.cache.size': `${Math.floor(entry * 1.5)}b` },
    });
    try {
      await createLogsOn(host, 'logs');
      await searchOn(host, 'logs', AGG_BODY);
      expect(await cacheStatsOn(host, 'logs')).toEqual({ memory_size_in_bytes: entry, evictions: 0, hit_count: 0, miss_count: 1 });
      // same shape, same size: the first entry has to go
      await searchOn(host, 'logs', AGG_BODY_REORDERED);
      expect(await cacheStatsOn(host, 'logs')).toEqual({ memory_size_in_bytes: entry, evictions: 1, hit_count: 0, miss_count: 2 });
      await searchOn(host, 'logs', AGG_BODY_REORDERED);
      await searchOn(host, 'logs', AGG_BODY);
      expect(await cacheStatsOn(host, 'logs')).toEqual({ memory_size_in_bytes: entry, evictions: 2, hit_count: 1, miss_count: 3 });
      const n = await host.request('GET', '/_nodes/stats/indices/request_cache');
      expect((Object.values(n.body.nodes)[0] as any).indices.request_cache.evictions).toBe(2);
    } finally {
      await host.close();
    }
  });

  it('rejects an invalid indices.requests.cache.size at start-up', async () => {
    await expect(
      createTestHost({ features: [requestCacheFeature], settings: { 'indices.requests.cache.size': '200%' } }),
    ).rejects.toThrow(/percentage should be in \[0-100\], got \[200\]/);
  });

  it('expires entries after indices.requests.cache.expire', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 10));
    const host = await createTestHost({
      features: [requestCacheFeature],
      clock,
      settings: { 'indices.requests.cache.expire': '1m' },
    });
    try {
      await createLogsOn(host, 'logs');
      await searchOn(host, 'logs', AGG_BODY);
      clock.advance(30_000);
      await searchOn(host, 'logs', AGG_BODY);
      expect(await cacheStatsOn(host, 'logs')).toMatchObject({ hit_count: 1, miss_count: 1, evictions: 0 });
      clock.advance(31_000);
      await searchOn(host, 'logs', AGG_BODY);
      expect(await cacheStatsOn(host, 'logs')).toMatchObject({ hit_count: 1, miss_count: 2, evictions: 1 });
    } finally {
      await host.close();
    }
  });
});
