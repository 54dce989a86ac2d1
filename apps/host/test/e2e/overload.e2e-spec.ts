/**
 * Overload: the bounded write and search pools (`thread_pool.{write,search}.{size,queue_size}`) reject with
 * 429 es_rejected_execution_exception in Elasticsearch's shapes, report it in `_nodes/stats/thread_pool` and
 * `_cat/thread_pool`, and the official client's bulk helper (which retries 429 items) still ingests everything.
 *
 * A test feature makes work slow the way real load does (an index interceptor that awaits a timer per
 * document, a shard search interceptor that holds the query until released), so requests overlap.
 */
import { Client } from '@elastic/elasticsearch';
import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import type { IndexRequestInterceptor, ShardSearchInterceptor } from '@strata/core-engine';
import { DEFAULT_FEATURES } from '../../src/app/features.js';
import { http, startE2eHost, type E2eHost } from './helpers.js';

const held: Array<() => void> = [];
let holdSearches = false;

const slowIndexing: IndexRequestInterceptor = {
  name: 'test-slow-indexing',
  order: 1,
  async intercept(request) {
    if (request.index === 'slow') await new Promise((r) => setTimeout(r, 1));
    return { kind: 'continue', request };
  },
};
const holdingSearch: ShardSearchInterceptor = {
  name: 'test-holding-search',
  order: 1,
  async intercept(_req, _shard, next) {
    if (holdSearches) await new Promise<void>((r) => held.push(r));
    return next();
  },
};
const slowFeature: FeatureModule = {
  name: 'test-slow',
  module: new ContainerModule((o) => {
    o.bind(ExtensionPoints.IndexRequestInterceptor).toConstantValue(slowIndexing);
    o.bind(ExtensionPoints.ShardSearchInterceptor).toConstantValue(holdingSearch);
  }),
};

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const ndjson = (lines: unknown[]): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-ndjson' },
  body: lines.map((l) => JSON.stringify(l)).join('\n') + '\n',
});

