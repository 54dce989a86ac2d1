// "search_during_indexing": the standard queries on the loaded index, idle and then while a sustained bulk
// load runs into a second index (`logs-ingest`, same mapping, refresh every second, so segment builds and
// merges run in the same service). Each query's p50 loaded (rounds for at least 10 s) vs idle (goal: ≤ 2×), and the service's CPU
// per wall second during the load (> 1.0 means more than one core busy). The queried index does not change,
// so every response is still checked exactly.
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { readCpuSeconds } from '../lib/service.mjs';
import { summarize } from '../lib/stats.mjs';
import { assert } from './checks.mjs';
import queries from './queries.mjs';

const MIX = ['term_status', 'term_country', 'range_day_sort_desc', 'bool_match_filter', 'text_or_3', 'terms_agg', 'date_histogram_1h'];
const LOAD_INDEX = 'logs-ingest';
/** the loaded rounds go on at least this long */
const LOADED_SECONDS = 10;

function loadAverage() {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return null;
  }
}

/** `n` rounds of every query; with `minSeconds`, more rounds until that long has passed */
async function rounds(ctx, qctx, defs, n, minSeconds = 0) {
  const samples = new Map(defs.map((d) => [d.name, []]));
  const t0 = Date.now();
  for (let i = 0; i < n || Date.now() - t0 < minSeconds * 1000; i++) {
    for (const def of defs) {
      const r = def.request(qctx);
      const res = await ctx.client.request(r.method, r.path, r.body);
      try {
        def.check(res, qctx);
      } catch (e) {
        throw new Error(`${def.name}: ${e.message}`);
      }
      samples.get(def.name).push(res.ms);
    }
  }
  return samples;
}

async function run(ctx) {
  const defs = MIX.map((n) => queries.runs.find((r) => r.name === n)).filter(Boolean);
  const qctx = { ...ctx, truth: ctx.truths.get('queries') };
  const base = { group: 'indexing', status: 'ok', notes: [] };
  if (!qctx.truth) return [{ ...base, name: 'search_during_indexing', status: 'skipped', error: 'needs the queries group expectations' }];
  const n = Math.max(ctx.opts.minRuns, Math.min(ctx.opts.runs, 30));
  // warm up, then the idle samples
  await rounds(ctx, qctx, defs, Math.max(1, ctx.opts.warmup));
  const idle = await rounds(ctx, qctx, defs, n);

  // the load index: the same mapping as the queried one, the default refresh interval
  const mapping = await ctx.client.ok('GET', `/${ctx.index}/_mapping`);
  const mappings = mapping[ctx.index].mappings;
  await ctx.client.request('DELETE', `/${LOAD_INDEX}`);
  const put = await ctx.client.request('PUT', `/${LOAD_INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0 }, mappings });
  assert(put.status === 200, `PUT /${LOAD_INDEX} -> HTTP ${put.status} ${put.text.slice(0, 200)}`);
  const bulkDocs = Math.min(ctx.opts.bulk, 5000);
  // the loaders run in a thread of their own (bulk-loader-worker.mjs): their generating and response parsing
  // must not delay the timing of the searches on this thread
  let loaded = 0;
  let failure = null;
  const worker = new Worker(new URL('./bulk-loader-worker.mjs', import.meta.url), {
    workerData: { baseUrl: ctx.client.baseUrl, index: LOAD_INDEX, clients: ctx.opts.clients, bulkDocs, seed: 4242 },
  });
  const finished = new Promise((resolve) => {
    worker.on('message', (m) => {
      if (m.loaded !== undefined) loaded = m.loaded;
      if (m.failure) failure = new Error(m.failure);
      if (m.done) resolve();
    });
    worker.on('error', (e) => {
      failure ??= e;
      resolve();
    });
    worker.on('exit', () => resolve());
  });
  // let the load reach its steady state (refreshes, the first merges) before measuring
  await new Promise((r) => setTimeout(r, 3000));
  const cpu0 = ctx.pid ? readCpuSeconds(ctx.pid) : null;
  const docs0 = loaded;
  const t0 = Date.now();
  let busy;
  try {
    // at least LOADED_SECONDS: the samples span several refreshes (one a second) and the merges they start,
    // not the fraction of a second 30 quick rounds take
    busy = await rounds(ctx, qctx, defs, n, LOADED_SECONDS);
  } finally {
    worker.postMessage('stop');
  }
  const seconds = (Date.now() - t0) / 1000;
  const cpu = cpu0 !== null ? readCpuSeconds(ctx.pid) - cpu0 : null;
  const docsPerSecond = (loaded - docs0) / seconds;
  await finished;
  await worker.terminate();
  const load = loadAverage();
  // what the load index cost the service meanwhile: refreshes (segment builds, on the event loop) and merges
  const st = (await ctx.client.request('GET', `/${LOAD_INDEX}/_stats/refresh,merge`)).json?._all?.primaries;
  const refreshes = st ? `${st.refresh.total} refreshes (${Math.round(st.refresh.total_time_in_millis / Math.max(1, st.refresh.total))} ms each)` : 'n/a';
  const merges = st ? `${st.merges.total} merges (${st.merges.total_time_in_millis} ms)` : 'n/a';
  await ctx.client.request('DELETE', `/${LOAD_INDEX}`);
  if (failure) return [{ ...base, name: 'search_during_indexing', status: 'failed', error: failure.message }];

  const rows = [];
  for (const def of defs) {
    const a = summarize(idle.get(def.name));
    const b = summarize(busy.get(def.name));
    const ratio = b.p50 / a.p50;
    rows.push({
      ...base,
      name: `during_indexing:${def.name}`,
      description: `${def.name} while ${ctx.opts.clients} clients bulk-load ${LOAD_INDEX}: p50 idle ${a.p50.toFixed(2)} ms → loaded ${b.p50.toFixed(2)} ms`,
      ...b,
      idleP50: a.p50,
      ratio,
      result: `${ratio.toFixed(2)}× idle p50 (goal ≤ 2×)`,
    });
  }
  const coresBusy = cpu !== null ? cpu / seconds : null;
  rows.push({
    ...base,
    name: 'search_during_indexing',
    description: `${busy.get(defs[0].name).length} rounds of ${defs.length} queries during a sustained bulk load (${ctx.opts.clients} clients × ${bulkDocs} docs, ≥ ${LOADED_SECONDS} s)`,
    ingestDocsPerSecond: docsPerSecond,
    coresBusy,
    loadAverage: load,
    result: `worst ratio ${Math.max(...rows.map((r) => r.ratio)).toFixed(2)}×; ingest ${Math.round(docsPerSecond)} docs/s; service CPU ${coresBusy === null ? 'n/a' : coresBusy.toFixed(2)} cores; ${LOAD_INDEX}: ${refreshes}, ${merges}; load ${load}`,
  });
  return rows;
}

export default { name: 'indexing', runs: [{ name: 'search_during_indexing', description: 'queries during a sustained bulk load', custom: run }] };
