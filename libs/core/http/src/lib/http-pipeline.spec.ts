import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';
import type { Server } from 'node:http';
import Koa from 'koa';
import { Container, ContainerModule } from 'inversify';
import {
  Errors,
  ExtensionPoints,
  RawJson,
  RequestContexts,
  RestResponses,
  Tokens,
  route,
  type Authenticator,
  type Authorizer,
  type RestHandler,
  type RestRequest,
} from '@strata/core-common';
import { httpModule } from './http.module.js';
import { HttpPipeline } from './http-pipeline.js';
import { MIN_COMPRESSED_BYTES, PARALLEL_CHUNK_BYTES } from './response-compression.js';

const echo: RestHandler = {
  name: 'echo',
  routes: [route('POST', '/{index}/_echo', 'indices:data/read/echo'), route('GET', '/{index}/_echo', 'indices:data/read/echo')],
  params: ['size', 'flag', 'refresh'],
  handle(req: RestRequest) {
    return RestResponses.ok({
      index: req.pathParam('index'),
      body: req.jsonBody() ?? null,
      raw: req.rawBody(),
      size: req.intParam('size', 10),
      flag: req.boolParam('flag', false),
      human: req.boolParam('human', false),
      principal: req.principal?.username ?? null,
    });
  },
};
const bulk: RestHandler = {
  name: 'bulk',
  routes: [route('POST', '/_bulk', 'indices:data/write/bulk')],
  handle: (req) => {
    const lines = req.ndjsonLines();
    const bad = req.invalidUtf8Lines?.();
    return RestResponses.ok(bad ? { lines, invalidUtf8: Object.fromEntries(bad) } : { lines });
  },
};
const boom: RestHandler = {
  name: 'boom',
  routes: [route('GET', '/_boom', 'cluster:monitor/boom'), route('GET', '/_missing', 'cluster:monitor/missing')],
  handle(req) {
    if (req.path === '/_missing') throw Errors.indexNotFound('logs');
    throw new TypeError('kaput');
  },
};
const main: RestHandler = {
  name: 'main',
  routes: [route('GET', '/', 'cluster:monitor/main')],
  handle: () => RestResponses.ok({ tagline: 'You Know, for Search', nested: { a: 1, b: 2 } }),
};
const text: RestHandler = {
  name: 'cat',
  routes: [route('GET', '/_cat/x', 'cluster:monitor/cat')],
  handle: () => RestResponses.text(200, 'a b\n'),
};

const raw: RestHandler = {
  name: 'raw',
  routes: [route('GET', '/_raw', 'cluster:monitor/raw')],
  handle: () => RestResponses.ok({ a: 1, src: new RawJson('{"v":9007199254740993, "f":1.0,"o":{"e":[],"s":"x\\"y"}}') }),
};

const js = (r: Response): Promise<any> => r.json();

