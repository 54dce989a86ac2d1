#!/usr/bin/env node
// Strata benchmark: start-up, idle RSS, bulk ingest, a table of named query runs, RSS after load.
// See tools/bench/README.md. Exit code: 0 all runs ok, 1 a run failed or a step broke.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerator } from './generate.mjs';
import { parseArgs } from './lib/args.mjs';
import { createClient } from './lib/http.mjs';
import { measureRequest } from './lib/measure.mjs';
import { printProfile, summarizeProfile } from './lib/profile.mjs';
import { dirSize, HOST_MAIN, readCpuSeconds, readMemory, SERVICE_NODE_FLAGS, startService } from './lib/service.mjs';
import { fmtInt, fmtMB, fmtMs, markdownTable, summarize } from './lib/stats.mjs';
import { GROUPS } from './runs/index.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

const USAGE = `usage: node tools/bench/run.mjs [options]
  --docs N            documents to load (default 1000000)
  --smoke             developer smoke run: --docs 20000 --warmup 2 --runs 10 (unless given explicitly)
  --bulk N            documents per _bulk request (default 5000)
  --clients K         concurrent bulk clients (default 2)
  --shards N          index.number_of_shards (default 1)
  --seed S --days D   generator seed (42) and time span in days (7)
  --port P            port for the spawned service (default: a free port)
  --target URL        benchmark an already running service instead of spawning one (no start-up numbers;
                      add --pid to get RSS/CPU numbers)
  --pid N             process id of the --target service
  --keep              leave the spawned service running and its data in place at the end
  --skip-load         do not create/load the index; reuse one loaded before with the same --docs/--seed/--days
  --warmup W --runs R warm-up and measured repetitions per query run (default 5 and 30)
  --max-run-seconds S stop measuring a run after S seconds once --min-runs samples exist (default 20, min 5)
  --only a,b          only these run or group names (e.g. --only term_status,cache)
  --qps-clients N --qps-seconds S   the mixed_qps throughput run: concurrent clients (default 4), duration (10)
  --index NAME        index name (default logs)
  --eql-events N      events loaded for the EQL runs (default 200000; index eql-events)
  --eql-growth N      the EQL growth run measures a sequence as eql-events grows to N events (default 2000000)
  --node-settings S   extra node settings for the spawned service, comma-separated k=v (each becomes -E k=v),
                      e.g. thread_pool.merge.size=0 (merges on the event loop, as before worker threads)
  --cpu-prof          start the service with --cpu-prof and print where CPU time went (whole run)
  --main PATH         host bundle (default apps/host/dist/main.cjs)
  --out PATH          JSON results (default tools/bench/results/latest.json)`;

const opts = parseArgs(process.argv.slice(2), {
  docs: 1_000_000, bulk: 5000, clients: 2, shards: 1, seed: 42, days: 7, port: 0, target: '', pid: 0,
  keep: false, skipLoad: false, warmup: 5, runs: 30, maxRunSeconds: 20, minRuns: 5, only: '', index: 'logs',
  qpsClients: 4, qpsSeconds: 10, eqlEvents: 200_000, eqlGrowth: 2_000_000, cpuProf: false, smoke: false, nodeSettings: '', main: HOST_MAIN, out: path.join(HERE, 'results/latest.json'), idleWaitMs: 1000,
}, USAGE);
if (opts.smoke) {
  const given = (f) => process.argv.some((a) => a === f || a.startsWith(f + '='));
  if (!given('--docs')) opts.docs = 20000;
  if (!given('--warmup')) opts.warmup = 2;
  if (!given('--runs')) opts.runs = 10;
  if (!given('--qps-seconds')) opts.qpsSeconds = 3;
  if (!given('--eql-events')) opts.eqlEvents = 20000;
  if (!given('--eql-growth')) opts.eqlGrowth = 100000;
}
opts.warmup = Math.max(1, opts.warmup);
opts.minRuns = Math.min(opts.minRuns, opts.runs);

