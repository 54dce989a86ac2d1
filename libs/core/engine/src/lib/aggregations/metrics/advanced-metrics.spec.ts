import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';
import { hashLong, hashString, murmur3h1 } from '../support/hash.js';
import { encodeHash, precisionFromThreshold } from './cardinality.js';

const mapping: Mapping = { tag: 'keyword', n: 'long', d: 'double', ts: 'date', title: 'keyword' };

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('hashing', () => {
  it('MurmurHash3 x64 128 h1 matches the reference vectors', () => {
    expect(murmur3h1(new Uint8Array(0)).toString(16)).toBe('0');
    expect(hashString('hello').toString(16)).toBe('cbd8a7b341bd9b02');
    expect(hashString('The quick brown fox jumps over the lazy dog').toString(16)).toBe('e34bbc7bbc071b6c');
  });
  it('precision from threshold as ES', () => {
    expect(precisionFromThreshold(3000)).toBe(14);
    expect(precisionFromThreshold(100)).toBe(10);
    expect(precisionFromThreshold(0)).toBe(4);
    expect(precisionFromThreshold(40000)).toBe(18);
  });
  it('encoded hashes are distinct for distinct values', () => {
    const set = new Set<number>();
    for (let i = 0; i < 1000; i++) set.add(encodeHash(hashLong(i), 14));
    expect(set.size).toBe(1000);
  });
});

describe('cardinality', () => {
  it('exact below the threshold, across shards with duplicates', () => {
    const a = Array.from({ length: 500 }, (_, i) => ({ tag: `t${i}`, n: i }));
    const b = Array.from({ length: 500 }, (_, i) => ({ tag: `t${i + 250}`, n: i + 250 }));
    const { rendered } = runShards({ c: { cardinality: { field: 'tag' } }, n: { cardinality: { field: 'n' } } }, [[a], [b.slice(0, 200), b.slice(200)]], mapping, { typedKeys: true });
    expect(rendered).toEqual({ 'cardinality#c': { value: 750 }, 'cardinality#n': { value: 750 } });
  });

  it('approximate above the threshold', () => {
    const docs = Array.from({ length: 20000 }, (_, i) => ({ n: i }));
    const r = run({ c: { cardinality: { field: 'n', precision_threshold: 100 } } }, docs, mapping);
    const v = (r['c'] as { value: number }).value;
    expect(Math.abs(v - 20000) / 20000).toBeLessThan(0.1);
  });

  it('empty and missing', () => {
    expect(run({ c: { cardinality: { field: 'tag' } } }, [], mapping)).toEqual({ c: { value: 0 } });
    expect(run({ c: { cardinality: { field: 'tag', missing: 'x' } } }, [{ n: 1 }, { tag: 'y' }], mapping)).toEqual({ c: { value: 2 } });
  });

  it('as a sub-aggregation and for ordering', () => {
    const docs = [{ tag: 'a', n: 1 }, { tag: 'a', n: 2 }, { tag: 'b', n: 1 }, { tag: 'b', n: 1 }, { tag: 'b', n: 1 }];
    const r = run({ t: { terms: { field: 'tag', order: { u: 'desc' } }, aggs: { u: { cardinality: { field: 'n' } } } } }, docs, mapping);
    expect((r['t'] as { buckets: unknown[] }).buckets).toEqual([
      { key: 'a', doc_count: 2, u: { value: 2 } },
      { key: 'b', doc_count: 3, u: { value: 1 } },
    ]);
  });
});

