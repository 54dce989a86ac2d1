#!/usr/bin/env node
/**
 * Model-based durability run against the real, built node (apps/host/dist/main.cjs).
 *
 * Seeded random sequences of operations — index, _create, _update with partial documents (also
 * doc_as_upsert), delete, _bulk mixing them, documents whose field sets grow and shrink, refresh, flush,
 * force-merge, close/open, delete and re-create of indices — interleaved with graceful restarts (SIGTERM)
 * and kill -9 of the node process, some of them with operations in flight. A model holds what every
 * acknowledged operation must have left behind. After every restart (and at the end of every sequence) the
 * node is compared with the model: every document by _mget and by a full search walk (source, _version,
 * _seq_no), `_count`, that deletes stay deleted, that closed indices stay closed and deleted ones stay gone.
 * Operations in flight at a kill may go either way; each resolves to its before or after state, never a
 * third. The node's log must never say it failed to open a shard or accepted an older writer's checksum.
 *
 *   node tools/durability/model-run.mjs [--seed N] [--sequences N] [--steps N] [--time-limit S]
 *                                        [--restart-every N] [--data-root DIR] [--keep] [--verbose]
 *
 * --sequences: sequences to run (each 5..--steps operations, then a check); --time-limit stops earlier
 * (seconds); --restart-every: on average one restart every N sequences (half graceful, half kill -9);
 * --data-root: where the node's data directory is made (default the OS temp dir; /dev/shm makes fsync cheap,
 * which a kill -9 test does not need: the page cache outlives the process).
 * Prints one JSON summary line last; exit code 1 on any divergence.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { requestJson } from '../bench/lib/service.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bundle = join(repoRoot, 'apps/host/dist/main.cjs');

// ------------------------------------------------------------------ options

function parseArgs(argv) {
  const o = { seed: Date.now() % 1_000_000, sequences: 300, steps: 25, timeLimit: 600, restartEvery: 3, keep: false, verbose: false, build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--seed') o.seed = Number(next());
    else if (a === '--sequences') o.sequences = Number(next());
    else if (a === '--steps') o.steps = Number(next());
    else if (a === '--time-limit') o.timeLimit = Number(next());
    else if (a === '--restart-every') o.restartEvery = Number(next());
    else if (a === '--keep') o.keep = true;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--no-build') o.build = false;
    else if (a === '--data-root') o.dataRoot = next();
    else throw new Error(`unknown option ${a}`);
  }
  return o;
}

// ------------------------------------------------------------------ seeded randomness

function rng(seed) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    weighted: (table) => {
      const total = table.reduce((a, [w]) => a + w, 0);
      let x = next() * total;
      for (const [w, v] of table) if ((x -= w) < 0) return v;
      return table[table.length - 1][1];
    },
  };
}

// ------------------------------------------------------------------ the node process

class Node {
  constructor(dataPath) {
    this.dataPath = dataPath;
    this.child = null;
    this.url = null;
    this.badLog = [];
  }

  start() {
    return new Promise((res, rej) => {
      const env = { ...process.env };
      delete env.JEST_WORKER_ID;
      const child = spawn(process.execPath, [bundle, '-E', 'http.port=0', '-E', `path.data=${this.dataPath}`, '-E', 'xpack.security.enabled=false'], {
        stdio: ['ignore', 'pipe', 'pipe'],
        env,
        cwd: repoRoot,
      });
      this.child = child;
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += String(d)));
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        rej(new Error(`node did not start: ${stderr}`));
      }, 30_000);
      createInterface({ input: child.stdout }).on('line', (line) => {
        let o;
        try {
          o = JSON.parse(line);
        } catch {
          return;
        }
        const msg = String(o.message ?? o.msg ?? '');
        if (/failed to open shard|older writer|failed to replay|flush failed/.test(msg)) this.badLog.push(`${msg} ${JSON.stringify(o)}`);
        if (msg.startsWith('started') && typeof o.url === 'string') {
          clearTimeout(timer);
          this.url = o.url;
          res();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        if (!this.url) rej(new Error(`node exited with ${code}: ${stderr}`));
      });
    });
  }

  stop(signal) {
    const child = this.child;
    this.child = null;
    this.url = null;
    return new Promise((res) => {
      if (!child || child.exitCode !== null || child.signalCode !== null) return res();
      child.once('exit', () => res());
      child.kill(signal);
    });
  }
}

// ------------------------------------------------------------------ HTTP

function call(node, method, path, body, ndjson = false) {
  return requestJson(node.url, method, path, body, ndjson);
}

// ------------------------------------------------------------------ the model

const INDICES = ['m0', 'm1', 'm2'];
const IDS = Array.from({ length: 30 }, (_, i) => `k${i}`);

/** ES partial-update merge: objects merge recursively, everything else replaces */
function merge(base, part) {
  const out = { ...base };
  for (const [k, v] of Object.entries(part)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && out[k] && typeof out[k] === 'object' && !Array.isArray(out[k])) out[k] = merge(out[k], v);
    else out[k] = v;
  }
  return out;
}

