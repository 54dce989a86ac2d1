/**
 * Refreshed segments whose files a worker thread writes: searched in memory at once, swapped for the on-disk
 * segment when the worker is done; flushes, merges, close and delete while a write is pending.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { seededRandom } from '@strata/core-common';
import { IndexShardImpl, type ShardConfig } from './index-shard.js';
import { simpleParse, parseBytes } from './testing/simple-parser.js';
import { MergeWorkerPool, mergeWorkerFile, type MergeExecutor } from './merge-pool.js';
import { DiskSegment, SEGMENT_VERSION } from '../index/disk-segment.js';
import { SegmentBuilder, snapshotTransferList } from '../index/segment-builder.js';
import { MemorySegment, type SegmentReader } from '../index/segment.js';
import { BACKGROUND_THREAD_NICE, type BuildTask, type WriteTask } from '../index/merge-task.js';
import type { DirectoryReader } from '../index/leaf-reader.js';

let dir: string;
let pool: MergeWorkerPool;
const open: IndexShardImpl[] = [];

function newShard(extra: Partial<ShardConfig> = {}): IndexShardImpl {
  const s = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid1', shardId: 0, dir, parse: parseBytes, manualScheduling: true, ...extra });
  open.push(s);
  return s;
}
function idx(s: IndexShardImpl, id: string, src: Record<string, unknown>) {
  return s.indexDoc({ id, opType: 'index', doc: simpleParse(src, id) });
}
/** live id → parsed source of every doc a reader sees (each id once) */
function docs(r: DirectoryReader): Map<string, { n: number }> {
  const out = new Map<string, { n: number }>();
  for (const l of r.leaves) {
    const leaf = l.reader as SegmentReader;
    for (let d = 0; d < leaf.maxDoc; d++) {
      if (!leaf.isLive(d)) continue;
      expect(out.has(leaf.id(d))).toBe(false);
      out.set(leaf.id(d), JSON.parse(Buffer.from(leaf.source(d)!).toString()));
    }
  }
  return out;
}
function cores(r: DirectoryReader): string[] {
  return r.leaves.map((l) => {
    const d = (l.reader as SegmentReader).data;
    return `${d.name}:${d instanceof DiskSegment ? 'disk' : d instanceof MemorySegment ? 'memory' : '?'}`;
  });
}
/** the docs a shard reopened over `dir` sees */
function reopenedDocs(): Map<string, { n: number }> {
  const r = newShard().acquireReader();
  try {
    return docs(r);
  } finally {
    r.decRef();
  }
}
const segFiles = (): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.seg') || f.endsWith('.src'))
    .sort();

/**
 * the node's pool, with the segment writes (and, `which` = 'build', the builds of scheduled refreshes) held back
 * until `release()`; `failWith`: each held task of the kind `which` writes part of a file, then fails
 */
function gated(failWith?: Error, which: 'write' | 'build' = 'write') {
  const held: Array<() => void> = [];
  const tasks: Array<Promise<unknown>> = [];
  let hold = true;
  let count = 0;
  const gate = <T extends { dir: string }, R>(t: T, name: string, run: (t: T) => Promise<R>, counted = true): Promise<R> => {
    if (counted) count++;
    const p = new Promise<R>((resolve, reject) => {
      const go = (): void => {
        if (failWith && counted) {
          // the worker wrote part of the files, then failed (disk full)
          fs.writeFileSync(path.join(t.dir, `${name}.src`), 'partial');
          reject(failWith);
        } else run(t).then(resolve, reject);
      };
      if (hold) held.push(go);
      else go();
    });
    tasks.push(p.catch(() => undefined));
    return p;
  };
  const exec: MergeExecutor =
    which === 'write'
      ? { run: (t) => pool.run(t), write: (t: WriteTask) => gate(t, t.data.name, (x) => pool.write(x)) }
      : { run: (t) => pool.run(t), write: (t: WriteTask) => gate(t, t.data.name, (x) => pool.write(x), false), build: (t: BuildTask) => gate(t, t.name, (x) => pool.build(x)) };
  return {
    exec,
    /** tasks of the kind `which` handed to the gate */
    get writes() {
      return count;
    },
    get builds() {
      return count;
    },
    /** runs the held tasks; resolves once they and the shard's handling of their results are done */
    async release(): Promise<void> {
      hold = false;
      for (const go of held.splice(0)) go();
      await Promise.all(tasks);
      await new Promise<void>((r) => setImmediate(r));
    },
  };
}

