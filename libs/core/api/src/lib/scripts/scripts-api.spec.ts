import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

/** _update with a script and stored scripts (black box) */
describe('update scripts and stored scripts', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-update-scripts-', settings: { 'node.name': 'n1' } });
    const lines = [
      { index: { _index: 'p', _id: '1' } }, { name: 'a', n: 1, tags: ['x'], price: 2.5 },
      { index: { _index: 'p', _id: '2' } }, { name: 'b', n: 5, tags: [], price: 4 },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n';
    const r = await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error(r.text);
  });
  afterAll(() => api.close());

  it('_update with a script changes _source with params, ctx.op noop and delete', async () => {
    const r = await call('POST', '/p/_update/1', { script: { source: 'ctx._source.n += params.by; ctx._source.tags.add(params.tag)', params: { by: 4, tag: 'y' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ _index: 'p', _id: '1', _version: 2, result: 'updated' });
    expect((await call('GET', '/p/_doc/1')).body._source).toEqual({ name: 'a', n: 5, tags: ['x', 'y'], price: 2.5 });
    const noop = await call('POST', '/p/_update/1', { script: "if (ctx._source.n > 3) { ctx.op = 'noop' } else { ctx._source.n = 0 }" });
    expect(noop.body).toEqual({ _index: 'p', _id: '1', _version: 2, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 }, _seq_no: expect.any(Number), _primary_term: 1 });
    const del = await call('POST', '/p/_update/2?refresh=true', { script: "if (ctx._source.tags.isEmpty()) { ctx.op = 'delete' }" });
    expect(del.body).toMatchObject({ _id: '2', result: 'deleted', _version: 2 });
    expect((await call('GET', '/p/_doc/2')).status).toBe(404);
    const bad = await call('POST', '/p/_update/1', { script: "ctx.op = 'explode'" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Operation type [explode] not allowed, only [none, noop, index, delete] are allowed' });
  });

  it('ctx._now, metadata and doubles; upsert and scripted_upsert', async () => {
    const r = await call('POST', '/p/_update/1?refresh=true', { script: "ctx._source.when = ctx._now > 0; ctx._source.id = ctx._id + ':' + ctx._index; ctx._source.half = ctx._source.price * 2 / 4", _source: true });
    expect(r.body.get._source).toEqual({ name: 'a', n: 5, tags: ['x', 'y'], price: 2.5, when: true, id: '1:p', half: 1.25 });
    const up = await call('POST', '/p/_update/9', { script: 'ctx._source.n += 1', upsert: { n: 100 } });
    expect(up.body).toMatchObject({ result: 'created', _version: 1 });
    expect((await call('GET', '/p/_doc/9')).body._source).toEqual({ n: 100 });
    const sup = await call('POST', '/p/_update/10', { scripted_upsert: true, script: { source: 'ctx._source.n = params.start; ctx._source.op = ctx.op', params: { start: 7 } }, upsert: {} });
    expect(sup.body).toMatchObject({ result: 'created' });
    expect((await call('GET', '/p/_doc/10')).body._source).toEqual({ n: 7, op: 'create' });
    const missing = await call('POST', '/p/_update/404', { script: 'ctx._source.n = 1' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('document_missing_exception');
  });

  it('script errors in _update are script_exception', async () => {
    const r = await call('POST', '/p/_update/1', { script: 'ctx._source.nope.x = 1' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      type: 'script_exception',
      reason: 'runtime error',
      script_stack: ['ctx._source.nope.x = 1', '                   ^---- HERE'],
      caused_by: { type: 'null_pointer_exception' },
    });
    const c = await call('POST', '/p/_update/1', { script: 'ctx._source.n = ' });
    expect(c.body.error).toMatchObject({ type: 'script_exception', reason: 'compile error' });
  });

  it('stored scripts: put, get, use by id in _update and search, delete', async () => {
    const put = await call('PUT', '/_scripts/bump', { script: { lang: 'painless', source: 'ctx._source.n += params.by' } });
    expect(put.body).toEqual({ acknowledged: true });
    expect((await call('GET', '/_scripts/bump')).body).toEqual({ _id: 'bump', found: true, script: { lang: 'painless', source: 'ctx._source.n += params.by' } });
    const u = await call('POST', '/p/_update/9?refresh=true', { script: { id: 'bump', params: { by: 5 } } });
    expect(u.body).toMatchObject({ result: 'updated' });
    expect((await call('GET', '/p/_doc/9')).body._source).toEqual({ n: 105 });
    await call('PUT', '/_scripts/big', { script: { lang: 'painless', source: "doc['n'].value > params.min" } });
    const s = await call('POST', '/p/_search', { query: { script: { script: { id: 'big', params: { min: 50 } } } }, _source: false });
    expect(s.body.hits.hits.map((h: any) => h._id)).toEqual(['9']);
    expect((await call('DELETE', '/_scripts/big')).body).toEqual({ acknowledged: true });
    expect((await call('GET', '/_scripts/big')).status).toBe(404);
    expect((await call('GET', '/_scripts/big')).body).toEqual({ _id: 'big', found: false });
    const gone = await call('DELETE', '/_scripts/big');
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ type: 'resource_not_found_exception', reason: 'stored script [big] does not exist' });
    const missingId = await call('POST', '/p/_update/9', { script: { id: 'nope' } });
    expect(missingId.status).toBe(404);
    expect(missingId.body.error).toMatchObject({ type: 'resource_not_found_exception', reason: 'unable to find script [nope] in cluster state' });
    const badLang = await call('PUT', '/_scripts/x', { script: { source: '1' } });
    expect(badLang.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'must specify lang for stored script' });
    const badSrc = await call('PUT', '/_scripts/x', { script: { lang: 'painless', source: 'emit(' } });
    expect(badSrc.status).toBe(400);
    expect(badSrc.body.error.type).toBe('script_exception');
  });
});
