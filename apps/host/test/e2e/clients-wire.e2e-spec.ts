import { http, rawHttp, startE2eHost, type E2eHost } from './helpers.js';

/** Wire-level habits of real clients (CLIENTS.md), replayed against the whole host. */
describe('real client wire habits', () => {
  let host: E2eHost;
  beforeAll(async () => {
    host = await startE2eHost();
  });
  afterAll(() => host.close());

  const call = (path: string, init?: RequestInit) => http(host.url + path, init);
  const JSON_CT = { 'Content-Type': 'application/json' };

  it('PUT /<i> with an empty body and Content-Type (elasticdump), then GET _refresh without a body', async () => {
    const r = await call('/wire-a', { method: 'PUT', headers: JSON_CT });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'wire-a' });
    expect((await call('/wire-a/_refresh')).status).toBe(200);
  });

  it('bulk bodies from winston (extra key, null pipeline), rsyslog (charset) and python compat-7', async () => {
    const winston = '{"index":{"_index":"wire-b","pipeline":null},"attempts":0}\n{"message":"w1"}\n';
    const w = await call('/_bulk?wait_for_active_shards=1&timeout=300ms', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-ndjson' },
      body: winston,
    });
    expect(w.status).toBe(200);
    expect(w.json.errors).toBe(false);
    const rsyslog = '{"index":{"_index": "wire-b"}}\n{"message":"r1"}\n{"create":{"_index": "wire-b"}}\n{"message":"r2"}\n';
    const r = await call('/_bulk', { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: rsyslog });
    expect(r.status).toBe(200);
    expect(r.json.items.map((i: Record<string, { status: number }>) => Object.values(i)[0].status)).toEqual([201, 201]);
    const py = '{"index":{"_index":"wire-b","_id":"p1"}}\n{"message":"p1"}\n';
    const p = await call('/_bulk?refresh=true', {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.elasticsearch+json;compatible-with=7', Accept: 'application/vnd.elasticsearch+json;compatible-with=7' },
      body: py,
    });
    expect(p.status).toBe(200);
    expect(p.headers.get('content-type')).toBe('application/vnd.elasticsearch+json;compatible-with=7');
  });

  it('POST _count with Content-Type and an empty body (python), GET _search with a body (Perl)', async () => {
    const c = await call('/wire-b/_count', { method: 'POST', headers: JSON_CT });
    expect(c.status).toBe(200);
    expect(c.json.count).toBe(4);
    const s = await rawHttp(`${host.url}/wire-b/_search?filter_path=hits.hits._source%2C_scroll_id`, 'GET', JSON_CT, '{"query":{"match":{"message":"p1"}}}');
    expect(s.status).toBe(200);
    expect(s.json).toEqual({ hits: { hits: [{ _source: { message: 'p1' } }] } });
  });

  it('DELETE with percent-encoded and literal comma lists', async () => {
    for (const n of ['del-1', 'del-2', 'del-3', 'del-4']) expect((await call(`/${n}`, { method: 'PUT', headers: JSON_CT })).status).toBe(200);
    expect((await call('/del-1%2Cdel-2', { method: 'DELETE' })).status).toBe(200);
    expect((await call('/del-3,del-4', { method: 'DELETE' })).status).toBe(200);
    expect((await call('/del-1', { method: 'HEAD' })).status).toBe(404);
    expect((await call('/del-4', { method: 'HEAD' })).status).toBe(404);
  });

  it('HEAD on a missing index is 404 with the product header and no body', async () => {
    const r = await call('/missing-index', { method: 'HEAD' });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(r.text).toBe('');
  });
});
