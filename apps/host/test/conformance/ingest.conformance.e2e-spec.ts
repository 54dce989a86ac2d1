import { startConformanceHost, type Conformance } from './harness.js';

/**
 * Ingest pipelines, simulate and index-time pipelines: black-box comparison with Elasticsearch 8.x.
 * `it.failing` marks a confirmed difference (flip to `it` once fixed).
 */
describe('conformance: ingest', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
  });
  afterAll(() => es.close());

  const simulate = async (processors: unknown[], source: unknown) => {
    const r = await es.req('POST', '/_ingest/pipeline/_simulate', { pipeline: { processors }, docs: [{ _source: source }] });
    expect(r.status).toBe(200);
    return r.json.docs[0];
  };

  it('PUT / GET / DELETE pipeline: shapes and 404s', async () => {
    const body = { description: 'd', processors: [{ set: { field: 'a', value: '{{b}}-x' } }], _meta: { m: 1 }, version: 3 };
    expect((await es.req('PUT', '/_ingest/pipeline/p1', body)).json).toEqual({ acknowledged: true });
    const g = await es.req('GET', '/_ingest/pipeline/p1');
    expect(g.json).toEqual({ p1: body });
    const missing = await es.req('GET', '/_ingest/pipeline/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({});
    expect((await es.req('DELETE', '/_ingest/pipeline/p1')).json).toEqual({ acknowledged: true });
    const again = await es.req('DELETE', '/_ingest/pipeline/p1');
    expect(again.status).toBe(404);
    expect(again.json.error).toMatchObject({ type: 'resource_not_found_exception', reason: 'pipeline [p1] is missing' });
  });

  it('invalid pipelines are rejected at PUT with parse_exception and processor metadata', async () => {
    const unknown = await es.req('PUT', '/_ingest/pipeline/bad', { processors: [{ nope: {} }] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ type: 'parse_exception', reason: 'No processor type exists with name [nope]', processor_type: 'nope' });
    const missing = await es.req('PUT', '/_ingest/pipeline/bad', { processors: [{ set: { field: 'a' } }] });
    expect(missing.json.error).toMatchObject({
      type: 'parse_exception',
      reason: '[value] required property is missing',
      processor_type: 'set',
      property_name: 'value',
    });
    expect((await es.req('GET', '/_ingest/pipeline/bad')).status).toBe(404);
  });

  it('if_version mismatch is rejected; match increments the version', async () => {
    await es.req('PUT', '/_ingest/pipeline/pv', { processors: [], version: 3 });
    const bad = await es.req('PUT', '/_ingest/pipeline/pv?if_version=2', { processors: [] });
    expect(bad.status).toBe(400);
    expect(bad.json.error.reason).toBe('version conflict, required version [2] for pipeline [pv] but current version is [3]');
    expect((await es.req('PUT', '/_ingest/pipeline/pv?if_version=3', { processors: [] })).status).toBe(200);
    expect((await es.req('GET', '/_ingest/pipeline/pv')).json.pv.version).toBe(4);
  });

  it('simulate (non-verbose): doc shape with _version "-3" and _ingest.timestamp', async () => {
    const d = await simulate([{ set: { field: 'a', value: 1 } }], { b: 2 });
    expect(d.doc).toEqual({
      _index: '_index',
      _version: '-3',
      _id: '_id',
      _source: { b: 2, a: 1 },
      _ingest: { timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/) },
    });
  });

  it('simulate verbose: processor_results with tag, _simulate_pipeline, if and error entries', async () => {
    const r = await es.req('POST', '/_ingest/pipeline/_simulate?verbose=true', {
      pipeline: { processors: [{ set: { field: 'a', value: 1, tag: 't1' } }, { fail: { message: 'boom', if: 'ctx.a == 1' } }] },
      docs: [{ _index: 'i', _id: 'x', _source: {} }],
    });
    const pr = r.json.docs[0].processor_results;
    expect(pr[0]).toMatchObject({ processor_type: 'set', status: 'success', tag: 't1', doc: { _index: 'i', _id: 'x', _source: { a: 1 }, _ingest: { pipeline: '_simulate_pipeline' } } });
    expect(pr[1]).toMatchObject({ processor_type: 'fail', status: 'error', if: { condition: 'ctx.a == 1', result: true }, error: { type: 'fail_processor_exception', reason: 'boom' } });
  });

  it('pipeline-level on_failure sees _ingest.on_failure_message / processor_type', async () => {
    const r = await es.req('POST', '/_ingest/pipeline/_simulate', {
      pipeline: {
        processors: [{ fail: { message: 'm {{a}}' } }],
        on_failure: [{ set: { field: 'err', value: '{{_ingest.on_failure_message}} {{_ingest.on_failure_processor_type}}' } }],
      },
      docs: [{ _source: { a: 'A' } }],
    });
    expect(r.json.docs[0].doc._source).toEqual({ a: 'A', err: 'm A fail' });
  });

  it('processors: date (pattern with offset -> UTC, ISO8601 with timezone), grok with :int, kv, foreach, split+join', async () => {
    expect((await simulate([{ date: { field: 't', formats: ['dd/MMM/yyyy:HH:mm:ss Z'] } }], { t: '10/Oct/2000:13:55:36 -0700' })).doc._source['@timestamp']).toBe(
      '2000-10-10T20:55:36.000Z',
    );
    expect((await simulate([{ date: { field: 't', formats: ['ISO8601'], timezone: 'Europe/Paris' } }], { t: '2024-01-01T10:00:00' })).doc._source['@timestamp']).toBe(
      '2024-01-01T10:00:00.000+01:00',
    );
    const g = await simulate([{ grok: { field: 'm', patterns: ['%{IP:client} %{WORD:method} %{URIPATHPARAM:req} %{NUMBER:bytes:int}'] } }], { m: '55.3.244.1 GET /index.html?a=1 15824' });
    expect(g.doc._source).toMatchObject({ client: '55.3.244.1', method: 'GET', req: '/index.html?a=1', bytes: 15824 });
    expect((await simulate([{ kv: { field: 'm', field_split: ' ', value_split: '=' } }], { m: 'a=1 b=2' })).doc._source).toMatchObject({ a: '1', b: '2' });
    expect((await simulate([{ foreach: { field: 'arr', processor: { uppercase: { field: '_ingest._value' } } } }], { arr: ['a', 'b'] })).doc._source).toEqual({ arr: ['A', 'B'] });
    expect((await simulate([{ split: { field: 's', separator: ',' } }, { join: { field: 's', separator: '|' } }], { s: 'a,b,c' })).doc._source).toEqual({ s: 'a|b|c' });
  });

  it('processor errors per document: remove of a missing field', async () => {
    const d = await simulate([{ remove: { field: 'nope' } }], { a: 1 });
    expect(d.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'field [nope] not present as part of path [nope]' });
  });

  it('dissect: reference keys and all-append keys', async () => {
    expect((await simulate([{ dissect: { field: 'm', pattern: '%{*k} %{&k}' } }], { m: 'key val' })).doc._source).toEqual({ m: 'key val', key: 'val' });
    expect((await simulate([{ dissect: { field: 'm', pattern: '%{+a} %{+a} %{b}' } }], { m: 'x y z' })).doc._source).toEqual({ m: 'x y z', a: 'xy', b: 'z' });
  });

  // DissectParser ("append validation"): a plain %{a} sharing its name with %{+a} keys becomes an append key too.
  it('dissect: %{a} %{+a} %{+a} appends all three values with append_separator', async () => {
    const d = await simulate([{ dissect: { field: 'm', pattern: '%{a} %{+a} %{+a}', append_separator: '-' } }], { m: 'x y z' });
    expect(d.doc._source).toEqual({ m: 'x y z', a: 'x-y-z' });
  });

  it('index time: ?pipeline=, per-item bulk pipeline, missing pipeline errors, drop -> noop', async () => {
    await es.req('PUT', '/_ingest/pipeline/up', { processors: [{ uppercase: { field: 'u' } }] });
    await es.req('PUT', '/_ingest/pipeline/dropit', { processors: [{ drop: {} }] });
    const ok = await es.req('PUT', '/ing/_doc/1?pipeline=up&refresh=true', { u: 'x' });
    expect(ok.status).toBe(201);
    expect((await es.req('GET', '/ing/_source/1')).json).toEqual({ u: 'X' });
    const nope = await es.req('PUT', '/ing/_doc/2?pipeline=nope', { u: 'x' });
    expect(nope.status).toBe(400);
    expect(nope.json.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'pipeline with id [nope] does not exist' });
    const drop = await es.req('PUT', '/ing/_doc/3?pipeline=dropit', { u: 'x' });
    expect(drop.status).toBe(200);
    expect(drop.json).toEqual({ _index: 'ing', _id: '3', _version: -3, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 } });
    const b = await es.bulk('/_bulk?refresh=true', [
      { index: { _index: 'ing', _id: '4', pipeline: 'up' } },
      { u: 'y' },
      { index: { _index: 'ing', _id: '5', pipeline: 'nope' } },
      { u: 'z' },
    ]);
    expect(b.json.errors).toBe(true);
    expect(b.json.items[0].index.status).toBe(201);
    expect(b.json.items[1].index).toMatchObject({ status: 400, error: { type: 'illegal_argument_exception', reason: 'pipeline with id [nope] does not exist' } });
    expect((await es.req('GET', '/ing/_source/4')).json).toEqual({ u: 'Y' });
    expect((await es.req('GET', '/ing/_doc/3')).json.found).toBe(false);
  });

  it('index.default_pipeline and index.final_pipeline run; ?pipeline=_none skips the default only', async () => {
    await es.req('PUT', '/_ingest/pipeline/setdef', { processors: [{ set: { field: 'def', value: true } }] });
    await es.req('PUT', '/_ingest/pipeline/setfin', { processors: [{ set: { field: 'fin', value: true } }] });
    await es.req('PUT', '/dp', { settings: { 'index.default_pipeline': 'setdef', 'index.final_pipeline': 'setfin' } });
    await es.req('PUT', '/dp/_doc/1', { a: 1 });
    expect((await es.req('GET', '/dp/_source/1')).json).toEqual({ a: 1, def: true, fin: true });
    await es.req('PUT', '/dp/_doc/2?pipeline=_none', { a: 1 });
    expect((await es.req('GET', '/dp/_source/2')).json).toEqual({ a: 1, fin: true });
  });
});
