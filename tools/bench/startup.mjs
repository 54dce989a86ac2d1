#!/usr/bin/env node
// Start-up time and idle RSS of the built host: median of N spawns (default 7), each with a fresh empty
// data directory. Start-up = spawn -> first HTTP 200 on GET / (polled every 5 ms); idle RSS = VmRSS
// --idle-wait-ms after that answer.
//   node tools/bench/startup.mjs [--spawns 7] [--idle-wait-ms 1000] [--main apps/host/dist/main.cjs]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import os from 'node:os';
import { printProfile, summarizeProfile } from './lib/profile.mjs';
import { HOST_MAIN, readMemory, SERVICE_NODE_FLAGS, startService } from './lib/service.mjs';
import { fmtMB, fmtMs, markdownTable, median, summarize } from './lib/stats.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const opts = parseArgs(process.argv.slice(2), {
  spawns: 7, idleWaitMs: 1000, main: HOST_MAIN, out: path.join(HERE, 'results/startup.json'), cpuProf: false,
}, `usage: node tools/bench/startup.mjs [--spawns 7] [--idle-wait-ms 1000] [--main PATH] [--out PATH] [--cpu-prof]
  --cpu-prof: one extra spawn under node --cpu-prof (not counted), stopped right after the first answer;
              prints where start-up CPU time goes`);

const times = [];
const rss = [];
const firstRss = [];
for (let k = 0; k < opts.spawns; k++) {
  let svc;
  try {
    svc = await startService({ main: opts.main });
    firstRss.push(readMemory(svc.pid)?.rss ?? NaN);
    await new Promise((r) => setTimeout(r, opts.idleWaitMs));
    const m = readMemory(svc.pid);
    times.push(svc.startupMs);
    rss.push(m?.rss ?? NaN);
    console.log(`spawn ${k + 1}/${opts.spawns}: start-up ${fmtMs(svc.startupMs)} ms, RSS at first answer ${fmtMB(firstRss.at(-1))}, idle RSS ${fmtMB(m?.rss)}`);
  } catch (e) {
    console.error(`STARTUP FAILED: ${e.message}`);
    process.exit(1);
  } finally {
    await svc?.stop();
  }
}
const t = summarize(times);
const result = {
  date: new Date().toISOString(), node: process.version, spawns: opts.spawns,
  startupMs: { median: median(times), min: t.min, max: t.max, all: times },
  idleRss: { median: median(rss), all: rss }, rssAtFirstAnswer: { median: median(firstRss) },
};
console.log('\n' + markdownTable(['measure', 'value'], [
  [`start-up to first answered GET / (median of ${opts.spawns})`, `${fmtMs(result.startupMs.median)} ms (min ${fmtMs(t.min)}, max ${fmtMs(t.max)})`],
  ['RSS at first answer (median)', fmtMB(result.rssAtFirstAnswer.median)],
  [`idle RSS after ${opts.idleWaitMs} ms (median)`, fmtMB(result.idleRss.median)],
]));
fs.mkdirSync(path.dirname(opts.out), { recursive: true });
fs.writeFileSync(opts.out, JSON.stringify(result, null, 2));

if (opts.cpuProf) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-startup-prof-'));
  const svc = await startService({ main: opts.main, nodeArgs: [...SERVICE_NODE_FLAGS, '--cpu-prof', `--cpu-prof-dir=${dir}`] });
  console.log(`\nprofiled spawn: start-up ${fmtMs(svc.startupMs)} ms (inflated by the profiler)`);
  await svc.stop();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) {
    console.error('no .cpuprofile written (the service must exit normally on SIGTERM)');
  } else {
    const dest = path.join(path.dirname(opts.out), 'startup.cpuprofile');
    fs.copyFileSync(path.join(dir, file), dest);
    printProfile(summarizeProfile(dest, 20));
    console.log(`(saved to ${dest}; wrapSafe/compileFunction = compiling the bundle)`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
