#!/usr/bin/env node
/**
 * Long property-based bad-input runs (apps/host/test/fuzz): every family's generated requests against an
 * in-process node; fails on any 5xx, hang, non-ES error body or changed data.
 *
 *   node tools/fuzz/run.mjs [--seed N] [--runs N] [--family a,b] [--report FILE]
 *
 * --runs: cases per family (default 1000); --seed: fast-check seed (default: time-based, printed);
 * --family: only these families (query_dsl, aggregations, mappings, bulk_ndjson, url_parameters,
 * ingest_pipelines, painless, deep_nesting (JSON nested thousands of levels), eql);
 * --report: where the JSON per-family counts go (default a temp file, printed at the end).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const seed = opt('--seed', String(Date.now() % 1_000_000_000));
const runs = opt('--runs', '1000');
const report = resolve(opt('--report', join(tmpdir(), `strata-fuzz-${seed}.json`)));
const env = { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: runs, FUZZ_REPORT: report };
if (opt('--family')) env.FUZZ_FAMILY = opt('--family');
console.log(`fuzz: seed ${seed}, ${runs} cases per family`);
const root = resolve(import.meta.dirname, '../..');
const r = spawnSync('npx', ['jest', '-c', 'apps/host/jest.config.cjs', 'apps/host/test/fuzz/fuzz.e2e-spec.ts'], { cwd: root, env, stdio: 'inherit' });
try {
  const { reports } = JSON.parse(readFileSync(report, 'utf8'));
  console.log('family             cases   2xx   4xx   5xx  (ES 5xx)  shape  hangs  data  slowest ms');
  for (const f of reports) {
    console.log(
      `${f.family.padEnd(18)} ${String(f.cases).padStart(5)} ${String(f.ok2xx).padStart(5)} ${String(f.client4xx).padStart(5)} ${String(f.server5xx).padStart(5)} ${String(f.esParity5xx).padStart(9)} ${String(f.badShape).padStart(6)} ${String(f.hangs).padStart(6)} ${String(f.dataChanged).padStart(5)} ${String(f.slowestMs).padStart(11)}`,
    );
  }
  console.log(`report: ${report}`);
} catch {
  /* jest failed before writing the report */
}
process.exit(r.status ?? 1);
