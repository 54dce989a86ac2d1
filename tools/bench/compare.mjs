#!/usr/bin/env node
// Compares two result files of run.mjs (e.g. before/after a change):
//   node tools/bench/compare.mjs results/before.json results/latest.json
import fs from 'node:fs';
import { fmtInt, fmtMB, fmtMs, markdownTable } from './lib/stats.mjs';

const [a, b] = process.argv.slice(2).map((f) => JSON.parse(fs.readFileSync(f, 'utf8')));
if (!a || !b) {
  console.error('usage: node tools/bench/compare.mjs <before.json> <after.json>');
  process.exit(2);
}
const pct = (x, y) => (x > 0 && Number.isFinite(y) ? `${y >= x ? '+' : ''}${(((y - x) / x) * 100).toFixed(0)}%` : '');
const rows = [];
const add = (name, x, y, fmt) => rows.push([name, fmt(x), fmt(y), pct(x, y)]);
if (a.options?.docs !== b.options?.docs) console.log(`note: different --docs (${a.options?.docs} vs ${b.options?.docs})`);
add('start-up ms', a.startup?.ms, b.startup?.ms, fmtMs);
add('idle RSS', a.startup?.idleRss, b.startup?.idleRss, fmtMB);
add('ingest docs/s', a.ingest?.docsPerSec, b.ingest?.docsPerSec, fmtInt);
add('docs per service CPU-s', a.ingest && a.ingest.docs / a.ingest.serverCpuSeconds, b.ingest && b.ingest.docs / b.ingest.serverCpuSeconds, fmtInt);
add('refresh s', a.ingest?.refreshSeconds, b.ingest?.refreshSeconds, (v) => (v === undefined ? '-' : v.toFixed(2)));
add('RSS after load', a.memory?.afterLoad?.rss, b.memory?.afterLoad?.rss, fmtMB);
const names = [...new Set([...(a.runs ?? []), ...(b.runs ?? [])].map((r) => r.name))];
for (const n of names) {
  const x = a.runs?.find((r) => r.name === n);
  const y = b.runs?.find((r) => r.name === n);
  add(`${n} p50 ms`, x?.p50, y?.p50, fmtMs);
  if (x?.cpuMsPerRequest !== undefined || y?.cpuMsPerRequest !== undefined) add(`${n} svc CPU ms/req`, x?.cpuMsPerRequest, y?.cpuMsPerRequest, fmtMs);
  if ((x && x.status !== 'ok') || (y && y.status !== 'ok')) rows.push([`${n} status`, x?.status ?? '-', y?.status ?? '-', '']);
}
console.log(markdownTable(['measure', 'before', 'after', 'change'], rows));
