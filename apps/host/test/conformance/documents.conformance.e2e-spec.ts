import { startConformanceHost, type Conformance } from './harness.js';

/**
 * Documents, _bulk, versioning, routing, refresh: black-box comparison with Elasticsearch 8.x.
 * `it.failing` marks a confirmed difference (flip to `it` once fixed).
 */
describe('conformance: documents', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/docs', {
      settings: { number_of_shards: 2 },
      mappings: { properties: { k: { type: 'keyword' }, n: { type: 'long' } } },
    });
  });
  afterAll(() => es.close());

  it('index / re-index / op_type=create conflict / _create conflict: statuses, result and seq_no', async () => {
    const a = await es.req('PUT', '/docs/_doc/1', { k: 'a', n: 1 });
    expect(a.status).toBe(201);
    expect(a.json).toEqual({
      _index: 'docs',
      _id: '1',
      _version: 1,
      result: 'created',
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    });
    const b = await es.req('PUT', '/docs/_doc/1', { k: 'b', n: 2 });
    expect(b.status).toBe(200);
    expect(b.json).toMatchObject({ _version: 2, result: 'updated', _seq_no: 1 });
    for (const path of ['/docs/_doc/1?op_type=create', '/docs/_create/1']) {
      const c = await es.req('PUT', path, { k: 'c' });
      expect(c.status).toBe(409);
      expect(c.json.error.type).toBe('version_conflict_engine_exception');
      expect(c.json.error.reason).toBe('[1]: version conflict, document already exists (current version [2])');
    }
  });

  it('if_seq_no / if_primary_term mismatch: 409 with the exact ES reason', async () => {
    await es.req('PUT', '/docs/_doc/cas', { k: 'x' }); // seq_no of this doc in its shard is what it is; read it back
    const g = await es.req('GET', '/docs/_doc/cas');
    const seq = g.json._seq_no as number;
    const r = await es.req('PUT', `/docs/_doc/cas?if_seq_no=${seq + 5}&if_primary_term=1`, { k: 'y' });
    expect(r.status).toBe(409);
    expect(r.json.error.reason).toBe(
      `[cas]: version conflict, required seqNo [${seq + 5}], primary term [1]. current document has seqNo [${seq}] and primary term [1]`,
    );
    const ok = await es.req('PUT', `/docs/_doc/cas?if_seq_no=${seq}&if_primary_term=1`, { k: 'y' });
    expect(ok.status).toBe(200);
  });

  it('external versioning: higher wins, lower/equal is a 409', async () => {
    expect((await es.req('PUT', '/docs/_doc/ext?version=10&version_type=external', { k: 'a' })).json._version).toBe(10);
    const low = await es.req('PUT', '/docs/_doc/ext?version=10&version_type=external', { k: 'a' });
    expect(low.status).toBe(409);
    expect(low.json.error.reason).toBe('[ext]: version conflict, current version [10] is higher or equal to the one provided [10]');
    const noVersion = await es.req('PUT', '/docs/_doc/ext?version_type=external', { k: 'a' });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.reason).toBe('Validation Failed: 1: illegal version value [-3] for version type [EXTERNAL];');
  });

  it('GET missing doc is 404 {found:false}; HEAD is 200/404 with no body', async () => {
    const m = await es.req('GET', '/docs/_doc/nope');
    expect(m.status).toBe(404);
    expect(m.json).toEqual({ _index: 'docs', _id: 'nope', found: false });
    const h = await es.req('HEAD', '/docs/_doc/1');
    expect(h.status).toBe(200);
    expect(h.text).toBe('');
    expect((await es.req('HEAD', '/docs/_doc/nope')).status).toBe(404);
    expect((await es.req('HEAD', '/nope-index/_doc/1')).status).toBe(404);
  });

  it('custom routing: doc invisible to GET without the routing value', async () => {
    await es.req('PUT', '/routed', { settings: { number_of_shards: 3 } });
    await es.req('PUT', '/routed/_doc/1?routing=abc&refresh=true', { x: 1 });
    // murmur3("abc") % 3 != murmur3("1") % 3, so a GET without routing looks in another shard
    expect((await es.req('GET', '/routed/_doc/1')).json.found).toBe(false);
    const g = await es.req('GET', '/routed/_doc/1?routing=abc');
    expect(g.json).toMatchObject({ found: true, _routing: 'abc', _source: { x: 1 } });
  });

  it('refresh semantics: not searchable before refresh, realtime GET sees it', async () => {
    await es.req('PUT', '/nrt', { settings: { refresh_interval: '-1' } });
    await es.req('PUT', '/nrt/_doc/1', { a: 1 });
    expect((await es.req('GET', '/nrt/_count')).json.count).toBe(0);
    expect((await es.req('GET', '/nrt/_doc/1?realtime=false')).json.found).toBe(false);
    expect((await es.req('GET', '/nrt/_doc/1')).json.found).toBe(true);
    const w = await es.req('PUT', '/nrt/_doc/2?refresh=true', { a: 2 });
    expect(w.json.forced_refresh).toBe(true);
    expect((await es.req('GET', '/nrt/_count')).json.count).toBe(2);
  });

  it('concurrent _create of one id: exactly one 201, the rest 409', async () => {
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => es.req('PUT', '/docs/_create/race', { i })));
    expect(rs.filter((r) => r.status === 201)).toHaveLength(1);
    expect(rs.filter((r) => r.status === 409)).toHaveLength(19);
  });

  it('_bulk: per-item statuses and errors, errors:true, order kept', async () => {
    const r = await es.bulk('/_bulk?refresh=true', [
      { index: { _index: 'bk', _id: '1' } },
      { a: 1 },
      { create: { _index: 'bk', _id: '1' } },
      { a: 2 },
      { update: { _index: 'bk', _id: '1' } },
      { doc: { b: 2 } },
      { delete: { _index: 'bk', _id: '9' } },
      { update: { _index: 'bk', _id: '7' } },
      { doc: { b: 2 } },
      { index: { _index: 'bk', _id: '2' } },
      { a: 'not-a-number' },
    ]);
    expect(r.status).toBe(200);
    expect(r.json.errors).toBe(true);
    const items = r.json.items.map((i: Record<string, { status: number; result?: string; error?: { type: string } }>) => {
      const [op, v] = Object.entries(i)[0];
      return [op, v.status, v.result ?? v.error?.type];
    });
    expect(items).toEqual([
      ['index', 201, 'created'],
      ['create', 409, 'version_conflict_engine_exception'],
      ['update', 200, 'updated'],
      ['delete', 404, 'not_found'],
      ['update', 404, 'document_missing_exception'],
      ['index', 400, 'document_parsing_exception'],
    ]);
  });

  it('_bulk: bad action line / unknown action parameter fail the whole request with 400', async () => {
    const bad = await es.req('POST', '/bk/_bulk', '{"foo":{}}\n{}\n', { 'Content-Type': 'application/x-ndjson' });
    expect(bad.status).toBe(400);
    expect(bad.json.error.reason).toBe(
      'Malformed action/metadata line [1], expected field [create], [delete], [index] or [update] but found [foo]',
    );
    const unknown = await es.req('POST', '/_bulk', '{"index":{"_index":"bk","foo":1}}\n{"a":1}\n', { 'Content-Type': 'application/x-ndjson' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.reason).toBe('Action/metadata line [1] contains an unknown parameter [foo]');
  });

  // BulkRequestParser.findNextMarker: no '\n' after the last line and data left over -> IllegalArgumentException.
  it('_bulk: a last line without its trailing newline is a 400 (nothing indexed)', async () => {
    const nl = await es.req('POST', '/bknl/_bulk', '{"index":{"_id":"1"}}\n{"a":1}', { 'Content-Type': 'application/x-ndjson' });
    expect(nl.status).toBe(400);
    expect(nl.json.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'The bulk request must be terminated by a newline [\\n]' });
    const del = await es.req('POST', '/_bulk', '{"delete":{"_index":"bk","_id":"1"}}', { 'Content-Type': 'application/x-ndjson' });
    expect(del.status).toBe(400);
    expect((await es.req('GET', '/bk/_doc/1')).json.found).toBe(true);
  });

  // BulkRequestParser.parseActionLine: an update action with version/version_type fails the whole request
  it('_bulk: an update action with a version is a 400 for the whole request', async () => {
    const r = await es.bulk('/_bulk', [{ update: { _index: 'bk', _id: '1', version: 3 } }, { doc: { z: 1 } }]);
    expect(r.status).toBe(400);
    expect(r.json.error.reason).toBe('Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead');
  });

  // ES runs get-modify-write of one doc under the shard's per-id lock: parallel partial updates do not conflict
  it('30 parallel _update calls on one document all succeed (retry_on_conflict=0)', async () => {
    await es.req('PUT', '/updp/_doc/1', { n: 0 });
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => es.req('POST', '/updp/_update/1', { doc: { [`f${i}`]: i } })));
    expect(rs.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);
    const g = await es.req('GET', '/updp/_doc/1');
    expect(g.json._version).toBe(31);
    expect(Object.keys(g.json._source)).toHaveLength(31);
  });

  it('update: doc merge, noop on identical doc, doc_as_upsert, upsert', async () => {
    await es.req('PUT', '/upd/_doc/1', { a: 1 });
    expect((await es.req('POST', '/upd/_update/1', { doc: { c: 3 } })).json.result).toBe('updated');
    const noop = await es.req('POST', '/upd/_update/1', { doc: { c: 3 } });
    expect(noop.status).toBe(200);
    expect(noop.json).toMatchObject({ result: 'noop', _shards: { total: 0, successful: 0, failed: 0 } });
    const miss = await es.req('POST', '/upd/_update/5', { doc: { c: 3 } });
    expect(miss.status).toBe(404);
    expect(miss.json.error).toMatchObject({ type: 'document_missing_exception', reason: '[5]: document missing' });
    expect((await es.req('POST', '/upd/_update/5', { doc: { c: 3 }, doc_as_upsert: true })).status).toBe(201);
    expect((await es.req('GET', '/upd/_source/1')).json).toEqual({ a: 1, c: 3 });
  });

  // ES stores _source as the bytes it received and returns them verbatim (Lucene stored field).
  // Strata parses the JSON into JS values and re-serialises it: integers above 2^53 lose digits.
  it('_source keeps a long above 2^53 exactly (ES returns the original bytes)', async () => {
    await es.req('PUT', '/src/_doc/big?refresh=true', '{"v":9007199254740993}');
    const g = await es.req('GET', '/src/_doc/big');
    expect(g.text).toContain('"_source":{"v":9007199254740993}');
    const s = await es.req('GET', '/src/_source/big');
    expect(s.text).toBe('{"v":9007199254740993}');
  });

  it('_source is returned byte for byte (1.0, 1e3, spacing and escapes kept)', async () => {
    const raw = '{"b": 1,  "x":1.0, "y":1e3, "e":"\\u00e9"}';
    await es.req('PUT', '/src/_doc/raw?refresh=true', raw);
    expect((await es.req('GET', '/src/_source/raw')).text).toBe(raw);
  });

  // longs beyond 2^53 are exact (a side field per segment; see exact-longs.e2e-spec.ts for sorts, aggregations,
  // restarts and merges)
  it('a long term query does not match a neighbouring value above 2^53', async () => {
    await es.req('PUT', '/src2', { mappings: { properties: { v: { type: 'long' } } } });
    await es.req('PUT', '/src2/_doc/1?refresh=true', '{"v":9007199254740993}');
    const hit = await es.req('POST', '/src2/_count', '{"query":{"term":{"v":9007199254740993}}}');
    expect(hit.json.count).toBe(1);
    const miss = await es.req('POST', '/src2/_count', '{"query":{"term":{"v":9007199254740992}}}');
    expect(miss.json.count).toBe(0);
  });

  // Elasticsearch's root_cause only descends into causes that are ElasticsearchExceptions; a Java
  // IllegalArgumentException / NumberFormatException cause stays in caused_by (ElasticsearchException.guessRootCauses).
  it('document_parsing_exception is its own root_cause (the Java cause stays in caused_by)', async () => {
    const r = await es.req('PUT', '/docs/_doc/bad', { n: 'x' });
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('document_parsing_exception');
    expect(r.json.error.root_cause).toHaveLength(1);
    expect(r.json.error.root_cause[0].type).toBe('document_parsing_exception');
    expect(r.json.error.caused_by.type).toBe('illegal_argument_exception');
  });

  it('object field given a scalar / metadata field in source: document_parsing_exception 400', async () => {
    await es.req('PUT', '/dyn/_doc/1', { o: { x: 'y' } });
    const r = await es.req('PUT', '/dyn/_doc/2', { o: 'scalar' });
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('document_parsing_exception');
    expect(r.json.error.reason).toBe('[1:6] object mapping for [o] tried to parse field [o] as object, but found a concrete value');
    const m = await es.req('PUT', '/dyn/_doc/3', { _id: 'x' });
    expect(m.status).toBe(400);
    expect(m.json.error.reason).toBe(
      '[1:8] Field [_id] is a metadata field and cannot be added inside a document. Use the index API request parameters.',
    );
  });

  it('keyword ignore_above: the doc is indexed but the long value is not searchable', async () => {
    await es.req('PUT', '/ign', { mappings: { properties: { k: { type: 'keyword', ignore_above: 5 } } } });
    expect((await es.req('PUT', '/ign/_doc/1?refresh=true', { k: 'toolongvalue' })).status).toBe(201);
    expect((await es.req('POST', '/ign/_count', { query: { term: { k: 'toolongvalue' } } })).json.count).toBe(0);
  });

  // the _ignored metadata field records fields skipped by ignore_above / ignore_malformed and is searchable
  it('ignore_above: the field is listed in _ignored (exists query on _ignored finds the doc)', async () => {
    expect((await es.req('POST', '/ign/_count', { query: { exists: { field: '_ignored' } } })).json.count).toBe(1);
    const g = await es.req('GET', '/ign/_doc/1');
    expect(g.json._ignored).toEqual(['k']);
  });

  it('_ignored: term query, search hits (after _score, before _source), ignore_malformed, realtime get', async () => {
    await es.req('PUT', '/ign2', { mappings: { properties: { k: { type: 'keyword', ignore_above: 3 }, n: { type: 'long', ignore_malformed: true } } } });
    await es.req('PUT', '/ign2/_doc/1', { k: 'long value', n: 'x' });
    expect((await es.req('GET', '/ign2/_doc/1')).json._ignored).toEqual(['k', 'n']);
    await es.req('PUT', '/ign2/_doc/2?refresh=true', { k: 'ab', n: 2 });
    const r = await es.req('POST', '/ign2/_search', { query: { term: { _ignored: 'n' } } });
    expect(r.json.hits.hits).toEqual([{ _index: 'ign2', _id: '1', _score: expect.any(Number), _ignored: ['k', 'n'], _source: { k: 'long value', n: 'x' } }]);
    expect(Object.keys(r.json.hits.hits[0])).toEqual(['_index', '_id', '_score', '_ignored', '_source']);
    const g2 = await es.req('GET', '/ign2/_doc/2');
    expect(g2.json._ignored).toBeUndefined();
  });

  // Lucene refuses terms longer than 32766 bytes: IndexWriter's IllegalArgumentException "Document contains at least
  // one immense term in field=..." fails the write with a 400 (keyword without ignore_above)
  it('a keyword value longer than 32766 bytes is rejected with 400 (immense term)', async () => {
    await es.req('PUT', '/imm', { mappings: { properties: { k: { type: 'keyword' } } } });
    const r = await es.req('PUT', '/imm/_doc/1', { k: 'a'.repeat(40000) });
    expect(r.status).toBe(400);
    expect(r.text).toContain('Document contains at least one immense term in field=\\"k\\"');
    expect((await es.req('GET', '/imm/_doc/1')).json.found).toBe(false);
  });

  it('dynamic mapping: text + .keyword(ignore_above 256), long, float, boolean, date, date_detection formats', async () => {
    await es.req('PUT', '/dyn2/_doc/1', { s: 'hello', l: 5, f: 1.5, b: true, dt: '2024-01-01T00:00:00Z', ds: '2024/01/01' });
    const m = await es.req('GET', '/dyn2/_mapping');
    expect(m.json.dyn2.mappings.properties).toEqual({
      s: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
      l: { type: 'long' },
      f: { type: 'float' },
      b: { type: 'boolean' },
      dt: { type: 'date' },
      ds: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis' },
    });
  });

  // NumberFieldMapper: a long parses with Numbers.toLong (IllegalArgumentException), queries go through
  // Double.parseDouble (NumberFormatException); QueryShardException names the index's real uuid
  it('unparsable numbers: illegal_argument_exception for a long document, number_format_exception in a term query', async () => {
    const d = await es.req('PUT', '/docs/_doc/nf', { n: 'abc' });
    expect(d.status).toBe(400);
    expect(d.json.error.root_cause).toEqual([
      { type: 'document_parsing_exception', reason: "[1:6] failed to parse field [n] of type [long] in document with id 'nf'. Preview of field's value: 'abc'" },
    ]);
    expect(d.json.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'For input string: "abc"' });
    const uuid = (await es.req('GET', '/docs/_settings')).json.docs.settings.index.uuid;
    const q = await es.req('POST', '/docs/_search', { query: { term: { n: 'abc' } } });
    expect(q.status).toBe(400);
    const reason = 'failed to create query: For input string: "abc"';
    expect(q.json.error.root_cause).toEqual([{ type: 'query_shard_exception', reason, index_uuid: uuid, index: 'docs' }]);
    expect(q.json.error.failed_shards[0].reason).toEqual({
      type: 'query_shard_exception',
      reason,
      index_uuid: uuid,
      index: 'docs',
      caused_by: { type: 'number_format_exception', reason: 'For input string: "abc"' },
    });
  });
});
