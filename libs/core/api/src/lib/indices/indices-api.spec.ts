import { startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

describe('index admin REST APIs', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown) => api.call(method, path, body);

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-indices-' });
  });

  afterAll(() => api.close());

  it('creates, checks, gets and deletes an index', async () => {
    const c = await call('PUT', '/logs', {
      settings: { number_of_shards: 2 },
      mappings: { properties: { msg: { type: 'text' }, ts: { type: 'date' } } },
      aliases: { all: {} },
    });
    expect(c).toMatchObject({ status: 200, body: { acknowledged: true, shards_acknowledged: true, index: 'logs' } });
    expect((await call('PUT', '/empty', '')).status).toBe(200);
    const dup = await call('PUT', '/logs');
    expect(dup.status).toBe(400);
    expect(dup.body.error.type).toBe('resource_already_exists_exception');
    expect((await call('HEAD', '/logs')).status).toBe(200);
    expect((await call('HEAD', '/nope')).status).toBe(404);
    const g = await call('GET', '/logs');
    expect(g.status).toBe(200);
    expect(g.body.logs.aliases).toEqual({ all: {} });
    expect(g.body.logs.mappings).toEqual({ properties: { msg: { type: 'text' }, ts: { type: 'date' } } });
    const s = g.body.logs.settings.index;
    expect(s.number_of_shards).toBe('2');
    expect(s.number_of_replicas).toBe('1');
    expect(s.provided_name).toBe('logs');
    expect(typeof s.creation_date).toBe('string');
    expect(s.uuid).toHaveLength(22);
    expect(s.version.created).toMatch(/^8/);
    const bad = await call('PUT', '/Bad');
    expect(bad.body.error).toMatchObject({ type: 'invalid_index_name_exception', reason: 'Invalid index name [Bad], must be lowercase', index: 'Bad' });
    expect((await call('DELETE', '/log*')).body.error.reason).toBe('Wildcard expressions or all indices are not allowed');
    expect((await call('DELETE', '/empty')).body).toEqual({ acknowledged: true });
    const nf = await call('DELETE', '/empty');
    expect(nf.status).toBe(404);
    expect(nf.body.error.type).toBe('index_not_found_exception');
  });

  it('mappings: put, get, field mapping and conflicts', async () => {
    expect((await call('PUT', '/m1/', undefined)).status).toBe(200);
    expect((await call('PUT', '/m1/_mapping', { properties: { a: { type: 'keyword' } } })).body).toEqual({ acknowledged: true });
    expect((await call('GET', '/m1/_mapping')).body).toEqual({ m1: { mappings: { properties: { a: { type: 'keyword' } } } } });
    const conflict = await call('PUT', '/m1/_mapping', { properties: { a: { type: 'long' } } });
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.reason).toBe('mapper [a] cannot be changed from type [keyword] to [long]');
    const fm = await call('GET', '/m1/_mapping/field/a');
    expect(fm.body).toEqual({ m1: { mappings: { a: { full_name: 'a', mapping: { a: { type: 'keyword' } } } } } });
  });

  it('settings: get (flat and nested), update dynamic, reject static', async () => {
    await call('PUT', '/s1');
    expect((await call('PUT', '/s1/_settings', { index: { number_of_replicas: 0, max_result_window: 50 } })).body).toEqual({ acknowledged: true });
    const flat = await call('GET', '/s1/_settings?flat_settings=true');
    expect(flat.body.s1.settings['index.number_of_replicas']).toBe('0');
    expect(flat.body.s1.settings['index.max_result_window']).toBe('50');
    const one = await call('GET', '/s1/_settings/index.number_of_*');
    expect(Object.keys(one.body.s1.settings.index).sort()).toEqual(['number_of_replicas', 'number_of_shards']);
    const stat = await call('PUT', '/s1/_settings', { 'index.codec': 'best_compression' });
    expect(stat.status).toBe(400);
    expect(stat.body.error.reason).toMatch(/^Can't update non dynamic settings \[\[index.codec\]\] for open indices \[\[s1\//);
    const unknown = await call('PUT', '/s1/_settings', { 'index.bogus': 1 });
    expect(unknown.body.error.reason).toContain('unknown setting [index.bogus]');
  });

  it('aliases API', async () => {
    await call('PUT', '/a1');
    await call('PUT', '/a2');
    expect((await call('POST', '/_aliases', { actions: [{ add: { indices: ['a1', 'a2'], alias: 'both' } }, { add: { index: 'a1', alias: 'one', is_write_index: true } }] })).body).toEqual({
      acknowledged: true,
      errors: false,
    });
    expect((await call('GET', '/_alias/both')).body).toEqual({ a1: { aliases: { both: {} } }, a2: { aliases: { both: {} } } });
    expect((await call('HEAD', '/_alias/both')).status).toBe(200);
    expect((await call('HEAD', '/_alias/nope')).status).toBe(404);
    const missing = await call('GET', '/_alias/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'alias [nope] missing', status: 404 });
    expect((await call('PUT', '/a2/_alias/two')).body).toEqual({ acknowledged: true });
    expect((await call('GET', '/a2/_alias')).body).toEqual({ a2: { aliases: { both: {}, two: {} } } });
    expect((await call('DELETE', '/a2/_alias/two')).body).toEqual({ acknowledged: true });
    expect((await call('DELETE', '/a2/_alias/two')).status).toBe(404);
    expect((await call('GET', '/a1/_alias/one')).body).toEqual({ a1: { aliases: { one: { is_write_index: true } } } });
  });

  it('_analyze', async () => {
    const r = await call('POST', '/_analyze', { analyzer: 'standard', text: ['Hello World', 'x'] });
    expect(r.body).toEqual({
      tokens: [
        { token: 'hello', start_offset: 0, end_offset: 5, type: '<ALPHANUM>', position: 0 },
        { token: 'world', start_offset: 6, end_offset: 11, type: '<ALPHANUM>', position: 1 },
        { token: 'x', start_offset: 12, end_offset: 13, type: '<ALPHANUM>', position: 102 },
      ],
    });
    const t = await call('POST', '/_analyze', { tokenizer: 'whitespace', filter: ['uppercase'], text: 'a b' });
    expect(t.body.tokens.map((x: any) => x.token)).toEqual(['A', 'B']);
    const missing = await call('POST', '/_analyze', { analyzer: 'standard' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.type).toBe('action_request_validation_exception');
    await call('PUT', '/an', { mappings: { properties: { k: { type: 'keyword', normalizer: 'lowercase' } } } });
    expect((await call('POST', '/an/_analyze', { field: 'k', text: 'ABC Def' })).body.tokens[0].token).toBe('abc def');
  });

  it('documents: dynamic mapping updates, auto-create and parse errors', async () => {
    const r = await call('PUT', '/dyn/_doc/1?refresh=true', { msg: 'Hello world', n: 5, ts: '2020-01-01T00:00:00Z', tags: ['a', 'b'], geo: { c: 'US' } });
    expect(r.status).toBe(201);
    const m = await call('GET', '/dyn/_mapping');
    expect(m.body.dyn.mappings.properties).toEqual({
      msg: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      n: { type: 'long' },
      ts: { type: 'date' },
      tags: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      geo: { properties: { c: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } },
    });
    const bad = await call('PUT', '/dyn/_doc/2', { n: 'abc' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('document_parsing_exception');
    expect(bad.body.error.reason).toBe("[1:6] failed to parse field [n] of type [long] in document with id '2'. Preview of field's value: 'abc'");
    await call('PUT', '/strict', { mappings: { dynamic: 'strict', properties: { a: { type: 'keyword' } } } });
    const st = await call('PUT', '/strict/_doc/1', { b: 1 });
    expect(st.status).toBe(400);
    expect(st.body.error.type).toBe('strict_dynamic_mapping_exception');
    const s = await call('POST', '/dyn/_search', { query: { match: { msg: 'hello' } } });
    if (s.status === 200) expect(s.body.hits.total.value).toBe(1);
  });

  it('error shapes of bad requests', async () => {
    const unknown = await call('PUT', '/e1', { foo: {} });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ type: 'parse_exception', reason: 'unknown key [foo] for create index' });
    const badMap = await call('PUT', '/e1', { mappings: { properties: { a: { type: 'nope' } } } });
    expect(badMap.body.error.root_cause[0]).toMatchObject({ type: 'mapper_parsing_exception', reason: 'No handler for type [nope] declared on field [a]' });
    expect(badMap.body.error.reason).toBe('Failed to parse mapping: No handler for type [nope] declared on field [a]');
    expect((await call('HEAD', '/e1')).status).toBe(404);
    await call('PUT', '/e1');
    const noBody = await call('PUT', '/e1/_mapping');
    expect(noBody.status).toBe(400);
    const missingIdx = await call('PUT', '/nope/_mapping', { properties: {} });
    expect(missingIdx.status).toBe(404);
    expect(missingIdx.body.error.type).toBe('index_not_found_exception');
    const dm = await call('PUT', '/%3Cdm-%7Bnow%2Fy%7Byyyy%7D%7D%3E');
    expect(dm.body.index).toBe(`dm-${new Date().getUTCFullYear()}`);
  });

  it('close/open and resolve', async () => {
    await call('PUT', '/c1');
    expect((await call('POST', '/c1/_close')).body).toEqual({ acknowledged: true, shards_acknowledged: true, indices: { c1: { closed: true } } });
    expect((await call('POST', '/c1/_open')).body).toEqual({ acknowledged: true, shards_acknowledged: true });
    const r = await call('GET', '/_resolve/index/c*');
    expect(r.body).toEqual({ indices: [{ name: 'c1', attributes: ['open'] }], aliases: [], data_streams: [] });
  });
});