beforeAll(() => {
  pool = new MergeWorkerPool(1, mergeWorkerFile()!);
});
afterAll(() => pool.close());
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-write-'));
});
afterEach(() => {
  for (const s of open.splice(0)) if (!s.isClosed) s.close(false);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('refreshed segments written by a worker thread', () => {
  it('are searched in memory at once, then from their files; deletes carry over; old readers keep the memory copy', async () => {
    const g = gated();
    const s = newShard({ mergeExecutor: g.exec, mergePolicy: { segsPerTier: 2, maxMergeAtOnce: 10, floorSegmentDocs: 1000 } });
    for (let i = 0; i < 300; i++) idx(s, String(i), { n: i });
    s.refreshInternal('t');
    const r1 = s.acquireReader();
    expect(cores(r1)).toEqual(['_0:memory']);
    expect(docs(r1).size).toBe(300);
    expect(segFiles()).toEqual([]);
    // while the write is pending: deletes, updates, a second segment; merges leave pending segments alone
    for (let i = 0; i < 300; i += 10) s.deleteDoc({ id: String(i) });
    for (let i = 5; i < 300; i += 50) idx(s, String(i), { n: -i });
    for (let i = 300; i < 350; i++) {
      idx(s, String(i), { n: i });
      if (i === 320) s.refreshInternal('t');
    }
    s.refreshInternal('t');
    // three segments at one level: the policy would merge them, were they not pending
    expect(s.mergeOnce()).toBe(false);
    expect(g.writes).toBe(3);
    const rPending = s.acquireReader();
    await g.release();
    await s.waitForSegmentWrites();
    const written = ['_0.seg', '_0.src', '_1.seg', '_1.src', '_2.seg', '_2.src'];
    expect(segFiles()).toEqual(written);
    const r2 = s.acquireReader();
    expect(cores(r2)).toEqual(['_0:disk', '_1:disk', '_2:disk']);
    // same docs: the swap keeps the reader's generation and cache key (request cache entries stay valid)
    expect(r2.cacheKey).toBe(rPending.cacheKey);
    expect(cores(rPending)).toEqual(['_0:memory', '_1:memory', '_2:memory']);
    rPending.decRef();
    const expected = new Map<string, { n: number }>();
    for (let i = 0; i < 350; i++) if (i >= 300 || i % 10 !== 0) expected.set(String(i), { n: i });
    for (let i = 5; i < 300; i += 50) expected.set(String(i), { n: -i });
    expect(docs(r2)).toEqual(expected);
    // the reader from before the swap still reads the in-memory copy; releasing it deletes no file
    expect(cores(r1)).toEqual(['_0:memory']);
    expect(docs(r1).size).toBe(300);
    r1.decRef();
    expect(segFiles()).toEqual(written);
    expect(docs(r2)).toEqual(expected);
    // now the segments merge (in the worker), and the merged-away files go once no reader uses them
    expect(s.mergeOnce()).toBe(true);
    s.refreshInternal('t');
    r2.decRef();
    s.flush();
    expect(segFiles()).toEqual(['_3.seg', '_3.src']);
    s.close();
    expect(reopenedDocs()).toEqual(expected);
  });

  it('a synchronous flush takes a pending write over under a new name; the worker result is dropped', async () => {
    const g = gated();
    const s = newShard({ mergeExecutor: g.exec });
    for (let i = 0; i < 200; i++) idx(s, String(i), { n: i });
    s.refreshInternal('t');
    const r1 = s.acquireReader();
    s.deleteDoc({ id: '7' });
    s.flush();
    // the commit names the segment written on the event loop (`_1`), never the pending `_0`
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);
    expect(cores(s.acquireReader())).toEqual(['_1:disk']);
    await g.release();
    // the worker wrote `_0` meanwhile: removed as soon as it finished
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);
    r1.decRef();
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);
    // crash now: the commit alone brings every doc back
    (s as unknown as { closed: boolean }).closed = true;
    const t = newShard();
    const r = t.acquireReader();
    expect(docs(r).size).toBe(199);
    expect(docs(r).has('7')).toBe(false);
    r.decRef();
  });

  it('an automatic flush waits for the pending write and commits the worker-written files', async () => {
    const g = gated();
    const s = newShard({ mergeExecutor: g.exec });
    for (let i = 0; i < 200; i++) idx(s, String(i), { n: i });
    s.refreshInternal('t');
    const f = s.flushAsync();
    await new Promise<void>((r) => setTimeout(r, 20));
    expect(s.stats().flushTotal).toBe(0);
    await g.release();
    await f;
    expect(s.stats().flushTotal).toBe(1);
    expect(segFiles()).toEqual(['_0.seg', '_0.src']);
    (s as unknown as { closed: boolean }).closed = true;
    const t = newShard();
    expect(t.stats().docsCount).toBe(200);
  });

  it('a failed worker write leaves the segment searchable in memory and no partial file; the next flush writes it', async () => {
    const warnings: string[] = [];
    const g = gated(new Error('ENOSPC: no space left on device, write'));
    const s = newShard({ mergeExecutor: g.exec, logger: { warn: (_o, msg) => warnings.push(String(msg)) } });
    for (let i = 0; i < 100; i++) idx(s, String(i), { n: i });
    s.refreshInternal('t');
    await g.release();
    expect(warnings).toEqual(['writing a refreshed segment failed; the next flush writes it']);
    expect(segFiles()).toEqual([]);
    const r = s.acquireReader();
    expect(cores(r)).toEqual(['_0:memory']);
    expect(docs(r).size).toBe(100);
    r.decRef();
    await s.flushAsync();
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);
    s.close();
    const t = newShard();
    expect(t.stats().docsCount).toBe(100);
  });

  it('close and delete while a write is pending leave no stray files', async () => {
    const g = gated();
    const s = newShard({ mergeExecutor: g.exec });
    for (let i = 0; i < 100; i++) idx(s, String(i), { n: i });
    s.refreshInternal('t');
    s.close();
    await g.release();
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);
    const t = newShard();
    expect(t.stats().docsCount).toBe(100);
    t.close();

    const sub = path.join(dir, 'deleted');
    const g2 = gated();
    const d = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid2', shardId: 0, dir: sub, parse: parseBytes, manualScheduling: true, mergeExecutor: g2.exec });
    for (let i = 0; i < 100; i++) idx(d, String(i), { n: i });
    d.refreshInternal('t');
    let removed = false;
    d.destroy(() => (removed = true));
    expect(removed).toBe(true);
    await g2.release();
    expect(fs.existsSync(sub)).toBe(false);
  });
});

