#!/usr/bin/env node
/**
 * Crash trials under sustained _bulk load: several clients send bulks of index, partial-update and delete
 * operations; the node is killed with -9 at a random moment, in some trials the last translog generation of
 * every shard gets a torn tail (random bytes after the last whole frame, as a power cut in the middle of a
 * write leaves it); the node is restarted and every document is compared with a model by content: each
 * acknowledged operation is there unless a later one on the same id replaced it; an operation in flight at
 * the kill may be there or not. Reports per trial: acknowledged operations, in flight at the kill, lost,
 * restart ms (process start to listening), the translog replay the node logged (operations replayed, how
 * many were indexed — an op replaced later in the translog is not —, ops per second of wall time and per
 * second of the node's CPU time, which the machine's load does not stretch) and the 1-minute load average.
 *
 *   node tools/durability/crash-bulk.mjs [--trials N] [--seed N] [--clients N] [--bulk N] [--ids N]
 *        [--min-ms N] [--max-ms N] [--tear-every N] [--data-root DIR] [--no-build] [--keep] [--verbose]
 *
 * --trials (default 6); --clients concurrent bulk clients (4); --bulk operations per bulk (500); --ids
 * distinct ids (20000); --min-ms/--max-ms how long the load runs before the kill (2000..5000); --tear-every:
 * a torn tail in every Nth trial (2; 0 = never); --data-root: where the data directory goes (/dev/shm keeps
 * fsync cheap; a kill -9 does not need the disk). Prints a table, then one JSON summary line; exit 1 when
 * anything acknowledged is lost.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parseArgs } from '../bench/lib/args.mjs';
import { createRng } from '../bench/lib/prng.mjs';
import { REPO_ROOT, parseNodeLog, requestJson, startService } from '../bench/lib/service.mjs';

const INDEX = 'crash-bulk';
const USAGE = 'node tools/durability/crash-bulk.mjs [--trials N] [--seed N] [--clients N] [--bulk N] [--ids N] [--min-ms N] [--max-ms N] [--tear-every N] [--data-root DIR] [--no-build] [--keep] [--verbose]';

function rng(seed) {
  const r = createRng(seed);
  return { next: r.next, int: (lo, hi) => lo + r.int(hi - lo + 1) };
}

/** the node process: restarted on the same data path, killed with -9; keeps what recovery logged */
class Node {
  constructor(dataPath) {
    this.dataPath = dataPath;
    this.svc = null;
    this.url = null;
    this.replays = [];
    this.badLog = [];
    this.starts = 0;
  }

  /** starts the node; resolves with the ms from spawn to the first answer (recovery included) */
  async start() {
    const logFile = join(this.dataPath, `..`, `${this.dataPath.split('/').pop()}-${++this.starts}.log`);
    this.svc = await startService({ dataDir: this.dataPath, logFile, timeoutMs: 120_000 });
    this.url = this.svc.url;
    const log = parseNodeLog(readFileSync(logFile, 'utf8'));
    this.replays.push(...log.replays);
    for (const { msg, o } of log.lines) {
      if (/failed to open shard|failed to replay|flush failed/.test(msg)) this.badLog.push(`${msg} ${JSON.stringify(o)}`);
    }
    rmSync(logFile, { force: true });
    return this.svc.startupMs;
  }

  async kill() {
    const svc = this.svc;
    this.svc = null;
    this.url = null;
    if (!svc || svc.exited) return;
    process.kill(svc.pid, 'SIGKILL');
    while (!svc.exited) await new Promise((r) => setTimeout(r, 5));
  }
}

function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function call(node, method, path, body, ndjson = false) {
  const r = await requestJson(node.url, method, path, body, ndjson);
  if (r.text && r.json === undefined) throw new Error(`${method} ${path}: not JSON: ${r.text.slice(0, 200)}`);
  return r;
}

/** per id: the acknowledged state and the states operations in flight may leave behind */
class Model {
  constructor() {
    this.acked = new Map(); // id -> source | null
    this.inFlight = new Map(); // id -> [state after op 1, after op 2, ...] of a bulk not yet answered
  }
  state(id) {
    return this.acked.has(id) ? this.acked.get(id) : null;
  }
  candidates(id) {
    return [this.state(id), ...(this.inFlight.get(id) ?? [])];
  }
}

