import { SegmentModes } from './testing/segment-modes.js';
import { SegmentBuilder } from './segment-builder.js';
import { MemorySegment, SegmentReader } from './segment.js';
import { MergedSource, mergeSync } from './segment-merger.js';
import type { SegmentCore } from './segment-core.js';
import { DiskSegment, writeSegment } from './disk-segment.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { encodeNorm } from '../util/small-float.js';
import { encodeSegment, decodeSegment, CorruptIndexException } from '../store/segment-codec.js';
import { newLiveDocs, clearBit, countLive, isLiveBit } from './live-docs.js';

const segs = new SegmentModes('seg-spec-', '_x');
afterAll(() => segs.remove());

function build(docs: Array<Record<string, unknown>>, deleted: number[] = []) {
  const b = new SegmentBuilder();
  docs.forEach((d, i) => b.add(simpleParse(d, `id${i}`, i === 1 ? 'r1' : undefined), { seqNo: i, primaryTerm: 1, version: 1 }));
  for (const d of deleted) b.delete(d);
  return b.build('_0');
}

describe.each(['memory', 'disk'] as const)('segment building and reading (%s)', (mode) => {
  beforeAll(() => (segs.mode = mode));
  const docs = [
    { msg: 'the quick brown fox', n: 5, tag: ['b', 'a'] },
    { msg: 'quick quick dog', n: 3 },
    { msg: 'lazy dog', n: 5, tag: 'a' },
  ];

  it('builds sorted term dictionaries with postings, freqs and positions', () => {
    const { data } = build(docs);
    const r = new SegmentReader(segs.core(data), null, 0);
    expect(r.maxDoc).toBe(3);
    expect(r.numDocs).toBe(3);
    const t = r.terms('msg')!;
    expect(Array.from({ length: t.size }, (_, i) => t.term(i))).toEqual(['brown', 'dog', 'fox', 'lazy', 'quick', 'the']);
    expect(t.ord('quick')).toBe(4);
    expect(t.ord('zzz')).toBe(-1);
    expect(t.seekCeil('e')).toBe(2);
    expect(t.seekCeil('zzz')).toBe(6);
    const p = r.postings('msg', 'quick')!;
    expect(Array.from(p.docs)).toEqual([0, 1]);
    expect(Array.from(p.freqs!)).toEqual([1, 2]);
    expect(Array.from(p.positions(0)!)).toEqual([1]);
    expect(Array.from(p.positions(1)!)).toEqual([0, 1]);
    // random access in any order
    const q = r.postings('msg', 'quick')!;
    expect(Array.from(q.positions(1)!)).toEqual([0, 1]);
    expect(Array.from(q.positions(0)!)).toEqual([1]);
    expect(Array.from(q.positions(1)!)).toEqual([0, 1]);
    expect(Array.from(r.postings('msg', 'dog')!.positions(1)!)).toEqual([1]);
    expect(p.totalTermFreq).toBe(3);
    expect(p.docFreq).toBe(2);
    expect(r.fieldStats('msg')).toEqual({ docCount: 3, sumTotalTermFreq: 9, sumDocFreq: 8 });
  });

  it('records norms and keyword postings without freqs', () => {
    const { data } = build(docs);
    const r = new SegmentReader(segs.core(data), null, 0);
    expect(Array.from(r.norms('msg')!)).toEqual([encodeNorm(4), encodeNorm(3), encodeNorm(2)]);
    expect(r.norms('msg.keyword')).toBeNull();
    const k = r.postings('tag.keyword', 'a')!;
    expect(Array.from(k.docs)).toEqual([0, 2]);
    expect(k.freqs).toBeNull();
    expect(k.positions(0)).toBeNull();
  });

  it('builds numeric doc values, points and sorted-set doc values', () => {
    const { data } = build(docs);
    const r = new SegmentReader(segs.core(data), null, 0);
    const dv = r.numericDocValues('n')!;
    expect(Array.from(dv.offsets)).toEqual([0, 1, 2, 3]);
    expect(Array.from(dv.values)).toEqual([5, 3, 5]);
    const pts = r.pointIndex('n')!;
    expect(Array.from(pts.values)).toEqual([3, 5, 5]);
    expect(Array.from(pts.docs)).toEqual([1, 0, 2]);
    const ss = r.sortedSetDocValues('tag.keyword')!;
    expect(ss.terms).toEqual(['a', 'b']);
    expect(Array.from(ss.offsets)).toEqual([0, 2, 2, 3]);
    expect(Array.from(ss.ords)).toEqual([0, 1, 0]);
  });

  it('stores _id, routing, _source, seq_no, term and version', () => {
    const { data } = build(docs);
    const r = new SegmentReader(segs.core(data), null, 0);
    expect(r.id(2)).toBe('id2');
    expect(r.routing(1)).toBe('r1');
    expect(r.routing(0)).toBeUndefined();
    expect(JSON.parse(Buffer.from(r.source(1)!).toString())).toEqual(docs[1]);
    expect(r.seqNo(2)).toBe(2);
    expect(r.primaryTerm(2)).toBe(1);
    expect(r.version(2)).toBe(1);
    expect(r.lookupId('id1')).toBe(1);
    expect(r.lookupId('nope')).toBe(-1);
  });

  it('applies buffered deletes as initial live docs', () => {
    const { data, liveDocs } = build(docs, [1]);
    const r = new SegmentReader(segs.core(data), liveDocs, 1);
    expect(r.numDocs).toBe(2);
    expect(r.isLive(1)).toBe(false);
    expect(r.isLive(0)).toBe(true);
    expect(r.lookupId('id1')).toBe(-1);
  });

  it('places multi-valued text with a position increment gap of 100', () => {
    const b = new SegmentBuilder();
    b.add(
      { id: 'x', source: null, fields: [
        { name: 'f', tokens: [{ term: 'a', position: 0 }, { term: 'b', position: 1 }], indexOptions: 'positions', norms: true },
        { name: 'f', tokens: [{ term: 'c', position: 0 }], indexOptions: 'positions', norms: true },
      ] },
      { seqNo: 0, primaryTerm: 1, version: 1 },
    );
    const { data } = b.build('_1');
    const r = new SegmentReader(segs.core(data), null, 0);
    expect(Array.from(r.postings('f', 'c')!.positions(0)!)).toEqual([102]);
    expect(r.norms('f')![0]).toBe(encodeNorm(3));
    expect(r.source(0)).toBeNull();
  });
});