describe('percentiles', () => {
  const docs = Array.from({ length: 100 }, (_, i) => ({ n: i + 1 }));
  const closeValues = (actual: unknown, expected: Record<string, number>) => {
    const v = (actual as { values: Record<string, number> }).values;
    expect(Object.keys(v)).toEqual(Object.keys(expected));
    for (const [k, e] of Object.entries(expected)) expect([k, v[k]]).toEqual([k, expect.closeTo(e, 9)]);
  };
  it('default percents keyed, exact below the sorting threshold: index q*(n-1), linear interpolation', () => {
    const r = run({ p: { percentiles: { field: 'n' } } }, docs, mapping, { typedKeys: true });
    expect(Object.keys(r)).toEqual(['tdigest_percentiles#p']);
    closeValues(r['tdigest_percentiles#p'], { '1.0': 1.99, '5.0': 5.95, '25.0': 25.75, '50.0': 50.5, '75.0': 75.25, '95.0': 95.05, '99.0': 99.01 });
  });

  it('QA population [1,1,2..20,100]: p25 5.25, p95 19.95, p99 83.2; rank(10) = 10/22', () => {
    const vals = [1, 1, ...Array.from({ length: 19 }, (_, i) => i + 2), 100];
    const d = vals.map((n) => ({ n }));
    const r = run({ p: { percentiles: { field: 'n', percents: [25, 95, 99] } }, r: { percentile_ranks: { field: 'n', values: [0.5, 1, 10, 10.5, 100, 101] } } }, d, mapping);
    closeValues(r['p'], { '25.0': 5.25, '95.0': 19.95, '99.0': 83.2 });
    closeValues(r['r'], { '0.5': 0, '1.0': (100 * 1) / 22, '10.0': (100 * 10) / 22, '10.5': 50, '100.0': (100 * 21.5) / 22, '101.0': 100 });
  });

  it('exact across shards (sorted samples are unioned in reduce)', () => {
    const d = Array.from({ length: 1000 }, (_, i) => ({ n: (i * 7919) % 1000 }));
    const { rendered } = runShards({ p: { percentiles: { field: 'n', percents: [10, 33.3] } } }, [[d.slice(0, 400)], [d.slice(400)]], mapping);
    closeValues(rendered['p'], { '10.0': 99.9, '33.3': 332.667 });
  });

  it('[1, 51, 101, 151] and filtered [51, 101, 151]', () => {
    const four = [1, 51, 101, 151].map((n) => ({ n }));
    closeValues(run({ p: { percentiles: { field: 'n' } } }, four, mapping)['p'], {
      '1.0': 2.5, '5.0': 8.5, '25.0': 38.5, '50.0': 76, '75.0': 113.5, '95.0': 143.5, '99.0': 149.5,
    });
    closeValues(run({ p: { percentiles: { field: 'n' } } }, four.slice(1), mapping)['p'], {
      '1.0': 52, '5.0': 56, '25.0': 76, '50.0': 101, '75.0': 126, '95.0': 146, '99.0': 150,
    });
    closeValues(run({ r: { percentile_ranks: { field: 'n', values: [50, 99] } } }, four, mapping)['r'], { '50.0': 37, '99.0': 61.5 });
    closeValues(run({ r: { percentile_ranks: { field: 'n', values: [50] } } }, four.slice(1), mapping)['r'], { '50.0': 0 });
    expect(run({ r: { percentile_ranks: { field: 'zz', missing: 1, values: [50] } } }, four, mapping)).toEqual({ r: { values: { '50.0': 100 } } });
  });
  it('non-keyed, custom percents, empty -> null', () => {
    const r = run({ p: { percentiles: { field: 'n', percents: [50, 99.9], keyed: false } } }, docs.slice(0, 3), mapping);
    const vals = (r['p'] as { values: { key: number; value: number }[] }).values;
    expect(vals.map((v) => v.key)).toEqual([50, 99.9]);
    expect(vals[0]!.value).toBe(2);
    expect(vals[1]!.value).toBeCloseTo(2.998, 9);
    expect(run({ p: { percentiles: { field: 'n', percents: [50] } } }, [], mapping)).toEqual({ p: { values: { '50.0': null } } });
  });
  it('approximate for large sets across shards', () => {
    const big = Array.from({ length: 20000 }, (_, i) => ({ n: i }));
    const { rendered } = runShards({ p: { percentiles: { field: 'n', percents: [50, 90] } } }, [[big.slice(0, 10000)], [big.slice(10000)]], mapping);
    const v = (rendered['p'] as { values: Record<string, number> }).values;
    expect(Math.abs(v['50.0']! - 10000)).toBeLessThan(200);
    expect(Math.abs(v['90.0']! - 18000)).toBeLessThan(200);
  });
  it('percentile_ranks', () => {
    const r = run({ p: { percentile_ranks: { field: 'n', values: [50, 200] } } }, docs, mapping);
    expect(r).toEqual({ p: { values: { '50.0': 49, '200.0': 100 } } });
  });
  it('validates percents', () => {
    const e = err(() => run({ p: { percentiles: { field: 'n', percents: [101] } } }, docs, mapping));
    expect(e.type).toBe('x_content_parse_exception');
    expect(e.reason).toBe('[1:1] [percentiles] failed to parse field [percents]');
    expect((e.cause as EsError).reason).toBe('percent must be in [0,100], got [101.0]: [p]');
    const e2 = err(() => run({ p: { percentile_ranks: { field: 'n' } } }, docs, mapping));
    expect(e2.reason).toBe('[values] must not be null: [p]');
  });
});

describe('median_absolute_deviation', () => {
  it('median of absolute deviations from the median', () => {
    // ratings example from the ES docs shape: [1, 1, 2, 2, 4, 6, 9] -> median 2, deviations [1,1,0,0,2,4,7] -> 1
    const d = [1, 1, 2, 2, 4, 6, 9].map((n) => ({ n }));
    expect(run({ m: { median_absolute_deviation: { field: 'n' } } }, d, mapping, { typedKeys: true })).toEqual({ 'median_absolute_deviation#m': { value: 1 } });
    expect(run({ m: { median_absolute_deviation: { field: 'n' } } }, [], mapping)).toEqual({ m: { value: null } });
  });
});

