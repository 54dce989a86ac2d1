import { startConformanceHost, type Conformance } from './harness.js';

/**
 * Aggregations: black-box comparison with Elasticsearch 8.x response shapes and values.
 * `it.failing` marks a confirmed difference (flip to `it` once fixed).
 */
describe('conformance: aggregations', () => {
  let es: Conformance;

  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/ag', {
      settings: { number_of_shards: 3 },
      mappings: { properties: { tag: { type: 'keyword' }, n: { type: 'integer' }, price: { type: 'double' }, d: { type: 'date' }, ok: { type: 'boolean' } } },
    });
    const lines: unknown[] = [];
    for (let i = 1; i <= 20; i++) {
      lines.push({ index: { _id: String(i) } });
      lines.push({ tag: `t${i % 3}`, n: i, price: i + 0.5, d: `2024-01-${String(i).padStart(2, '0')}T10:00:00Z`, ok: i % 2 === 0 });
    }
    lines.push({ index: { _id: '21' } }, { tag: ['t1', 't9'], n: [1, 100] });
    lines.push({ index: { _id: '22' } }, { other: 1 });
    const b = await es.bulk('/ag/_bulk?refresh=true', lines);
    expect(b.json.errors).toBe(false);
  });
  afterAll(() => es.close());

  const aggs = async (a: unknown, query?: unknown) => {
    const r = await es.req('POST', '/ag/_search?size=0', query ? { query, aggs: a } : { aggs: a });
    expect(r.status).toBe(200);
    return r.json.aggregations;
  };

  it('terms across 3 shards: exact counts, order, sum_other_doc_count', async () => {
    const r = await aggs({ x: { terms: { field: 'tag', size: 2 } } });
    expect(r.x).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 7,
      buckets: [
        { key: 't1', doc_count: 8 },
        { key: 't2', doc_count: 7 },
      ],
    });
    const asc = await aggs({ x: { terms: { field: 'tag', order: { _count: 'asc' }, size: 2 } } });
    expect(asc.x.buckets).toEqual([
      { key: 't9', doc_count: 1 },
      { key: 't0', doc_count: 6 },
    ]);
  });

  it('terms on boolean / numeric: key + key_as_string for boolean, plain numeric keys', async () => {
    const r = await aggs({ b: { terms: { field: 'ok' } }, n: { terms: { field: 'n', size: 1, order: { m: 'desc' } }, aggs: { m: { max: { field: 'price' } } } } });
    expect(r.b.buckets).toEqual([
      { key: 0, key_as_string: 'false', doc_count: 10 },
      { key: 1, key_as_string: 'true', doc_count: 10 },
    ]);
    expect(r.n.buckets).toEqual([{ key: 20, doc_count: 1, m: { value: 20.5 } }]);
  });

  it('histogram with extended_bounds and min_doc_count 0 fills empty buckets', async () => {
    const r = await aggs({ h: { histogram: { field: 'n', interval: 10, min_doc_count: 0, extended_bounds: { min: 0, max: 40 } } } }, { exists: { field: 'price' } });
    expect(r.h.buckets).toEqual([
      { key: 0, doc_count: 9 },
      { key: 10, doc_count: 10 },
      { key: 20, doc_count: 1 },
      { key: 30, doc_count: 0 },
      { key: 40, doc_count: 0 },
    ]);
  });

  it('date_histogram: calendar week with time_zone, fixed 10d from the epoch, key_as_string', async () => {
    const w = await aggs({ x: { date_histogram: { field: 'd', calendar_interval: 'week', time_zone: '+01:00' } } });
    expect(w.x.buckets).toEqual([
      { key_as_string: '2024-01-01T00:00:00.000+01:00', key: 1704063600000, doc_count: 7 },
      { key_as_string: '2024-01-08T00:00:00.000+01:00', key: 1704668400000, doc_count: 7 },
      { key_as_string: '2024-01-15T00:00:00.000+01:00', key: 1705273200000, doc_count: 6 },
    ]);
    const f = await aggs({ x: { date_histogram: { field: 'd', fixed_interval: '10d', format: 'yyyy-MM-dd' } } });
    expect(f.x.buckets.map((b: { key_as_string: string; doc_count: number }) => [b.key_as_string, b.doc_count])).toEqual([
      ['2023-12-29', 7],
      ['2024-01-08', 10],
      ['2024-01-18', 3],
    ]);
  });

  it('date_histogram rejects the removed [interval] parameter and non-calendar calendar_interval', async () => {
    const a = await es.req('POST', '/ag/_search?size=0', { aggs: { x: { date_histogram: { field: 'd', interval: 'day' } } } });
    expect(a.status).toBe(400);
    expect(a.json.error.type).toBe('x_content_parse_exception');
    const b = await es.req('POST', '/ag/_search?size=0', { aggs: { x: { date_histogram: { field: 'd', calendar_interval: '3d' } } } });
    expect(b.status).toBe(400);
    // ObjectParser wraps the setter's IllegalArgumentException: "[date_histogram] failed to parse field [calendar_interval]"
    expect(b.json.error.type).toBe('x_content_parse_exception');
    expect(b.json.error.reason).toMatch(/^\[\d+:\d+\] \[date_histogram\] failed to parse field \[calendar_interval\]$/);
    expect(b.json.error.caused_by).toMatchObject({ type: 'illegal_argument_exception', reason: 'The supplied interval [3d] could not be parsed as a calendar interval.' });
  });

  it('range / date_range keys, keyed output', async () => {
    const r = await aggs({
      r: { range: { field: 'n', ranges: [{ to: 5 }, { from: 5, to: 10, key: 'mid' }, { from: 10 }] } },
      k: { range: { field: 'n', keyed: true, ranges: [{ to: 5 }, { from: 5 }] } },
      dr: { date_range: { field: 'd', format: 'yyyy-MM-dd', ranges: [{ to: '2024-01-10' }, { from: '2024-01-10' }] } },
    });
    expect(r.r.buckets).toEqual([
      { key: '*-5.0', to: 5, doc_count: 5 },
      { key: 'mid', from: 5, to: 10, doc_count: 5 },
      { key: '10.0-*', from: 10, doc_count: 12 },
    ]);
    expect(r.k.buckets).toEqual({ '*-5.0': { to: 5, doc_count: 5 }, '5.0-*': { from: 5, doc_count: 17 } });
    expect(r.dr.buckets).toEqual([
      { key: '*-2024-01-10', to: 1704844800000, to_as_string: '2024-01-10', doc_count: 9 },
      { key: '2024-01-10-*', from: 1704844800000, from_as_string: '2024-01-10', doc_count: 11 },
    ]);
  });

  it('filter / filters with other_bucket / missing', async () => {
    const r = await aggs({
      f: { filter: { term: { tag: 't1' } }, aggs: { s: { sum: { field: 'n' } } } },
      fs: { filters: { filters: { a: { term: { tag: 't1' } }, b: { term: { tag: 't2' } } }, other_bucket: true } },
      m: { missing: { field: 'price' } },
    });
    expect(r.f).toEqual({ doc_count: 8, s: { value: 171 } });
    expect(r.fs.buckets).toEqual({ a: { doc_count: 8 }, b: { doc_count: 7 }, _other_: { doc_count: 7 } });
    expect(r.m).toEqual({ doc_count: 2 });
  });

  it('metrics: stats over multi-valued docs, value_as_string for dates; empty-set shapes', async () => {
    const r = await aggs({ st: { stats: { field: 'n' } }, ma: { max: { field: 'd' } }, vc: { value_count: { field: 'tag' } }, c: { cardinality: { field: 'tag' } } });
    expect(r.st).toEqual({ count: 22, min: 1, max: 100, avg: 311 / 22, sum: 311 });
    expect(r.ma).toEqual({ value: 1705744800000, value_as_string: '2024-01-20T10:00:00.000Z' });
    expect(r.vc).toEqual({ value: 22 });
    expect(r.c).toEqual({ value: 4 });
    const e = await aggs({ s: { sum: { field: 'n' } }, a: { avg: { field: 'n' } }, mi: { min: { field: 'd' } }, st: { stats: { field: 'n' } } }, { term: { tag: 'none' } });
    expect(e).toEqual({ s: { value: 0 }, a: { value: null }, mi: { value: null }, st: { count: 0, min: null, max: null, avg: null, sum: 0 } });
  });

  // ES >= 8.9: the default TDigest is a HybridDigest that keeps every sample (SortingDigest) below
  // 20 * compression (= 2000) values and interpolates: index = q * (n - 1) (org.elasticsearch.tdigest.Dist).
  it('percentiles are exact (linear interpolation) for small populations', async () => {
    const r = await aggs({ p: { percentiles: { field: 'n' } } });
    // sorted samples: 1, 1, 2, 3, ..., 20, 100 (22 values)
    const v = [1, 1, ...Array.from({ length: 19 }, (_, i) => i + 2), 100];
    const q = (p: number) => {
      const idx = (p / 100) * (v.length - 1);
      const lo = Math.floor(idx);
      return lo >= v.length - 1 ? v[v.length - 1] : v[lo] + (idx - lo) * (v[lo + 1] - v[lo]);
    };
    for (const p of ['1.0', '5.0', '25.0', '50.0', '75.0', '95.0', '99.0']) {
      expect([p, r.p.values[p]]).toEqual([p, expect.closeTo(q(Number(p)), 9)]);
    }
  });

  it('percentile_ranks use the same exact cdf for small populations (10 -> 10/22)', async () => {
    const r = await aggs({ p: { percentile_ranks: { field: 'n', values: [10] } } });
    expect(r.p.values['10.0']).toBeCloseTo((10 / 22) * 100, 9);
  });

  it('percentiles keyed:false shape', async () => {
    const r = await aggs({ p: { percentiles: { field: 'n', keyed: false, percents: [50] } } });
    expect(r.p.values).toEqual([{ key: 50, value: 10.5 }]);
  });

  it('top_hits and composite paging with after_key', async () => {
    const r = await aggs({
      th: { top_hits: { size: 1, sort: [{ n: 'desc' }], _source: ['n'] } },
      co: { composite: { size: 2, sources: [{ t: { terms: { field: 'tag' } } }, { h: { histogram: { field: 'n', interval: 10 } } }] } },
    });
    expect(r.th.hits.hits).toEqual([{ _index: 'ag', _id: '21', _score: null, _source: { n: [1, 100] }, sort: [100] }]);
    expect(r.co).toEqual({
      after_key: { t: 't0', h: 10 },
      buckets: [
        { key: { t: 't0', h: 0 }, doc_count: 3 },
        { key: { t: 't0', h: 10 }, doc_count: 3 },
      ],
    });
    const next = await aggs({
      co: { composite: { size: 2, after: r.co.after_key, sources: [{ t: { terms: { field: 'tag' } } }, { h: { histogram: { field: 'n', interval: 10 } } }] } },
    });
    expect(next.co.buckets[0]).toEqual({ key: { t: 't1', h: 0 }, doc_count: 4 });
  });

  it('errors: unknown aggregation type, terms size 0, max on keyword', async () => {
    const u = await es.req('POST', '/ag/_search?size=0', { aggs: { x: { unknownagg: { field: 'n' } } } });
    expect(u.status).toBe(400);
    expect(u.json.error).toMatchObject({ type: 'parsing_exception', reason: 'Unknown aggregation type [unknownagg]' });
    const z = await es.req('POST', '/ag/_search?size=0', { aggs: { t: { terms: { field: 'tag', size: 0 } } } });
    expect(z.status).toBe(400);
    expect(z.json.error.type).toBe('x_content_parse_exception');
    expect(z.json.error.reason).toMatch(/^\[\d+:\d+\] \[terms\] failed to parse field \[size\]$/);
    expect(z.json.error.caused_by).toMatchObject({ type: 'illegal_argument_exception', reason: '[size] must be greater than 0. Found [0] in [t]' });
    const k = await es.req('POST', '/ag/_search?size=0', { aggs: { m: { max: { field: 'tag' } } } });
    expect(k.status).toBe(400);
    expect(k.json.error.root_cause[0].reason).toBe('Field [tag] of type [keyword] is not supported for aggregation [max]');
  });

  // ObjectParser: an unknown field is reported at its key, a field that fails to parse at its value
  it('aggregation parse errors name their line and column in the body', async () => {
    const body = '{\n  "aggs": {\n    "a": { "terms": { "field": "tag", "sizes": 1 } }\n  }\n}';
    const r = await es.req('POST', '/ag/_search', body);
    expect(r.status).toBe(400);
    expect(r.json.error.type).toBe('x_content_parse_exception');
    expect(r.json.error.reason).toBe('[3:39] [terms] unknown field [sizes]');
    const v = await es.req('POST', '/ag/_search', '{"aggs":{"a":{"terms":{"field":"tag","size":"x"}}}}');
    expect(v.json.error.reason).toBe('[1:45] [terms] failed to parse field [size]');
  });
});
