import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock, createTestHost, type TestHost } from '@strata/core-testing';
import { dataStreamsFeature } from '../data-streams.module.js';
import { IlmRunner } from './ilm-runner.js';

const DAY = 86_400_000;

describe('index lifecycle management', () => {
  let host: TestHost;
  let repo: string;
  let runner: IlmRunner;
  const clock = new ManualClock(Date.UTC(2024, 2, 1, 8));
  const run = async (times = 1) => {
    for (let i = 0; i < times; i++) await runner.runOnce();
  };
  const explain = async (index: string) => (await host.request('GET', `/${index}/_ilm/explain`)).body.indices[index];
  const backing = async (stream: string): Promise<string[]> =>
    (await host.request('GET', `/_data_stream/${stream}`)).body.data_streams[0].indices.map((i: { index_name: string }) => i.index_name);

  beforeAll(async () => {
    repo = mkdtempSync(join(tmpdir(), 'strata-ilm-repo-'));
    host = await createTestHost({ features: [dataStreamsFeature], clock, settings: { 'path.repo': repo } });
    runner = host.container.get(IlmRunner);
  });
  afterAll(async () => {
    await host?.close();
    rmSync(repo, { recursive: true, force: true });
  });

  it('policy CRUD with ES validation', async () => {
    expect((await host.request('GET', '/_ilm/policy/p1')).status).toBe(404);
    const body = { policy: { phases: { warm: { min_age: '10s', actions: { forcemerge: { max_num_segments: 10000 } } }, delete: { min_age: '30s', actions: { delete: {} } } } } };
    expect((await host.request('PUT', '/_ilm/policy/p1', body)).body).toEqual({ acknowledged: true });
    const get = await host.request('GET', '/_ilm/policy/p1');
    expect(get.body.p1).toEqual({
      version: 1,
      modified_date: new Date(clock.now()).toISOString(),
      policy: { phases: { warm: { min_age: '10s', actions: { forcemerge: { max_num_segments: 10000 } } }, delete: { min_age: '30s', actions: { delete: { delete_searchable_snapshot: true } } } } },
      in_use_by: { indices: [], data_streams: [], composable_templates: [] },
    });
    await host.request('PUT', '/_ilm/policy/p1', { policy: { phases: { warm: { min_age: '300s', actions: {} } } } });
    expect((await host.request('GET', '/_ilm/policy/p1')).body.p1.version).toBe(2);
    const bad = async (b: unknown) => (await host.request('PUT', '/_ilm/policy/bad', b)).body.error;
    expect(await bad({ policy: { phases: { hot: { actions: { forcemerge: { max_num_segments: 1 } } } } } })).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'the [forcemerge] action(s) may not be used in the [hot] phase without an accompanying [rollover] action',
    });
    expect((await bad({ policy: { phases: { cold: { actions: { shrink: { number_of_shards: 1 } } } } } })).reason).toBe('invalid action [shrink] defined in phase [cold]');
    expect((await bad({ policy: { phases: { lukewarm: { actions: {} } } } })).reason).toBe('Timeseries lifecycle does not support phase [lukewarm]');
    expect((await bad({ policy: { phases: { warm: { min_age: '10s', actions: {} }, delete: { min_age: '5s', actions: { delete: {} } } } } })).reason).toBe(
      'Your policy is configured to run the delete phase (min_age: 5s) before the warm phase (min_age: 10s). You should change the phase timing so that the phases will execute in the order of hot, warm, then cold.',
    );
    expect((await bad({ policy: { phases: { frozen: { actions: {} } } } })).reason).toBe(
      'policy specifies the [frozen] phase without a corresponding [searchable_snapshot] action, but a searchable snapshot action is required in the frozen phase',
    );
    expect((await bad({ policy: { phases: { hot: { actions: { rollover: { max_docs: 1 }, searchable_snapshot: { snapshot_repository: 'r' } } }, warm: { actions: { forcemerge: { max_num_segments: 1 } } } } } })).reason).toBe(
      'phases [warm] define one or more of [forcemerge, freeze, shrink, downsample] actions which are not allowed after a managed index is mounted as a searchable snapshot',
    );
    const wildcardList = await host.request('GET', '/_ilm/policy/p*,other');
    expect(wildcardList.body.error.reason).toBe('wildcard only supports a single value, please use comma-separated values or a single wildcard value');
    await host.request('PUT', '/in-use', { settings: { 'index.lifecycle.name': 'p1' } });
    const inUse = await host.request('DELETE', '/_ilm/policy/p1');
    expect(inUse.body.error.reason).toBe('Cannot delete policy [p1]. It is in use by one or more indices: [in-use]');
    expect((await host.request('POST', '/in-use/_ilm/remove')).body).toEqual({ has_failures: false, failed_indexes: [] });
    expect((await host.request('GET', '/in-use/_ilm/explain')).body).toEqual({ indices: { 'in-use': { index: 'in-use', managed: false } } });
    expect((await host.request('DELETE', '/_ilm/policy/p1')).body).toEqual({ acknowledged: true });
    expect((await host.request('DELETE', '/_ilm/policy/p1')).status).toBe(404);
    expect((await host.request('GET', '/_ilm/status')).body).toEqual({ operation_mode: 'RUNNING' });
  });

  it('drives a data stream through hot → warm → cold → delete on the manual clock', async () => {
    expect((await host.request('PUT', '/_snapshot/repo', { type: 'fs', settings: { location: 'ilm' } })).status).toBe(200);
    const policy = {
      policy: {
        phases: {
          hot: { actions: { rollover: { max_docs: 10 }, set_priority: { priority: 100 } } },
          warm: { min_age: '1d', actions: { shrink: { number_of_shards: 1 }, forcemerge: { max_num_segments: 1 }, readonly: {}, set_priority: { priority: 50 } } },
          cold: { min_age: '2d', actions: { searchable_snapshot: { snapshot_repository: 'repo' } } },
          delete: { min_age: '3d', actions: { delete: {} } },
        },
      },
    };
    expect((await host.request('PUT', '/_ilm/policy/timeseries', policy)).status).toBe(200);
    await host.request('PUT', '/_index_template/metrics', {
      index_patterns: ['metrics-*'],
      data_stream: {},
      priority: 300,
      template: { settings: { number_of_shards: 2, number_of_replicas: 0, 'index.lifecycle.name': 'timeseries' } },
    });
    // three refreshes: several segments per shard
    for (let b = 0; b < 3; b++) {
      const items: Array<Record<string, unknown>> = [];
      for (let i = 0; i < 4; i++) items.push({ create: {} }, { '@timestamp': new Date(clock.now() + b * 1000 + i).toISOString(), v: b * 4 + i });
      expect((await host.request('POST', '/metrics-app/_bulk?refresh=true', items)).body.errors).toBe(false);
    }
    const [first] = await backing('metrics-app');

    // hot: rolled over at 12 docs, priority set, phase complete; the new write index waits for its own rollover
    await run();
    let ds = await backing('metrics-app');
    expect(ds).toHaveLength(2);
    expect(ds[0]).toBe(first);
    let ex = await explain(first);
    expect(ex).toMatchObject({ managed: true, policy: 'timeseries', phase: 'hot', action: 'complete', step: 'complete', lifecycle_date_millis: clock.now(), age: '0ms' });
    expect(ex.phase_execution).toEqual({ policy: 'timeseries', phase_definition: policy.policy.phases.hot && { min_age: '0ms', actions: policy.policy.phases.hot.actions }, version: 1, modified_date_in_millis: clock.now() });
    const settings = (await host.request('GET', `/${first}/_settings?flat_settings`)).body[first].settings;
    expect(settings['index.priority']).toBe('100');
    expect(settings['index.lifecycle.indexing_complete']).toBe('true');
    expect(await explain(ds[1])).toMatchObject({ phase: 'hot', action: 'rollover', step: 'check-rollover-ready' });

    // warm after a day: shrunk to one shard, merged to one segment, read-only, lower priority, same documents
    clock.advance(DAY - 1);
    await run();
    expect((await backing('metrics-app'))[0]).toBe(first);
    clock.advance(1);
    await run(2);
    ds = await backing('metrics-app');
    const shrunk = ds[0];
    expect(shrunk).toMatch(new RegExp(`^shrink-[a-z0-9]{4}-\\${first}$`));
    expect((await host.request('HEAD', `/${first}`)).status).toBe(404);
    const sst = (await host.request('GET', `/${shrunk}/_settings?flat_settings`)).body[shrunk].settings;
    expect(sst['index.number_of_shards']).toBe('1');
    expect(sst['index.blocks.write']).toBe('true');
    expect(sst['index.priority']).toBe('50');
    expect(sst['index.lifecycle.name']).toBe('timeseries');
    const stats = (await host.request('GET', `/${shrunk}/_stats`)).body.indices[shrunk].primaries;
    expect(stats.segments.count).toBe(1);
    expect(stats.docs.count).toBe(12);
    ex = await explain(shrunk);
    expect(ex).toMatchObject({ phase: 'warm', action: 'complete', step: 'complete', index_creation_date_millis: Date.UTC(2024, 2, 1, 8) });
    expect((await host.request('GET', '/metrics-app/_count')).body.count).toBe(12);

    // cold after two days: snapshotted and mounted (restored-), in the stream in place of the shrunk index
    clock.advance(DAY);
    await run(2);
    ds = await backing('metrics-app');
    const mounted = ds[0];
    expect(mounted).toBe(`restored-${shrunk}`);
    const mst = (await host.request('GET', `/${mounted}/_settings?flat_settings`)).body[mounted].settings;
    expect(mst['index.store.type']).toBe('snapshot');
    expect(mst['index.store.snapshot.repository_name']).toBe('repo');
    expect(mst['index.lifecycle.name']).toBe('timeseries');
    const snaps = (await host.request('GET', '/_snapshot/repo/_all')).body.snapshots;
    expect(snaps).toHaveLength(1);
    expect(snaps[0]).toMatchObject({ indices: [shrunk], state: 'SUCCESS' });
    expect(mst['index.store.snapshot.snapshot_name']).toBe(snaps[0].snapshot);
    expect(await explain(mounted)).toMatchObject({ phase: 'cold', action: 'complete', step: 'complete' });
    expect((await host.request('GET', '/metrics-app/_count')).body.count).toBe(12);
    expect((await host.request('POST', '/metrics-app/_search', { query: { range: { v: { gte: 10 } } } })).body.hits.total.value).toBe(2);

    // delete after three days: the index and its snapshot go, the stream keeps its write index
    clock.advance(DAY);
    await run();
    expect(await backing('metrics-app')).toEqual([ds[1]]);
    expect((await host.request('HEAD', `/${mounted}`)).status).toBe(404);
    expect((await host.request('GET', '/_snapshot/repo/_all')).body.snapshots).toEqual([]);
    expect((await host.request('GET', '/metrics-app/_count')).body.count).toBe(0);
  });

  it('shows a stuck step in explain and recovers with retry', async () => {
    await host.request('PUT', '/_ilm/policy/rolling', { policy: { phases: { hot: { actions: { rollover: { max_docs: 1 } } } } } });
    await host.request('PUT', '/app-000001', { settings: { 'index.lifecycle.name': 'rolling', number_of_replicas: 0 } });
    await host.request('PUT', '/app-000001/_doc/1?refresh=true', { a: 1 });
    await run();
    let ex = await explain('app-000001');
    expect(ex).toMatchObject({
      phase: 'hot',
      action: 'rollover',
      step: 'ERROR',
      failed_step: 'check-rollover-ready',
      is_auto_retryable_error: false,
      step_info: { type: 'illegal_argument_exception', reason: 'setting [index.lifecycle.rollover_alias] for index [app-000001] is empty or not defined' },
    });
    expect((await host.request('GET', '/*/_ilm/explain?only_errors')).body.indices).toEqual({ 'app-000001': ex });
    const notFailed = await host.request('POST', `/${'in-use'}/_ilm/retry`);
    expect(notFailed.body.error.reason).toBe('cannot retry an action for an index [in-use] that has not encountered an error when running a Lifecycle Policy');
    // fix the cause, retry: the rollover happens
    await host.request('PUT', '/app-000001/_settings', { 'index.lifecycle.rollover_alias': 'app' });
    await host.request('POST', '/_aliases', { actions: [{ add: { index: 'app-000001', alias: 'app', is_write_index: true } }] });
    expect((await host.request('POST', '/app-000001/_ilm/retry')).body).toEqual({ acknowledged: true });
    ex = await explain('app-000001');
    expect(ex).toMatchObject({ step: 'check-rollover-ready', failed_step_retry_count: 1 });
    await run();
    expect((await explain('app-000001'))).toMatchObject({ phase: 'hot', action: 'complete', step: 'complete' });
    expect((await host.request('GET', '/_alias/app')).body['app-000002'].aliases.app.is_write_index).toBe(true);
  });

  it('an index whose policy does not exist yet waits in ERROR and resumes once it exists; move to step', async () => {
    await host.request('PUT', '/early', { settings: { 'index.lifecycle.name': 'later', number_of_replicas: 0 } });
    await run();
    expect(await explain('early')).toMatchObject({
      policy: 'later',
      step: 'ERROR',
      is_auto_retryable_error: true,
      step_info: { type: 'illegal_argument_exception', reason: 'policy [later] does not exist' },
    });
    await host.request('PUT', '/_ilm/policy/later', { policy: { phases: { warm: { min_age: '10d', actions: { readonly: {} } } } } });
    await run();
    expect(await explain('early')).toMatchObject({ phase: 'new', action: 'complete', step: 'complete', failed_step_retry_count: 1 });
    // move it on by hand, into the warm phase before its time
    const wrong = await host.request('POST', '/_ilm/move/early', { current_step: { phase: 'hot', action: 'rollover', name: 'check-rollover-ready' }, next_step: { phase: 'warm' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.reason).toContain('is not on current step');
    const moved = await host.request('POST', '/_ilm/move/early', { current_step: { phase: 'new', action: 'complete', name: 'complete' }, next_step: { phase: 'warm' } });
    expect(moved.body).toEqual({ acknowledged: true });
    await run();
    expect(await explain('early')).toMatchObject({ phase: 'warm', action: 'complete', step: 'complete' });
    expect((await host.request('GET', '/early/_settings?flat_settings')).body.early.settings['index.blocks.write']).toBe('true');
  });

  it('stop and start: a stopped ILM moves nothing', async () => {
    await host.request('PUT', '/_ilm/policy/deleter', { policy: { phases: { delete: { min_age: '1h', actions: { delete: {} } } } } });
    await host.request('PUT', '/doomed', { settings: { 'index.lifecycle.name': 'deleter' } });
    expect((await host.request('POST', '/_ilm/stop')).body).toEqual({ acknowledged: true });
    expect((await host.request('GET', '/_ilm/status')).body.operation_mode).toBe('STOPPING');
    clock.advance(2 * 3_600_000);
    await run();
    expect((await host.request('GET', '/_ilm/status')).body.operation_mode).toBe('STOPPED');
    await run();
    expect((await host.request('HEAD', '/doomed')).status).toBe(200);
    await host.request('POST', '/_ilm/start');
    await run();
    expect((await host.request('HEAD', '/doomed')).status).toBe(404);
  });
});
