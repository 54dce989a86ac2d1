/**
 * ENOSPC and EIO on the write path never corrupt what was acknowledged. A failing file-system layer
 * (`storeFs`) makes translog appends, fsyncs, segment writes (refresh, flush, merges) and commit writes fail
 * at random while a seeded mix of index, overwrite and delete operations runs; the shard is then abandoned
 * as a kill -9 would leave it, reopened, and every document is compared with a model: an acknowledged
 * operation must be there unless a later operation on the same id replaced it; an unacknowledged one may be
 * there or not, nothing else.
 */
import { seededRandom } from '@strata/core-common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { storeFs } from '../store/directory.js';
import { IndexShardImpl } from './index-shard.js';
import { parseBytes } from './testing/simple-parser.js';

type State = number | null; // the doc's `n`, or null when absent

function errno(code: 'ENOSPC' | 'EIO'): NodeJS.ErrnoException {
  const e = new Error(`${code}: ${code === 'ENOSPC' ? 'no space left on device' : 'i/o error'}, write`) as NodeJS.ErrnoException;
  e.code = code;
  return e;
}

/** installs failing versions of the storeFs calls; returns a restore function */
function injectFaults(opts: { rand: () => number; writeFailure: () => number; fsyncFailure: () => number; code: 'ENOSPC' | 'EIO' }): () => void {
  const orig = { ...storeFs };
  storeFs.writeSync = (fd, buf, offset = 0, length = buf.byteLength - offset, position = null) => {
    if (opts.rand() < opts.writeFailure()) {
      // half the time some bytes reach the file first: a partial frame or a half-written segment
      if (length > 1 && opts.rand() < 0.5) return orig.writeSync(fd, buf, offset, Math.floor(length / 2), position);
      throw errno(opts.code);
    }
    return orig.writeSync(fd, buf, offset, length, position);
  };
  storeFs.openSync = (file, flags) => {
    if (opts.rand() < opts.writeFailure()) throw errno(opts.code);
    return orig.openSync(file, flags);
  };
  storeFs.fsyncSync = (fd) => {
    if (opts.rand() < opts.fsyncFailure()) throw errno(opts.code);
    orig.fsyncSync(fd);
  };
  storeFs.fsync = (fd, cb) => {
    if (opts.rand() < opts.fsyncFailure()) {
      setImmediate(() => cb(errno(opts.code)));
      return;
    }
    orig.fsync(fd, cb);
  };
  storeFs.renameSync = (from, to) => {
    if (opts.rand() < opts.writeFailure()) throw errno(opts.code);
    orig.renameSync(from, to);
  };
  return () => Object.assign(storeFs, orig);
}

const enc = new TextEncoder();
const dec = new TextDecoder();

function openShard(dir: string): IndexShardImpl {
  return new IndexShardImpl({
    index: 'disk',
    indexUuid: 'disk-uuid',
    shardId: 0,
    dir,
    parse: parseBytes,
    manualScheduling: true,
    durability: 'request',
    indexBufferBytes: 24 * 1024,
    flushThresholdBytes: 1 << 40, // flushes are explicit (and synchronous) here
    mergePolicy: { segsPerTier: 4 },
  });
}

/** the model: per id, the states it may be in (the last acknowledged one plus any unacknowledged later ones) */
class Model {
  readonly candidates = new Map<string, State[]>();
  acked = 0;
  unacked = 0;
  ack(id: string, s: State): void {
    this.candidates.set(id, [s]);
    this.acked++;
  }
  maybe(id: string, s: State): void {
    const c = this.candidates.get(id) ?? [null];
    if (!c.includes(s)) c.push(s);
    this.candidates.set(id, c);
    this.unacked++;
  }
}

/** whether the shard's translog refuses writes until a reopen (a failed fsync or roll) */
function translogFailed(shard: IndexShardImpl): boolean {
  return (shard['translog'] as unknown as { tragedy: Error | null }).tragedy !== null;
}

function stateOf(shard: IndexShardImpl, id: string): State {
  const g = shard.get(id);
  if (!g.found) return null;
  return (JSON.parse(dec.decode(g.source!)) as { n: number }).n;
}

/** compares every id with the model; returns the ids whose state is not a possible one */
function divergences(shard: IndexShardImpl, model: Model): string[] {
  const bad: string[] = [];
  for (const [id, c] of model.candidates) if (!c.includes(stateOf(shard, id))) bad.push(`${id}: ${stateOf(shard, id)} not in ${JSON.stringify(c)}`);
  // nothing else is there: a search of everything finds exactly the ids the model allows
  const reader = shard.acquireReader();
  try {
    if (reader.numDocs > model.candidates.size) bad.push(`numDocs ${reader.numDocs} > ${model.candidates.size} ids ever written`);
  } finally {
    reader.decRef();
  }
  return bad;
}

