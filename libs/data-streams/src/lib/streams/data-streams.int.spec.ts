import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, createTestHost, type TestHost } from '@strata/core-testing';
import { EngineTokens } from '@strata/core-engine';
import { dataStreamsFeature } from '../data-streams.module.js';

const DAY = 86_400_000;

async function template(host: TestHost, name = 'logs', patterns = ['logs-*'], extra: Record<string, unknown> = {}): Promise<void> {
  const r = await host.request('PUT', `/_index_template/${name}`, { index_patterns: patterns, data_stream: {}, priority: 500, ...extra });
  expect(r.status).toBe(200);
}

describe('data streams over HTTP', () => {
  let host: TestHost;
  const clock = new ManualClock(Date.UTC(2024, 4, 17, 10));
  beforeAll(async () => {
    host = await createTestHost({ features: [dataStreamsFeature], clock });
    await template(host, 'logs', ['logs-*'], {
      template: { settings: { number_of_replicas: 0 }, mappings: { properties: { msg: { type: 'keyword' } } } },
      _meta: { owner: 'tests' },
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  it('is created by the first op_type create write, with a hidden .ds- backing index as write index', async () => {
    const r = await host.request('POST', '/logs-app/_doc?refresh=true', { '@timestamp': '2024-05-17T10:00:00Z', msg: 'a' });
    expect(r.status).toBe(201);
    expect(r.body._index).toBe('.ds-logs-app-2024.05.17-000001');
    const get = await host.request('GET', '/_data_stream/logs-app');
    const uuid = get.body.data_streams[0].indices[0].index_uuid;
    expect(get.body).toEqual({
      data_streams: [
        {
          name: 'logs-app',
          timestamp_field: { name: '@timestamp' },
          indices: [{ index_name: '.ds-logs-app-2024.05.17-000001', index_uuid: uuid, prefer_ilm: true, managed_by: 'Unmanaged' }],
          generation: 1,
          _meta: { owner: 'tests' },
          status: 'GREEN',
          template: 'logs',
          next_generation_managed_by: 'Unmanaged',
          prefer_ilm: true,
          hidden: false,
          system: false,
          allow_custom_routing: false,
          replicated: false,
          rollover_on_write: false,
        },
      ],
    });
    const idx = await host.request('GET', '/.ds-logs-app-2024.05.17-000001');
    const im = idx.body['.ds-logs-app-2024.05.17-000001'];
    expect(im.settings.index.hidden).toBe('true');
    expect(im.mappings.properties['@timestamp']).toEqual({ type: 'date' });
    expect(im.mappings._data_stream_timestamp).toEqual({ enabled: true });
    // hidden: not matched by a wildcard on index names, reached through the stream name
    expect((await host.request('GET', '/_cat/indices/*-app-*?h=index&expand_wildcards=open')).text).toBe('');
    expect((await host.request('GET', '/_cat/indices/*-app-*?h=index')).text).toBe('.ds-logs-app-2024.05.17-000001\n');
    expect(Object.keys((await host.request('GET', '/logs-app/_settings')).body)).toEqual(['.ds-logs-app-2024.05.17-000001']);
    const search = await host.request('POST', '/logs-app/_search', { query: { term: { msg: 'a' } } });
    expect(search.body.hits.total.value).toBe(1);
    expect(search.body.hits.hits[0]._index).toBe('.ds-logs-app-2024.05.17-000001');
    expect((await host.request('GET', '/logs-*/_count')).body.count).toBe(1);
    expect((await host.request('GET', '/_resolve/index/logs-*')).body).toEqual({
      indices: [],
      aliases: [],
      data_streams: [{ name: 'logs-app', backing_indices: ['.ds-logs-app-2024.05.17-000001'], timestamp_field: '@timestamp' }],
    });
    expect((await host.request('GET', '/_resolve/index/*-app-*?expand_wildcards=all')).body.indices).toEqual([
      { name: '.ds-logs-app-2024.05.17-000001', attributes: ['hidden', 'open'], data_stream: 'logs-app' },
    ]);
  });

  it('refuses non-create writes, writes without a single @timestamp and append-only writes to backing indices', async () => {
    const put = await host.request('PUT', '/logs-app/_doc/1', { '@timestamp': '2024-05-17', msg: 'x' });
    expect(put.status).toBe(400);
    expect(put.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'only write ops with an op_type of create are allowed in data streams' });
    const del = await host.request('DELETE', '/logs-app/_doc/1');
    expect(del.body.error.reason).toBe('only write ops with an op_type of create are allowed in data streams');
    const upd = await host.request('POST', '/logs-app/_update/1', { doc: { msg: 'y' } });
    expect(upd.body.error.reason).toBe('only write ops with an op_type of create are allowed in data streams');
    const bulk = await host.request('POST', '/_bulk', [
      { create: { _index: 'logs-app' } },
      { msg: 'no ts' },
      { create: { _index: 'logs-app' } },
      { '@timestamp': ['2024-05-17', '2024-05-18'] },
      { index: { _index: 'logs-app' } },
      { '@timestamp': '2024-05-17' },
      { create: { _index: '.ds-logs-app-2024.05.17-000001' } },
      { '@timestamp': '2024-05-17' },
      { index: { _index: '.ds-logs-app-2024.05.17-000001', _id: 'q' } },
      { '@timestamp': '2024-05-17' },
      { create: { _index: 'logs-app' } },
      { '@timestamp': '2024-05-17T11:00:00Z', msg: 'ok' },
    ]);
    expect(bulk.body.errors).toBe(true);
    const items = bulk.body.items as Array<Record<string, any>>;
    expect(items[0].create.status).toBe(400);
    expect(items[0].create.error.type).toBe('document_parsing_exception');
    // failed at the backing index, under the id the node generated (as Elasticsearch answers)
    expect(items[0].create._index).toBe('.ds-logs-app-2024.05.17-000001');
    expect(items[0].create._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(items[0].create.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'data stream timestamp field [@timestamp] is missing' });
    expect(items[1].create.error.caused_by.reason).toBe('data stream timestamp field [@timestamp] encountered multiple values');
    expect(items[2].index.error.reason).toBe('only write ops with an op_type of create are allowed in data streams');
    expect(items[3].create.error.reason).toBe(
      'index request with op_type=create targeting backing indices is disallowed, target corresponding data stream [logs-app] instead',
    );
    expect(items[4].index.error.reason).toBe(
      'index request with op_type=index and no if_primary_term and if_seq_no set targeting backing indices is disallowed, target corresponding data stream [logs-app] instead',
    );
    expect(items[5].create).toMatchObject({ status: 201, result: 'created', _index: '.ds-logs-app-2024.05.17-000001' });
    const plain = await host.request('PUT', '/logs-plain');
    expect(plain.status).toBe(400);
    expect(plain.body.error.reason).toBe(
      'cannot create index with name [logs-plain], because it matches with template [logs] that creates data streams only, use create data stream api instead',
    );
  });

  it('rolls over with conditions, dry_run and lazily; the old backing index stays searchable', async () => {
    const notMet = await host.request('POST', '/logs-app/_rollover', { conditions: { max_docs: 100, max_age: '1d' } });
    expect(notMet.body).toEqual({
      acknowledged: false,
      shards_acknowledged: false,
      old_index: '.ds-logs-app-2024.05.17-000001',
      new_index: '.ds-logs-app-2024.05.17-000002',
      rolled_over: false,
      dry_run: false,
      conditions: { '[max_docs: 100]': false, '[max_age: 1d]': false },
    });
    clock.advance(DAY);
    await host.request('POST', '/logs-app/_refresh');
    const dry = await host.request('POST', '/logs-app/_rollover?dry_run', { conditions: { max_age: '1d' } });
    expect(dry.body).toMatchObject({ rolled_over: false, dry_run: true, new_index: '.ds-logs-app-2024.05.18-000002', conditions: { '[max_age: 1d]': true } });
    const minOnly = await host.request('POST', '/logs-app/_rollover', { conditions: { min_docs: 1 } });
    expect(minOnly.status).toBe(400);
    expect(minOnly.body.error.type).toBe('action_request_validation_exception');
    const r = await host.request('POST', '/logs-app/_rollover', { conditions: { max_age: '1d', min_docs: 2 } });
    expect(r.body).toMatchObject({ acknowledged: true, rolled_over: true, old_index: '.ds-logs-app-2024.05.17-000001', new_index: '.ds-logs-app-2024.05.18-000002' });
    const w = await host.request('POST', '/logs-app/_doc', { '@timestamp': '2024-05-18T00:00:00Z', msg: 'b' });
    expect(w.body._index).toBe('.ds-logs-app-2024.05.18-000002');
    await host.request('POST', '/logs-app/_refresh');
    expect((await host.request('GET', '/logs-app/_count')).body.count).toBe(3);
    // the write index cannot be deleted; an older backing index leaves the stream with it
    const delWrite = await host.request('DELETE', '/.ds-logs-app-2024.05.18-000002');
    expect(delWrite.status).toBe(400);
    expect(delWrite.body.error.reason).toBe('index [.ds-logs-app-2024.05.18-000002] is the write index for data stream [logs-app] and cannot be deleted');
    // lazy rollover: marked now, done by the next write
    const lazy = await host.request('POST', '/logs-app/_rollover?lazy');
    expect(lazy.body).toMatchObject({ acknowledged: true, rolled_over: false, lazy: true, new_index: '.ds-logs-app-2024.05.18-000003' });
    expect((await host.request('GET', '/_data_stream/logs-app')).body.data_streams[0].rollover_on_write).toBe(true);
    const after = await host.request('POST', '/logs-app/_doc', { '@timestamp': '2024-05-18T01:00:00Z' });
    expect(after.body._index).toBe('.ds-logs-app-2024.05.18-000003');
    const ds = (await host.request('GET', '/_data_stream/logs-app')).body.data_streams[0];
    expect(ds.generation).toBe(3);
    expect(ds.rollover_on_write).toBe(false);
    expect(ds.indices.map((i: { index_name: string }) => i.index_name)).toEqual([
      '.ds-logs-app-2024.05.17-000001',
      '.ds-logs-app-2024.05.18-000002',
      '.ds-logs-app-2024.05.18-000003',
    ]);
    expect((await host.request('DELETE', '/.ds-logs-app-2024.05.17-000001')).status).toBe(200);
    expect((await host.request('GET', '/_data_stream/logs-app')).body.data_streams[0].indices).toHaveLength(2);
  });

  it('DELETE /<index> does not target data streams: a stream name is not found, wildcards reach backing indices by name', async () => {
    expect((await host.request('PUT', '/_data_stream/logs-del')).status).toBe(200);
    expect((await host.request('POST', '/logs-del/_rollover')).status).toBe(200);
    const backing = async () => (await host.request('GET', '/_data_stream/logs-del')).body.data_streams[0].indices.map((i: { index_name: string }) => i.index_name);
    const [first, write] = await backing();
    // the stream's name: index_not_found_exception (404), as for any missing index; nothing is deleted
    const byName = await host.request('DELETE', '/logs-del');
    expect(byName.status).toBe(404);
    expect(byName.body.error).toMatchObject({ type: 'index_not_found_exception', reason: 'no such index [logs-del]', 'resource.id': 'logs-del', index: 'logs-del' });
    const withOther = await host.request('DELETE', `/${first},logs-del`);
    expect(withOther.status).toBe(404);
    expect(await backing()).toEqual([first, write]);
    expect((await host.request('DELETE', '/logs-del?ignore_unavailable=true')).body).toEqual({ acknowledged: true });
    expect(await backing()).toEqual([first, write]);
    // with wildcards allowed: a pattern naming the stream matches nothing; one matching the write backing index is refused
    expect((await host.request('PUT', '/_cluster/settings', { transient: { 'action.destructive_requires_name': false } })).status).toBe(200);
    try {
      expect((await host.request('DELETE', '/logs-de*')).body).toEqual({ acknowledged: true });
      expect(await backing()).toEqual([first, write]);
      const all = await host.request('DELETE', '/.ds-logs-del-*');
      expect(all.status).toBe(400);
      expect(all.body.error.reason).toBe(`index [${write}] is the write index for data stream [logs-del] and cannot be deleted`);
      expect(await backing()).toEqual([first, write]);
      // an older backing index, by its own name, leaves the stream
      expect((await host.request('DELETE', `/${first}`)).body).toEqual({ acknowledged: true });
      expect(await backing()).toEqual([write]);
    } finally {
      await host.request('PUT', '/_cluster/settings', { transient: { 'action.destructive_requires_name': null } });
    }
    expect((await host.request('DELETE', '/_data_stream/logs-del')).status).toBe(200);
  });

  it('rolls over an alias with a write index, numbering the new index', async () => {
    await host.request('PUT', '/app-000001', { aliases: { app: { is_write_index: true } } });
    await host.request('POST', '/app/_doc?refresh=true', { n: 1 });
    const r = await host.request('POST', '/app/_rollover', { conditions: { max_docs: 1 } });
    expect(r.body).toMatchObject({ rolled_over: true, old_index: 'app-000001', new_index: 'app-000002' });
    const aliases = await host.request('GET', '/_alias/app');
    expect(aliases.body).toEqual({ 'app-000001': { aliases: { app: { is_write_index: false } } }, 'app-000002': { aliases: { app: { is_write_index: true } } } });
    const w = await host.request('POST', '/app/_doc', { n: 2 });
    expect(w.body._index).toBe('app-000002');
    const bad = await host.request('POST', '/app-000002/_rollover');
    expect(bad.status).toBe(400);
    expect(bad.body.error.reason).toBe('rollover target is a [concrete index] but one of [alias,data_stream] was expected');
  });

  it('migrates an alias to a data stream (section 3.4) and refuses what ES refuses', async () => {
    await host.request('PUT', '/mig-000001', { mappings: { properties: { '@timestamp': { type: 'date' } } }, aliases: { mig: { is_write_index: false } } });
    await host.request('PUT', '/mig-000002', { mappings: { properties: { '@timestamp': { type: 'date' } } }, aliases: { mig: { is_write_index: true } } });
    await host.request('POST', '/mig/_doc?refresh=true', { '@timestamp': '2024-05-18' });
    const noTpl = await host.request('POST', '/_data_stream/_migrate/mig');
    expect(noTpl.status).toBe(400);
    expect(noTpl.body.error.reason).toBe('no matching index template found for data stream [mig]');
    await template(host, 'mig', ['mig*']);
    await host.request('PUT', '/filtered-1', { aliases: { filtered: { is_write_index: true, filter: { term: { a: 1 } } } } });
    const filtered = await host.request('POST', '/_data_stream/_migrate/filtered');
    expect(filtered.body.error.reason).toBe('alias [filtered] may not have custom filtering or routing');
    await host.request('PUT', '/nowrite-1', { aliases: { nowrite: {} } });
    await host.request('PUT', '/nowrite-2', { aliases: { nowrite: {} } });
    const nowrite = await host.request('POST', '/_data_stream/_migrate/nowrite');
    expect(nowrite.body.error.reason).toBe('alias [nowrite] must specify a write index');
    const ok = await host.request('POST', '/_data_stream/_migrate/mig');
    expect(ok.body).toEqual({ acknowledged: true });
    const ds = (await host.request('GET', '/_data_stream/mig')).body.data_streams[0];
    expect(ds.indices.map((i: { index_name: string }) => i.index_name)).toEqual(['mig-000001', 'mig-000002']);
    expect(ds.generation).toBe(2);
    expect((await host.request('GET', '/mig-000001/_settings')).body['mig-000001'].settings.index.hidden).toBe('true');
    expect((await host.request('GET', '/_alias/mig')).status).toBe(404);
    const w = await host.request('POST', '/mig/_doc', { '@timestamp': '2024-05-18' });
    expect(w.body._index).toBe('mig-000002');
    const roll = await host.request('POST', '/mig/_rollover');
    expect(roll.body.new_index).toBe('.ds-mig-2024.05.18-000003');
  });

  it('modify, stats, lifecycle, get with wildcards and expand_wildcards, delete', async () => {
    await template(host, 'hidden', ['hid-*'], { data_stream: { hidden: true } });
    expect((await host.request('PUT', '/_data_stream/hid-one')).body).toEqual({ acknowledged: true });
    const dup = await host.request('PUT', '/_data_stream/hid-one');
    expect(dup.body.error).toMatchObject({ type: 'resource_already_exists_exception', reason: 'data_stream [hid-one] already exists' });
    const bad = await host.request('PUT', '/_data_stream/bad%23name');
    expect(bad.body.error.reason).toBe("data_stream [bad#name] must not contain '#'");
    const upper = await host.request('PUT', '/_data_stream/Logs-x');
    expect(upper.body.error.reason).toBe('data_stream [Logs-x] must be lowercase');
    const noTpl = await host.request('PUT', '/_data_stream/nomatch');
    expect(noTpl.body.error.reason).toBe('no matching index template found for data stream [nomatch]');
    const names = (b: any) => b.data_streams.map((d: { name: string }) => d.name);
    expect(names((await host.request('GET', '/_data_stream/*')).body)).toEqual(['logs-app', 'mig']);
    expect(names((await host.request('GET', '/_data_stream/*?expand_wildcards=all')).body)).toEqual(['hid-one', 'logs-app', 'mig']);
    expect(names((await host.request('GET', '/_data_stream/hid-one')).body)).toEqual(['hid-one']);
    const missing = await host.request('GET', '/_data_stream/nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('index_not_found_exception');
    expect((await host.request('GET', '/_data_stream/nope*')).body).toEqual({ data_streams: [] });

    // modify: a plain index joins at the front, the write index cannot leave
    await host.request('PUT', '/old-logs', { mappings: { properties: { '@timestamp': { type: 'date' } } } });
    const add = await host.request('POST', '/_data_stream/_modify', { actions: [{ add_backing_index: { data_stream: 'logs-app', index: 'old-logs' } }] });
    expect(add.body).toEqual({ acknowledged: true });
    const ds = (await host.request('GET', '/_data_stream/logs-app')).body.data_streams[0];
    expect(ds.indices[0].index_name).toBe('old-logs');
    const rmWrite = await host.request('POST', '/_data_stream/_modify', { actions: [{ remove_backing_index: { data_stream: 'logs-app', index: ds.indices[ds.indices.length - 1].index_name } }] });
    expect(rmWrite.body.error.reason).toBe(`cannot remove backing index [${ds.indices[ds.indices.length - 1].index_name}] of data stream [logs-app] because it is the write index`);
    expect((await host.request('POST', '/_data_stream/_modify', { actions: [{ remove_backing_index: { data_stream: 'logs-app', index: 'old-logs' } }] })).status).toBe(200);

    await host.request('POST', '/logs-app/_refresh');
    const stats = await host.request('GET', '/_data_stream/logs-app/_stats');
    expect(stats.body.data_stream_count).toBe(1);
    expect(stats.body.data_streams[0]).toMatchObject({ data_stream: 'logs-app', backing_indices: 2, maximum_timestamp: Date.UTC(2024, 4, 18, 1) });
    expect(stats.body.data_streams[0].store_size_bytes).toBeGreaterThan(0);

    expect((await host.request('PUT', '/_data_stream/logs-app/_lifecycle', { data_retention: '7d' })).body).toEqual({ acknowledged: true });
    expect((await host.request('GET', '/_data_stream/logs-app/_lifecycle')).body).toEqual({
      data_streams: [{ name: 'logs-app', lifecycle: { enabled: true, data_retention: '7d', effective_retention: '7d', retention_determined_by: 'data_stream_configuration' } }],
    });
    expect((await host.request('GET', '/_data_stream/logs-app')).body.data_streams[0].next_generation_managed_by).toBe('Data stream lifecycle');
    expect((await host.request('DELETE', '/_data_stream/logs-app/_lifecycle')).status).toBe(200);

    // the template of a stream cannot go while the stream exists
    const delTpl = await host.request('DELETE', '/_index_template/hidden');
    expect(delTpl.body.error.reason).toBe('unable to remove composable templates [hidden] as they are in use by a data streams [hid-one]');
    expect((await host.request('DELETE', '/_data_stream/nope')).status).toBe(404);
    expect((await host.request('DELETE', '/_data_stream/nothing*')).body).toEqual({ acknowledged: true });
    expect((await host.request('DELETE', '/_data_stream/hid-*?expand_wildcards=all')).body).toEqual({ acknowledged: true });
    expect((await host.request('GET', '/_cat/indices?h=index&expand_wildcards=all')).text).not.toContain('hid-one');
    expect((await host.request('DELETE', '/_index_template/hidden')).status).toBe(200);
  });
});

describe('data streams in snapshots and templates with allow_auto_create', () => {
  it('a snapshot of a data stream restores the stream with its backing indices', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'strata-ds-repo-'));
    const host = await createTestHost({ features: [dataStreamsFeature], settings: { 'path.repo': repo } });
    try {
      await template(host);
      await host.request('PUT', '/_snapshot/r', { type: 'fs', settings: { location: 'r' } });
      for (let i = 0; i < 5; i++) await host.request('POST', '/logs-snap/_doc', { '@timestamp': '2024-03-01', i });
      await host.request('POST', '/logs-snap/_rollover');
      for (let i = 5; i < 8; i++) await host.request('POST', '/logs-snap/_doc', { '@timestamp': '2024-03-02', i });
      const before = (await host.request('GET', '/_data_stream/logs-snap')).body.data_streams[0].indices.map((b: { index_name: string }) => b.index_name);
      const snap = await host.request('PUT', '/_snapshot/r/s1?wait_for_completion=true', { indices: 'logs-snap' });
      expect(snap.body.snapshot).toMatchObject({ data_streams: ['logs-snap'], indices: [...before].sort(), state: 'SUCCESS' });
      expect((await host.request('DELETE', '/_data_stream/logs-snap')).status).toBe(200);
      const restored = await host.request('POST', '/_snapshot/r/s1/_restore?wait_for_completion=true', { indices: 'logs-snap' });
      expect(restored.body.snapshot.indices.sort()).toEqual([...before].sort());
      const ds = (await host.request('GET', '/_data_stream/logs-snap')).body.data_streams[0];
      expect(ds.indices.map((b: { index_name: string }) => b.index_name)).toEqual(before);
      expect(ds.generation).toBe(2);
      await host.request('POST', '/logs-snap/_refresh');
      expect((await host.request('GET', '/logs-snap/_count')).body.count).toBe(8);
      expect((await host.request('POST', '/logs-snap/_doc', { '@timestamp': '2024-03-03' })).body._index).toBe(before[1]);
      // restored under another name: the stream and its backing indices are renamed
      const renamed = await host.request('POST', '/_snapshot/r/s1/_restore?wait_for_completion=true', { indices: 'logs-snap', rename_pattern: 'logs-snap', rename_replacement: 'logs-copy' });
      expect(renamed.status).toBe(200);
      const copy = (await host.request('GET', '/_data_stream/logs-copy')).body.data_streams[0];
      expect(copy.indices.map((b: { index_name: string }) => b.index_name)).toEqual(before.map((n: string) => n.replace('logs-snap', 'logs-copy')));
    } finally {
      await host.close();
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it('allow_auto_create of a composable template overrides action.auto_create_index', async () => {
    const host = await createTestHost({ features: [dataStreamsFeature] });
    try {
      await host.request('PUT', '/_cluster/settings', { persistent: { 'action.auto_create_index': 'false' } });
      await host.request('PUT', '/_index_template/yes', { index_patterns: ['yes-*'], allow_auto_create: true });
      await host.request('PUT', '/_index_template/no', { index_patterns: ['no-*'], allow_auto_create: false });
      expect((await host.request('PUT', '/yes-1/_doc/1', { a: 1 })).status).toBe(201);
      const no = await host.request('PUT', '/no-1/_doc/1', { a: 1 });
      expect(no.status).toBe(404);
      expect(no.body.error.reason).toBe('no such index [no-1] and composable template [no] forbids index auto creation');
      expect((await host.request('PUT', '/other/_doc/1', { a: 1 })).status).toBe(404);
    } finally {
      await host.close();
    }
  });
});

describe('data streams persist across restarts', () => {
  it('keeps streams, generations and documents after a graceful restart', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'strata-ds-'));
    try {
      let host = await createTestHost({ features: [dataStreamsFeature], settings: { 'path.data': dataPath }, keepData: true });
      await template(host);
      for (let i = 0; i < 10; i++) await host.request('POST', '/logs-r/_doc', { '@timestamp': `2024-01-0${(i % 9) + 1}`, n: i });
      await host.request('POST', '/logs-r/_rollover');
      for (let i = 10; i < 15; i++) await host.request('POST', '/logs-r/_doc', { '@timestamp': '2024-02-01', n: i });
      const before = (await host.request('GET', '/_data_stream/logs-r')).body;
      await host.close();
      host = await createTestHost({ features: [dataStreamsFeature], settings: { 'path.data': dataPath }, keepData: true });
      expect((await host.request('GET', '/_data_stream/logs-r')).body).toEqual(before);
      await host.request('POST', '/logs-r/_refresh');
      expect((await host.request('GET', '/logs-r/_count')).body.count).toBe(15);
      const w = await host.request('POST', '/logs-r/_doc', { '@timestamp': '2024-02-02' });
      expect(w.body._index).toBe(before.data_streams[0].indices[1].index_name);
      await host.close();
    } finally {
      rmSync(dataPath, { recursive: true, force: true });
    }
  });
});

describe('data streams and bulk documents parsed in threads', () => {
  it('a large bulk into a data stream: each document is read (its @timestamp) from the packed source line, as on the event loop', async () => {
    const host = await createTestHost({ features: [dataStreamsFeature], settings: { 'thread_pool.bulk_parse.size': 1 } });
    try {
      await template(host, 'logs', ['logs-*'], { template: { mappings: { properties: { msg: { type: 'keyword' }, n: { type: 'long' } } } } });
      // the stream exists before the bulk: its write index is known when the bulk's documents are sent ahead
      expect((await host.request('PUT', '/_data_stream/logs-bulk')).status).toBe(200);
      const lines: string[] = [];
      for (let i = 0; i < 400; i++) {
        lines.push(JSON.stringify({ create: {} }));
        // every 50th without a timestamp: the item fails as the interceptor finds none
        lines.push(JSON.stringify(i % 50 === 7 ? { msg: `m${i}`, n: i } : { '@timestamp': `2024-05-17T10:${String(i % 60).padStart(2, '0')}:00Z`, msg: `m${i}`, n: i }));
      }
      const r = await host.request('POST', '/logs-bulk/_bulk?refresh=true', lines.join('\n') + '\n', { 'content-type': 'application/x-ndjson' });
      expect(r.status).toBe(200);
      const items = r.body.items as Array<{ create: { status: number; _index: string; _id: string; error?: { type: string; reason: string } } }>;
      const failed = items.map((it, i) => [i, it.create] as const).filter(([, c]) => c.status !== 201);
      expect(failed.map(([i]) => i)).toEqual([7, 57, 107, 157, 207, 257, 307, 357]);
      expect(failed[0]![1].error?.type).toBe('document_parsing_exception');
      expect(failed[0]![1].error?.reason).toContain('data stream timestamp field [@timestamp] is missing');
      const ok = items[8]!.create;
      expect(ok._index).toMatch(/^\.ds-logs-bulk-/);
      const got = await host.request('GET', `/${ok._index}/_doc/${ok._id}`);
      expect(got.body._source).toEqual({ '@timestamp': '2024-05-17T10:08:00Z', msg: 'm8', n: 8 });
      const count = await host.request('GET', '/logs-bulk/_count?q=msg:m399');
      expect(count.body.count).toBe(1);
      expect((await host.request('GET', '/logs-bulk/_count')).body.count).toBe(392);
      // the documents went through a parse thread
      const pool = host.node.container.get<{ mergePool: { parsedDocs: number } | null }>(EngineTokens.IndicesService).mergePool;
      expect(pool?.parsedDocs).toBeGreaterThanOrEqual(392);
    } finally {
      await host.close();
    }
  }, 60_000);
});
