/**
 * Aggregations read doc values block by block (segments on disk): over leaves whose whole-column accessors
 * throw, every aggregation answers exactly as over the whole columns (in memory) — the numeric ones, and the
 * terms-like ones (terms, multi_terms, rare_terms, significant_terms, composite, missing, ip_range, top_hits).
 */
import { seededRandom } from '@strata/core-common';
import { runShards, type Doc, type Mapping } from './test-support.js';

const mapping: Mapping = { n: 'long', x: 'double', w: 'long', ts: 'date', k: 'keyword', k1: 'keyword', ip: 'ip' };

function docs(count: number, seed: number): Doc[] {
  const r = seededRandom(seed);
  const out: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const d: Doc = { ts: Date.UTC(2026, 0, 1) + Math.floor(r() * 20 * 86_400_000), w: 1 + Math.floor(r() * 5), k1: `v${Math.floor(r() * 7)}` };
    const nn = Math.floor(r() * 4); // 0..3 values
    if (nn > 0) d['n'] = Array.from({ length: nn }, () => Math.floor(r() * 200) - 50);
    if (r() < 0.8) d['x'] = r() < 0.3 ? [r() * 100, r() * 100] : r() * 100;
    if (r() < 0.9) d['k'] = Array.from({ length: 1 + Math.floor(r() * 3) }, () => `t${Math.floor(r() * 40)}`);
    if (r() < 0.7) d['ip'] = r() < 0.2 ? [`10.0.${Math.floor(r() * 4)}.1`, `192.168.0.${Math.floor(r() * 9)}`] : `10.0.${Math.floor(r() * 4)}.${Math.floor(r() * 200)}`;
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

/** the terms-like aggregations and the others that read keyword ordinals or per-doc values */
const termsAggs = {
  t_k: { terms: { field: 'k', size: 50 } },
  t_k_subs: { terms: { field: 'k', size: 5, order: { a: 'desc' } }, aggs: { a: { avg: { field: 'n' } }, t: { terms: { field: 'k1' } } } },
  t_k_inc: { terms: { field: 'k', include: 't1.*', min_doc_count: 0, missing: 'none' } },
  t_k1_part: { terms: { field: 'k1', include: { partition: 1, num_partitions: 2 } } },
  t_n: { terms: { field: 'n', size: 30, missing: -999 }, aggs: { x: { max: { field: 'x' } } } },
  t_x: { terms: { field: 'x', size: 5 } },
  t_ip: { terms: { field: 'ip', size: 20 } },
  dh_t: { date_histogram: { field: 'ts', calendar_interval: 'week' }, aggs: { t: { terms: { field: 'k', size: 3 } } } },
  mt: { multi_terms: { terms: [{ field: 'k1' }, { field: 'n', missing: 0 }, { field: 'k' }], size: 40 } },
  rare: { rare_terms: { field: 'k', max_doc_count: 40 } },
  rare_n: { rare_terms: { field: 'n' } },
  sig: { terms: { field: 'k1' }, aggs: { s: { significant_terms: { field: 'k', min_doc_count: 1 } } } },
  comp: {
    composite: {
      size: 500,
      sources: [
        { k1: { terms: { field: 'k1' } } },
        { h: { histogram: { field: 'n', interval: 20, missing_bucket: true } } },
        { d: { date_histogram: { field: 'ts', calendar_interval: 'day' } } },
      ],
    },
  },
  comp_k: { composite: { size: 30, sources: [{ k: { terms: { field: 'k' } } }, { x: { terms: { field: 'x', missing_bucket: true } } }] } },
  m_k: { missing: { field: 'k' } },
  m_x: { missing: { field: 'x' }, aggs: { c: { value_count: { field: 'n' } } } },
  ipr: { ip_range: { field: 'ip', ranges: [{ to: '10.0.2.0' }, { from: '10.0.2.0', to: '11.0.0.0' }, { mask: '192.168.0.0/16' }] } },
  t_idx: { terms: { field: '_index' }, aggs: { m: { missing: { field: '_index' } } } },
  mt_idx: { multi_terms: { terms: [{ field: '_index' }, { field: 'k1' }] } },
  th: { terms: { field: 'k1', size: 3 }, aggs: { top: { top_hits: { size: 2, sort: [{ k: 'desc' }, { n: 'asc' }], docvalue_fields: ['k', 'n', 'ts', 'ip'], _source: false } } } },
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

  const wholeTerms = runShards(termsAggs, [segments], mapping).rendered;

  it('answer the terms-like aggregations non-trivially over the whole columns', () => {
    expect((wholeTerms['t_k'] as { buckets: unknown[] }).buckets.length).toBe(40);
    expect((wholeTerms['mt'] as { buckets: unknown[] }).buckets.length).toBe(40);
    expect((wholeTerms['comp'] as { buckets: unknown[] }).buckets.length).toBeGreaterThan(300);
    expect((wholeTerms['t_ip'] as { buckets: unknown[] }).buckets.length).toBe(20);
    expect((wholeTerms['m_x'] as { doc_count: number }).doc_count).toBeGreaterThan(100);
    expect((wholeTerms['t_idx'] as { buckets: unknown[] }).buckets).toEqual([{ key: 'test', doc_count: 1097, m: { doc_count: 0 } }]);
    expect((wholeTerms['mt_idx'] as { buckets: { key: unknown[] }[] }).buckets[0]!.key[0]).toBe('test');
    const sig = (wholeTerms['sig'] as { buckets: { s: { buckets: { bg_count: number }[] } }[] }).buckets;
    expect(sig[0]!.s.buckets.length).toBeGreaterThan(0);
    expect(sig[0]!.s.buckets[0]!.bg_count).toBeGreaterThan(0);
    const th = (wholeTerms['th'] as { buckets: { top: { hits: { hits: { fields: Record<string, unknown[]> }[] } } }[] }).buckets;
    expect(Object.keys(th[0]!.top.hits.hits[0]!.fields).length).toBeGreaterThan(1);
  });

  for (const blockSize of [1, 4, 64, 4096]) {
    it(`give the same terms-like answers with blocks of ${blockSize} values and no whole column, deleted docs or not`, () => {
      expect(runShards(termsAggs, [segments], mapping, { blockSize }).rendered).toEqual(wholeTerms);
      const deleted = [[[0, 5, 99, 100, 699], [1, 2, 3], []]];
      expect(runShards(termsAggs, [segments], mapping, { blockSize, deleted }).rendered).toEqual(runShards(termsAggs, [segments], mapping, { deleted }).rendered);
    });
  }

  it('give the same top-level terms counts collected column-wise (per-ordinal counts less the deleted docs)', () => {
    const cols = { t_k: termsAggs.t_k, t_k1: { terms: { field: 'k1' } }, t_inc: { terms: { field: 'k', include: 't2.*' } }, t_idx: { terms: { field: '_index' } } };
    for (const deleted of [undefined, [[[0, 5, 99, 100, 699], [1, 2, 3], []]]]) {
      const a = runShards(cols, [segments], mapping, { deleted }).rendered;
      expect((a['t_k'] as { buckets: unknown[] }).buckets.length).toBe(40);
      for (const blockSize of [undefined, 1, 16, 4096]) {
        expect(runShards(cols, [segments], mapping, { deleted, blockSize, collectAll: true }).rendered).toEqual(a);
      }
    }
  });

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