async function start(extra?: ContainerModule, settings: Record<string, unknown> = {}) {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(Tokens.HostConfig).toConstantValue({ settings });
  c.load(
    httpModule,
    new ContainerModule(({ bind }) => {
      for (const h of [echo, bulk, boom, main, text, raw]) bind(ExtensionPoints.RestHandler).toConstantValue(h);
    }),
    ...(extra ? [extra] : []),
  );
  const app = new Koa();
  app.silent = true;
  app.use(c.get(HttpPipeline).middleware());
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('HttpPipeline', () => {
  let srv: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    srv = await start(undefined, { 'http.max_content_length': '1kb' });
  });
  afterAll(() => srv.close());

  const call = (path: string, init: RequestInit = {}) => fetch(srv.url + path, init);

  it('answers JSON with the product header', async () => {
    const r = await call('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(await js(r)).toEqual({ tagline: 'You Know, for Search', nested: { a: 1, b: 2 } });
  });

  it('answers HEAD from the GET handler without a body', async () => {
    const r = await call('/', { method: 'HEAD' });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(await r.text()).toBe('');
  });

  it('pretty prints and filters', async () => {
    const r = await call('/?pretty&filter_path=nested.a');
    expect(await r.text()).toBe('{\n  "nested" : {\n    "a" : 1\n  }\n}\n');
    const r2 = await call('/?filter_path=-nested');
    expect(await js(r2)).toEqual({ tagline: 'You Know, for Search' });
  });

  it('renders RawJson verbatim; pretty keeps its number tokens; filter_path descends into it', async () => {
    expect(await (await call('/_raw')).text()).toBe('{"a":1,"src":{"v":9007199254740993, "f":1.0,"o":{"e":[],"s":"x\\"y"}}}');
    expect(await (await call('/_raw?pretty')).text()).toBe(
      '{\n  "a" : 1,\n  "src" : {\n    "v" : 9007199254740993,\n    "f" : 1.0,\n    "o" : {\n      "e" : [ ],\n      "s" : "x\\"y"\n    }\n  }\n}\n',
    );
    expect(await (await call('/_raw?filter_path=src.o.s')).text()).toBe('{"src":{"o":{"s":"x\\"y"}}}');
    expect(await (await call('/_raw?filter_path=src')).text()).toBe('{"src":{"v":9007199254740993, "f":1.0,"o":{"e":[],"s":"x\\"y"}}}');
    expect(await (await call('/_raw?filter_path=-src.o')).text()).toBe('{"a":1,"src":{"v":9007199254740992,"f":1}}');
  });

  it('rejects duplicate keys in a JSON body (Jackson strict duplicate detection)', async () => {
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1,\n "b":{"c":1,"c":2}}' });
    expect(r.status).toBe(400);
    const b = await js(r);
    expect(b.error.type).toBe('x_content_parse_exception');
    expect(b.error.reason).toBe("[2:16] Duplicate field 'c'");
    expect(b.error.caused_by.type).toBe('json_parse_exception');
    expect(b.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: b.error.reason }]);
    const ok = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":{"c":1},"b":{"c":"a:b"}}' });
    expect(ok.status).toBe(200);
  });

  it('echoes the vendor media type when Accept asks for it', async () => {
    const r = await call('/', { headers: { Accept: 'application/vnd.elasticsearch+json; compatible-with=8' } });
    expect(r.headers.get('content-type')).toBe('application/vnd.elasticsearch+json;compatible-with=8');
    const bad = await call('/', { headers: { Accept: 'application/vnd.elasticsearch+json; compatible-with=5' } });
    expect(bad.status).toBe(400);
    expect((await js(bad)).error.type).toBe('media_type_header_exception');
    expect(bad.headers.get('content-type')).toBe('application/json');
  });

  it('errors answer in the vendor media type too when Accept asks for it', async () => {
    const r = await call('/a/b/c/d', { headers: { Accept: 'application/vnd.elasticsearch+json; compatible-with=7' } });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toBe('application/vnd.elasticsearch+json;compatible-with=7');
    expect((await call('/a/b/c/d')).headers.get('content-type')).toBe('application/json');
  });

  it('renders the unknown route error as Elasticsearch does (string error, uri with query)', async () => {
    const r = await call('/a/b/c/d?pretty');
    expect(r.status).toBe(400);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(await r.text()).toBe('{\n  "error" : "no handler found for uri [/a/b/c/d?pretty] and method [GET]",\n  "status" : 400\n}\n');
  });

  it('renders 405 with Allow', async () => {
    const r = await call('/', { method: 'DELETE' });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('HEAD,GET');
    expect(await js(r)).toEqual({ error: 'Incorrect HTTP method for uri [/] and method [DELETE], allowed: [HEAD, GET]', status: 405 });
  });

  it('answers OPTIONS with Allow', async () => {
    const r = await call('/x/_echo', { method: 'OPTIONS' });
    expect(r.status).toBe(200);
    expect(r.headers.get('allow')).toBe('HEAD,GET,POST');
  });

  it('decodes path params, parses JSON bodies, typed params', async () => {
    const r = await call('/a%2Cb/_echo?size=5&flag&human=true', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json; charset=utf-8' },
      body: '{"q":1}',
    });
    expect(r.status).toBe(200);
    expect(await js(r)).toEqual({ index: 'a,b', body: { q: 1 }, raw: '{"q":1}', size: 5, flag: true, human: true, principal: null });
  });

  it('accepts GET with a body and vendor content types (7, 8, 9)', async () => {
    for (const v of ['7', '8', '9']) {
      const r = await call('/i/_echo', {
        method: 'POST',
        headers: { 'Content-Type': `application/vnd.elasticsearch+json;compatible-with=${v}` },
        body: '{}',
      });
      expect(r.status).toBe(200);
    }
  });

  it('ignores Content-Type on empty bodies', async () => {
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'text/plain' } });
    expect(r.status).toBe(200);
    expect((await js(r)).body).toBeNull();
  });

  it('rejects unsupported content types with 406', async () => {
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });
    expect(r.status).toBe(406);
    expect(r.headers.get('x-elastic-product')).toBe('Elasticsearch');
    expect(await js(r)).toEqual({ error: 'Content-Type header [text/plain] is not supported', status: 406 });
  });

  it('takes the body from source + source_content_type', async () => {
    const r = await call('/i/_echo?source=%7B%22a%22%3A1%7D&source_content_type=application/json');
    expect((await js(r)).body).toEqual({ a: 1 });
    const r2 = await call('/i/_echo?source=%7B%7D');
    expect(r2.status).toBe(400);
  });

  it('maps malformed JSON to x_content_parse_exception', async () => {
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{\n "a": x}' });
    expect(r.status).toBe(400);
    const b = await js(r);
    expect(b.error.type).toBe('x_content_parse_exception');
    expect(b.error.reason).toBe("[2:7] Unexpected character ('x' (code 120)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
    expect(b.error.caused_by.type).toBe('json_parse_exception');
    expect(b.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: b.error.reason }]);
  });

  it('rejects unknown params with a suggestion', async () => {
    const r = await call('/i/_echo?sise=1&zzz=2');
    expect(r.status).toBe(400);
    const b = await js(r);
    expect(b.error.type).toBe('illegal_argument_exception');
    expect(b.error.reason).toBe('request [/i/_echo] contains unrecognized parameters: [sise] -> did you mean [size]?, [zzz]');
  });

  it('rejects bad typed params', async () => {
    const r = await call('/i/_echo?size=abc');
    expect(r.status).toBe(400);
    expect((await js(r)).error.reason).toBe('Failed to parse int parameter [size] with value [abc]');
    const r2 = await call('/i/_echo?flag=yes');
    expect((await js(r2)).error.type).toBe('illegal_argument_exception');
  });

  it('splits NDJSON lines (under JSON or NDJSON types)', async () => {
    for (const ct of ['application/x-ndjson', 'application/json', 'application/vnd.elasticsearch+x-ndjson; compatible-with=8']) {
      const r = await call('/_bulk', { method: 'POST', headers: { 'Content-Type': ct }, body: '{"index":{}}\r\n{"a":1}\n\n' });
      expect(await js(r)).toEqual({ lines: ['{"index":{}}', '{"a":1}'] });
    }
  });

  it('refuses a JSON body that is not UTF-8 as Jackson does (the bytes are not read as U+FFFD)', async () => {
    const body = Buffer.concat([Buffer.from('{"a":\n "x'), Buffer.from([0xff]), Buffer.from('"}')]);
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(r.status).toBe(400);
    expect(await js(r)).toEqual({
      error: {
        root_cause: [{ type: 'x_content_parse_exception', reason: '[2:4] Invalid UTF-8 start byte 0xff' }],
        type: 'x_content_parse_exception',
        reason: '[2:4] Invalid UTF-8 start byte 0xff',
        caused_by: { type: 'json_parse_exception', reason: 'Invalid UTF-8 start byte 0xff\n at [Source: (byte[])"..."; line: 2, column: 4]' },
      },
      status: 400,
    });
    // well-formed multi-byte characters are fine
    const ok = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: Buffer.from('{"a":"é€😀"}') });
    expect((await js(ok)).body).toEqual({ a: 'é€😀' });
  });

  it('tells which NDJSON lines are not UTF-8, and where', async () => {
    const body = Buffer.concat([
      Buffer.from('{"index":{}}\r\n\n{"a":"ok é"}\n{"b":"'),
      Buffer.from([0xe9, 0x20]),
      Buffer.from('x"}\n{"c":1}\n'),
      Buffer.from([0xc3]),
      Buffer.from('\n'),
    ]);
    const r = await call('/_bulk', { method: 'POST', headers: { 'Content-Type': 'application/x-ndjson' }, body });
    expect(await js(r)).toEqual({
      lines: ['{"index":{}}', '{"a":"ok é"}', '{"b":"\ufffd x"}', '{"c":1}', '\ufffd'],
      // the column of the offending byte in the decoded line (U+FFFD stands for the broken start byte)
      invalidUtf8: { 2: { col: 8, message: 'Invalid UTF-8 middle byte 0x20' }, 4: { col: 2, message: 'Unexpected end-of-input in the middle of a UTF-8 character' } },
    });
  });

  it('accepts gzip-encoded bodies', async () => {
    const { gzipSync } = await import('node:zlib');
    const r = await call('/i/_echo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(Buffer.from('{"z":true}')),
    });
    expect(r.status).toBe(200);
    expect((await js(r)).body).toEqual({ z: true });
    const bomb = await call('/i/_echo', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
      body: gzipSync(Buffer.from(`{"a":"${'x'.repeat(5000)}"}`)),
    });
    expect(bomb.status).toBe(413);
  });

  it('answers 413 for oversized bodies', async () => {
    const r = await call('/i/_echo', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: `{"a":"${'x'.repeat(2000)}"}` });
    expect(r.status).toBe(413);
    expect((await js(r)).error.type).toBe('content_too_long_exception');
  });

  it('renders EsErrors and wraps other errors as 500 exception', async () => {
    const r = await call('/_missing');
    expect(r.status).toBe(404);
    expect((await js(r)).error.root_cause[0]).toEqual({
      type: 'index_not_found_exception',
      reason: 'no such index [logs]',
      'resource.type': 'index_or_alias',
      'resource.id': 'logs',
      index_uuid: '_na_',
      index: 'logs',
    });
    const r2 = await call('/_boom?error_trace=true');
    expect(r2.status).toBe(500);
    const b = await js(r2);
    expect(b.error.type).toBe('exception');
    expect(b.error.reason).toBe('kaput');
    expect(b.error.stack_trace).toMatch(/TypeError: kaput/);
    const r3 = await call('/_missing', { method: 'HEAD' });
    expect(r3.status).toBe(404);
    expect(r3.headers.get('x-elastic-product')).toBe('Elasticsearch');
  });

  it('passes text responses through', async () => {
    const r = await call('/_cat/x');
    expect(r.headers.get('content-type')).toBe('text/plain; charset=UTF-8');
    expect(await r.text()).toBe('a b\n');
  });

  it('survives a client abort mid-body', async () => {
    const net = await import('node:net');
    const port = Number(new URL(srv.url).port);
    await new Promise<void>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.write('POST /i/_echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"a":');
        setTimeout(() => {
          s.destroy();
          resolve();
        }, 20);
      });
    });
    const r = await call('/');
    expect(r.status).toBe(200);
  });
});

