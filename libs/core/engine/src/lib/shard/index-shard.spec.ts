import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EsError } from '@strata/core-common';
import { IndexShardImpl, type ShardConfig } from './index-shard.js';
import { simpleParse, parseBytes } from './testing/simple-parser.js';
import { MergeWorkerPool, mergeWorkerFile, type MergeExecutor } from './merge-pool.js';
import type { SegmentReader } from '../index/segment.js';
import type { DirectoryReader } from '../index/leaf-reader.js';

let dir: string;
const open: IndexShardImpl[] = [];
function newShard(extra: Partial<ShardConfig> = {}): IndexShardImpl {
  const s = new IndexShardImpl({
    index: 'idx',
    indexUuid: 'uuid1',
    shardId: 0,
    dir,
    parse: parseBytes,
    manualScheduling: true,
    ...extra,
  });
  open.push(s);
  return s;
}
function idx(s: IndexShardImpl, id: string, src: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return s.indexDoc({ id, opType: 'index', doc: simpleParse(src, id), ...extra });
}
function ids(r: DirectoryReader): string[] {
  const out: string[] = [];
  for (const l of r.leaves) {
    const leaf = l.reader as SegmentReader;
    for (let d = 0; d < leaf.maxDoc; d++) if (leaf.isLive(d)) out.push(leaf.id(d));
  }
  return out.sort();
}
function expectConflict(fn: () => unknown, reason: string) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    expect((e as EsError).type).toBe('version_conflict_engine_exception');
    expect((e as EsError).status).toBe(409);
    expect((e as EsError).reason).toBe(reason);
    return;
  }
  throw new Error('expected a conflict');
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'shard-'));
});
afterEach(() => {
  for (const s of open.splice(0)) if (!s.isClosed) s.close(false);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('IndexShard writes and versions', () => {
  it('assigns seq_no from 0, versions from 1, created then updated', () => {
    const s = newShard();
    expect(idx(s, '1', { a: 'x' })).toEqual({ result: 'created', version: 1, seqNo: 0, primaryTerm: 1 });
    expect(idx(s, '1', { a: 'y' })).toEqual({ result: 'updated', version: 2, seqNo: 1, primaryTerm: 1 });
    expect(idx(s, '2', { a: 'z' })).toEqual({ result: 'created', version: 1, seqNo: 2, primaryTerm: 1 });
    s.refreshInternal('test');
    expect(idx(s, '1', { a: 'w' }).version).toBe(3);
  });

  it('rejects create of an existing doc with ES reason', () => {
    const s = newShard();
    idx(s, '1', { a: 'x' });
    expectConflict(
      () => s.indexDoc({ id: '1', opType: 'create', doc: simpleParse({}, '1') }),
      '[1]: version conflict, document already exists (current version [1])',
    );
    s.refreshInternal('t');
    expectConflict(
      () => s.indexDoc({ id: '1', opType: 'create', doc: simpleParse({}, '1') }),
      '[1]: version conflict, document already exists (current version [1])',
    );
  });

  it('checks if_seq_no / if_primary_term', () => {
    const s = newShard();
    for (let i = 0; i < 7; i++) idx(s, '1', { i });
    expectConflict(
      () => idx(s, '1', {}, { ifSeqNo: 5, ifPrimaryTerm: 1 }),
      '[1]: version conflict, required seqNo [5], primary term [1]. current document has seqNo [6] and primary term [1]',
    );
    expectConflict(
      () => idx(s, 'missing', {}, { ifSeqNo: 5, ifPrimaryTerm: 1 }),
      '[missing]: version conflict, required seqNo [5], primary term [1] but no document was found',
    );
    expect(idx(s, '1', {}, { ifSeqNo: 6, ifPrimaryTerm: 1 })).toMatchObject({ result: 'updated', seqNo: 7, version: 8 });
  });

  it('implements external and external_gte versioning', () => {
    const s = newShard();
    expect(idx(s, '1', {}, { version: 5, versionType: 'external' })).toMatchObject({ result: 'created', version: 5 });
    expectConflict(
      () => idx(s, '1', {}, { version: 5, versionType: 'external' }),
      '[1]: version conflict, current version [5] is higher or equal to the one provided [5]',
    );
    expect(idx(s, '1', {}, { version: 5, versionType: 'external_gte' })).toMatchObject({ result: 'updated', version: 5 });
    expectConflict(
      () => idx(s, '1', {}, { version: 4, versionType: 'external_gte' }),
      '[1]: version conflict, current version [5] is higher than the one provided [4]',
    );
  });

  it('deletes: found, not_found, tombstone versions', () => {
    const s = newShard();
    idx(s, '1', {});
    expect(s.deleteDoc({ id: '1' })).toEqual({ result: 'deleted', version: 2, seqNo: 1, primaryTerm: 1 });
    expect(s.deleteDoc({ id: '1' })).toMatchObject({ result: 'not_found', version: 3 });
    expect(s.deleteDoc({ id: 'never' })).toMatchObject({ result: 'not_found', version: 1, seqNo: 3 });
    s.refreshInternal('t');
    expect(idx(s, '1', {})).toMatchObject({ result: 'created', version: 4 });
  });

  it('realtime get sees unrefreshed docs; non-realtime does not', () => {
    const s = newShard();
    idx(s, '1', { a: 'hello' });
    const g = s.get('1');
    expect(g.found).toBe(true);
    expect(JSON.parse(Buffer.from(g.source!).toString())).toEqual({ a: 'hello' });
    expect(s.get('1', false).found).toBe(false);
    s.refreshInternal('t');
    expect(s.get('1', false)).toMatchObject({ found: true, version: 1, seqNo: 0 });
    s.deleteDoc({ id: '1' });
    expect(s.get('1').found).toBe(false);
  });
});

describe('readers', () => {
  it('refresh publishes a new generation; a no-op refresh keeps the reader', () => {
    const s = newShard();
    const r0 = s.acquireReader();
    idx(s, '1', { a: 'x' });
    expect(s.refreshInternal('t')).toBe(true);
    const r1 = s.acquireReader();
    expect(r1.generation).toBe(r0.generation + 1);
    expect(s.refreshInternal('t')).toBe(false);
    const r2 = s.acquireReader();
    expect(r2).toBe(r1);
    expect(r1.cacheKey).toBe(`uuid1/0/${r1.generation}`);
    r0.decRef();
    r1.decRef();
    r2.decRef();
  });

  it('older readers keep their view across updates and deletes (copy-on-write live docs)', () => {
    const s = newShard();
    idx(s, '1', { a: 'x' });
    idx(s, '2', { a: 'y' });
    idx(s, '3', { a: 'w' });
    s.refreshInternal('t');
    const before = s.acquireReader();
    idx(s, '1', { a: 'z' });
    s.deleteDoc({ id: '2' });
    s.refreshInternal('t');
    const after = s.acquireReader();
    expect(ids(before)).toEqual(['1', '2', '3']);
    expect(before.numDocs).toBe(3);
    expect(ids(after)).toEqual(['1', '3']);
    expect(after.numDocs).toBe(2);
    const leaf0Before = before.leaves[0].reader;
    const leaf0After = after.leaves[0].reader;
    expect(leaf0After.segmentName).toBe(leaf0Before.segmentName);
    expect(leaf0After.delGen).toBeGreaterThan(leaf0Before.delGen);
    before.decRef();
    after.decRef();
  });
});

describe('durability', () => {
  it('flush + reopen keeps docs, versions and seq_nos', async () => {
    let s = newShard();
    idx(s, '1', { a: 'one' });
    idx(s, '2', { a: 'two' });
    s.refreshInternal('t');
    s.deleteDoc({ id: '2' });
    s.flush();
    s.close();
    s = newShard();
    const r = s.acquireReader();
    expect(ids(r)).toEqual(['1']);
    r.decRef();
    expect(s.get('1')).toMatchObject({ found: true, version: 1, seqNo: 0 });
    expect(idx(s, '3', {}).seqNo).toBe(3);
  });

  it('recovers unflushed ops by replaying the translog', async () => {
    let s = newShard();
    idx(s, '1', { a: 'one' });
    s.flush();
    idx(s, '2', { a: 'two' });
    idx(s, '1', { a: 'uno' });
    s.deleteDoc({ id: '2' });
    idx(s, '3', { a: 'three' }, { routing: 'r' });
    await s.sync();
    // simulate a crash: do not flush, just drop the instance (translog is synced)
    s.destroy = () => undefined;
    (s as unknown as { closed: boolean }).closed = true;
    open.pop();
    s = newShard();
    const g = s.get('1');
    expect(JSON.parse(Buffer.from(g.source!).toString())).toEqual({ a: 'uno' });
    expect(g.version).toBe(2);
    expect(s.get('2').found).toBe(false);
    expect(s.get('3').found).toBe(true);
    expect(s.localCheckpoint).toBe(4);
    const r = s.acquireReader();
    expect(ids(r)).toEqual(['1', '3']);
    r.decRef();
  });

  it('starts despite a torn translog tail', async () => {
    let s = newShard();
    idx(s, '1', { a: 'one' });
    await s.sync();
    idx(s, '2', { a: 'two' });
    await s.sync();
    (s as unknown as { closed: boolean }).closed = true;
    open.pop();
    const tdir = path.join(dir, 'translog');
    const f = fs.readdirSync(tdir).filter((n) => n.endsWith('.tlog')).sort().pop()!;
    const full = path.join(tdir, f);
    const buf = fs.readFileSync(full);
    fs.writeFileSync(full, buf.subarray(0, buf.length - 5));
    s = newShard();
    expect(s.get('1').found).toBe(true);
    expect(s.get('2').found).toBe(false);
  });
});

describe('merging', () => {
  it('merges small segments and keeps search results identical', () => {
    const s = newShard({ mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 3, floorSegmentDocs: 10 } });
    for (let i = 0; i < 9; i++) {
      idx(s, String(i), { msg: `word${i % 3} common`, n: i });
      if (i === 4) s.deleteDoc({ id: '1' });
      s.refreshInternal('t');
    }
    const before = s.acquireReader();
    const beforeIds = ids(before);
    expect(before.leaves.length).toBeGreaterThanOrEqual(3);
    while (s.mergeOnce()) {
      /* merge */
    }
    s.refreshInternal('t');
    const after = s.acquireReader();
    expect(after.leaves.length).toBeLessThan(before.leaves.length);
    expect(ids(after)).toEqual(beforeIds);
    // old reader still valid
    expect(ids(before)).toEqual(beforeIds);
    let common = 0;
    for (const l of after.leaves) {
      const p = l.reader.postings('msg', 'common');
      if (p) for (let i = 0; i < p.docFreq; i++) if (l.reader.isLive(p.docs[i])) common++;
    }
    expect(common).toBe(8);
    before.decRef();
    after.decRef();
  });

  it('force merge to one segment, survives flush + reopen, deletes old files', () => {
    let s = newShard();
    for (let i = 0; i < 5; i++) {
      idx(s, String(i), { n: i });
      s.flush();
    }
    // reopened: every segment is read from its files
    s.close();
    s = newShard();
    s.deleteDoc({ id: '0' });
    // merges.total_size_in_bytes counts the merged inputs' size (their .seg and .src files); _0 held only
    // the deleted doc, so the refresh before the merge drops it instead
    const inputBytes = fs
      .readdirSync(dir)
      .filter((n) => (n.endsWith('.seg') || n.endsWith('.src')) && !n.startsWith('_0.'))
      .reduce((sum, n) => sum + fs.statSync(path.join(dir, n)).size, 0);
    expect(inputBytes).toBeGreaterThan(0);
    expect(s.stats().mergesTotalSizeInBytes).toBe(0);
    s.forceMerge(1);
    expect(s.stats().segmentsCount).toBe(1);
    expect(s.stats().mergesTotal).toBe(1);
    expect(s.stats().mergesTotalSizeInBytes).toBe(inputBytes);
    s.flush();
    const segFiles = fs.readdirSync(dir).filter((n) => n.endsWith('.seg'));
    expect(segFiles.length).toBe(1);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.src'))).toEqual([segFiles[0].replace('.seg', '.src')]);
    expect(fs.readdirSync(dir).filter((n) => n.endsWith('.liv'))).toEqual([]);
    s.close();
    s = newShard();
    expect(s.stats().docsCount).toBe(4);
    expect(s.stats().docsDeleted).toBe(0);
  });
});

describe('search idle and inactive flush', () => {
  it('a search-idle shard refreshes on the next search; an active one waits for the schedule', () => {
    let t = 0;
    const s = newShard({ manualScheduling: false, refreshIntervalMs: 1000, now: () => t });
    const r0 = s.acquireReader();
    r0.decRef();
    idx(s, '1', { a: 'x' });
    t = 1000;
    const r1 = s.acquireReader();
    expect(r1.numDocs).toBe(0);
    r1.decRef();
    t = 40_000;
    expect(s.searchIdle).toBe(true);
    const r2 = s.acquireReader();
    expect(r2.numDocs).toBe(1);
    r2.decRef();
    expect(s.searchIdle).toBe(false);
  });

  it('flushes a shard without writes for 5 minutes', async () => {
    let t = 0;
    const s = newShard({ manualScheduling: false, now: () => t });
    idx(s, '1', { a: 'x' });
    (s as unknown as { afterWrite(): void }).afterWrite();
    t = 60_000;
    (s as unknown as { maybeFlushInactive(): void }).maybeFlushInactive();
    expect(s.stats().flushTotal).toBe(0);
    t = 6 * 60_000;
    (s as unknown as { maybeFlushInactive(): void }).maybeFlushInactive();
    await s.flushAsync(); // joins the flush started in the background
    expect(s.stats().flushTotal).toBe(1);
    expect(s.stats().translogUncommittedOperations).toBe(0);
    expect(fs.existsSync(path.join(dir, 'commit.json'))).toBe(true);
  });
});

// background merges run on the event loop in slices (no executor) or in a worker thread (the node's pool)
describe.each([
  ['on the event loop', false],
  ['in a worker thread', true],
])('merges %s', (_how, inWorker) => {
  let pool: MergeWorkerPool | null = null;
  let tasks = 0;
  const executor = (): MergeExecutor | undefined => {
    if (!inWorker) return undefined;
    pool ??= new MergeWorkerPool(1, mergeWorkerFile()!);
    const p = pool;
    return { run: (t) => (tasks++, p.run(t)) };
  };
  afterAll(async () => {
    await pool?.close();
    // the worker ran the merges (the bundle is built by the tests' global setup)
    if (inWorker) expect(tasks).toBeGreaterThanOrEqual(2);
  });

  describe('background merge', () => {
    it('carries over deletes and updates that happen while a merge runs', async () => {
      const s = newShard({
        mergeExecutor: executor(),
        manualScheduling: false,
        refreshIntervalMs: 3_600_000,
        refreshIntervalExplicit: true,
        mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 4, floorSegmentDocs: 2000 },
      });
      let n = 0;
      for (let seg = 0; seg < 4; seg++) {
        for (let i = 0; i < 500; i++, n++) idx(s, String(n), { msg: `w${n % 13} text`, n });
        s.refreshInternal('t'); // the 4th refresh starts a background merge
      }
      expect(s.stats().mergesCurrent).toBe(1);
      // while it runs: deletes, updates and new docs
      for (let i = 0; i < 2000; i += 7) s.deleteDoc({ id: String(i) });
      for (let i = 3; i < 2000; i += 11) idx(s, String(i), { msg: 'updated', n: -i });
      await s.waitForMerges();
      // the merged segment replaced the four sources and carries the deletes made meanwhile
      expect(s.stats().segmentsCount).toBe(1);
      expect(s.stats().docsDeleted).toBe(286 + 182 - 26);
      s.refreshInternal('t');
      expect(s.stats().mergesTotal).toBeGreaterThanOrEqual(1);
      const r = s.acquireReader();
      const live = new Map<string, string>();
      for (const l of r.leaves) {
        const leaf = l.reader as SegmentReader;
        for (let d = 0; d < leaf.maxDoc; d++) {
          if (!leaf.isLive(d)) continue;
          expect(live.has(leaf.id(d))).toBe(false);
          live.set(leaf.id(d), Buffer.from(leaf.source(d)!).toString());
        }
      }
      r.decRef();
      for (let i = 0; i < 2000; i++) {
        const deleted = i % 7 === 0;
        const updated = i >= 3 && (i - 3) % 11 === 0;
        const id = String(i);
        if (updated) expect(JSON.parse(live.get(id)!)).toEqual({ msg: 'updated', n: -i });
        else if (deleted) expect(live.has(id)).toBe(false);
        else expect(JSON.parse(live.get(id)!).n).toBe(i);
      }
    });
  });

  describe('force merge over a running background merge', () => {
    it('does not delete the files the background merge still reads (found by the differential oracle)', async () => {
      const s = newShard({
        mergeExecutor: executor(),
        manualScheduling: false,
        refreshIntervalMs: 3_600_000,
        refreshIntervalExplicit: true,
        mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 4, floorSegmentDocs: 2000 },
      });
      let n = 0;
      for (let seg = 0; seg < 4; seg++) {
        for (let i = 0; i < 500; i++, n++) idx(s, String(n), { msg: `w${n % 13} text`, n });
        s.refreshInternal('t');
      }
      expect(s.stats().mergesCurrent).toBe(1);
      // the force merge takes the same segments and finishes first
      s.forceMerge(1);
      expect(s.stats().segmentsCount).toBe(1);
      await s.waitForMerges();
      s.refreshInternal('t');
      expect(s.stats().segmentsCount).toBe(1);
      const r = s.acquireReader();
      expect(ids(r)).toHaveLength(2000);
      for (const l of r.leaves) {
        const leaf = l.reader as SegmentReader;
        for (let d = 0; d < leaf.maxDoc; d += 97) expect(JSON.parse(Buffer.from(leaf.source(d)!).toString()).n).toBe(Number(leaf.id(d)));
      }
      r.decRef();
      // no file of a merged-away segment is left behind
      s.flush();
      const srcs = fs.readdirSync(dir).filter((f) => f.endsWith('.src'));
      expect(srcs).toHaveLength(1);
    });
  });
});

