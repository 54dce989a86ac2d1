/**
 * Bulk documents parsed in the node's parse threads (`thread_pool.bulk_parse.size`) answer exactly as documents
 * parsed on the event loop: two nodes, one with parse threads and one without, get the same requests — bulks of
 * varied documents (dynamic fields, nested, arrays, geo, dates with formats, copy_to, multi-fields,
 * ignore_malformed, failing items, routing, versions, conflicts, deletes, updates) — and give the same bulk
 * responses, mappings, realtime gets and search answers.
 */
import { seededRandom } from '@strata/core-common';
import { EngineTokens } from '@strata/core-engine';
import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

const MAPPINGS = {
  properties: {
    seq: { type: 'long' },
    '@timestamp': { type: 'date' },
    day: { type: 'date', format: 'yyyy/MM/dd||epoch_millis' },
    title: { type: 'text', fields: { raw: { type: 'keyword', ignore_above: 12 } }, copy_to: 'all' },
    all: { type: 'text' },
    tags: { type: 'keyword' },
    count: { type: 'integer', ignore_malformed: true },
    big: { type: 'long' },
    ratio: { type: 'double' },
    ip: { type: 'ip' },
    loc: { type: 'geo_point' },
    comments: { type: 'nested', properties: { who: { type: 'keyword' }, stars: { type: 'integer' } } },
  },
};

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'Timeout', 'checkout', 'refund', 'ÉCOLE', 'naïve', 'quick-brown'];

/** the NDJSON of a bulk of `n` varied items */
function bulkBody(seed: number, n: number, base: number): string {
  const r = seededRandom(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const words = (k: number) => Array.from({ length: k }, () => pick(WORDS)).join(' ');
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = `d${base + Math.floor(r() * n * 0.9)}`;
    const routing = r() < 0.2 ? { routing: `r${i % 3}` } : {};
    const x = r();
    if (x < 0.05) {
      lines.push(JSON.stringify({ delete: { _id: id, ...routing } }));
      continue;
    }
    if (x < 0.08) {
      lines.push(JSON.stringify({ update: { _id: id, ...routing } }), JSON.stringify({ doc: { tags: pick(WORDS) }, doc_as_upsert: true }));
      continue;
    }
    const op = x < 0.2 ? { create: { _id: id, ...routing } } : x < 0.25 ? { index: { _id: id, version: 5 + i, version_type: 'external', ...routing } } : { index: { _id: id, ...routing } };
    lines.push(JSON.stringify(op));
    if (r() < 0.02) {
      // item errors: malformed JSON, duplicate keys, not an object, nesting too deep
      lines.push(pick(['{"title": "broken", ', '{"tags":"a","count":1,"tags":"b"}', '[1,2]', '"text"', '{"a":'.repeat(1001) + '1' + '}'.repeat(1001)]));
      continue;
    }
    const d: Record<string, unknown> = { seq: base * 10 + i };
    const maybe = (p: number, k: string, v: () => unknown) => {
      if (r() < p) d[k] = v();
    };
    maybe(0.9, '@timestamp', () => (r() < 0.5 ? new Date(1_700_000_000_000 + i * 1000).toISOString() : 1_700_000_000_000 + i));
    maybe(0.3, 'day', () => (r() < 0.5 ? `2024/0${1 + (i % 9)}/1${i % 10}` : String(1_600_000_000_000 + i)));
    maybe(0.8, 'title', () => (r() < 0.2 ? [words(2), words(3)] : words(1 + Math.floor(r() * 5))));
    maybe(0.5, 'tags', () => (r() < 0.5 ? pick(WORDS) : [pick(WORDS), pick(WORDS)]));
    maybe(0.6, 'count', () => (r() < 0.1 ? 'many' : Math.floor(r() * 1000)));
    maybe(0.1, 'big', () => 'BIG_LONG');
    maybe(0.3, 'ratio', () => (r() < 0.03 ? 'not a double' : r() * 100));
    maybe(0.3, 'ip', () => `10.0.${i % 256}.${Math.floor(r() * 256)}`);
    maybe(0.2, 'loc', () => ({ lat: Math.round(r() * 9000) / 100, lon: Math.round(r() * 18000) / 100 }));
    maybe(0.2, 'comments', () => [{ who: pick(WORDS), stars: Math.floor(r() * 5) }, { who: pick(WORDS), stars: 3 }]);
    maybe(0.03, `dyn_${i % 5}`, () => (r() < 0.5 ? pick(WORDS) : i));
    // a long beyond 2^53 as sent (the exact digits are read from the source text)
    lines.push(JSON.stringify(d).replace('"BIG_LONG"', '9007199254740993'));
  }
  return lines.join('\n') + '\n';
}