describe('HttpPipeline auth', () => {
  const seen: string[] = [];
  const authn = (name: string, order: number, token: string): Authenticator => ({
    name,
    order,
    extractCredentials: (req) => {
      const h = req.headers['authorization'];
      return h?.startsWith(token) ? h.slice(token.length + 1) : undefined;
    },
    authenticate: async (cred) => {
      seen.push(name);
      if (cred === 'bad') return { kind: 'failure', error: new Error('unable to authenticate user [x]') };
      if (cred === 'skip') return { kind: 'not-handled' };
      return { kind: 'success', principal: { username: `${name}:${cred}`, roles: [], realm: { name, type: name }, authenticationType: 'token' } };
    },
  });
  const denyDelete: Authorizer = {
    async authorize(principal, action) {
      if (action.endsWith('/echo') && principal?.username === 'apikey:readonly') {
        throw Errors.security(`action [${action}] is unauthorized for user [readonly]`, 403);
      }
    },
  };
  let srv: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    srv = await start(
      new ContainerModule(({ bind, rebind }) => {
        bind(ExtensionPoints.Authenticator).toConstantValue(authn('realm', 100, 'Bearer'));
        bind(ExtensionPoints.Authenticator).toConstantValue(authn('apikey', 30, 'Bearer'));
        void rebind;
      }),
    );
  });
  afterAll(() => srv.close());

  it('runs authenticators in order and sets the principal', async () => {
    seen.length = 0;
    const r = await fetch(`${srv.url}/i/_echo`, { headers: { Authorization: 'Bearer tok' } });
    expect((await js(r)).principal).toBe('apikey:tok');
    expect(seen).toEqual(['apikey']);
  });

  it('continues on not-handled, stops on failure with 401', async () => {
    seen.length = 0;
    const r = await fetch(`${srv.url}/i/_echo`, { headers: { Authorization: 'Bearer skip' } });
    expect(r.status).toBe(200);
    expect(seen).toEqual(['apikey', 'realm']);
    const r2 = await fetch(`${srv.url}/i/_echo`, { headers: { Authorization: 'Bearer bad' } });
    expect(r2.status).toBe(401);
    expect((await js(r2)).error.type).toBe('security_exception');
    expect(r2.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('uses a rebound authorizer', async () => {
    const c = new Container({ defaultScope: 'Singleton' });
    c.load(httpModule, new ContainerModule(({ bind }) => {
      bind(ExtensionPoints.RestHandler).toConstantValue(echo);
      bind(ExtensionPoints.Authenticator).toConstantValue(authn('apikey', 30, 'Bearer'));
    }));
    (await c.rebind(Tokens.Authorizer)).toConstantValue(denyDelete);
    const app = new Koa();
    app.use(c.get(HttpPipeline).middleware());
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await fetch(`http://127.0.0.1:${port}/i/_echo`, { headers: { Authorization: 'Bearer readonly' } });
      expect(r.status).toBe(403);
      expect((await js(r)).error.reason).toBe('action [indices:data/read/echo] is unauthorized for user [readonly]');
    } finally {
      server.close();
    }
  });

  it('falls through to the next middleware when asked', async () => {
    const c = new Container({ defaultScope: 'Singleton' });
    c.load(httpModule, new ContainerModule(({ bind }) => {
      bind(ExtensionPoints.RestHandler).toConstantValue(main);
    }));
    const app = new Koa();
    app.use(c.get(HttpPipeline).middleware({ fallthrough: true }));
    app.use((ctx) => {
      ctx.body = 'other';
    });
    const server = app.listen(0);
    try {
      const port = (server.address() as AddressInfo).port;
      expect(await (await fetch(`http://127.0.0.1:${port}/elsewhere`)).text()).toBe('other');
      expect((await js(await fetch(`http://127.0.0.1:${port}/`))).tagline).toBe('You Know, for Search');
    } finally {
      server.close();
    }
  });
});

