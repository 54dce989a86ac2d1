/**
 * Crash test: a child process indexes with fsync per request; the parent kill -9's it after some
 * acknowledgements, then recovers the shard and finds every acknowledged operation.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { parseBytes } from './testing/simple-parser.js';
import { bundleCrashChild, runChildUntilKilled } from './testing/child-bundle.js';

jest.setTimeout(60_000);


describe('crash recovery (kill -9)', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crash-'));
    bundle = bundleCrashChild('crash-child.ts', dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every acknowledged doc survives, with deletes applied', async () => {
    const data = path.join(dir, 'shard');
    let acked = 0;
    await runChildUntilKilled([bundle, data, '40'], (line) => {
      const m = /^ACK (\d+)$/.exec(line);
      if (m) acked = Number(m[1]);
      return acked >= 4000;
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

  // the worker writes merged segments and the files of refreshed segments (searched in memory meanwhile), and
  // builds (then writes) the segments of scheduled refreshes
  it.each([
    ['a merged segment', 'MERGING', 'MERGED', 'shard-merge', ''],
    ['a refreshed segment', 'WRITING', 'WRITTEN', 'shard-write', ''],
    ['the segment of a scheduled refresh (built there)', 'BUILDING', 'BUILT', 'shard-build', 'build'],
    // appended without version map entries: each delete finds its doc in the buffer or the set-aside one
    ['the segment of a scheduled refresh, documents appended under generated ids', 'BUILDING', 'BUILT', 'shard-build-append', 'build append-only'],
  ])('kill -9 while a worker thread writes %s: every acknowledged doc is back, with its source', async (_what, startMark, doneMark, sub, mode) => {
    const data = path.join(dir, sub);
    let acked = 0;
    let finished = 0;
    let startedAtKill = 0;
    await runChildUntilKilled([bundle, data, '40', 'merge-worker', ...(mode ? mode.split(' ') : [])], (line) => {
      const m = /^([A-Z]+) (\d+)$/.exec(line);
      if (!m) return false;
      if (m[1] === 'ACK') acked = Number(m[2]);
      else if (m[1] === doneMark) finished = Number(m[2]);
      // kill right after a task was handed to the worker (a few have been published before)
      else if (m[1] === startMark && finished >= 3 && acked >= 3000) {
        startedAtKill = Number(m[2]);
        return true;
      }
      return false;
    });
    expect(startedAtKill).toBeGreaterThan(3);
    const shard = new IndexShardImpl({ index: 'crash', indexUuid: 'crash-uuid', shardId: 0, dir: data, parse: parseBytes, manualScheduling: true });
    try {
      const deleted = new Set<number>();
      const unacknowledgedDelete = new Set<number>();
      for (let n = 1; n <= acked + 3; n++) if (n % 7 === 0) (n <= acked ? deleted : unacknowledgedDelete).add(n - 3);
      const wrong: string[] = [];
      for (let id = 0; id < acked; id++) {
        if (unacknowledgedDelete.has(id)) continue;
        const g = shard.get(String(id));
        if (g.found === deleted.has(id)) wrong.push(`${id}: found=${g.found}`);
        else if (g.found && JSON.parse(Buffer.from(g.source!).toString('utf8')).msg !== `message ${id}`) wrong.push(`${id}: source`);
      }
      expect(wrong).toEqual([]);
      // the searcher sees the same: every live doc once
      shard.refreshInternal('test');
      const r = shard.acquireReader();
      try {
        expect(r.numDocs).toBeGreaterThanOrEqual(acked - deleted.size - unacknowledgedDelete.size);
        expect(r.numDocs).toBeLessThanOrEqual(acked + 40 - deleted.size);
      } finally {
        r.decRef();
      }
      // nothing but the commit's files, the translog and the live-docs files is left once the shard is open
      for (const f of fs.readdirSync(data)) expect(f).toMatch(/^(commit\.json|translog|_[0-9a-z]+(\.seg|\.src|_\d+\.liv))$/);
    } finally {
      shard.close();
    }
  });
});
