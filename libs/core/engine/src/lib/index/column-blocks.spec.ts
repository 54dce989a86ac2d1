/**
 * Block-level access to number columns of segments on disk (format 5, and format 4 read as it is): points and
 * doc values read block by block with resident per-block bounds, range queries decoding only the blocks they
 * touch, corrupt blocks refused, and merges streaming the columns block by block.
 */
import { seededRandom } from '@strata/core-common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SegmentBuilder } from './segment-builder.js';
import { MemorySegment, SegmentReader } from './segment.js';
import { DiskSegment, SEGMENT_VERSION, verifySegmentFiles, writeSegment } from './disk-segment.js';
import { MergedSource } from './segment-merger.js';
import { lowerBoundIn, pointAccess } from './point-access.js';
import { numericReader, ordinalCounts, ordinalsReader } from './doc-values-reader.js';
import { ShardDirectoryReader } from './directory-reader.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { BlockCache } from '../store/block-cache.js';
import { CorruptIndexException, readHeader } from '../store/codec-util.js';
import { IndexSearcher } from '../search/index-searcher.js';
import { PointRangeQuery } from '../search/point-range-query.js';
import { NO_MORE_DOCS } from '../search/doc-id-set.js';

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'col-blocks-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const N = 20_000;

function build(name: string, n: number, seed: number, base = 0): MemorySegment {
  const r = seededRandom(seed);
  const b = new SegmentBuilder();
  for (let i = 0; i < n; i++) {
    const src: Record<string, unknown> = { t: Math.floor(r() * 1_000_000), d: Math.round(r() * 1e6) / 100, k: `k${Math.floor(r() * 50)}` };
    if (i % 7 === 0) src['m'] = [i, i + 0.5, -i];
    if (i % 11 !== 0) src['s'] = [`a${i % 13}`, `b${i % 3}`];
    b.add(simpleParse(src, `id${base + i}`), { seqNo: base + i, primaryTerm: 1, version: 1 });
  }
  return new MemorySegment({ ...b.build(name).data, name });
}

