/**
 * `/_strata/search_contexts` over the paging feature's PITs and scrolls: listing (kind, owner, age,
 * keep-alive left, originating request) and closing one or all.
 */
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { pagingFeature } from './paging.module.js';

const T0 = Date.UTC(2026, 0, 1);
const clock = new ManualClock(T0);

describe('search contexts API over paging', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({ features: [pagingFeature], clock });
    await host.request('PUT', '/logs', { settings: { number_of_shards: 2 } });
    const lines: object[] = [];
    for (let i = 0; i < 12; i++) lines.push({ index: { _index: 'logs', _id: `d${i}` } }, { n: i });
    expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('lists nothing, then the PIT and the scroll it opened, with age, keep-alive left and origin', async () => {
    expect((await host.request('GET', '/_strata/search_contexts')).body).toEqual({ total: 0, contexts: [] });
    const pit = await host.request('POST', '/logs/_pit?keep_alive=2m', undefined, { 'X-Opaque-Id': 'job-7' });
    expect(pit.status).toBe(200);
    clock.advance(30_000);
    const scroll = await host.request('POST', '/logs/_search?scroll=1m', { size: 5 });
    expect(scroll.status).toBe(200);
    clock.advance(10_000);
    const r = await host.request('GET', '/_strata/search_contexts');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      total: 2,
      contexts: [
        {
          id: pit.body.id,
          kind: 'point_in_time',
          indices: ['logs'],
          owner: null,
          opened_at: new Date(T0).toISOString(),
          opened_at_in_millis: T0,
          age_in_millis: 40_000,
          keep_alive_in_millis: 120_000,
          keep_alive_left_in_millis: 80_000,
          running: false,
          origin: { method: 'POST', url: '/logs/_pit?keep_alive=2m', opaque_id: 'job-7' },
          shards: 2,
        },
        {
          id: scroll.body._scroll_id,
          kind: 'scroll',
          indices: ['logs'],
          owner: null,
          opened_at: new Date(T0 + 30_000).toISOString(),
          opened_at_in_millis: T0 + 30_000,
          age_in_millis: 10_000,
          keep_alive_in_millis: 60_000,
          keep_alive_left_in_millis: 50_000,
          running: false,
          origin: { method: 'POST', url: '/logs/_search?scroll=1m' },
          shards: 2,
          hits_returned: 5,
          page_size: 5,
        },
      ],
    });
    const human = await host.request('GET', '/_strata/search_contexts?kind=scroll&human');
    expect(human.body.total).toBe(1);
    expect(human.body.contexts[0]).toMatchObject({ age: '10s', keep_alive: '1m', keep_alive_left: '50s' });
    // an instant stays a date under ?human (it used to be overwritten with a duration: "20.8y")
    expect(human.body.contexts[0].opened_at).toBe(new Date(T0 + 30_000).toISOString());
  });

  it('rejects an unknown kind', async () => {
    const r = await host.request('GET', '/_strata/search_contexts?kind=pits');
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('illegal_argument_exception');
    expect(r.body.error.reason).toBe('unknown search context kind [pits], expected one of [point_in_time, scroll]');
  });

  it('closes one context by id: the PIT is gone for searches too; a second close is a 404', async () => {
    const list = (await host.request('GET', '/_strata/search_contexts?kind=point_in_time')).body.contexts;
    const id = list[0].id as string;
    const del = await host.request('DELETE', `/_strata/search_contexts/${encodeURIComponent(id)}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ succeeded: true, num_freed: 1 });
    const search = await host.request('POST', '/_search', { pit: { id } });
    expect(search.status).toBe(404);
    expect(search.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    const again = await host.request('DELETE', `/_strata/search_contexts/${encodeURIComponent(id)}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ succeeded: true, num_freed: 0 });
  });

  it('closes every context; expired ones are not listed', async () => {
    await host.request('POST', '/logs/_pit?keep_alive=1m');
    await host.request('POST', '/logs/_pit?keep_alive=10m');
    clock.advance(61_000);
    const r = await host.request('GET', '/_strata/search_contexts');
    // the scroll (1m) and the 1m PIT have expired
    expect(r.body.contexts.map((c: { kind: string; keep_alive_in_millis: number }) => [c.kind, c.keep_alive_in_millis])).toEqual([
      ['point_in_time', 600_000],
    ]);
    const del = await host.request('DELETE', '/_strata/search_contexts');
    expect(del.body).toEqual({ succeeded: true, num_freed: 1 });
    expect((await host.request('GET', '/_strata/search_contexts')).body.total).toBe(0);
  });
});
