#!/usr/bin/env node
// Bytes on disk per document by file type and, inside segment files (formats 4 and 5), by structure:
//   node tools/bench/disk-usage.mjs <path.data or shard dir> [--docs N]
// N defaults to the documents the segments hold (maxDoc). Reads each .seg file's footer and meta section only.
import { openSync, readSync, closeSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const root = args.find((a) => !a.startsWith('--')) ?? './data';
const docsArg = args.indexOf('--docs') >= 0 ? Number(args[args.indexOf('--docs') + 1]) : 0;
const files = [];
(function walk(d) {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p);
    else files.push({ path: p, name: e.name, size: statSync(p).size });
  }
})(root);
const byType = new Map();
const parts = new Map();
const add = (m, k, n) => m.set(k, (m.get(k) ?? 0) + n);
let maxDoc = 0;
for (const f of files) {
  const type = f.path.includes('/translog/') ? 'translog' : f.name.endsWith('.seg') ? '.seg' : f.name.endsWith('.src') ? '.src (_id, _source)' : f.name.endsWith('.liv') ? '.liv (live docs)' : f.name.endsWith('.json') ? 'commit / state' : 'other';
  add(byType, type, f.size);
  if (!f.name.endsWith('.seg') || f.size < 64) continue;
  const fd = openSync(f.path, 'r');
  try {
    const foot = Buffer.alloc(24);
    readSync(fd, foot, 0, 24, f.size - 24);
    if (foot.readUInt32LE(16) !== (~0x3fd76c17 >>> 0)) continue; // an older-format segment
    const metaOff = foot.readUInt32LE(0) + foot.readUInt32LE(4) * 2 ** 32;
    const metaLen = foot.readUInt32LE(8);
    const mb = Buffer.alloc(metaLen);
    readSync(fd, mb, 0, metaLen, metaOff);
    const m = JSON.parse(mb.toString('utf8'));
    maxDoc += m.maxDoc;
    const col = (c) => (c ? c.len + c.idx[1] : 0);
    add(parts, '_seq_no/_primary_term/_version columns', col(m.cols.seq) + col(m.cols.term) + col(m.cols.ver));
    // inverted fields are written one after the other, right after the three columns
    let prevEnd = Math.max(...['seq', 'term', 'ver'].map((k) => m.cols[k].idx[0] + m.cols[k].idx[1]));
    for (const [field, inv] of Object.entries(m.inv)) {
      const kind = field === '_id' ? '_id' : inv.positions ? 'text (positions)' : 'keyword / other';
      add(parts, `postings + term blocks: ${kind}`, inv.index[0] - prevEnd);
      add(parts, `term index: ${kind}`, inv.index[1]);
      if (inv.norms) add(parts, 'norms', inv.norms[1]);
      prevEnd = inv.norms ? inv.norms[0] + inv.norms[1] : inv.index[0] + inv.index[1];
    }
    for (const v of Object.values(m.num)) add(parts, 'doc values: numeric', col(v.values) + col(v.counts));
    for (const v of Object.values(m.pts)) add(parts, 'points', col(v.values) + col(v.docs));
    for (const v of Object.values(m.ss)) add(parts, 'doc values: keyword', col(v.ords) + col(v.counts) + v.terms[1]);
    add(parts, 'segment meta + header/footer', metaLen + 24 + 24);
  } finally {
    closeSync(fd);
  }
}
const docs = docsArg || maxDoc || 1;
const total = [...byType.values()].reduce((a, b) => a + b, 0);
const row = (k, v) => `| ${k} | ${(v / 1048576).toFixed(1)} MiB | ${(v / docs).toFixed(1)} |`;
console.log(`documents: ${docs.toLocaleString('en-US')} (segments hold ${maxDoc.toLocaleString('en-US')} incl. deleted)\n`);
console.log('| file type | size | bytes/doc |\n|---|---|---|');
for (const [k, v] of [...byType].sort((a, b) => b[1] - a[1])) console.log(row(k, v));
console.log(row('**total**', total));
if (parts.size) {
  console.log('\n| inside .seg | size | bytes/doc |\n|---|---|---|');
  for (const [k, v] of [...parts].sort((a, b) => b[1] - a[1])) console.log(row(k, v));
}
