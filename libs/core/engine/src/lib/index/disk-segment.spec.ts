/**
 * The segment format's hygiene: header (codec, version) and checksum footer on every file, clear refusal of
 * versions this build does not read, corruption found when a block is read and by the verify tool, and the
 * block cache's bound.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SegmentBuilder } from './segment-builder.js';
import { MemorySegment, SegmentReader } from './segment.js';
import { DiskSegment, SEGMENT_CODEC, SEGMENT_VERSION, segmentFormatVersion, verifySegmentFiles, writeSegment } from './disk-segment.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { BlockCache } from '../store/block-cache.js';
import { CODEC_MAGIC, CorruptIndexException, readHeader } from '../store/codec-util.js';
import { verifyShardDir } from '../store/verify-index.js';
import { IndexShardImpl } from '../shard/index-shard.js';
import { parseBytes } from '../shard/testing/simple-parser.js';
import { decodeStateFile } from '../store/state-file.js';
import { pointAccess } from './point-access.js';

let dir: string;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'disk-seg-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function writeDocs(name: string, n: number): void {
  const b = new SegmentBuilder();
  for (let i = 0; i < n; i++) {
    b.add(simpleParse({ msg: `hello world number ${i % 17} ${'x'.repeat(i % 50)}`, n: i * 3, k: `k${i % 5}` }, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 + (i % 3) });
  }
  writeSegment(dir, new MemorySegment({ ...b.build(name).data, name }));
}

describe('segment files of the current format', () => {
  it('carry a header with codec name and version, and read back every document', () => {
    writeDocs('_0', 3000);
    for (const f of ['_0.seg', '_0.src']) {
      const h = readHeader(fs.readFileSync(path.join(dir, f)).subarray(0, 64))!;
      expect(h.codec).toBe(f.endsWith('.seg') ? SEGMENT_CODEC : 'StrataStoredFields');
      expect(h.version).toBe(f.endsWith('.seg') ? SEGMENT_VERSION : 2);
    }
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    const r = new SegmentReader(s, null, 0);
    for (let i = 0; i < 3000; i += 7) {
      expect(r.id(i)).toBe(`id${i}`);
      expect(JSON.parse(r.sourceString(i)!).n).toBe(i * 3);
      expect(r.seqNo(i)).toBe(i);
      expect(r.version(i)).toBe(1 + (i % 3));
      expect(r.lookupId(`id${i}`)).toBe(i);
    }
    expect(Array.from(r.postings('msg', 'number')!.docs)).toHaveLength(3000);
    expect(r.numericDocValues('n')!.values[2999]).toBe(2999 * 3);
    s.close();
    expect(verifySegmentFiles(dir, '_0')).toEqual({ version: SEGMENT_VERSION, files: ['_0.seg', '_0.src'] });
  });

  it('keep ids and terms with unpaired surrogates as they were indexed (written as UTF-16, read back unchanged)', () => {
    const b = new SegmentBuilder();
    const odd = ['lone\ud800high', 'lone\udfffLow', 'pair\ud83d\ude00ok', 'plain'];
    odd.forEach((v, i) => b.add(simpleParse({ k: v, msg: `word ${v}` }, `id-${v}`), { seqNo: i, primaryTerm: 1, version: 1 }));
    writeSegment(dir, new MemorySegment({ ...b.build('_0').data, name: '_0' }));
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    const r = new SegmentReader(s, null, 0);
    odd.forEach((v, i) => {
      expect(r.id(i)).toBe(`id-${v}`);
      expect(r.lookupId(`id-${v}`)).toBe(i);
      expect(Array.from(r.postings('k.keyword', v)!.docs)).toEqual([i]);
    });
    const terms = s.terms('k.keyword')!;
    expect(Array.from({ length: terms.size }, (_, o) => terms.term(o)).sort()).toEqual([...odd].sort());
    s.close();
  });

  it('look sorted terms up in one walk (ordsOfSorted) exactly as one seek per term (ord)', () => {
    writeDocs('_0', 5000);
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    const t = s.terms('_id')!;
    // present ids (every 3rd), absent ones between and around them, before the first and after the last term
    const want = new Set<string>(['', 'a', 'id', 'zz', 'id4999~']);
    for (let i = 0; i < 5000; i += 3) want.add(`id${i}`).add(`id${i}x`);
    for (const step of [1, 40, 700]) {
      const terms = [...want].filter((_, k) => k % step === 0).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const out = new Int32Array(terms.length);
      t.ordsOfSorted!(terms, out);
      expect(Array.from(out)).toEqual(terms.map((x) => t.ord(x)));
      expect(Array.from(out).filter((o) => o >= 0).length).toBe(terms.filter((x) => /^id\d+$/.test(x)).length);
    }
    s.close();
  });

  it('keep large columns and big documents intact (blocks of raw doubles, sources over 32 KB)', () => {
    const b = new SegmentBuilder();
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const src: Record<string, unknown> = { d: i * 1.1 + 0.3, l: i * 1_000_003 };
      if (i % 5000 === 7) src['big'] = 'y'.repeat(70_000 + i);
      b.add(simpleParse(src, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
    }
    writeSegment(dir, new MemorySegment({ ...b.build('_big').data, name: '_big' }));
    const s = new DiskSegment(dir, '_big', { cache: new BlockCache(64 << 20) });
    const d = s.numeric('d')!.values;
    const l = s.numeric('l')!.values;
    for (let i = 0; i < n; i++) {
      expect(d[i]).toBe(i * 1.1 + 0.3);
      expect(l[i]).toBe(i * 1_000_003);
    }
    const p = s.points('d')!;
    expect(p.values.length).toBe(n);
    for (let i = 1; i < n; i++) expect(p.values[i]).toBeGreaterThanOrEqual(p.values[i - 1]!);
    for (let i = 7; i < n; i += 5000) expect(JSON.parse(Buffer.from(s.source(i)!).toString()).big).toHaveLength(70_000 + i);
    s.close();
    expect(verifySegmentFiles(dir, '_big').version).toBe(SEGMENT_VERSION);
  });

  it('stay within the block cache bound while serving data larger than the cache', () => {
    writeDocs('_0', 5000);
    const cache = new BlockCache(1024 * 1024);
    const s = new DiskSegment(dir, '_0', { cache });
    const r = new SegmentReader(s, null, 0);
    for (let i = 0; i < 5000; i++) expect(r.id(i)).toBe(`id${i}`);
    for (let i = 0; i < 5000; i++) expect(r.seqNo(i)).toBe(i);
    const st = cache.stats();
    expect(st.sizeInBytes).toBeLessThanOrEqual(1024 * 1024);
    expect(st.evictions).toBeGreaterThan(0);
    expect(st.misses).toBeGreaterThan(0);
    s.close();
  });

  it('refuse a corrupt footer or metadata at open, and a corrupt block when it is read', () => {
    writeDocs('_0', 2000);
    const seg = path.join(dir, '_0.seg');
    const good = fs.readFileSync(seg);
    const bad = Buffer.from(good);
    bad[bad.length - 8] ^= 0x01; // footer magic
    fs.writeFileSync(seg, bad);
    expect(() => new DiskSegment(dir, '_0')).toThrow(/codec footer mismatch/);
    fs.writeFileSync(seg, good);
    // a byte inside the `_source` blocks: open works (only metadata is read), the read fails, verify fails
    const src = path.join(dir, '_0.src');
    const sgood = fs.readFileSync(src);
    const sbad = Buffer.from(sgood);
    sbad[200] ^= 0x10;
    fs.writeFileSync(src, sbad);
    const s = new DiskSegment(dir, '_0', { cache: new BlockCache(1 << 20) });
    expect(() => s.source(0)).toThrow(CorruptIndexException);
    s.close();
    expect(() => verifySegmentFiles(dir, '_0')).toThrow(/checksum failed/);
    fs.writeFileSync(src, sgood);
    expect(verifySegmentFiles(dir, '_0').version).toBe(SEGMENT_VERSION);
  });

  it('refuse format versions this build does not read with a clear message', () => {
    const head = Buffer.alloc(32);
    head.write('STRSEG02', 0, 'latin1');
    expect(() => segmentFormatVersion(head, 'x.seg')).toThrow('Format version is not supported (resource x.seg): 2 (needs to be between 3 and 5)');
    head.fill(0);
    head.writeUInt32LE(CODEC_MAGIC, 0);
    head.writeUInt8(SEGMENT_CODEC.length, 4);
    head.write(SEGMENT_CODEC, 5, 'latin1');
    head.writeUInt32LE(6, 5 + SEGMENT_CODEC.length);
    expect(() => segmentFormatVersion(head, 'y.seg')).toThrow('Format version is not supported (resource y.seg): 6 (needs to be between 3 and 5)');
    head.write('Other', 5, 'latin1');
    expect(() => segmentFormatVersion(head, 'z.seg')).toThrow(/codec mismatch/);
  });
});

describe('a shard refuses to open a segment of a newer format, keeping it', () => {
  it('fails with the format message and leaves the files untouched', () => {
    const shardDir = path.join(dir, 'shard');
    const s = new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir: shardDir, parse: parseBytes, manualScheduling: true });
    s.indexDoc({ id: 'a', opType: 'index', doc: simpleParse({ x: 1 }, 'a') });
    s.close();
    const seg = fs.readdirSync(shardDir).find((f) => f.endsWith('.seg'))!;
    const buf = fs.readFileSync(path.join(shardDir, seg));
    buf.writeUInt32LE(9, 5 + SEGMENT_CODEC.length);
    fs.writeFileSync(path.join(shardDir, seg), buf);
    expect(() => new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir: shardDir, parse: parseBytes, manualScheduling: true })).toThrow(/Format version is not supported .*: 9/);
    expect(fs.readFileSync(path.join(shardDir, seg))).toEqual(buf);
    const v = verifyShardDir(shardDir);
    expect(v.ok).toBe(false);
    expect(v.problems[0]).toMatch(/Format version is not supported/);
  });
});

describe('a shard holding segments of block format 4 (the previous format)', () => {
  it('opens them as they are, serves every document, and a merge rewrites them in the current format', () => {
    const shardDir = path.join(dir, 'shard');
    const open = (): IndexShardImpl => new IndexShardImpl({ index: 'i', indexUuid: 'u', shardId: 0, dir: shardDir, parse: parseBytes, manualScheduling: true, backgroundChecksumDelayMs: -1 });
    let s = open();
    for (let i = 0; i < 300; i++) s.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i * 7, k: `v${i % 7}` }, `d${i}`) });
    s.flush();
    for (let i = 300; i < 500; i++) s.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i * 7, k: `v${i % 7}` }, `d${i}`) });
    s.close();
    // rewrite every segment of the commit in format 4, under the same names
    const commit = decodeStateFile<{ segments: Array<{ name: string }> }>(fs.readFileSync(path.join(shardDir, 'commit.json')), 'commit');
    const tmp = path.join(dir, 'v4');
    fs.mkdirSync(tmp);
    expect(commit.segments.length).toBeGreaterThanOrEqual(2);
    for (const { name } of commit.segments) {
      const seg = new DiskSegment(shardDir, name, { cache: new BlockCache(1 << 20) });
      writeSegment(tmp, seg, { formatVersion: 4 });
      seg.close();
      for (const f of [`${name}.seg`, `${name}.src`]) fs.copyFileSync(path.join(tmp, f), path.join(shardDir, f));
      expect(readHeader(fs.readFileSync(path.join(shardDir, `${name}.seg`)).subarray(0, 64))!.version).toBe(4);
    }
    expect(verifyShardDir(shardDir).segments.map((x) => x.version)).toEqual(commit.segments.map(() => 4));
    s = open();
    expect(s.numDocs).toBe(500);
    const check = (): void => {
      for (let i = 0; i < 500; i += 13) expect(JSON.parse(Buffer.from(s.get(`d${i}`).source!).toString('utf8'))).toEqual({ n: i * 7, k: `v${i % 7}` });
      const r = s.acquireReader();
      try {
        let hits = 0;
        for (const leaf of r.leaves) {
          const pa = pointAccess(leaf.reader.pointIndex('n')!);
          const from = pa.lowerBound(700, false);
          const to = pa.lowerBound(1400, true);
          for (let i = from; i < to; i++) expect(leaf.reader.id(pa.doc(i))).toBe(`d${pa.value(i) / 7}`);
          hits += to - from;
        }
        expect(hits).toBe(101);
      } finally {
        r.decRef();
      }
    };
    check();
    s.forceMerge(1);
    s.flush();
    check();
    s.close();
    const v = verifyShardDir(shardDir);
    expect(v.ok).toBe(true);
    expect(v.segments.map((x) => x.version)).toEqual([SEGMENT_VERSION]);
    s = open();
    expect(s.numDocs).toBe(500);
    check();
    s.close();
  });
});
