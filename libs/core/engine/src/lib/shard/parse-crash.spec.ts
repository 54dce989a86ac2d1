/**
 * Crash test of documents parsed in a parse thread: a child process indexes documents a parse thread parsed and
 * packed, with fsync per batch; the parent kill -9's it while a chunk is in the thread, recovers the shard (its
 * translog replayed through the event loop's mapper) and finds every acknowledged operation, with its source,
 * and the segments answer term queries on the packed fields as a shard fed by the event loop's parse does.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { bundleCrashChild, runChildUntilKilled } from './testing/child-bundle.js';
import { parseCrashBytes, parseCrashSource } from './testing/parse-crash-model.js';

jest.setTimeout(90_000);

describe('crash recovery of documents parsed in a thread (kill -9)', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parse-crash-'));
    bundle = bundleCrashChild('parse-crash-child.ts', dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every acknowledged doc is back with its source; the recovered segments match a shard fed by the event loop', async () => {
    const data = path.join(dir, 'shard');
    let acked = 0;
    let parsing = 0;
    await runChildUntilKilled([bundle, data, '200'], (line) => {
      const m = /^([A-Z]+) (\d+)$/.exec(line);
      if (!m) return false;
      if (m[1] === 'ACK') acked = Number(m[2]);
      // kill right after a chunk went to the thread, once enough was acknowledged
      else if (m[1] === 'PARSING' && acked >= 6000) {
        parsing = Number(m[2]);
        return true;
      }
      return false;
    });
    expect(parsing).toBeGreaterThan(30);
    const shard = new IndexShardImpl({ index: 'pcrash', indexUuid: 'pcrash-uuid', shardId: 0, dir: data, parse: parseCrashBytes, manualScheduling: true });
    // the child may have made more durable than the parent read acknowledgements of (a batch fsynced just before
    // the kill): the recovered shard holds every acknowledged op and, in order, possibly some after them. `applied`
    // docs were indexed (a deleted doc is a single gap: deletes hit every seventh id)
    let applied = acked;
    for (let id = acked, misses = 0; misses < 2; id++) {
      if (shard.get(String(id)).found) {
        applied = id + 1;
        misses = 0;
      } else misses++;
    }
    // the delete after the doc count reached n (n % 7 === 0) is in the shard when it was acknowledged or an op after
    // it was recovered; the one right at the end may or may not be
    const deleted = new Set<number>();
    const unacknowledgedDelete = new Set<number>();
    for (let n = 1; n <= applied + 3; n++) if (n % 7 === 0) (n <= acked || n < applied ? deleted : unacknowledgedDelete).add(n - 3);
    // the same acknowledged operations through the event loop's parse, in a shard of their own
    const modelDir = path.join(dir, 'model');
    const model = new IndexShardImpl({ index: 'pcrash', indexUuid: 'pcrash-uuid', shardId: 0, dir: modelDir, parse: parseCrashBytes, manualScheduling: true });
    try {
      const wrong: string[] = [];
      for (let id = 0; id < applied; id++) {
        if (unacknowledgedDelete.has(id)) continue;
        const g = shard.get(String(id));
        if (g.found === deleted.has(id)) wrong.push(`${id}: found=${g.found}`);
        else if (g.found && Buffer.from(g.source!).toString('utf8') !== parseCrashSource(id)) wrong.push(`${id}: source`);
      }
      expect(wrong).toEqual([]);
      for (let n = 0; n < applied; n++) {
        const id = String(n);
        const src = Buffer.from(parseCrashSource(n), 'utf8');
        model.indexDoc({ id, opType: 'index', doc: parseCrashBytes(src, id), source: src });
        if ((n + 1) % 7 === 0 && deleted.has(n + 1 - 3)) model.deleteDoc({ id: String(n + 1 - 3) });
      }
      for (const id of unacknowledgedDelete) if (!shard.get(String(id)).found) model.deleteDoc({ id: String(id) });
      shard.refreshInternal('test');
      model.refreshInternal('test');
      const r = shard.acquireReader();
      const m = model.acquireReader();
      try {
        expect(r.numDocs).toBe(m.numDocs);
        // postings of packed fields: the same matches in both
        const count = (reader: typeof r, field: string, term: string) => {
          let c = 0;
          for (const leaf of reader.leaves) {
            const pe = leaf.reader.postings(field, term);
            if (!pe) continue;
            for (const d of pe.docs) if (leaf.reader.isLive(d)) c++;
          }
          return c;
        };
        for (const [f, t] of [['msg', 'message'], ['msg', '4242'], ['msg.raw', 'message 7 of the crash test'], ['tags', 't3'], ['tags', 'u1'], ['parts.k', 'k3']]) {
          expect([f, t, count(r, f, t)]).toEqual([f, t, count(m, f, t)]);
        }
        expect(count(r, 'tags', 't3')).toBeGreaterThan(100);
      } finally {
        r.decRef();
        m.decRef();
      }
    } finally {
      shard.close();
      model.close();
    }
  });
});