describe('the merge and write pools', () => {
  it('hear what they report on themselves (the late answer of a task given up on destroy), so it cannot crash the process', async () => {
    const p = new MergeWorkerPool(1, mergeWorkerFile()!);
    try {
      const late = new Error('Unexpected message from Worker: { taskId: 2, result: { name: "_0" } }');
      // (an EventEmitter with no 'error' listener throws the error it is given)
      for (const name of ['pool', 'writes'] as const) {
        const pp = (p as unknown as Record<string, { emit(e: string, x: unknown): boolean }>)[name]!;
        expect(() => pp.emit('error', late)).not.toThrow();
      }
    } finally {
      await p.close();
    }
  });

  it("move a build's buffer snapshot to the thread (its arrays are gone here), and the segment holds every doc", async () => {
    const b = new SegmentBuilder();
    for (let i = 0; i < 40; i++) b.add(simpleParse({ msg: `hello ${i}`, n: i }, `d${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
    const snap = b.snapshot(true);
    const moved = snapshotTransferList(snap);
    expect(moved.length).toBeGreaterThan(5);
    const r = await pool.build({ kind: 'build', dir, name: '_7', buffer: snap, formatVersion: SEGMENT_VERSION });
    expect(r.maxDoc).toBe(40);
    expect(moved.every((a) => a.byteLength === 0)).toBe(true);
    expect(snap.sourceBytes.byteLength).toBe(0);
    // the buffer itself is untouched, and the files hold what it holds
    expect(JSON.parse(Buffer.from(b.storedSource(39)!).toString())).toEqual({ msg: 'hello 39', n: 39 });
    const seg = new DiskSegment(dir, '_7');
    try {
      expect(seg.maxDoc).toBe(40);
      expect(JSON.parse(Buffer.from(seg.source(39)!).toString())).toEqual({ msg: 'hello 39', n: 39 });
    } finally {
      seg.close();
    }
  });

  it('run the threads that write segments at a lower priority than the event loop (nice)', async () => {
    // the nice value of each thread of this process: /proc/self/task/<tid>/stat, field 19
    const niceOf = (tid: string | number): number => Number(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ').pop()!.split(' ')[16]);
    const own = niceOf(process.pid);
    // threads of this process not at its own priority (every other thread runs at BACKGROUND_THREAD_NICE)
    const lowered = (): number => fs.readdirSync('/proc/self/task').filter((t) => niceOf(t) !== own).length;
    const before = lowered();
    const p = new MergeWorkerPool(1, mergeWorkerFile()!, 1);
    try {
      const s = newShard({ mergeExecutor: p });
      for (let i = 0; i < 50; i++) idx(s, String(i), { n: i });
      s.refreshInternal('t');
      for (let i = 0; i < 200 && cores(s.acquireReader()).join() !== '_0:disk'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(docs(s.acquireReader()).size).toBe(50);
      // the write thread lowered its own priority, unless the process already runs at that priority or lower;
      // the event loop's thread kept the process's
      expect(lowered()).toBe(before + (own < BACKGROUND_THREAD_NICE ? 1 : 0));
      for (const t of fs.readdirSync('/proc/self/task')) expect([own, BACKGROUND_THREAD_NICE]).toContain(niceOf(t));
      expect(niceOf(process.pid)).toBe(own);
    } finally {
      await p.close();
    }
  });
});

describe('force merge through the merge threads', () => {
  function counting() {
    const c = { merges: 0, exec: null as unknown as MergeExecutor };
    c.exec = { run: (t) => (c.merges++, pool.run(t)), write: (t) => pool.write(t) };
    return c;
  }

  it('merges in a worker while the event loop goes on; deletes made meanwhile carry over', async () => {
    const c = counting();
    const s = newShard({ mergeExecutor: c.exec });
    for (let seg = 0; seg < 5; seg++) {
      for (let i = 0; i < 200; i++) idx(s, String(seg * 200 + i), { n: seg * 200 + i });
      s.refreshInternal('t');
    }
    let finished = false;
    const fm = s.forceMergeAsync(1).then(() => (finished = true));
    // meanwhile: a delete of a doc being merged, a new doc (not part of this force merge)
    s.deleteDoc({ id: '3' });
    idx(s, 'new', { n: -1 });
    let ticks = 0;
    while (!finished) {
      ticks++;
      await new Promise<void>((r) => setImmediate(r));
    }
    await fm;
    expect(ticks).toBeGreaterThan(1);
    expect(c.merges).toBe(1);
    expect(s.stats().mergesTotal).toBe(1);
    // the refresh that ended the force merge holds the new doc (written by the worker in turn)
    const r0 = s.acquireReader();
    expect(cores(r0)).toEqual(['_5:disk', '_6:memory']);
    r0.decRef();
    await s.waitForSegmentWrites();
    const r = s.acquireReader();
    expect(cores(r)).toEqual(['_5:disk', '_6:disk']);
    const got = docs(r);
    expect(got.size).toBe(1000);
    expect(got.has('3')).toBe(false);
    expect(got.get('new')).toEqual({ n: -1 });
    expect(got.get('999')).toEqual({ n: 999 });
    r.decRef();
    s.flush();
    expect(segFiles()).toEqual(['_5.seg', '_5.src', '_6.seg', '_6.src']);
  });

  it('waits for a running background merge; only_expunge_deletes rewrites the segments with deletes', async () => {
    const c = counting();
    const s = newShard({ mergeExecutor: c.exec, manualScheduling: false, refreshIntervalMs: 3_600_000, refreshIntervalExplicit: true, mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 4, floorSegmentDocs: 2000 } });
    for (let seg = 0; seg < 4; seg++) {
      for (let i = 0; i < 100; i++) idx(s, String(seg * 100 + i), { n: seg * 100 + i });
      s.refreshInternal('t');
      await s.waitForSegmentWrites();
    }
    // the 4th segment on disk started a background merge of all four
    expect(s.stats().mergesCurrent).toBe(1);
    for (let i = 0; i < 100; i++) idx(s, `b${i}`, { n: i });
    s.deleteDoc({ id: 'b1' });
    await s.forceMergeAsync(-1, true);
    expect(c.merges).toBe(2);
    expect(s.stats().mergesCurrent).toBe(0);
    expect(s.stats().docsDeleted).toBe(0);
    expect(s.stats().docsCount).toBe(499);
    expect(s.stats().segmentsCount).toBe(2);
  });
});

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
/** a doc with text (positions, norms), a shared keyword dictionary, multi-values and numbers */
function docOf(i: number): Record<string, unknown> {
  return {
    msg: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]} message ${i}`,
    tags: i % 3 === 0 ? [WORDS[i % 5], WORDS[(i + 1) % 5]] : WORDS[i % 4],
    n: i,
    f: [i / 7, -i],
  };
}

describe('scheduled refreshes whose segment the write thread builds', () => {
  it('publishes the segment when built: the same files a synchronous refresh writes; deletes, updates and realtime gets meanwhile', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0 });
    const expected = new Map<string, Record<string, unknown>>();
    for (let i = 0; i < 500; i++) {
      const id = String(i);
      s.indexDoc({ id, opType: 'index', doc: simpleParse(docOf(i), id, i % 11 === 0 ? `r${i % 3}` : undefined) });
      expected.set(id, docOf(i));
    }
    for (let i = 0; i < 500; i += 13) {
      s.deleteDoc({ id: String(i) });
      expected.delete(String(i));
    }
    idx(s, '1', { n: -1 });
    expected.set('1', { n: -1 });
    const gen = s.generation;
    s.scheduledRefresh();
    expect(g.builds).toBe(1);
    // nothing published yet: the reader is the one from before, realtime gets read the set-aside buffer
    expect(s.generation).toBe(gen);
    expect(s.numDocs).toBe(0);
    expect(JSON.parse(Buffer.from(s.get('2').source!).toString())).toEqual(docOf(2));
    expect(s.get('11').routing).toBe('r2');
    expect(s.get('1').version).toBe(2);
    // meanwhile: deletes and updates of docs in the segment being built, new docs; no second build at once
    s.deleteDoc({ id: '2' });
    expected.delete('2');
    idx(s, '3', { n: -3 });
    idx(s, '600', { n: 600 });
    expect(s.get('2').found).toBe(false);
    expect(s.get('3').version).toBe(2);
    s.scheduledRefresh();
    expect(g.builds).toBe(1);
    expect(segFiles()).toEqual([]);
    await g.release();
    expect(s.generation).toBe(gen + 1);
    expect(s.stats().refreshTotal).toBe(1);
    const r = s.acquireReader();
    expect(cores(r)).toEqual(['_0:disk']);
    expected.delete('3');
    expect(docs(r)).toEqual(expected);
    r.decRef();
    expect(s.get('3').version).toBe(2);
    expect(s.get('2').found).toBe(false);
    expect(s.get('11').routing).toBe('r2');
    // a version conflict is checked against the published segment now
    expect(() => s.indexDoc({ id: '5', opType: 'create', doc: simpleParse({ n: 5 }, '5') })).toThrow(/version conflict/);

    // the same ops refreshed synchronously without any thread: byte-identical segment files
    const other = path.join(dir, 'sync');
    const t = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid3', shardId: 0, dir: other, parse: parseBytes, manualScheduling: true });
    open.push(t);
    for (let i = 0; i < 500; i++) t.indexDoc({ id: String(i), opType: 'index', doc: simpleParse(docOf(i), String(i), i % 11 === 0 ? `r${i % 3}` : undefined) });
    for (let i = 0; i < 500; i += 13) t.deleteDoc({ id: String(i) });
    t.indexDoc({ id: '1', opType: 'index', doc: simpleParse({ n: -1 }, '1') });
    t.refreshInternal('t');
    for (const f of ['_0.seg', '_0.src']) expect(fs.readFileSync(path.join(other, f)).equals(fs.readFileSync(path.join(dir, f)))).toBe(true);

    s.refreshInternal('t');
    expected.set('3', { n: -3 });
    expected.set('600', { n: 600 });
    const r2 = s.acquireReader();
    expect(docs(r2)).toEqual(expected);
    r2.decRef();
    await s.waitForSegmentWrites();
    s.close();
    expect(reopenedDocs()).toEqual(expected);
  });

  it('versions across two builds: ids of the set-aside buffer, the current one and tombstones of both resolve right after each publish', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0 });
    const v = (id: string): number => s.get(id).version;
    for (const id of ['a', 'b', 'c']) idx(s, id, { n: 1 });
    s.scheduledRefresh();
    expect(g.builds).toBe(1);
    // while the thread builds: an update and a delete of set-aside docs, a new doc in the current buffer
    expect(idx(s, 'a', { n: 2 }).version).toBe(2);
    expect(s.deleteDoc({ id: 'b' }).version).toBe(2);
    expect(idx(s, 'd', { n: 1 }).version).toBe(1);
    expect([v('a'), s.get('b').found, v('c'), v('d')]).toEqual([2, false, 1, 1]);
    await g.release();
    // published: 'c' is read from the segment, 'a' and 'd' from the current buffer, 'b' from its tombstone
    expect([v('a'), s.get('b').found, v('c'), v('d')]).toEqual([2, false, 1, 1]);
    expect(() => s.indexDoc({ id: 'c', opType: 'create', doc: simpleParse({ n: 9 }, 'c') })).toThrow(/version conflict/);
    expect(idx(s, 'b', { n: 3 }).version).toBe(3);
    expect(idx(s, 'd', { n: 2 }).version).toBe(2);
    expect(s.indexDoc({ id: 'a', opType: 'index', doc: simpleParse({ n: 3 }, 'a'), ifSeqNo: s.get('a').seqNo, ifPrimaryTerm: 1 }).version).toBe(3);
    // a second build: the generation that was current is set aside in its turn
    s.scheduledRefresh();
    expect(g.builds).toBe(2);
    expect(s.deleteDoc({ id: 'd' }).version).toBe(3);
    expect(s.deleteDoc({ id: 'c' }).version).toBe(2);
    expect([v('a'), v('b'), s.get('c').found, s.get('d').found]).toEqual([3, 3, false, false]);
    await g.release();
    expect([v('a'), v('b'), s.get('c').found, s.get('d').found]).toEqual([3, 3, false, false]);
    expect(idx(s, 'd', { n: 4 }).version).toBe(4);
    s.refreshInternal('t');
    expect([v('a'), v('b'), s.get('c').found, v('d')]).toEqual([3, 3, false, 4]);
    expect(s.deleteDoc({ id: 'c' }).result).toBe('not_found');
    const r = s.acquireReader();
    expect(docs(r)).toEqual(new Map([['a', { n: 3 }], ['b', { n: 3 }], ['d', { n: 4 }]]));
    r.decRef();
    await s.waitForSegmentWrites();
    s.close();
    expect(reopenedDocs()).toEqual(new Map([['a', { n: 3 }], ['b', { n: 3 }], ['d', { n: 4 }]]));
  });

  it('a synchronous refresh while the thread builds builds the same docs here, in order; the thread files go', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0 });
    for (let i = 0; i < 200; i++) idx(s, String(i), docOf(i));
    s.scheduledRefresh();
    for (let i = 0; i < 100; i++) idx(s, String(i), { n: -i });
    idx(s, 'new', { n: 1 });
    s.refreshInternal('t');
    const r = s.acquireReader();
    // `_0` is the name the thread writes under: the taken-over build is `_1`, the buffer after it `_2`
    expect(cores(r)).toEqual(['_1:memory', '_2:memory']);
    const got = docs(r);
    expect(got.size).toBe(201);
    expect(got.get('5')).toEqual({ n: -5 });
    expect(got.get('150')).toEqual(docOf(150));
    expect(got.get('new')).toEqual({ n: 1 });
    r.decRef();
    await g.release();
    await s.waitForSegmentWrites();
    // the thread wrote `_0` meanwhile: removed as soon as it finished; one publication only
    expect(segFiles()).toEqual(['_1.seg', '_1.src', '_2.seg', '_2.src']);
    expect(s.stats().refreshTotal).toBe(1);
    expect(s.stats().docsCount).toBe(201);
    s.flush();
    (s as unknown as { closed: boolean }).closed = true;
    const t = newShard();
    expect(t.stats().docsCount).toBe(201);
    expect(t.get('5').source && JSON.parse(Buffer.from(t.get('5').source!).toString())).toEqual({ n: -5 });
  });

  it('a full indexing buffer goes to the thread too; while it builds, the next one grows to twice the limit before a refresh here', async () => {
    const g = gated(undefined, 'build');
    const limit = 64 * 1024;
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0, indexBufferBytes: limit });
    const ram = (): number => (s as unknown as { buffer: { ramBytesUsed: number } }).buffer.ramBytesUsed;
    let n = 0;
    while (g.builds === 0 && n < 5000) idx(s, String(n), docOf(n++));
    // handed to the thread, not built here: nothing published yet, nothing in memory
    expect(g.builds).toBe(1);
    const first = n;
    expect(cores(s.acquireReader())).toEqual([]);
    // the next buffer passes the limit, and stays with the event loop while the thread builds
    while (ram() <= limit) idx(s, String(n), docOf(n++));
    idx(s, String(n), docOf(n++));
    expect(g.builds).toBe(1);
    expect(cores(s.acquireReader())).toEqual([]);
    // at twice the limit the event loop refreshes: the build it takes over and its own buffer, every doc
    let before: number;
    do {
      before = ram();
      idx(s, String(n), docOf(n++));
    } while (ram() > before && n < 10000);
    expect(before).toBeGreaterThan(limit);
    expect(before).toBeLessThanOrEqual(2 * limit);
    const r = s.acquireReader();
    expect(docs(r).size).toBe(n);
    expect(cores(r)).toEqual(['_1:memory', '_2:memory']);
    expect(first).toBeLessThan(n / 2);
    r.decRef();
    await g.release();
    await s.waitForSegmentWrites();
    expect(s.stats().docsCount).toBe(n);
  });

  it('refresh=wait_for waiters are released when the segment holding their docs is published', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0, manualScheduling: false, refreshIntervalMs: 3_600_000, refreshIntervalExplicit: true });
    const released: string[] = [];
    for (let i = 0; i < 100; i++) idx(s, String(i), docOf(i));
    void s.waitForRefresh().then(() => released.push('w1'));
    s.scheduledRefresh();
    idx(s, 'late', { n: 1 });
    void s.waitForRefresh().then(() => released.push('w2'));
    await new Promise<void>((r) => setTimeout(r, 20));
    expect(released).toEqual([]);
    await g.release();
    expect(released).toEqual(['w1']);
    expect(s.numDocs).toBe(100);
    s.scheduledRefresh();
    await s.waitForSegmentWrites();
    await new Promise<void>((r) => setImmediate(r));
    expect(released).toEqual(['w1', 'w2']);
    expect(s.numDocs).toBe(101);

    // closing (without a flush) while a build is pending releases its waiters too; the thread's files go
    for (let i = 0; i < 10; i++) idx(s, `c${i}`, { n: i });
    void s.waitForRefresh().then(() => released.push('w3'));
    s.scheduledRefresh();
    s.close(false);
    await new Promise<void>((r) => setImmediate(r));
    expect(released).toEqual(['w1', 'w2', 'w3']);
    await g.release();
    expect(segFiles()).toEqual(['_0.seg', '_0.src', '_1.seg', '_1.src']);
  });

  it('a buffer under backgroundBuildMinBytes is refreshed at once on the event loop', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 1024 * 1024 });
    for (let i = 0; i < 50; i++) idx(s, String(i), docOf(i));
    s.scheduledRefresh();
    expect(g.builds).toBe(0);
    expect(s.numDocs).toBe(50);
    await g.release();
  });

  it('an automatic flush waits for the build and commits the thread-written files; a synchronous one takes it over', async () => {
    const g = gated(undefined, 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0 });
    for (let i = 0; i < 200; i++) idx(s, String(i), docOf(i));
    s.scheduledRefresh();
    const f = s.flushAsync();
    await new Promise<void>((r) => setTimeout(r, 20));
    expect(s.stats().flushTotal).toBe(0);
    await g.release();
    await f;
    expect(s.stats().flushTotal).toBe(1);
    expect(segFiles()).toEqual(['_0.seg', '_0.src']);

    const g2 = gated(undefined, 'build');
    const sub = path.join(dir, 'sync-flush');
    const t = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid4', shardId: 0, dir: sub, parse: parseBytes, manualScheduling: true, mergeExecutor: g2.exec, backgroundBuildMinBytes: 0 });
    open.push(t);
    for (let i = 0; i < 200; i++) idx(t, String(i), docOf(i));
    t.scheduledRefresh();
    t.deleteDoc({ id: '7' });
    t.flush();
    // the commit names the segment the flush wrote on the event loop (`_2`: the build taken over as `_1`, whose
    // own write to the thread the flush took over in turn), never the thread's `_0`
    const files = (): string[] => fs.readdirSync(sub).filter((x) => x.endsWith('.seg') || x.endsWith('.src')).sort();
    expect(files()).toContain('_2.seg');
    expect(files()).not.toContain('_0.seg');
    await g2.release();
    expect(files()).toEqual(['_2.seg', '_2.src']);
    // crash now: the commit alone brings every doc back
    (t as unknown as { closed: boolean }).closed = true;
    const u = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid4', shardId: 0, dir: sub, parse: parseBytes, manualScheduling: true });
    open.push(u);
    expect(u.stats().docsCount).toBe(199);
    expect(u.get('7').found).toBe(false);
  });

  it('a failed build is built here instead, leaving no partial file; a crash during a build loses no doc', async () => {
    const warnings: string[] = [];
    const g = gated(new Error('ENOSPC: no space left on device, write'), 'build');
    const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0, logger: { warn: (_o, msg) => warnings.push(String(msg)) } });
    for (let i = 0; i < 100; i++) idx(s, String(i), docOf(i));
    s.scheduledRefresh();
    await g.release();
    await s.waitForSegmentWrites();
    expect(warnings).toEqual(['building a refreshed segment in the write thread failed; building it here']);
    expect(s.numDocs).toBe(100);
    expect(segFiles()).toEqual(['_1.seg', '_1.src']);

    // the process dies while the thread builds: the translog brings every doc back
    const g2 = gated(undefined, 'build');
    const sub = path.join(dir, 'crash');
    const t = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid5', shardId: 0, dir: sub, parse: parseBytes, manualScheduling: true, mergeExecutor: g2.exec, backgroundBuildMinBytes: 0 });
    for (let i = 0; i < 100; i++) idx(t, String(i), docOf(i));
    await t.sync();
    t.scheduledRefresh();
    (t as unknown as { closed: boolean }).closed = true;
    await g2.release();
    expect(fs.readdirSync(sub).filter((x) => x.endsWith('.seg') || x.endsWith('.src'))).toEqual([]);
    const u = new IndexShardImpl({ index: 'idx', indexUuid: 'uuid5', shardId: 0, dir: sub, parse: parseBytes, manualScheduling: true });
    open.push(u);
    expect(u.stats().docsCount).toBe(100);
    expect(JSON.parse(Buffer.from(u.get('42').source!).toString())).toEqual(docOf(42));
  });
});