/** a document with a random subset of fields (types fixed per field name, so mappings never conflict) */
function randomDoc(r, partial = false) {
  const doc = {};
  const fields = {
    a: () => r.int(-1000, 1000),
    b: () => r.pick(['red', 'green', 'blue', 'x y', 'ünï', '']),
    t: () => Array.from({ length: r.int(1, 5) }, () => r.pick(['quick', 'brown', 'fox', 'lazy', 'dog', 'jumps'])).join(' '),
    o: () => (partial && r.chance(0.5) ? { x: r.int(0, 9) } : { x: r.int(0, 9), y: r.pick(['p', 'q']) }),
    arr: () => Array.from({ length: r.int(0, 3) }, () => r.int(0, 50)),
    flag: () => r.chance(0.5),
    d: () => `2024-0${r.int(1, 9)}-1${r.int(0, 9)}T0${r.int(0, 9)}:00:00Z`,
    ip: () => r.pick(['10.0.0.1', '192.168.1.7', '::1', '2001:db8::5']),
  };
  const names = Object.keys(fields);
  const n = partial ? r.int(1, 2) : r.int(0, names.length);
  for (let i = 0; i < n; i++) {
    const f = r.pick(names);
    doc[f] = fields[f]();
  }
  return doc;
}

class Model {
  constructor() {
    /** name → { open, docs: Map<id,{source,version,seqNo}>, tomb: Map<id, version> } */
    this.indices = new Map();
  }
  index(name) {
    return this.indices.get(name);
  }
  live(name, id) {
    return this.indices.get(name)?.docs.get(id);
  }
}

// ------------------------------------------------------------------ the run

