import { startConformanceHost, type Conformance } from './harness.js';

/**
 * HTTP layer, error shapes, common parameters, index APIs: black-box comparison with Elasticsearch 8.x.
 * `it.failing` marks a confirmed difference (flip to `it` once fixed).
 */
describe('conformance: http, errors and index APIs', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/h1', { mappings: { properties: { k: { type: 'keyword' }, n: { type: 'long' } } } });
    await es.req('PUT', '/h1/_doc/1?refresh=true', { k: 'a', n: 1 });
  });
  afterAll(() => es.close());

  it('X-Elastic-Product on success, error, HEAD 404 and unknown routes', async () => {
    for (const [m, p] of [
      ['GET', '/'],
      ['GET', '/nope/_search'],
      ['HEAD', '/nope/_doc/1'],
      ['GET', '/h1/_bar'],
    ]) {
      const r = await es.req(m, p);
      expect([p, r.headers['x-elastic-product']]).toEqual([p, 'Elasticsearch']);
    }
  });

  it('index_not_found_exception shape', async () => {
    const r = await es.req('GET', '/nope/_search');
    expect(r.status).toBe(404);
    expect(r.json).toEqual({
      error: {
        root_cause: [{ type: 'index_not_found_exception', reason: 'no such index [nope]', 'resource.type': 'index_or_alias', 'resource.id': 'nope', index_uuid: '_na_', index: 'nope' }],
        type: 'index_not_found_exception',
        reason: 'no such index [nope]',
        'resource.type': 'index_or_alias',
        'resource.id': 'nope',
        index_uuid: '_na_',
        index: 'nope',
      },
      status: 404,
    });
  });

  it('unknown URL parameter, wrong method, unknown endpoint, unsupported content type', async () => {
    const p = await es.req('GET', '/h1/_search?foo=bar');
    expect(p.status).toBe(400);
    expect(p.json.error.reason).toBe('request [/h1/_search] contains unrecognized parameter: [foo]');
    const m = await es.req('DELETE', '/h1/_search');
    expect(m.status).toBe(405);
    expect(m.json).toEqual({ error: 'Incorrect HTTP method for uri [/h1/_search] and method [DELETE], allowed: [HEAD, GET, POST]', status: 405 });
    const u = await es.req('GET', '/h1/_bar');
    expect(u.status).toBe(400);
    expect(u.json).toEqual({ error: 'no handler found for uri [/h1/_bar] and method [GET]', status: 400 });
    const ct = await es.req('POST', '/h1/_search', '{"size":0}', { 'Content-Type': 'text/plain' });
    expect(ct.status).toBe(406);
    expect(ct.json).toEqual({ error: 'Content-Type header [text/plain] is not supported', status: 406 });
  });

  it('malformed JSON: 400 x_content_parse_exception; unknown top-level key: parsing_exception', async () => {
    const j = await es.req('POST', '/h1/_search', '{"query":');
    expect(j.status).toBe(400);
    expect(j.json.error.type).toBe('x_content_parse_exception');
    const k = await es.req('POST', '/h1/_search', { qury: {} });
    expect(k.status).toBe(400);
    expect(k.json.error).toMatchObject({ type: 'parsing_exception', reason: 'Unknown key for a START_OBJECT in [qury].' });
  });

  // Jackson runs with STRICT_DUPLICATE_DETECTION in Elasticsearch: a repeated key is a parse error, never "last wins"
  it('duplicate keys in a search body are a 400', async () => {
    const r = await es.req('POST', '/h1/_search', '{"size":1,"size":2}');
    expect(r.status).toBe(400);
  });

  it('duplicate keys in a document are a 400 and nothing is indexed', async () => {
    const r = await es.req('PUT', '/hw/_doc/dup', '{"k":"a","k":"b"}');
    expect(r.status).toBe(400);
    expect((await es.req('GET', '/hw/_doc/dup')).json.found).not.toBe(true);
  });

  // TimeValue.parseTimeValue -> ElasticsearchParseException (400); the write must not happen
  it('an unparsable timeout parameter is a 400 parse_exception and the doc is not written', async () => {
    const r = await es.req('PUT', '/hw/_doc/t?timeout=abc', { k: 'x' });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({
      type: 'parse_exception',
      reason: 'failed to parse setting [timeout] with value [abc] as a time value: unit is missing or unrecognized',
    });
    expect((await es.req('GET', '/hw/_doc/t')).json.found).not.toBe(true);
  });

  // RestCompatibleVersionHelper: with a body, Accept and Content-Type compatible-with versions must match
  it('compatible-with=7 Accept with a compatible-with=8 Content-Type body is a 400', async () => {
    const r = await es.req('POST', '/h1/_search', '{"size":0}', {
      'Content-Type': 'application/vnd.elasticsearch+json; compatible-with=8',
      Accept: 'application/vnd.elasticsearch+json; compatible-with=7',
    });
    expect(r.status).toBe(400);
    expect(r.text).toContain(
      'A compatible version is required on both Content-Type and Accept headers if either one has requested a compatible version and the compatible versions must match.',
    );
  });

  it('compatible media type is echoed in Content-Type', async () => {
    const r = await es.req('GET', '/h1/_count', undefined, { Accept: 'application/vnd.elasticsearch+json; compatible-with=8' });
    expect(r.headers['content-type']).toBe('application/vnd.elasticsearch+json;compatible-with=8');
  });

  it('?pretty, filter_path (include, exclude, **), HEAD without body', async () => {
    const p = await es.req('GET', '/h1/_count?pretty&filter_path=count');
    expect(p.text).toBe('{\n  "count" : 1\n}\n');
    expect((await es.req('GET', '/h1/_count?filter_path=-_shards')).json).toEqual({ count: 1 });
    expect((await es.req('GET', '/h1/_search?filter_path=**.k')).json).toEqual({ hits: { hits: [{ _source: { k: 'a' } }] } });
    expect((await es.req('GET', '/h1/_search?size=0&filter_path=nothing.here')).json).toEqual({});
    const h = await es.req('HEAD', '/h1');
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
  });

  it('URL-encoded and literal comma lists, wildcards with exclusion, ignore_unavailable, allow_no_indices', async () => {
    await es.req('PUT', '/h2/_doc/1?refresh=true', { k: 'b' });
    expect((await es.req('GET', '/h1%2Ch2/_count')).json.count).toBe(2);
    expect((await es.req('GET', '/h1,h2/_count')).json.count).toBe(2);
    expect((await es.req('GET', '/h*,-h2/_count')).json.count).toBe(1);
    expect((await es.req('GET', '/h1,nope/_count')).status).toBe(404);
    expect((await es.req('GET', '/h1,nope/_count?ignore_unavailable=true')).json.count).toBe(1);
    expect((await es.req('GET', '/nope*/_count')).json.count).toBe(0);
    expect((await es.req('GET', '/nope*/_count?allow_no_indices=false')).status).toBe(404);
  });

  it('index create errors: exists, uppercase, leading underscore; DELETE with wildcard needs a name', async () => {
    const ex = await es.req('PUT', '/h1');
    expect(ex.status).toBe(400);
    expect(ex.json.error.type).toBe('resource_already_exists_exception');
    expect(ex.json.error.reason).toMatch(/^index \[h1\/[^\]]+\] already exists$/);
    const up = await es.req('PUT', '/Hx');
    expect(up.json.error).toMatchObject({ type: 'invalid_index_name_exception', reason: 'Invalid index name [Hx], must be lowercase' });
    const us = await es.req('PUT', '/_hx');
    expect(us.json.error.reason).toBe("Invalid index name [_hx], must not start with '_', '-', or '+'");
    const w = await es.req('DELETE', '/h*');
    expect(w.status).toBe(400);
    expect(w.json.error.reason).toBe('Wildcard expressions or all indices are not allowed');
  });

  it('mappings: type change rejected, unknown type, unknown parameter', async () => {
    const c = await es.req('PUT', '/h1/_mapping', { properties: { k: { type: 'long' } } });
    expect(c.status).toBe(400);
    expect(c.json.error.reason).toBe('mapper [k] cannot be changed from type [keyword] to [long]');
    const t = await es.req('PUT', '/h1/_mapping', { properties: { z: { type: 'nosuchtype' } } });
    expect(t.json.error).toMatchObject({ type: 'mapper_parsing_exception', reason: 'No handler for type [nosuchtype] declared on field [z]' });
    const u = await es.req('PUT', '/hm', { mappings: { properties: { x: { type: 'keyword', foo: 1 } } } });
    expect(u.json.error).toMatchObject({ type: 'mapper_parsing_exception', reason: 'Failed to parse mapping: unknown parameter [foo] on mapper [x] of type [keyword]' });
  });

  it('settings: static setting not updatable, unknown setting rejected', async () => {
    const s = await es.req('PUT', '/h1/_settings', { index: { number_of_shards: 3 } });
    expect(s.status).toBe(400);
    expect(s.json.error.reason).toBe('final index setting [index.number_of_shards], not updateable');
    const u = await es.req('PUT', '/h1/_settings', { index: { unknown_setting: 1 } });
    expect(u.json.error.reason).toBe(
      'unknown setting [index.unknown_setting] please check that any required plugins are installed, or check the breaking changes documentation for removed settings',
    );
  });

  it('aliases: is_write_index routes writes; GET /_alias shape', async () => {
    await es.req('POST', '/_aliases', { actions: [{ add: { index: 'h1', alias: 'al', is_write_index: true } }, { add: { index: 'h2', alias: 'al' } }] });
    expect((await es.req('GET', '/_alias/al')).json).toEqual({ h1: { aliases: { al: { is_write_index: true } } }, h2: { aliases: { al: {} } } });
    expect((await es.req('PUT', '/al/_doc/w?refresh=true', { k: 'w' })).json._index).toBe('h1');
    expect((await es.req('GET', '/al/_count')).json.count).toBe(3);
    const missing = await es.req('GET', '/_alias/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: 'alias [nope] missing', status: 404 });
  });

  it('closed index: search is index_closed_exception, ignore_unavailable skips it', async () => {
    await es.req('PUT', '/hc/_doc/1?refresh=true', { a: 1 });
    await es.req('POST', '/hc/_close');
    const r = await es.req('GET', '/hc/_count');
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ type: 'index_closed_exception', reason: 'closed', index: 'hc' });
    const uuid = (await es.req('GET', '/hc/_settings')).json.hc.settings.index.uuid;
    expect(typeof uuid).toBe('string');
    expect(r.json.error.index_uuid).toBe(uuid);
    expect((await es.req('GET', '/hc/_search?ignore_unavailable=true')).json.hits.total.value).toBe(0);
  });
});
