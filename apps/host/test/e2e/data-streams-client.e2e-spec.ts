import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { startE2eHost, type E2eHost } from './helpers.js';

/** The data stream setup flow of the spec (section 4.5) and the client flow, with the official client unmodified. */
describe('data streams with the official client @elastic/elasticsearch 8.x', () => {
  let host: E2eHost;
  let client: Client;
  let repo: string;
  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), 'strata-client-repo-'));
    host = await startE2eHost({ 'path.repo': repo });
    client = new Client({ node: host.url });
  });
  afterAll(async () => {
    await client.close();
    await host.close();
    rmSync(repo, { recursive: true, force: true });
  });

  it('lifecycle policy, component template, index template, bulk create, get, search, rollover, delete', async () => {
    expect(
      await client.ilm.putLifecycle({
        name: 'logs-policy',
        policy: {
          phases: {
            hot: { actions: { rollover: { max_primary_shard_size: '50gb' } } },
            warm: { min_age: '30d', actions: { shrink: { number_of_shards: 1 }, forcemerge: { max_num_segments: 1 } } },
            cold: { min_age: '60d', actions: { searchable_snapshot: { snapshot_repository: 'found-snapshots' } } },
            delete: { min_age: '735d', actions: { delete: {} } },
          },
        },
      }),
    ).toEqual({ acknowledged: true });
    const policy = await client.ilm.getLifecycle({ name: 'logs-policy' });
    expect(policy['logs-policy'].version).toBe(1);
    expect(policy['logs-policy'].policy.phases.warm?.min_age).toBe('30d');

    expect(
      await client.cluster.putComponentTemplate({
        name: 'logs-mappings',
        template: { mappings: { properties: { '@timestamp': { type: 'date', format: 'date_optional_time||epoch_millis' }, message: { type: 'wildcard' } } } },
        _meta: { description: 'Mappings for @timestamp and message fields' },
      }),
    ).toEqual({ acknowledged: true });
    await client.cluster.putComponentTemplate({ name: 'logs-settings', template: { settings: { 'index.lifecycle.name': 'logs-policy' } }, _meta: { description: 'Settings for ILM' } });
    expect(await client.cluster.existsComponentTemplate({ name: 'logs-settings' })).toBe(true);
    expect(
      await client.indices.putIndexTemplate({
        name: 'logs-template',
        index_patterns: ['logs-client*'],
        data_stream: {},
        composed_of: ['logs-mappings', 'logs-settings'],
        priority: 500,
        _meta: { description: 'Template for my time series data' },
      }),
    ).toEqual({ acknowledged: true });
    expect(await client.indices.existsIndexTemplate({ name: 'logs-template' })).toBe(true);

    const docs = Array.from({ length: 120 }, (_, i) => ({ '@timestamp': new Date(Date.UTC(2099, 4, 6, 16, 21, i % 60)).toISOString(), message: `192.0.2.${i} GET /index.html 200 ${i}` }));
    const result = await client.helpers.bulk({ datasource: docs, onDocument: () => ({ create: { _index: 'logs-client' } }), refreshOnCompletion: 'logs-client' });
    expect(result).toMatchObject({ total: 120, successful: 120, failed: 0 });
    const single = await client.index({ index: 'logs-client', document: { '@timestamp': '2099-05-06T16:21:15.000Z', message: 'single' }, refresh: true });
    expect(single._index).toMatch(/^\.ds-logs-client-\d{4}\.\d{2}\.\d{2}-000001$/);

    const got = await client.indices.getDataStream({ name: 'logs-client' });
    expect(got.data_streams).toHaveLength(1);
    const ds = got.data_streams[0];
    expect(ds).toMatchObject({ name: 'logs-client', timestamp_field: { name: '@timestamp' }, generation: 1, template: 'logs-template', ilm_policy: 'logs-policy', hidden: false });
    expect(ds.indices[0].index_name).toBe(single._index);

    const search = await client.search({ index: 'logs-client', query: { wildcard: { message: '*index.html*' } }, size: 0 });
    expect(search.hits.total).toEqual({ value: 120, relation: 'eq' });
    expect((await client.count({ index: 'logs-client' })).count).toBe(121);

    const rolled = await client.indices.rollover({ alias: 'logs-client' });
    expect(rolled).toMatchObject({ acknowledged: true, rolled_over: true, old_index: single._index });
    expect(rolled.new_index).toMatch(/^\.ds-logs-client-\d{4}\.\d{2}\.\d{2}-000002$/);
    const after = await client.index({ index: 'logs-client', op_type: 'create', document: { '@timestamp': '2099-05-07T00:00:00Z', message: 'after rollover' }, refresh: true });
    expect(after._index).toBe(rolled.new_index);
    expect((await client.count({ index: 'logs-client' })).count).toBe(122);

    const explain = await client.ilm.explainLifecycle({ index: 'logs-client' });
    expect(Object.keys(explain.indices).sort()).toEqual([rolled.new_index, single._index].sort());
    expect(explain.indices[single._index]).toMatchObject({ managed: true, policy: 'logs-policy' });

    const stats = await client.indices.dataStreamsStats({ name: 'logs-client' });
    expect(stats).toMatchObject({ data_stream_count: 1, backing_indices: 2 });

    expect(await client.indices.deleteDataStream({ name: 'logs-client' })).toEqual({ acknowledged: true });
    expect((await client.indices.getDataStream({ name: '*' })).data_streams).toEqual([]);
    expect(await client.indices.exists({ index: single._index })).toBe(false);
  });

  it('migrates an alias to a data stream', async () => {
    await client.indices.create({ index: 'app-logs-000001', mappings: { properties: { '@timestamp': { type: 'date' } } }, aliases: { 'app-logs': { is_write_index: true } } });
    await client.index({ index: 'app-logs', document: { '@timestamp': '2099-01-01T00:00:00Z', n: 1 }, refresh: true });
    await client.indices.putIndexTemplate({ name: 'app-logs', index_patterns: ['app-logs*'], data_stream: {}, priority: 200 });
    expect(await client.indices.migrateToDataStream({ name: 'app-logs' })).toEqual({ acknowledged: true });
    const ds = (await client.indices.getDataStream({ name: 'app-logs' })).data_streams[0];
    expect(ds.indices.map((i) => i.index_name)).toEqual(['app-logs-000001']);
    await expect(client.index({ index: 'app-logs', id: 'x', document: { '@timestamp': '2099-01-01T00:00:00Z' } })).rejects.toMatchObject({
      meta: { statusCode: 400, body: { error: { reason: 'only write ops with an op_type of create are allowed in data streams' } } },
    });
    await client.index({ index: 'app-logs', document: { '@timestamp': '2099-01-02T00:00:00Z', n: 2 }, refresh: true });
    expect((await client.count({ index: 'app-logs' })).count).toBe(2);
    expect(await client.indices.deleteDataStream({ name: 'app-logs' })).toEqual({ acknowledged: true });
  });

  it('snapshot, delete and restore an index with the client', async () => {
    await client.snapshot.createRepository({ name: 'backups', repository: { type: 'fs', settings: { location: 'client' } } });
    await client.helpers.bulk({ datasource: Array.from({ length: 300 }, (_, i) => ({ n: i })), onDocument: () => ({ index: { _index: 'keep' } }), refreshOnCompletion: 'keep' });
    const snap = await client.snapshot.create({ repository: 'backups', snapshot: 'nightly', indices: 'keep', wait_for_completion: true });
    expect(snap.snapshot?.state).toBe('SUCCESS');
    await client.indices.delete({ index: 'keep' });
    const restored = await client.snapshot.restore({ repository: 'backups', snapshot: 'nightly', wait_for_completion: true });
    expect(restored.snapshot?.indices).toEqual(['keep']);
    expect((await client.count({ index: 'keep' })).count).toBe(300);
    const list = await client.snapshot.get({ repository: 'backups', snapshot: '*' });
    expect(list.snapshots?.map((s) => s.snapshot)).toEqual(['nightly']);
    expect(await client.snapshot.delete({ repository: 'backups', snapshot: 'nightly' })).toEqual({ acknowledged: true });
  });
});
