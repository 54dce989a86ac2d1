/**
 * The EQL search API over HTTP on a real node: response shapes, targets, fields, errors, async searches
 * (get / status / delete / keep_alive / restart), the sequence breaker.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { eqlFeature } from '../lib/eql.module.js';
import { EqlTokens } from '../lib/service/eql-search.service.js';
import type { AsyncSearchStore } from '../lib/service/async-store.js';

const clock = new ManualClock(Date.UTC(2026, 0, 1));

async function seed(host: TestHost): Promise<void> {
  const c = await host.request('PUT', '/eql_test', {
    mappings: {
      properties: {
        '@timestamp': { type: 'date' },
        event: { properties: { category: { type: 'keyword' } } },
        user: { type: 'text', fields: { keyword: { type: 'keyword' } } },
        id: { type: 'long' },
        valid: { type: 'boolean' },
        some_keyword: { type: 'keyword', ignore_above: 5 },
        location: { type: 'geo_point' },
      },
    },
  });
  expect(c.status).toBe(200);
  const docs = [
    ['1', 'process', '2020-02-03T12:34:56Z', 'SYSTEM', false],
    ['2', 'process', '2020-02-04T12:34:56Z', 'SYSTEM', true],
    ['3', 'process', '2020-02-05T12:34:56Z', 'SYSTEM', true],
    ['4', 'network', '2020-02-06T12:34:56Z', 'ADMIN', true],
    ['5', 'network', '2020-02-07T12:34:56Z', 'SYSTEM', true],
    ['6', 'network', '2020-02-08T12:34:56Z', 'ADMIN', true],
    ['7', 'network', '2020-02-09T12:34:56Z', 'SYSTEM', true],
  ] as const;
  const lines: object[] = [];
  for (const [id, cat, ts, user, valid] of docs) {
    lines.push({ index: { _index: 'eql_test', _id: id } });
    lines.push({ event: [{ category: cat }], '@timestamp': ts, user, id: 123, valid, location: { lat: 41.12, lon: -71.34 } });
  }
  const b = await host.request('POST', '/_bulk?refresh=true', lines);
  expect(b.body.errors).toBe(false);
}

describe('EQL search API', () => {
  let host: TestHost;
  const eqlSearch = (body: unknown, path = '/eql_test/_eql/search') => host.request('POST', path, body);

  beforeAll(async () => {
    host = await createTestHost({ features: [eqlFeature], clock });
    await seed(host);
  });
  afterAll(async () => {
    await host?.close();
  });

  it('answers a basic query with Elasticsearch response shape', async () => {
    const r = await eqlSearch({ query: 'process where user == "SYSTEM"' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['is_partial', 'is_running', 'took', 'timed_out', 'hits']);
    expect(r.body.is_partial).toBe(false);
    expect(r.body.timed_out).toBe(false);
    expect(r.body.hits.total).toEqual({ value: 3, relation: 'eq' });
    expect(r.body.hits.events.map((e: { _id: string }) => e._id)).toEqual(['1', '2', '3']);
    expect(r.body.hits.events[0]).toEqual({
      _index: 'eql_test',
      _id: '1',
      _source: { event: [{ category: 'process' }], '@timestamp': '2020-02-03T12:34:56Z', user: 'SYSTEM', id: 123, valid: false, location: { lat: 41.12, lon: -71.34 } },
    });
  });

  it('returns fields with formats (dates, geo as geojson / wkt)', async () => {
    const r = await eqlSearch({
      query: 'process where user == "SYSTEM"',
      size: 1,
      result_position: 'head',
      fields: [{ field: '@timestamp', format: 'epoch_millis' }, 'id', 'valid', { field: 'location', format: 'wkt' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.hits.events[0].fields).toEqual({ '@timestamp': ['1580733296000'], id: [123], valid: [false], location: ['POINT (-71.34 41.12)'] });
    const g = await eqlSearch({ query: 'process where true', size: 1, fields: ['location'] });
    expect(g.body.hits.events[0].fields).toEqual({ location: [{ type: 'Point', coordinates: [-71.34, 41.12] }] });
  });

  it('answers sequences with join keys, missing events as {missing: true}', async () => {
    const r = await eqlSearch({ query: 'sequence by user [process where user == "SYSTEM"] [process where true]' });
    expect(r.status).toBe(200);
    expect(r.body.hits.total).toEqual({ value: 2, relation: 'eq' });
    expect(r.body.hits.sequences.map((s: { join_keys: unknown[]; events: Array<{ _id: string }> }) => [s.join_keys, s.events.map((e) => e._id)])).toEqual([
      [['SYSTEM'], ['1', '2']],
      [['SYSTEM'], ['2', '3']],
    ]);
    const n = await eqlSearch({ query: 'sequence by id [process where user == "SYSTEM"] [process where true]' });
    expect(n.body.hits.sequences[0].join_keys).toEqual([123]);
    const m = await eqlSearch({ query: 'sequence with maxspan=10d [network where user == "ADMIN"] ![network where user == "ADMIN"] [network where user == "ADMIN"]' });
    expect(m.body.hits.total.value).toBe(1);
    expect(m.body.hits.sequences[0].events.map((e: Record<string, unknown>) => e['_id'])).toEqual(['4', '', '6']);
    expect(m.body.hits.sequences[0].events[1]).toEqual({ _index: '', _id: '', missing: true });
    const m2 = await eqlSearch({ query: 'sequence with maxspan=10d [network where user == "ADMIN"] ![network where user == "SYSTEM"] [network where user == "ADMIN"]' });
    expect(m2.body.hits.total.value).toBe(0);
    const keys = await eqlSearch({ query: 'sequence by user [network where valid == true] [network where true]' });
    expect(keys.body.hits.sequences.map((s: { join_keys: unknown[] }) => s.join_keys[0])).toEqual(['ADMIN', 'SYSTEM']);
  });

  it('works on dynamically mapped events (a text category with its keyword sub-field)', async () => {
    const lines: object[] = [];
    const docs = [
      ['2026-01-01T10:00:00Z', 'a', 'process', 'cmd.exe'],
      ['2026-01-01T10:00:20Z', 'a', 'network', 'x'],
      ['2026-01-01T10:00:05Z', 'b', 'process', 'cmd.exe'],
      ['2026-01-01T10:00:50Z', 'b', 'network', 'x'],
      ['2026-01-01T10:00:10Z', 'c', 'process', 'cmd.exe'],
      ['2026-01-01T10:00:15Z', 'c', 'process', 'logoff.exe'],
      ['2026-01-01T10:00:30Z', 'c', 'network', 'x'],
    ];
    for (const [ts, h, cat, name] of docs) lines.push({ index: { _index: 'dyn' } }, { '@timestamp': ts, host: { name: h }, event: { category: cat }, process: { name } });
    expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
    const r = await eqlSearch(
      { query: 'sequence by host.name with maxspan=1m [process where process.name == "cmd.exe"] [network where true] until [process where process.name == "logoff.exe"]' },
      '/dyn/_eql/search',
    );
    expect(r.status).toBe(200);
    expect(r.body.hits.sequences.map((s: { join_keys: string[] }) => s.join_keys)).toEqual([['a'], ['b']]);
  });

  it('leaves out events without a timestamp', async () => {
    await host.request('PUT', '/nots', { mappings: { properties: { '@timestamp': { type: 'date' }, event: { properties: { category: { type: 'keyword' } } }, k: { type: 'keyword' } } } });
    const lines: object[] = [];
    for (let i = 0; i < 7; i++) lines.push({ index: { _index: 'nots', _id: `t${i}` } }, { '@timestamp': 1_700_000_000_000 + i, event: { category: 'process' }, k: 'a' });
    lines.push({ index: { _index: 'nots', _id: 'none' } }, { event: { category: 'process' }, k: 'a' });
    expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
    const seq = await host.request('POST', '/nots/_eql/search', { query: 'sequence by k [process where true] [process where true]', fetch_size: 3, size: 100 });
    expect(seq.status).toBe(200);
    expect(seq.body.hits.sequences.map((s: { events: Array<{ _id: string }> }) => s.events.map((e) => e._id).join('>'))).toEqual(['t0>t1', 't1>t2', 't2>t3', 't3>t4', 't4>t5', 't5>t6']);
    const basic = await host.request('POST', '/nots/_eql/search', { query: 'process where true', size: 100 });
    expect(basic.body.hits.total.value).toBe(7);
  });

  it('applies the filter, size and result_position', async () => {
    const f = await eqlSearch({ query: 'any where true', filter: { term: { 'event.category': 'network' } }, size: 2, result_position: 'head' });
    expect(f.body.hits.events.map((e: { _id: string }) => e._id)).toEqual(['4', '5']);
    const t = await eqlSearch({ query: 'any where true', size: 2.7 });
    expect(t.body.hits.events.map((e: { _id: string }) => e._id)).toEqual(['6', '7']);
  });

  it('resolves targets: missing ones are ignored by default, errors as the options say', async () => {
    const ok = await eqlSearch({ query: 'sequence by valid [process where user == "SYSTEM"] [process where true]' }, '/eql_test,non_existing/_eql/search');
    expect(ok.status).toBe(200);
    expect(ok.body.hits.sequences[0].join_keys).toEqual([true]);
    const pattern = await eqlSearch({ query: 'process where true' }, '/eql_test,non_existing*/_eql/search');
    expect(pattern.status).toBe(200);
    const none = await eqlSearch({ query: 'process where true' }, '/non_existing/_eql/search');
    expect(none.status).toBe(404);
    expect(none.body.error.type).toBe('index_not_found_exception');
    const strict = await eqlSearch({ query: 'process where true' }, '/eql_test,non_existing/_eql/search?ignore_unavailable=false');
    expect(strict.status).toBe(404);
    expect(strict.body.error.type).toBe('index_not_found_exception');
    const noIndices = await eqlSearch({ query: 'process where true' }, '/eql_test,nothing*/_eql/search?allow_no_indices=false');
    expect(noIndices.status).toBe(404);
    expect(noIndices.body.error.type).toBe('index_not_found_exception');
    const alias = await host.request('POST', '/_aliases', { actions: [{ add: { index: 'eql_test', alias: 'eql_alias', filter: { term: { 'user.keyword': 'ADMIN' } } } }] });
    expect(alias.status).toBe(200);
    const viaAlias = await eqlSearch({ query: 'any where true' }, '/eql_alias/_eql/search');
    expect(viaAlias.body.hits.events.map((e: { _id: string }) => e._id)).toEqual(['4', '6']);
  });

  it('answers 400 with Elasticsearch errors for bad input', async () => {
    const cases: Array<[unknown, string, string, string?]> = [
      [{}, 'action_request_validation_exception', 'Validation Failed: 1: query is null or empty;'],
      [{ query: 'any where true', size: 0 }, 'action_request_validation_exception', 'Validation Failed: 1: size must be greater than 0;'],
      [{ query: 'any where true', fetch_size: 2 }, 'action_request_validation_exception', 'Validation Failed: 1: fetch size must be greater than 2;'],
      [{ query: 'any where true', fetch_size: 20000 }, 'action_request_validation_exception', 'Validation Failed: 1: fetch size [20000] must be less than or equal to [index.max_result_window] [10000] of index [eql_test];'],
      [{ query: 'any where true', keep_alive: '30s' }, 'action_request_validation_exception', 'Validation Failed: 1: [keep_alive] must be greater than 1 minute, got:30s;'],
      [{ query: 'any where true', foo: 1 }, 'x_content_parse_exception', '[1:27] [eql/search] unknown field [foo]'],
      [{ query: 'any where true', result_position: 'middle' }, 'x_content_parse_exception', '[1:45] [eql/search] failed to parse field [result_position]'],
      [{ query: "process where user == 'x'" }, 'parsing_exception', `line 1:24: Use double quotes ["] to define string literals, not single quotes [']`],
      [{ query: 'sequence with maxspan=10d [network where used == "ADMIN"] [network where id == 123]' }, 'verification_exception', 'Found 1 problem\nline 1:42: Unknown column [used]'],
      [{ query: 'sequence with maxspan=10d [network where user == "ADMIN"] ![network where used == "SYSTEM"]' }, 'verification_exception', 'Found 1 problem\nline 1:75: Unknown column [used], did you mean [user]?'],
      [{ query: 'any where location == 1' }, 'verification_exception', 'Found 1 problem\nline 1:11: Cannot use field [location] with unsupported type [geo_point]'],
      [{ query: 'any where true', timestamp_field: 'user' }, 'search_phase_execution_exception', ''],
      // a `fields` format error is raised by the shard's fetch phase: a shard failure, as in Elasticsearch
      [{ query: 'any where true', fields: [{ field: 'id', format: 'wkt' }], size: 1 }, 'search_phase_execution_exception', '', 'illegal_argument_exception'],
      [{ query: 'any where true', fields: [{ field: 'location', format: 'mvt(30/0/0)' }], size: 1 }, 'search_phase_execution_exception', '', 'illegal_argument_exception'],
    ];
    for (const [body, type, reason, rootCause] of cases) {
      const r = await eqlSearch(body);
      expect({ body, status: r.status, type: r.body.error?.type }).toEqual({ body, status: 400, type });
      if (reason) expect(r.body.error.reason).toBe(reason);
      if (rootCause) expect(r.body.error.root_cause[0].type).toBe(rootCause);
    }
    const bad = await host.request('POST', '/eql_test/_eql/search?wait_for_completion_timeout=abc', { query: 'any where true' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('illegal_argument_exception');
    const unknownParam = await host.request('POST', '/eql_test/_eql/search?foo=bar', { query: 'any where true' });
    expect(unknownParam.status).toBe(400);
    expect(unknownParam.body.error.reason).toContain('unrecognized parameter: [foo]');
    const noBody = await host.request('POST', '/eql_test/_eql/search');
    expect(noBody.status).toBe(400);
  });

  it('runs async: keep_on_completion, get, status, delete', async () => {
    const r = await host.request('POST', '/eql_test/_eql/search?wait_for_completion_timeout=0ms&keep_on_completion=true', { query: 'process where user == "SYSTEM"' });
    expect(r.status).toBe(200);
    const id = r.body.id as string;
    expect(typeof id).toBe('string');
    const g = await host.request('GET', `/_eql/search/${id}?wait_for_completion_timeout=10s`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ id, is_running: false, is_partial: false, timed_out: false, hits: { total: { value: 3, relation: 'eq' } } });
    expect(g.body.hits.events[0]._source.user).toBe('SYSTEM');
    const s = await host.request('GET', `/_eql/search/status/${id}`);
    expect(s.body).toEqual({ id, is_running: false, is_partial: false, expiration_time_in_millis: clock.now() + 5 * 86_400_000, completion_status: 200 });
    const d = await host.request('DELETE', `/_eql/search/${id}`);
    expect(d.body).toEqual({ acknowledged: true });
    const again = await host.request('DELETE', `/_eql/search/${id}`);
    expect(again.status).toBe(404);
    expect(again.body.error.type).toBe('resource_not_found_exception');
    expect((await host.request('GET', `/_eql/search/status/${id}`)).status).toBe(404);
    expect((await host.request('GET', '/_eql/search/not-an-id!')).status).toBe(400);
  });

  it('keep_on_completion stores a search that finished at once; without it nothing is stored', async () => {
    const kept = await host.request('POST', '/eql_test/_eql/search?keep_on_completion=true', { query: 'any where true' });
    expect(kept.body.id).toEqual(expect.any(String));
    expect(kept.body.is_running).toBe(false);
    const plain = await host.request('POST', '/eql_test/_eql/search?wait_for_completion_timeout=10s', { query: 'any where true' });
    expect(plain.body.id).toBeUndefined();
    // query parameters win over the body
    const body = await host.request('POST', '/eql_test/_eql/search?keep_on_completion=false', { query: 'any where true', keep_on_completion: true });
    expect(body.body.id).toBeUndefined();
  });

  it('deletes a stored search once keep_alive passes', async () => {
    const r = await host.request('POST', '/eql_test/_eql/search?keep_on_completion=true&keep_alive=2m', { query: 'any where true' });
    const id = r.body.id as string;
    expect((await host.request('GET', `/_eql/search/${id}`)).status).toBe(200);
    clock.advance(60_000);
    // get extends the keep_alive
    expect((await host.request('GET', `/_eql/search/${id}?keep_alive=2m`)).status).toBe(200);
    clock.advance(90_000);
    expect((await host.request('GET', `/_eql/search/${id}`)).status).toBe(200);
    clock.advance(60_000);
    (host.container.get(EqlTokens.AsyncStore) as AsyncSearchStore).reap();
    expect((await host.request('GET', `/_eql/search/${id}`)).status).toBe(404);
  });

  it('returns partial results with shard_failures when a shard fails and partial results are allowed', async () => {
    const c = await host.request('PUT', '/eql_test_rebel', {
      mappings: {
        properties: { '@timestamp': { type: 'date' }, event: { properties: { category: { type: 'keyword' } } }, user: { type: 'text', fields: { keyword: { type: 'keyword' } } } },
        runtime: { day: { type: 'keyword', script: { source: "emit(doc['no_such_field'].value)" } } },
      },
    });
    if (c.status !== 200) throw new Error(JSON.stringify(c.body));
    await host.request('PUT', '/eql_test/_mapping', { runtime: { day: { type: 'keyword', script: { source: "emit('Monday')" } } } });
    await host.request('POST', '/eql_test_rebel/_doc?refresh=true', { '@timestamp': '2020-02-03T12:34:56Z', event: { category: 'process' }, user: 'SYSTEM' });
    const partial = await host.request('POST', '/eql_test*/_eql/search', { query: 'process where user == "SYSTEM" and day == "Monday"', allow_partial_search_results: true });
    if (partial.status !== 200) throw new Error(JSON.stringify(partial.body));
    expect(partial.body.is_partial).toBe(true);
    expect(partial.body.hits.total.value).toBe(3);
    expect(partial.body.shard_failures[0].index).toBe('eql_test_rebel');
    const seq = await host.request('POST', '/eql_test*/_eql/search', { query: 'sequence [process where day == "Monday"] [process where true]', allow_partial_search_results: true });
    expect(seq.body.hits.total.value).toBe(0);
    const seqPartial = await host.request('POST', '/eql_test*/_eql/search?allow_partial_search_results=true&allow_partial_sequence_results=true', {
      query: 'sequence [process where day == "Monday"] [process where true]',
    });
    expect(seqPartial.body.hits.total.value).toBeGreaterThan(0);
    const strict = await host.request('POST', '/eql_test*/_eql/search', { query: 'process where day == "Monday"' });
    expect(strict.status).toBe(400);
    expect(strict.body.error.type).toBe('search_phase_execution_exception');
    await host.request('DELETE', '/eql_test_rebel');
  });

  it('a running async search can be cancelled by deleting it', async () => {
    await host.request('PUT', '/slow', { mappings: { properties: { '@timestamp': { type: 'date' } } } });
    const lines: object[] = [];
    for (let i = 0; i < 3000; i++) lines.push({ index: { _index: 'slow' } }, { '@timestamp': 1_600_000_000_000 + i, event: { category: 'process' }, k: i % 7 });
    expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
    const r = await host.request('POST', '/slow/_eql/search?wait_for_completion_timeout=0ms', {
      query: 'sequence by k [process where true] [process where true] [process where true] [process where false]',
      fetch_size: 3,
    });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    expect(r.body.is_running).toBe(true);
    const id = r.body.id as string;
    const s = await host.request('GET', `/_eql/search/status/${id}`);
    expect(s.body).toMatchObject({ id, is_running: true, is_partial: true });
    expect(typeof s.body.start_time_in_millis).toBe('number');
    expect((await host.request('DELETE', `/_eql/search/${id}`)).body).toEqual({ acknowledged: true });
    expect((await host.request('GET', `/_eql/search/${id}`)).status).toBe(404);
  });

  it('lists stored searches in /_strata/search_contexts (targets, keep-alive, originating request) and closes a running one', async () => {
    await host.request('PUT', '/ctx_slow', { mappings: { properties: { '@timestamp': { type: 'date' }, event: { properties: { category: { type: 'keyword' } } } } } });
    const lines: object[] = [];
    for (let i = 0; i < 3000; i++) lines.push({ index: { _index: 'ctx_slow' } }, { '@timestamp': 1_600_000_000_000 + i, event: { category: 'process' }, k: i % 7 });
    expect((await host.request('POST', '/_bulk?refresh=true', lines)).body.errors).toBe(false);
    // earlier tests left stored searches: closing every async_eql context removes them
    const all = await host.request('DELETE', '/_strata/search_contexts?kind=async_eql');
    expect(all.body).toEqual({ succeeded: true, num_freed: expect.any(Number) });
    expect((await host.request('GET', '/_strata/search_contexts?kind=async_eql')).body).toEqual({ total: 0, contexts: [] });
    const t0 = clock.now();
    const kept = await host.request('POST', '/eql_test/_eql/search?keep_on_completion=true&keep_alive=2m', { query: 'any where true' }, { 'X-Opaque-Id': 'eql-job' });
    const keptId = kept.body.id as string;
    clock.advance(10_000);
    const running = await host.request('POST', '/ctx_slow,eql_test/_eql/search?wait_for_completion_timeout=0ms', {
      query: 'sequence by k [process where true] [process where true] [process where true] [process where false]',
      fetch_size: 3,
    });
    expect(running.body.is_running).toBe(true);
    const runningId = running.body.id as string;
    clock.advance(5_000);
    const list = await host.request('GET', '/_strata/search_contexts?kind=async_eql');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      total: 2,
      contexts: [
        {
          id: keptId,
          kind: 'async_eql',
          indices: ['eql_test'],
          owner: null,
          opened_at: new Date(t0).toISOString(),
          opened_at_in_millis: t0,
          age_in_millis: 15_000,
          keep_alive_in_millis: 120_000,
          keep_alive_left_in_millis: 105_000,
          running: false,
          origin: { method: 'POST', url: '/eql_test/_eql/search?keep_on_completion=true&keep_alive=2m', opaque_id: 'eql-job' },
          is_partial: false,
          completion_status: 200,
        },
        {
          id: runningId,
          kind: 'async_eql',
          indices: ['ctx_slow', 'eql_test'],
          owner: null,
          opened_at: new Date(t0 + 10_000).toISOString(),
          opened_at_in_millis: t0 + 10_000,
          age_in_millis: 5_000,
          keep_alive_in_millis: 5 * 86_400_000,
          keep_alive_left_in_millis: 5 * 86_400_000 - 5_000,
          running: true,
          origin: { method: 'POST', url: '/ctx_slow,eql_test/_eql/search?wait_for_completion_timeout=0ms' },
          is_partial: true,
        },
      ],
    });
    // a get with keep_alive is what the list shows afterwards
    expect((await host.request('GET', `/_eql/search/${keptId}?keep_alive=10m`)).status).toBe(200);
    const after = await host.request('GET', '/_strata/search_contexts?kind=async_eql');
    expect(after.body.contexts[0]).toMatchObject({ id: keptId, keep_alive_in_millis: 600_000, keep_alive_left_in_millis: 600_000 });
    // closing through the search-context API cancels the running search and removes it, as DELETE /_eql/search/<id> does
    expect((await host.request('DELETE', `/_strata/search_contexts/${runningId}`)).body).toEqual({ succeeded: true, num_freed: 1 });
    expect((await host.request('GET', `/_eql/search/${runningId}`)).status).toBe(404);
    expect((await host.request('DELETE', `/_strata/search_contexts/${runningId}`)).status).toBe(404);
    expect((await host.request('DELETE', `/_eql/search/${keptId}`)).body).toEqual({ acknowledged: true });
    expect((await host.request('GET', '/_strata/search_contexts?kind=async_eql')).body).toEqual({ total: 0, contexts: [] });
    await host.request('DELETE', '/ctx_slow');
  });

  it('fails a sequence that would exceed the eql_sequence breaker with circuit_breaking_exception', async () => {
    const set = await host.request('PUT', '/_cluster/settings', { transient: { 'breaker.eql_sequence.limit': '100b' } });
    expect(set.status).toBe(200);
    try {
      const r = await eqlSearch({ query: 'sequence by id [any where true] [any where false]' });
      expect(r.status).toBe(429);
      expect(r.body.error.type).toBe('circuit_breaking_exception');
      expect(r.body.error.reason).toMatch(/^\[eql_sequence\] Data too large, data for \[sequence_inflight\] would be \[\d+\/\d+b\], which is larger than the limit of \[100\/100b\]$/);
      // the node keeps answering
      expect((await eqlSearch({ query: 'process where true' })).status).toBe(200);
    } finally {
      await host.request('PUT', '/_cluster/settings', { transient: { 'breaker.eql_sequence.limit': null } });
    }
    expect((await eqlSearch({ query: 'sequence by id [any where true] [any where false]' })).status).toBe(200);
  });
});

describe('stored EQL searches survive a restart', () => {
  it('a kept result is there after the node restarts', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'strata-eql-'));
    try {
      let host = await createTestHost({ features: [eqlFeature], settings: { 'path.data': dataPath }, keepData: true });
      await seed(host);
      const r = await host.request('POST', '/eql_test/_eql/search?keep_on_completion=true', { query: 'process where user == "SYSTEM"' });
      const id = r.body.id as string;
      await host.close();
      host = await createTestHost({ features: [eqlFeature], settings: { 'path.data': dataPath }, keepData: true });
      try {
        const g = await host.request('GET', `/_eql/search/${id}`);
        expect(g.status).toBe(200);
        expect(g.body.hits.events.map((e: { _id: string }) => e._id)).toEqual(['1', '2', '3']);
      } finally {
        await host.close();
      }
    } finally {
      rmSync(dataPath, { recursive: true, force: true });
    }
  });
});
