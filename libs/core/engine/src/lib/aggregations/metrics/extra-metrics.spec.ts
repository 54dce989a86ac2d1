import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { v: 'double', w: 'long', ts: 'date', tag: 'keyword' };
const docs = [
  { v: 10, w: 1, ts: '2024-01-01', tag: 'a' },
  { v: 20, w: 3, ts: '2024-01-03', tag: 'b' },
  { v: [1, 3], w: 2, ts: '2024-01-02', tag: 'c' },
  { v: 5, tag: 'd' },
];

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('weighted_avg', () => {
  it('weights values, multi-valued values share the weight, missing weight skips the doc', () => {
    // (10*1 + 20*3 + 1*2 + 3*2) / (1 + 3 + 2 + 2)
    expect(run({ a: { weighted_avg: { value: { field: 'v' }, weight: { field: 'w' } } } }, docs, mapping, { typedKeys: true })).toEqual({
      'weighted_avg#a': { value: 78 / 8 },
    });
    expect(run({ a: { weighted_avg: { value: { field: 'v' }, weight: { field: 'w', missing: 2 } } } }, docs, mapping)).toEqual({
      a: { value: 88 / 10 },
    });
    expect(run({ a: { weighted_avg: { value: { field: 'v' }, weight: { field: 'w' } } } }, [], mapping)).toEqual({ a: { value: null } });
  });
  it('rejects multiple weights', () => {
    const e = err(() => run({ a: { weighted_avg: { value: { field: 'v' }, weight: { field: 'v' } } } }, docs, mapping));
    expect(e.reason).toBe(
      'Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value.',
    );
  });
});

describe('top_metrics', () => {
  it('latest value by date across shards', () => {
    const { rendered } = runShards(
      { t: { top_metrics: { metrics: [{ field: 'v' }, { field: 'tag' }], sort: { ts: 'desc' } } } },
      [[docs.slice(0, 1)], [docs.slice(1)]],
      mapping,
      { typedKeys: true },
    );
    expect(rendered).toEqual({
      'top_metrics#t': { top: [{ sort: ['2024-01-03T00:00:00.000Z'], metrics: { v: 20, tag: 'b' } }] },
    });
  });
  it('size and ascending numeric sort; ordering terms by it', () => {
    expect(run({ t: { top_metrics: { metrics: { field: 'v' }, sort: { w: 'asc' }, size: 2 } } }, docs, mapping)).toEqual({
      t: { top: [{ sort: [1], metrics: { v: 10 } }, { sort: [2], metrics: { v: 1 } }] },
    });
    const r = run({ g: { terms: { field: 'tag', order: { 't.v': 'desc' } }, aggs: { t: { top_metrics: { metrics: { field: 'v' }, sort: { w: 'asc' } } } } } }, docs, mapping);
    expect((r['g'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['b', 'a', 'c', 'd']);
  });
});

describe('rate', () => {
  const sales = [
    { ts: '2024-01-05', v: 10 },
    { ts: '2024-01-20', v: 21 },
    { ts: '2024-02-03', v: 29 },
  ];
  it('per-unit rate inside a monthly date_histogram', () => {
    const r = run(
      {
        m: {
          date_histogram: { field: 'ts', calendar_interval: 'month' },
          aggs: { perDay: { rate: { field: 'v', unit: 'day' } }, perMonth: { rate: { field: 'v' } }, docs: { rate: { unit: 'year' } } },
        },
      },
      sales,
      mapping,
      { typedKeys: true },
    );
    const b = (r['date_histogram#m'] as { buckets: Record<string, { value: number }>[] }).buckets;
    expect(b[0]!['rate#perDay']!.value).toBeCloseTo(31 / 31, 12);
    expect(b[1]!['rate#perDay']!.value).toBeCloseTo(29 / 29, 12);
    expect(b[0]!['rate#perMonth']!.value).toBe(31);
    expect(b[0]!['rate#docs']!.value).toBe(24);
  });
  it('must be inside a date_histogram', () => {
    const e = err(() => run({ r: { rate: { field: 'v' } } }, sales, mapping));
    expect(e.type).toBe('illegal_argument_exception');
  });
});
