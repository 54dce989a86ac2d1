/**
 * Property-based bad-input run (fast-check): per family (Query DSL, aggregations, mappings, bulk NDJSON,
 * URL parameters, ingest pipelines, Painless, EQL, JSON nested thousands of levels) generated requests must get a 2xx or an ES-shaped 4xx, never
 * a 5xx or a hang, and leave stored data unchanged. `npm test` runs a short seeded run; long runs:
 * `node tools/fuzz/run.mjs --seed N --runs N` (sets FUZZ_SEED / FUZZ_RUNS / FUZZ_REPORT).
 */
import { writeFileSync } from 'node:fs';
import { startE2eHost, type E2eHost } from '../e2e/helpers.js';
import { FAMILIES, createFixture, runFamily, send, type FamilyReport } from './fuzz-harness.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261124);
const RUNS = Number(process.env['FUZZ_RUNS'] ?? 80);
const ONLY = process.env['FUZZ_FAMILY'];

jest.setTimeout(Math.max(120_000, RUNS * 2_000));

describe(`bad input never gets a 5xx (seed ${SEED}, ${RUNS} cases per family)`, () => {
  let host: E2eHost;
  const reports: FamilyReport[] = [];
  beforeAll(async () => {
    host = await startE2eHost();
    await createFixture(host.url);
  });
  afterAll(async () => {
    if (process.env['FUZZ_REPORT']) writeFileSync(process.env['FUZZ_REPORT'], JSON.stringify({ seed: SEED, runs: RUNS, reports }, null, 2));
    await host.close();
  });

  it.each(FAMILIES.filter((f) => !ONLY || ONLY.split(',').includes(f.name)).map((f, i) => [f.name, f, i] as const))('%s', async (_name, family, i) => {
    const report = await runFamily(host.url, family, SEED + i, RUNS);
    reports.push(report);
    expect({ ...report, failures: report.failures.slice(0, 10) }).toEqual({ ...report, server5xx: 0, badShape: 0, hangs: 0, dataChanged: 0, failures: [] });
    expect(report.cases).toBe(RUNS);
    // the node still answers
    expect((await send(host.url, { method: 'GET', path: '/' })).status).toBe(200);
  });
});
