/**
 * The flood-stage disk watermark: past it every index gets `index.blocks.read_only_allow_delete` (writes
 * answer 429 cluster_block_exception, deletes of whole indices still work), under the high watermark the
 * block is lifted again. A test feature swaps the disk-usage probe for one the test controls.
 */
import { ContainerModule } from 'inversify';
import type { FeatureModule } from '@strata/core-common';
import { DiskThresholdMonitor, EngineTokens, type DiskUsage, type DiskUsageProbe } from '@strata/core-engine';
import { DEFAULT_FEATURES } from '../../src/app/features.js';
import { http, startE2eHost, type E2eHost } from './helpers.js';

const GB = 1024 ** 3;
const disk: DiskUsage = { totalBytes: 100 * GB, availableBytes: 50 * GB };
const fakeProbe: DiskUsageProbe = { usage: () => ({ ...disk }) };
const fakeDisk: FeatureModule = {
  name: 'test-fake-disk',
  module: new ContainerModule((o) => {
    o.rebind(EngineTokens.DiskUsageProbe).toConstantValue(fakeProbe);
  }),
};

const send = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

const BLOCKED = {
  error: {
    root_cause: [{ type: 'cluster_block_exception', reason: 'index [logs] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];' }],
    type: 'cluster_block_exception',
    reason: 'index [logs] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];',
  },
  status: 429,
};

describe('flood-stage disk watermark', () => {
  let host: E2eHost;
  let monitor: DiskThresholdMonitor;
  const blockOf = async (index: string): Promise<unknown> =>
    (await http(`${host.url}/${index}/_settings/index.blocks.read_only_allow_delete?flat_settings=true`)).json[index]?.settings['index.blocks.read_only_allow_delete'];
  const setDisk = async (availableGb: number, totalGb = 100): Promise<void> => {
    disk.totalBytes = totalGb * GB;
    disk.availableBytes = availableGb * GB;
    await monitor.check();
  };

  beforeAll(async () => {
    host = await startE2eHost({}, [...DEFAULT_FEATURES, fakeDisk]);
    monitor = host.server.node.container.get(DiskThresholdMonitor);
    expect((await http(`${host.url}/logs/_doc/1?refresh=true`, send('PUT', { msg: 'before' }))).status).toBe(201);
    expect((await http(`${host.url}/other`, send('PUT'))).status).toBe(200);
  });
  afterAll(() => host.close());

  it('blocks every index past 95% (the default) and lifts the block under 90%', async () => {
    await setDisk(50);
    expect(await blockOf('logs')).toBeUndefined();
    await setDisk(4); // 96% used
    expect(await blockOf('logs')).toBe('true');
    expect(await blockOf('other')).toBe('true');
    const write = await http(`${host.url}/logs/_doc/2`, send('PUT', { msg: 'while full' }));
    expect(write.status).toBe(429);
    expect(write.json).toEqual(BLOCKED);
    const bulk = await http(`${host.url}/_bulk`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: '{"index":{"_index":"logs","_id":"3"}}\n{"a":1}\n' });
    expect(bulk.status).toBe(200);
    expect(bulk.json.items[0].index).toEqual({ _index: 'logs', _id: '3', status: 429, error: BLOCKED.error.root_cause[0] });
    // reads keep working, deleting a whole index frees space and is allowed
    const search = await http(`${host.url}/logs/_search`, send('POST', {}));
    expect(search.json.hits.total.value).toBe(1);
    expect((await http(`${host.url}/other`, send('DELETE'))).status).toBe(200);

    await setDisk(8); // 92%: under the flood stage, above the high watermark: the block stays
    expect(await blockOf('logs')).toBe('true');
    await setDisk(11); // 89%: released
    expect(await blockOf('logs')).toBeUndefined();
    expect((await http(`${host.url}/logs/_doc/2?refresh=true`, send('PUT', { msg: 'after' }))).status).toBe(201);
    expect((await http(`${host.url}/logs/_count`)).json.count).toBe(2);
  });

  it('applies absolute (free bytes) and ratio watermarks set through _cluster/settings', async () => {
    const put = await http(`${host.url}/_cluster/settings`, send('PUT', {
      persistent: { 'cluster.routing.allocation.disk.watermark.flood_stage': '20gb', 'cluster.routing.allocation.disk.watermark.high': '30gb', 'cluster.routing.allocation.disk.watermark.low': '40gb' },
    }));
    expect(put.status).toBe(200);
    await setDisk(21);
    expect(await blockOf('logs')).toBeUndefined();
    await setDisk(19);
    expect(await blockOf('logs')).toBe('true');
    await setDisk(29);
    expect(await blockOf('logs')).toBe('true');
    await setDisk(31);
    expect(await blockOf('logs')).toBeUndefined();

    await http(`${host.url}/_cluster/settings`, send('PUT', { persistent: { 'cluster.routing.allocation.disk.watermark.flood_stage': '0.5', 'cluster.routing.allocation.disk.watermark.high': '0.4', 'cluster.routing.allocation.disk.watermark.low': '0.3' } }));
    await setDisk(49);
    expect(await blockOf('logs')).toBe('true');
    await setDisk(61);
    expect(await blockOf('logs')).toBeUndefined();

    const bad = await http(`${host.url}/_cluster/settings`, send('PUT', { persistent: { 'cluster.routing.allocation.disk.watermark.flood_stage': 'lots' } }));
    expect(bad.status).toBe(400);
    expect(bad.json.error.type).toBe('illegal_argument_exception');
    expect(bad.json.error.reason).toBe('unable to consider setting [cluster.routing.allocation.disk.watermark.flood_stage] as a percentage or byte size value: [lots]');

    await http(`${host.url}/_cluster/settings`, send('PUT', {
      persistent: { 'cluster.routing.allocation.disk.watermark.flood_stage': null, 'cluster.routing.allocation.disk.watermark.high': null, 'cluster.routing.allocation.disk.watermark.low': null },
    }));
  });

  it('caps the default percentage with the 100gb max headroom on a large disk; threshold_enabled: false turns it off', async () => {
    await setDisk(200, 10_000); // 98% used, but 200gb free > min(5% = 500gb, 100gb)
    expect(await blockOf('logs')).toBeUndefined();
    await setDisk(90, 10_000);
    expect(await blockOf('logs')).toBe('true');
    await setDisk(1000, 10_000); // 90% used exactly: free 1000gb >= min(10%, 150gb)
    expect(await blockOf('logs')).toBeUndefined();

    await http(`${host.url}/_cluster/settings`, send('PUT', { persistent: { 'cluster.routing.allocation.disk.threshold_enabled': false } }));
    await setDisk(1);
    expect(await blockOf('logs')).toBeUndefined();
    await http(`${host.url}/_cluster/settings`, send('PUT', { persistent: { 'cluster.routing.allocation.disk.threshold_enabled': null } }));
  });
});
