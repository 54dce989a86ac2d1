/**
 * Crash test: a child process indexes with fsync per request; the parent kill -9's it after some
 * acknowledgements, then recovers the shard and finds every acknowledged operation.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { IndexShardImpl } from './index-shard.js';
import { parseBytes } from './testing/simple-parser.js';

jest.setTimeout(60_000);

describe('crash recovery (kill -9)', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
    bundle = path.join(dir, 'child.cjs');
    buildSync({
      entryPoints: [path.join(__dirname, 'testing', 'crash-child.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      outfile: bundle,
      conditions: ['@strata/source'],
      logLevel: 'silent',
    });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every acknowledged doc survives, with deletes applied', async () => {
    const data = path.join(dir, 'shard');
    const child = spawn(process.execPath, [bundle, data, '40'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = 0;
    let buf = '';
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', (code, signal) => {
        if (signal !== 'SIGKILL') reject(new Error(`child exited early: ${code} ${signal}`));
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        buf += chunk.toString();
        let i;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          const m = /^ACK (\d+)$/.exec(line);
          if (m) acked = Number(m[1]);
          if (acked >= 4000 && !child.killed) {
            child.kill('SIGKILL');
            child.once('exit', () => resolve());
          }
        }
      });
    });
    expect(acked).toBeGreaterThanOrEqual(4000);
    // it flushed at least once (64kb threshold) so recovery = commit + translog replay
    expect(fs.readdirSync(data).some((f) => f.endsWith('.seg'))).toBe(true);
    const shard = new IndexShardImpl({ index: 'crash', indexUuid: 'crash-uuid', shardId: 0, dir: data, parse: parseBytes, manualScheduling: true });
    try {
      // the child deletes id n-3 right after indexing id n-1 whenever n % 7 === 0: deletes up to `acked`
      // were acknowledged; a later one (n > acked) was not, so its id may or may not be deleted after the
      // crash (written to the translog before the kill, or not)
      const deleted = new Set<number>();
      const unacknowledgedDelete = new Set<number>();
      for (let n = 1; n <= acked + 3; n++) if (n % 7 === 0) (n <= acked ? deleted : unacknowledgedDelete).add(n - 3);
      const wrong: string[] = [];
      for (let id = 0; id < acked; id++) {
        if (unacknowledgedDelete.has(id)) continue;
        const g = shard.get(String(id));
        if (g.found === deleted.has(id)) wrong.push(`${id}: found=${g.found}`);
      }
      expect(wrong).toEqual([]);
      expect(shard.localCheckpoint).toBeGreaterThanOrEqual(acked + Math.floor(acked / 7) - 1);
    } finally {
      shard.close();
    }
  });
});
