import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FixedBitSet, NO_MORE_DOCS } from './doc-id-set.js';
import { FilterCache } from './filter-cache.js';
import { IndexSearcher } from './index-searcher.js';
import { PointRangeQuery } from './point-range-query.js';
import { BooleanQuery } from './boolean-query.js';
import { TermQuery } from './term-query.js';
import type { Query } from './query.js';
import { SegmentBuilder } from '../index/segment-builder.js';
import { MemorySegment, SegmentReader } from '../index/segment.js';
import { DiskSegment, writeSegment } from '../index/disk-segment.js';
import type { DirectoryReader, LeafReader, LeafReaderContext } from '../index/leaf-reader.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { BlockCache } from '../store/block-cache.js';

const bitsOf = (n: number, ...docs: number[]): FixedBitSet => {
  const b = new FixedBitSet(n);
  for (const d of docs) b.set(d);
  return b;
};

describe('FilterCache', () => {
  it('keeps a filter used twice among the last ones seen, on segments large enough', () => {
    const c = new FilterCache({ maxBytes: 1 << 20, maxCount: 100, historySize: 4 });
    c.onUse('a');
    expect(c.shouldCache('a', 20000)).toBe(false);
    c.onUse('a');
    expect(c.shouldCache('a', 20000)).toBe(true);
    expect(c.shouldCache('a', 9999)).toBe(false);
    // four other filters push both uses of `a` out of the history
    for (const k of ['b', 'c', 'd', 'e']) c.onUse(k);
    expect(c.shouldCache('a', 20000)).toBe(false);
  });

  it('evicts the least recently used entries past its bytes or its count; entries are per segment core', () => {
    const one = bitsOf(32 * 1000, 5).words.byteLength + 120 + 2; // a 1,000-word bit set under a 1-char key
    const c = new FilterCache({ maxBytes: 3 * one, maxCount: 10 });
    const core1 = {};
    const core2 = {};
    c.put(core1, 'a', bitsOf(32 * 1000, 1), 1);
    c.put(core1, 'b', bitsOf(32 * 1000, 2), 1);
    c.put(core2, 'a', bitsOf(32 * 1000, 3), 1);
    expect([c.size, c.bytes]).toEqual([3, 3 * one]);
    expect(c.get(core1, 'a')!.bits.get(1)).toBe(true); // now the most recently used
    expect(c.get(core2, 'a')!.bits.get(3)).toBe(true);
    c.put(core2, 'b', bitsOf(32 * 1000, 4), 7); // one too many: core1/b goes
    expect([c.get(core1, 'b'), c.size, c.evictions]).toEqual([null, 3, 1]);
    expect(c.get({}, 'a')).toBeNull();
    c.configure(3 * one, 1);
    expect([c.size, c.get(core2, 'b')!.bits.get(4), c.get(core2, 'b')!.cost]).toEqual([1, true, 7]);
    // a doc set larger than the whole budget is not kept
    c.configure(100, 10);
    expect(c.size).toBe(0);
    c.put(core1, 'z', bitsOf(32 * 1000, 1), 1);
    expect([c.size, c.bytes]).toEqual([0, 0]);
  });

  it('reports Elasticsearch\'s query_cache stats; clear drops the entries and keeps the counters', () => {
    const c = new FilterCache({ maxBytes: 1 << 20, maxCount: 1 });
    const core = {};
    expect(c.get(core, 'a')).toBeNull();
    c.put(core, 'a', bitsOf(64, 1), 1);
    c.get(core, 'a');
    c.put(core, 'b', bitsOf(64, 2), 1); // over the count: `a` goes
    const bytes = bitsOf(64).words.byteLength + 120 + 2;
    expect(c.stats()).toEqual({ memory_size_in_bytes: bytes, total_count: 2, hit_count: 1, miss_count: 1, cache_size: 1, cache_count: 2, evictions: 1 });
    c.clear();
    expect(c.stats()).toEqual({ memory_size_in_bytes: 0, total_count: 2, hit_count: 1, miss_count: 1, cache_size: 0, cache_count: 2, evictions: 1 });
  });

  it('counts per index through its view: entries and bytes by who kept them, hits and misses by who asked; a deleted index is forgotten', () => {
    const one = bitsOf(64).words.byteLength + 120 + 2;
    const c = new FilterCache({ maxBytes: 1 << 20, maxCount: 2 });
    const [logs, metrics] = [c.forIndex('logs'), c.forIndex('metrics')];
    expect(c.forIndex('logs')).toBe(logs);
    const core1 = {};
    const core2 = {};
    expect(logs.get(core1, 'a')).toBeNull();
    logs.put(core1, 'a', bitsOf(64, 1), 1);
    expect(metrics.get(core1, 'a')!.bits.get(1)).toBe(true);
    metrics.put(core2, 'b', bitsOf(64, 2), 1);
    metrics.put(core2, 'c', bitsOf(64, 3), 1); // over the count: logs' `a` goes
    expect(c.stats('logs')).toEqual({ memory_size_in_bytes: 0, total_count: 1, hit_count: 0, miss_count: 1, cache_size: 0, cache_count: 1, evictions: 1 });
    expect(c.stats('metrics')).toEqual({ memory_size_in_bytes: 2 * one, total_count: 1, hit_count: 1, miss_count: 0, cache_size: 2, cache_count: 2, evictions: 0 });
    expect(c.stats()).toMatchObject({ memory_size_in_bytes: 2 * one, cache_size: 2, hit_count: 1, miss_count: 1, cache_count: 3, evictions: 1 });
    c.dropIndex('metrics');
    expect([c.size, c.bytes]).toEqual([0, 0]);
    expect(c.stats('metrics')).toEqual({ memory_size_in_bytes: 0, total_count: 0, hit_count: 0, miss_count: 0, cache_size: 0, cache_count: 0, evictions: 0 });
    expect(c.stats('nope').cache_size).toBe(0);
  });
});

