/**
 * Micro-benchmark of shard collection + reduce + render over 1M synthetic docs in one segment.
 * Jest's sandbox distorts timings, so run it on plain node:
 *   npx esbuild libs/core/engine/src/lib/aggregations/bench/agg-bench.ts --bundle --platform=node \
 *     --format=cjs --conditions=@strata/source --outfile=/tmp/agg-bench.cjs && node /tmp/agg-bench.cjs
 * Measured here (2 cores shared with other jobs, warm p50): terms keyword ~9-12 ms, hourly date_histogram UTC
 * ~17-40 ms, hourly date_histogram Europe/Paris ~15-23 ms, stats ~17 ms, numeric terms ~20 ms, cardinality
 * (60 terms) ~22 ms, cardinality/terms over 200k distinct urls ~200 ms, composite 2 sources ~135-200 ms,
 * multi_terms ~80-135 ms, terms>date_histogram ~60-120 ms.
 */
import type { LeafReader, LeafReaderContext } from '../../index/leaf-reader.js';
import { parseAggregations, reduceAggregations, renderAggregations } from '../aggregation-phase.js';
import { fakeContext } from '../test-support.js';

const N = 1_000_000;

function bigLeaf(): LeafReaderContext {
  const terms = Array.from({ length: 60 }, (_, i) => `host-${String(i).padStart(3, '0')}`);
  const offsets = new Uint32Array(N + 1);
  const ords = new Uint32Array(N);
  const ts = new Float64Array(N);
  const status = new Float64Array(N);
  const urlTerms = Array.from({ length: 200_000 }, (_, i) => `/products/${String(i).padStart(6, '0')}/detail`);
  const urlOrds = new Uint32Array(N);
  const start = Date.UTC(2024, 0, 1);
  for (let d = 0; d < N; d++) {
    offsets[d] = d;
    ords[d] = (d * 7919) % 60;
    ts[d] = start + Math.floor((d / N) * 30 * 86_400_000);
    status[d] = [200, 200, 200, 404, 500, 301][d % 6]!;
    urlOrds[d] = (d * 48271) % 200_000;
  }
  offsets[N] = N;
  const reader = {
    segmentName: '_0', maxDoc: N, numDocs: N, liveDocs: null, delGen: 0, isLive: () => true,
    sortedSetDocValues: (f: string) => (f === 'host' ? { offsets, ords, terms } : f === 'url' ? { offsets, ords: urlOrds, terms: urlTerms } : null),
    numericDocValues: (f: string) => (f === 'ts' ? { offsets, values: ts } : f === 'status' ? { offsets, values: status } : null),
  } as unknown as LeafReader;
  return { reader, docBase: 0, ord: 0 };
}

const CASES: Record<string, unknown> = {
  'terms keyword': { t: { terms: { field: 'host' } } },
  'date_histogram 1h UTC': { h: { date_histogram: { field: 'ts', calendar_interval: 'hour' } } },
  'date_histogram 1h Europe/Paris': { h: { date_histogram: { field: 'ts', calendar_interval: 'hour', time_zone: 'Europe/Paris' } } },
  'terms numeric': { t: { terms: { field: 'status' } } },
  stats: { s: { stats: { field: 'status' } } },
  cardinality: { c: { cardinality: { field: 'host' } } },
  'cardinality 200k urls': { c: { cardinality: { field: 'url' } } },
  'terms 200k urls': { t: { terms: { field: 'url' } } },
  'composite host x 1d (size 100)': { c: { composite: { size: 100, sources: [{ h: { terms: { field: 'host' } } }, { d: { date_histogram: { field: 'ts', calendar_interval: '1d' } } }] } } },
  'multi_terms host x status': { m: { multi_terms: { terms: [{ field: 'host' }, { field: 'status' }] } } },
  'terms>avg': { t: { terms: { field: 'host' }, aggs: { a: { avg: { field: 'status' } } } } },
  'terms>date_histogram 1h': { t: { terms: { field: 'host' }, aggs: { h: { date_histogram: { field: 'ts', calendar_interval: 'hour' } } } } },
  'date_histogram 1d>terms': { h: { date_histogram: { field: 'ts', calendar_interval: 'day' }, aggs: { t: { terms: { field: 'host', size: 3 } } } } },
};

const leaf = bigLeaf();
const mapping = { host: 'keyword', ts: 'date', status: 'long', url: 'keyword' };
for (const [name, aggs] of Object.entries(CASES)) {
  const f = parseAggregations(aggs);
  const runs: number[] = [];
  for (let r = 0; r < 7; r++) {
    const t0 = performance.now();
    const agg = f.createShardAggregator(fakeContext(mapping, [leaf]));
    const lc = agg.getLeafCollector(leaf);
    for (let d = 0; d < N; d++) lc.collect(d, 0);
    renderAggregations(f, reduceAggregations(f, [agg.buildShardResult()]), { typedKeys: false });
    runs.push(performance.now() - t0);
  }
  runs.sort((a, b) => a - b);
  console.log(`${name}: p50 ${runs[3]!.toFixed(1)} ms (min ${runs[0]!.toFixed(1)}, max ${runs[6]!.toFixed(1)})`);
}