describe('HttpPipeline: compression, YAML, deprecation warnings, request context', () => {
  const seen: Array<Record<string, unknown> | undefined> = [];
  const ctxProbe: RestHandler = {
    name: 'ctx_probe',
    routes: [route('GET', '/_probe', 'cluster:monitor/probe')],
    params: ['ignore_throttled'],
    handle: async () => {
      await new Promise((r) => setTimeout(r, 1));
      const c = RequestContexts.current();
      seen.push(c ? { id: c.id, method: c.method, url: c.url, opaqueId: c.opaqueId, user: c.principal?.username } : undefined);
      return RestResponses.ok({ ok: true });
    },
  };
  // a body well over the chunked-compression threshold (a big search page)
  const bigBody = { hits: Array.from({ length: 6000 }, (_, i) => ({ _id: `doc-${i}`, _source: { n: i, msg: `event ${i * 7919} from host-${i % 13}` } })) };
  // over MIN_COMPRESSED_BYTES, under PARALLEL_CHUNK_BYTES: compressed in place
  const mediumBody = { hits: Array.from({ length: 600 }, (_, i) => ({ _id: `doc-${i}`, _source: { n: i } })) };
  const medium: RestHandler = {
    name: 'medium_probe',
    routes: [route('GET', '/_medium', 'cluster:monitor/probe')],
    handle: async () => RestResponses.ok(mediumBody),
  };
  const big: RestHandler = {
    name: 'big_probe',
    routes: [route('GET', '/_big', 'cluster:monitor/probe')],
    handle: async () => RestResponses.ok(bigBody),
  };
  // work left for after the response: runs once the body is out, in order, and a failing one harms nothing
  const later: string[] = [];
  const laterProbe: RestHandler = {
    name: 'later_probe',
    routes: [route('GET', '/_later', 'cluster:monitor/probe')],
    handle: () => {
      const after = RequestContexts.current()!.afterResponse!;
      after.push(() => {
        throw new Error('after-response failure');
      });
      after.push(() => void later.push('ran'));
      later.push('handled');
      return RestResponses.ok(bigBody);
    },
  };
  const user: Authenticator = {
    name: 'fixed',
    order: 1,
    extractCredentials: (req) => req.headers['authorization'],
    authenticate: async () => ({ kind: 'success', principal: { username: 'kim', roles: [], realm: { name: 'r', type: 'file' }, authenticationType: 'realm' } }),
  };
  let srv: Awaited<ReturnType<typeof start>>;
  let off: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    const extra = new ContainerModule(({ bind }) => {
      bind(ExtensionPoints.RestHandler).toConstantValue(ctxProbe);
      bind(ExtensionPoints.RestHandler).toConstantValue(big);
      bind(ExtensionPoints.RestHandler).toConstantValue(medium);
      bind(ExtensionPoints.RestHandler).toConstantValue(laterProbe);
      bind(ExtensionPoints.Authenticator).toConstantValue(user);
    });
    srv = await start(extra);
    off = await start(undefined, { 'http.compression': false });
  });
  afterAll(async () => {
    await srv.close();
    await off.close();
  });

  /** a raw request (fetch would decode the body itself) */
  function raw(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const req = http.request(url + path, { headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('gzips or deflates when Accept-Encoding allows it, keeps the content type, and not otherwise', async () => {
    const plain = await raw(srv.url, '/_medium');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThanOrEqual(MIN_COMPRESSED_BYTES);
    expect(plain.body.length).toBeLessThan(PARALLEL_CHUNK_BYTES);
    expect(JSON.parse(plain.body.toString())).toEqual(mediumBody);
    const gz = await raw(srv.url, '/_medium', { 'Accept-Encoding': 'deflate, gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/json');
    expect(gz.headers['vary']).toContain('Accept-Encoding');
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const df = await raw(srv.url, '/_medium', { 'Accept-Encoding': 'deflate' });
    expect(df.headers['content-encoding']).toBe('deflate');
    expect(inflateSync(df.body).equals(plain.body)).toBe(true);
    const refused = await raw(srv.url, '/_medium', { 'Accept-Encoding': 'gzip;q=0' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
    const disabled = await raw(off.url, '/', { 'Accept-Encoding': 'gzip' });
    expect(disabled.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(disabled.body.toString()).tagline).toBe('You Know, for Search');
  });

  it('sends bodies under MIN_COMPRESSED_BYTES as they are (they fit in the initial TCP window), errors too', async () => {
    for (const path of ['/', '/_cat/x']) {
      const r = await raw(srv.url, path, { 'Accept-Encoding': 'gzip, deflate' });
      expect(r.status).toBe(200);
      expect(r.headers['content-encoding']).toBeUndefined();
      expect(r.body.length).toBeLessThan(MIN_COMPRESSED_BYTES);
    }
    expect(JSON.parse((await raw(srv.url, '/', { 'Accept-Encoding': 'gzip' })).body.toString())).toEqual({ tagline: 'You Know, for Search', nested: { a: 1, b: 2 } });
    expect((await raw(srv.url, '/_cat/x', { 'Accept-Encoding': 'deflate' })).body.toString()).toBe('a b\n');
    const err = await raw(srv.url, '/_missing', { 'Accept-Encoding': 'gzip' });
    expect(err.status).toBe(404);
    expect(err.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(err.body.toString()).error.type).toBe('index_not_found_exception');
  });

  it('compresses a large body (over the chunked threshold) to the same bytes, gzip and deflate', async () => {
    const plain = await raw(srv.url, '/_big');
    expect(plain.body.length).toBeGreaterThan(3 * PARALLEL_CHUNK_BYTES);
    expect(JSON.parse(plain.body.toString())).toEqual(bigBody);
    const gz = await raw(srv.url, '/_big', { 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-type']).toBe('application/json');
    expect(gz.body.length).toBeLessThan(plain.body.length / 3);
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
    const df = await raw(srv.url, '/_big', { 'Accept-Encoding': 'deflate' });
    expect(df.headers['content-encoding']).toBe('deflate');
    expect(inflateSync(df.body).equals(plain.body)).toBe(true);
  });

  it('renders ?format=yaml and Accept: application/yaml as YAML, errors too', async () => {
    const y = await raw(srv.url, '/?format=yaml');
    expect(y.headers['content-type']).toBe('application/yaml');
    expect(y.body.toString()).toBe('---\ntagline: "You Know, for Search"\nnested:\n  a: 1\n  b: 2\n');
    const a = await raw(srv.url, '/?filter_path=nested.b', { Accept: 'application/yaml' });
    expect(a.body.toString()).toBe('---\nnested:\n  b: 2\n');
    const e = await raw(srv.url, '/_missing?format=yaml');
    expect(e.status).toBe(404);
    expect(e.body.toString()).toContain('\n  type: "index_not_found_exception"\n');
    expect(e.body.toString().startsWith('---\nerror:\n')).toBe(true);
  });

  it('sends a Warning header for a deprecated parameter, as Elasticsearch', async () => {
    const r = await raw(srv.url, '/_probe?ignore_throttled=false');
    expect(r.status).toBe(200);
    expect(r.headers['warning']).toBe(
      '299 Elasticsearch-8.17.0-2b6a7fed44faa321997703718f07ee0420804b41 "[ignore_throttled] parameter is deprecated because frozen indices have been deprecated. Consider cold or frozen tiers in place of frozen indices."',
    );
    expect((await raw(srv.url, '/_probe')).headers['warning']).toBeUndefined();
  });

  it('runs the afterResponse tasks of a request once its response is written, a failing one harming nothing', async () => {
    later.length = 0;
    const r = await raw(srv.url, '/_later', { 'Accept-Encoding': 'gzip' });
    expect(r.status).toBe(200);
    expect(JSON.parse(gunzipSync(r.body).toString('utf8')).hits).toHaveLength(6000);
    for (let i = 0; i < 100 && later.length < 2; i++) await new Promise((res) => setTimeout(res, 5));
    expect(later).toEqual(['handled', 'ran']);
    expect((await raw(srv.url, '/_later')).status).toBe(200);
    for (let i = 0; i < 100 && later.length < 4; i++) await new Promise((res) => setTimeout(res, 5));
    expect(later).toEqual(['handled', 'ran', 'handled', 'ran']);
  });

  it('runs each handler inside its request context (id, method, url, opaque id, principal)', async () => {
    seen.length = 0;
    await Promise.all([
      raw(srv.url, '/_probe?x', { 'X-Opaque-Id': 'o-1' }).catch(() => undefined),
      raw(srv.url, '/_probe', { Authorization: 'Basic a2ltOng=' }),
    ]);
    await raw(srv.url, '/_probe');
    const ok = seen.filter((s) => s !== undefined);
    // the first request fails the parameter check before the handler runs
    expect(ok).toHaveLength(2);
    expect(ok[0]).toMatchObject({ method: 'GET', url: '/_probe', user: 'kim' });
    expect(ok[1]).toMatchObject({ method: 'GET', url: '/_probe', user: undefined });
    expect(ok[0]!['id']).not.toBe(ok[1]!['id']);
    expect(RequestContexts.current()).toBeUndefined();
  });
});

describe('HttpPipeline: a client gone before its response', () => {
  // the handler holds its response until released; it records what the request context told it
  const seen: Array<{ gone: number; signalAborted: () => boolean }> = [];
  let release: (() => void) | null = null;
  const hold: RestHandler = {
    name: 'hold',
    routes: [route('GET', '/_hold', 'cluster:monitor/hold')],
    params: ['read_signal', 'remove'],
    async handle(req) {
      const rc = RequestContexts.current()!;
      const rec = { gone: 0, signalAborted: () => false };
      seen.push(rec);
      const remove = rc.onClientGone!(() => rec.gone++);
      if (req.boolParam('read_signal', false)) {
        const signal = rc.signal!;
        rec.signalAborted = () => signal.aborted;
      }
      if (req.boolParam('remove', false)) remove();
      await new Promise<void>((r) => (release = r));
      // a listener added after the client went away runs at once
      rc.onClientGone!(() => rec.gone++);
      return RestResponses.ok({ ok: true });
    },
  };
  let srv: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    srv = await start(new ContainerModule(({ bind }) => void bind(ExtensionPoints.RestHandler).toConstantValue(hold)));
  });
  afterAll(() => srv.close());

  async function waitFor(cond: () => boolean): Promise<void> {
    for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  }

  /** sends GET path, waits for the handler to hold it, destroys the connection, releases the handler */
  async function disconnect(path: string): Promise<(typeof seen)[number]> {
    const before = seen.length;
    const req = http.get(srv.url + path);
    req.on('error', () => undefined);
    await waitFor(() => seen.length > before && release !== null);
    const rec = seen[before];
    req.destroy();
    await waitFor(() => rec.gone > 0);
    const r = release!;
    release = null;
    r();
    await new Promise((res) => setTimeout(res, 20));
    return rec;
  }

  it('tells listeners once, and the signal (made when read) is aborted', async () => {
    const rec = await disconnect('/_hold?read_signal=true');
    // once on the disconnect, once more for the listener added afterwards
    expect(rec.gone).toBe(2);
    expect(rec.signalAborted()).toBe(true);
  });

  it('a removed listener is not told', async () => {
    const rec = await disconnect('/_hold?remove=true');
    // only the listener added after the disconnect ran
    expect(rec.gone).toBe(1);
  });

  it('a request answered in full tells no one and aborts nothing', async () => {
    const before = seen.length;
    const p = fetch(srv.url + '/_hold?read_signal=true');
    await waitFor(() => seen.length > before && release !== null);
    const r = release!;
    release = null;
    r();
    const res = await p;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(seen[before].gone).toBe(0);
    expect(seen[before].signalAborted()).toBe(false);
  });
});
