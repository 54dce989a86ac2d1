import { hostname } from 'node:os';
import { eqlFeature } from '@strata/eql';
import { http, startE2eHost, type E2eHost } from './helpers.js';

/** Honest output: what the monitoring APIs report is what the node has and did (issue 9). */
describe('honest output', () => {
  let host: E2eHost;
  const call = (path: string, init?: RequestInit) => http(host.url + path, init);
  const json = (method: string, path: string, body?: unknown) =>
    call(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });

  beforeAll(async () => {
    host = await startE2eHost({ 'node.name': 'honest-1' });
    await json('PUT', '/h', { settings: { number_of_shards: 2, number_of_replicas: 0 }, mappings: { properties: { t: { type: 'text' }, k: { type: 'keyword' }, n: { type: 'long' } } } });
    const lines = Array.from({ length: 200 }, (_, i) => `{"index":{"_id":"${i}"}}\n${JSON.stringify({ t: i % 2 ? 'quick brown fox' : 'lazy dog', k: `k${i % 5}`, n: i })}\n`).join('');
    const r = await call('/h/_bulk?refresh=true', { method: 'POST', body: lines, headers: { 'content-type': 'application/x-ndjson' } });
    if (r.status !== 200 || r.json.errors) throw new Error(r.text);
  });
  afterAll(() => host.close());

  it('GET /_xpack lists a feature as available only when its library is loaded', async () => {
    const r = await call('/_xpack');
    expect(r.status).toBe(200);
    const f = r.json.features;
    // loaded by the default host: eql, data streams + ilm, security (turned off by xpack.security.enabled=false)
    expect(f.eql).toEqual({ available: true, enabled: true });
    expect(f.data_streams).toEqual({ available: true, enabled: true });
    expect(f.ilm).toEqual({ available: true, enabled: true });
    expect(f.security).toEqual({ available: true, enabled: false });
    expect(f.analytics).toEqual({ available: true, enabled: true }); // core's aggregations
    for (const absent of ['spatial', 'aggregate_metric']) expect(f[absent]).toEqual({ available: false, enabled: false }); // mapped, not indexed
    for (const absent of ['ml', 'watcher', 'sql', 'transform', 'graph', 'ccr', 'esql', 'rollup']) expect(f[absent]).toEqual({ available: false, enabled: false });
    expect(Object.keys(f)).toEqual([...Object.keys(f)].sort());
    expect(r.json.tagline).toBe('You know, for X');
    const only = await call('/_xpack?categories=license&human=false');
    expect(Object.keys(only.json)).toEqual(['license']);
    const bad = await call('/_xpack?categories=nope');
    expect([bad.status, bad.json.error.reason]).toEqual([400, 'No enum constant org.elasticsearch.protocol.xpack.XPackInfoRequest.Category.NOPE']);
    const usage = await call('/_xpack/usage');
    expect(usage.json.eql).toEqual({ available: true, enabled: true });
    expect(usage.json.ml).toEqual({ available: false, enabled: false });
  });

  it('a host without a feature library does not claim it', async () => {
    const bare = await startE2eHost({}, [eqlFeature]);
    try {
      const f = (await http(bare.url + '/_xpack')).json.features;
      expect(f.eql).toEqual({ available: true, enabled: true });
      expect(f.security).toEqual({ available: false, enabled: false });
      expect(f.data_streams).toEqual({ available: false, enabled: false });
      expect(f.analytics).toEqual({ available: true, enabled: true });
    } finally {
      await bare.close();
    }
  });

  it('search statistics count query, fetch and scroll phases per shard, in _stats and _nodes/stats', async () => {
    const before = (await call('/h/_stats/search')).json.indices.h.total.search;
    const s = await json('POST', '/h/_search', { query: { match: { t: 'fox' } }, size: 100 });
    expect(s.json.hits.total.value).toBe(100);
    await json('POST', '/h/_search', { size: 0, query: { term: { k: 'k1' } } });
    await json('POST', '/h/_count', { query: { match_all: {} } });
    const scroll = await json('POST', '/h/_search?scroll=1m', { size: 50, sort: ['n'] });
    const mid = (await call('/h/_stats/search')).json.indices.h.total.search;
    expect(mid.scroll_current - before.scroll_current).toBe(2);
    expect(mid.open_contexts - before.open_contexts).toBe(2);
    await json('DELETE', '/_search/scroll', { scroll_id: scroll.json._scroll_id });
    const after = (await call('/h/_stats/search')).json.indices.h.total.search;
    // 4 searches on 2 shards; fetch only on shards that had hits to fetch (the match and the scroll page)
    expect(after.query_total - before.query_total).toBe(8);
    expect(after.fetch_total - before.fetch_total).toBe(4);
    expect(after.query_current).toBe(0);
    expect(after.fetch_current).toBe(0);
    expect(after.scroll_total - before.scroll_total).toBe(2);
    expect(after.scroll_current).toBe(before.scroll_current);
    expect(after.query_time_in_millis).toBeGreaterThanOrEqual(before.query_time_in_millis);
    const nodes = (await call('/_nodes/stats/indices/search')).json.nodes;
    const node = Object.values(nodes)[0] as any;
    expect(node.indices.search.query_total).toBeGreaterThanOrEqual(after.query_total);
    const cat = await call('/_cat/indices/h?h=search.query_total,search.fetch_total&format=json');
    expect(cat.json[0]).toEqual({ 'search.query_total': String(after.query_total), 'search.fetch_total': String(after.fetch_total) });
  });

  it('profile: true reports measured per-query timings with the breakdown, and the collectors', async () => {
    const r = await json('POST', '/h/_search', { profile: true, query: { bool: { must: [{ match: { t: 'quick' } }], filter: [{ range: { n: { gte: 10 } } }] } }, aggs: { ks: { terms: { field: 'k' } } } });
    expect(r.status).toBe(200);
    const shards = r.json.profile.shards;
    expect(shards).toHaveLength(2);
    const id = (await call('/_nodes/_local')).json.nodes;
    const nodeId = Object.keys(id)[0]!;
    for (const sh of shards) {
      expect(sh.id).toBe(`[${nodeId}][h][${sh.shard_id}]`);
      expect(sh.node_id).toBe(nodeId);
      const [search] = sh.searches;
      const q = search.query[0];
      expect(q.type).toBe('BooleanQuery');
      expect(q.breakdown.create_weight_count).toBe(1);
      expect(q.breakdown.build_scorer_count).toBeGreaterThanOrEqual(1);
      expect(q.breakdown.next_doc_count + q.breakdown.advance_count).toBeGreaterThan(0);
      expect(q.breakdown.create_weight).toBeGreaterThan(0);
      expect(q.breakdown.next_doc + q.breakdown.advance).toBeGreaterThan(0);
      const sum = Object.entries(q.breakdown).filter(([k]) => !k.endsWith('_count')).reduce((a, [, v]) => a + (v as number), 0);
      expect(q.time_in_nanos).toBe(sum);
      expect(q.children.map((c: any) => c.type).sort()).toEqual(['PointRangeQuery', 'TermQuery'].sort());
      for (const c of q.children) expect(c.breakdown.build_scorer_count).toBeGreaterThanOrEqual(1);
      expect(typeof search.rewrite_time).toBe('number');
      const [collector] = search.collector;
      expect(collector).toMatchObject({ name: 'QueryPhaseCollector', reason: 'search_query_phase' });
      expect(collector.time_in_nanos).toBeGreaterThan(0);
      expect(collector.children.map((c: any) => c.reason)).toEqual(['search_top_hits', 'aggregation']);
      expect(collector.children[1].name).toBe('AggregatorCollector: [ks]');
      // the top-level aggregation, timed: created once, a leaf collector per segment, one collect per matching doc
      expect(sh.aggregations).toHaveLength(1);
      const [agg] = sh.aggregations;
      expect(agg.description).toBe('ks');
      expect(typeof agg.type).toBe('string');
      expect(agg.breakdown.initialize_count).toBe(1);
      expect(agg.breakdown.build_aggregation_count).toBe(1);
      expect(agg.breakdown.build_leaf_collector_count).toBeGreaterThanOrEqual(1);
      expect(agg.breakdown.collect_count).toBeGreaterThan(0);
      expect(agg.breakdown.collect).toBeGreaterThan(0);
      const aggSum = Object.entries(agg.breakdown).filter(([k]) => !k.endsWith('_count')).reduce((a, [, v]) => a + (v as number), 0);
      expect(agg.time_in_nanos).toBe(aggSum);
    }
    const hits = (r.json.hits.total.value as number);
    const collected = shards.reduce((a: number, sh: any) => a + sh.aggregations[0].breakdown.collect_count, 0);
    expect(collected).toBe(hits);
  });

  it('one node name everywhere: GET /, _nodes, _cat/nodes, _cat/shards, cluster state, tasks', async () => {
    const name = 'honest-1';
    expect((await call('/')).json.name).toBe(name);
    const nodes = (await call('/_nodes')).json.nodes;
    const [nodeId, info] = Object.entries(nodes)[0] as [string, any];
    expect(info.name).toBe(name);
    expect((await call('/_cat/nodes?h=name')).text.trim()).toBe(name);
    expect(new Set((await call('/_cat/shards/h?h=node')).text.trim().split('\n'))).toEqual(new Set([name]));
    const state = (await call('/_cluster/state/nodes,master_node')).json;
    expect(state.master_node).toBe(nodeId);
    expect(state.nodes[nodeId].name).toBe(name);
    const task = await json('POST', '/h/_update_by_query?wait_for_completion=false&conflicts=proceed', { query: { term: { k: 'k2' } } });
    expect(task.json.task).toMatch(new RegExp(`^${nodeId}:\\d+$`));
    const tasks = (await call('/_tasks')).json.nodes;
    for (const [id, n] of Object.entries(tasks) as Array<[string, any]>) {
      expect(id).toBe(nodeId);
      expect(n.name).toBe(name);
    }
    // without node.name the node is named after the host, as Elasticsearch
    const anon = await startE2eHost({}, [eqlFeature]);
    try {
      expect((await http(anon.url + '/')).json.name).toBe(hostname());
      expect((await http(anon.url + '/_cat/nodes?h=name')).text.trim()).toBe(hostname());
    } finally {
      await anon.close();
    }
  });
});
