#!/usr/bin/env node
// Snapshot and restore timings of the bench index: load --docs documents (the generator and mapping of
// run.mjs), then time a full snapshot, an incremental one after 10k more documents, a restore of the full
// snapshot after deleting the index, and a shared_cache mount. Every restored count is checked.
// usage: node tools/bench/snapshot.mjs [--docs 1000000] [--bulk 5000] [--clients 2] [--shards 1] [--out PATH]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGenerator } from './generate.mjs';
import { parseArgs } from './lib/args.mjs';
import { createClient } from './lib/http.mjs';
import { dirSize, startService } from './lib/service.mjs';
import { fmtInt, fmtMB, markdownTable } from './lib/stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const USAGE = 'usage: node tools/bench/snapshot.mjs [--docs N] [--bulk N] [--clients K] [--shards N] [--out PATH]';
const opts = parseArgs(process.argv.slice(2), { docs: 1_000_000, bulk: 5000, clients: 2, shards: 1, seed: 42, days: 7, out: path.join(HERE, 'results/snapshot.json') }, USAGE);

const log = (...a) => console.error('[snapshot]', ...a);
const repoDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bench-repo-'));
const service = await startService({ extraArgs: ['-E', `path.repo=${repoDir}`] });
const client = createClient(service.url);
const rows = [];
const results = { docs: opts.docs, shards: opts.shards };

async function timed(label, fn) {
  const t0 = process.hrtime.bigint();
  const out = await fn();
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  log(`${label}: ${(ms / 1000).toFixed(2)} s`);
  return { ms, out };
}

async function count(index) {
  await client.ok('POST', `/${index}/_refresh`);
  return (await client.ok('POST', `/${index}/_count`)).count;
}

async function load(index, docs, seed) {
  const gen = createGenerator({ docs, seed, days: opts.days });
  const worker = async () => {
    for (let body; (body = gen.nextBulk(opts.bulk)) !== null; ) {
      const r = await client.request('POST', `/${index}/_bulk`, body, { contentType: 'application/x-ndjson' });
      if (r.status !== 200 || r.json?.errors) throw new Error(`bulk failed: HTTP ${r.status} ${r.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: opts.clients }, worker));
}

try {
  await client.ok('PUT', '/logs', {
    settings: { number_of_shards: opts.shards, number_of_replicas: 0, refresh_interval: '-1' },
    mappings: {
      properties: {
        '@timestamp': { type: 'date' },
        client: { properties: { ip: { type: 'ip' } } },
        http: { properties: { request: { properties: { method: { type: 'keyword' } } }, response: { properties: { status_code: { type: 'long' }, body: { properties: { bytes: { type: 'long' } } } } } } },
        url: { properties: { path: { type: 'keyword' } } },
        user_agent: { properties: { original: { type: 'keyword' } } },
        source: { properties: { geo: { properties: { country_iso_code: { type: 'keyword' } } } } },
        event: { properties: { duration: { type: 'long' } } },
        message: { type: 'text' },
      },
    },
  });
  log(`loading ${fmtInt(opts.docs)} docs`);
  const loaded = await timed('load', () => load('logs', opts.docs, opts.seed));
  if ((await count('logs')) !== opts.docs) throw new Error('count after load differs');
  results.loadMs = loaded.ms;
  results.dataDirBytes = dirSize(service.dataDir);
  await client.ok('PUT', '/_snapshot/bench', { type: 'fs', settings: { location: 'bench' } });

  const full = await timed('full snapshot', () => client.ok('PUT', '/_snapshot/bench/full?wait_for_completion=true', { indices: 'logs' }));
  if (full.out.snapshot.state !== 'SUCCESS') throw new Error(`snapshot state ${full.out.snapshot.state}`);
  const fullStatus = (await client.ok('GET', '/_snapshot/bench/full/_status')).snapshots[0].stats;
  rows.push(['full snapshot', `${(full.ms / 1000).toFixed(2)} s`, fmtMB(fullStatus.incremental.size_in_bytes), fmtInt(fullStatus.incremental.file_count)]);

  await load('logs', 10_000, 'more');
  const incr = await timed('incremental snapshot', () => client.ok('PUT', '/_snapshot/bench/incr?wait_for_completion=true', { indices: 'logs' }));
  const incrStatus = (await client.ok('GET', '/_snapshot/bench/incr/_status')).snapshots[0].stats;
  rows.push(['incremental snapshot (+10k docs)', `${(incr.ms / 1000).toFixed(2)} s`, fmtMB(incrStatus.incremental.size_in_bytes), fmtInt(incrStatus.incremental.file_count)]);

  await client.ok('DELETE', '/logs');
  const restore = await timed('restore', () => client.ok('POST', '/_snapshot/bench/full/_restore?wait_for_completion=true'));
  const restoredCount = await count('logs');
  if (restoredCount !== opts.docs) throw new Error(`restored ${restoredCount} docs, expected ${opts.docs}`);
  rows.push(['restore of the full snapshot (deleted index)', `${(restore.ms / 1000).toFixed(2)} s`, fmtMB(fullStatus.total.size_in_bytes), fmtInt(fullStatus.total.file_count)]);

  const mount = await timed('mount shared_cache', () =>
    client.ok('POST', '/_snapshot/bench/incr/_mount?wait_for_completion=true&storage=shared_cache', { index: 'logs', renamed_index: 'partial-logs' }),
  );
  if ((await count('partial-logs')) !== opts.docs + 10_000) throw new Error('mounted count differs');
  rows.push(['mount (shared_cache, served from the repository)', `${(mount.ms / 1000).toFixed(2)} s`, '-', '-']);

  results.fullSnapshotMs = full.ms;
  results.fullSnapshotBytes = fullStatus.incremental.size_in_bytes;
  results.incrementalSnapshotMs = incr.ms;
  results.incrementalBytes = incrStatus.incremental.size_in_bytes;
  results.restoreMs = restore.ms;
  results.mountMs = mount.ms;
  console.log(`\nSnapshot / restore of the bench index: ${fmtInt(opts.docs)} docs, ${opts.shards} shard(s), data dir ${fmtMB(results.dataDirBytes)}\n`);
  console.log(markdownTable(['operation', 'time', 'bytes copied', 'files'], rows));
  fs.mkdirSync(path.dirname(opts.out), { recursive: true });
  fs.writeFileSync(opts.out, JSON.stringify(results, null, 2));
} finally {
  client.close();
  await service.stop();
  fs.rmSync(repoDir, { recursive: true, force: true });
}