describe.each(['memory', 'disk'] as const)('keyword doc values sharing the term dictionary (%s)', (mode) => {
  beforeAll(() => (segs.mode = mode));
  it('shares while values equal the terms and splits when a doc differs', () => {
    const b = new SegmentBuilder();
    const kw = (id: string, term: string, value: string) =>
      b.add({ id, source: null, fields: [{ name: 'k', tokens: [{ term, position: 0 }], keywordValues: [value] }] }, { seqNo: 0, primaryTerm: 1, version: 1 });
    kw('0', 'x', 'x');
    kw('1', 'a', 'a');
    kw('2', 'b', 'B');
    kw('3', 'x', 'x');
    const { data } = b.build('_s');
    const r = new SegmentReader(segs.core(data), null, 0);
    expect(r.terms('k')!.size).toBe(3);
    expect(Array.from(r.postings('k', 'x')!.docs)).toEqual([0, 3]);
    const ss = r.sortedSetDocValues('k')!;
    expect(ss.terms).toEqual(['B', 'a', 'x']);
    expect(Array.from(ss.ords)).toEqual([2, 1, 0, 2]);
    const b2 = new SegmentBuilder();
    b2.add({ id: '0', source: null, fields: [{ name: 'k', tokens: [{ term: 'q', position: 0 }, { term: 'p', position: 1 }], keywordValues: ['q', 'p'] }] }, { seqNo: 0, primaryTerm: 1, version: 1 });
    const s2 = new SegmentReader(segs.core(b2.build('_t').data), null, 0).sortedSetDocValues('k')!;
    expect(s2.terms).toEqual(['p', 'q']);
    expect(Array.from(s2.ords)).toEqual([0, 1]);
  });
});

describe('live docs', () => {
  it('counts and clears bits', () => {
    const b = newLiveDocs(70);
    expect(countLive(b, 70)).toBe(70);
    expect(clearBit(b, 69)).toBe(true);
    expect(clearBit(b, 69)).toBe(false);
    expect(isLiveBit(b, 69)).toBe(false);
    expect(countLive(b, 70)).toBe(69);
  });
});