describe('a merge that fails in its worker', () => {
  it('leaves the inputs as they were and no file of the merged segment behind', async () => {
    const warnings: string[] = [];
    const s = newShard({
      manualScheduling: false,
      refreshIntervalMs: 3_600_000,
      refreshIntervalExplicit: true,
      mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 4, floorSegmentDocs: 2000 },
      logger: { warn: (_o, msg) => warnings.push(String(msg)) },
      // the worker wrote part of the merged segment, then failed (disk full)
      mergeExecutor: {
        run: async (t) => {
          fs.writeFileSync(path.join(t.dir, `${t.name}.src`), 'partial');
          throw new Error('ENOSPC: no space left on device, write');
        },
      },
    });
    let n = 0;
    for (let seg = 0; seg < 4; seg++) {
      for (let i = 0; i < 500; i++, n++) idx(s, String(n), { msg: `w${n % 13} text`, n });
      s.refreshInternal('t');
    }
    expect(s.stats().mergesCurrent).toBe(1);
    await s.waitForMerges();
    expect(warnings).toEqual(['merge failed']);
    expect(s.stats().segmentsCount).toBe(4);
    expect(s.stats().mergesTotal).toBe(0);
    const r = s.acquireReader();
    expect(ids(r)).toHaveLength(2000);
    r.decRef();
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.src'))).toHaveLength(4);
  });
});

