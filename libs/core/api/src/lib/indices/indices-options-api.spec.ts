import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

/**
 * One indices-options parser (core-common indicesOptionsFromParams) behind every API, and one JSON position
 * implementation behind every `[line:col]` (black box).
 */
describe('indices options and JSON error positions, the same everywhere', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-indices-options-', settings: { 'node.name': 'n1' } });
    for (const [name, settings] of [['logs-a', {}], ['logs-b', {}], ['logs-h', { 'index.hidden': true }]] as const) {
      const r = await call('PUT', `/${name}`, { settings: { number_of_shards: 1, number_of_replicas: 0, ...settings } });
      if (r.status !== 200) throw new Error(r.text);
    }
    await call('POST', '/_bulk?refresh=true', '{"index":{"_index":"logs-a"}}\n{"m":1}\n{"index":{"_index":"logs-h"}}\n{"m":2}\n', NDJSON);
    await call('POST', '/logs-b/_close');
  });
  afterAll(() => api.close());

  it('an unknown expand_wildcards value is refused with ES message by search, count, stats, cat, refresh, mapping and get index', async () => {
    for (const path of ['/logs-*/_search', '/logs-*/_count', '/logs-*/_stats', '/_cat/indices/logs-*', '/logs-*/_mapping', '/logs-*', '/logs-*/_refresh']) {
      const method = path.endsWith('_refresh') ? 'POST' : 'GET';
      const r = await call(method, `${path}?expand_wildcards=open,foo`);
      expect([path, r.status, r.body.error?.type, r.body.error?.reason]).toEqual([path, 400, 'illegal_argument_exception', 'No valid expand wildcard value [foo]']);
    }
  });

  it('none clears the states before it; hidden and all are honoured by _stats and _cat/indices', async () => {
    const stats = async (q: string) => Object.keys((await call('GET', `/logs-*/_stats?${q}`)).body.indices ?? {}).sort();
    expect(await stats('expand_wildcards=open')).toEqual(['logs-a']);
    expect(await stats('expand_wildcards=open,hidden')).toEqual(['logs-a', 'logs-h']);
    expect(await stats('expand_wildcards=all,none')).toEqual([]);
    expect(await stats('expand_wildcards=none,open')).toEqual(['logs-a']);
    const r = await call('GET', '/logs-*/_stats?expand_wildcards=all,none');
    expect(r.headers.get('warning')).toContain("Combining the value 'none' with other options is deprecated");
    const cat = async (q: string) => (await call('GET', `/_cat/indices/logs-*?h=index&s=index&${q}`)).text.trim().split('\n').filter(Boolean);
    expect(await cat('')).toEqual(['logs-a', 'logs-b', 'logs-h']);
    expect(await cat('expand_wildcards=open')).toEqual(['logs-a']);
    expect(await cat('expand_wildcards=closed')).toEqual(['logs-b']);
  });

  it('a bad indices-options boolean is "Could not convert [name] to boolean"; a blank one keeps the default', async () => {
    for (const name of ['ignore_unavailable', 'allow_no_indices', 'ignore_throttled']) {
      const r = await call('GET', `/logs-a/_search?${name}=abc`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        type: 'illegal_argument_exception',
        reason: `Could not convert [${name}] to boolean`,
        caused_by: { type: 'illegal_argument_exception', reason: 'Failed to parse value [abc] as only [true] or [false] are allowed.' },
      });
      expect(r.body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: `Could not convert [${name}] to boolean` }]);
    }
    // blank ignore_unavailable keeps the default (false): the missing index is still an error
    expect((await call('GET', '/nope/_search?ignore_unavailable=')).body.error?.type).toBe('index_not_found_exception');
    expect((await call('GET', '/nope,logs-a/_search?ignore_unavailable=true')).body.hits?.total?.value).toBe(1);
  });

  it('msearch header options go through the same parser', async () => {
    const body = '{"index":"logs-*","expand_wildcards":"open,hidden"}\n{"size":0}\n{"index":"logs-*","expand_wildcards":"bogus"}\n{"size":0}\n{"index":"nope","ignore_unavailable":"true"}\n{"size":0}\n';
    const r = await call('POST', '/_msearch', body, NDJSON);
    expect(r.status).toBe(200);
    expect(r.body.responses[0].hits.total.value).toBe(2);
    expect(r.body.responses[1].error).toMatchObject({ type: 'illegal_argument_exception', reason: 'No valid expand wildcard value [bogus]' });
    expect(r.body.responses[2].hits.total.value).toBe(0);
  });

  it('JSON syntax errors carry [line:col] and Jackson line/column from the one position implementation', async () => {
    const r = await call('POST', '/logs-a/_search', '{\n  "query": {\n    "match_all": {} ,,\n  }\n}', 'application/json');
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('x_content_parse_exception');
    expect(r.body.error.reason).toMatch(/^\[3:22\] /);
    expect(r.body.error.caused_by.type).toBe('json_parse_exception');
    expect(r.body.error.caused_by.reason).toMatch(/line: 3, column: 22\]$/);
    const q = await call('POST', '/logs-a/_search', '{\n  "query": {\n    "nope": {}\n  }\n}', 'application/json');
    expect(q.body.error).toMatchObject({ type: 'parsing_exception', reason: 'unknown query [nope]', line: 3, col: 13 });
  });
});
