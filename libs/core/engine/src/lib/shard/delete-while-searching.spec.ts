import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BlockCache } from '../store/block-cache.js';
import { IndexShardImpl } from './index-shard.js';
import { simpleParse, parseBytes } from './testing/simple-parser.js';

/**
 * Deleting an index while searches still hold a reader of it: those searches finish on the files they
 * started with (Lucene keeps deleted files readable through open handles), and the files go when the last
 * reader is released. It used to remove the directory at once, so a running fetch phase failed with ENOENT.
 */
describe('a shard deleted while a reader is open', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'del-search-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  const open = (dir: string) =>
    // a one-byte block cache: every read goes to the files
    new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir, parse: parseBytes, manualScheduling: true, blockCache: new BlockCache(1) });

  const fill = (shard: IndexShardImpl) => {
    for (let seg = 0; seg < 3; seg++) {
      for (let i = seg * 40; i < seg * 40 + 40; i++) shard.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i, s: `value ${i}` }, `d${i}`) });
      shard.refreshInternal('test');
    }
    shard.flush();
  };

  it('keeps every document readable until the last reader is released, then removes the files', () => {
    const dir = path.join(root, 'shard');
    const shard = open(dir);
    fill(shard);
    const reader = shard.acquireReader();
    const reader2 = shard.acquireReader();
    let removed = 0;
    shard.destroy(() => removed++);
    expect(shard.isClosed).toBe(true);
    expect(removed).toBe(0);
    expect(fs.existsSync(dir)).toBe(true);
    // every document of the reader's point in time, id and _source, read from the files
    const seen = new Map<string, number>();
    for (const leaf of reader.leaves) {
      for (let d = 0; d < leaf.reader.maxDoc; d++) {
        const src = JSON.parse(Buffer.from(leaf.reader.source(d)!).toString('utf8')) as { n: number; s: string };
        expect(src.s).toBe(`value ${src.n}`);
        seen.set(leaf.reader.id(d), src.n);
      }
    }
    expect(seen.size).toBe(120);
    for (const [id, n] of seen) expect(id).toBe(`d${n}`);
    reader.decRef();
    expect(removed).toBe(0);
    expect(fs.existsSync(dir)).toBe(true);
    reader2.decRef();
    expect(removed).toBe(1);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('removes the files at once when no reader is open', () => {
    const dir = path.join(root, 'shard');
    const shard = open(dir);
    fill(shard);
    shard.acquireReader().decRef();
    let removed = 0;
    shard.destroy(() => removed++);
    expect(removed).toBe(1);
    expect(fs.existsSync(dir)).toBe(false);
  });
});
