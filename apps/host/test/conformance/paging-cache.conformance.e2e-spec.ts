import { startConformanceHost, type Conformance } from './harness.js';

/**
 * Scroll, point in time, search_after, request cache stats: black-box comparison with Elasticsearch 8.x.
 * `it.failing` marks a confirmed difference (flip to `it` once fixed).
 */
describe('conformance: paging and request cache', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/pg', { settings: { number_of_shards: 2 }, mappings: { properties: { n: { type: 'integer' } } } });
    const lines: unknown[] = [];
    for (let i = 1; i <= 25; i++) lines.push({ index: { _id: String(i) } }, { n: i });
    expect((await es.bulk('/pg/_bulk?refresh=true', lines)).json.errors).toBe(false);
  });
  afterAll(() => es.close());

  it('scroll: all docs exactly once, aggregations only in the first page, clear returns num_freed then 404', async () => {
    const first = await es.req('POST', '/pg/_search?scroll=1m&size=10', { sort: ['_doc'], aggs: { s: { sum: { field: 'n' } } } });
    expect(first.json.aggregations.s.value).toBe(325);
    const seen: string[] = first.json.hits.hits.map((h: { _id: string }) => h._id);
    let sid: string = first.json._scroll_id;
    for (;;) {
      const page = await es.req('POST', '/_search/scroll', { scroll: '1m', scroll_id: sid });
      expect(page.json.aggregations).toBeUndefined();
      sid = page.json._scroll_id;
      if (page.json.hits.hits.length === 0) break;
      seen.push(...page.json.hits.hits.map((h: { _id: string }) => h._id));
    }
    expect(seen.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
    const del = await es.req('DELETE', '/_search/scroll', { scroll_id: sid });
    // ES frees one search context per shard (pg has 2 shards)
    expect(del.json).toEqual({ succeeded: true, num_freed: 2 });
    const again = await es.req('DELETE', '/_search/scroll', { scroll_id: sid });
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ succeeded: true, num_freed: 0 });
    const gone = await es.req('POST', '/_search/scroll', { scroll: '1m', scroll_id: sid });
    expect(gone.status).toBe(404);
    expect(gone.json.error.root_cause[0].type).toBe('search_context_missing_exception');
  });

  it('scroll request validation: from, size 0, search_after', async () => {
    const from = await es.req('POST', '/pg/_search?scroll=1m&from=2&size=2', {});
    expect(from.status).toBe(400);
    expect(from.json.error.reason).toBe('Validation Failed: 1: using [from] is not allowed in a scroll context;');
    const size0 = await es.req('POST', '/pg/_search?scroll=1m', { size: 0 });
    expect(size0.json.error.reason).toBe('Validation Failed: 1: [size] cannot be [0] in a scroll context;');
    const sa = await es.req('POST', '/pg/_search?scroll=1m&size=2', { search_after: [1], sort: [{ n: 'asc' }] });
    expect(sa.json.error.reason).toBe('Validation Failed: 1: [search_after] cannot be used in a scroll context;');
  });

  it('search_after: next page by sort values; from must be 0', async () => {
    const ok = await es.req('POST', '/pg/_search?filter_path=hits.hits._id', { size: 2, sort: [{ n: 'asc' }], search_after: [2] });
    expect(ok.json.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['3', '4']);
    const from = await es.req('POST', '/pg/_search', { size: 2, from: 1, sort: [{ n: 'asc' }], search_after: [2] });
    expect(from.status).toBe(400);
    expect(from.json.error.reason).toBe('Validation Failed: 1: `from` parameter must be set to 0 when `search_after` is used;');
  });

  it('point in time: snapshot isolation, _shard_doc tiebreaker, pit_id returned, index in path rejected, close', async () => {
    const open = await es.req('POST', '/pg/_pit?keep_alive=1m');
    expect(open.json._shards).toEqual({ total: 2, successful: 2, skipped: 0, failed: 0 });
    const id: string = open.json.id;
    await es.req('PUT', '/pg/_doc/new?refresh=true', { n: 0 });
    const r = await es.req('POST', '/_search', { size: 30, pit: { id, keep_alive: '1m' }, sort: [{ n: 'asc' }] });
    expect(r.json.hits.total.value).toBe(25);
    expect(typeof r.json.pit_id).toBe('string');
    expect(r.json.hits.hits[0].sort).toHaveLength(2);
    expect(Number.isInteger(r.json.hits.hits[0].sort[1])).toBe(true);
    const withIndex = await es.req('POST', '/pg/_search', { pit: { id } });
    expect(withIndex.status).toBe(400);
    expect(withIndex.json.error.reason).toBe(
      'Validation Failed: 1: [indices] cannot be used with point in time. Do not specify any index with point in time.;',
    );
    const noKeepAlive = await es.req('POST', '/pg/_pit');
    expect(noKeepAlive.status).toBe(400);
    expect((await es.req('DELETE', '/_pit', { id })).json).toEqual({ succeeded: true, num_freed: 2 });
    const after = await es.req('POST', '/_search', { pit: { id } });
    expect(after.status).toBe(404);
    expect(after.json.error.root_cause[0].type).toBe('search_context_missing_exception');
    await es.req('DELETE', '/pg/_doc/new?refresh=true');
  });

  it('sliced scroll: slices are disjoint and their union is everything', async () => {
    const all = new Set<string>();
    let total = 0;
    for (const id of [0, 1, 2]) {
      const r = await es.req('POST', '/pg/_search?scroll=1m&size=25', { slice: { id, max: 3 } });
      const got = r.json.hits.hits.map((h: { _id: string }) => h._id);
      total += got.length;
      got.forEach((g: string) => all.add(g));
      await es.req('DELETE', '/_search/scroll', { scroll_id: r.json._scroll_id });
    }
    expect(total).toBe(25);
    expect(all.size).toBe(25);
  });

  it('max_result_window: dynamic, enforced with the ES message', async () => {
    await es.req('PUT', '/pg/_settings', { index: { max_result_window: 20 } });
    const r = await es.req('POST', '/pg/_search', { from: 15, size: 10 });
    expect(r.status).toBe(400);
    expect(r.json.error.root_cause[0].reason).toMatch(/^Result window is too large, from \+ size must be less than or equal to: \[20\] but was \[25\]\./);
    await es.req('PUT', '/pg/_settings', { index: { max_result_window: null } });
    expect((await es.req('POST', '/pg/_search', { from: 15, size: 10 })).status).toBe(200);
  });

  it('request cache: size=0 cached (miss then hit), refresh invalidates, request_cache=false bypasses, stats shapes', async () => {
    await es.req('PUT', '/rc', { settings: { number_of_shards: 1 } });
    await es.req('PUT', '/rc/_doc/1?refresh=true', { a: 1 });
    const stats = async () => (await es.req('GET', '/rc/_stats/request_cache')).json._all.total.request_cache;
    const body = { aggs: { m: { max: { field: 'a' } } } };
    expect(await stats()).toEqual({ memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 });
    await es.req('POST', '/rc/_search?size=0', body);
    await es.req('POST', '/rc/_search?size=0', body);
    const s1 = await stats();
    expect([s1.hit_count, s1.miss_count]).toEqual([1, 1]);
    expect(s1.memory_size_in_bytes).toBeGreaterThan(0);
    await es.req('PUT', '/rc/_doc/2?refresh=true', { a: 5 });
    const fresh = await es.req('POST', '/rc/_search?size=0', body);
    expect(fresh.json.aggregations.m.value).toBe(5);
    await es.req('POST', '/rc/_search?size=0&request_cache=false', body);
    const s2 = await stats();
    expect([s2.hit_count, s2.miss_count]).toEqual([1, 2]);
    const human = await es.req('GET', '/rc/_stats/request_cache?human');
    expect(typeof human.json._all.total.request_cache.memory_size).toBe('string');
    const clear = await es.req('POST', '/rc/_cache/clear?request=true');
    expect(clear.status).toBe(200);
    expect((await stats()).memory_size_in_bytes).toBe(0);
    const node = await es.req('GET', '/_nodes/stats/indices/request_cache');
    const n = Object.values(node.json.nodes as Record<string, { indices: { request_cache: Record<string, number> } }>)[0];
    expect(Object.keys(n.indices.request_cache).sort()).toEqual(['evictions', 'hit_count', 'memory_size_in_bytes', 'miss_count']);
  });
});