describe('a range filter through the filter cache', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'filter-cache-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const n = 6000;
  const word = (seg: number, i: number): string => ((i * (seg + 3)) % 7 === 0 ? 'rare word' : i % 3 === 0 ? 'word word' : 'other');
  const value = (seg: number, i: number): number => (i * 37 + seg) % 1000;
  function segment(seg: number): DiskSegment {
    const b = new SegmentBuilder();
    for (let i = 0; i < n; i++) b.add(simpleParse({ body: word(seg, i), n: value(seg, i) }, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
    writeSegment(dir, new MemorySegment({ ...b.build(`_${seg}`).data, name: `_${seg}` }));
    return new DiskSegment(dir, `_${seg}`, { cache: new BlockCache(8 << 20) });
  }
  const directory = (readers: LeafReader[]): DirectoryReader => {
    let base = 0;
    const leaves: LeafReaderContext[] = readers.map((reader, ord) => {
      const l = { reader, docBase: base, ord };
      base += reader.maxDoc;
      return l;
    });
    return { leaves, maxDoc: base, numDocs: base, generation: 1, cacheKey: 'fc', mappingVersion: 1, incRef: () => undefined, decRef: () => undefined };
  };
  /** live hits (doc of the shard, score) as the query phase collects them */
  function hits(reader: DirectoryReader, q: Query, cache: FilterCache | null): Array<[number, number]> {
    const w = new IndexSearcher(reader, undefined, cache).createWeight(q, true, 1);
    const out: Array<[number, number]> = [];
    for (const leaf of reader.leaves) {
      const s = w.scorer(leaf);
      if (!s) continue;
      for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) if (leaf.reader.isLive(d)) out.push([leaf.docBase + d, s.score()]);
    }
    return out;
  }

  it('the same hits and scores as without it, once kept, after deletes and after a refresh adds a segment', () => {
    const seg0 = segment(0);
    const seg1 = segment(1);
    const cache = new FilterCache({ maxBytes: 1 << 20, maxCount: 100, minSegmentDocs: 0 });
    const queries: Query[] = [
      new BooleanQuery([{ occur: 'must', query: new TermQuery('body', 'word') }, { occur: 'filter', query: new PointRangeQuery('n', 100, 700) }]),
      new BooleanQuery([{ occur: 'must', query: new TermQuery('body', 'rare') }, { occur: 'filter', query: new PointRangeQuery('n', 100, 700, false, true) }]),
      new BooleanQuery([{ occur: 'filter', query: new PointRangeQuery('n', 100, 700) }]),
    ];
    let reader = directory([new SegmentReader(seg0, null, 0)]);
    const check = (): void => {
      for (const q of queries) {
        const want = hits(reader, q, null);
        expect(want.length).toBeGreaterThan(50);
        expect(hits(reader, q, cache)).toEqual(want);
      }
    };
    // a range is kept from its second use on: [100 TO 700] (used by the first and third query) at once,
    // {100 TO 700] (the second query only) in the second round
    check();
    expect(cache.size).toBe(1);
    const hitsBefore = cache.hits;
    check();
    expect(cache.size).toBe(2);
    expect(cache.hits).toBeGreaterThan(hitsBefore);
    // deletes: a new reader of the same segment core (other live docs) reuses the entries, hits follow the live docs
    const live = new Uint32Array((n + 31) >>> 5);
    for (let i = 0; i < n; i++) if (i % 5 !== 0) live[i >>> 5]! |= 1 << (i & 31);
    reader = directory([new SegmentReader(seg0, live, 1)]);
    const beforeDeletes = cache.hits;
    check();
    expect(cache.hits).toBeGreaterThan(beforeDeletes);
    expect(hits(reader, queries[0]!, cache).some(([d]) => d % 5 === 0)).toBe(false);
    // a refresh adds a segment: a new core, built for its first searches, kept on later ones
    reader = directory([new SegmentReader(seg0, live, 1), new SegmentReader(seg1, null, 0)]);
    check();
    check();
    expect(cache.size).toBe(4);
    seg0.close();
    seg1.close();
  });

  it('an index without the cache (null) builds the range for every search and keeps nothing', () => {
    const seg = segment(2);
    const reader = directory([new SegmentReader(seg, null, 0)]);
    const q = new BooleanQuery([{ occur: 'must', query: new TermQuery('body', 'word') }, { occur: 'filter', query: new PointRangeQuery('n', 0, 500) }]);
    const a = hits(reader, q, null);
    expect(hits(reader, q, null)).toEqual(a);
    expect(a.length).toBeGreaterThan(100);
    seg.close();
  });
});
