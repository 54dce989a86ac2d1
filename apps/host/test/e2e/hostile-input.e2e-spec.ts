import { connect } from 'node:net';
import { http, startE2eHost, type E2eHost } from './helpers.js';

/**
 * Hostile input that used to take the node down (stack overflows answered 500, a match over megabytes of
 * text running for seconds, malformed HTTP answered with empty bodies): each gets Elasticsearch's 4xx and
 * the node keeps serving.
 */
describe('hostile input', () => {
  let host: E2eHost;
  beforeAll(async () => {
    host = await startE2eHost();
    const r = await post('/h', { mappings: { properties: { t: { type: 'text' }, n: { type: 'long' }, o: { type: 'object', enabled: false } } } }, 'PUT');
    expect(r.status).toBe(200);
  });
  afterAll(() => host.close());

  const nest = (d: number, open: string, close: string, inner: string) => open.repeat(d) + inner + close.repeat(d);
  const post = (path: string, body: unknown, method = 'POST', contentType = 'application/json') =>
    http(host.url + path, { method, headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const DEPTH_REASON = /^\[1:\d+\] Document nesting depth \(1001\) exceeds the maximum allowed \(1000, from `StreamReadConstraints.getMaxNestingDepth\(\)`\)$/;

  it('JSON nested deeper than 1000 levels: 400 x_content_parse_exception on every body-reading path', async () => {
    const D = 5000;
    const deepQuery = '{"query":' + nest(D, '{"bool":{"must":', '}}', '{"match_all":{}}') + '}';
    const deepObj = nest(D, '{"a":', '}', '1');
    const cases: Array<[string, string, string, string?]> = [
      ['/h/_search', 'POST', deepQuery],
      ['/h/_count', 'POST', deepQuery],
      ['/h/_search', 'POST', '{"aggs":' + nest(D, '{"a":{"terms":{"field":"n"},"aggs":', '}}', '{}') + '}'],
      ['/h/_doc/1', 'PUT', deepObj],
      ['/h/_doc/1', 'PUT', '{"x":' + nest(D, '[', ']', '1') + '}'],
      ['/h/_update/1', 'POST', '{"doc":' + deepObj + '}'],
      ['/h2', 'PUT', '{"mappings":' + nest(D, '{"properties":{"a":', '}}', '{"type":"keyword"}') + '}'],
      ['/h/_settings', 'PUT', deepObj],
      ['/_ingest/pipeline/p', 'PUT', '{"processors":[{"set":{"field":"a","value":' + deepObj + '}}]}'],
      ['/_ingest/pipeline/_simulate', 'POST', '{"pipeline":{"processors":[]},"docs":[{"_source":' + deepObj + '}]}'],
      ['/_bulk', 'POST', deepObj + '\n{}\n', 'application/x-ndjson'],
      // syntactically broken and deep: the depth is reported, the syntax locator does not recurse past it
      ['/h/_search', 'POST', nest(D, '[', '', '')],
    ];
    for (const [path, method, body, ct] of cases) {
      const r = await post(path, body, method, ct);
      expect([path, r.status, r.json?.error?.type]).toEqual([path, 400, 'x_content_parse_exception']);
      expect(r.json.error.reason).toMatch(DEPTH_REASON);
      expect(r.json.error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: r.json.error.reason }]);
    }
  });

  it('bulk and msearch report a too-deep line per item', async () => {
    const bulk = await post('/_bulk', '{"index":{"_index":"h"}}\n' + nest(5000, '{"a":', '}', '1') + '\n', 'POST', 'application/x-ndjson');
    expect(bulk.status).toBe(200);
    expect(bulk.json.items[0].index.status).toBe(400);
    expect(bulk.json.items[0].index.error.type).toBe('document_parsing_exception');
    expect(bulk.json.items[0].index.error.reason).toMatch(/^\[1:5001\] failed to parse: Document nesting depth \(1001\)/);
    const ms = await post('/_msearch', '{"index":"h"}\n{"query":' + nest(5000, '{"bool":{"must":', '}}', '{}') + '}\n', 'POST', 'application/x-ndjson');
    expect(ms.status).toBe(200);
    expect(ms.json.responses[0].status).toBe(400);
    expect(ms.json.responses[0].error.reason).toMatch(DEPTH_REASON);
  });

  it('bytes that are not UTF-8 are refused as Jackson refuses them, never stored as U+FFFD', async () => {
    const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => Buffer.from(p as string)));
    const send = (path: string, body: Buffer, method = 'POST', ct = 'application/json') => http(host.url + path, { method, headers: { 'content-type': ct }, body: new Uint8Array(body) });
    // a document: 400, nothing indexed
    const doc = await send('/h/_doc/u1', bytes('{"t":"caf', [0xe9], '"}'), 'PUT');
    expect([doc.status, doc.json.error.type, doc.json.error.reason]).toEqual([400, 'x_content_parse_exception', '[1:11] Invalid UTF-8 middle byte 0x22']);
    expect(doc.json.error.caused_by).toEqual({ type: 'json_parse_exception', reason: 'Invalid UTF-8 middle byte 0x22\n at [Source: (byte[])"..."; line: 1, column: 11]' });
    expect((await http(host.url + '/h/_doc/u1')).status).toBe(404);
    // a search body
    const search = await send('/h/_search', bytes('{"query":{"match":{"t":"', [0xff], '"}}}'));
    expect([search.status, search.json.error.reason]).toEqual([400, '[1:25] Invalid UTF-8 start byte 0xff']);
    // a bulk: the item whose source is Latin-1 fails, the others are indexed with their bytes as sent
    const bulk = await send(
      '/_bulk?refresh=true',
      bytes('{"index":{"_index":"h","_id":"u2"}}\n{"t":"café"}\n{"index":{"_index":"h","_id":"u3"}}\n{"t":"caf', [0xe9], '"}\n{"create":{"_index":"h","_id":"u4"}}\n{"t":"ok"}\n'),
      'POST',
      'application/x-ndjson',
    );
    expect(bulk.status).toBe(200);
    expect(bulk.json.errors).toBe(true);
    expect(bulk.json.items.map((i: Record<string, { status: number }>) => Object.values(i)[0].status)).toEqual([201, 400, 201]);
    expect(bulk.json.items[1].index.error).toEqual({
      type: 'document_parsing_exception',
      reason: '[1:11] failed to parse: Invalid UTF-8 middle byte 0x22',
      caused_by: { type: 'json_parse_exception', reason: 'Invalid UTF-8 middle byte 0x22\n at [Source: (byte[])"..."; line: 1, column: 11]' },
    });
    expect((await http(host.url + '/h/_doc/u2')).json._source).toEqual({ t: 'café' });
    expect((await http(host.url + '/h/_doc/u3')).status).toBe(404);
    // an action line that is not UTF-8 fails the whole bulk: nothing of it is indexed
    const bad = await send('/_bulk?refresh=true', bytes('{"index":{"_index":"h","_id":"u5"}}\n{"t":"a"}\n{"index":{"_index":"h', [0xff], '"}}\n{"t":"b"}\n'), 'POST', 'application/x-ndjson');
    expect([bad.status, bad.json.error.type, bad.json.error.reason]).toEqual([400, 'x_content_parse_exception', '[3:22] Invalid UTF-8 start byte 0xff']);
    expect((await http(host.url + '/h/_doc/u5')).status).toBe(404);
    // msearch: a body line fails its search, the others answer; a header line fails the request
    const ms = await send('/_msearch', bytes('{"index":"h"}\n{"query":{"match":{"t":"', [0xff], '"}}}\n{"index":"h"}\n{"size":0}\n'), 'POST', 'application/x-ndjson');
    expect(ms.status).toBe(200);
    expect(ms.json.responses.map((r: { status: number }) => r.status)).toEqual([400, 200]);
    expect(ms.json.responses[0].error.root_cause).toEqual([{ type: 'x_content_parse_exception', reason: '[1:25] Invalid UTF-8 start byte 0xff' }]);
    expect(ms.json.responses[1].hits.total.value).toBeGreaterThan(0);
    const msh = await send('/_msearch', bytes('{"index":"h', [0xc3], '"}\n{"size":0}\n'), 'POST', 'application/x-ndjson');
    expect([msh.status, msh.json.error.type, msh.json.error.reason]).toEqual([400, 'x_content_parse_exception', '[1:13] Invalid UTF-8 middle byte 0x22']);
  });

  it('within the limits deep structures work: arrays 998 deep in a document, a disabled object, script params', async () => {
    const doc = await post('/h/_doc/deep?refresh=true', '{"n":' + nest(998, '[', ']', '7') + ',"o":' + nest(990, '{"a":', '}', '1') + '}', 'PUT');
    expect(doc.status).toBe(201);
    const got = await http(host.url + '/h/_doc/deep');
    expect(got.json._source.n.flat(Infinity)).toEqual([7]);
    const search = await post('/h/_search', { query: { term: { n: 7 } } });
    expect(search.json.hits.total.value).toBe(1);
    // a script returning a structure too deep to render: 400, not 500
    const sf = await post('/h/_search', '{"script_fields":{"x":{"script":{"source":"params.p","params":{"p":' + nest(500, '{"a":', '}', '1') + '}}}}}');
    expect(sf.status).toBe(400);
    expect(sf.json.error.root_cause[0].type).toBe('illegal_argument_exception');
  });

  it('queries nest at most indices.query.max_nested_depth (30) deep', async () => {
    const q = (d: number) => ({ query: JSON.parse(nest(d - 1, '{"bool":{"must":', '}}', '{"match_all":{}}')) });
    expect((await post('/h/_search', q(30))).status).toBe(200);
    const r = await post('/h/_search', q(31));
    expect(r.status).toBe(400);
    const reason = 'The nested depth of the query exceeds the maximum nested depth for queries set in [indices.query.max_nested_depth]';
    expect(r.json.error).toEqual({ root_cause: [{ type: 'illegal_argument_exception', reason }], type: 'illegal_argument_exception', reason });
  });

  it('a match over megabytes of text is refused by the max clause count, quickly', async () => {
    const text = Array.from({ length: 300_000 }, (_, i) => 'w' + i).join(' ');
    const t0 = Date.now();
    const r = await post('/h/_search', { query: { match: { t: text } } });
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('search_phase_execution_exception');
    expect(r.json.error.root_cause[0].type).toBe('query_shard_exception');
    expect(r.json.error.root_cause[0].reason).toMatch(/^failed to create query: maxClauseCount is set to \d+$/);
    expect(r.json.error.failed_shards[0].reason.caused_by.type).toBe('too_many_clauses');
    // bounded: refused after analysis, before any query of that size is built or run
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('query_string, simple_query_string and Painless refuse runaway nesting with their own parse errors', async () => {
    const parens = (n: number) => '('.repeat(n) + 'a' + ')'.repeat(n);
    const qs = await post('/h/_search', { query: { query_string: { query: parens(5000) } } });
    expect(qs.status).toBe(400);
    expect(qs.json.error.failed_shards[0].reason.caused_by.reason).toMatch(/groups nested deeper than \[1000\]$/);
    const sqs = await post('/h/_search', { query: { simple_query_string: { query: parens(5000) } } });
    expect(sqs.status).toBe(400);
    expect(sqs.json.error.root_cause[0].reason).toMatch(/groups nested deeper than \[1000\]$/);
    expect((await post('/h/_search', { query: { query_string: { query: parens(200) } } })).status).toBe(200);
    for (const source of ['('.repeat(5000) + '1' + ')'.repeat(5000) + ' == 1', 'if (true) {'.repeat(5000) + '}'.repeat(5000), '1' + ' + 1'.repeat(5000) + ' > 0', '!'.repeat(5000) + 'true']) {
      const r = await post('/h/_search', { query: { script: { script: { source } } } });
      expect(r.status).toBe(400);
      const cause = r.json.error.failed_shards[0].reason.caused_by;
      expect(cause.type).toBe('script_exception');
      expect(cause.caused_by.reason).toMatch(/too many nested statements or expressions/);
    }
    expect((await post('/h/_search', { query: { script: { script: { source: '('.repeat(400) + '1' + ')'.repeat(400) + ' == 1' } } } })).status).toBe(200);
  });

  const raw = (bytes: string | Buffer): Promise<{ status: number; headers: string; body: any }> =>
    new Promise((resolve, reject) => {
      const url = new URL(host.url);
      const s = connect(Number(url.port), url.hostname);
      const chunks: Buffer[] = [];
      s.on('data', (d) => chunks.push(d));
      s.on('error', reject);
      s.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
        resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body: body ? JSON.parse(body) : undefined });
      });
      s.end(bytes);
    });
  const esError = (type: string, reason: string, status = 400) => ({ error: { root_cause: [{ type, reason }], type, reason }, status });

  it('malformed HTTP gets Elasticsearch error bodies', async () => {
    const h = 'Host: x\r\nConnection: close\r\n';
    const unknown = await raw(`FOO / HTTP/1.1\r\n${h}\r\n`);
    expect(unknown.status).toBe(400);
    expect(unknown.headers).toContain('x-elastic-product: elasticsearch');
    expect(unknown.body).toEqual(esError('illegal_argument_exception', 'Unexpected http method: FOO'));
    const header = await raw(`GET / HTTP/1.1\r\n${h}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(header.body).toEqual(esError('too_long_http_header_exception', 'HTTP header is larger than 16384 bytes.'));
    const header17k = await raw(`GET / HTTP/1.1\r\n${h}X-Big: ${'a'.repeat(17_000)}\r\n\r\n`);
    expect(header17k.body).toEqual(esError('too_long_http_header_exception', 'HTTP header is larger than 16384 bytes.'));
    const line = await raw(`GET /${'a'.repeat(5000)} HTTP/1.1\r\n${h}\r\n`);
    expect(line.body).toEqual(esError('too_long_http_line_exception', 'An HTTP line is larger than 4096 bytes.'));
    const longLine = await raw(`GET /${'a'.repeat(30_000)} HTTP/1.1\r\n${h}\r\n`);
    expect(longLine.body).toEqual(esError('too_long_http_line_exception', 'An HTTP line is larger than 4096 bytes.'));
    const nonAscii = await raw(Buffer.concat([Buffer.from('GET /h'), Buffer.from([0xe9, 0xff]), Buffer.from(`/_search HTTP/1.1\r\n${h}\r\n`)]));
    expect(nonAscii.status).toBe(400);
    expect(nonAscii.body.error.type).toBe('illegal_argument_exception');
    expect(nonAscii.body.error.reason).toBe('invalid uri in request line [GET /h\\xe9\\xff/_search HTTP/1.1]');
    const badLength = await raw(`POST /h/_search HTTP/1.1\r\n${h}Content-Length: abc\r\n\r\n`);
    expect(badLength.body).toEqual(esError('illegal_argument_exception', 'invalid Content-Length header'));
    const encoding = await raw(`POST /h/_search HTTP/1.1\r\n${h}Content-Type: application/json\r\nContent-Encoding: br\r\nContent-Length: 2\r\n\r\n{}`);
    expect(encoding.status).toBe(415);
    expect(encoding.body).toEqual({ error: 'Content-Encoding [br] is not supported', status: 415 });
  });

  it('the node still serves after all of it', async () => {
    const r = await http(host.url + '/h/_search');
    expect(r.status).toBe(200);
  });
});
