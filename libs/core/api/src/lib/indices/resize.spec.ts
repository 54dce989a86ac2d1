import { EngineTokens } from '@strata/core-engine';
import { createNode } from '../node.js';
import { startApiTestNode, type ApiTestNode, NDJSON } from '../testing/api-test-node.js';

describe('shrink and clone', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, ct?: string) => api.call(method, path, body, ct);
  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-resize-' });
  });
  afterAll(() => api.close());

  it('shrinks 4 shards to 2 and 1 with every document, findable by id, and keeps indexing', async () => {
    expect((await call('PUT', '/src', { settings: { number_of_shards: 4, number_of_replicas: 0 }, mappings: { properties: { n: { type: 'long' } } } })).status).toBe(200);
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push(JSON.stringify({ index: { _id: `d${i}` } }), JSON.stringify({ n: i }));
    expect((await call('POST', '/src/_bulk?refresh=true', lines.join('\n') + '\n', NDJSON)).body.errors).toBe(false);
    // some deletes, some not refreshed yet: the shrink flushes and takes the live documents
    for (let i = 0; i < 300; i += 30) expect((await call('DELETE', `/src/_doc/d${i}`)).status).toBe(200);
    await call('PUT', '/src/_doc/late', { n: 1000 });
    const notReadOnly = await call('POST', '/src/_shrink/dst2', { settings: { 'index.number_of_shards': 2 } });
    expect(notReadOnly.status).toBe(500);
    expect(notReadOnly.body.error).toMatchObject({ type: 'illegal_state_exception', reason: 'index src must be read-only to resize index. use "index.blocks.write=true"' });
    expect((await call('PUT', '/src/_settings', { 'index.blocks.write': true })).status).toBe(200);
    const three = await call('POST', '/src/_shrink/dst3', { settings: { 'index.number_of_shards': 3 } });
    expect(three.body.error.reason).toBe('the number of source shards [4] must be a multiple of [3]');
    for (const [target, shards] of [['dst2', 2], ['dst1', 1]] as const) {
      const r = await call('POST', `/src/_shrink/${target}`, { settings: { 'index.number_of_shards': shards, 'index.number_of_replicas': 0 } });
      expect(r.body).toEqual({ acknowledged: true, shards_acknowledged: true, index: target });
      const st = await call('GET', `/${target}/_settings`);
      expect(st.body[target].settings.index.number_of_shards).toBe(String(shards));
      expect(st.body[target].settings.index.resize.source.name).toBe('src');
      expect((await call('GET', `/${target}/_count`)).body.count).toBe(291);
      for (const id of ['d1', 'd299', 'late']) expect((await call('GET', `/${target}/_doc/${id}`)).body.found).toBe(true);
      expect((await call('GET', `/${target}/_doc/d30`)).body.found).toBe(false);
      const sum = await call('POST', `/${target}/_search`, { size: 0, aggs: { s: { sum: { field: 'n' } } } });
      expect(sum.body.aggregations.s.value).toBe(44850 - 1350 + 1000);
      // the new index takes writes and routes them consistently
      expect((await call('PUT', `/${target}/_doc/new1?refresh=true`, { n: 1 })).status).toBe(201);
      expect((await call('GET', `/${target}/_doc/new1`)).body.found).toBe(true);
    }
    // the source is untouched
    expect((await call('GET', '/src/_count')).body.count).toBe(291);
    const clone = await call('POST', '/src/_clone/copy');
    expect(clone.status).toBe(200);
    expect((await call('GET', '/copy/_count')).body.count).toBe(291);
    expect((await call('GET', '/copy/_settings')).body.copy.settings.index.number_of_shards).toBe('4');
  });

  it('survives a restart: the shrunk index recovers from its own files', async () => {
    await api.node.close();
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    const node = await createNode({ settings: { 'path.data': api.dataPath }, logger: silent });
    await node.start();
    try {
      const indices = node.container.get<{ shards(i: string): Array<{ numDocs: number }> }>(EngineTokens.IndicesService);
      expect(indices.shards('dst1').reduce((a, s) => a + s.numDocs, 0)).toBe(292);
      expect(indices.shards('dst2').reduce((a, s) => a + s.numDocs, 0)).toBe(292);
    } finally {
      await node.close();
    }
  });
});
