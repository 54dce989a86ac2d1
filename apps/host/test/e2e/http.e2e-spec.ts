import { request as rawRequest } from 'node:http';
import { connect } from 'node:net';
import { http, startE2eHost, type E2eHost } from './helpers.js';

describe('host over HTTP', () => {
  let host: E2eHost;
  beforeAll(async () => {
    host = await startE2eHost({ 'http.max_content_length': '64kb' });
  });
  afterAll(() => host.close());

  const call = (path: string, init?: RequestInit) => http(host.url + path, init);

  it('GET / answers the banner with the product header', async () => {
    const r = await call('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.json.tagline).toBe('You Know, for Search');
    expect(r.json.cluster_name).toBe('strata');
    expect(r.json.version.number).toMatch(/^8\.\d+\.\d+$/);
    expect(r.json.version.build_flavor).toBe('default');
    expect(r.json.version.distribution).toBeUndefined();
  });

  it('HEAD / answers 200 with the header and no body', async () => {
    const r = await call('/', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(r.text).toBe('');
  });

  it('puts the product header on errors too', async () => {
    for (const [path, method, status] of [
      ['/_nope/x/y/z', 'GET', 400],
      ['/', 'DELETE', 405],
      ['/_cluster/health/missing-index?timeout=1ms', 'GET', 408],
    ] as const) {
      const r = await call(path, { method });
      expect(r.status).toBe(status);
      expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    }
  });

  it('unknown route: ES no-handler error', async () => {
    const r = await call('/_nope/x/y/z');
    expect(r.json).toEqual({ error: 'no handler found for uri [/_nope/x/y/z] and method [GET]', status: 400 });
    const q = await call('/_nope/x/y/z?a=1');
    expect(q.json.error).toBe('no handler found for uri [/_nope/x/y/z?a=1] and method [GET]');
  });

  it('wrong method: 405 with Allow', async () => {
    const r = await call('/_cluster/health?level=indices', { method: 'POST' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('HEAD,GET');
    expect(r.json).toEqual({
      error: 'Incorrect HTTP method for uri [/_cluster/health?level=indices] and method [POST], allowed: [HEAD, GET]',
      status: 405,
    });
  });

  it('unknown parameter: illegal_argument_exception', async () => {
    const r = await call('/_cluster/health?bogus=1');
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('illegal_argument_exception');
    expect(r.json.error.reason).toBe('request [/_cluster/health] contains unrecognized parameter: [bogus]');
    const r2 = await call('/_cluster/health?levle=indices');
    expect(r2.json.error.reason).toBe('request [/_cluster/health] contains unrecognized parameter: [levle] -> did you mean [level]?');
  });

  it('bad JSON: x_content_parse_exception, nothing changed', async () => {
    const r = await call('/_cluster/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: '{"persistent": {' });
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('x_content_parse_exception');
    expect(r.json.error.reason).toBe('[1:17] Unexpected end-of-input: was expecting double-quote to start field name');
    expect((await call('/_cluster/settings')).json).toEqual({ persistent: {}, transient: {} });
  });

  it('content types: vendor JSON 7/8/9 accepted and echoed; text/plain rejected', async () => {
    for (const v of [7, 8, 9]) {
      const r = await call('/_cluster/settings', {
        method: 'PUT',
        headers: {
          'Content-Type': `application/vnd.elasticsearch+json;compatible-with=${v}`,
          Accept: `application/vnd.elasticsearch+json; compatible-with=${v}`,
        },
        body: '{"persistent":{}}',
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe(`application/vnd.elasticsearch+json;compatible-with=${v}`);
    }
    const t = await call('/_cluster/settings', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(t.status).toBe(406);
    expect(t.json).toEqual({ error: 'Content-Type header [text/plain] is not supported', status: 406 });
    // a Content-Type on a request without a body is ignored (python's POST _count, the 9.x client)
    const e = await call('/_cluster/health', { headers: { 'Content-Type': 'application/vnd.elasticsearch+json; compatible-with=9' } });
    expect(e.status).toBe(200);
  });

  it('oversized body: 413, and the server keeps serving', async () => {
    const big = JSON.stringify({ persistent: { x: 'y'.repeat(70 * 1024) } });
    const r = await call('/_cluster/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: big });
    expect(r.status).toBe(413);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect((await call('/')).status).toBe(200);
  });

  it('pretty and filter_path', async () => {
    const r = await call('/?pretty&filter_path=tagline,version.number');
    expect(r.text).toMatch(/^\{\n {2}"version" : \{\n {4}"number" : "8\.\d+\.\d+"\n {2}\},\n {2}"tagline" : "You Know, for Search"\n\}\n$/);
    const enc = await call('/?filter_path=name%2Ccluster_name');
    expect(Object.keys(enc.json)).toEqual(['name', 'cluster_name']);
    const ex = await call('/?filter_path=-version');
    expect(ex.json.version).toBeUndefined();
    expect(ex.json.tagline).toBe('You Know, for Search');
  });

  it('error_trace adds a stack trace', async () => {
    const r = await call('/_stats/nope?error_trace=true');
    expect(r.status).toBe(400);
    expect(typeof r.json.error.stack_trace).toBe('string');
    const r2 = await call('/_stats/nope');
    expect(r2.json.error.stack_trace).toBeUndefined();
  });

  it('survives a client that aborts mid-request', async () => {
    const u = new URL(host.url);
    await new Promise<void>((resolve) => {
      const req = rawRequest({ host: u.hostname, port: u.port, method: 'PUT', path: '/_cluster/settings', headers: { 'Content-Type': 'application/json', 'Content-Length': '1000' } });
      req.on('error', () => resolve());
      req.write('{"persistent":');
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 20);
    });
    expect((await call('/')).status).toBe(200);
  });

  it('answers malformed requests with 4xx and keeps serving', async () => {
    const u = new URL(host.url);
    const raw = (line: string): Promise<string> =>
      new Promise((resolve) => {
        const s = connect(Number(u.port), u.hostname, () => s.write(`${line}\r\nHost: x\r\n\r\n`));
        let out = '';
        s.on('data', (d) => {
          out += String(d);
          if (out.includes('\r\n\r\n')) s.end();
        });
        s.on('close', () => resolve(out.split('\r\n')[0]));
        s.on('error', () => resolve(out.split('\r\n')[0]));
      });
    expect(await raw('GET /% HTTP/1.1')).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await raw('GET /a%2/_doc/%zz HTTP/1.1')).toMatch(/^HTTP\/1\.1 4\d\d/);
    expect(await raw('GET /?filter_path=% HTTP/1.1')).toMatch(/^HTTP\/1\.1 200/);
    expect(await raw('PATCH / HTTP/1.1')).toMatch(/^HTTP\/1\.1 405/);
    expect(await raw(`GET /${'x'.repeat(6000)} HTTP/1.1`)).toMatch(/^HTTP\/1\.1 4\d\d/);
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    const r = await call('/_cluster/settings', { method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: deep });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await call('/')).status).toBe(200);
  });

  it('serves the cluster endpoints', async () => {
    expect((await call('/_cluster/health')).json.status).toBe('green');
    expect((await call('/_cat/health?h=status')).text).toBe('green\n');
    const n = await call('/_nodes/stats');
    expect(n.json._nodes.total).toBe(1);
    const [node] = Object.values(n.json.nodes) as Array<Record<string, Record<string, number>>>;
    expect(node['http']['total_opened']).toBeGreaterThan(0);
    expect(node['http']['current_open']).toBeGreaterThan(0);
    expect(node['thread_pool']['write']).toMatchObject({ queue: 0, rejected: 0 });
  });
});
