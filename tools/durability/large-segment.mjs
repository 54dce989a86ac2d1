#!/usr/bin/env node
// A shard whose segment file is larger than 2 GiB, through the built service: loads documents with large
// `_source` that does not compress, force-merges them into one segment (its `.src` past --min-gib), adds a few
// documents kept only in the translog, then restarts the node gracefully and with kill -9 and reads every
// document back (sha256 of each `_source` against the generator), runs the `verify` tool on the data and prints
// a JSON summary. See tools/durability/README.md. Not part of `npm test` (it writes ~3 GB twice).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseArgs } from '../bench/lib/args.mjs';
import { createClient } from '../bench/lib/http.mjs';
import { HOST_MAIN, readMemory, startService } from '../bench/lib/service.mjs';

const USAGE = `usage: node tools/durability/large-segment.mjs [options]
  --min-gib G      the merged segment's .src must exceed G GiB (default 2.1); the load size follows from it
  --doc-kb K       raw bytes of random data per document, base64 in _source (default 192)
  --seed S         generator seed (default 1)
  --data-root DIR  where the data directory goes (default the OS temp dir)
  --main PATH      host bundle (default apps/host/dist/main.cjs)
  --keep           keep the data directory`;
const opts = parseArgs(process.argv.slice(2), { minGib: 2.1, docKb: 192, seed: 1, dataRoot: os.tmpdir(), main: HOST_MAIN, keep: false }, USAGE);

const INDEX = 'large';
const EXTRA = 40; // documents added after the merge, in the translog only, before each restart
const log = (...a) => console.log(new Date().toISOString().slice(11, 19), ...a);
const key = crypto.createHash('sha256').update(`large-segment/${opts.seed}`).digest().subarray(0, 16);

/** the random payload of document i: deterministic, incompressible beyond base64 */
function payload(i, bytes = opts.docKb * 1024) {
  const iv = Buffer.alloc(16);
  iv.writeUInt32BE(i, 12);
  const c = crypto.createCipheriv('aes-128-ctr', key, iv);
  return Buffer.concat([c.update(Buffer.alloc(bytes)), c.final()]).toString('base64');
}
const doc = (i) => ({ n: i, tag: `t${i % 10}`, blob: payload(i) });
const extraDoc = (i) => ({ n: -i, tag: 'extra', blob: payload(1e9 + i, 4096) });
const sha = (s) => crypto.createHash('sha256').update(s).digest('hex');