/** the next state of a document after an operation */
function apply(state, op) {
  if (op.kind === 'delete') return null;
  if (op.kind === 'index') return op.source;
  return { ...(state ?? {}), ...op.doc };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2), { trials: 6, seed: 1, clients: 4, bulk: 500, ids: 20000, minMs: 2000, maxMs: 5000, tearEvery: 2, dataRoot: tmpdir(), build: true, keep: false, verbose: false }, USAGE);
  if (opts.build) execFileSync(process.execPath, [join(REPO_ROOT, 'tools/scripts/build-host.mjs')], { stdio: 'ignore' });
  const dataPath = mkdtempSync(join(opts.dataRoot, 'strata-crash-bulk-'));
  const r = rng(opts.seed);
  const model = new Model();
  const node = new Node(dataPath);
  const rows = [];
  let counter = 0;
  let totalLost = 0;
  try {
    await node.start();
    const created = await call(node, 'PUT', `/${INDEX}`, { settings: { number_of_shards: 2, 'index.translog.durability': 'request' }, mappings: { properties: { n: { type: 'long' }, tag: { type: 'keyword' }, text: { type: 'text' } } } });
    if (created.status !== 200) throw new Error(`create index: ${JSON.stringify(created.json)}`);

    for (let trial = 1; trial <= opts.trials; trial++) {
      let stop = false;
      let acked = 0;
      let bulks = 0;
      let rejectedItems = 0;
      const clientLoop = async (c) => {
        while (!stop) {
          const ops = [];
          for (let i = 0; i < opts.bulk; i++) {
            // ids are partitioned by client, so the operations on one id are sequential
            const id = String(c + opts.clients * r.int(0, Math.floor(opts.ids / opts.clients) - 1));
            const p = r.next();
            const n = ++counter;
            if (p < 0.5) ops.push({ id, kind: 'index', source: { n, tag: `t${n % 7}`, text: `document ${id} version ${n}` } });
            else if (p < 0.8) ops.push({ id, kind: 'update', doc: { n, [`f${n % 5}`]: n } });
            else ops.push({ id, kind: 'delete' });
          }
          const lines = [];
          const pending = new Map();
          for (const op of ops) {
            if (op.kind === 'index') lines.push(JSON.stringify({ index: { _index: INDEX, _id: op.id } }), JSON.stringify(op.source));
            else if (op.kind === 'update') lines.push(JSON.stringify({ update: { _index: INDEX, _id: op.id } }), JSON.stringify({ doc: op.doc, doc_as_upsert: true }));
            else lines.push(JSON.stringify({ delete: { _index: INDEX, _id: op.id } }));
            const prev = pending.has(op.id) ? pending.get(op.id).at(-1) : model.state(op.id);
            const list = pending.get(op.id) ?? [];
            list.push(apply(prev, op));
            pending.set(op.id, list);
          }
          for (const [id, list] of pending) model.inFlight.set(id, list);
          let res;
          try {
            res = await call(node, 'POST', '/_bulk', lines.join('\n') + '\n', true);
          } catch {
            return; // the node was killed: these operations stay "in flight"
          }
          if (res.status !== 200) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
          bulks++;
          // items apply in order; a failed item (429) leaves its document as it was
          res.json.items.forEach((item, i) => {
            const op = ops[i];
            const v = Object.values(item)[0];
            const ok = v.status < 300 || (op.kind === 'delete' && v.status === 404);
            if (!ok) {
              rejectedItems++;
              return;
            }
            model.acked.set(op.id, apply(model.state(op.id), op));
            acked++;
          });
          for (const id of pending.keys()) model.inFlight.delete(id);
        }
      };
      const clients = Array.from({ length: opts.clients }, (_, c) => clientLoop(c));
      await new Promise((res) => setTimeout(res, r.int(opts.minMs, opts.maxMs)));
      const inFlightIds = () => [...model.inFlight.keys()].length;
      await node.kill();
      stop = true;
      await Promise.all(clients);
      const inFlight = inFlightIds();

      const torn = opts.tearEvery > 0 && trial % opts.tearEvery === 0;
      let tornFiles = 0;
      if (torn) {
        // the newest translog generation of every shard gets garbage after its last whole frame
        const walk = (dir) => {
          for (const e of readdirSync(dir, { withFileTypes: true })) {
            const p = join(dir, e.name);
            if (e.isDirectory()) {
              if (e.name === 'translog') {
                const gens = readdirSync(p).filter((f) => /^translog-\d+\.tlog$/.test(f)).sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]));
                const last = gens.at(-1);
                if (last) {
                  const bytes = Buffer.alloc(r.int(1, 300));
                  for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(0, 255);
                  // sometimes a plausible frame start: a length prefix promising more than is there
                  if (bytes.length >= 4 && r.next() < 0.5) bytes.writeUInt32LE(bytes.length + r.int(1, 4096), 0);
                  appendFileSync(join(p, last), bytes);
                  tornFiles++;
                }
              } else walk(p);
            }
          }
        };
        walk(join(dataPath, 'indices'));
      }

      node.replays = [];
      const load = loadavg()[0];
      const restartMs = await node.start();
      const health = await call(node, 'GET', `/_cluster/health/${INDEX}?wait_for_status=yellow&timeout=60s`);
      if (health.json?.status === 'red' || health.json?.timed_out) throw new Error(`index not recovered: ${JSON.stringify(health.json)}`);
      await call(node, 'POST', `/${INDEX}/_refresh`);

      // every id ever touched, by content
      let lost = 0;
      let checked = 0;
      const ids = [...new Set([...model.acked.keys(), ...model.inFlight.keys()])];
      const firstLost = [];
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000);
        const got = await call(node, 'POST', `/${INDEX}/_mget`, { ids: chunk });
        for (const d of got.json.docs) {
          const actual = d.found ? d._source : null;
          checked++;
          if (!model.candidates(d._id).some((c) => isDeepStrictEqual(c, actual))) {
            lost++;
            if (firstLost.length < 5) firstLost.push({ id: d._id, actual, expected: model.candidates(d._id) });
          }
        }
      }
      // what the node now holds becomes the acknowledged state of the in-flight ids
      for (let i = 0; i < ids.length; i += 1000) {
        const chunk = ids.slice(i, i + 1000).filter((id) => model.inFlight.has(id));
        if (chunk.length === 0) continue;
        const got = await call(node, 'POST', `/${INDEX}/_mget`, { ids: chunk });
        for (const d of got.json.docs) model.acked.set(d._id, d.found ? d._source : null);
      }
      model.inFlight.clear();
      const count = await call(node, 'GET', `/${INDEX}/_count`);
      const live = [...model.acked.values()].filter((v) => v !== null).length;
      if (count.json.count !== live) {
        lost++;
        firstLost.push({ count: count.json.count, modelLive: live });
      }
      totalLost += lost;
      const replayOps = node.replays.reduce((s, x) => s + x.ops, 0);
      const replayMs = node.replays.reduce((s, x) => s + x.ms, 0);
      const replayCpuMs = node.replays.reduce((s, x) => s + x.cpuMs, 0);
      const row = {
        trial,
        torn: torn ? tornFiles : 0,
        bulks,
        acked,
        rejectedItems,
        inFlight,
        checked,
        lost,
        restartMs: Math.round(restartMs),
        replayedOps: replayOps,
        indexedOps: node.replays.reduce((s, x) => s + x.indexed, 0),
        replayOpsPerSec: replayMs > 0 ? Math.round(replayOps / (replayMs / 1000)) : null,
        replayOpsPerCpuSec: replayCpuMs > 0 ? Math.round(replayOps / (replayCpuMs / 1000)) : null,
        load: Math.round(load * 10) / 10,
      };
      rows.push(row);
      if (opts.verbose || lost > 0) console.error(JSON.stringify({ ...row, firstLost }));
      if (node.badLog.length) console.error(node.badLog.join('\n'));
    }
  } finally {
    await node.kill();
    if (!opts.keep) rmSync(dataPath, { recursive: true, force: true });
    else console.error(`data kept in ${dataPath}`);
  }
  console.log('trial  torn   bulks   acked  in-flight  checked  lost  restart ms  replayed ops  indexed  replay ops/s  per cpu-s  load');
  for (const x of rows) {
    console.log(
      `${String(x.trial).padStart(5)} ${String(x.torn).padStart(5)} ${String(x.bulks).padStart(7)} ${String(x.acked).padStart(7)} ${String(x.inFlight).padStart(10)} ${String(x.checked).padStart(8)} ${String(x.lost).padStart(5)} ${String(x.restartMs).padStart(11)} ${String(x.replayedOps).padStart(13)} ${String(x.indexedOps).padStart(8)} ${String(x.replayOpsPerSec ?? '-').padStart(13)} ${String(x.replayOpsPerCpuSec ?? '-').padStart(10)} ${String(x.load).padStart(5)}`,
    );
  }
  const totalReplayOps = rows.reduce((s, x) => s + x.replayedOps, 0);
  const summary = {
    seed: opts.seed,
    trials: rows.length,
    tornTrials: rows.filter((x) => x.torn > 0).length,
    acked: rows.reduce((s, x) => s + x.acked, 0),
    lost: totalLost,
    restartMsMax: Math.max(...rows.map((x) => x.restartMs)),
    restartMsMedian: rows.map((x) => x.restartMs).sort((a, b) => a - b)[Math.floor(rows.length / 2)],
    replayedOps: totalReplayOps,
    replayOpsPerSecMin: Math.min(...rows.filter((x) => x.replayOpsPerSec !== null && x.replayedOps >= 1000).map((x) => x.replayOpsPerSec)),
    replayOpsPerSecMedian: median(rows.filter((x) => x.replayOpsPerSec !== null && x.replayedOps >= 1000).map((x) => x.replayOpsPerSec)),
    replayOpsPerCpuSecMedian: median(rows.filter((x) => x.replayOpsPerCpuSec !== null && x.replayedOps >= 1000).map((x) => x.replayOpsPerCpuSec)),
  };
  console.log(JSON.stringify(summary));
  process.exit(totalLost === 0 ? 0 : 1);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});

