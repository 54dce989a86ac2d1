// EQL runs over ECS-style security events, in their own index (eql-events): a basic query with a condition,
// a sequence `by host.id with maxspan=30s`, a sequence with `until`, and how a sequence's time grows with the
// number of events (the index grows from --eql-events to --eql-growth events, the same sequence measured at
// each step). Goals: basic p50 < 20 ms, each sequence p50 < 200 ms at 200k events, linear growth.
// Checks: the results are those a naive evaluation of the generated events gives.
import { createRng } from '../lib/prng.mjs';
import { measureRequest } from '../lib/measure.mjs';
import { readCpuSeconds } from '../lib/service.mjs';
import { summarize } from '../lib/stats.mjs';
import { assert } from './checks.mjs';

const INDEX = 'eql-events';
const HOSTS = 200;
const USERS = 50;
const START = Date.UTC(2026, 0, 1);
/** mean gap between events: 200k events span about 28 hours */
const GAP_MS = 500;
const PROCESSES = ['svchost.exe', 'explorer.exe', 'chrome.exe', 'cmd.exe', 'powershell.exe', 'conhost.exe', 'rundll32.exe', 'net.exe', 'whoami.exe', 'logoff.exe'];
const PROCESS_WEIGHTS = [30, 20, 20, 5, 5, 8, 4, 3, 3, 2];
const PORTS = [443, 80, 53, 22, 3389, 445, 8080];
const PORT_WEIGHTS = [45, 20, 20, 5, 3, 5, 2];

function pick(rng, values, weights) {
  const total = weights.reduce((a, b) => a + b, 0);
  let r = rng.next() * total;
  for (let i = 0; i < values.length; i++) {
    r -= weights[i];
    if (r < 0) return values[i];
  }
  return values[values.length - 1];
}

function makeEvent(rng, i) {
  const ts = START + i * GAP_MS + Math.floor(rng.next() * GAP_MS);
  const host = `host-${String(rng.int(HOSTS)).padStart(3, '0')}`;
  const user = `user-${rng.int(USERS)}`;
  const c = rng.next();
  const base = { '@timestamp': new Date(ts).toISOString(), host: { id: host }, user: { name: user }, seq: i };
  if (c < 0.45) return { ...base, event: { category: 'process', type: 'start' }, process: { name: pick(rng, PROCESSES, PROCESS_WEIGHTS), pid: 1000 + rng.int(30000) } };
  if (c < 0.75) return { ...base, event: { category: 'network' }, destination: { port: pick(rng, PORTS, PORT_WEIGHTS) }, process: { pid: 1000 + rng.int(30000) } };
  if (c < 0.92) return { ...base, event: { category: 'file', type: rng.next() < 0.5 ? 'creation' : 'deletion' }, file: { name: `f${rng.int(1000)}.tmp` } };
  return { ...base, event: { category: 'authentication', outcome: rng.next() < 0.2 ? 'failure' : 'success' } };
}

const BLOCK = 1000;

/** events [from, to): each block of 1,000 comes from its own seeded generator, so any range is reproducible */
export function* events(seed, from, to) {
  for (let b = Math.floor(from / BLOCK); b * BLOCK < to; b++) {
    const rng = createRng(`eql-${seed}-${b}`);
    for (let i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
      const e = makeEvent(rng, i);
      if (i >= from && i < to) yield e;
    }
  }
}

const MAPPING = {
  properties: {
    '@timestamp': { type: 'date' },
    event: { properties: { category: { type: 'keyword' }, type: { type: 'keyword' }, outcome: { type: 'keyword' } } },
    host: { properties: { id: { type: 'keyword' } } },
    user: { properties: { name: { type: 'keyword' } } },
    process: { properties: { name: { type: 'keyword' }, pid: { type: 'long' } } },
    destination: { properties: { port: { type: 'long' } } },
    file: { properties: { name: { type: 'keyword' } } },
    seq: { type: 'long' },
  },
};

