/**
 * The segments a shard lists for the segments APIs: those of its current reader (as that reader sees their
 * docs) and those of its last commit, by generation; refreshes, deletes, flushes, merges, a segment still in
 * memory, and a reopened shard.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl, segmentGeneration, type ShardConfig } from './index-shard.js';
import type { MergeExecutor } from './merge-pool.js';
import { simpleParse, parseBytes } from './testing/simple-parser.js';
import type { ShardSegment } from '../services.js';

let dir: string;
const open: IndexShardImpl[] = [];

function newShard(extra: Partial<ShardConfig> = {}): IndexShardImpl {
  const s = new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir, parse: parseBytes, manualScheduling: true, backgroundChecksumDelayMs: -1, ...extra });
  open.push(s);
  return s;
}
function add(s: IndexShardImpl, from: number, to: number): void {
  for (let i = from; i < to; i++) s.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i, t: `doc ${i}` }, `d${i}`) });
}
/** the listing without sizes: [name, generation, numDocs, deletedDocs, committed, search] */
function rows(s: IndexShardImpl): Array<[string, number, number, number, boolean, boolean]> {
  return s.segmentsInfo().map((g) => [g.name, g.generation, g.numDocs, g.deletedDocs, g.committed, g.search]);
}
function sizeOf(s: IndexShardImpl, name: string): number {
  const g = s.segmentsInfo().find((x: ShardSegment) => x.name === name);
  if (!g) throw new Error(`no segment ${name}`);
  return g.sizeInBytes;
}
const filesSize = (name: string): number =>
  fs
    .readdirSync(dir)
    .filter((f) => f.startsWith(`${name}.`))
    .reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'segments-info-'));
});
afterEach(() => {
  for (const s of open.splice(0)) if (!s.isClosed) s.close(false);
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('segmentGeneration', () => {
  it('reads the base-36 number of a segment name', () => {
    expect(['_0', '_9', '_a', '_z', '_10', '_1a'].map(segmentGeneration)).toEqual([0, 9, 10, 35, 36, 46]);
  });
});

describe('IndexShardImpl.segmentsInfo', () => {
  it('lists the reader and the last commit through refreshes, deletes, a flush and a force merge', () => {
    const s = newShard();
    expect(s.segmentsInfo()).toEqual([]);
    add(s, 0, 10);
    // buffered docs are in no segment until a refresh
    expect(s.segmentsInfo()).toEqual([]);
    s.refreshInternal('test');
    add(s, 10, 20);
    s.refreshInternal('test');
    add(s, 20, 30);
    s.refreshInternal('test');
    expect(rows(s)).toEqual([
      ['_0', 0, 10, 0, false, true],
      ['_1', 1, 10, 0, false, true],
      ['_2', 2, 10, 0, false, true],
    ]);
    // the files written at refresh are the segment's size
    expect(sizeOf(s, '_1')).toBe(filesSize('_1'));

    // a delete shows once a refresh publishes it: the listing is the reader's view, and refreshes nothing
    s.deleteDoc({ id: 'd3' });
    expect(rows(s)[0]).toEqual(['_0', 0, 10, 0, false, true]);
    s.refreshInternal('test');
    expect(rows(s)[0]).toEqual(['_0', 0, 9, 1, false, true]);

    s.flush();
    expect(rows(s)).toEqual([
      ['_0', 0, 9, 1, true, true],
      ['_1', 1, 10, 0, true, true],
      ['_2', 2, 10, 0, true, true],
    ]);
    // deleted after the commit: the reader's segment counts it, and stays committed (by name, as Elasticsearch)
    s.deleteDoc({ id: 'd12' });
    s.refreshInternal('test');
    expect(rows(s)[1]).toEqual(['_1', 1, 9, 1, true, true]);

    // merged into _3: the reader searches _3; the committed segments stay listed as the commit has them
    s.forceMerge(1);
    expect(rows(s)).toEqual([
      ['_0', 0, 9, 1, true, false],
      ['_1', 1, 10, 0, true, false],
      ['_2', 2, 10, 0, true, false],
      ['_3', 3, 28, 0, false, true],
    ]);
    expect(sizeOf(s, '_0')).toBe(filesSize('_0'));
    s.flush();
    expect(rows(s)).toEqual([['_3', 3, 28, 0, true, true]]);
    expect(sizeOf(s, '_3')).toBe(filesSize('_3'));

    // a shard reopened over the directory lists its commit, searched
    s.close();
    const again = newShard();
    expect(rows(again)).toEqual([['_3', 3, 28, 0, true, true]]);
  });

  it('orders by generation past _9 and drops a segment whose docs are all deleted from the reader only', () => {
    const s = newShard();
    for (let i = 0; i < 12; i++) {
      add(s, i * 2, i * 2 + 2);
      s.refreshInternal('test');
    }
    expect(s.segmentsInfo().map((g) => g.name)).toEqual(['_0', '_1', '_2', '_3', '_4', '_5', '_6', '_7', '_8', '_9', '_a', '_b']);
    s.flush();
    s.deleteDoc({ id: 'd20' });
    s.deleteDoc({ id: 'd21' });
    s.refreshInternal('test');
    // _a left the reader (fully deleted) but is still in the last commit, with its two docs
    const a = s.segmentsInfo().filter((g) => g.name === '_a');
    expect(a.map((g) => [g.numDocs, g.deletedDocs, g.committed, g.search])).toEqual([[2, 0, true, false]]);
    s.flush();
    expect(s.segmentsInfo().some((g) => g.name === '_a')).toBe(false);
    expect(s.segmentsInfo()).toHaveLength(11);
  });

  it('reads the deletes of a committed segment that left the reader from its live docs file', () => {
    const s = newShard();
    add(s, 0, 10);
    s.refreshInternal('test');
    add(s, 10, 20);
    s.refreshInternal('test');
    s.deleteDoc({ id: 'd1' });
    s.deleteDoc({ id: 'd2' });
    s.flush();
    // the commit names _0 with its live docs file (whose generation the deletes made)
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.liv'))).toEqual([expect.stringMatching(/^_0_\d+\.liv$/)]);
    s.deleteDoc({ id: 'd4' });
    s.forceMerge(1);
    expect(rows(s)).toEqual([
      ['_0', 0, 8, 2, true, false],
      ['_1', 1, 10, 0, true, false],
      ['_2', 2, 17, 0, false, true],
    ]);
  });

  it('lists a refreshed segment whose files a worker still writes at its size in memory', () => {
    const held: MergeExecutor = {
      run: () => new Promise(() => undefined),
      // the worker never finishes: the segment stays in memory
      write: () => new Promise(() => undefined),
    };
    const s = newShard({ mergeExecutor: held });
    add(s, 0, 5);
    s.refreshInternal('test');
    const [g] = s.segmentsInfo();
    expect([g.name, g.numDocs, g.committed, g.search]).toEqual(['_0', 5, false, true]);
    expect(g.sizeInBytes).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dir, '_0.seg'))).toBe(false);
    // a flush writes it on the event loop under a new name: the reader and the commit have that one
    s.flush();
    expect(rows(s)).toEqual([['_1', 1, 5, 0, true, true]]);
    expect(sizeOf(s, '_1')).toBe(filesSize('_1'));
  });

  it('lists nothing once the shard is closed', () => {
    const s = newShard();
    add(s, 0, 3);
    s.refreshInternal('test');
    s.close();
    expect(s.segmentsInfo()).toEqual([]);
  });
});
