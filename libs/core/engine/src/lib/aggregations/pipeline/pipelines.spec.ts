import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { ts: 'date', price: 'double', tag: 'keyword' };
const docs = [
  { ts: '2024-01-05', price: 10, tag: 'a' },
  { ts: '2024-01-20', price: 20, tag: 'b' },
  { ts: '2024-02-03', price: 5, tag: 'a' },
  { ts: '2024-04-01', price: 40, tag: 'a' },
];

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

const monthly = (aggs: Record<string, unknown>) => ({
  m: { date_histogram: { field: 'ts', calendar_interval: 'month', format: 'yyyy-MM' }, aggs: { s: { sum: { field: 'price' } }, ...aggs } },
});

describe('parent pipelines', () => {
  it('derivative skips the first bucket; cumulative_sum runs through empty buckets', () => {
    const r = run(monthly({ d: { derivative: { buckets_path: 's' } }, c: { cumulative_sum: { buckets_path: 's' } } }), docs, mapping, { typedKeys: true });
    expect(r).toEqual({
      'date_histogram#m': {
        buckets: [
          { key_as_string: '2024-01', key: Date.UTC(2024, 0, 1), doc_count: 2, 'sum#s': { value: 30 }, 'simple_value#c': { value: 30 } },
          { key_as_string: '2024-02', key: Date.UTC(2024, 1, 1), doc_count: 1, 'sum#s': { value: 5 }, 'derivative#d': { value: -25 }, 'simple_value#c': { value: 35 } },
          { key_as_string: '2024-03', key: Date.UTC(2024, 2, 1), doc_count: 0, 'sum#s': { value: 0 }, 'simple_value#c': { value: 35 } },
          { key_as_string: '2024-04', key: Date.UTC(2024, 3, 1), doc_count: 1, 'sum#s': { value: 40 }, 'derivative#d': { value: 35 }, 'simple_value#c': { value: 75 } },
        ],
      },
    });
  });

  it('insert_zeros fills the empty bucket', () => {
    const r = run(monthly({ d: { derivative: { buckets_path: 's', gap_policy: 'insert_zeros' } } }), docs, mapping);
    const b = (r['m'] as { buckets: Record<string, unknown>[] }).buckets;
    expect(b.map((x) => (x['d'] as { value: number } | undefined)?.value)).toEqual([undefined, -25, -5, 40]);
  });

  it('derivative with unit gives normalized_value; _count paths', () => {
    const r = run(
      { m: { date_histogram: { field: 'ts', calendar_interval: 'month', min_doc_count: 1 }, aggs: { d: { derivative: { buckets_path: '_count', unit: '1d' } } } } },
      docs.slice(0, 3),
      mapping,
    );
    const b = (r['m'] as { buckets: Record<string, unknown>[] }).buckets;
    expect(b[1]!['d']).toEqual({ value: -1, normalized_value: -1 / 31 });
  });

  it('bucket_script, bucket_selector and bucket_sort on terms', () => {
    const r = run(
      {
        t: {
          terms: { field: 'tag' },
          aggs: {
            s: { sum: { field: 'price' } },
            avg: { bucket_script: { buckets_path: { total: 's', n: '_count' }, script: 'params.total / params.n' } },
            keep: { bucket_selector: { buckets_path: { total: 's' }, script: { source: 'params.total > params.min', params: { min: 25 } } } },
            order: { bucket_sort: { sort: [{ s: { order: 'asc' } }] } },
          },
        },
      },
      docs,
      mapping,
    );
    expect(r).toEqual({
      t: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [{ key: 'a', doc_count: 3, s: { value: 55 }, avg: { value: 55 / 3 } }],
      },
    });
    const sorted = run(
      { t: { terms: { field: 'tag' }, aggs: { s: { sum: { field: 'price' } }, o: { bucket_sort: { sort: [{ s: 'asc' }], size: 1 } } } } },
      docs,
      mapping,
    );
    expect((sorted['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['b']);
  });

  it('validates parents', () => {
    const e = err(() => run({ d: { derivative: { buckets_path: '_count' } } }, docs, mapping));
    expect(e.type).toBe('action_request_validation_exception');
    expect(e.reason).toBe(
      'Validation Failed: 1: derivative aggregation [d] must have a histogram, date_histogram or auto_date_histogram as parent;',
    );
    const e2 = err(() => run({ t: { terms: { field: 'tag' }, aggs: { d: { derivative: { buckets_path: '_count' } } } } }, docs, mapping));
    expect(e2.type).toBe('action_request_validation_exception');
  });
});

describe('moving_fn and serial_diff', () => {
  const daily = Array.from({ length: 5 }, (_, i) => Array.from({ length: i + 1 }, () => ({ ts: `2024-01-0${i + 1}`, price: 1 }))).flat();
  const days = (aggs: Record<string, unknown>) => ({ d: { date_histogram: { field: 'ts', calendar_interval: 'day' }, aggs: { c: { sum: { field: 'price' } }, ...aggs } } });
  const vals = (r: Record<string, unknown>, name: string) =>
    (r['d'] as { buckets: Record<string, { value: number | null } | undefined>[] }).buckets.map((b) => b[name]?.value);

  it('moving_fn over the previous window (empty window -> null)', () => {
    const r = run(days({ m: { moving_fn: { buckets_path: 'c', window: 2, script: 'MovingFunctions.unweightedAvg(values)' } } }), daily, mapping);
    expect(vals(r, 'm')).toEqual([null, 1, 1.5, 2.5, 3.5]);
    const sh = run(days({ m: { moving_fn: { buckets_path: 'c', window: 2, shift: 1, script: 'MovingFunctions.max(values)' } } }), daily, mapping);
    expect(vals(sh, 'm')).toEqual([1, 2, 3, 4, 5]);
    const lw = run(days({ m: { moving_fn: { buckets_path: 'c', window: 3, script: 'MovingFunctions.linearWeightedAvg(values)' } } }), daily, mapping);
    expect(vals(lw, 'm')[3]).toBeCloseTo((1 * 1 + 2 * 2 + 3 * 3) / 7, 12);
  });

  it('serial_diff with lag', () => {
    const r = run(days({ s: { serial_diff: { buckets_path: 'c', lag: 2 } } }), daily, mapping);
    expect(vals(r, 's')).toEqual([undefined, undefined, 2, 2, 2]);
  });

  it('percentiles_bucket', () => {
    const r = run({ ...days({}), p: { percentiles_bucket: { buckets_path: 'd>c', percents: [0, 50, 100] } } }, daily, mapping, { typedKeys: true });
    expect(r['percentiles_bucket#p']).toEqual({ values: { '0.0': 1, '50.0': 3, '100.0': 5 } });
  });
});

describe('sibling pipelines', () => {
  it('avg/sum/min/max/stats_bucket over a date_histogram', () => {
    const r = run(
      {
        ...monthly({}),
        avg: { avg_bucket: { buckets_path: 'm>s' } },
        sum: { sum_bucket: { buckets_path: 'm.s' } },
        min: { min_bucket: { buckets_path: 'm>s' } },
        max: { max_bucket: { buckets_path: 'm>s' } },
        st: { stats_bucket: { buckets_path: 'm>_count' } },
      },
      docs,
      mapping,
      { typedKeys: true },
    );
    expect(r['simple_value#avg']).toEqual({ value: 25 });
    expect(r['simple_value#sum']).toEqual({ value: 75 });
    expect(r['bucket_metric_value#min']).toEqual({ value: 5, keys: ['2024-02'] });
    expect(r['bucket_metric_value#max']).toEqual({ value: 40, keys: ['2024-04'] });
    expect(r['stats_bucket#st']).toEqual({ count: 4, min: 0, max: 2, avg: 1, sum: 4 });
  });

  it('inside buckets and with no data', () => {
    const r = run({ t: { terms: { field: 'tag' }, aggs: { ...monthly({}), mx: { max_bucket: { buckets_path: 'm>s' } } } } }, docs, mapping);
    const b = (r['t'] as { buckets: Record<string, unknown>[] }).buckets;
    expect(b[0]!['mx']).toEqual({ value: 40, keys: ['2024-04'] });
    expect(run({ ...monthly({}), a: { avg_bucket: { buckets_path: 'm>s' } } }, [], mapping)['a']).toEqual({ value: null });
  });
});

describe('ES yaml 300_pipeline', () => {
  const m: Mapping = { int_field: 'integer', t: 'keyword', '@timestamp': 'date' };
  const d = [1, 2, 3, 4].map((int_field) => ({ int_field }));
  it('max_bucket over single-percent percentiles; keys as strings', () => {
    const r = run(
      {
        the_terms: { terms: { field: 'int_field' }, aggs: { the_percentiles: { percentiles: { field: 'int_field', keyed: false, percents: [99] } } } },
        the_max: { max_bucket: { buckets_path: 'the_terms>the_percentiles' } },
      },
      d,
      m,
    );
    expect(r['the_max']).toEqual({ value: 4, keys: ['4'] });
  });
  it('paths through or onto multi-bucket aggs are errors', () => {
    const e1 = err(() =>
      run(
        {
          the_terms: { terms: { field: 'int_field' }, aggs: { the_terms_2: { terms: { field: 'int_field' }, aggs: { the_max: { max: { field: 'int_field' } } } } } },
          the_bad_max: { max_bucket: { buckets_path: 'the_terms>the_terms_2>the_max' } },
        },
        d,
        m,
      ),
    );
    expect(e1.reason).toMatch(/\[Object\[\]\] at aggregation \[the_terms_2\]/);
    const e2 = err(() =>
      run(
        { the_terms: { terms: { field: 'int_field' }, aggs: { the_terms_2: { terms: { field: 'int_field' } } } }, the_bad_max: { max_bucket: { buckets_path: 'the_terms>the_terms_2' } } },
        d,
        m,
      ),
    );
    expect(e2.reason).toMatch(/\[LongTerms\] at aggregation \[the_terms_2\]/);
    const e3 = err(() => run({ the_terms: { terms: { field: 'int_field' } }, s: { bucket_sort: { sort: ['the_terms>the_max'] } } }, d, m));
    expect(e3.reason).toContain('bucket_sort aggregation [s] must be declared inside of another aggregation');
  });
  it('deep cumulative sum over avg.value', () => {
    const docs = [
      { t: 'a', int_field: 1, '@timestamp': '2020-07-16T00:00:00.000Z' },
      { t: 'a', int_field: 50, '@timestamp': '2020-07-17T00:00:00.000Z' },
      { t: 'a', int_field: 99, '@timestamp': '2020-07-18T00:00:00.000Z' },
      { t: 'b', int_field: 1, '@timestamp': '2020-07-16T00:00:00.000Z' },
      { t: 'b', int_field: 99, '@timestamp': '2020-07-17T00:00:00.000Z' },
    ];
    const { rendered } = runShards(
      {
        t: {
          terms: { field: 't' },
          aggs: {
            by_date: {
              date_histogram: { field: '@timestamp', fixed_interval: '1d' },
              aggs: { avg: { avg: { field: 'int_field' } }, sum: { cumulative_sum: { buckets_path: 'avg.value' } } },
            },
          },
        },
      },
      [[docs.slice(0, 2)], [docs.slice(2, 4)], [docs.slice(4)]],
      m,
    );
    const t = rendered['t'] as { buckets: { key: string; by_date: { buckets: { avg: { value: number }; sum: { value: number } }[] } }[] };
    expect(t.buckets.map((b) => b.key)).toEqual(['a', 'b']);
    expect(t.buckets[0]!.by_date.buckets.map((b) => [b.avg.value, b.sum.value])).toEqual([[1, 1], [50, 51], [99, 150]]);
    expect(t.buckets[1]!.by_date.buckets.map((b) => [b.avg.value, b.sum.value])).toEqual([[1, 1], [99, 100]]);
  });
});