describe('segment codec of the older single-file format (version 3, still read)', () => {
  it('round-trips a segment through bytes', () => {
    const { data } = build([
      { msg: 'hello world', n: 1.5 },
      { msg: 'héllo 🌵', n: -2, tag: 'x' },
    ]);
    const back = decodeSegment(encodeSegment(data, { includeSource: true }));
    const a = new SegmentReader(new MemorySegment(data), null, 0);
    const b = new SegmentReader(new MemorySegment(back), null, 0);
    expect(b.maxDoc).toBe(2);
    expect(b.terms('msg')!.size).toBe(a.terms('msg')!.size);
    expect(Array.from(b.postings('msg', 'hello')!.docs)).toEqual([0]);
    expect(Array.from(b.numericDocValues('n')!.values)).toEqual([1.5, -2]);
    expect(Buffer.from(b.source(1)!).toString()).toBe(Buffer.from(a.source(1)!).toString());
    expect(b.id(1)).toBe('id1');
    expect(b.routing(1)).toBe('r1');
    expect(b.sortedSetDocValues('tag.keyword')!.terms).toEqual(['x']);
    expect(Array.from(b.norms('msg')!)).toEqual(Array.from(a.norms('msg')!));
  });

  it('detects corruption', () => {
    const { data } = build([{ msg: 'a' }]);
    const bytes = encodeSegment(data);
    bytes[bytes.length - 10] ^= 0xff;
    expect(() => decodeSegment(bytes)).toThrow(CorruptIndexException);
  });
});

describe.each(['memory', 'disk'] as const)('segment merging (%s)', (mode) => {
  beforeAll(() => (segs.mode = mode));
  /** merges; on disk the merged view is streamed into files and reopened */
  const merge = (name: string, inputs: Array<{ data: SegmentCore; liveDocs: Uint32Array | null }>) => {
    if (mode === 'memory') return mergeSync(name, inputs);
    const m = new MergedSource(name, inputs);
    writeSegment(segs.dir, m);
    return { data: new DiskSegment(segs.dir, name) as SegmentCore, docMaps: m.docMaps };
  };
  it('drops deleted docs and keeps postings, doc values and stored fields identical', () => {
    const a = build([{ msg: 'a b', n: 1, tag: 'x' }, { msg: 'b c', n: 2 }, { msg: 'c d', n: 3, tag: 'y' }], [1]);
    const b2 = new SegmentBuilder();
    b2.add(simpleParse({ msg: 'd e b', n: 4, tag: ['z', 'x'] }, 'id9'), { seqNo: 9, primaryTerm: 1, version: 2 });
    const b = b2.build('_1');
    const { data, docMaps } = merge(`_2${mode}`, [
      { data: segs.core(a.data), liveDocs: a.liveDocs },
      { data: segs.core(b.data), liveDocs: b.liveDocs },
    ]);
    expect(Array.from(docMaps[0])).toEqual([0, -1, 1]);
    expect(Array.from(docMaps[1])).toEqual([2]);
    const r = new SegmentReader(data, null, 0);
    expect(r.maxDoc).toBe(3);
    expect([0, 1, 2].map((d) => data.id(d))).toEqual(['id0', 'id2', 'id9']);
    const t = r.terms('msg')!;
    expect(Array.from({ length: t.size }, (_, i) => t.term(i))).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(Array.from(r.postings('msg', 'b')!.docs)).toEqual([0, 2]);
    expect(Array.from(r.postings('msg', 'b')!.positions(1)!)).toEqual([2]);
    expect(Array.from(r.postings('msg', 'd')!.docs)).toEqual([1, 2]);
    expect(Array.from(r.numericDocValues('n')!.values)).toEqual([1, 3, 4]);
    expect(Array.from(r.pointIndex('n')!.docs)).toEqual([0, 1, 2]);
    const ss = r.sortedSetDocValues('tag.keyword')!;
    expect(ss.terms).toEqual(['x', 'y', 'z']);
    expect(Array.from(ss.offsets)).toEqual([0, 1, 2, 4]);
    expect(Array.from(ss.ords)).toEqual([0, 1, 0, 2]);
    expect(r.version(2)).toBe(2);
    expect(r.seqNo(2)).toBe(9);
    expect(data.maxSeqNo).toBe(9);
    expect(r.fieldStats('msg')).toEqual({ docCount: 3, sumTotalTermFreq: 7, sumDocFreq: 7 });
    expect(Array.from(r.norms('msg')!)).toEqual([2, 2, 3]);
    expect(r.routing(0)).toBeUndefined();
  });

  it('removes terms whose docs were all deleted', () => {
    const a = build([{ msg: 'only' }, { msg: 'kept' }], [0]);
    const { data } = merge(`_3${mode}`, [{ data: segs.core(a.data), liveDocs: a.liveDocs }]);
    const t = data.terms('msg')!;
    expect(Array.from({ length: t.size }, (_, i) => t.term(i))).toEqual(['kept']);
  });
});
