#!/usr/bin/env node
/**
 * The long run of the differential oracle (libs/core/testing/src/lib/oracle):
 *
 *   node tools/oracle/run.mjs --seed 42 --runs 2000 [--time-limit 900]
 *
 * --seed        fast-check seed (default: a random one, printed so the run can be replayed)
 * --runs        number of generated cases (default 1000)
 * --time-limit  seconds after which no new case starts (default: none)
 *
 * Runs the oracle spec under Jest with ORACLE_SEED / ORACLE_RUNS / ORACLE_TIME_LIMIT_MS and prints what
 * was covered. On a disagreement Jest prints fast-check's shrunk counterexample; replay it with the same
 * seed. Exit status: 0 when every case agreed.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  if (i < 0) return dflt;
  const v = args[i + 1];
  if (v === undefined || v.startsWith('--')) throw new Error(`--${name} needs a value`);
  return v;
};
const seed = Number(opt('seed', String(Math.floor(Math.random() * 2 ** 31))));
const runs = Number(opt('runs', '1000'));
const timeLimit = opt('time-limit', undefined);
if (!Number.isInteger(seed) || !Number.isInteger(runs) || runs < 1) {
  console.error('usage: node tools/oracle/run.mjs [--seed <int>] [--runs <int>] [--time-limit <seconds>]');
  process.exit(2);
}
console.log(`oracle: seed ${seed}, up to ${runs} cases${timeLimit ? `, at most ${timeLimit}s` : ''}`);
const env = { ...process.env, ORACLE_SEED: String(seed), ORACLE_RUNS: String(runs), ORACLE_REPORT: '1' };
if (timeLimit) env.ORACLE_TIME_LIMIT_MS = String(Number(timeLimit) * 1000);
const started = Date.now();
const r = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '-c', 'libs/core/testing/jest.config.cjs', 'libs/core/testing/src/lib/oracle/oracle.spec.ts'],
  { cwd: root, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
);
const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
const line = out.split('\n').find((l) => l.includes('ORACLE_REPORT '));
const seconds = ((Date.now() - started) / 1000).toFixed(1);
if (r.status === 0 && line) {
  const report = JSON.parse(line.slice(line.indexOf('ORACLE_REPORT ') + 'ORACLE_REPORT '.length));
  console.log(`oracle: ${report.cases} cases, ${report.searches} searches (${report.scored} with scores compared), ${report.checks} checks, 0 mismatches (seed ${seed}, ${seconds}s)`);
  const kinds = Object.entries(report.kinds).sort((a, b) => b[1] - a[1]);
  console.log(`oracle: kinds exercised: ${kinds.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  process.exit(0);
}
process.stdout.write(out);
console.error(`oracle: MISMATCH or failure (seed ${seed}, ${seconds}s); replay: node tools/oracle/run.mjs --seed ${seed} --runs ${runs}`);
process.exit(1);
