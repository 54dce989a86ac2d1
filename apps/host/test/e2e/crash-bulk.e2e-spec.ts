/**
 * The short run of tools/durability/crash-bulk.mjs: sustained _bulk (index, partial update, delete) from
 * several clients, kill -9, a torn translog tail, restart, every document compared by content. One trial
 * keeps the suite light; the long run is the same script with more --trials (half of them torn).
 */
import { buildHost, runDurabilityScript } from './helpers.js';

describe('crash trials under sustained bulk load (short run)', () => {
  beforeAll(() => buildHost());

  it('loses no acknowledged operation across kill -9 and a torn translog tail', () => {
    const summary = runDurabilityScript('crash-bulk.mjs', ['--seed', '20261124', '--trials', '1', '--clients', '3', '--bulk', '200', '--ids', '3000', '--min-ms', '1000', '--max-ms', '2000', '--tear-every', '1']);
    expect(summary['trials']).toBe(1);
    expect(summary['tornTrials']).toBe(1);
    expect(summary['acked']).toBeGreaterThan(100);
    expect(summary['lost']).toBe(0);
    expect(summary['replayedOps']).toBeGreaterThan(0);
  }, 150_000);
});
