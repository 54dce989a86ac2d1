#!/usr/bin/env node
/**
 * Translog replay rate on a large translog: indexes --docs documents with `_bulk` into an index whose
 * translog is never flushed meanwhile (refresh off, a flush threshold above the translog's size), kills
 * the node with -9, then restarts copies of that data directory --restarts times and reports what the node
 * logged for each shard's replay (`replayed translog operations`: ops, indexed, wall ms, CPU ms) and the
 * restart time (spawn to the first answer), with the 1-minute load average.
 *
 *   node tools/durability/replay-bench.mjs [--docs N] [--ids N] [--committed N] [--shards N] [--restarts N] [--seed N]
 *        [--data-root DIR] [--no-build] [--cpu-prof DIR] [--main FILE] [--compare FILE]
 *
 * --docs index operations (200000); --ids distinct ids (= --docs: append-only; fewer: overwrites);
 * --committed N: ids 0..N-1 are indexed and flushed first, so the replay looks its ids up in segments;
 * --shards (1); --restarts how many restarts of a fresh copy are measured (3); --cpu-prof writes a V8 CPU
 * profile of each restarted node into DIR; --main: the host bundle to run; --compare: a second bundle (another
 * build) that restarts its own copy of the same data after each restart of --main, back to back. Prints one JSON line per restart and a summary line.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from '../bench/lib/args.mjs';
import { createRng } from '../bench/lib/prng.mjs';
import { HOST_MAIN, REPO_ROOT, SERVICE_NODE_FLAGS, parseNodeLog, requestJson, startService } from '../bench/lib/service.mjs';

const USAGE = 'node tools/durability/replay-bench.mjs [--docs N] [--ids N] [--committed N] [--shards N] [--restarts N] [--seed N] [--data-root DIR] [--no-build] [--cpu-prof DIR] [--main FILE] [--compare FILE]';
const INDEX = 'replay-bench';

const call = requestJson;

async function main() {
  const opts = parseArgs(process.argv.slice(2), { docs: 200000, ids: 0, committed: 0, shards: 1, restarts: 3, seed: 1, dataRoot: tmpdir(), build: true, cpuProf: '', main: HOST_MAIN, compare: '' }, USAGE);
  const docs = Number(opts.docs);
  const ids = Number(opts.ids) || docs;
  if (opts.build) execFileSync(process.execPath, [join(REPO_ROOT, 'tools/scripts/build-host.mjs')], { stdio: 'ignore' });
  const root = mkdtempSync(join(opts.dataRoot, 'strata-replay-bench-'));
  const src = join(root, 'data');
  const r = createRng(Number(opts.seed));
  try {
    const svc = await startService({ main: opts.main, dataDir: src, logFile: join(root, 'load.log'), timeoutMs: 120_000 });
    const created = await call(svc.url, 'PUT', `/${INDEX}`, {
      settings: { number_of_shards: Number(opts.shards), refresh_interval: '-1', 'index.translog.flush_threshold_size': '10gb' },
      mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, text: { type: 'text' }, ts: { type: 'date' } } },
    });
    if (created.status !== 200) throw new Error(`create index: ${JSON.stringify(created.json)}`);
    const BULK = 1000;
    const load = async (from, to, idOf) => {
      for (let i = from; i < to; i += BULK) {
        const lines = [];
        for (let j = i; j < Math.min(to, i + BULK); j++) {
          const id = idOf(j);
          lines.push(JSON.stringify({ index: { _index: INDEX, _id: String(id) } }));
          lines.push(JSON.stringify({ n: j, tag: `t${j % 17}`, text: `event ${j} from host h${j % 13} user u${j % 101}`, ts: 1_700_000_000_000 + j * 1000 }));
        }
        const res = await call(svc.url, 'POST', '/_bulk', lines.join('\n') + '\n', true);
        if (res.status !== 200 || res.json.errors) throw new Error(`bulk: ${JSON.stringify(res.json).slice(0, 300)}`);
      }
    };
    // --committed: ids 0..N-1 indexed and flushed first (segments the replay must find its ids in)
    const committed = Number(opts.committed);
    if (committed > 0) {
      await load(0, committed, (j) => j);
      const fl = await call(svc.url, 'POST', `/${INDEX}/_flush`);
      if (fl.status !== 200) throw new Error(`flush: ${JSON.stringify(fl.json)}`);
    }
    await load(0, docs, (j) => (ids >= docs ? committed + j : r.int(ids)));
    process.kill(svc.pid, 'SIGKILL');
    while (!svc.exited) await new Promise((res) => setTimeout(res, 5));
    const rows = [];
    const builds = opts.compare ? [opts.main, opts.compare] : [opts.main];
    for (let k = 1; k <= Number(opts.restarts); k++) {
      for (const [b, main] of builds.entries()) {
        const copy = join(root, `copy-${k}-${b}`);
        cpSync(src, copy, { recursive: true });
        const logFile = join(root, `restart-${k}-${b}.log`);
        const nodeArgs = opts.cpuProf ? [...SERVICE_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${opts.cpuProf}`] : SERVICE_NODE_FLAGS;
        const s = await startService({ main, dataDir: copy, logFile, timeoutMs: 300_000, nodeArgs });
        const reps = parseNodeLog(readFileSync(logFile, 'utf8')).replays;
        await s.stop({ removeData: true });
        const ops = reps.reduce((a, x) => a + x.ops, 0);
        const ms = reps.reduce((a, x) => a + x.ms, 0);
        const cpuMs = reps.reduce((a, x) => a + x.cpuMs, 0);
        const row = {
          restart: k,
          build: b === 0 ? 'main' : 'compare',
          ops,
          indexed: reps.reduce((a, x) => a + x.indexed, 0),
          replay_ms: Math.round(ms),
          ops_per_s: Math.round(ops / (ms / 1000)),
          ops_per_cpu_s: Math.round(ops / (cpuMs / 1000)),
          restart_ms: Math.round(s.startupMs),
          load1: Number(loadavg()[0].toFixed(2)),
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
    for (const build of opts.compare ? ['main', 'compare'] : ['main']) {
      const mine = rows.filter((x) => x.build === build);
      const med = (k) => mine.map((x) => x[k]).sort((a, b) => a - b)[Math.floor(mine.length / 2)];
      console.log(JSON.stringify({ summary: true, build, docs, ids, committed, shards: Number(opts.shards), ops_per_s_median: med('ops_per_s'), ops_per_cpu_s_median: med('ops_per_cpu_s'), restart_ms_median: med('restart_ms') }));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
