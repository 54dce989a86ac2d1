import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApiTestNode, NDJSON, type ApiTestNode } from '../testing/api-test-node.js';

function bulkBody(from: number, to: number, extra: Record<string, unknown> = {}): string {
  const lines: string[] = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify({ index: { _id: `d${i}` } }), JSON.stringify({ n: i, body: `text number ${i}`, ...extra }));
  return lines.join('\n') + '\n';
}

describe('snapshot repositories and snapshots', () => {
  let repoRoot: string;
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, ct?: string) => api.call(method, path, body, ct);

  beforeAll(async () => {
    repoRoot = mkdtempSync(join(tmpdir(), 'strata-repo-'));
    api = await startApiTestNode({ prefix: 'strata-snap-', settings: { 'path.repo': repoRoot } });
  });
  afterAll(async () => {
    await api.close();
    rmSync(repoRoot, { recursive: true, force: true });
  });

  it('registers fs repositories under path.repo only', async () => {
    const outside = await call('PUT', '/_snapshot/bad', { type: 'fs', settings: { location: '/definitely/elsewhere' } });
    expect(outside.status).toBe(500);
    expect(outside.body.error).toMatchObject({ type: 'repository_exception', reason: "[bad] location [/definitely/elsewhere] doesn't match any of the locations specified by path.repo" });
    const noLoc = await call('PUT', '/_snapshot/bad', { type: 'fs', settings: {} });
    expect(noLoc.body.error.reason).toBe('[bad] missing location');
    const badType = await call('PUT', '/_snapshot/bad', { type: 'nope', settings: {} });
    expect(badType.body.error.reason).toBe('[bad] repository type [nope] does not exist');
    expect((await call('PUT', '/_snapshot/repo', { type: 'fs', settings: { location: 'one', compress: true } })).body).toEqual({ acknowledged: true });
    expect((await call('GET', '/_snapshot/repo')).body).toEqual({ repo: { type: 'fs', settings: { location: 'one', compress: 'true' } } });
    const missing = await call('GET', '/_snapshot/none');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'repository_missing_exception', reason: '[none] missing' });
    const verify = await call('POST', '/_snapshot/repo/_verify');
    expect(Object.keys(verify.body.nodes)).toHaveLength(1);
  });

  it('snapshot → delete the index → restore gives back every document; a second snapshot is incremental', async () => {
    await call('PUT', '/books', { settings: { number_of_shards: 2, number_of_replicas: 0 }, mappings: { properties: { n: { type: 'long' }, body: { type: 'text' } } }, aliases: { library: {} } });
    expect((await call('POST', '/books/_bulk?refresh=true', bulkBody(0, 500), NDJSON)).body.errors).toBe(false);
    const s1 = await call('PUT', '/_snapshot/repo/snap-1?wait_for_completion=true', { indices: 'books', metadata: { who: 'test' } });
    expect(s1.status).toBe(200);
    expect(s1.body.snapshot).toMatchObject({ snapshot: 'snap-1', repository: 'repo', indices: ['books'], state: 'SUCCESS', metadata: { who: 'test' }, shards: { total: 2, failed: 0, successful: 2 } });
    const dup = await call('PUT', '/_snapshot/repo/snap-1?wait_for_completion=true');
    expect(dup.body.error).toMatchObject({ type: 'invalid_snapshot_name_exception', reason: '[repo:snap-1] Invalid snapshot name [snap-1], snapshot with the same name already exists' });
    const upper = await call('PUT', '/_snapshot/repo/Snap');
    expect(upper.body.error.reason).toBe('[repo:Snap] Invalid snapshot name [Snap], must be lowercase');

    // a few more documents: the second snapshot copies only the new segments
    expect((await call('POST', '/books/_bulk?refresh=true', bulkBody(500, 520), NDJSON)).body.errors).toBe(false);
    expect((await call('PUT', '/_snapshot/repo/snap-2?wait_for_completion=true', { indices: ['books'] })).body.snapshot.state).toBe('SUCCESS');
    const st = await call('GET', '/_snapshot/repo/snap-2/_status');
    const stats = st.body.snapshots[0].stats;
    expect(st.body.snapshots[0]).toMatchObject({ snapshot: 'snap-2', state: 'SUCCESS', shards_stats: { done: 2, failed: 0, total: 2 } });
    expect(stats.incremental.file_count).toBeGreaterThan(0);
    expect(stats.incremental.file_count).toBeLessThan(stats.total.file_count);
    expect(stats.incremental.size_in_bytes).toBeLessThan(stats.total.size_in_bytes);

    const list = await call('GET', '/_snapshot/repo/_all');
    expect(list.body.snapshots.map((s: { snapshot: string }) => s.snapshot)).toEqual(['snap-1', 'snap-2']);
    expect(list.body.total).toBe(2);
    expect((await call('GET', '/_snapshot/repo/snap-*?verbose=false')).body.snapshots[0]).toEqual({
      snapshot: 'snap-1',
      uuid: s1.body.snapshot.uuid,
      repository: 'repo',
      indices: ['books'],
      data_streams: [],
      state: 'SUCCESS',
    });
    expect((await call('GET', '/_snapshot/repo/nope')).body.error).toMatchObject({ type: 'snapshot_missing_exception', reason: '[repo:nope] is missing' });

    const exists = await call('POST', '/_snapshot/repo/snap-1/_restore?wait_for_completion=true');
    expect(exists.status).toBe(500);
    expect(exists.body.error.type).toBe('snapshot_restore_exception');
    expect((await call('DELETE', '/books')).status).toBe(200);
    const r1 = await call('POST', '/_snapshot/repo/snap-1/_restore?wait_for_completion=true');
    expect(r1.body).toEqual({ snapshot: { snapshot: 'snap-1', indices: ['books'], shards: { total: 2, failed: 0, successful: 2 } } });
    expect((await call('GET', '/books/_count')).body.count).toBe(500);
    for (const id of ['d0', 'd250', 'd499']) expect((await call('GET', `/books/_doc/${id}`)).body._source.n).toBe(Number(id.slice(1)));
    expect((await call('GET', '/library/_count')).body.count).toBe(500);
    expect((await call('GET', '/books/_search?q=body:number')).body.hits.total.value).toBe(500);
    // the restored index takes writes
    expect((await call('PUT', '/books/_doc/after?refresh=true', { n: -1 })).status).toBe(201);
    // snap-2 under another name, aliases left out, a setting changed
    const r2 = await call('POST', '/_snapshot/repo/snap-2/_restore?wait_for_completion=true', {
      indices: 'books',
      rename_pattern: 'b(.+)',
      rename_replacement: 'copy-of-b$1',
      include_aliases: false,
      index_settings: { 'index.number_of_replicas': 0, 'index.refresh_interval': '7s' },
    });
    expect(r2.body.snapshot.indices).toEqual(['copy-of-books']);
    expect((await call('GET', '/copy-of-books/_count')).body.count).toBe(520);
    const cs = (await call('GET', '/copy-of-books')).body['copy-of-books'];
    expect(cs.aliases).toEqual({});
    expect(cs.settings.index.refresh_interval).toBe('7s');
  });

  it('include_global_state: persistent settings come back only when asked for', async () => {
    expect((await call('PUT', '/_cluster/settings', { persistent: { 'cluster.max_shards_per_node': 500 } })).status).toBe(200);
    expect((await call('PUT', '/_snapshot/repo/global?wait_for_completion=true', { indices: 'books', include_global_state: true })).body.snapshot.include_global_state).toBe(true);
    await call('PUT', '/_cluster/settings', { persistent: { 'cluster.max_shards_per_node': 700 } });
    const setting = async () => (await call('GET', '/_cluster/settings')).body.persistent.cluster.max_shards_per_node;
    await call('POST', '/_snapshot/repo/global/_restore?wait_for_completion=true', { indices: 'books', rename_pattern: 'books', rename_replacement: 'books-g1' });
    expect(await setting()).toBe('700');
    await call('POST', '/_snapshot/repo/global/_restore?wait_for_completion=true', { indices: 'books', rename_pattern: 'books', rename_replacement: 'books-g2', include_global_state: true });
    expect(await setting()).toBe('500');
    for (const n of ['books-g1', 'books-g2']) await call('DELETE', `/${n}`);
    expect((await call('DELETE', '/_snapshot/repo/global')).status).toBe(200);
  });

  it('deleting a snapshot keeps the blobs a remaining snapshot still uses', async () => {
    expect((await call('DELETE', '/_snapshot/repo/snap-1')).body).toEqual({ acknowledged: true });
    expect((await call('DELETE', '/_snapshot/repo/snap-1')).status).toBe(404);
    await call('DELETE', '/copy-of-books');
    const r = await call('POST', '/_snapshot/repo/snap-2/_restore?wait_for_completion=true', { indices: 'books', rename_pattern: 'books', rename_replacement: 'books2' });
    expect(r.status).toBe(200);
    expect((await call('GET', '/books2/_count')).body.count).toBe(520);
    const cleanup = await call('POST', '/_snapshot/repo/_cleanup');
    expect(cleanup.body).toEqual({ results: { deleted_bytes: 0, deleted_blobs: 0 } });
  });

  it('a snapshot is the point in time it was started at while indexing continues', async () => {
    await call('PUT', '/live', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    expect((await call('POST', '/live/_bulk', bulkBody(0, 2000), NDJSON)).body.errors).toBe(false);
    // accepted once every shard's commit is held; the later writes are not part of it
    const started = await call('PUT', '/_snapshot/repo/pit', { indices: 'live' });
    expect(started.body).toEqual({ accepted: true });
    const writes: Array<Promise<unknown>> = [];
    for (let b = 0; b < 10; b++) writes.push(call('POST', '/live/_bulk?refresh=true', bulkBody(2000 + b * 100, 2100 + b * 100), NDJSON));
    writes.push(call('POST', '/live/_forcemerge?max_num_segments=1'));
    await Promise.all(writes);
    let done = false;
    for (let i = 0; i < 200 && !done; i++) {
      const s = await call('GET', '/_snapshot/repo/pit');
      done = s.body.snapshots?.[0]?.state === 'SUCCESS';
      if (!done) await new Promise((r) => setTimeout(r, 20));
    }
    expect(done).toBe(true);
    await call('POST', '/_snapshot/repo/pit/_restore?wait_for_completion=true', { rename_pattern: 'live', rename_replacement: 'live-pit' });
    expect((await call('GET', '/live-pit/_count')).body.count).toBe(2000);
    expect((await call('GET', '/live/_count')).body.count).toBe(3000);
    // 3,000 documents, a force merge, a snapshot and a restore: more than jest's default 5 s on a loaded machine
  }, 30_000);

  it('mounts a snapshot: full copy and served from the repository, read-only', async () => {
    const full = await call('POST', '/_snapshot/repo/snap-2/_mount?wait_for_completion=true', { index: 'books', renamed_index: 'restored-books' });
    expect(full.body).toEqual({ snapshot: { snapshot: 'snap-2', indices: ['restored-books'], shards: { total: 2, failed: 0, successful: 2 } } });
    const partial = await call('POST', '/_snapshot/repo/snap-2/_mount?wait_for_completion=true&storage=shared_cache', { index: 'books', renamed_index: 'partial-books' });
    expect(partial.status).toBe(200);
    for (const n of ['restored-books', 'partial-books']) {
      expect((await call('GET', `/${n}/_count`)).body.count).toBe(520);
      const s = (await call('GET', `/${n}/_settings?flat_settings`)).body[n].settings;
      expect(s['index.store.type']).toBe('snapshot');
      expect(s['index.store.snapshot.snapshot_name']).toBe('snap-2');
      expect(s['index.store.snapshot.partial']).toBe(n === 'partial-books' ? 'true' : 'false');
      const w = await call('PUT', `/${n}/_doc/x`, { n: 1 });
      expect(w.status).toBe(403);
      expect(w.body.error.type).toBe('cluster_block_exception');
    }
    const del = await call('DELETE', '/_snapshot/repo/snap-2');
    expect(del.status).toBe(400);
    expect(del.body.error.type).toBe('snapshot_in_use_deletion_exception');
    const delRepo = await call('DELETE', '/_snapshot/repo');
    expect(delRepo.status).toBe(400);
  });

  it('restores into an empty node from the same repository, and survives restarts there', async () => {
    const empty = await startApiTestNode({ prefix: 'strata-snap-empty-', settings: { 'path.repo': repoRoot } });
    try {
      expect((await empty.call('PUT', '/_snapshot/repo', { type: 'fs', settings: { location: 'one', readonly: true } })).status).toBe(200);
      const list = await empty.call('GET', '/_snapshot/repo/*');
      expect(list.body.snapshots.map((s: { snapshot: string }) => s.snapshot)).toEqual(['snap-2', 'pit']);
      const r = await empty.call('POST', '/_snapshot/repo/snap-2/_restore?wait_for_completion=true');
      expect(r.body.snapshot.indices).toEqual(['books']);
      expect((await empty.call('GET', '/books/_count')).body.count).toBe(520);
      expect((await empty.call('GET', '/library/_count')).body.count).toBe(520);
    } finally {
      await empty.close();
    }
    // the data directory of the first node only holds indices it knows
    const uuids = readdirSync(join(api.dataPath, 'indices'));
    const md = (await call('GET', '/_cluster/state/metadata')).body.metadata.indices as Record<string, { settings: { index: { uuid: string } } }>;
    expect(uuids.sort()).toEqual(Object.values(md).map((m) => m.settings.index.uuid).sort());
  });
});
