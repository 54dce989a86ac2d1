#!/usr/bin/env node
// The "auth overhead" run alone (it is also part of `npm run bench`): what authentication adds to a cheap
// request, security off vs on with HTTP Basic, an API key and a bearer access token (auth cache warm).
//   node tools/bench/auth-overhead.mjs [--rounds 3000] [--warmup 300] [--main apps/host/dist/main.cjs] [--out PATH]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './lib/args.mjs';
import { HOST_MAIN } from './lib/service.mjs';
import { fmtMs, markdownTable } from './lib/stats.mjs';
import { measureAuthOverhead } from './runs/auth.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const opts = parseArgs(process.argv.slice(2), { rounds: 3000, warmup: 300, main: HOST_MAIN, out: path.join(HERE, 'results/auth.json') },
  'usage: node tools/bench/auth-overhead.mjs [--rounds 3000] [--warmup 300] [--main PATH] [--out PATH]');
const rows = await measureAuthOverhead({ rounds: opts.rounds, warmup: opts.warmup, main: opts.main, log: (l) => console.log(l) });
console.log();
console.log(markdownTable(['run', 'p50 ms', 'p95 ms', 'added p50 µs'], rows.map((r) => [r.name, fmtMs(r.p50), fmtMs(r.p95), r.addedP50Ms === undefined ? '-' : (r.addedP50Ms * 1000).toFixed(0)])));
fs.mkdirSync(path.dirname(opts.out), { recursive: true });
fs.writeFileSync(opts.out, JSON.stringify({ date: new Date().toISOString(), rows }, null, 2));