describe('bounded write and search pools', () => {
  let host: E2eHost;
  let client: Client;
  beforeAll(async () => {
    host = await startE2eHost(
      { 'thread_pool.write.size': 1, 'thread_pool.write.queue_size': 1, 'thread_pool.search.size': 1, 'thread_pool.search.queue_size': 1 },
      [...DEFAULT_FEATURES, slowFeature],
    );
    client = new Client({ node: host.url });
  });
  afterAll(async () => {
    await client.close();
    await host.close();
  });

  it('reports the configured pools in _nodes/stats and _cat/thread_pool', async () => {
    const st = await http(`${host.url}/_nodes/stats/thread_pool`);
    const node = Object.values(st.json.nodes as Record<string, any>)[0];
    expect(Object.keys(node.thread_pool)).toEqual(expect.arrayContaining(['search', 'write', 'get', 'refresh']));
    expect(node.thread_pool.write).toEqual({ threads: expect.any(Number), queue: 0, active: 0, rejected: 0, largest: expect.any(Number), completed: expect.any(Number) });
    const cat = await http(`${host.url}/_cat/thread_pool/write,search?h=name,type,size,queue_size,active,queue,rejected&format=json`);
    expect(cat.json).toEqual([
      { name: 'search', type: 'fixed', size: '1', queue_size: '1', active: '0', queue: '0', rejected: '0' },
      { name: 'write', type: 'fixed', size: '1', queue_size: '1', active: '0', queue: '0', rejected: '0' },
    ]);
    const info = await http(`${host.url}/_nodes/thread_pool`);
    const infoNode = Object.values(info.json.nodes as Record<string, any>)[0];
    expect(infoNode.thread_pool.write).toEqual({ type: 'fixed', size: 1, queue_size: 1 });
    expect(infoNode.thread_pool.search).toEqual({ type: 'fixed', size: 1, queue_size: 1 });
    expect(infoNode.thread_pool.generic).toMatchObject({ type: 'scaling', queue_size: -1 });
    const text = await http(`${host.url}/_cat/thread_pool/wri*?v`);
    expect(text.text).toMatch(/^node_name\s+name\s+active\s+queue\s+rejected\n\S+\s+write\s+0\s+0\s+0\n$/);
  });

  it('rejects bulks past the write queue item by item with 429 es_rejected_execution_exception', async () => {
    const lines = (n: number, tag: string): unknown[] => Array.from({ length: n }, (_, i) => [{ index: { _index: 'slow', _id: `${tag}${i}` } }, { n: i }]).flat();
    // 200 items at >= 1 ms each: the first bulk is still applying when the other three arrive, even on a busy machine
    const rs = await Promise.all(['a', 'b', 'c', 'd'].map((t) => http(`${host.url}/_bulk`, ndjson(lines(200, t)))));
    for (const r of rs) expect(r.status).toBe(200);
    const rejected = rs.filter((r) => r.json.items[0].index.status === 429);
    const accepted = rs.filter((r) => r.json.items[0].index.status === 201);
    // one runs, one waits in the queue of 1, the other two are rejected
    expect(accepted).toHaveLength(2);
    expect(rejected).toHaveLength(2);
    for (const r of rejected) {
      expect(r.json.errors).toBe(true);
      expect(r.json.items).toHaveLength(200);
      const item = r.json.items[5].index;
      expect(item).toEqual({ _index: 'slow', _id: expect.stringMatching(/^[a-d]5$/), status: 429, error: { type: 'es_rejected_execution_exception', reason: expect.any(String) } });
      expect(item.error.reason).toMatch(/^rejected execution of .* on EsThreadPoolExecutor\[name = .+\/write, queue capacity = 1, .*\]$/);
    }
    const st = await http(`${host.url}/_nodes/stats/thread_pool/`);
    const node = Object.values(st.json.nodes as Record<string, any>)[0];
    expect(node.thread_pool.write).toMatchObject({ rejected: 2, active: 0, queue: 0, largest: 1 });
    const cat = await http(`${host.url}/_cat/thread_pool/write?h=name,rejected`);
    expect(cat.text).toBe('write 2\n');
    // a single-document write waits for its slot, it is not rejected while the queue has room
    expect((await http(`${host.url}/slow/_doc/single?refresh=true`, { ...json({ n: 1 }), method: 'PUT' })).status).toBe(201);
    expect((await http(`${host.url}/slow/_count`)).json.count).toBe(401);
  });

  it("the official client's bulk helper retries the 429 items and ingests everything", async () => {
    const docs = Array.from({ length: 1200 }, (_, i) => ({ id: `h${i}`, n: i, text: `document number ${i}` }));
    const before = Object.values((await http(`${host.url}/_nodes/stats/thread_pool`)).json.nodes as Record<string, any>)[0].thread_pool.write.rejected;
    const result = await client.helpers.bulk({
      datasource: docs,
      onDocument: (d) => ({ index: { _index: 'slow', _id: d.id } }),
      flushBytes: 4000,
      concurrency: 6,
      // a retry budget of seconds, not milliseconds: on a loaded machine one bulk can hold the one write slot for
      // longer than 200 retries 5 ms apart (45 items failed that way once)
      retries: 200,
      wait: 50,
      refreshOnCompletion: 'slow',
    });
    expect(result.failed).toBe(0);
    expect(result.successful).toBe(1200);
    const after = Object.values((await http(`${host.url}/_nodes/stats/thread_pool`)).json.nodes as Record<string, any>)[0].thread_pool.write.rejected;
    expect(after).toBeGreaterThan(before); // the helper really met rejections and retried them
    const got = await client.mget<{ n: number }>({ index: 'slow', ids: docs.map((d) => d.id) });
    expect(got.docs.filter((d) => 'found' in d && d.found && d._source?.n === Number(d._id.slice(1)))).toHaveLength(1200);
  });

  it('rejects searches past the search queue: 429 search_phase_execution_exception caused by es_rejected_execution_exception', async () => {
    await http(`${host.url}/other/_doc/1?refresh=true`, { ...json({ a: 1 }), method: 'PUT' });
    holdSearches = true;
    const first = http(`${host.url}/other/_search`, json({ query: { match_all: {} } }));
    const second = http(`${host.url}/other/_search`, json({ query: { match_all: {} } }));
    // wait until one search holds the slot and the other waits in the queue
    for (let i = 0; i < 500 && (await http(`${host.url}/_cat/thread_pool/search?h=active,queue`)).text !== '1 1\n'; i++) await new Promise((r) => setTimeout(r, 10));
    const third = await http(`${host.url}/other/_search`, json({ query: { match_all: {} } }));
    expect(third.status).toBe(429);
    expect(third.json.status).toBe(429);
    expect(third.json.error).toMatchObject({
      type: 'search_phase_execution_exception',
      reason: 'all shards failed',
      phase: 'query',
      grouped: true,
      root_cause: [{ type: 'es_rejected_execution_exception', reason: expect.stringMatching(/^rejected execution of .* on EsThreadPoolExecutor\[name = .+\/search, queue capacity = 1, /) }],
      failed_shards: [{ shard: 0, index: 'other', node: expect.any(String), reason: { type: 'es_rejected_execution_exception' } }],
    });
    const during = await http(`${host.url}/_cat/thread_pool/search?h=active,queue,rejected`);
    expect(during.text).toBe('1 1 1\n');
    holdSearches = false;
    while (held.length > 0 || (await Promise.race([first.then(() => 'done'), new Promise((r) => setTimeout(() => r('wait'), 20))])) === 'wait') held.shift()?.();
    expect((await first).status).toBe(200);
    const s2 = await second;
    expect(s2.status).toBe(200);
    expect(s2.json.hits.total.value).toBe(1);
    // the node keeps serving
    expect((await http(`${host.url}/other/_search`, json({}))).status).toBe(200);
  });
});
