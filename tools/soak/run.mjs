#!/usr/bin/env node
/**
 * Bounded mixed-load soak of the built node: bulk writes over a fixed id space (so the data stays bounded),
 * searches, aggregations, cached searches (request_cache, size 0), scrolls, point-in-time searches, and a
 * data stream with appends and rollovers (old backing indices deleted), EQL event queries and sequences over
 * the data stream (some async, stored and deleted). Every interval it prints the node's
 * RSS, heap, open search contexts (scroll + PIT), open file handles and p50/p99 latency per operation, and
 * at the end a JSON summary with the drift of RSS/heap/handles after warm-up.
 *
 *   node tools/soak/run.mjs [--minutes N] [--interval-s N] [--clients N] [--ids N] [--seed N]
 *        [--data-root DIR] [--no-build] [--json FILE]
 *
 * --minutes: how long (default 30); --interval-s: report interval (60); --clients: concurrent load loops
 * (4); --ids: distinct document ids (100000). Exit code 1 if any request failed with a 5xx or the node died.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../bench/lib/args.mjs';
import { createRng } from '../bench/lib/prng.mjs';
import { REPO_ROOT, requestJson, startService } from '../bench/lib/service.mjs';

const USAGE = 'node tools/soak/run.mjs [--minutes N] [--interval-s N] [--clients N] [--ids N] [--seed N] [--data-root DIR] [--no-build] [--json FILE]';

function rng(seed) {
  const r = createRng(seed);
  return { next: r.next, int: (lo, hi) => lo + r.int(hi - lo + 1), pick: (a) => a[r.int(a.length)] };
}

const WORDS = ['error', 'warning', 'info', 'timeout', 'connection', 'refused', 'user', 'login', 'payment', 'order', 'shipped', 'disk', 'cache', 'miss', 'hit', 'latency', 'spike', 'retry', 'queue', 'full'];

async function main() {
  const opts = parseArgs(process.argv.slice(2), { minutes: 30, intervalS: 60, clients: 4, ids: 100_000, seed: 1, dataRoot: tmpdir(), build: true, json: '' }, USAGE);
  if (opts.build) execFileSync(process.execPath, [join(REPO_ROOT, 'tools/scripts/build-host.mjs')], { stdio: 'ignore' });
  const dataPath = mkdtempSync(join(opts.dataRoot, 'strata-soak-'));
  const svc = await startService({ dataDir: dataPath });
  const { pid, url } = svc;
  const isDead = () => svc.exited !== null;
  const r = rng(opts.seed);
  const lat = new Map(); // op -> ms[] of the current interval
  const errors = new Map(); // "op status" -> count
  let serverErrors = 0;
  const call = async (op, method, path, body, ndjson = false) => {
    const t0 = performance.now();
    const res = await requestJson(url, method, path, body, ndjson);
    const ms = performance.now() - t0;
    if (op) {
      if (!lat.has(op)) lat.set(op, []);
      lat.get(op).push(ms);
    }
    if (res.status >= 400) {
      // keyed by the error type too, so a report tells e.g. an index deleted under a search from a missing id
      const type = res.json?.error?.type;
      const k = `${op ?? path} ${res.status}${type ? ` ${type}` : ''}`;
      errors.set(k, (errors.get(k) ?? 0) + 1);
      if (res.status >= 500) serverErrors++;
    }
    return res;
  };

  await call(null, 'PUT', '/soak', { settings: { number_of_shards: 2 }, mappings: { properties: { msg: { type: 'text' }, level: { type: 'keyword' }, n: { type: 'long' }, ts: { type: 'date' }, host: { type: 'keyword' } } } });
  await call(null, 'PUT', '/_index_template/soak-logs', { index_patterns: ['logs-soak-*'], data_stream: {}, template: { mappings: { properties: { message: { type: 'text' }, '@timestamp': { type: 'date' }, event: { properties: { category: { type: 'keyword' } } }, host: { properties: { id: { type: 'keyword' } } } } } } });
  await call(null, 'PUT', '/_data_stream/logs-soak-default');

  const deadline = Date.now() + opts.minutes * 60_000;
  const doc = (n) => ({ msg: Array.from({ length: 8 }, () => r.pick(WORDS)).join(' '), level: r.pick(['info', 'warn', 'error', 'debug']), n, ts: new Date(Date.UTC(2024, 0, 1) + n * 1000).toISOString(), host: `h${n % 50}` });
  let n = 0;
  const ops = {
    async bulk() {
      const lines = [];
      for (let i = 0; i < 500; i++) {
        const id = r.int(0, opts.ids - 1);
        const p = r.next();
        if (p < 0.85) lines.push(JSON.stringify({ index: { _index: 'soak', _id: String(id) } }), JSON.stringify(doc(++n)));
        else if (p < 0.95) lines.push(JSON.stringify({ update: { _index: 'soak', _id: String(id) } }), JSON.stringify({ doc: { n: ++n }, doc_as_upsert: true }));
        else lines.push(JSON.stringify({ delete: { _index: 'soak', _id: String(id) } }));
      }
      await call('bulk', 'POST', '/_bulk', lines.join('\n') + '\n', true);
    },
    async search() {
      await call('search', 'POST', '/soak/_search', { query: { bool: { must: [{ match: { msg: `${r.pick(WORDS)} ${r.pick(WORDS)}` } }], filter: [{ term: { level: r.pick(['info', 'warn', 'error']) } }] } }, size: 10 });
    },
    async aggs() {
      await call('aggs', 'POST', '/soak/_search', { size: 0, query: { range: { n: { gte: r.int(0, n) } } }, aggs: { levels: { terms: { field: 'level' }, aggs: { avg_n: { avg: { field: 'n' } } } }, per_hour: { date_histogram: { field: 'ts', fixed_interval: '1h' } } } });
    },
    async cached() {
      // the same body again and again: request_cache hits between refreshes
      await call('cached', 'POST', `/soak/_search?request_cache=true`, { size: 0, aggs: { hosts: { terms: { field: 'host', size: 5 } } } });
    },
    async scroll() {
      let res = await call('scroll', 'POST', '/soak/_search?scroll=30s', { size: 200, query: { term: { level: 'error' } }, sort: ['_doc'] });
      const id0 = res.json?._scroll_id;
      let id = id0;
      for (let i = 0; i < 3 && id; i++) {
        res = await call('scroll', 'POST', '/_search/scroll', { scroll: '30s', scroll_id: id });
        id = res.json?._scroll_id ?? id;
      }
      // half of the scrolls are left to expire (keep_alive), the other half are cleared
      if (id && r.next() < 0.5) await call('scroll', 'DELETE', '/_search/scroll', { scroll_id: id });
    },
    async pit() {
      const open = await call('pit', 'POST', '/soak/_pit?keep_alive=30s');
      const pit = open.json?.id;
      if (!pit) return;
      let after;
      for (let i = 0; i < 3; i++) {
        const res = await call('pit', 'POST', '/_search', { size: 100, pit: { id: pit, keep_alive: '30s' }, sort: [{ n: 'asc' }], ...(after ? { search_after: after } : {}) });
        const hits = res.json?.hits?.hits ?? [];
        if (hits.length === 0) break;
        after = hits.at(-1).sort;
      }
      if (r.next() < 0.5) await call('pit', 'DELETE', '/_pit', { id: pit });
    },
    async datastream() {
      const lines = [];
      for (let i = 0; i < 100; i++) lines.push(JSON.stringify({ create: { _index: 'logs-soak-default' } }), JSON.stringify({ '@timestamp': new Date().toISOString(), message: `${r.pick(WORDS)} ${r.pick(WORDS)}`, event: { category: r.pick(['process', 'network', 'file']) }, host: { id: `h${r.int(0, 9)}` } }));
      await call('datastream', 'POST', '/_bulk', lines.join('\n') + '\n', true);
      await call('datastream', 'POST', '/logs-soak-default/_search', { size: 5, query: { match: { message: r.pick(WORDS) } } });
    },
    async eql() {
      // event queries and sequences over the data stream; now and then an async one, stored and deleted again
      const query = r.next() < 0.5 ? `process where host.id : "h${r.int(0, 9)}*"` : `sequence by host.id with maxspan=1m [process where true] [network where host.id != "h${r.int(0, 9)}"]`;
      const async = r.next() < 0.2;
      const res = await call('eql', 'POST', '/logs-soak-default/_eql/search?filter_path=id,hits.total,error', { query, size: 10, ...(async ? { wait_for_completion_timeout: '0s', keep_on_completion: true, keep_alive: '1m' } : {}) });
      if (async && res.json?.id) await call('eql', 'DELETE', `/_eql/search/${encodeURIComponent(res.json.id)}`);
    },
  };
  const weights = [['bulk', 3], ['search', 6], ['aggs', 3], ['cached', 3], ['scroll', 1], ['pit', 1], ['datastream', 1], ['eql', 1]];
  const total = weights.reduce((s, [, w]) => s + w, 0);
  const pickOp = () => {
    let x = r.next() * total;
    for (const [name, w] of weights) if ((x -= w) < 0) return name;
    return 'search';
  };
  const loop = async () => {
    while (Date.now() < deadline && !isDead()) {
      try {
        await ops[pickOp()]();
      } catch (e) {
        if (isDead()) return;
        errors.set(String(e), (errors.get(String(e)) ?? 0) + 1);
      }
    }
  };
  // the data stream rolls over every interval; backing indices older than the last two are deleted
  const maintenance = async () => {
    const ds = await call(null, 'POST', '/logs-soak-default/_rollover');
    if (ds.status !== 200) return;
    const info = await call(null, 'GET', '/_data_stream/logs-soak-default');
    const backing = info.json?.data_streams?.[0]?.indices?.map((x) => x.index_name) ?? [];
    for (const old of backing.slice(0, -2)) await call(null, 'DELETE', `/${old}`);
  };

  const rows = [];
  const pct = (xs, p) => {
    if (xs.length === 0) return null;
    const s = [...xs].sort((a, b) => a - b);
    return Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] * 10) / 10;
  };
  const sampleNode = async (minute) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const fds = readdirSync(`/proc/${pid}/fd`).length;
    const st = await call(null, 'GET', '/_nodes/stats/jvm,indices');
    const node = Object.values(st.json?.nodes ?? {})[0] ?? {};
    const perOp = {};
    for (const [op, xs] of lat) perOp[op] = { n: xs.length, p50: pct(xs, 50), p99: pct(xs, 99) };
    lat.clear();
    const row = {
      minute,
      rssMb: Math.round(rssKb / 1024),
      heapMb: Math.round((node.jvm?.mem?.heap_used_in_bytes ?? 0) / 1048576),
      openContexts: node.indices?.search?.open_contexts ?? null,
      fileHandles: fds,
      docs: node.indices?.docs?.count ?? null,
      ops: perOp,
    };
    rows.push(row);
    const opsText = Object.entries(perOp)
      .map(([op, v]) => `${op} ${v.n} ${v.p50}/${v.p99}`)
      .join(', ');
    console.log(`min ${String(minute).padStart(3)}  rss ${String(row.rssMb).padStart(5)} MB  heap ${String(row.heapMb).padStart(5)} MB  contexts ${String(row.openContexts).padStart(4)}  fds ${String(fds).padStart(4)}  docs ${row.docs}  | n p50/p99 ms: ${opsText}`);
  };

  const loops = Array.from({ length: opts.clients }, () => loop());
  let minute = 0;
  const ticker = (async () => {
    while (Date.now() < deadline && !isDead()) {
      await new Promise((res) => setTimeout(res, Math.min(opts.intervalS * 1000, Math.max(0, deadline - Date.now()))));
      if (isDead()) break;
      minute++;
      await sampleNode(Math.round((minute * opts.intervalS) / 6) / 10);
      await maintenance().catch(() => undefined);
    }
  })();
  await Promise.all([...loops, ticker]);
  const died = isDead();
  await svc.stop({ removeData: false });
  rmSync(dataPath, { recursive: true, force: true });

  // drift after warm-up: the first third of the run is warm-up
  const warm = rows.slice(Math.floor(rows.length / 3));
  const span = (k) => (warm.length ? { min: Math.min(...warm.map((x) => x[k])), max: Math.max(...warm.map((x) => x[k])), first: warm[0][k], last: warm.at(-1)[k] } : null);
  const summary = {
    minutes: opts.minutes,
    intervals: rows.length,
    died,
    serverErrors,
    errors: Object.fromEntries(errors),
    afterWarmup: { rssMb: span('rssMb'), heapMb: span('heapMb'), fileHandles: span('fileHandles'), openContexts: span('openContexts') },
  };
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ summary, rows }, null, 2));
  console.log(JSON.stringify(summary));
  process.exit(died || serverErrors > 0 ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