async function runOps(shard: IndexShardImpl, model: Model, rand: () => number, ops: number, counter: { n: number }): Promise<{ failedRequests: number }> {
  let failedRequests = 0;
  const ids = 400;
  for (let done = 0; done < ops; ) {
    // [id, state, whether the write call returned]: settled in order once the batch's fsync is known
    const batch: Array<[string, State, boolean]> = [];
    let failed = false;
    const size = 1 + Math.floor(rand() * 8);
    for (let i = 0; i < size; i++, done++) {
      const id = `d${Math.floor(rand() * ids)}`;
      const del = rand() < 0.2;
      const n = counter.n++;
      try {
        if (del) shard.deleteDoc({ id });
        else {
          const source = enc.encode(JSON.stringify({ n, text: `value ${n} of ${id} ${'x'.repeat(Math.floor(rand() * 200))}` }));
          shard.indexDoc({ id, opType: 'index', doc: parseBytes(source, id, undefined), source });
        }
        batch.push([id, del ? null : n, true]);
      } catch {
        // the op may have been applied before the failure (e.g. a refresh when the buffer filled): unknown
        batch.push([id, del ? null : n, false]);
        failed = true;
      }
    }
    let synced = false;
    try {
      await shard.sync();
      synced = true;
    } catch {
      failed = true;
    }
    for (const [id, s, returned] of batch) {
      if (synced && returned) model.ack(id, s);
      else model.maybe(id, s);
    }
    if (failed) failedRequests++;
    const r = rand();
    try {
      if (r < 0.05) await shard.refresh('test');
      else if (r < 0.08) shard.flush();
      else if (r < 0.09) shard.forceMerge(1);
    } catch {
      /* a failed refresh/flush/merge changes nothing acknowledged */
    }
  }
  return { failedRequests };
}

jest.setTimeout(60_000);

describe('ENOSPC / EIO during writes and flushes', () => {
  let root: string;
  beforeEach(() => {
    // the failures are injected, so a memory file system (cheap fsyncs) tests the same code paths
    root = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'disk-failure-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it.each([1, 2, 3])('a full disk (ENOSPC at random writes, seed %i) loses nothing acknowledged across a crash and a restart', async (seed) => {
    const dir = path.join(root, 'shard');
    const rand = seededRandom(seed);
    const model = new Model();
    const counter = { n: 0 };
    let shard = openShard(dir);
    let full = false;
    const restore = injectFaults({ rand: seededRandom(seed * 7919), writeFailure: () => (full ? 0.35 : 0), fsyncFailure: () => 0, code: 'ENOSPC' });
    let failed = 0;
    let reopened = 0;
    try {
      for (let round = 0; round < 6; round++) {
        full = round % 2 === 1;
        // a translog failed for good (its new generation could not be created) takes writes again only after
        // the shard is reopened, as a restarted node would: abandon it (kill -9) and recover
        if (!full && translogFailed(shard)) {
          shard = openShard(dir);
          reopened++;
        }
        failed += (await runOps(shard, model, rand, 250, counter)).failedRequests;
      }
    } finally {
      full = false;
      restore();
    }
    expect(failed).toBeGreaterThan(10); // the disk really was full for many requests
    expect(reopened).toBeLessThanOrEqual(3);
    expect(model.acked).toBeGreaterThan(500);
    // the node keeps working once space is back
    expect(divergences(shard, model)).toEqual([]);
    await runOps(shard, model, rand, 100, counter);
    expect(divergences(shard, model)).toEqual([]);

    // kill -9: the shard is abandoned as it is, then recovered from disk
    shard = openShard(dir);
    expect(divergences(shard, model)).toEqual([]);
    await runOps(shard, model, rand, 100, counter);
    shard.close();
    shard = openShard(dir);
    try {
      expect(divergences(shard, model)).toEqual([]);
    } finally {
      shard.close();
    }
  });

  it('a failed fsync (EIO) fails the translog: later writes get translog_exception, nothing acknowledged is lost, a reopen recovers', async () => {
    const dir = path.join(root, 'shard');
    const rand = seededRandom(42);
    const model = new Model();
    const counter = { n: 0 };
    let shard = openShard(dir);
    await runOps(shard, model, rand, 400, counter);
    let eio = true;
    const restore = injectFaults({ rand: () => 0, writeFailure: () => 0, fsyncFailure: () => (eio ? 1 : 0), code: 'EIO' });
    try {
      const source = enc.encode(JSON.stringify({ n: -1 }));
      shard.indexDoc({ id: 'after-eio', opType: 'index', doc: parseBytes(source, 'after-eio', undefined), source });
      model.maybe('after-eio', -1);
      await expect(shard.sync()).rejects.toMatchObject({ type: 'translog_exception', status: 500 });
      eio = false;
      // even with the disk healthy again the translog takes nothing until the shard is reopened
      expect(() => shard.indexDoc({ id: 'x', opType: 'index', doc: parseBytes(source, 'x', undefined), source })).toThrow(/is failed after an fsync error/);
      expect(() => shard.deleteDoc({ id: 'd1' })).toThrow(/translog/);
      expect(divergences(shard, model)).toEqual([]);
    } finally {
      restore();
    }
    shard = openShard(dir); // the failed instance is abandoned, as a crashed node would leave it
    expect(divergences(shard, model)).toEqual([]);
    await runOps(shard, model, rand, 200, counter);
    shard.close();
    shard = openShard(dir);
    try {
      expect(divergences(shard, model)).toEqual([]);
      expect(model.acked).toBeGreaterThan(500);
    } finally {
      shard.close();
    }
  });
});