class Divergence extends Error {}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.build) execFileSync(process.execPath, [join(repoRoot, 'tools/scripts/build-host.mjs')], { stdio: 'ignore' });
  const dataPath = mkdtempSync(join(opts.dataRoot ?? tmpdir(), 'strata-model-'));
  const r = rng(opts.seed);
  const model = new Model();
  const node = new Node(dataPath);
  const stats = { seed: opts.seed, sequences: 0, steps: 0, restarts: 0, graceful: 0, kill9: 0, inFlightAtKill: 0, inFlightApplied: 0, checks: 0, docsChecked: 0, divergences: 0 };
  const t0 = Date.now();
  const log = (...a) => opts.verbose && console.error(...a);
  let step = 0;
  const fail = (what, detail) => {
    throw new Divergence(`step ${step} (seed ${opts.seed}): ${what}${detail === undefined ? '' : ` — ${JSON.stringify(detail)}`}`);
  };

  await node.start();
  const forceMergeProbe = await call(node, 'POST', '/_forcemerge?max_num_segments=1');
  const canForceMerge = forceMergeProbe.status === 200;

  // ---------------------------------------------------------------- expectations for one write

  /** checks one acknowledged write result against the model and applies it */
  function applyWrite(op, res) {
    const m = model.index(op.index);
    const cur = m?.open ? m.docs.get(op.id) : undefined;
    const tomb = m?.tomb.get(op.id);
    // a write to a deleted (or never written) id starts at 1, or continues a tombstone the node still holds
    // ('unknown': an unacknowledged delete of a missing doc at a kill may or may not have left one)
    const versionAfterGap = (v) => v === 1 || (tomb === 'unknown' ? Number.isInteger(v) && v > 1 : tomb !== undefined && v === tomb + 1);
    const status = res.status;
    const body = res.body;
    if (!m || !m.open) {
      if (!m && op.kind !== 'delete') {
        // auto-create: an index/create/update request for a missing index creates it (then 404 for an
        // update without upsert: document_missing_exception)
        model.indices.set(op.index, { open: true, docs: new Map(), tomb: new Map() });
        return applyWrite(op, res);
      }
      if (!m) {
        if (status !== 404 || body?.error?.type !== 'index_not_found_exception') fail(`${op.kind} on missing index should be 404`, { op, status, body });
        return;
      }
      if (status !== 400 || body?.error?.type !== 'index_closed_exception') fail(`${op.kind} on closed index should be index_closed_exception`, { op, status, body });
      return;
    }
    switch (op.kind) {
      case 'index': {
        const expected = cur ? 200 : 201;
        if (status !== expected || body.result !== (cur ? 'updated' : 'created')) fail('index result', { op, expected, status, body });
        if (cur ? body._version !== cur.version + 1 : !versionAfterGap(body._version)) fail('index version', { op, cur, tomb, body });
        if (cur && !(body._seq_no > cur.seqNo)) fail('index seq_no not increasing', { op, cur, body });
        m.docs.set(op.id, { source: op.doc, version: body._version, seqNo: body._seq_no });
        m.tomb.delete(op.id);
        return;
      }
      case 'create': {
        if (cur) {
          if (status !== 409 || body?.error?.type !== 'version_conflict_engine_exception') fail('create of a live doc should conflict', { op, status, body });
          return;
        }
        if (status !== 201 || body.result !== 'created' || !versionAfterGap(body._version)) fail('create result', { op, tomb, status, body });
        m.docs.set(op.id, { source: op.doc, version: body._version, seqNo: body._seq_no });
        m.tomb.delete(op.id);
        return;
      }
      case 'update': {
        if (!cur) {
          if (op.upsert) {
            if (status !== 201 || body.result !== 'created' || !versionAfterGap(body._version)) fail('upsert result', { op, tomb, status, body });
            m.docs.set(op.id, { source: op.doc, version: body._version, seqNo: body._seq_no });
            m.tomb.delete(op.id);
            return;
          }
          if (status !== 404 || body?.error?.type !== 'document_missing_exception') fail('update of a missing doc should be document_missing_exception', { op, status, body });
          return;
        }
        const merged = merge(cur.source, op.doc);
        if (isDeepStrictEqual(merged, cur.source)) {
          if (status !== 200 || body.result !== 'noop' || body._version !== cur.version) fail('noop update', { op, cur, status, body });
          return;
        }
        if (status !== 200 || body.result !== 'updated' || body._version !== cur.version + 1 || !(body._seq_no > cur.seqNo)) fail('update result', { op, cur, status, body });
        m.docs.set(op.id, { source: merged, version: body._version, seqNo: body._seq_no });
        return;
      }
      case 'delete': {
        if (!cur) {
          if (status !== 404 || body.result !== 'not_found' || !versionAfterGap(body._version)) fail('delete of a missing doc should be not_found', { op, tomb, status, body });
          // Elasticsearch keeps a tombstone for a delete of a missing document too
          m.tomb.set(op.id, body._version);
          return;
        }
        if (status !== 200 || body.result !== 'deleted' || body._version !== cur.version + 1) fail('delete result', { op, cur, status, body });
        m.docs.delete(op.id);
        m.tomb.set(op.id, body._version);
        return;
      }
    }
  }

  function randomWrite(allowMissing = true) {
    const names = allowMissing ? INDICES : INDICES.filter((n) => model.index(n)?.open);
    if (names.length === 0) return null;
    const index = r.pick(names);
    const id = r.pick(IDS);
    const kind = r.weighted([
      [5, 'index'],
      [2, 'create'],
      [4, 'update'],
      [2, 'delete'],
    ]);
    if (kind === 'update') return { kind, index, id, doc: randomDoc(r, true), upsert: r.chance(0.3) };
    if (kind === 'delete') return { kind, index, id };
    return { kind, index, id, doc: randomDoc(r) };
  }

  function request(op) {
    const id = encodeURIComponent(op.id);
    const refresh = r.weighted([
      [16, ''],
      [3, '?refresh=true'],
      [1, '?refresh=wait_for'],
    ]);
    switch (op.kind) {
      case 'index':
        return ['PUT', `/${op.index}/_doc/${id}${refresh}`, op.doc];
      case 'create':
        return ['PUT', `/${op.index}/_create/${id}${refresh}`, op.doc];
      case 'update':
        return ['POST', `/${op.index}/_update/${id}${refresh}`, op.upsert ? { doc: op.doc, doc_as_upsert: true } : { doc: op.doc }];
      case 'delete':
        return ['DELETE', `/${op.index}/_doc/${id}${refresh}`, undefined];
    }
  }

  async function single(op) {
    const [method, path, body] = request(op);
    const res = await call(node, method, path, body);
    applyWrite(op, { status: res.status, body: res.json });
  }

  async function bulk() {
    const ops = [];
    for (let i = r.int(1, 12); i > 0; i--) {
      const op = randomWrite(false);
      if (op) ops.push(op);
    }
    if (ops.length === 0) return;
    const lines = [];
    for (const op of ops) {
      const meta = { _index: op.index, _id: op.id };
      if (op.kind === 'update') lines.push(JSON.stringify({ update: meta }), JSON.stringify(op.upsert ? { doc: op.doc, doc_as_upsert: true } : { doc: op.doc }));
      else if (op.kind === 'delete') lines.push(JSON.stringify({ delete: meta }));
      else lines.push(JSON.stringify({ [op.kind]: meta }), JSON.stringify(op.doc));
    }
    const res = await call(node, 'POST', `/_bulk${r.pick(['', '?refresh=true'])}`, lines.join('\n') + '\n', true);
    if (res.status !== 200) fail('bulk status', { status: res.status, body: res.json });
    const items = res.json.items;
    if (items.length !== ops.length) fail('bulk item count', { ops: ops.length, items: items.length });
    ops.forEach((op, i) => {
      const it = items[i][op.kind];
      if (!it) fail('bulk item kind', { op, item: items[i] });
      applyWrite(op, { status: it.status, body: it });
    });
  }

  // ---------------------------------------------------------------- index-level operations

  async function createIndex(name) {
    const settings = { number_of_shards: r.int(1, 3), number_of_replicas: 0, refresh_interval: r.pick(['300ms', '-1', '100ms']) };
    const res = await call(node, 'PUT', `/${name}`, { settings });
    if (res.status !== 200) fail(`create index ${name}`, res.json);
    model.indices.set(name, { open: true, docs: new Map(), tomb: new Map() });
  }

  async function indexOp() {
    const name = r.pick(INDICES);
    const m = model.index(name);
    const what = r.weighted([
      [3, 'refresh'],
      [3, 'flush'],
      [canForceMerge ? 2 : 0, 'forcemerge'],
      [1, 'close'],
      [1, 'delete'],
      [2, 'create'],
    ]);
    if (what === 'create') {
      const res = await call(node, 'PUT', `/${name}`, { settings: { number_of_shards: r.int(1, 3), number_of_replicas: 0 } });
      if (m) {
        if (res.status !== 400 || res.json?.error?.type !== 'resource_already_exists_exception') fail('create of an existing index', res.json);
      } else {
        if (res.status !== 200) fail('create index', res.json);
        model.indices.set(name, { open: true, docs: new Map(), tomb: new Map() });
      }
      return;
    }
    if (!m) {
      const res = await call(node, what === 'delete' ? 'DELETE' : 'POST', what === 'delete' ? `/${name}` : `/${name}/_${what}`);
      if (res.status !== 404 || res.json?.error?.type !== 'index_not_found_exception') fail(`${what} of a missing index`, res.json);
      return;
    }
    if (what === 'delete') {
      const res = await call(node, 'DELETE', `/${name}`);
      if (res.status !== 200) fail('delete index', res.json);
      model.indices.delete(name);
      return;
    }
    if (what === 'close') {
      const res = await call(node, 'POST', `/${name}/${m.open ? '_close' : '_open'}`);
      if (res.status !== 200 || res.json?.acknowledged !== true) fail(`${m.open ? 'close' : 'open'} index`, res.json);
      m.open = !m.open;
      return;
    }
    const path = what === 'forcemerge' ? `/${name}/_forcemerge?max_num_segments=${r.int(1, 2)}` : `/${name}/_${what}`;
    const res = await call(node, 'POST', path);
    if (m.open ? res.status !== 200 : res.status !== 400) fail(`${what} (${m.open ? 'open' : 'closed'} index)`, { status: res.status, body: res.json });
  }

  // ---------------------------------------------------------------- comparing node and model

  async function check(reason) {
    stats.checks++;
    for (const name of INDICES) {
      const m = model.index(name);
      const head = await call(node, 'GET', `/${name}/_settings`);
      if (!m) {
        if (head.status !== 404) fail(`${reason}: deleted index ${name} is back`, head.json);
        continue;
      }
      if (head.status !== 200) fail(`${reason}: index ${name} is missing`, head.json);
      const state = (await call(node, 'GET', `/_cat/indices/${name}?h=status`)).text.trim();
      if (state !== (m.open ? 'open' : 'close')) fail(`${reason}: index ${name} is ${state}, model says ${m.open ? 'open' : 'close'}`);
      if (!m.open) continue;
      const health = await call(node, 'GET', `/_cluster/health/${name}`);
      if (health.json?.status === 'red' || !health.json?.status) fail(`${reason}: index ${name} health`, health.json);
      await call(node, 'POST', `/${name}/_refresh`);
      const count = await call(node, 'GET', `/${name}/_count`);
      if (count.json?.count !== m.docs.size) fail(`${reason}: ${name} _count`, { node: count.json, model: m.docs.size });
      const mget = await call(node, 'POST', `/${name}/_mget`, { ids: IDS });
      for (const d of mget.json.docs) {
        const want = m.docs.get(d._id);
        stats.docsChecked++;
        if (!want) {
          if (d.found) fail(`${reason}: ${name}/${d._id} should not exist (deleted or never written)`, d);
          continue;
        }
        if (!d.found || !isDeepStrictEqual(d._source, want.source) || d._version !== want.version || d._seq_no !== want.seqNo) {
          fail(`${reason}: ${name}/${d._id} by GET`, { node: d, model: want });
        }
      }
      const all = await call(node, 'POST', `/${name}/_search?version=true&seq_no_primary_term=true`, { size: 10000, query: { match_all: {} } });
      if (all.json?._shards?.failed !== 0) fail(`${reason}: ${name} search had shard failures`, all.json?._shards);
      const seen = new Set();
      for (const h of all.json.hits.hits) {
        const want = m.docs.get(h._id);
        if (seen.has(h._id)) fail(`${reason}: ${name}/${h._id} twice in a search`);
        seen.add(h._id);
        if (!want || !isDeepStrictEqual(h._source, want.source) || h._version !== want.version || h._seq_no !== want.seqNo) {
          fail(`${reason}: ${name}/${h._id} by search`, { node: h, model: want ?? null });
        }
      }
      if (seen.size !== m.docs.size) fail(`${reason}: ${name} search walk found ${seen.size} docs, model ${m.docs.size}`);
    }
    if (node.badLog.length) fail(`${reason}: the node logged`, node.badLog);
  }

  // ---------------------------------------------------------------- restarts

  async function restart(kind) {
    stats.restarts++;
    const inFlight = [];
    if (kind === 'kill') {
      stats.kill9++;
      // operations in flight at the kill: distinct documents, each resolves to before or after
      const used = new Set();
      for (let i = r.int(0, 6); i > 0; i--) {
        const op = randomWrite(false);
        if (!op || op.kind === 'create' || used.has(`${op.index}/${op.id}`)) continue;
        used.add(`${op.index}/${op.id}`);
        const m = model.index(op.index);
        const before = m.docs.get(op.id) ?? null;
        let after;
        if (op.kind === 'delete') after = null;
        else if (op.kind === 'index') after = op.doc;
        else if (before) after = merge(before.source, op.doc);
        else if (op.upsert) after = op.doc;
        else continue;
        const [method, path, body] = request(op);
        const p = call(node, method, path, body).then(
          (res) => ({ acked: true, res }),
          () => ({ acked: false }),
        );
        inFlight.push({ op, before, after, p });
      }
      stats.inFlightAtKill += inFlight.length;
      await new Promise((res) => setTimeout(res, r.int(0, 15)));
      await node.stop('SIGKILL');
    } else {
      stats.graceful++;
      await node.stop('SIGTERM');
    }
    await node.start();
    for (const f of inFlight) {
      const out = await f.p;
      if (out.acked) {
        applyWrite(f.op, { status: out.res.status, body: out.res.json });
        continue;
      }
      // unacknowledged: the document is in its before or its after state
      const m = model.index(f.op.index);
      const g = await call(node, 'GET', `/${f.op.index}/_doc/${encodeURIComponent(f.op.id)}`);
      const src = g.json?.found ? g.json._source : null;
      const isBefore = f.before ? src !== null && isDeepStrictEqual(src, f.before.source) && g.json._version === f.before.version : src === null;
      const isAfter = f.after === null ? src === null : src !== null && isDeepStrictEqual(src, f.after);
      if (isBefore) {
        if (!f.before && f.op.kind === 'delete') m.tomb.set(f.op.id, 'unknown');
        continue;
      }
      if (!isAfter) fail('an operation in flight at the kill left a third state', { op: f.op, before: f.before, after: f.after, node: g.json });
      stats.inFlightApplied++;
      if (f.after === null) {
        m.docs.delete(f.op.id);
        m.tomb.set(f.op.id, (f.before?.version ?? 0) + 1);
      } else {
        if (f.before && g.json._version !== f.before.version + 1) fail('in-flight write applied with a wrong version', { op: f.op, before: f.before, node: g.json });
        m.docs.set(f.op.id, { source: f.after, version: g.json._version, seqNo: g.json._seq_no });
        m.tomb.delete(f.op.id);
      }
    }
    await check(kind === 'kill' ? 'after kill -9' : 'after graceful restart');
  }

  // ---------------------------------------------------------------- main loop

  let error = null;
  try {
    for (const name of INDICES) if (r.chance(0.7)) await createIndex(name);
    for (let seq = 0; seq < opts.sequences; seq++) {
      if ((Date.now() - t0) / 1000 > opts.timeLimit) break;
      const n = r.int(5, Math.max(5, opts.steps));
      for (let i = 0; i < n; i++) {
        step++;
        stats.steps++;
        const what = r.weighted([
          [10, 'write'],
          [3, 'bulk'],
          [2, 'index-op'],
        ]);
        if (what === 'write') {
          const op = randomWrite(true);
          if (op) await single(op);
        } else if (what === 'bulk') await bulk();
        else await indexOp();
      }
      stats.sequences++;
      if (r.chance(1 / Math.max(1, opts.restartEvery))) await restart(r.chance(0.5) ? 'kill' : 'graceful');
      else await check('end of sequence');
      log(`sequence ${seq} done: ${stats.steps} steps, ${stats.restarts} restarts`);
    }
    // always end with both kinds of restart
    await restart('kill');
    await restart('graceful');
  } catch (e) {
    error = e;
    stats.divergences++;
  } finally {
    await node.stop('SIGKILL');
    if (!opts.keep) rmSync(dataPath, { recursive: true, force: true });
  }
  stats.seconds = Math.round((Date.now() - t0) / 100) / 10;
  if (error) {
    console.error(error instanceof Divergence ? `DIVERGENCE ${error.message}` : error);
    if (opts.keep) console.error(`data kept in ${dataPath}`);
  }
  console.log(JSON.stringify(stats));
  process.exit(error ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
