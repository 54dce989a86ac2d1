// Summarizes a V8 .cpuprofile (from node --cpu-prof): self time per function and per source file.
import fs from 'node:fs';
import path from 'node:path';

export function summarizeProfile(file, top = 25) {
  const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const samples = prof.samples ?? [];
  const deltas = prof.timeDeltas ?? [];
  for (let k = 0; k < samples.length; k++) {
    const dt = deltas[k + 1] ?? 0; // time until the next sample is attributed to this sample
    selfUs.set(samples[k], (selfUs.get(samples[k]) ?? 0) + dt);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  // Inclusive time: each sample counts once for every distinct function on its stack.
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n) => {
    const cf = n.callFrame;
    const file = cf.url ? path.basename(cf.url.replace(/^file:\/\//, '')) : `(${cf.functionName || 'native'})`;
    return { key: `${cf.functionName || '(anonymous)'} ${file}:${cf.lineNumber + 1}`, file };
  };
  const incl = new Map();
  for (const [id, us] of selfUs) {
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur);
      if (!n) break;
      const { key, file } = keyOf(n);
      if (file !== 'main.cjs' || seen.has(key)) continue;
      seen.add(key);
      incl.set(key, (incl.get(key) ?? 0) + us);
    }
  }
  const fns = new Map();
  const files = new Map();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n) continue;
    const cf = n.callFrame;
    const file = cf.url ? path.basename(cf.url.replace(/^file:\/\//, '')) : `(${cf.functionName || 'native'})`;
    const key = `${cf.functionName || '(anonymous)'} ${file}:${cf.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + us);
    files.set(file, (files.get(file) ?? 0) + us);
  }
  const rank = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, us]) => ({ name, ms: us / 1000, pct: (100 * us) / total }));
  return { totalMs: total / 1000, functions: rank(fns), files: rank(files), inclusive: rank(incl) };
}

export function printProfile(summary, log = console.log) {
  log(`\nCPU profile: ${summary.totalMs.toFixed(0)} ms sampled. Top self time by function:`);
  for (const f of summary.functions) log(`  ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}`);
  if (summary.inclusive?.length) {
    log('Top inclusive time (self + callees) of functions in the service bundle:');
    for (const f of summary.inclusive) log(`  ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}`);
  }
}

// CLI: node tools/bench/lib/profile.mjs <file.cpuprofile> [top]
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  const s = summarizeProfile(process.argv[2], Number(process.argv[3] ?? 40));
  printProfile(s);
  console.log('\nBy file:');
  for (const f of s.files) console.log(`  ${f.pct.toFixed(1).padStart(5)}%  ${f.ms.toFixed(0).padStart(7)} ms  ${f.name}`);
}
