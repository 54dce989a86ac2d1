import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

/** black-box tests of the document endpoints over the real node (cluster metadata, mapper, storage). */
describe('document REST API', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-docs-' });
  });

  afterAll(() => api.close());

  it('PUT /{index}/_doc/{id} creates (201) then updates (200)', async () => {
    const r = await call('PUT', '/logs/_doc/1', { msg: 'a' });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      _index: 'logs',
      _id: '1',
      _version: 1,
      result: 'created',
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    });
    expect(r.headers.get('location')).toBe('/logs/_doc/1');
    const u = await call('PUT', '/logs/_doc/1?refresh=true', { msg: 'b' });
    expect(u.status).toBe(200);
    expect(u.body).toMatchObject({ result: 'updated', _version: 2, forced_refresh: true });
  });

  it('POST /{index}/_doc auto-generates ids; _create conflicts with 409', async () => {
    const r = await call('POST', '/logs/_doc', { msg: 'x' });
    expect(r.status).toBe(201);
    expect(r.body._id).toMatch(/^[A-Za-z0-9_-]{20}$/);
    const c = await call('PUT', '/logs/_create/1', { msg: 'c' });
    expect(c.status).toBe(409);
    expect(c.body.error.type).toBe('version_conflict_engine_exception');
    expect(c.body.error.reason).toBe('[1]: version conflict, document already exists (current version [2])');
    expect(c.body.error.index).toBe('logs');
    expect(c.body.status).toBe(409);
  });

  it('if_seq_no conflicts answer 409 with the ES reason', async () => {
    await call('PUT', '/cas/_doc/1', { n: 1 });
    const r = await call('PUT', '/cas/_doc/1?if_seq_no=5&if_primary_term=1', { n: 2 });
    expect(r.status).toBe(409);
    expect(r.body.error.reason).toBe('[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [0] and primary term [1]');
    const ok = await call('PUT', '/cas/_doc/1?if_seq_no=0&if_primary_term=1', { n: 2 });
    expect(ok.status).toBe(200);
  });

  it('GET/HEAD _doc and _source', async () => {
    await call('PUT', '/g/_doc/1?routing=r', { a: 'x', b: 2 });
    const r = await call('GET', '/g/_doc/1?routing=r&_source_excludes=b');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ _index: 'g', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, _routing: 'r', found: true, _source: { a: 'x' } });
    expect((await call('GET', '/g/_doc/2')).body).toEqual({ _index: 'g', _id: '2', found: false });
    expect((await call('GET', '/g/_doc/2')).status).toBe(404);
    expect((await call('HEAD', '/g/_doc/1?routing=r')).status).toBe(200);
    expect((await call('HEAD', '/g/_doc/2')).status).toBe(404);
    const s = await call('GET', '/g/_source/1?routing=r');
    expect(s.body).toEqual({ a: 'x', b: 2 });
    const sm = await call('GET', '/g/_source/2');
    expect(sm.status).toBe(404);
    expect(sm.body.error.type).toBe('resource_not_found_exception');
    expect((await call('GET', '/missing/_doc/1')).body.error.type).toBe('index_not_found_exception');
  });

  it('DELETE answers 200 deleted then 404 not_found', async () => {
    await call('PUT', '/d/_doc/1', { a: 'x' });
    const r = await call('DELETE', '/d/_doc/1');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ _index: 'd', _id: '1', _version: 2, result: 'deleted', _seq_no: 1 });
    const n = await call('DELETE', '/d/_doc/1');
    expect(n.status).toBe(404);
    expect(n.body.result).toBe('not_found');
  });

  it('POST _update merges, reports noop, and rejects unknown fields', async () => {
    await call('PUT', '/u/_doc/1', { a: 'x', o: { p: 1 } });
    const r = await call('POST', '/u/_update/1?_source=true', { doc: { o: { q: 2 } } });
    expect(r.status).toBe(200);
    expect(r.body.result).toBe('updated');
    expect(r.body.get._source).toEqual({ a: 'x', o: { p: 1, q: 2 } });
    const n = await call('POST', '/u/_update/1', { doc: { a: 'x' } });
    expect(n.body.result).toBe('noop');
    const m = await call('POST', '/u/_update/404', { doc: { a: 'x' } });
    expect(m.status).toBe(404);
    expect(m.body.error.type).toBe('document_missing_exception');
    const bad = await call('POST', '/u/_update/1', { dok: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('x_content_parse_exception');
  });

  it('_mget', async () => {
    await call('PUT', '/m/_doc/1', { a: 'x' });
    const r = await call('POST', '/m/_mget', { ids: ['1', '2'] });
    expect(r.status).toBe(200);
    expect(r.body.docs[0]).toMatchObject({ _id: '1', found: true, _source: { a: 'x' } });
    expect(r.body.docs[1]).toEqual({ _index: 'm', _id: '2', found: false });
  });

  it('_bulk with an index in the path, lenient lines and refresh', async () => {
    const body =
      '{"index":{"_id":"1"}}\n{"f":"a"}\n' +
      '{"index":{"_index":"bk2","pipeline":null},"attempts":0}\n{"f":"b"}\n' +
      '{"create":{"_id":"1"}}\n{"f":"c"}\n' +
      '{"delete":{"_id":"1"}}\n';
    const r = await call('POST', '/bk/_bulk?refresh=true', body, NDJSON);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBe(true);
    expect(r.body.items.map((i: Record<string, { status: number }>) => Object.values(i)[0].status)).toEqual([201, 201, 409, 200]);
    expect(r.body.items[0].index).toMatchObject({ _index: 'bk', _id: '1', result: 'created', forced_refresh: true });
    expect(r.body.items[1].index._index).toBe('bk2');
    const bad = await call('POST', '/_bulk', '{"foo":{}}\n', NDJSON);
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('illegal_argument_exception');
  });

  it('_refresh and _flush', async () => {
    await call('PUT', '/rf/_doc/1', { a: 'x' });
    const r = await call('POST', '/rf/_refresh');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
    const g = await call('GET', '/rf/_refresh');
    expect(g.status).toBe(200);
    const f = await call('POST', '/rf/_flush');
    expect(f.body).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
    expect((await call('POST', '/nope/_refresh')).status).toBe(404);
  });

  it('rejects unknown parameters and bad refresh values', async () => {
    const r = await call('PUT', '/p/_doc/1?refresh=maybe', { a: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.error.reason).toBe('Unknown value for refresh: [maybe].');
    const u = await call('PUT', '/p/_doc/1?bogus=1', { a: 'x' });
    expect(u.status).toBe(400);
    expect(u.body.error.type).toBe('illegal_argument_exception');
  });

  it('index.blocks.write rejects index, bulk items and deletes with cluster_block_exception and changes nothing', async () => {
    expect((await call('PUT', '/blk/_doc/1?refresh=true', { a: 1 })).status).toBe(201);
    expect((await call('PUT', '/blk/_settings', { index: { 'blocks.write': true } })).status).toBe(200);
    const r = await call('PUT', '/blk/_doc/2', { a: 2 });
    expect(r.status).toBe(403);
    expect(r.body.error.type).toBe('cluster_block_exception');
    expect(r.body.error.reason).toBe('index [blk] blocked by: [FORBIDDEN/8/index write (api)];');
    const b = await call('POST', '/_bulk', '{"index":{"_index":"blk","_id":"3"}}\n{"a":3}\n', NDJSON);
    expect(b.body.errors).toBe(true);
    expect(b.body.items[0].index.status).toBe(403);
    expect(b.body.items[0].index.error.type).toBe('cluster_block_exception');
    expect((await call('DELETE', '/blk/_doc/1')).status).toBe(403);
    expect((await call('PUT', '/blk/_settings', { index: { 'blocks.write': false } })).status).toBe(200);
    await call('POST', '/blk/_refresh');
    expect((await call('GET', '/blk/_count')).body.count).toBe(1);
  });

  it('returns _source exactly as sent from GET, _source, mget and search (no re-serialisation)', async () => {
    const raw = '{"v":9007199254740993, "x":1.0,"y":1e3,"e":"\\u00e9","n":{"a":[1,2.50]}}';
    expect((await call('PUT', '/raw/_doc/1?refresh=true', raw, NDJSON)).status).toBe(201);
    const g = await call('GET', '/raw/_doc/1');
    expect(g.text).toBe(`{"_index":"raw","_id":"1","_version":1,"_seq_no":0,"_primary_term":1,"found":true,"_source":${raw}}`);
    expect((await call('GET', '/raw/_source/1')).text).toBe(raw);
    expect((await call('POST', '/_mget', { docs: [{ _index: 'raw', _id: '1' }] })).text).toContain(`"_source":${raw}}`);
    expect((await call('GET', '/raw/_search')).text).toContain(`"_source":${raw}}`);
    // filtering parses (as ES does): the filtered value is a re-serialisation
    expect((await call('GET', '/raw/_source/1?_source_includes=x,e')).text).toBe('{"x":1,"e":"é"}');
    // bulk-indexed sources too
    const bk = await call('POST', '/_bulk?refresh=true', '{"index":{"_index":"raw","_id":"2"}}\n{"big": 1234567890123456789}\n', NDJSON);
    expect(bk.body.items[0].index.error).toBeUndefined();
    expect((await call('GET', '/raw/_source/2')).text).toBe('{"big": 1234567890123456789}');
  });

  it('pretty re-indents the stored _source keeping its number tokens; filter_path still works', async () => {
    await call('PUT', '/rawp/_doc/1?refresh=true', '{"v":9007199254740993,"o":{"f":1.0,"a":[],"e":{}}}', NDJSON);
    const p = await call('GET', '/rawp/_source/1?pretty');
    expect(p.text).toBe('{\n  "v" : 9007199254740993,\n  "o" : {\n    "f" : 1.0,\n    "a" : [ ],\n    "e" : { }\n  }\n}\n');
    const d = await call('GET', '/rawp/_doc/1?pretty');
    expect(d.text).toContain('  "_source" : {\n    "v" : 9007199254740993,\n    "o" : {\n      "f" : 1.0,');
    expect((await call('GET', '/rawp/_doc/1?filter_path=_source.o.f')).text).toBe('{"_source":{"o":{"f":1}}}');
    expect((await call('GET', '/rawp/_doc/1?filter_path=_id,_source')).text).toBe('{"_id":"1","_source":{"v":9007199254740993,"o":{"f":1.0,"a":[],"e":{}}}}');
    expect((await call('GET', '/rawp/_search?filter_path=hits.hits._source.v')).body).toEqual({ hits: { hits: [{ _source: { v: 9007199254740992 } }] } });
  });

  it('timeout must be a time value: 400 parse_exception and nothing written', async () => {
    const r = await call('PUT', '/to/_doc/1?timeout=abc', { a: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      type: 'parse_exception',
      reason: 'failed to parse setting [timeout] with value [abc] as a time value: unit is missing or unrecognized',
    });
    expect((await call('GET', '/to/_doc/1')).status).toBe(404);
    expect((await call('PUT', '/to/_doc/1?timeout=1m', { a: 1 })).status).toBe(201);
    expect((await call('POST', '/to/_update/1?timeout=x', { doc: { a: 2 } })).body.error.type).toBe('parse_exception');
    expect((await call('DELETE', '/to/_doc/1?timeout=5')).body.error.type).toBe('parse_exception');
    expect((await call('POST', '/_bulk?timeout=1x', '{"delete":{"_index":"to","_id":"1"}}\n', NDJSON)).body.error.type).toBe('parse_exception');
    expect((await call('GET', '/to/_doc/1')).body.found).toBe(true);
  });

  it('_bulk: a body not ending with a newline fails as a whole; an update with a version too', async () => {
    const r = await call('POST', '/_bulk', '{"index":{"_index":"nl","_id":"1"}}\n{"a":1}', NDJSON);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'The bulk request must be terminated by a newline [\\n]' });
    expect((await call('GET', '/nl/_doc/1')).status).toBe(404);
    const u = await call('POST', '/_bulk', '{"index":{"_index":"nl","_id":"2"}}\n{"a":1}\n{"update":{"_index":"nl","_id":"2","version":2}}\n{"doc":{"a":2}}\n', NDJSON);
    expect(u.status).toBe(400);
    expect(u.body.error.reason).toBe('Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead');
    expect((await call('GET', '/nl/_doc/2')).status).toBe(404);
  });

  it('duplicate keys: 400 for a document and a search body, a failed item in _bulk', async () => {
    const d = await call('PUT', '/dup/_doc/1', '{"k":"a","o":{"x":1,"x":2}}', NDJSON);
    expect(d.status).toBe(400);
    expect(d.body.error.type).toBe('x_content_parse_exception');
    expect(d.body.error.reason).toBe("[1:24] Duplicate field 'x'");
    expect(d.body.error.caused_by.type).toBe('json_parse_exception');
    expect((await call('POST', '/_search', '{"size":1,"size":2}', NDJSON)).status).toBe(400);
    // the same key in different objects is fine
    expect((await call('PUT', '/dup/_doc/2', '{"x":"a:b","o":{"x":1},"p":[{"x":1},{"x":2}]}', NDJSON)).status).toBe(201);
    const b = await call('POST', '/_bulk', '{"index":{"_index":"dup","_id":"3"}}\n{"a":1,"a":2}\n{"index":{"_index":"dup","_id":"4"}}\n{"a":1}\n', NDJSON);
    expect(b.status).toBe(200);
    expect(b.body.items[0].index.status).toBe(400);
    expect(b.body.items[0].index.error).toMatchObject({ type: 'document_parsing_exception', reason: "[1:11] failed to parse: Duplicate field 'a'" });
    expect(b.body.items[1].index.status).toBe(201);
  });

  it('a keyword term above 32766 UTF-8 bytes is rejected (immense term) and nothing is written', async () => {
    await call('PUT', '/imm', { mappings: { properties: { k: { type: 'keyword' }, t: { type: 'text' } } } });
    const r = await call('PUT', '/imm/_doc/1', { k: 'é'.repeat(16384) });
    expect(r.status).toBe(400);
    expect(r.body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: r.body.error.reason }]);
    expect(r.body.error.reason).toBe(
      `Document contains at least one immense term in field="k" (whose UTF8 encoding is longer than the max length 32766), all of which were skipped.  Please correct the analyzer to not produce such terms.  The prefix of the first immense term is: '[${Array(15).fill('-61, -87').join(', ')}]...', original message: bytes can be at most 32766 in length; got 32768`,
    );
    expect(r.body.error.caused_by).toEqual({ type: 'max_bytes_length_exceeded_exception', reason: 'bytes can be at most 32766 in length; got 32768' });
    expect((await call('GET', '/imm/_doc/1')).status).toBe(404);
    // exactly at the limit, and long text (analysed into short tokens) are fine
    expect((await call('PUT', '/imm/_doc/2', { k: 'a'.repeat(32766), t: 'word '.repeat(10000) })).status).toBe(201);
  });

  it('parallel _update calls on one document are serialised (no version conflicts)', async () => {
    await call('PUT', '/par/_doc/1?refresh=true', { n: 0 });
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => call('POST', '/par/_update/1', { doc: { [`f${i}`]: i } })));
    expect(rs.map((r) => r.status)).toEqual(Array(30).fill(200));
    const g = await call('GET', '/par/_doc/1');
    expect(g.body._version).toBe(31);
    expect(Object.keys(g.body._source)).toHaveLength(31);
  });
});
