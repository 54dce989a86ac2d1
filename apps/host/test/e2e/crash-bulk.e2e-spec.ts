/**
 * The short run of tools/durability/crash-bulk.mjs: sustained _bulk (index, partial update, delete) from
 * several clients, kill -9, a torn translog tail, restart, every document compared by content. One trial
 * keeps the suite light; the long run is the same script with more --trials (half of them torn).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildHost, repoRoot } from './helpers.js';

describe('crash trials under sustained bulk load (short run)', () => {
  beforeAll(() => buildHost());

  it('loses no acknowledged operation across kill -9 and a torn translog tail', () => {
    const args = [join(repoRoot, 'tools/durability/crash-bulk.mjs'), '--seed', '20261124', '--trials', '1', '--clients', '3', '--bulk', '200', '--ids', '3000', '--min-ms', '1000', '--max-ms', '2000', '--tear-every', '1', '--no-build'];
    if (existsSync('/dev/shm')) args.push('--data-root', '/dev/shm');
    let out: string;
    try {
      out = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JEST_WORKER_ID: '' } });
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      throw new Error(`crash run failed:\n${err.stderr ?? ''}\n${err.stdout ?? ''}`, { cause: e });
    }
    const summary = JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
    expect(summary['trials']).toBe(1);
    expect(summary['tornTrials']).toBe(1);
    expect(summary['acked']).toBeGreaterThan(100);
    expect(summary['lost']).toBe(0);
    expect(summary['replayedOps']).toBeGreaterThan(0);
  }, 150_000);
});