describe('background flush', () => {
  it('commits a consistent snapshot while writes and merges go on, and recovers after a crash', async () => {
    let s = newShard({ mergePolicy: { segsPerTier: 2, maxMergeAtOnce: 10, floorSegmentDocs: 1 } });
    let n = 0;
    for (let seg = 0; seg < 6; seg++) {
      for (let i = 0; i < 50; i++, n++) idx(s, String(n), { n });
      s.refreshInternal('t');
    }
    const p = s.flushAsync();
    expect(s.flushAsync()).toBe(p); // one at a time
    // meanwhile: more writes, deletes, and a merge of the segments being committed
    for (let i = 0; i < 300; i += 3) s.deleteDoc({ id: String(i) });
    for (let i = 0; i < 40; i++, n++) idx(s, String(n), { n });
    s.forceMerge(1);
    await p;
    expect(s.stats().flushTotal).toBe(1);
    await s.sync();
    // crash: drop the instance without flushing
    (s as unknown as { closed: boolean }).closed = true;
    open.pop();
    s = newShard();
    for (let i = 0; i < n; i++) {
      const deleted = i < 300 && i % 3 === 0;
      expect([i, s.get(String(i)).found]).toEqual([i, !deleted]);
    }
    // files of merged-away segments are gone once the next commit no longer needs them
    s.flush();
    const segs = fs.readdirSync(dir).filter((f) => f.endsWith('.seg')).length;
    expect(segs).toBe(s.stats().segmentsCount);
  });

  it('a synchronous flush completes an automatic one first', async () => {
    const s = newShard();
    for (let i = 0; i < 20; i++) {
      idx(s, String(i), { i });
      s.refreshInternal('t');
    }
    const p = s.flushAsync();
    idx(s, 'late', { x: 1 });
    s.flush();
    await p;
    expect(s.stats().flushTotal).toBe(2);
    expect(s.stats().translogUncommittedOperations).toBe(0);
  });
});
