/**
 * The short, seeded run of the model-based durability test (tools/durability/model-run.mjs): random
 * writes, bulks, refresh/flush/force-merge, close/open, index delete/re-create, graceful restarts and
 * kill -9 of the real node with writes in flight, every document compared with the model after every
 * restart. The long run is the same script with other --seed/--sequences/--time-limit values.
 */
import { buildHost, runDurabilityScript } from './helpers.js';

describe('model-based durability (short seeded run)', () => {
  beforeAll(() => buildHost());

  it('every acknowledged write survives graceful restarts and kill -9, with 0 divergences', () => {
    const stats = runDurabilityScript('model-run.mjs', ['--seed', '20261124', '--sequences', '300', '--time-limit', '90']);
    expect(stats['divergences']).toBe(0);
    // a slow machine may stop at the time limit, but never before a meaningful run: the seed is fixed, so
    // the first 50 sequences always hold 8 graceful restarts and 10 kill -9s (about 25 s on a loaded 2-core
    // machine; a landing under load 12 once stopped at 96 sequences when 100 were required)
    expect(stats['sequences']).toBeGreaterThanOrEqual(50);
    expect(stats['kill9']).toBeGreaterThanOrEqual(10);
    expect(stats['graceful']).toBeGreaterThanOrEqual(8);
  }, 150_000);
});
