import { ContainerModule } from 'inversify';
import { ExtensionPoints, SettingParsers, setting, type NodeStatsContributor } from '@strata/core-common';
import { EngineTokens, FixedBitSet, NODE_FILTER_CACHE, type IndexMetadata, type MetadataStore } from '@strata/core-engine';
import { createNode } from '../node.js';
import { startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

function indexMeta(name: string, replicas: number, extra: Partial<IndexMetadata> = {}): IndexMetadata {
  return {
    name,
    uuid: `uuid-${name}`,
    settings: {},
    mappings: {},
    mappingVersion: 1,
    settingsVersion: 1,
    aliasesVersion: 1,
    aliases: {},
    state: 'open',
    numberOfShards: 2,
    numberOfReplicas: replicas,
    creationDate: 1700000000000,
    primaryTerms: [1, 1],
    ...extra,
  };
}

const fakeIndices = {
  shards: () => [],
  indexMetadata: () => {
    throw new Error('unused');
  },
  indexStats: (name: string) => ({
    docs: { count: name === 'logs' ? 5 : 7, deleted: 1 },
    store: { size_in_bytes: 2048 },
    indexing: { index_total: 6 },
  }),
};

const ingestStats: NodeStatsContributor = { section: 'ingest', stats: () => ({ total: { count: 3 } }) };
const cacheStats: NodeStatsContributor = { section: 'indices.request_cache', stats: () => ({ hit_count: 9 }) };

describe('cluster API', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, body);
  const get = (path: string) => api.call('GET', path);

  beforeAll(async () => {
    api = await startApiTestNode({
      prefix: 'strata-cluster-',
      settings: { 'cluster.name': 'test-cluster', 'node.name': 'n1', 'action.test': 'x' },
      overrides: [
        new ContainerModule(({ rebind }) => {
          rebind(EngineTokens.IndicesService).toConstantValue(fakeIndices);
        }),
      ],
      features: [
        {
          name: 'fake',
          module: new ContainerModule(({ bind }) => {
            bind(ExtensionPoints.NodeStatsContributor).toConstantValue(ingestStats);
            bind(ExtensionPoints.NodeStatsContributor).toConstantValue(cacheStats);
            bind(ExtensionPoints.Setting).toConstantValue(
              setting({ key: 'action.test', scope: 'cluster', dynamic: true, defaultValue: 'y', parse: SettingParsers.string() }),
            );
            bind(ExtensionPoints.Setting).toConstantValue(
              setting({ key: 'cluster.static', scope: 'cluster', dynamic: false, defaultValue: 1, parse: SettingParsers.int('cluster.static') }),
            );
            bind(ExtensionPoints.Setting).toConstantValue(
              setting({ key: 'cluster.max', scope: 'cluster', dynamic: true, defaultValue: 5, parse: SettingParsers.int('cluster.max', 1) }),
            );
          }),
        },
      ],
      beforeListen: async (node) => {
        const store = node.container.get<MetadataStore>(EngineTokens.MetadataStore);
        await store.update((d) => {
          d.indices['logs'] = indexMeta('logs', 1, { aliases: { 'logs-alias': { is_write_index: true } } });
          d.indices['metrics'] = indexMeta('metrics', 0);
        });
      },
    });
  });

  afterAll(() => api.close());

  it('GET / answers the banner', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.body.name).toBe('n1');
    expect(r.body.cluster_name).toBe('test-cluster');
    expect(typeof r.body.cluster_uuid).toBe('string');
    expect(r.body.cluster_uuid).toHaveLength(22);
    expect(r.body.version.number).toMatch(/^8\.\d+\.\d+$/);
    expect(r.body.version.build_flavor).toBe('default');
    expect(r.body.tagline).toBe('You Know, for Search');
    const h = await call('HEAD', '/');
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
    expect(h.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });

  it('fails fast on unknown node settings', async () => {
    await expect(createNode({ settings: { 'path.data': api.dataPath, 'foo.bar': 1 }, logger: silent })).rejects.toThrow(
      'unknown setting [foo.bar] please check that any required plugins are installed, or check the breaking changes documentation for removed settings',
    );
    await expect(createNode({ settings: { 'path.data': api.dataPath, 'http.port': 'abc' }, logger: silent })).rejects.toThrow(
      /invalid value for setting \[http.port\]/,
    );
  });

  it('cluster health is yellow with replicas, green per index without', async () => {
    const r = await get('/_cluster/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      cluster_name: 'test-cluster',
      status: 'yellow',
      timed_out: false,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: 4,
      active_shards: 4,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: 2,
      unassigned_primary_shards: 0,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: (4 / 6) * 100,
    });
    const m = await get('/_cluster/health/metrics?wait_for_status=green&timeout=1s&level=indices');
    expect(m.body.status).toBe('green');
    expect(m.body.indices.metrics.status).toBe('green');
    const hu = await get('/_cluster/health?human');
    expect(hu.body.active_shards_percent).toBe('66.7%');
    expect(hu.body.task_max_waiting_in_queue).toBe('0ms');
    const y = await get('/_cluster/health?wait_for_status=yellow');
    expect(y.status).toBe(200);
    const t = await get('/_cluster/health?wait_for_status=green&timeout=50ms');
    expect(t.status).toBe(408);
    expect(t.body.timed_out).toBe(true);
    const missing = await get('/_cluster/health/nope?timeout=10ms');
    expect(missing.status).toBe(408);
    expect(missing.body.status).toBe('red');
    // an index created while waiting ends the wait
    const store = api.node.container.get<MetadataStore>(EngineTokens.MetadataStore);
    const waiting = get('/_cluster/health/late?wait_for_status=green&timeout=5s');
    await new Promise((r) => setTimeout(r, 150));
    await store.update((d) => {
      d.indices['late'] = indexMeta('late', 0);
    });
    const late = await waiting;
    expect(late.status).toBe(200);
    expect(late.body.status).toBe('green');
    await store.update((d) => {
      delete d.indices['late'];
    });
  });

  it('cluster settings: put, get, flat, null reset, validation', async () => {
    const p = await call('PUT', '/_cluster/settings', { persistent: { cluster: { max: 7 } }, transient: { 'action.test': 'z' } });
    expect(p.status).toBe(200);
    expect(p.body).toEqual({ acknowledged: true, persistent: { cluster: { max: '7' } }, transient: { action: { test: 'z' } } });
    const g = await get('/_cluster/settings?flat_settings=true');
    expect(g.body).toEqual({ persistent: { 'cluster.max': '7' }, transient: { 'action.test': 'z' } });
    const reset = await call('PUT', '/_cluster/settings', { persistent: { 'cluster.max': null } });
    expect(reset.body.persistent).toEqual({});
    expect((await get('/_cluster/settings')).body.persistent).toEqual({});
    const unknown = await call('PUT', '/_cluster/settings', { persistent: { 'no.such': 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.reason).toBe('persistent setting [no.such], not recognized');
    const stat = await call('PUT', '/_cluster/settings', { transient: { 'cluster.static': 2 } });
    expect(stat.body.error.reason).toBe('transient setting [cluster.static], not dynamically updateable');
    const nodeSetting = await call('PUT', '/_cluster/settings', { persistent: { 'http.port': 9201 } });
    expect([nodeSetting.status, nodeSetting.body.error.reason]).toEqual([400, 'persistent setting [http.port], not dynamically updateable']);
    const bad = await call('PUT', '/_cluster/settings', { persistent: { 'cluster.max': 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('illegal_argument_exception');
    const compat = await call('PUT', '/_cluster/settings', { transient: { indices: { recovery: { max_bytes_per_sec: '50mb' } }, 'logger.org.elasticsearch.discovery': 'DEBUG' } });
    expect(compat.body).toEqual({
      acknowledged: true,
      persistent: {},
      transient: { indices: { recovery: { max_bytes_per_sec: '50mb' } }, logger: { org: { elasticsearch: { discovery: 'DEBUG' } } } },
    });
    const defaults = await get('/_cluster/settings?include_defaults&flat_settings');
    expect(defaults.body.defaults['cluster.max']).toBe('5');
    // time and byte-size defaults as ES reports them (Setting#getDefaultRaw), not as parsed numbers
    expect(defaults.body.defaults['cluster.info.update.interval']).toBe('30s');
    expect(defaults.body.defaults['search.default_search_timeout']).toBe('-1');
    const nested = await get('/_cluster/settings?include_defaults=true');
    expect(nested.body.defaults.cluster.info.update.interval).toBe('30s');
    expect(nested.body.defaults.cluster.max).toBe('5');
    // a set setting is reported where it is set, not among the defaults
    await call('PUT', '/_cluster/settings', { persistent: { 'cluster.info.update.interval': '10s' } });
    const set = await get('/_cluster/settings?include_defaults&flat_settings');
    expect(set.body.persistent).toEqual({ 'cluster.info.update.interval': '10s' });
    expect(set.body.defaults['cluster.info.update.interval']).toBeUndefined();
    await call('PUT', '/_cluster/settings', { persistent: { 'cluster.info.update.interval': null } });
  });

  it('nodes info and stats with contributors and metric filters', async () => {
    const info = await get('/_nodes');
    const [id] = Object.keys(info.body.nodes);
    expect(info.body._nodes).toEqual({ total: 1, successful: 1, failed: 0 });
    expect(info.body.nodes[id].name).toBe('n1');
    expect(info.body.nodes[id].http.publish_address).toMatch(/^127\.0\.0\.1:\d+$/);
    const httpOnly = await get('/_nodes/http');
    expect(Object.keys(httpOnly.body.nodes[id])).toContain('http');
    expect(Object.keys(httpOnly.body.nodes[id])).not.toContain('os');
    const stats = await get('/_nodes/stats');
    const n = stats.body.nodes[id];
    expect(n.indices.docs).toEqual({ count: 12, deleted: 2, total_size_in_bytes: 4096 });
    expect(n.indices.request_cache.hit_count).toBe(9);
    expect(n.ingest).toEqual({ total: { count: 3 } });
    expect(n.jvm.mem.heap_used_in_bytes).toBeGreaterThan(0);
    expect(n.fs.total.total_in_bytes).toBeGreaterThan(0);
    expect(n.fs.data[0].path).toBe(api.dataPath);
    const onlyIngest = await get('/_nodes/stats/ingest');
    expect(Object.keys(onlyIngest.body.nodes[id])).toEqual(['timestamp', 'name', 'transport_address', 'host', 'ip', 'roles', 'attributes', 'ingest']);
    const rc = await get('/_nodes/stats/indices/request_cache?human');
    expect(rc.body.nodes[id].indices).toEqual({ request_cache: { memory_size: '0b', memory_size_in_bytes: 0, evictions: 0, hit_count: 9, miss_count: 0 } });
    // the filter cache is the node's: its own counters, not a sum over indices
    NODE_FILTER_CACHE.configure(1 << 20, 10);
    const core = {};
    NODE_FILTER_CACHE.put(core, 'range', new FixedBitSet(64), 1);
    NODE_FILTER_CACHE.get(core, 'range');
    const qc = await get('/_nodes/stats/indices/query_cache');
    expect(qc.body.nodes[id].indices).toEqual({ query_cache: NODE_FILTER_CACHE.stats() });
    expect(qc.body.nodes[id].indices.query_cache).toMatchObject({ hit_count: 1, cache_size: 1, cache_count: 1 });
    NODE_FILTER_CACHE.clear();
    NODE_FILTER_CACHE.configure(0, 0);
    const merge = await get('/_nodes/stats/indices/merge');
    expect(Object.keys(merge.body.nodes[id].indices)).toEqual(['merges']);
    const merges = await get('/_nodes/stats/indices/merges');
    expect(merges.status).toBe(400);
    expect(merges.body.error.reason).toBe('request [/_nodes/stats/indices/merges] contains unrecognized index metric: [merges]');
    const bad = await get('/_nodes/stats/foo');
    expect(bad.status).toBe(400);
    expect(bad.body.error.reason).toBe('request [/_nodes/stats/foo] contains unrecognized metric: [foo]');
  });

  it('index stats', async () => {
    const all = await get('/_stats');
    expect(all.body._shards).toEqual({ total: 6, successful: 4, failed: 0 });
    expect(all.body._all.primaries.docs.count).toBe(12);
    expect(all.body.indices.logs.uuid).toBe('uuid-logs');
    expect(all.body.indices.logs.health).toBe('yellow');
    expect(all.body.indices.logs.status).toBe('open');
    expect(all.body.indices.logs.primaries.indexing.index_total).toBe(6);
    const one = await get('/logs/_stats/docs,store');
    expect(Object.keys(one.body.indices)).toEqual(['logs']);
    expect(Object.keys(one.body.indices.logs.total)).toEqual(['docs', 'store']);
    const missing = await get('/nope/_stats');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('index_not_found_exception');
    const badMetric = await get('/_stats/nope');
    expect(badMetric.status).toBe(400);
    // the URL names the merge stats `merge` (Elasticsearch's rest name); the section is `merges`
    const merge = await get('/logs/_stats/merge,refresh');
    expect(merge.status).toBe(200);
    expect(Object.keys(merge.body.indices.logs.primaries)).toEqual(['merges', 'refresh']);
    expect(merge.body.indices.logs.primaries.merges.current).toBe(0);
    const merges = await get('/logs/_stats/merges');
    expect(merges.status).toBe(400);
    expect(merges.body.error.reason).toBe('request [/logs/_stats/merges] contains unrecognized metric: [merges]');
  });

  it('_cat/indices text, v, h, s, bytes and json', async () => {
    const t = await get('/_cat/indices?v&s=index');
    expect(t.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(t.text).toBe(
      'health status index   uuid         pri rep docs.count docs.deleted store.size pri.store.size dataset.size\n' +
        'yellow open   logs    uuid-logs      2   1          5            1        2kb            2kb          2kb\n' +
        'green  open   metrics uuid-metrics   2   0          7            1        2kb            2kb          2kb\n',
    );
    const h = await get('/_cat/indices?h=index,docs.count&s=docs.count:desc&bytes=b');
    expect(h.text).toBe('metrics 7\nlogs    5\n');
    const j = await get('/_cat/indices/logs?format=json&bytes=b');
    expect(j.body).toEqual([
      {
        health: 'yellow',
        status: 'open',
        index: 'logs',
        uuid: 'uuid-logs',
        pri: '2',
        rep: '1',
        'docs.count': '5',
        'docs.deleted': '1',
        'store.size': '2048',
        'pri.store.size': '2048',
        'dataset.size': '2048',
      },
    ]);
    const g = await get('/_cat/indices?health=green&h=index');
    expect(g.text).toBe('metrics\n');
  });

  // (_cat/count is a count search: tested over real documents in search/nested-api.spec.ts)
  it('_cat/health, _cat/aliases', async () => {
    const h = await get('/_cat/health?h=cluster,status,shards,unassign,active_shards_percent');
    expect(h.text).toBe('test-cluster yellow 4 2 66.7%\n');
    const a = await get('/_cat/aliases?format=json');
    expect(a.body).toEqual([
      { alias: 'logs-alias', index: 'logs', filter: '-', 'routing.index': '-', 'routing.search': '-', is_write_index: 'true' },
    ]);
  });

  it('_cat/shards and _cat/nodes', async () => {
    const s = await get('/_cat/shards/logs?h=index,shard,prirep,state,docs');
    expect(s.text).toBe('logs 0 p STARTED    3\nlogs 0 r UNASSIGNED\nlogs 1 p STARTED    3\nlogs 1 r UNASSIGNED\n');
    const n = await get('/_cat/nodes?h=name,master,node.role');
    expect(n.text).toBe('n1 * dhim\n');
    const m = await get('/_cat/master?h=node');
    expect(m.text).toBe('n1\n');
    expect((await get('/_cat/plugins')).text).toBe('');
    const a = await get('/_cat/allocation?format=json&bytes=b&h=shards,disk.indices,node');
    expect(a.body).toEqual([{ shards: '4', 'disk.indices': '4096', node: 'n1' }]);
  });

  it('_cluster/state with metric and index filters', async () => {
    const all = await get('/_cluster/state');
    expect(all.status).toBe(200);
    expect(all.body.cluster_name).toBe('test-cluster');
    expect(Object.keys(all.body.metadata.indices)).toEqual(['logs', 'metrics']);
    expect(all.body.metadata.indices.logs.aliases).toEqual(['logs-alias']);
    expect(all.body.metadata.indices.logs.settings.index.number_of_shards).toBe('2');
    expect(all.body.routing_table.indices.logs.shards['0']).toHaveLength(2);
    expect(all.body.routing_nodes.unassigned).toHaveLength(2);
    const md = await get('/_cluster/state/metadata/metrics?flat_settings');
    expect(Object.keys(md.body)).toEqual(['cluster_name', 'cluster_uuid', 'metadata']);
    expect(Object.keys(md.body.metadata.indices)).toEqual(['metrics']);
    expect(md.body.metadata.indices.metrics.settings['index.uuid']).toBe('uuid-metrics');
    const bad = await get('/_cluster/state/nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.reason).toBe('Unknown value for metric [nope]');
  });

  it('_cluster/stats totals', async () => {
    const r = await get('/_cluster/stats');
    expect(r.status).toBe(200);
    expect(r.body.status).toBe('yellow');
    expect(r.body.indices.count).toBe(2);
    expect(r.body.indices.shards).toMatchObject({ total: 4, primaries: 4, replication: 0 });
    expect(r.body.indices.docs).toEqual({ count: 12, deleted: 2, total_size_in_bytes: 4096 });
    expect(r.body.nodes.count.total).toBe(1);
    expect(r.body.nodes.versions).toEqual([expect.stringMatching(/^8\./)]);
  });

  it('_xpack and _license', async () => {
    expect((await get('/_xpack')).body.license.type).toBe('basic');
    expect((await get('/_license')).body.license.status).toBe('active');
  });
});
