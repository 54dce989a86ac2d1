/**
 * A shard whose files cannot be read (here: a damaged segment) leaves its index in place: health turns red,
 * `_cat/shards` and allocation explain say why, searches return partial results, reads and writes of the
 * shard answer 503 as Elasticsearch does, nothing on disk is touched, deleting the index still works, and
 * `POST /_cluster/reroute?retry_failed=true` opens the shard once its files are good again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/index.js';
import { http } from './helpers.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
const json = { 'Content-Type': 'application/json' };

describe('a shard that fails to open after a restart', () => {
  let dataPath: string;
  let server: RunningServer | undefined;
  const start = async () => (server = await startServer({ port: 0, dataPath, logger: silent, settings: { 'xpack.security.enabled': false } }));
  const stop = async () => {
    await server?.close();
    server = undefined;
  };
  beforeAll(() => (dataPath = mkdtempSync(join(tmpdir(), 'strata-shard-failure-'))));
  afterAll(async () => {
    await stop();
    rmSync(dataPath, { recursive: true, force: true });
  });

  let uuid: string;
  const onShard: string[][] = [[], []];
  let segFile: string;
  let good: Buffer;

  it('is reported red and unassigned, and every API answers as Elasticsearch does', async () => {
    await start();
    let url = server!.url;
    expect((await http(`${url}/t`, { method: 'PUT', headers: json, body: JSON.stringify({ settings: { number_of_shards: 2, number_of_replicas: 0 } }) })).status).toBe(200);
    expect((await http(`${url}/one`, { method: 'PUT', headers: json, body: JSON.stringify({ settings: { number_of_shards: 1, number_of_replicas: 0 } }) })).status).toBe(200);
    const lines: string[] = [];
    for (let i = 0; i < 30; i++) lines.push(JSON.stringify({ index: { _index: 't', _id: `d${i}` } }), JSON.stringify({ n: i }));
    lines.push(JSON.stringify({ index: { _index: 'one', _id: 'x' } }), JSON.stringify({ n: 1 }));
    expect((await http(`${url}/_bulk?refresh=true`, { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body: lines.join('\n') + '\n' })).json.errors).toBe(false);
    for (const s of [0, 1]) {
      const r = await http(`${url}/t/_search?preference=_shards:${s}&size=100`);
      onShard[s] = r.json.hits.hits.map((h: { _id: string }) => h._id).sort();
    }
    expect(onShard[0].length + onShard[1].length).toBe(30);
    expect(onShard[0].length).toBeGreaterThan(0);
    expect(onShard[1].length).toBeGreaterThan(0);
    uuid = (await http(`${url}/t/_settings`)).json.t.settings.index.uuid;
    const oneUuid = (await http(`${url}/one/_settings`)).json.one.settings.index.uuid;
    expect((await http(`${url}/_flush`, { method: 'POST' })).status).toBe(200);
    await stop();

    // damage one byte of shard 1's segment (and of index `one`'s only shard)
    const shardDir = join(dataPath, 'indices', uuid, '1');
    segFile = join(shardDir, readdirSync(shardDir).find((f) => f.endsWith('.seg'))!);
    good = readFileSync(segFile);
    const bad = Buffer.from(good);
    bad[bad.length - 40] ^= 0x10;
    writeFileSync(segFile, bad);
    const oneDir = join(dataPath, 'indices', oneUuid, '0');
    const oneSeg = join(oneDir, readdirSync(oneDir).find((f) => f.endsWith('.seg'))!);
    const oneBad = readFileSync(oneSeg);
    oneBad[oneBad.length - 40] ^= 0x10;
    writeFileSync(oneSeg, oneBad);

    await start();
    url = server!.url;
    // the byte lies in the segment's metadata, which opening a segment checks (data blocks: when read, and by `verify`)
    const reason = `CorruptIndexException: checksum failed for the segment metadata (resource ${segFile})`;

    const health = await http(`${url}/_cluster/health`);
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: 'red', active_primary_shards: 1, active_shards: 1, unassigned_shards: 2, unassigned_primary_shards: 2 });
    const th = await http(`${url}/_cluster/health/t?level=shards`);
    expect(th.json.indices.t).toMatchObject({
      status: 'red',
      active_primary_shards: 1,
      unassigned_shards: 1,
      unassigned_primary_shards: 1,
      shards: {
        '0': { status: 'green', primary_active: true, active_shards: 1, unassigned_shards: 0, unassigned_primary_shards: 0 },
        '1': { status: 'red', primary_active: false, active_shards: 0, unassigned_shards: 1, unassigned_primary_shards: 1 },
      },
    });

    const cat = await http(`${url}/_cat/shards/t?h=index,shard,prirep,state,unassigned.reason&s=shard`);
    expect(cat.text).toBe('t 0 p STARTED\nt 1 p UNASSIGNED ALLOCATION_FAILED\n');
    const catIdx = await http(`${url}/_cat/indices/t?h=health,index,docs.count`);
    expect(catIdx.text).toBe(`red t ${onShard[0].length}\n`);

    const explain = await http(`${url}/_cluster/allocation/explain`, { method: 'POST', headers: json, body: JSON.stringify({ index: 't', shard: 1, primary: true }) });
    expect(explain.status).toBe(200);
    expect(explain.json).toMatchObject({
      index: 't',
      shard: 1,
      primary: true,
      current_state: 'unassigned',
      unassigned_info: { reason: 'ALLOCATION_FAILED', failed_allocation_attempts: 1, last_allocation_status: 'no_valid_shard_copy' },
      can_allocate: 'no_valid_shard_copy',
      node_allocation_decisions: [{ node_decision: 'no', store: { in_sync: true, store_exception: { type: 'corrupt_index_exception', reason } } }],
    });
    expect(explain.json.unassigned_info.details).toContain(reason);
    const anyExplain = await http(`${url}/_cluster/allocation/explain`);
    expect(anyExplain.json).toMatchObject({ index: 'one', shard: 0, primary: true, can_allocate: 'no_valid_shard_copy' });
    expect(anyExplain.json.note).toMatch(/^No shard was specified in the explain API request/);
    const started = await http(`${url}/_cluster/allocation/explain`, { method: 'POST', headers: json, body: JSON.stringify({ index: 't', shard: 0, primary: true }) });
    expect(started.json).toMatchObject({ current_state: 'started', can_remain_on_current_node: 'yes' });

    // searches: the available shard answers, the other one is listed as failed
    const search = await http(`${url}/t/_search?size=100`);
    expect(search.status).toBe(200);
    expect(search.json._shards).toEqual({
      total: 2,
      successful: 1,
      skipped: 0,
      failed: 1,
      failures: [
        {
          shard: 1,
          index: 't',
          node: null,
          reason: { type: 'no_shard_available_action_exception', reason: `[t][1] shard failed to open: ${reason}`, index_uuid: uuid, shard: '1', index: 't' },
        },
      ],
    });
    expect(search.json.hits.hits.map((h: { _id: string }) => h._id).sort()).toEqual(onShard[0]);
    const count = await http(`${url}/t/_count`);
    expect(count.json).toMatchObject({ count: onShard[0].length, _shards: { total: 2, successful: 1, failed: 1 } });
    const strict = await http(`${url}/t/_search?allow_partial_search_results=false`);
    expect(strict.status).toBe(503);
    expect(strict.json.error.type).toBe('search_phase_execution_exception');
    const allFailed = await http(`${url}/one/_search`);
    expect(allFailed.status).toBe(503);
    expect(allFailed.json.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query' });
    expect(allFailed.json.error.root_cause[0].type).toBe('no_shard_available_action_exception');

    // documents: reads and writes on the failed shard answer 503; the other shard works
    const lost = onShard[1][0];
    const get = await http(`${url}/t/_doc/${lost}`);
    expect(get.status).toBe(503);
    expect(get.json.error).toMatchObject({ type: 'no_shard_available_action_exception', reason: `No shard available for [get [t][${lost}]: routing [null]]` });
    expect((await http(`${url}/t/_doc/${onShard[0][0]}`)).json.found).toBe(true);
    const put = await http(`${url}/t/_doc/${lost}`, { method: 'PUT', headers: json, body: '{"n":-1}' });
    expect(put.status).toBe(503);
    expect(put.json.error.type).toBe('unavailable_shards_exception');
    expect(put.json.error.reason).toMatch(/^\[t\]\[1\] primary shard is not active Timeout: \[1m\], request: \[BulkShardRequest \[\[t\]\[1\]\] containing/);
    const bulk = await http(`${url}/t/_bulk`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: [JSON.stringify({ index: { _id: lost } }), '{"n":-1}', JSON.stringify({ index: { _id: onShard[0][0] } }), '{"n":-2}'].join('\n') + '\n',
    });
    expect(bulk.json.errors).toBe(true);
    expect(bulk.json.items.map((i: { index: { status: number; error?: { type: string } } }) => [i.index.status, i.index.error?.type])).toEqual([
      [503, 'unavailable_shards_exception'],
      [200, undefined],
    ]);
    // nothing of shard 1 was touched
    expect(readFileSync(segFile).equals(bad)).toBe(true);

    // deleting an index with a failed shard works
    expect((await http(`${url}/one`, { method: 'DELETE' })).json).toEqual({ acknowledged: true });
    expect((await http(`${url}/one`)).status).toBe(404);
    expect(existsSync(join(dataPath, 'indices', oneUuid))).toBe(false);

    // once the file is good again, a retry opens the shard with every document
    writeFileSync(segFile, good);
    const reroute = await http(`${url}/_cluster/reroute?retry_failed=true&metric=none`, { method: 'POST' });
    expect(reroute.json).toEqual({ acknowledged: true });
    expect((await http(`${url}/_cluster/health`)).json.status).toBe('green');
    expect((await http(`${url}/t/_count`)).json).toMatchObject({ count: 30, _shards: { total: 2, successful: 2, failed: 0 } });
    expect((await http(`${url}/t/_doc/${lost}`)).json._source).toEqual({ n: Number(lost.slice(1)) });
    // a closed index named explicitly is listed by the monitoring APIs, not refused
    expect((await http(`${url}/t/_close`, { method: 'POST' })).json.acknowledged).toBe(true);
    expect((await http(`${url}/_cat/indices/t?h=status,index`)).text).toBe('close t\n');
    const closedHealth = await http(`${url}/_cluster/health/t`);
    expect(closedHealth.status).toBe(200);
    expect(closedHealth.json.status).toBe('green');
    expect((await http(`${url}/t/_open`, { method: 'POST' })).json.acknowledged).toBe(true);
    expect((await http(`${url}/_cluster/allocation/explain`)).json.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: expect.stringMatching(/^unable to find any unassigned shards to explain/),
    });
  });
});