describe.each([SEGMENT_VERSION, 4])('number columns of format %i, block by block', (version) => {
  it('read the same points and doc values as the whole columns, with exact block bounds', () => {
    const mem = build('_0', N, 1);
    writeSegment(dir, mem, { formatVersion: version });
    expect(readHeader(fs.readFileSync(path.join(dir, '_0.seg')).subarray(0, 64))!.version).toBe(version);
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(64 << 20) });
    expect(s.formatVersion).toBe(version);
    for (const f of ['t', 'd', 'm']) {
      const want = mem.points(f)!;
      const pi = s.points(f)!;
      const vb = pi.blocks!.values;
      expect(vb.size).toBe(want.values.length);
      expect(vb.numBlocks).toBe(Math.ceil(want.values.length / vb.blockSize));
      for (let b = 0; b < vb.numBlocks; b++) {
        const blk = vb.block(b);
        expect(vb.min(b)).toBe(Math.min(...blk));
        expect(vb.max(b)).toBe(Math.max(...blk));
      }
      const pa = pointAccess(pi);
      for (let i = 0; i < pa.size; i += 97) {
        expect(pa.value(i)).toBe(want.values[i]);
        expect(pa.doc(i)).toBe(want.docs[i]);
      }
      const r = seededRandom(7);
      for (let q = 0; q < 300; q++) {
        const v = q % 3 === 0 ? want.values[Math.floor(r() * want.values.length)]! : (r() - 0.2) * 1.3e6;
        for (const strict of [false, true]) expect(pa.lowerBound(v, strict)).toBe(lowerBoundIn(want.values, v, strict));
      }
      const docs: number[] = [];
      for (const c of pa.docChunks(1000, 9000)) docs.push(...c);
      expect(docs).toEqual(Array.from(want.docs.subarray(1000, 9000)));
      // the whole columns are still there for column-wise users
      expect(Array.from(pi.values)).toEqual(Array.from(want.values));
    }
    for (const f of ['t', 'd', 'm']) {
      const want = mem.numeric(f)!;
      const dv = s.numeric(f)!;
      expect(dv.singleValued).toBe(f !== 'm');
      expect(Array.from(dv.offsets)).toEqual(Array.from(want.offsets));
      const vb = dv.valueBlocks!;
      const got: number[] = [];
      for (let b = 0; b < vb.numBlocks; b++) got.push(...vb.block(b));
      expect(got).toEqual(Array.from(want.values));
    }
    s.close();
    expect(verifySegmentFiles(dir, '_0').version).toBe(version);
  });

  it('per-doc readers of numeric and keyword doc values read the blocks of the docs they visit', () => {
    const mem = build('_0', N, 6);
    writeSegment(dir, mem, { formatVersion: version });
    const cache = new BlockCache(64 << 20);
    const s = new DiskSegment(dir, '_0', { cache });
    const r = seededRandom(11);
    const order = Array.from({ length: 3000 }, () => Math.floor(r() * N));
    for (const f of ['t', 'd', 'm']) {
      const want = mem.numeric(f)!;
      const rd = numericReader(s.numeric(f)!);
      const got: number[] = [];
      const exp: number[] = [];
      for (const d of [...Array.from({ length: N }, (_, i) => i), ...order]) {
        const n = rd.advance(d);
        got.push(-1, n);
        exp.push(-1, want.offsets[d + 1]! - want.offsets[d]!);
        for (let i = 0; i < n; i++) got.push(rd.value(i));
        for (let i = want.offsets[d]!; i < want.offsets[d + 1]!; i++) exp.push(want.values[i]!);
      }
      expect(got.length).toBe(exp.length);
      expect(got.every((v, i) => Object.is(v, exp[i]))).toBe(true);
    }
    for (const f of ['k.keyword', 's.keyword']) {
      const want = mem.sortedSet(f)!;
      const dv = s.sortedSet(f)!;
      expect(dv.singleValued).toBe(f === 'k.keyword');
      expect(dv.terms).toEqual(want.terms);
      const rd = ordinalsReader(dv);
      const got: number[] = [];
      const exp: number[] = [];
      for (const d of [...Array.from({ length: N }, (_, i) => i), ...order]) {
        const n = rd.advance(d);
        got.push(-1, n);
        exp.push(-1, want.offsets[d + 1]! - want.offsets[d]!);
        for (let i = 0; i < n; i++) got.push(rd.value(i));
        for (let i = want.offsets[d]!; i < want.offsets[d + 1]!; i++) exp.push(want.ords[i]!);
      }
      expect(got.length).toBe(exp.length);
      expect(got.every((v, i) => v === exp[i])).toBe(true);
    }
    s.close();
    // a few docs of a fresh segment: only their blocks are decoded (no whole column, multi-valued included)
    const cold = new BlockCache(64 << 20);
    const s2 = new DiskSegment(dir, '_0', { cache: cold });
    const no = (): never => {
      throw new Error('whole column read');
    };
    Object.assign(s2, { numericValues: no, numericOffsets: no, sortedSetOrds: no, sortedSetOffsets: no });
    const rm = numericReader(s2.numeric('m')!);
    const rs = ordinalsReader(s2.sortedSet('s.keyword')!);
    let values = 0;
    for (let d = 12_000; d < 12_100; d++) values += rm.advance(d) + rs.advance(d);
    expect(values).toBeGreaterThan(100);
    if (version === SEGMENT_VERSION) expect(cold.stats().readBytes).toBeLessThan(fs.statSync(path.join(dir, '_0.seg')).size / 20);
    // docs per ordinal over the whole column (the terms aggregation over every doc): counted from the ordinals
    // read in order, kept in the cache (4 bytes a term), no whole column held
    for (const f of ['k.keyword', 's.keyword']) {
      const want = mem.sortedSet(f)!;
      const exp = new Int32Array(want.terms.length);
      for (const o of want.ords) exp[o]! += 1;
      const dv = s2.sortedSet(f)!;
      const got = ordinalCounts(dv);
      expect(Array.from(got)).toEqual(Array.from(exp));
      expect(ordinalCounts(s2.sortedSet(f)!)).toBe(got);
    }
    s2.close();
  });

  it('answer a narrow range query decoding only the blocks it touches', () => {
    const mem = build('_0', N, 2);
    writeSegment(dir, mem, { formatVersion: version });
    const cache = new BlockCache(64 << 20);
    const s = new DiskSegment(dir, '_0', { cache });
    const reader = new ShardDirectoryReader([new SegmentReader(s, null, 0)], 1, 'k', 1);
    const want = mem.points('t')!;
    const lo = want.values[12_000]!;
    const hi = want.values[12_050]!;
    const before = cache.stats();
    const w = new IndexSearcher(reader).createWeight(new PointRangeQuery('t', lo, hi), false, 1);
    const sc = w.scorer(reader.leaves[0]!)!;
    const got: number[] = [];
    for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) got.push(d);
    const expected: number[] = [];
    for (let i = 0; i < want.values.length; i++) if (want.values[i]! >= lo && want.values[i]! <= hi) expected.push(want.docs[i]!);
    expect(got).toEqual(expected.sort((a, b) => a - b));
    const after = cache.stats();
    // at most two blocks of values and two of docs (the range straddles at most one block boundary)
    expect(after.misses - before.misses).toBeLessThanOrEqual(4);
    const colBytes = fs.statSync(path.join(dir, '_0.seg')).size;
    if (version === SEGMENT_VERSION) expect(after.readBytes - before.readBytes).toBeLessThan(colBytes / 20);
    s.close();
  });
});