describe('boxplot', () => {
  it('quartiles and whiskers', () => {
    const d = [1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => ({ n }));
    const r = run({ b: { boxplot: { field: 'n' } } }, d, mapping, { typedKeys: true });
    const b = r['boxplot#b'] as Record<string, number>;
    expect(b['min']).toBe(1);
    expect(b['max']).toBe(100);
    expect(b['q2']).toBe(5);
    expect(b['lower']).toBe(1);
    expect(b['upper']).toBe(8);
    expect(run({ b: { boxplot: { field: 'n' } } }, [], mapping)).toEqual({ b: { min: null, max: null, q1: null, q2: null, q3: null, lower: null, upper: null } });
  });
});

describe('top_hits', () => {
  const docs = [
    { _id: 'x', tag: 'a', n: 3, title: 'three', nested: { a: 1, b: 2 } },
    { _id: 'y', tag: 'a', n: 1, title: 'one', nested: { a: 3, b: 4 } },
    { _id: 'z', tag: 'b', n: 2, title: 'two' },
  ];
  it('default: by score, size 3, hits shaped like search hits', () => {
    const r = run({ t: { top_hits: {} } }, docs, mapping, { typedKeys: true, scores: (d) => (d['n'] as number) / 2 });
    expect(r).toEqual({
      'top_hits#t': {
        hits: {
          total: { value: 3, relation: 'eq' },
          max_score: 1.5,
          hits: [
            { _index: 'test', _id: 'x', _score: 1.5, _source: docs[0] },
            { _index: 'test', _id: 'z', _score: 1, _source: docs[2] },
            { _index: 'test', _id: 'y', _score: 0.5, _source: docs[1] },
          ],
        },
      },
    });
  });
  it('sort by field, size, _source filtering, per bucket and across shards', () => {
    const { rendered } = runShards(
      {
        t: {
          terms: { field: 'tag' },
          aggs: { h: { top_hits: { size: 1, sort: [{ n: { order: 'desc' } }], _source: { includes: ['title', 'nested.a'] } } } },
        },
      },
      [[docs.slice(0, 1)], [docs.slice(1)]],
      mapping,
    );
    const buckets = (rendered['t'] as { buckets: Record<string, unknown>[] }).buckets;
    expect(buckets[0]).toEqual({
      key: 'a',
      doc_count: 2,
      h: {
        hits: {
          total: { value: 2, relation: 'eq' },
          max_score: null,
          hits: [{ _index: 'test', _id: 'x', _score: null, _source: { title: 'three', nested: { a: 1 } }, sort: [3] }],
        },
      },
    });
    expect((buckets[1]!['h'] as { hits: { hits: { sort: unknown[] }[] } }).hits.hits[0]!.sort).toEqual([2]);
  });
  it('_source false and keyword sort asc with from', () => {
    const r = run({ t: { top_hits: { _source: false, sort: ['title'], from: 1, size: 1 } } }, docs, mapping);
    expect(r).toEqual({
      t: { hits: { total: { value: 3, relation: 'eq' }, max_score: null, hits: [{ _index: 'test', _id: 'x', _score: null, sort: ['three'] }] } },
    });
  });
  it('docvalue_fields / fields come from doc values', () => {
    const r = run({ t: { top_hits: { size: 1, sort: [{ n: 'asc' }], _source: false, docvalue_fields: ['tag', { field: 'n' }], fields: ['nope'] } } }, docs, mapping);
    expect((r['t'] as { hits: { hits: unknown[] } }).hits.hits).toEqual([
      { _index: 'test', _id: 'y', _score: null, fields: { tag: ['a'], n: [1] }, sort: [1] },
    ]);
  });

  it('rejects a too large window', () => {
    const e = err(() => run({ t: { top_hits: { size: 101 } } }, docs, mapping));
    expect(e.type).toBe('illegal_argument_exception');
  });
});

