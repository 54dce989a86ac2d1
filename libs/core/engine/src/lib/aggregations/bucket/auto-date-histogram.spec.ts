import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { ts: 'date', tag: 'keyword' };

describe('auto_date_histogram', () => {
  it('picks the finest interval giving at most `buckets` buckets, fills gaps', () => {
    const docs = [{ ts: '2024-01-01T00:00:00Z' }, { ts: '2024-01-01T05:00:00Z' }, { ts: '2024-01-02T10:00:00Z' }];
    const r = run({ a: { auto_date_histogram: { field: 'ts', buckets: 2 } } }, docs, mapping, { typedKeys: true });
    // 34h span: 12h gives 3 buckets (> 2), so 1d: 2 buckets
    expect(r).toEqual({
      'auto_date_histogram#a': {
        buckets: [
          { key_as_string: '2024-01-01T00:00:00.000Z', key: Date.UTC(2024, 0, 1), doc_count: 2 },
          { key_as_string: '2024-01-02T00:00:00.000Z', key: Date.UTC(2024, 0, 2), doc_count: 1 },
        ],
        interval: '1d',
      },
    });
    const fine = run({ a: { auto_date_histogram: { field: 'ts', buckets: 10 } } }, docs, mapping);
    expect((fine['a'] as { interval: string; buckets: unknown[] }).interval).toBe('12h');
    expect((fine['a'] as { buckets: { doc_count: number }[] }).buckets.map((b) => b.doc_count)).toEqual([2, 0, 1]);
  });

  it('re-rounds shard buckets to the coarser final interval; sub-aggs merge', () => {
    const a = [{ ts: '2024-01-01T00:00:10Z', tag: 'x' }, { ts: '2024-01-01T00:00:20Z', tag: 'y' }];
    const b = [{ ts: '2024-03-01T00:00:00Z', tag: 'x' }];
    const { rendered } = runShards({ h: { auto_date_histogram: { field: 'ts', buckets: 5 }, aggs: { t: { terms: { field: 'tag' } } } } }, [[a], [b]], mapping);
    const h = rendered['h'] as { interval: string; buckets: { key_as_string: string; doc_count: number; t: { buckets: unknown[] } }[] };
    expect(h.interval).toBe('1M');
    expect(h.buckets.map((x) => `${x.key_as_string}:${x.doc_count}`)).toEqual([
      '2024-01-01T00:00:00.000Z:2',
      '2024-02-01T00:00:00.000Z:0',
      '2024-03-01T00:00:00.000Z:1',
    ]);
    expect(h.buckets[0]!.t.buckets).toEqual([
      { key: 'x', doc_count: 1 },
      { key: 'y', doc_count: 1 },
    ]);
  });

  it('empty', () => {
    expect(run({ a: { auto_date_histogram: { field: 'ts' } } }, [], mapping)).toEqual({ a: { buckets: [], interval: '1s' } });
  });
});