describe('a corrupt number block', () => {
  it('fails the read that decodes it with CorruptIndexException (format 5: a crc32 per block)', () => {
    const mem = build('_0', N, 3);
    writeSegment(dir, mem);
    const seg = path.join(dir, '_0.seg');
    const probe = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    // find the file range of block 2 of the values of points `t`, through a read of the block table
    const pi = probe.points('t')!;
    expect(pi.blocks!.values.block(2).length).toBe(4096);
    probe.close();
    // flip a byte in every position until a read of that block fails: the block table tells where it is
    const meta = JSON.parse(
      (() => {
        const b = fs.readFileSync(seg);
        const mo = b.readUInt32LE(b.length - 24);
        const ml = b.readUInt32LE(b.length - 16);
        return b.subarray(mo, mo + ml).toString('utf8');
      })(),
    ) as { pts: Record<string, { values: { o: number; len: number } }> };
    const col = meta.pts['t']!.values;
    const good = fs.readFileSync(seg);
    const bad = Buffer.from(good);
    bad[col.o + Math.floor(col.len / 2)] ^= 0x04;
    fs.writeFileSync(seg, bad);
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    const vb = s.points('t')!.blocks!.values;
    let failed = 0;
    for (let b = 0; b < vb.numBlocks; b++) {
      try {
        vb.block(b);
      } catch (e) {
        expect(e).toBeInstanceOf(CorruptIndexException);
        expect(String(e)).toMatch(/checksum failed for a number block/);
        failed++;
      }
    }
    expect(failed).toBe(1);
    s.close();
  });
});

describe('merges stream doc values and points block by block', () => {
  it('never materialise an input column, and write the same columns as an in-memory merge', () => {
    const a = build('_a', 9000, 4, 0);
    const b = build('_b', 7000, 5, 9000);
    writeSegment(dir, a, { formatVersion: 4 });
    writeSegment(dir, b);
    const cache = new BlockCache(64 << 20);
    const da = new DiskSegment(dir, '_a', { cache });
    const db = new DiskSegment(dir, '_b', { cache });
    for (const s of [da, db]) {
      const no = (): never => {
        throw new Error('whole column read during a merge');
      };
      Object.assign(s, { numericValues: no, wholePoints: no, sortedSet: no, numeric: no, points: no });
    }
    const liveA = new Uint32Array(Math.ceil(9000 / 32)).fill(0xffffffff);
    for (let d = 0; d < 9000; d += 3) liveA[d >>> 5] &= ~(1 << (d & 31));
    const merged = new MergedSource('_m', [
      { data: da, liveDocs: liveA },
      { data: db, liveDocs: null },
    ]);
    writeSegment(dir, merged);
    da.close();
    db.close();
    // the same merge over the in-memory inputs, materialised
    const ref = new MergedSource('_r', [
      { data: a, liveDocs: liveA },
      { data: b, liveDocs: null },
    ]);
    const m = new DiskSegment(dir, '_m', { cache: new BlockCache(64 << 20) });
    expect(m.formatVersion).toBe(SEGMENT_VERSION);
    expect(m.maxDoc).toBe(ref.maxDoc);
    for (const f of ['t', 'd', 'm']) {
      const want = ref.points(f)!;
      const got = m.points(f)!;
      expect(Array.from(got.values)).toEqual(Array.from(want.values));
      expect(Array.from(got.docs)).toEqual(Array.from(want.docs));
      const wn = ref.numeric(f)!;
      const gn = m.numeric(f)!;
      expect(Array.from(gn.offsets)).toEqual(Array.from(wn.offsets));
      expect(Array.from(gn.values)).toEqual(Array.from(wn.values));
    }
    for (const f of ['k.keyword', 's.keyword']) {
      const want = ref.sortedSet(f)!;
      const got = m.sortedSet(f)!;
      expect(got.terms).toEqual(want.terms);
      expect(Array.from(got.offsets)).toEqual(Array.from(want.offsets));
      expect(Array.from(got.ords)).toEqual(Array.from(want.ords));
    }
    // and the merged values are those of the live input docs
    const t = m.numeric('t')!.values;
    const ta = a.numeric('t')!.values;
    const tb = b.numeric('t')!.values;
    let x = 0;
    for (let d = 0; d < 9000; d++) if (d % 3 !== 0) expect(t[x++]).toBe(ta[d]);
    for (let d = 0; d < 7000; d++) expect(t[x++]).toBe(tb[d]);
    m.close();
  });
});
