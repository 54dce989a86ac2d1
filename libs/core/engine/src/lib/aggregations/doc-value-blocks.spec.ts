/**
 * The numeric aggregations read doc values block by block (segments on disk): over leaves whose whole-column
 * accessors throw, every aggregation answers exactly as over the whole columns (in memory).
 */
import { runShards, type Doc, type Mapping } from './test-support.js';

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

const mapping: Mapping = { n: 'long', x: 'double', w: 'long', ts: 'date', k: 'keyword', k1: 'keyword' };

function docs(count: number, seed: number): Doc[] {
  const r = rng(seed);
  const out: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const d: Doc = { ts: Date.UTC(2026, 0, 1) + Math.floor(r() * 20 * 86_400_000), w: 1 + Math.floor(r() * 5), k1: `v${Math.floor(r() * 7)}` };
    const nn = Math.floor(r() * 4); // 0..3 values
    if (nn > 0) d['n'] = Array.from({ length: nn }, () => Math.floor(r() * 200) - 50);
    if (r() < 0.8) d['x'] = r() < 0.3 ? [r() * 100, r() * 100] : r() * 100;
    if (r() < 0.9) d['k'] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => `t${Math.floor(r() * 40)}`);
    out.push(d);
  }
  return out;
}

const aggs = {
  h_n: { histogram: { field: 'n', interval: 10 }, aggs: { sx: { stats: { field: 'x' } }, c: { cardinality: { field: 'k' } } } },
  h_x: { histogram: { field: 'x', interval: 7.5 } },
  dh: { date_histogram: { field: 'ts', calendar_interval: 'day' } },
  dh_subs: { date_histogram: { field: 'ts', fixed_interval: '3d' }, aggs: { p: { percentiles: { field: 'n', percents: [5, 50, 95] } }, r: { rate: { field: 'n', unit: 'day' } } } },
  adh: { auto_date_histogram: { field: 'ts', buckets: 6 }, aggs: { m: { max: { field: 'x' } } } },
  rg: { range: { field: 'n', ranges: [{ to: 0 }, { from: 0, to: 75 }, { from: 75 }] }, aggs: { a: { avg: { field: 'n' } } } },
  st: { extended_stats: { field: 'n' } },
  mn: { min: { field: 'n' } },
  mx: { max: { field: 'n' } },
  vc_n: { value_count: { field: 'n' } },
  vc_k: { value_count: { field: 'k' } },
  pc: { percentiles: { field: 'x' } },
  cn: { cardinality: { field: 'n' } },
  ck: { cardinality: { field: 'k' } },
  wa: { weighted_avg: { value: { field: 'n' }, weight: { field: 'w' } } },
  tm: { top_metrics: { sort: { ts: 'desc' }, metrics: [{ field: 'w' }, { field: 'k1' }], size: 3 } },
  miss: { histogram: { field: 'n', interval: 25, missing: 1000 } },
};

describe('numeric aggregations over doc values read block by block', () => {
  const segments = [docs(700, 1), docs(333, 2), docs(64, 3)];
  const whole = runShards(aggs, [segments], mapping).rendered;

  it('answer non-trivially over the whole columns', () => {
    expect((whole['h_n'] as { buckets: unknown[] }).buckets.length).toBeGreaterThan(10);
    expect((whole['dh'] as { buckets: unknown[] }).buckets.length).toBe(20);
    expect((whole['vc_k'] as { value: number }).value).toBeGreaterThan(1000);
  });

  for (const blockSize of [1, 4, 64, 4096]) {
    it(`give the same answers with blocks of ${blockSize} values and no whole column`, () => {
      expect(runShards(aggs, [segments], mapping, { blockSize }).rendered).toEqual(whole);
    });
  }

  it('give the same answers collected column-wise (collectAll), with and without deleted docs', () => {
    const cols = { dh: aggs.dh, h_x: aggs.h_x, h_n: { histogram: { field: 'n', interval: 10 } } };
    for (const deleted of [undefined, [[[0, 5, 99, 100, 699], [1, 2, 3], []]]]) {
      const a = runShards(cols, [segments], mapping, { deleted }).rendered;
      expect((a['dh'] as { buckets: unknown[] }).buckets.length).toBe(20);
      for (const blockSize of [undefined, 1, 16, 4096]) {
        expect(runShards(cols, [segments], mapping, { deleted, blockSize, collectAll: true }).rendered).toEqual(a);
      }
    }
  });
});
