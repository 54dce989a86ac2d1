/**
 * Segment files larger than 2 GiB (and 4 GiB): every reader addresses its file with positioned reads at
 * 64-bit offsets. Each file of a real segment gets a hole of zeros after its header (a sparse file, covered by
 * the file checksum), so postings, term blocks, number columns, norms, keyword dictionaries and `_source`
 * blocks all sit beyond 2^32 bytes; the segment is read back whole, queried, and merged from those files.
 * (tools/storage/large-segment.mjs does the same with a real > 2 GiB shard through the service.)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import { SegmentBuilder } from './segment-builder.js';
import { MemorySegment, SegmentReader } from './segment.js';
import { DiskSegment, writeSegment } from './disk-segment.js';
import { MergedSource } from './segment-merger.js';
import { pointAccess } from './point-access.js';
import { ShardDirectoryReader } from './directory-reader.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { dumpSegment } from '../shard/testing/segment-dump.js';
import { BlockCache } from '../store/block-cache.js';
import { crc32, crc32Zeros } from '../store/crc32.js';
import { ByteReader, ByteWriter, footerBytes, FOOTER_LENGTH, parseFooter, RandomAccessFile, readNumberList, writeNumberList } from '../store/codec-util.js';
import { IndexSearcher } from '../search/index-searcher.js';
import { PointRangeQuery } from '../search/point-range-query.js';
import { NO_MORE_DOCS } from '../search/doc-id-set.js';

const HOLE = 2 ** 32 + 12_345; // past 2^31 and 2^32, not aligned to anything
let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'large-offsets-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the lowest layers with offsets beyond 2^32', () => {
  it('crc32 of a hole equals crc32 of the zeros it stands for', () => {
    const zeros = Buffer.alloc(3 * 65_536 + 17);
    for (const start of [0, crc32(Buffer.from('header')), 0xffffffff]) {
      for (const n of [1, 7, 4096, zeros.length]) expect(crc32Zeros(start, n)).toBe(crc32(zeros.subarray(0, n), start));
    }
    // a hole beyond 2^32 bytes: the same as two holes (n is not taken as a 32-bit integer)
    const x = crc32(Buffer.from('x'));
    expect(crc32Zeros(crc32Zeros(x, 2 ** 31), 2 ** 31 + 5)).toBe(crc32Zeros(x, 2 ** 32 + 5));
    expect(crc32Zeros(x, 2 ** 32 + 5)).not.toBe(crc32Zeros(x, 5));
  });

  it('varints, number lists and the footer keep offsets beyond 2^32 exact', () => {
    const offsets = [0, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 3 * 2 ** 32 + 7, 2 ** 40 + 3, 2 ** 50 + 1];
    const w = new ByteWriter();
    for (const o of offsets) w.vint(o);
    writeNumberList(w, offsets);
    writeNumberList(w, [5 * 2 ** 32, 5 * 2 ** 32 + 60_000, 5 * 2 ** 32 + 120_000, 5 * 2 ** 32 + 120_001]); // bit-packed or delta block above 2^32
    const r = new ByteReader(w.result());
    expect(offsets.map(() => r.vint())).toEqual(offsets);
    expect(Array.from(readNumberList(r))).toEqual(offsets);
    expect(Array.from(readNumberList(r))).toEqual([5 * 2 ** 32, 5 * 2 ** 32 + 60_000, 5 * 2 ** 32 + 120_000, 5 * 2 ** 32 + 120_001]);
    const f = Buffer.concat([footerBytes(3 * 2 ** 32 + 99, 1234, 0xdeadbeef), Buffer.alloc(4)]);
    expect(f.length).toBe(FOOTER_LENGTH);
    expect(parseFooter(f, 3 * 2 ** 32 + 99 + 1234 + FOOTER_LENGTH, 'x')).toEqual({ metaOffset: 3 * 2 ** 32 + 99, metaLength: 1234, metaCrc: 0xdeadbeef, fileCrc: 0 });
  });

  it('RandomAccessFile reads at positions beyond 2^32 of a sparse file', () => {
    const file = path.join(dir, 'sparse');
    const fd = fs.openSync(file, 'w');
    fs.writeSync(fd, Buffer.from('far away'), 0, 8, HOLE);
    fs.closeSync(fd);
    const raf = new RandomAccessFile(file);
    expect(raf.length).toBe(HOLE + 8);
    expect(Buffer.from(raf.read(HOLE, 8)).toString()).toBe('far away');
    expect(Buffer.from(raf.read(HOLE - 2, 4))).toEqual(Buffer.from([0, 0, 0x66, 0x61]));
    expect(() => raf.read(HOLE, 9)).toThrow(/read past EOF/);
    raf.close();
  });
});

function build(name: string, n: number): MemorySegment {
  const b = new SegmentBuilder();
  const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
  for (let i = 0; i < n; i++) {
    const src: Record<string, unknown> = {
      msg: `${words[i % 8]} ${words[(i * 7) % 8]} line ${i}`,
      n: i * 3 + 2 ** 40, // longs above 2^32, exact
      tag: [words[i % 5], words[(i >> 3) % 8]],
      // `_source` that compresses badly (one token): several 60 KB stored-fields blocks
      blob: [0, 1, 2, 3].map((k) => crypto.createHash('sha256').update(`${i}/${k}`).digest('hex')).join(''),
    };
    if (i % 5 === 0) src['m'] = [i, -i - 0.5];
    b.add(simpleParse(src, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
  }
  const built = b.build(name);
  return new MemorySegment({ ...built.data, name });
}

/** deep equality of two large dumps (jest's toEqual is slow on them; it runs only to show a difference) */
function expectSame(got: unknown, want: unknown): void {
  const same = JSON.stringify(got) === JSON.stringify(want);
  if (!same) expect(got).toEqual(want);
  expect(same).toBe(true);
}