async function load(ctx, from, to) {
  const t0 = Date.now();
  let batch = '';
  let n = 0;
  const flush = async () => {
    if (!n) return;
    const res = await ctx.client.request('POST', `/${INDEX}/_bulk`, batch, { contentType: 'application/x-ndjson' });
    assert(res.status === 200 && res.json.errors === false, `bulk -> HTTP ${res.status} ${res.text.slice(0, 200)}`);
    batch = '';
    n = 0;
  };
  for (const e of events(ctx.opts.seed, from, to)) {
    batch += '{"index":{}}\n' + JSON.stringify(e) + '\n';
    if (++n === 5000) await flush();
  }
  await flush();
  const r = await ctx.client.request('POST', `/${INDEX}/_refresh`);
  assert(r.status === 200, `refresh -> HTTP ${r.status}`);
  return Date.now() - t0;
}

// ---- naive expectations (over the generated events, in memory)

function naiveBasic(seed, n) {
  let total = 0;
  for (const e of events(seed, 0, n)) if (e.event.category === 'process' && e.process.name === 'powershell.exe' && e.user.name === 'user-7') total++;
  return total;
}

/** sequence by host.id with maxspan: one pending match per stage and key, newest wins */
function naiveSequence(seed, n, maxspan, first, second, until) {
  const pending = new Map();
  let count = 0;
  for (const e of events(seed, 0, n)) {
    const ts = Date.parse(e['@timestamp']);
    const key = e.host.id;
    if (second(e)) {
      const p = pending.get(key);
      if (p !== undefined) {
        pending.delete(key);
        if (!maxspan || ts - p <= maxspan) count++;
      }
    }
    if (first(e)) pending.set(key, ts);
    if (until && until(e)) pending.delete(key);
  }
  return count;
}

const BASIC = 'process where process.name == "powershell.exe" and user.name == "user-7"';
const SEQ_MAXSPAN = 'sequence by host.id with maxspan=30s [process where process.name == "cmd.exe"] [network where destination.port == 3389]';
const SEQ_UNTIL = 'sequence by host.id [authentication where event.outcome == "failure"] [authentication where event.outcome == "success"] until [process where process.name == "logoff.exe"]';
const isCmd = (e) => e.event.category === 'process' && e.process.name === 'cmd.exe';
const isRdp = (e) => e.event.category === 'network' && e.destination.port === 3389;
const authFail = (e) => e.event.category === 'authentication' && e.event.outcome === 'failure';
const authOk = (e) => e.event.category === 'authentication' && e.event.outcome === 'success';
const logoff = (e) => e.event.category === 'process' && e.process.name === 'logoff.exe';

function eqlRequest(query, size) {
  return () => ({ method: 'POST', path: `/${INDEX}/_eql/search`, body: { query, size } });
}

function checkTotal(expected) {
  return (res) => {
    assert(res.status === 200, `HTTP ${res.status} ${res.text.slice(0, 300)}`);
    const total = res.json.hits.total.value;
    assert(total === expected, `hits.total ${total}, expected ${expected}`);
    return `${total} hits`;
  };
}

