import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../src/index.js';
import { http, startE2eHost, type E2eHost } from './helpers.js';

/**
 * Circuit breakers over HTTP: each of request (aggregation buckets, sort structures), in_flight_requests
 * (bodies) and parent trips with 429 circuit_breaking_exception as Elasticsearch answers it, is counted in
 * `_nodes/stats/breaker`, releases what the request held, and the node keeps serving.
 */
describe('circuit breakers', () => {
  let host: E2eHost;
  beforeAll(async () => {
    host = await startE2eHost();
    await call('PUT', '/b', { settings: { number_of_shards: 2 }, mappings: { properties: { n: { type: 'long' }, k: { type: 'keyword' } } } });
    let bulk = '';
    for (let i = 0; i < 20_000; i++) bulk += `{"index":{}}\n{"n":${i},"k":"k${i}"}\n`;
    const r = await call('POST', '/b/_bulk?refresh=true', bulk, 'application/x-ndjson');
    expect(r.json.errors).toBe(false);
  });
  afterAll(() => host.close());

  const call = (method: string, path: string, body?: unknown, ct = 'application/json') =>
    http(host.url + path, { method, headers: { 'content-type': ct }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const breakers = async () => {
    const r = await call('GET', '/_nodes/stats/breaker');
    return (Object.values(r.json.nodes)[0] as { breakers: Record<string, Record<string, number | string>> }).breakers;
  };
  const setting = (key: string, value: string | null) => call('PUT', '/_cluster/settings', { transient: { [key]: value } });
  const bigAgg = { size: 0, aggs: { t: { terms: { field: 'n', size: 5 } } } };

  it('_nodes/stats/breaker lists every breaker with limits, estimates, overhead and trips', async () => {
    const b = await breakers();
    expect(Object.keys(b)).toEqual(['request', 'fielddata', 'in_flight_requests', 'eql_sequence', 'accounting', 'parent']);
    for (const v of Object.values(b)) {
      expect(Object.keys(v)).toEqual(['limit_size_in_bytes', 'limit_size', 'estimated_size_in_bytes', 'estimated_size', 'overhead', 'tripped']);
    }
    expect(b['in_flight_requests']!['overhead']).toBe(2);
    expect(b['fielddata']!['overhead']).toBe(1.03);
    expect(b['request']!['estimated_size_in_bytes']).toBe(0);
  });

  it('request breaker: aggregation buckets past indices.breaker.request.limit → 429, then serving again', async () => {
    expect((await call('POST', '/b/_search', bigAgg)).status).toBe(200);
    expect((await setting('indices.breaker.request.limit', '512kb')).status).toBe(200);
    // (not from the request cache, which holds the answer of the first run)
    const r = await call('POST', '/b/_search?request_cache=false', bigAgg);
    expect(r.status).toBe(429);
    expect(r.json.error.type).toBe('search_phase_execution_exception');
    const cause = r.json.error.root_cause[0];
    expect(cause.type).toBe('circuit_breaking_exception');
    expect(cause.reason).toMatch(/^\[request\] Data too large, data for \[allocated_buckets\] would be \[\d+\/[\d.]+[kmg]?b\], which is larger than the limit of \[524288\/512kb\]$/);
    expect(cause.bytes_limit).toBe(524288);
    expect(cause.durability).toBe('TRANSIENT');
    // a sort structure of 10k hits is charged too (10k x 88 bytes > 512kb)
    const sorted = await call('POST', '/b/_search', { size: 10_000, sort: ['n'] });
    expect(sorted.status).toBe(429);
    expect(sorted.json.error.root_cause[0].reason).toMatch(/^\[request\] Data too large, data for \[top_docs\]/);
    // small requests still pass while the limit is low; what the tripped requests held was released
    expect((await call('POST', '/b/_search', { size: 1, aggs: { m: { max: { field: 'n' } } } })).status).toBe(200);
    const b = await breakers();
    // each of the two shards tripped, for both searches
    expect(b['request']!['tripped']).toBe(4);
    expect(b['request']!['estimated_size_in_bytes']).toBe(0);
    expect((await setting('indices.breaker.request.limit', null)).status).toBe(200);
    expect((await call('POST', '/b/_search', bigAgg)).status).toBe(200);
  });

  it('in-flight requests breaker: a body past network.breaker.inflight_requests.limit → 429 before it is parsed', async () => {
    expect((await setting('network.breaker.inflight_requests.limit', '16kb')).status).toBe(200);
    const body = { query: { terms: { k: Array.from({ length: 2000 }, (_, i) => `k${i}`) } } };
    const r = await call('POST', '/b/_search', body);
    expect(r.status).toBe(429);
    const len = Buffer.byteLength(JSON.stringify(body));
    const reason = `[in_flight_requests] Data too large, data for [<http_request>] would be [${len * 2}/${(len * 2 / 1024).toFixed(1).replace(/\.0$/, '')}kb], which is larger than the limit of [16384/16kb]`;
    expect(r.json).toEqual({
      error: {
        root_cause: [{ type: 'circuit_breaking_exception', reason, bytes_wanted: len * 2, bytes_limit: 16384, durability: 'TRANSIENT' }],
        type: 'circuit_breaking_exception',
        reason,
        bytes_wanted: len * 2,
        bytes_limit: 16384,
        durability: 'TRANSIENT',
      },
      status: 429,
    });
    // nothing was indexed by a refused bulk
    const bulk = await call('POST', '/b/_bulk?refresh=true', '{"index":{"_id":"x"}}\n' + JSON.stringify({ k: 'x'.repeat(20_000) }) + '\n', 'application/x-ndjson');
    expect(bulk.status).toBe(429);
    expect((await call('GET', '/b/_doc/x')).status).toBe(404);
    expect((await call('POST', '/b/_search', { size: 1 })).status).toBe(200);
    const b = await breakers();
    expect(b['in_flight_requests']!['tripped']).toBe(2);
    expect(b['in_flight_requests']!['estimated_size_in_bytes']).toBe(0);
    expect((await setting('network.breaker.inflight_requests.limit', null)).status).toBe(200);
  });

  it('parent breaker: real heap in use past indices.breaker.total.limit → 429; cluster settings still answer to lift it', async () => {
    expect((await setting('indices.breaker.total.limit', '1%')).status).toBe(200);
    const r = await call('POST', '/b/_search?request_cache=false', bigAgg);
    expect(r.status).toBe(429);
    expect(r.json.error.type).toBe('circuit_breaking_exception');
    expect(r.json.error.reason).toMatch(
      /^\[parent\] Data too large, data for \[<http_request>\] would be \[\d+\/.+\], which is larger than the limit of \[\d+\/.+\], real usage: \[\d+\/.+\], new bytes reserved: \[\d+\/.+\], usages \[request=0\/0b, fielddata=0\/0b, in_flight_requests=\d+\/.+, eql_sequence=0\/0b, accounting=0\/0b\]$/,
    );
    // requests without a body reserve nothing and keep working
    expect((await call('GET', '/b/_count')).status).toBe(200);
    expect((await setting('indices.breaker.total.limit', null)).status).toBe(200);
    expect((await call('POST', '/b/_search', bigAgg)).status).toBe(200);
    const b = await breakers();
    expect(b['parent']!['tripped']).toBe(1);
  });

  it('a breaker limit persisted through _cluster/settings applies again after a restart', async () => {
    const dataPath = mkdtempSync(join(tmpdir(), 'strata-breakers-'));
    const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };
    const start = () => startServer({ port: 0, dataPath, settings: { 'xpack.security.enabled': false }, logger: silent });
    const limitOf = async (url: string) => {
      const r = await http(url + '/_nodes/stats/breaker');
      return (Object.values(r.json.nodes)[0] as { breakers: { request: { limit_size_in_bytes: number } } }).breakers.request.limit_size_in_bytes;
    };
    try {
      const first = await start();
      const put = await http(first.url + '/_cluster/settings', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ persistent: { 'indices.breaker.request.limit': '3mb' } }),
      });
      expect(put.status).toBe(200);
      expect(await limitOf(first.url)).toBe(3 * 1024 * 1024);
      await first.close();
      const second = await start();
      expect(await limitOf(second.url)).toBe(3 * 1024 * 1024);
      await second.close();
    } finally {
      rmSync(dataPath, { recursive: true, force: true });
    }
  });
});