describe('composite', () => {
  const docs = [
    { tag: 'a', n: 1, ts: '2024-01-01T05:00:00Z' },
    { tag: 'a', n: 2, ts: '2024-01-01T07:00:00Z' },
    { tag: 'b', n: 1, ts: '2024-01-02T05:00:00Z' },
    { tag: ['a', 'c'], ts: '2024-01-02T06:00:00Z' },
    { n: 5 },
  ];
  it('terms x date_histogram sources with after_key and pagination', () => {
    const body = (after?: unknown) => ({
      c: {
        composite: {
          size: 2,
          sources: [{ t: { terms: { field: 'tag' } } }, { d: { date_histogram: { field: 'ts', calendar_interval: 'day' } } }],
          ...(after ? { after } : {}),
        },
      },
    });
    const p1 = run(body(), docs, mapping, { typedKeys: true });
    expect(p1).toEqual({
      'composite#c': {
        after_key: { t: 'a', d: Date.UTC(2024, 0, 2) },
        buckets: [
          { key: { t: 'a', d: Date.UTC(2024, 0, 1) }, doc_count: 2 },
          { key: { t: 'a', d: Date.UTC(2024, 0, 2) }, doc_count: 1 },
        ],
      },
    });
    const p2 = run(body({ t: 'a', d: Date.UTC(2024, 0, 2) }), docs, mapping);
    expect(p2).toEqual({
      c: {
        after_key: { t: 'c', d: Date.UTC(2024, 0, 2) },
        buckets: [
          { key: { t: 'b', d: Date.UTC(2024, 0, 2) }, doc_count: 1 },
          { key: { t: 'c', d: Date.UTC(2024, 0, 2) }, doc_count: 1 },
        ],
      },
    });
    const p3 = run(body({ t: 'c', d: Date.UTC(2024, 0, 2) }), docs, mapping);
    expect(p3).toEqual({ c: { buckets: [] } });
  });
  it('missing_bucket, desc order, histogram source, formatted dates, sub-aggs, shards', () => {
    const { rendered } = runShards(
      {
        c: {
          composite: {
            sources: [
              { t: { terms: { field: 'tag', missing_bucket: true, order: 'desc' } } },
              { h: { histogram: { field: 'n', interval: 2, missing_bucket: true } } },
            ],
          },
          aggs: { m: { max: { field: 'n' } } },
        },
        f: { composite: { sources: [{ d: { date_histogram: { field: 'ts', fixed_interval: '1d', format: 'yyyy-MM-dd' } } }] } },
      },
      [[docs.slice(0, 2)], [docs.slice(2)]],
      mapping,
    );
    expect(rendered['c']).toEqual({
      after_key: { t: null, h: 4 },
      buckets: [
        { key: { t: 'c', h: null }, doc_count: 1, m: { value: null } },
        { key: { t: 'b', h: 0 }, doc_count: 1, m: { value: 1 } },
        { key: { t: 'a', h: null }, doc_count: 1, m: { value: null } },
        { key: { t: 'a', h: 0 }, doc_count: 1, m: { value: 1 } },
        { key: { t: 'a', h: 2 }, doc_count: 1, m: { value: 2 } },
        { key: { t: null, h: 4 }, doc_count: 1, m: { value: 5 } },
      ],
    });
    expect(rendered['f']).toEqual({
      after_key: { d: '2024-01-02' },
      buckets: [
        { key: { d: '2024-01-01' }, doc_count: 2 },
        { key: { d: '2024-01-02' }, doc_count: 2 },
      ],
    });
  });
  it('ES yaml: offset with iso8601 format, after parsed with the format, legacy interval', () => {
    const d = [{ ts: '2017-10-20T03:08:45' }, { ts: '2017-10-21T07:00:00' }];
    const r = run({ c: { composite: { sources: [{ date: { date_histogram: { field: 'ts', calendar_interval: '1d', offset: '4h', format: 'iso8601' } } }] } } }, d, mapping);
    expect((r['c'] as { buckets: { key: { date: string } }[] }).buckets.map((b) => b.key.date)).toEqual(['2017-10-19T04:00:00.000Z', '2017-10-21T04:00:00.000Z']);
    const r2 = run(
      { c: { composite: { after: { date: '2017-10-20' }, sources: [{ date: { date_histogram: { field: 'ts', interval: '1d', format: 'yyyy-MM-dd' } } }] } } },
      d,
      mapping,
    );
    expect(r2).toEqual({ c: { after_key: { date: '2017-10-21' }, buckets: [{ key: { date: '2017-10-21' }, doc_count: 1 }] } });
  });

  it('errors', () => {
    expect(err(() => run({ c: { composite: { size: 1 } } }, docs, mapping)).reason).toBe('Required [sources]');
    expect(err(() => run({ c: { composite: { size: 1000000000, sources: [{ k: { terms: { field: 'tag' } } }] } } }, docs, mapping)).type).toBe('too_many_buckets_exception');
    expect(err(() => run({ c: { composite: { sources: [] } } }, docs, mapping)).reason).toBe('Composite [sources] cannot be null or empty');
    const e = err(() => run({ t: { terms: { field: 'tag' }, aggs: { c: { composite: { sources: [{ x: { terms: { field: 'tag' } } }] } } } } }, docs, mapping));
    expect(e.type).toBe('illegal_argument_exception');
  });
});