/** waits (up to 120 s) until the index runs no merge, so a growth step is not measured against the merges its load started */
async function mergesSettled(ctx) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const res = await ctx.client.request('GET', `/${INDEX}/_stats/merges`);
    if (res.status !== 200 || (res.json._all?.total?.merges?.current ?? 0) === 0) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function run(ctx) {
  const n = ctx.opts.eqlEvents;
  const rows = [];
  const del = await ctx.client.request('DELETE', `/${INDEX}`);
  assert(del.status === 200 || del.status === 404, `DELETE -> HTTP ${del.status}`);
  const created = await ctx.client.request('PUT', `/${INDEX}`, { settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '-1' }, mappings: MAPPING });
  assert(created.status === 200, `PUT ${INDEX} -> HTTP ${created.status} ${created.text.slice(0, 200)}`);
  const loadMs = await load(ctx, 0, n);
  const seed = ctx.opts.seed;
  const big = 100_000;
  const defs = [
    { name: 'eql_basic', description: `basic query with a condition over ${n.toLocaleString('en-US')} events (size 10)`, query: BASIC, size: 10, expected: naiveBasic(seed, n) },
    { name: 'eql_sequence_maxspan', description: `sequence by host.id with maxspan=30s over ${n.toLocaleString('en-US')} events (size 10: the last 10)`, query: SEQ_MAXSPAN, size: 10, expected: Math.min(10, naiveSequence(seed, n, 30_000, isCmd, isRdp)) },
    { name: 'eql_sequence_until', description: `sequence by host.id ... until over ${n.toLocaleString('en-US')} events (size 10: the last 10)`, query: SEQ_UNTIL, size: 10, expected: Math.min(10, naiveSequence(seed, n, 0, authFail, authOk, logoff)) },
  ];
  for (const d of defs) {
    const row = await measureRequest(ctx, { group: 'eql', name: d.name, description: d.description, request: eqlRequest(d.query, d.size), check: checkTotal(d.expected) });
    row.notes.push(`${d.query}`);
    if (d.name !== 'eql_basic') row.notes.push(`${d.name === 'eql_sequence_until' ? naiveSequence(seed, n, 0, authFail, authOk, logoff) : naiveSequence(seed, n, 30_000, isCmd, isRdp)} sequences in all`);
    if (d.name === 'eql_basic') row.notes.push(`loaded ${n.toLocaleString('en-US')} events in ${(loadMs / 1000).toFixed(1)} s`);
    rows.push(row);
  }
  // growth: the maxspan sequence at growing sizes
  const steps = [n, ...[500_000, 1_000_000, 2_000_000].filter((s) => s > n && s < ctx.opts.eqlGrowth), ctx.opts.eqlGrowth].filter((s, i, a) => s >= n && a.indexOf(s) === i);
  const growth = { group: 'eql', name: 'eql_sequence_growth', description: `sequence by host.id with maxspan=30s from ${n.toLocaleString('en-US')} to ${ctx.opts.eqlGrowth.toLocaleString('en-US')} events`, status: 'ok', notes: [] };
  try {
    let loaded = n;
    const points = [];
    for (const size of steps) {
      if (size > loaded) {
        await load(ctx, loaded, size);
        loaded = size;
      }
      await mergesSettled(ctx);
      const expected = naiveSequence(seed, size, 30_000, isCmd, isRdp);
      const samples = [];
      const reps = Math.max(5, Math.min(ctx.opts.runs, 10));
      let cpu0 = null;
      for (let k = 0; k < reps + 1; k++) {
        const res = await ctx.client.request('POST', `/${INDEX}/_eql/search`, { query: SEQ_MAXSPAN, size: big });
        checkTotal(expected)(res);
        if (k > 0) samples.push(res.ms);
        else if (ctx.pid) cpu0 = readCpuSeconds(ctx.pid);
      }
      // service CPU per request: steadier than wall-clock on a loaded machine (background work included)
      const cpuMs = cpu0 !== null ? ((readCpuSeconds(ctx.pid) - cpu0) * 1000) / reps : null;
      const p50 = summarize(samples).p50;
      points.push({ events: size, p50, cpuMs, sequences: expected });
      const cpuNote = cpuMs !== null ? `, service CPU ${cpuMs.toFixed(0)} ms/req` : '';
      growth.notes.push(`${size.toLocaleString('en-US')} events: p50 ${p50.toFixed(1)} ms${cpuNote} (${expected} sequences), ${((p50 / size) * 1e6).toFixed(1)} ms per million events`);
    }
    const a = points[0];
    const b = points[points.length - 1];
    const ratio = b.p50 / a.p50;
    const scale = b.events / a.events;
    const cpuRatio = a.cpuMs && b.cpuMs !== null ? `, x${(b.cpuMs / a.cpuMs).toFixed(2)} service CPU` : '';
    growth.result = `x${scale.toFixed(1)} events -> x${ratio.toFixed(2)} time${cpuRatio}`;
    growth.points = points;
    Object.assign(growth, summarize(points.map((p) => p.p50)));
  } catch (e) {
    growth.status = 'failed';
    growth.error = e.message;
  }
  rows.push(growth);
  await ctx.client.request('DELETE', `/${INDEX}`);
  return rows;
}

export default {
  name: 'eql',
  runs: [{ name: 'eql', description: 'EQL basic query, sequences (maxspan, until) and sequence growth', custom: run }],
};