const log = (...a) => console.log(...a);
const warnings = [];
const warn = (msg) => {
  warnings.push(msg);
  console.warn(`WARNING: ${msg}`);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const results = {
  date: new Date().toISOString(),
  machine: {
    cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, totalMemMB: Math.round(os.totalmem() / 1048576), node: process.version,
    loadAvgStart: os.loadavg(),
  },
  options: { ...opts },
  startup: null,
  ingest: null,
  memory: {},
  runs: [],
  warnings,
};

let service = null;
let client = null;
let profDir = null;

async function main() {
  // ---- 1. service start-up and idle RSS
  let pid = opts.pid || null;
  if (opts.target) {
    client = createClient(opts.target, { maxSockets: Math.max(opts.clients, opts.qpsClients) + 2 });
    const info = await client.ok('GET', '/');
    log(`target ${opts.target}: ${info?.version?.number ?? '?'} (${info?.tagline ?? ''})`);
  } else {
    const nodeArgs = [...SERVICE_NODE_FLAGS];
    if (opts.cpuProf) {
      profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-prof-'));
      nodeArgs.push('--cpu-prof', `--cpu-prof-dir=${profDir}`);
    }
    const extraArgs = opts.nodeSettings ? opts.nodeSettings.split(',').filter(Boolean).flatMap((kv) => ['-E', kv.trim()]) : [];
    service = await startService({ main: opts.main, port: opts.port || undefined, nodeArgs, extraArgs });
    pid = service.pid;
    client = createClient(service.url, { maxSockets: Math.max(opts.clients, opts.qpsClients) + 2 });
    log(`service pid ${pid} on ${service.url}, data ${service.dataDir}, log ${service.logFile}`);
    log(`start-up to first answered GET /: ${fmtMs(service.startupMs)} ms`);
    await sleep(opts.idleWaitMs);
    const mem = readMemory(pid);
    results.startup = { ms: service.startupMs, idleRss: mem?.rss ?? null };
    log(`idle RSS: ${fmtMB(mem?.rss)}`);
    const info = (await client.request('GET', '/')).json;
    results.service = { version: info?.version?.number, name: info?.name };
  }

  // ---- 2. generator + truth collectors
  const gen = createGenerator({ seed: opts.seed, docs: opts.docs, days: opts.days });
  const collectors = new Map();
  for (const g of GROUPS) if (g.createTruth) collectors.set(g.name, g.createTruth(gen));
  const hooks = [...collectors.values()].map((c) => c.onDoc);
  const genWithTruth = createGenerator({
    seed: opts.seed, docs: opts.docs, days: opts.days,
    onDoc: (rec) => { for (const h of hooks) h(rec); },
  });

  // ---- 3. index + ingest
  if (opts.skipLoad) {
    const t0 = Date.now();
    while (genWithTruth.nextBulk(10000) !== null) { /* truth only */ }
    log(`--skip-load: regenerated expectations for ${fmtInt(opts.docs)} docs in ${Date.now() - t0} ms`);
  } else {
    await createIndex();
    results.ingest = await ingest(genWithTruth, pid);
  }
  const count = await client.ok('POST', `/${opts.index}/_count`, { query: { match_all: {} } });
  if (count?.count !== opts.docs) throw new Error(`_count is ${count?.count}, expected ${opts.docs}`);
  log(`_count = ${fmtInt(count.count)} (ok)`);
  if (pid) results.memory.afterLoad = readMemory(pid);
  if (service) results.memory.dataDirBytes = dirSize(service.dataDir);
  log(`RSS after load: ${fmtMB(results.memory.afterLoad?.rss)}${service ? `, data dir ${fmtMB(results.memory.dataDirBytes)}` : ''}`);

  // ---- 4. runs
  const only = opts.only ? new Set(opts.only.split(',').map((s) => s.trim()).filter(Boolean)) : null;
  const cpuBefore = pid ? readCpuSeconds(pid) : null;
  for (const g of GROUPS) {
    for (const def of g.runs) {
      if (only && !only.has(def.name) && !only.has(g.name)) continue;
      const ctx = {
        client, pid, index: opts.index, shards: opts.shards, gen: { docs: opts.docs, days: opts.days, startMs: gen.startMs, endMs: gen.endMs },
        truth: collectors.get(g.name)?.truth, truths: new Map([...collectors].map(([k, c]) => [k, c.truth])), opts, warn,
      };
      process.stdout.write(`run ${g.name}/${def.name} ... `);
      let rows;
      try {
        rows = def.custom ? await def.custom(ctx) : [await measureRequest(ctx, { ...def, group: g.name })];
      } catch (e) {
        rows = [{ group: g.name, name: def.name, description: def.description, status: 'failed', error: e.message }];
      }
      for (const r of rows) {
        r.group ??= g.name;
        results.runs.push(r);
      }
      log(rows.map((r) => (r.status === 'ok' ? `p50 ${fmtMs(r.p50)} ms, p95 ${fmtMs(r.p95)} ms` : `${r.status.toUpperCase()}: ${r.error}`)).join('; '));
    }
  }
  if (pid) {
    results.memory.afterQueries = readMemory(pid);
    if (cpuBefore !== null) results.memory.queryCpuSeconds = readCpuSeconds(pid) - cpuBefore;
  }
}

async function createIndex() {
  const del = await client.request('DELETE', `/${opts.index}`);
  if (del.status !== 200 && del.status !== 404) throw new Error(`DELETE /${opts.index} -> HTTP ${del.status}: ${del.text.slice(0, 300)}`);
  const body = {
    settings: { number_of_shards: opts.shards, number_of_replicas: 0, refresh_interval: '-1' },
    mappings: {
      properties: {
        '@timestamp': { type: 'date' },
        client: { properties: { ip: { type: 'ip' } } },
        http: {
          properties: {
            request: { properties: { method: { type: 'keyword' } } },
            response: { properties: { status_code: { type: 'long' }, body: { properties: { bytes: { type: 'long' } } } } },
          },
        },
        url: { properties: { path: { type: 'keyword' } } },
        user_agent: { properties: { original: { type: 'keyword' } } },
        source: { properties: { geo: { properties: { country_iso_code: { type: 'keyword' } } } } },
        event: { properties: { duration: { type: 'long' } } },
        message: { type: 'text' },
      },
    },
  };
  const res = await client.ok('PUT', `/${opts.index}`, body);
  if (res?.acknowledged !== true) throw new Error(`PUT /${opts.index} not acknowledged: ${JSON.stringify(res)}`);
}

async function ingest(gen, pid) {
  log(`loading ${fmtInt(opts.docs)} docs, bulk ${opts.bulk}, ${opts.clients} clients, ${opts.shards} shard(s)`);
  const latencies = [];
  let sentDocs = 0;
  let sentBytes = 0;
  let retries429 = 0;
  let genMs = 0;
  const cpu0 = pid ? readCpuSeconds(pid) : null;
  const self0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const elapsedS = () => Number(process.hrtime.bigint() - t0) / 1e9;
  let peakRss = 0;
  const progress = setInterval(() => {
    const m = pid ? readMemory(pid) : null;
    if (m?.rss > peakRss) peakRss = m.rss;
    log(`  ${fmtInt(sentDocs)} docs, ${fmtInt(sentDocs / elapsedS())} docs/s${m ? `, RSS ${fmtMB(m.rss)}` : ''}`);
  }, 5000);
  let failure = null;
  async function worker() {
    while (!failure) {
      const g0 = process.hrtime.bigint();
      const start = gen.generated;
      const body = gen.nextBulk(opts.bulk);
      if (body === null) return;
      const n = gen.generated - start;
      genMs += Number(process.hrtime.bigint() - g0) / 1e6;
      const buf = Buffer.from(body);
      for (let attempt = 0; ; attempt++) {
        const res = await client.request('POST', `/${opts.index}/_bulk`, buf, { contentType: 'application/x-ndjson' });
        if (res.status === 429 && attempt < 20) {
          retries429++;
          await sleep(Math.min(2000, 50 * 2 ** attempt));
          continue;
        }
        if (res.status !== 200) {
          failure = new Error(`_bulk -> HTTP ${res.status}: ${res.text.slice(0, 600)}`);
          return;
        }
        const j = res.json;
        if (!j || !Array.isArray(j.items)) {
          failure = new Error(`_bulk response without items: ${res.text.slice(0, 400)}`);
          return;
        }
        if (j.errors !== false || j.items.length !== n) {
          const bad = j.items.find((it) => (it.index ?? it.create)?.error);
          failure = new Error(`_bulk errors=${j.errors}, ${j.items.length}/${n} items; first error: ${JSON.stringify(bad ?? j.items[0]).slice(0, 500)}`);
          return;
        }
        latencies.push(res.ms);
        break;
      }
      sentDocs += n;
      sentBytes += buf.length;
    }
  }
  try {
    await Promise.all(Array.from({ length: opts.clients }, worker));
  } finally {
    clearInterval(progress);
  }
  if (failure) throw failure;
  const loadS = elapsedS();
  const cpuLoad = pid ? readCpuSeconds(pid) - cpu0 : null;
  const selfCpu = process.cpuUsage(self0);
  const r0 = process.hrtime.bigint();
  await client.ok('POST', `/${opts.index}/_refresh`);
  const refreshS = Number(process.hrtime.bigint() - r0) / 1e9;
  const cpuRefresh = pid ? readCpuSeconds(pid) - cpu0 - cpuLoad : null;
  const m = pid ? readMemory(pid) : null;
  const out = {
    docs: sentDocs,
    bytes: sentBytes,
    seconds: loadS,
    docsPerSec: sentDocs / loadS,
    mbPerSec: sentBytes / 1048576 / loadS,
    refreshSeconds: refreshS,
    docsPerSecInclRefresh: sentDocs / (loadS + refreshS),
    bulkLatency: summarize(latencies),
    retries429,
    serverCpuSeconds: cpuLoad,
    serverCpuSecondsRefresh: cpuRefresh,
    benchCpuSeconds: (selfCpu.user + selfCpu.system) / 1e6,
    generatorSeconds: genMs / 1000,
    peakRssDuringLoad: Math.max(peakRss, m?.hwm ?? 0) || null,
  };
  log(`ingest: ${fmtInt(out.docsPerSec)} docs/s (${out.mbPerSec.toFixed(1)} MB/s) in ${loadS.toFixed(1)} s; refresh ${refreshS.toFixed(2)} s; ` +
    `bulk p50 ${fmtMs(out.bulkLatency.p50)} ms p95 ${fmtMs(out.bulkLatency.p95)} ms` +
    (cpuLoad !== null ? `; service CPU ${cpuLoad.toFixed(1)} s (${(cpuLoad / loadS * 100).toFixed(0)}% of one core)` : '') +
    `; bench CPU ${out.benchCpuSeconds.toFixed(1)} s (generator ${out.generatorSeconds.toFixed(1)} s)`);
  return out;
}

function report() {
  const lines = [];
  lines.push(`## Strata benchmark — ${fmtInt(opts.docs)} docs, ${opts.shards} shard(s), ${opts.clients} bulk clients × ${opts.bulk} docs, ${results.machine.cpus} CPUs`);
  lines.push('');
  const s = [];
  if (results.startup) {
    s.push(['start-up to first answered GET /', `${fmtMs(results.startup.ms)} ms`]);
    s.push(['idle RSS', fmtMB(results.startup.idleRss)]);
  }
  const ing = results.ingest;
  if (ing) {
    s.push(['ingest', `${fmtInt(ing.docsPerSec)} docs/s (${ing.mbPerSec.toFixed(1)} MB/s, ${ing.seconds.toFixed(1)} s)`]);
    s.push(['refresh after load', `${ing.refreshSeconds.toFixed(2)} s`]);
    s.push(['ingest incl. refresh', `${fmtInt(ing.docsPerSecInclRefresh)} docs/s`]);
    s.push(['bulk latency p50 / p95', `${fmtMs(ing.bulkLatency.p50)} / ${fmtMs(ing.bulkLatency.p95)} ms`]);
    if (ing.serverCpuSeconds !== null) {
      s.push(['service CPU during load', `${ing.serverCpuSeconds.toFixed(1)} s (${(100 * ing.serverCpuSeconds / ing.seconds).toFixed(0)}% of one core)`]);
      s.push(['docs per service CPU-second (load-independent)', fmtInt(ing.docs / Math.max(ing.serverCpuSeconds, 0.01))]);
      if (ing.serverCpuSecondsRefresh !== null) s.push(['service CPU for the refresh', `${ing.serverCpuSecondsRefresh.toFixed(1)} s`]);
    }
    if (ing.peakRssDuringLoad) s.push(['peak RSS (VmHWM) by end of load', fmtMB(ing.peakRssDuringLoad)]);
  }
  if (results.memory.afterLoad) s.push(['RSS after load + refresh', fmtMB(results.memory.afterLoad.rss)]);
  if (results.memory.afterQueries) s.push(['RSS after query runs', fmtMB(results.memory.afterQueries.rss)]);
  if (results.memory.dataDirBytes !== undefined) s.push(['data dir size', fmtMB(results.memory.dataDirBytes)]);
  if (results.memory.queryCpuSeconds !== undefined) s.push(['service CPU during the runs', `${results.memory.queryCpuSeconds.toFixed(1)} s`]);
  const la = results.machine;
  s.push(['load average (1 min) at start / end', `${la.loadAvgStart[0].toFixed(1)} / ${la.loadAvgEnd?.[0]?.toFixed(1) ?? '-'} (${la.cpus} CPUs)`]);
  lines.push(markdownTable(['measure', 'value'], s));
  lines.push('');
  const rows = results.runs.map((r) => [
    r.name, r.status === 'ok' ? 'ok' : r.status.toUpperCase(), fmtMs(r.p50), fmtMs(r.p95), fmtMs(r.mean), fmtMs(r.tookP50), fmtMs(r.cpuMsPerRequest), r.n ?? '-',
    r.result ?? r.cacheHits ?? '', [r.description, r.error, ...(r.notes ?? [])].filter(Boolean).join('; '),
  ]);
  lines.push(markdownTable(['run', 'status', 'p50 ms', 'p95 ms', 'mean ms', 'took p50', 'svc CPU ms/req', 'n', 'hits/buckets', 'what'], rows));
  if (warnings.length) lines.push('', ...warnings.map((w) => `- WARNING: ${w}`));
  return lines.join('\n');
}

let exitCode = 0;
try {
  await main();
} catch (e) {
  exitCode = 1;
  results.error = e.message;
  console.error(`\nBENCHMARK FAILED: ${e.message}`);
  if (service) console.error(`--- service log tail (${service.logFile}) ---\n${service.logTail(30)}`);
}
if (results.runs.some((r) => r.status === 'failed')) exitCode = 1;

if (service) {
  if (opts.keep && !results.error) {
    log(`\n--keep: service still running: pid ${service.pid}, ${service.url}, data ${service.dataDir}`);
    log(`  re-run queries: node tools/bench/run.mjs --target ${service.url} --pid ${service.pid} --skip-load --docs ${opts.docs} --seed ${opts.seed} --days ${opts.days}`);
  } else {
    const ex = await service.stop({ removeData: !opts.keep, keepLog: exitCode !== 0 });
    if (exitCode !== 0) log(`service log kept: ${service.logFile}`);
    if (ex && ex.signal === 'SIGKILL') warn('service did not stop within 10 s of SIGTERM (killed)');
  }
}
client?.close();

if (profDir) {
  const files = fs.existsSync(profDir) ? fs.readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')) : [];
  if (files.length) {
    const dest = path.join(path.dirname(opts.out), 'latest.cpuprofile');
    fs.mkdirSync(path.dirname(dest), { recursive: true });
    fs.copyFileSync(path.join(profDir, files[0]), dest);
    const summary = summarizeProfile(dest, 30);
    results.profile = { file: dest, ...summary };
    printProfile(summary, log);
    log(`(profile saved to ${dest}; open it in Chrome DevTools or run node tools/bench/lib/profile.mjs ${dest})`);
  } else {
    warn('no .cpuprofile written: the service must exit through process.exit()/normal exit on SIGTERM');
  }
  fs.rmSync(profDir, { recursive: true, force: true });
}

results.machine.loadAvgEnd = os.loadavg();
// The benchmark itself (service + load generator) accounts for up to ~2 of the load average.
if (Math.max(results.machine.loadAvgStart[0], results.machine.loadAvgEnd[0]) > results.machine.cpus + 2) {
  warn(`machine busy: 1-min load average ${results.machine.loadAvgStart[0].toFixed(1)} at start, ${results.machine.loadAvgEnd[0].toFixed(1)} at end on ${results.machine.cpus} CPUs; latencies include waiting for a CPU (CPU-second figures are less affected)`);
}
const md = report();
log('\n' + md + '\n');
fs.mkdirSync(path.dirname(opts.out), { recursive: true });
fs.writeFileSync(opts.out, JSON.stringify(results, null, 2));
log(`results written to ${path.relative(process.cwd(), opts.out) || opts.out}`);
process.exit(exitCode);
