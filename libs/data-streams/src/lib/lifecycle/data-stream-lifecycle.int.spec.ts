import { ManualClock, createTestHost, type TestHost } from '@strata/core-testing';
import { dataStreamsFeature } from '../data-streams.module.js';
import { DataStreamLifecycleRunner } from './data-stream-lifecycle.js';

const DAY = 86_400_000;

describe('data stream lifecycle', () => {
  let host: TestHost;
  let runner: DataStreamLifecycleRunner;
  const clock = new ManualClock(Date.UTC(2024, 6, 1));
  beforeAll(async () => {
    host = await createTestHost({ features: [dataStreamsFeature], clock });
    runner = host.container.get(DataStreamLifecycleRunner);
    await host.request('PUT', '/_index_template/events', {
      index_patterns: ['events-*'],
      data_stream: {},
      priority: 200,
      template: { settings: { number_of_replicas: 0 }, lifecycle: { data_retention: '7d' } },
    });
  });
  afterAll(async () => {
    await host?.close();
  });

  const indices = async () => (await host.request('GET', '/_data_stream/events-web')).body.data_streams[0].indices.map((i: { index_name: string }) => i.index_name);

  it('takes the lifecycle from the template, rolls over on the default conditions and deletes past data_retention', async () => {
    await host.request('POST', '/events-web/_doc?refresh=true', { '@timestamp': '2024-07-01T00:00:00Z' });
    const ds = (await host.request('GET', '/_data_stream/events-web')).body.data_streams[0];
    expect(ds.lifecycle).toEqual({ enabled: true, data_retention: '7d' });
    expect(ds.next_generation_managed_by).toBe('Data stream lifecycle');
    await runner.runOnce();
    expect(await indices()).toHaveLength(1);
    // a retention of 7d rolls over daily (max_age auto)
    clock.advance(DAY);
    await runner.runOnce();
    const two = await indices();
    expect(two).toEqual(['.ds-events-web-2024.07.01-000001', '.ds-events-web-2024.07.02-000002']);
    const explain = await host.request('GET', '/.ds-events-web-2024.07.01-000001/_lifecycle/explain');
    expect(explain.body.indices['.ds-events-web-2024.07.01-000001']).toEqual({
      index: '.ds-events-web-2024.07.01-000001',
      managed_by_lifecycle: true,
      index_creation_date_millis: Date.UTC(2024, 6, 1),
      time_since_index_creation: '1d',
      rollover_date_millis: Date.UTC(2024, 6, 2),
      time_since_rollover: '0ms',
      lifecycle: { enabled: true, data_retention: '7d' },
      generation_time: '0ms',
    });
    // an empty write index is not rolled over (min_docs 1)
    clock.advance(DAY);
    await runner.runOnce();
    expect(await indices()).toHaveLength(2);
    // seven days after its rollover the first backing index goes; the write index never does
    clock.advance(6 * DAY - 1);
    await runner.runOnce();
    expect(await indices()).toHaveLength(2);
    clock.advance(1);
    await runner.runOnce();
    expect(await indices()).toEqual(['.ds-events-web-2024.07.02-000002']);
    expect((await host.request('HEAD', '/.ds-events-web-2024.07.01-000001')).status).toBe(404);
    // disabled: nothing happens any more
    await host.request('PUT', '/_data_stream/events-web/_lifecycle', { enabled: false });
    await host.request('POST', '/events-web/_doc', { '@timestamp': '2024-07-09T00:00:00Z' });
    clock.advance(30 * DAY);
    await runner.runOnce();
    expect(await indices()).toEqual(['.ds-events-web-2024.07.02-000002']);
  });
});