describe('a segment whose files are larger than 4 GiB (sparse)', () => {
  it('is read back whole, queried and merged from its files', () => {
    const mem = build('_big', 1000);
    writeSegment(dir, mem, { holeBytes: HOLE });
    for (const f of ['_big.seg', '_big.src']) {
      const st = fs.statSync(path.join(dir, f));
      expect(st.size).toBeGreaterThan(2 ** 32);
      // a hole, not gigabytes written (st.blocks counts 512-byte blocks actually allocated)
      expect(st.blocks * 512).toBeLessThan(64 << 20);
    }
    const cache = new BlockCache(16 << 20);
    const s = new DiskSegment(dir, '_big', { cache });
    const rMem = new SegmentReader(mem, null, 0);
    const rDisk = new SegmentReader(s, null, 0);
    const fields = { num: ['n', 'm'], kw: ['tag.keyword', 'msg.keyword'] };
    const want = dumpSegment(rMem, fields.num, fields.kw);
    expect(Object.keys(want).length).toBe(1000);
    expectSame(dumpSegment(rDisk, fields.num, fields.kw), want);
    expect(cache.stats().misses).toBeGreaterThan(50);
    // block-level reads: points, doc-value blocks, a range query
    const pa = pointAccess(s.points('n')!);
    expect(pa.value(pa.size - 1)).toBe(999 * 3 + 2 ** 40);
    const vb = s.numeric('n')!.valueBlocks!;
    expect(vb.block(0)[1]).toBe(3 + 2 ** 40);
    const reader = new ShardDirectoryReader([new SegmentReader(s, null, 0)], 1, 'k', 1);
    const w = new IndexSearcher(reader).createWeight(new PointRangeQuery('n', 2 ** 40 + 300, 2 ** 40 + 330), false, 1);
    const sc = w.scorer(reader.leaves[0]!)!;
    const got: number[] = [];
    for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) got.push(d);
    expect(got).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110]);
    // merged file to file (postings, columns and stored fields streamed from beyond 2^32) into a plain segment
    writeSegment(dir, new MergedSource('_m', [{ data: s, liveDocs: null }]));
    const m = new DiskSegment(dir, '_m', { cache });
    expect(fs.statSync(path.join(dir, '_m.src')).size).toBeLessThan(2 ** 31);
    expectSame(dumpSegment(new SegmentReader(m, null, 0), fields.num, fields.kw), want);
    m.close();
    s.close();
  });
});
