import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { ts: 'date', n: 'double', tag: 'keyword' };
const docs = [
  { n: 5, ts: '2024-01-10T00:00:00Z', tag: 'a' },
  { n: 15, ts: '2024-01-14T00:00:00Z', tag: 'b' },
  { n: [25, 150], ts: '2024-01-15T06:00:00Z', tag: 'a' },
  { tag: 'c' },
];

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('range', () => {
  it('generates ES keys and from/to, sorted by from', () => {
    const r = run({ r: { range: { field: 'n', ranges: [{ from: 10, to: 20 }, { to: 10 }, { from: 20 }] } } }, docs, mapping, { typedKeys: true });
    expect(r).toEqual({
      'range#r': {
        buckets: [
          { key: '*-10.0', to: 10, doc_count: 1 },
          { key: '10.0-20.0', from: 10, to: 20, doc_count: 1 },
          { key: '20.0-*', from: 20, doc_count: 1 },
        ],
      },
    });
  });

  it('keyed with custom keys and sub-aggs; merges shards', () => {
    const { rendered } = runShards(
      { r: { range: { field: 'n', keyed: true, ranges: [{ key: 'low', to: 20 }, { key: 'high', from: 20 }] }, aggs: { t: { max: { field: 'n' } } } } },
      [[docs.slice(0, 2)], [docs.slice(2)]],
      mapping,
    );
    expect(rendered).toEqual({
      r: {
        buckets: {
          low: { to: 20, doc_count: 2, t: { value: 15 } },
          high: { from: 20, doc_count: 1, t: { value: 150 } },
        },
      },
    });
  });

  it('date_range with date math and formatted bounds', () => {
    // now = 2024-01-15T12:00:00Z in the test context
    const r = run({ r: { date_range: { field: 'ts', format: 'yyyy-MM-dd', ranges: [{ to: 'now-1d/d' }, { from: 'now-1d/d' }] } } }, docs, mapping);
    expect(r).toEqual({
      r: {
        buckets: [
          { key: '*-2024-01-14', to: Date.UTC(2024, 0, 14), to_as_string: '2024-01-14', doc_count: 1 },
          { key: '2024-01-14-*', from: Date.UTC(2024, 0, 14), from_as_string: '2024-01-14', doc_count: 2 },
        ],
      },
    });
  });

  it('requires ranges', () => {
    const e = err(() => run({ r: { range: { field: 'n' } } }, docs, mapping));
    expect(e.type).toBe('illegal_argument_exception');
    expect(e.reason).toBe('No [ranges] specified for the [r] aggregation');
  });
});

