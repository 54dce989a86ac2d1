/**
 * Elasticsearch's own EQL spec queries (../shared/conformance/eql, run by ../shared/tools/eql-conformance.mjs)
 * against a real node. The interface spec requires fetch_size > 2, so the kit runs with fixed spec-conforming
 * fetch sizes (3: many small batches; 50) instead of its random 2..50 draw.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createTestHost, type TestHost } from '@strata/core-testing';
import { eqlFeature } from '../lib/eql.module.js';

const repoRoot = resolve(__dirname, '../../../..');
const shared = resolve(repoRoot, '..', 'shared');
const runner = join(shared, 'tools', 'eql-conformance.mjs');
const kit = join(shared, 'conformance', 'eql');

const run = promisify(execFile);

describe('EQL conformance kit', () => {
  let host: TestHost;

  beforeAll(async () => {
    if (!existsSync(runner) || !existsSync(kit)) {
      throw new Error(`the EQL conformance kit is missing: expected ${runner} and ${kit} (CI has ../shared next to the repository)`);
    }
    host = await createTestHost({ features: [eqlFeature] });
  });
  afterAll(async () => {
    await host?.close();
  });

  for (const [fetchSize, seed, load] of [
    [3, 11, true],
    [50, 12, false],
  ] as const) {
    it(`passes at least 95% of the non-skipped queries (fetch_size ${fetchSize})`, async () => {
      const args = [runner, '--url', host.url, '--seed', String(seed), '--fetch-size', String(fetchSize), '--result-position', 'random'];
      if (!load) args.push('--no-load');
      const stdout = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 }).then(
        (r) => r.stdout,
        (e: { stdout?: string }) => e.stdout ?? '',
      );
      const last = stdout.trim().split('\n').pop() ?? '';
      const m = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(last);
      if (!m) throw new Error(`unexpected runner output:\n${stdout.slice(-2000)}`);
      const passed = Number(m[1]);
      const failed = Number(m[2]);
      // the count, as the closing note reports it
      process.stdout.write(`eql-conformance (fetch_size ${fetchSize}): ${last}\n`);
      if (passed / (passed + failed) < 0.95) {
        const failures = stdout.split('\n').filter((l) => l.startsWith('FAIL'));
        throw new Error(`${last}\n${failures.slice(0, 30).join('\n')}`);
      }
      expect(passed + failed).toBe(288);
    }, 120_000);
  }
});