describe('bulk documents parsed in threads answer as parsed on the event loop', () => {
  let plain: ApiTestNode;
  let threads: ApiTestNode;

  beforeAll(async () => {
    plain = await startApiTestNode({ prefix: 'strata-bulkparse0-', settings: { 'thread_pool.bulk_parse.size': 0 } });
    // two threads: chunks of two string tables (mapper/parse-task.ts) in one buffer
    threads = await startApiTestNode({ prefix: 'strata-bulkparse1-', settings: { 'thread_pool.bulk_parse.size': 2 } });
  }, 60_000);
  afterAll(async () => {
    await plain?.close();
    await threads?.close();
  });

  /** each node's uuid of the index (the only difference allowed in answers) */
  const uuids = new Map<ApiTestNode, string>();
  const call = async (node: ApiTestNode, method: string, path: string, body?: unknown, contentType?: string) => {
    const r = await node.call(method, path, body, contentType);
    const u = uuids.get(node);
    const parsed = u && r.body !== undefined ? JSON.parse(r.text.split(u).join('UUID')) : r.body;
    if (parsed && typeof parsed === 'object') delete parsed.took;
    return { status: r.status, body: parsed };
  };
  /** the same request on both nodes: the two answers (took left out, the index's uuid masked) */
  const both = async (method: string, path: string, body?: unknown, contentType?: string) =>
    [await call(plain, method, path, body, contentType), await call(threads, method, path, body, contentType)] as const;

  it('same bulk responses, mappings, gets and searches', async () => {
    const [c0, c1] = await both('PUT', '/docs', { settings: { number_of_shards: 2, refresh_interval: -1 }, mappings: MAPPINGS });
    expect([c0.status, c1.status]).toEqual([200, 200]);
    for (const node of [plain, threads]) uuids.set(node, (await node.call('GET', '/docs/_settings')).body.docs.settings.index.uuid);
    for (let k = 0; k < 3; k++) {
      const [a, b] = await both('POST', '/docs/_bulk', bulkBody(11 + k, 700, k * 500), NDJSON);
      expect(a.status).toBe(200);
      expect(b.body).toEqual(a.body);
      expect(a.body.errors).toBe(true);
      // realtime gets read the indexing buffer
      for (const id of ['d3', `d${k * 500 + 17}`, `d${k * 500 + 301}`]) {
        const [g0, g1] = await both('GET', `/docs/_doc/${id}?routing=r0`);
        expect(g1.body).toEqual(g0.body);
      }
    }
    const pool = threads.node.container.get<{ mergePool: { parsedDocs: number; parseStrings: { unresolved: number } } | null }>(EngineTokens.IndicesService).mergePool;
    expect(pool?.parsedDocs).toBeGreaterThan(1500);
    // every chunk was read with its thread's table
    expect(pool?.parseStrings.unresolved).toBe(0);
    const [m0, m1] = await both('GET', '/docs/_mapping');
    expect(m1.body).toEqual(m0.body);
    expect(Object.keys(m0.body.docs.mappings.properties)).toContain('dyn_1');
    await both('POST', '/docs/_refresh');
    const searches: unknown[] = [
      { size: 2000, sort: ['seq'], fields: ['*'], docvalue_fields: ['count', 'day', 'big', 'tags', 'title.raw', 'ip'] },
      { query: { match: { all: 'refund timeout' } }, size: 20 },
      { query: { term: { tags: 'alpha' } }, size: 5, sort: ['seq'] },
      { query: { range: { count: { gte: 100, lt: 500 } } }, size: 0, track_total_hits: true },
      { query: { nested: { path: 'comments', query: { term: { 'comments.stars': 3 } } } }, size: 5, sort: ['seq'] },
      { query: { exists: { field: 'loc' } }, size: 3, sort: ['seq'], fields: ['loc'] },
      { query: { exists: { field: '_ignored' } }, size: 3, sort: ['seq'] },
      {
        size: 0,
        aggs: {
          tags: { terms: { field: 'tags' } },
          days: { date_histogram: { field: 'day', calendar_interval: 'month' } },
          ratio: { stats: { field: 'ratio' } },
          who: { nested: { path: 'comments' }, aggs: { w: { terms: { field: 'comments.who' } } } },
        },
      },
    ];
    for (const s of searches) {
      const [a, b] = await both('POST', '/docs/_search', s);
      expect([a.status, a.status === 200 ? null : a.body]).toEqual([200, null]);
      expect(b.body).toEqual(a.body);
    }
    const [n0, n1] = await both('GET', '/docs/_count');
    expect(n1.body).toEqual(n0.body);
    expect(n0.body.count).toBeGreaterThan(500);
  }, 120_000);
});