describe('documents written under generated ids (appended without a version map entry)', () => {
  /**
   * Random writes against a model: appends under generated ids (as `_bulk` without `_id`), then gets, updates,
   * deletes, conditional writes and creates of those ids, while buffers are set aside for the thread, built,
   * taken over by synchronous refreshes and published; after each step every id resolves as the model says.
   */
  for (const seed of [1, 2, 3, 4]) {
    it(`resolve as any other doc in the current buffer, the set-aside one and the segments (seed ${seed})`, async () => {
      const rnd = seededRandom(7100 + seed);
      let g = gated(undefined, 'build');
      const s = newShard({ mergeExecutor: g.exec, backgroundBuildMinBytes: 0 });
      const model = new Map<string, { version: number; n: number } | null>();
      const ids: string[] = [];
      let auto = 0;
      let pending = false;
      const check = (id: string): void => {
        const m = model.get(id);
        const got = s.get(id);
        const want = m ? { found: true, version: m.version, n: m.n } : { found: false };
        const have = got.found ? { found: true, version: got.version, n: (JSON.parse(Buffer.from(got.source!).toString()) as { n: number }).n } : { found: false };
        if (JSON.stringify(have) !== JSON.stringify(want)) throw new Error(`${id}: ${JSON.stringify(have)}, expected ${JSON.stringify(want)}`);
      };
      for (let step = 0; step < 400; step++) {
        const r = rnd();
        const pick = (): string => ids[Math.floor(rnd() * ids.length)]!;
        if (r < 0.45 || ids.length === 0) {
          // a run of appends, as a bulk would write them
          for (let k = Math.floor(rnd() * 20); k >= 0; k--) {
            const id = `gen${auto++}`;
            const res = s.indexDoc({ id, opType: 'create', doc: simpleParse({ n: step }, id), autoGeneratedId: true });
            expect([res.result, res.version]).toEqual(['created', 1]);
            model.set(id, { version: 1, n: step });
            ids.push(id);
          }
        } else if (r < 0.6) {
          const id = pick();
          const cur = model.get(id);
          const res = idx(s, id, { n: step });
          expect(res.result).toBe(cur ? 'updated' : 'created');
          model.set(id, { version: res.version, n: step });
        } else if (r < 0.7) {
          const id = pick();
          const cur = model.get(id);
          const res = s.deleteDoc({ id });
          expect(res.result).toBe(cur ? 'deleted' : 'not_found');
          if (cur) model.set(id, null);
        } else if (r < 0.75) {
          const id = pick();
          const cur = model.get(id);
          if (cur) expect(() => s.indexDoc({ id, opType: 'create', doc: simpleParse({ n: step }, id) })).toThrow(/version conflict/);
        } else if (r < 0.8) {
          const id = pick();
          const got = s.get(id);
          if (got.found) {
            const res = s.indexDoc({ id, opType: 'index', doc: simpleParse({ n: step }, id), ifSeqNo: got.seqNo, ifPrimaryTerm: got.primaryTerm });
            model.set(id, { version: res.version, n: step });
          }
        } else if (r < 0.88) {
          if (!pending) {
            s.scheduledRefresh();
            pending = g.builds > 0;
          }
        } else if (r < 0.94) {
          if (pending) {
            await g.release();
            g = gated(undefined, 'build');
            (s as unknown as { cfg: ShardConfig }).cfg.mergeExecutor = g.exec;
            pending = false;
          }
        } else {
          s.refreshInternal('t');
          pending = false;
        }
        // a sample of the ids, after half of the steps (else appends reach a refresh unlooked-up, and are set
        // aside or built without ever having been looked up)
        if (rnd() < 0.5) {
          for (let k = 0; k < 5 && ids.length > 0; k++) check(pick());
          if (ids.length > 0) check(ids[ids.length - 1]!);
        }
      }
      await g.release();
      for (const id of ids) check(id);
      s.refreshInternal('t');
      const live = [...model].filter(([, v]) => v !== null);
      expect(s.stats().docsCount).toBe(live.length);
      const r = s.acquireReader();
      expect(docs(r)).toEqual(new Map(live.map(([id, v]) => [id, { n: v!.n }])));
      r.decRef();
      await s.waitForSegmentWrites();
      s.close();
      expect(reopenedDocs()).toEqual(new Map(live.map(([id, v]) => [id, { n: v!.n }])));
    });
  }
});
