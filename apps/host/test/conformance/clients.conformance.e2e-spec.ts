import { startConformanceHost, type Conformance } from './harness.js';

/**
 * Real clients' wire behaviour (see /work/shared/CLIENTS.md): the raw requests that python-elasticsearch 7.17,
 * Search::Elasticsearch 8.00, elasticdump 6.x and @elastic/elasticsearch 8/9 send, and what they need back.
 * Each test reproduces headers, paths and bodies as the client sends them.
 */
describe('conformance: real clients on the wire', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/c1', { mappings: { properties: { k: { type: 'keyword' }, n: { type: 'long' } } } });
    await es.bulk('/c1/_bulk?refresh=true', [
      { index: { _id: '1' } },
      { k: 'a', n: 1 },
      { index: { _id: '2' } },
      { k: 'b', n: 2 },
      { index: { _id: '3' } },
      { k: 'c', n: 3 },
    ]);
  });
  afterAll(() => es.close());

  describe('elasticdump', () => {
    it('dump: GET /<i>/_search?scroll=10m&from=0 with stored_fields ["*"] and _source true returns _source and _scroll_id', async () => {
      // elasticdump 6.x's default search body for ES >= 5, sent with GET and Content-Type application/json
      const r = await es.req('GET', '/c1/_search?scroll=10m&from=0&size=2', { query: { match_all: {} }, stored_fields: ['*'], _source: true });
      expect(r.status).toBe(200);
      expect(typeof r.json._scroll_id).toBe('string');
      expect(r.json.hits.hits.map((h: { _id: string; _source: unknown }) => [h._id, h._source])).toEqual([
        ['1', { k: 'a', n: 1 }],
        ['2', { k: 'b', n: 2 }],
      ]);
      const next = await es.req('POST', '/_search/scroll', { scroll: '10m', scroll_id: r.json._scroll_id });
      expect(next.json.hits.hits.map((h: { _id: string; _source: unknown }) => [h._id, h._source])).toEqual([['3', { k: 'c', n: 3 }]]);
    });

    it('stored_fields alone (no _source) still drops _source, as ES does', async () => {
      const r = await es.req('POST', '/c1/_search?size=1', { stored_fields: ['*'] });
      expect(r.json.hits.hits[0]).toEqual({ _index: 'c1', _id: '1', _score: 1 });
    });

    it('load: PUT /<i> (empty body, application/json), PUT /<i>/_mapping, PUT /<i>/_bulk', async () => {
      expect((await es.req('PUT', '/c1copy', '', { 'Content-Type': 'application/json' })).status).toBe(200);
      const m = await es.req('PUT', '/c1copy/_mapping', { properties: { k: { type: 'keyword' }, n: { type: 'long' } } });
      expect(m.json).toEqual({ acknowledged: true });
      const b = await es.req('PUT', '/c1copy/_bulk', '{"index":{"_index":"c1copy","_id":"1"}}\n{"k":"a","n":1}\n', { 'Content-Type': 'application/json' });
      expect([b.status, b.json.errors, b.json.items[0].index.status]).toEqual([200, false, 201]);
      expect((await es.req('GET', '/c1copy/_doc/1')).json._source).toEqual({ k: 'a', n: 1 });
    });
  });

  describe('python-elasticsearch 7.17', () => {
    it('compat mode: _bulk NDJSON under application/vnd.elasticsearch+json;compatible-with=7 answers in the same type', async () => {
      const ct = 'application/vnd.elasticsearch+json;compatible-with=7';
      const r = await es.req('POST', '/_bulk', '{"index":{"_index":"py","_id":"1"}}\n{"x":1}\n', { 'Content-Type': ct, Accept: ct });
      expect([r.status, r.json.errors, r.json.items[0].index.result]).toEqual([200, false, 'created']);
      expect(r.headers['content-type']).toBe(ct);
    });

    it('POST /<i>/_count with Content-Type and an empty body', async () => {
      const r = await es.req('POST', '/c1/_count', '', { 'Content-Type': 'application/json' });
      expect(r.json).toEqual({ count: 3, _shards: { total: 1, successful: 1, skipped: 0, failed: 0 } });
    });

    it('helpers.scan: _shards.successful + skipped == total on scroll pages; clear_scroll with a string id', async () => {
      const r = await es.req('POST', '/c1/_search?scroll=5m&size=1', { query: { match_all: {} } });
      expect(r.json._shards).toEqual({ total: 1, successful: 1, skipped: 0, failed: 0 });
      const n = await es.req('POST', '/_search/scroll', { scroll: '5m', scroll_id: r.json._scroll_id });
      expect(n.json._shards).toEqual({ total: 1, successful: 1, skipped: 0, failed: 0 });
      const c = await es.req('DELETE', '/_search/scroll', { scroll_id: r.json._scroll_id });
      expect(c.json).toEqual({ succeeded: true, num_freed: 1 });
      expect((await es.req('POST', '/_search/scroll', { scroll: '5m', scroll_id: r.json._scroll_id })).status).toBe(404);
    });
  });

  describe('Search::Elasticsearch 8.00', () => {
    it('HEAD / answers 200 with the product header; GET _search with a JSON body; POST /<i>/_bulk as application/json', async () => {
      const h = await es.req('HEAD', '/');
      expect([h.status, h.headers['x-elastic-product']]).toEqual([200, 'Elasticsearch']);
      const b = await es.req('POST', '/pl/_bulk', '{"index":{"_id":"1"}}\n{"k":"x"}\n{"create":{"_id":"1"}}\n{"k":"y"}\n', { 'Content-Type': 'application/json' });
      expect(b.json.items.map((i: Record<string, { status: number; error?: { type: string } }>) => Object.values(i)[0]!.status)).toEqual([201, 409]);
      expect(b.json.items[1].create.error.type).toBe('version_conflict_engine_exception');
      const s = await es.req('GET', '/c1/_search?scroll=1m&size=2', { query: { term: { k: 'b' } } });
      expect(s.json.hits.hits.map((x: { _id: string }) => x._id)).toEqual(['2']);
    });
  });

  describe('@elastic/elasticsearch 8', () => {
    it('an error to a compatible-with=8 request comes back in the vendor type, with the product header', async () => {
      const ct = 'application/vnd.elasticsearch+json; compatible-with=8';
      const r = await es.req('GET', '/nope/_search', undefined, { 'Content-Type': ct, Accept: ct });
      expect([r.status, r.json.error.type, r.headers['x-elastic-product']]).toEqual([404, 'index_not_found_exception', 'Elasticsearch']);
      expect(r.headers['content-type']).toBe('application/vnd.elasticsearch+json;compatible-with=8');
    });
  });

  describe('@elastic/elasticsearch 9', () => {
    it('compatible-with=9 on a GET with no body is accepted and echoed', async () => {
      const ct = 'application/vnd.elasticsearch+json; compatible-with=9';
      const r = await es.req('GET', '/c1/_count', undefined, { 'Content-Type': ct, Accept: ct });
      expect([r.status, r.json.count]).toEqual([200, 3]);
      expect(r.headers['content-type']).toBe('application/vnd.elasticsearch+json;compatible-with=9');
    });
  });
});
