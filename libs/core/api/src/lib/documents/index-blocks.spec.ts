import { createTestHost, type TestHost } from '@strata/core-testing';

describe('index write blocks on the document APIs', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createTestHost();
  });
  afterAll(async () => {
    await host?.close();
  });

  it('index.blocks.write rejects index, bulk items and deletes with cluster_block_exception and changes nothing', async () => {
    expect((await host.request('PUT', '/blk/_doc/1?refresh=true', { a: 1 })).status).toBe(201);
    expect((await host.request('PUT', '/blk/_settings', { index: { 'blocks.write': true } })).status).toBe(200);
    const r = await host.request('PUT', '/blk/_doc/2', { a: 2 });
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe('cluster_block_exception');
    expect(r.body.error.reason).toBe('index [blk] blocked by: [FORBIDDEN/8/index write (api)];');
    const b = await host.request('POST', '/_bulk', [{ index: { _index: 'blk', _id: '3' } }, { a: 3 }]);
    expect(b.body.errors).toBe(true);
    expect(b.body.items[0].index.status).toBe(403);
    expect(b.body.items[0].index.error.type).toBe('cluster_block_exception');
    const d = await host.request('DELETE', '/blk/_doc/1');
    expect(d.status).toBe(403);
    expect((await host.request('PUT', '/blk/_settings', { index: { 'blocks.write': false } })).status).toBe(200);
    await host.request('POST', '/blk/_refresh');
    const c = await host.request('GET', '/blk/_count');
    expect(c.body.count).toBe(1);
  });
});