// deflate keeps base64 of random bytes at ~76% (6 bits of 8): enough documents for the .src to pass min-gib
const perDocOnDisk = Math.ceil((opts.docKb * 1024 * 4) / 3) * 0.76;
const N = Math.ceil((opts.minGib * 2 ** 30 * 1.04) / perDocOnDisk);
const dataDir = fs.mkdtempSync(path.join(opts.dataRoot, 'strata-large-segment-'));
const summary = { docs: N, docKb: opts.docKb, seed: opts.seed, dataDir, phases: {}, checks: [], ok: false };
const t = async (name, fn) => {
  const t0 = Date.now();
  const r = await fn();
  summary.phases[name] = Date.now() - t0;
  log(`${name}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return r;
};

function segmentFiles() {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(seg|src)$/.test(e.name)) out.push({ file: path.relative(dataDir, p), bytes: fs.statSync(p).size });
    }
  };
  walk(dataDir);
  return out.sort((a, b) => b.bytes - a.bytes);
}

let svc;
let client;
async function start(label) {
  svc = await startService({ main: opts.main, dataDir, logFile: path.join(dataDir, `..`, `${path.basename(dataDir)}-${label}.log`) });
  client = createClient(svc.url, { maxSockets: 4 });
  log(`${label}: node pid ${svc.pid} answering after ${svc.startupMs.toFixed(0)} ms`);
  if (label === 'first start') return;
  const h = await client.ok('GET', `/_cluster/health/${INDEX}?wait_for_status=yellow&timeout=120s`);
  if (h.status === 'red') throw new Error(`index ${INDEX} is red after ${label}: ${JSON.stringify(h)}`);
}

/** every document by _mget in batches, compared with the generator; returns the count checked */
async function checkAll(label, extraCount) {
  const t0 = Date.now();
  let checked = 0;
  const bad = [];
  const total = N + extraCount;
  const want = (k) => (k < N ? [`d${k}`, doc(k)] : [`x${k - N}`, extraDoc(k - N)]);
  for (let k = 0; k < total; k += 16) {
    const batch = [];
    for (let j = k; j < Math.min(total, k + 16); j++) batch.push(want(j));
    const r = await client.ok('POST', `/${INDEX}/_mget`, { ids: batch.map(([id]) => id) });
    r.docs.forEach((d, j) => {
      const [id, src] = batch[j];
      if (!d.found || d._source?.n !== src.n || d._source?.tag !== src.tag || sha(d._source?.blob ?? '') !== sha(src.blob)) bad.push(id);
      else checked++;
    });
  }
  const count = (await client.ok('GET', `/${INDEX}/_count`)).count;
  const c = { label, checked, count, expected: total, bad: bad.slice(0, 20), badCount: bad.length, ms: Date.now() - t0 };
  summary.checks.push(c);
  log(`${label}: ${checked}/${total} documents read back intact, _count ${count}, ${bad.length} bad (${(c.ms / 1000).toFixed(1)} s)`);
  if (bad.length || count !== total) throw new Error(`${label}: ${bad.length} documents missing or different (first: ${bad.slice(0, 5)}), _count ${count} of ${total}`);
}

async function addExtra(from, to) {
  const lines = [];
  for (let i = from; i < to; i++) lines.push(JSON.stringify({ index: { _index: INDEX, _id: `x${i}` } }), JSON.stringify(extraDoc(i)));
  const r = await client.ok('POST', '/_bulk', lines.join('\n') + '\n', { contentType: 'application/x-ndjson' });
  if (r.errors) throw new Error('bulk of extra documents had errors');
}

try {
  log(`${N} documents of ${opts.docKb} KB random data (base64) into ${dataDir}`);
  await start('first start');
  await client.ok('PUT', `/${INDEX}`, {
    settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: '30s' },
    mappings: { dynamic: false, properties: { n: { type: 'long' }, tag: { type: 'keyword' } } },
  });
  await t('load', async () => {
    let next = 0;
    const worker = async () => {
      for (;;) {
        const from = next;
        if (from >= N) return;
        next = Math.min(N, from + 8);
        const lines = [];
        for (let i = from; i < next; i++) lines.push(JSON.stringify({ index: { _index: INDEX, _id: `d${i}` } }), JSON.stringify(doc(i)));
        const r = await client.ok('POST', '/_bulk', lines.join('\n') + '\n', { contentType: 'application/x-ndjson' });
        if (r.errors) throw new Error(`bulk from ${from} had errors: ${JSON.stringify(r.items.find((x) => x.index?.error))}`);
        if (from % 2000 === 0) log(`  ${from} docs`);
      }
    };
    await Promise.all([worker(), worker()]);
  });
  await t('force merge to one segment', () => client.ok('POST', `/${INDEX}/_forcemerge?max_num_segments=1`, undefined, { timeoutMs: 3_600_000 }));
  summary.rssAfterMerge = readMemory(svc.pid);
  summary.files = segmentFiles().slice(0, 4);
  const big = summary.files[0];
  log(`largest segment file: ${big.file} ${(big.bytes / 2 ** 30).toFixed(3)} GiB; node RSS ${JSON.stringify(summary.rssAfterMerge)}`);
  if (big.bytes <= opts.minGib * 2 ** 30) throw new Error(`the merged segment file is only ${big.bytes} bytes`);
  await t('check before restarts', () => checkAll('before restarts', 0));

  await addExtra(0, EXTRA);
  await t('graceful restart', async () => {
    const e = await svc.stop({ removeData: false, keepLog: true });
    if (e.code !== 0) throw new Error(`graceful stop exited ${JSON.stringify(e)}`);
    await start('after graceful restart');
  });
  await t('check after graceful restart', () => checkAll('after graceful restart', EXTRA));

  await addExtra(EXTRA, 2 * EXTRA);
  await t('kill -9 and restart', async () => {
    process.kill(svc.pid, 'SIGKILL');
    await svc.stop({ removeData: false, keepLog: true });
    await start('after kill -9');
  });
  await t('check after kill -9', () => checkAll('after kill -9', 2 * EXTRA));
  summary.filesAtEnd = segmentFiles().slice(0, 4);
  await svc.stop({ removeData: false, keepLog: true });
  svc = null;

  const v = await t('verify tool', () => spawnSync(process.execPath, [opts.main, 'verify', dataDir], { encoding: 'utf8' }));
  summary.verify = { status: v.status, out: v.stdout.trim().split('\n').slice(0, 6) };
  log(`verify: exit ${v.status}\n${v.stdout.trim().split('\n').slice(0, 6).join('\n')}`);
  if (v.status !== 0) throw new Error(`verify exited ${v.status}: ${v.stdout}${v.stderr}`);
  summary.ok = true;
} catch (e) {
  summary.error = String(e?.stack ?? e);
  console.error(e);
  if (svc) console.error(svc.logTail(30));
} finally {
  if (svc) await svc.stop({ removeData: false, keepLog: true });
  client?.close();
  if (!opts.keep) fs.rmSync(dataDir, { recursive: true, force: true });
  console.log(JSON.stringify(summary));
  process.exitCode = summary.ok ? 0 : 1;
}