describe('filter / filters / missing / global', () => {
  it('filter with sub-agg and typed keys', () => {
    const r = run({ f: { filter: { term: { tag: 'a' } }, aggs: { m: { max: { field: 'n' } } } } }, docs, mapping, { typedKeys: true });
    expect(r).toEqual({ 'filter#f': { doc_count: 2, 'max#m': { value: 150 } } });
  });

  it('named filters (sorted keys) with other bucket', () => {
    const r = run({ f: { filters: { other_bucket: true, filters: { zz: { term: { tag: 'b' } }, aa: { term: { tag: 'a' } } } } } }, docs, mapping);
    expect(r).toEqual({ f: { buckets: { aa: { doc_count: 2 }, zz: { doc_count: 1 }, _other_: { doc_count: 1 } } } });
  });

  it('anonymous filters and non-keyed named filters', () => {
    expect(run({ f: { filters: { filters: [{ term: { tag: 'a' } }, { match_all: {} }], other_bucket_key: 'rest' } } }, docs, mapping)).toEqual({
      f: { buckets: [{ doc_count: 2 }, { doc_count: 4 }, { doc_count: 0 }] },
    });
    expect(run({ f: { filters: { keyed: false, filters: { x: { term: { tag: 'c' } } } } } }, docs, mapping)).toEqual({
      f: { buckets: [{ key: 'x', doc_count: 1 }] },
    });
  });

  it('ES yaml: keyed_bucket_in_array with bucket_sort; empty filters rejected', () => {
    const r = run(
      {
        f: {
          filters: { keyed_bucket_in_array: true, filters: { first: { term: { tag: 'a' } }, second: { term: { tag: 'b' } } } },
          aggs: { m: { max: { field: 'n' } }, s: { bucket_sort: { sort: [{ m: 'desc' }] } } },
        },
      },
      docs,
      mapping,
    );
    expect(r).toEqual({ f: { buckets: [{ first: { doc_count: 2, m: { value: 150 } } }, { second: { doc_count: 1, m: { value: 15 } } }] } });
    const r2 = run(
      { f: { filters: { keyed_bucket_in_array: true, filters: { first: { term: { tag: 'a' } }, second: { term: { tag: 'b' } } } }, aggs: { m: { min: { field: 'n' } }, s: { bucket_sort: { sort: [{ m: 'desc' }] } } } } },
      docs,
      mapping,
    );
    expect((r2['f'] as { buckets: Record<string, unknown>[] }).buckets.map((b) => Object.keys(b)[0])).toEqual(['second', 'first']);
    expect(err(() => run({ f: { filters: {} } }, docs, mapping)).reason).toBe('[filters] cannot be empty.');
    expect(err(() => run({ f: { filters: { filters: [] } } }, docs, mapping)).reason).toBe('[filters] cannot be empty.');
  });

  it('missing', () => {
    expect(run({ m: { missing: { field: 'n' } } }, docs, mapping, { typedKeys: true })).toEqual({ 'missing#m': { doc_count: 1 } });
    expect(run({ m: { missing: { field: 'unmapped' } } }, docs, mapping)).toEqual({ m: { doc_count: 4 } });
  });

  it('global ignores the query; cannot be nested', () => {
    const r = run({ g: { global: {}, aggs: { c: { value_count: { field: 'tag' } } } }, c: { value_count: { field: 'tag' } } }, docs, mapping, {
      query: { term: { tag: 'a' } },
    });
    expect(r).toEqual({ g: { doc_count: 4, c: { value: 4 } }, c: { value: 2 } });
    const e = err(() => run({ t: { terms: { field: 'tag' }, aggs: { g: { global: {} } } } }, docs, mapping));
    expect(e.type).toBe('aggregation_execution_exception');
  });

  it('sampler keeps the best shard_size docs by score', () => {
    const r = run(
      { s: { sampler: { shard_size: 2 }, aggs: { t: { terms: { field: 'tag' } } } } },
      docs,
      mapping,
      { typedKeys: true, scores: (d) => (typeof d['n'] === 'number' ? (d['n'] as number) : 0) },
    );
    expect(r).toEqual({
      'sampler#s': { doc_count: 2, 'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'a', doc_count: 1 }, { key: 'b', doc_count: 1 }] } },
    });
  });

  it('adjacency_matrix: filters and their non-empty intersections, sorted by key', () => {
    const r = run(
      { m: { adjacency_matrix: { filters: { grpB: { term: { tag: 'b' } }, grpA: { term: { tag: 'a' } }, grpN: { exists: { field: 'n' } } } } } },
      docs,
      mapping,
      { typedKeys: true },
    );
    expect(r).toEqual({
      'adjacency_matrix#m': {
        buckets: [
          { key: 'grpA', doc_count: 2 },
          { key: 'grpA&grpN', doc_count: 2 },
          { key: 'grpB', doc_count: 1 },
          { key: 'grpB&grpN', doc_count: 1 },
          { key: 'grpN', doc_count: 3 },
        ],
      },
    });
  });

  it('terms ordered by a filter sub-aggregation path', () => {
    const r = run(
      { t: { terms: { field: 'tag', order: { 'f>m': 'desc' } }, aggs: { f: { filter: { exists: { field: 'n' } }, aggs: { m: { max: { field: 'n' } } } } } } },
      docs,
      mapping,
    );
    expect((r['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['a', 'b', 'c']);
  });
});
