import { createTestHost, type TestHost } from '../test-host.js';
import { runOracle } from './runner.js';

/**
 * The short seeded run of the differential oracle (part of `npm test`). The long run is
 * `node tools/oracle/run.mjs --seed <n> --runs <n>`; ORACLE_SEED / ORACLE_RUNS / ORACLE_TIME_LIMIT_MS
 * override this run's parameters.
 */
describe('differential oracle (short seeded run)', () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await createTestHost();
  });
  afterAll(() => host.close());

  it('the service answers like the naive Elasticsearch model', async () => {
    const seed = Number(process.env['ORACLE_SEED'] ?? 20_260_521);
    const runs = Number(process.env['ORACLE_RUNS'] ?? 25);
    const timeLimitMs = process.env['ORACLE_TIME_LIMIT_MS'] ? Number(process.env['ORACLE_TIME_LIMIT_MS']) : undefined;
    const report = await runOracle({ target: host, seed, runs, timeLimitMs });
    if (process.env['ORACLE_REPORT']) {
      console.log(`ORACLE_REPORT ${JSON.stringify(report)}`);
    }
    expect(report.cases).toBeGreaterThan(0);
    expect(report.checks).toBeGreaterThanOrEqual(report.cases * 2);
  }, 600_000);
});
