import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { writeShardFromCommits } from './shard-files.js';
import { simpleParse, parseBytes } from './testing/simple-parser.js';

describe('held index commits (snapshots, shrink)', () => {
  let dir: string;
  let shard: IndexShardImpl;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hold-'));
    shard = new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir: path.join(dir, 'src'), parse: parseBytes, manualScheduling: true });
  });
  afterEach(() => {
    if (!shard.isClosed) shard.close(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const add = (from: number, to: number) => {
    for (let i = from; i < to; i++) shard.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i }, `d${i}`) });
    shard.refreshInternal('test');
  };

  it('keeps the files of a held commit through merges, deletes and later flushes, and frees them on release', () => {
    add(0, 10);
    add(10, 20);
    shard.deleteDoc({ id: 'd3' });
    const ref = shard.acquireIndexCommit();
    expect(ref.files.map((f) => f.name).sort()).toEqual(['_0.seg', '_0.src', '_0_1.liv', '_1.seg', '_1.src']);
    expect(ref.numDocs).toBe(19);
    // the shard moves on: more docs, deletes, a force merge, flushes
    add(20, 30);
    shard.deleteDoc({ id: 'd15' });
    shard.forceMerge(1);
    shard.flush();
    for (const f of ref.files) expect(fs.statSync(path.join(ref.dir, f.name)).size).toBe(f.length);
    // the held commit still makes a complete shard of its own point in time
    const copyDir = path.join(dir, 'copy');
    writeShardFromCommits(copyDir, [ref]);
    const copy = new IndexShardImpl({ index: 'c', indexUuid: 'c', shardId: 0, dir: copyDir, parse: parseBytes, manualScheduling: true });
    try {
      expect(copy.numDocs).toBe(19);
      expect(copy.get('d15').found).toBe(true);
      expect(copy.get('d3').found).toBe(false);
      expect(copy.get('d25').found).toBe(false);
    } finally {
      copy.close(false);
    }
    ref.release();
    ref.release();
    for (const f of ref.files) expect(fs.existsSync(path.join(ref.dir, f.name))).toBe(false);
    expect(shard.numDocs).toBe(28);
  });
});
