import { seededRandom } from '@strata/core-common';
import { SegmentBuilder } from './segment-builder.js';
import { SegmentReader } from './segment.js';
import { MergedSource, mergeSync } from './segment-merger.js';
import { DiskSegment, writeSegment } from './disk-segment.js';
import { StoredFieldsWriter, worthCopying } from './stored-fields.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { decodeSegment, encodeSegment } from '../store/segment-codec.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySegment } from './segment.js';
import { dumpSegment as dump } from '../shard/testing/segment-dump.js';
import { RandomAccessFile } from '../store/codec-util.js';
import type { ParsedDocument } from '../mapper/parsed-document.js';

const readInto = RandomAccessFile.prototype.readInto;
const read = RandomAccessFile.prototype.read;

describe('merge keeps results identical (randomised)', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}`, () => {
      const rand = seededRandom(seed);
      const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
      const docs = Array.from({ length: 300 }, (_, i) => {
        const src: Record<string, unknown> = {
          msg: Array.from({ length: 1 + Math.floor(rand() * 6) }, () => words[Math.floor(rand() * words.length)]).join(' '),
          n: Math.floor(rand() * 50),
        };
        if (rand() < 0.5) src['tag'] = [words[Math.floor(rand() * 8)], words[Math.floor(rand() * 8)]];
        if (rand() < 0.3) src['m'] = [rand() * 10, -rand()];
        return simpleParse(src, `d${i}`);
      });
      const deleted = new Set(docs.map((_, i) => i).filter(() => rand() < 0.2));
      // A: one segment
      const a = new SegmentBuilder();
      docs.forEach((d, i) => a.add(d, { seqNo: i, primaryTerm: 1, version: 1 }));
      for (const i of deleted) a.delete(i);
      const A = a.build('_a');
      // B: four segments, merged (through the codec, too)
      const parts = [0, 70, 150, 220, 300];
      const inputs = [];
      for (let p = 0; p < 4; p++) {
        const b = new SegmentBuilder();
        for (let i = parts[p]; i < parts[p + 1]; i++) b.add(docs[i], { seqNo: i, primaryTerm: 1, version: 1 });
        for (const i of deleted) if (i >= parts[p] && i < parts[p + 1]) b.delete(i - parts[p]);
        const built = b.build(`_b${p}`);
        inputs.push({ data: new MemorySegment(decodeSegment(encodeSegment(built.data, { includeSource: true }))), liveDocs: built.liveDocs });
      }
      const merged = mergeSync('_m', inputs);
      const ra = new SegmentReader(new MemorySegment(A.data), A.liveDocs, 1);
      const rb = new SegmentReader(merged.data, null, 0);
      expect(rb.numDocs).toBe(300 - deleted.size);
      expect(dump(rb)).toEqual(dump(ra));
      // the same through files: each input written in the current format and reopened, the merge streamed
      // from those files into a new segment's files
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-src-'));
      try {
        const onDisk = inputs.map((inp, k) => {
          writeSegment(dir, new MemorySegment({ ...inp.data.data, name: `_in${k}` }));
          return { data: new DiskSegment(dir, `_in${k}`), liveDocs: inp.liveDocs };
        });
        writeSegment(dir, new MergedSource('_m2', onDisk));
        const m2 = new DiskSegment(dir, '_m2');
        expect(dump(new SegmentReader(m2, null, 0))).toEqual(dump(ra));
        for (const i of onDisk) i.data.close();
        m2.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/**
 * The merge of segments on disk streams each term's postings block by block (docs, then freqs, then
 * positions), norms in chunks, and locates docs through the doc maps alone. Its files must be byte for byte
 * the files of the model: one segment built from the live documents alone, in the same order, written by
 * the same writer — and the files of the in-memory merge (whole arrays) of the same inputs. Terms large enough
 * to span many blocks of 1024 docs and many 64 KB chunks, several inputs, deletes (whole nested blocks),
 * positions, multi-valued fields and nested documents.
 */
describe('streamed merge of segments on disk = the model, byte for byte (randomised)', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
  interface GenDoc {
    doc: ParsedDocument;
    /** documents stored for it: its nested documents, then itself */
    size: number;
  }
  function generate(rand: () => number, n: number, big: boolean): GenDoc[] {
    return Array.from({ length: n }, (_, i) => {
      const msg: string[] = [];
      const len = 1 + Math.floor(rand() * (big ? 60 : 8));
      for (let k = 0; k < len; k++) msg.push(big && rand() < 0.5 ? 'common' : words[Math.floor(rand() * words.length)]);
      const src: Record<string, unknown> = { msg: msg.join(' '), n: Math.floor(rand() * 1000) };
      if (rand() < 0.5) src['tag'] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => words[Math.floor(rand() * 5)]);
      if (rand() < 0.3) src['m'] = [rand() * 10, -rand(), 2 ** 40 + i];
      // a second value of a text field: positions continue after the first
      if (rand() < 0.2) src['title'] = [words[Math.floor(rand() * 10)] + ' common', 'common ' + words[Math.floor(rand() * 10)]];
      const doc = simpleParse(src, `d${i}`, rand() < 0.1 ? `r${i % 7}` : undefined);
      if (rand() < 0.15) {
        doc.nested = Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => ({
          path: 'c',
          fields: [
            { name: '_nested_path', tokens: [{ term: 'c', position: 0 }], indexOptions: 'docs' as const },
            ...simpleParse({ c: { k: `${words[j % 10]} common`, v: j } }, `d${i}`).fields.filter((f) => f.name !== '_id'),
          ],
        }));
      }
      return { doc, size: 1 + (doc.nested?.length ?? 0) };
    });
  }
  const meta = (i: number) => ({ seqNo: i, primaryTerm: 1 + (i % 3), version: 1 + (i % 5) });

  function segFiles(dir: string, name: string): Buffer[] {
    return [fs.readFileSync(path.join(dir, `${name}.seg`)), fs.readFileSync(path.join(dir, `${name}.src`))];
  }

  for (const [seed, big] of [
    [5, true],
    [17, false],
    [2026, true],
  ] as const) {
    it(`seed ${seed}${big ? ' (terms over many blocks and chunks)' : ''}`, () => {
      const rand = seededRandom(seed);
      const docs = generate(rand, big ? 9000 : 1500, big);
      const deleted = new Set(docs.map((_, i) => i).filter(() => rand() < 0.25));
      // inputs: consecutive runs of documents, 2 to 5 of them, the first the largest
      const k = 2 + Math.floor(rand() * 4);
      const cuts = [0, Math.floor(docs.length * 0.6)];
      for (let p = 1; p < k - 1; p++) cuts.push(cuts[p] + Math.floor((docs.length - cuts[p]) * rand() * 0.7));
      cuts.push(docs.length);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-stream-'));
      try {
        const inputs: Array<{ data: DiskSegment; liveDocs: Uint32Array | null }> = [];
        const memInputs: Array<{ data: MemorySegment; liveDocs: Uint32Array | null }> = [];
        for (let p = 0; p + 1 < cuts.length; p++) {
          const b = new SegmentBuilder();
          for (let i = cuts[p]; i < cuts[p + 1]; i++) {
            const root = b.add(docs[i].doc, meta(i));
            // a deleted document takes its nested documents with it (the block is deleted whole)
            if (deleted.has(i)) for (let d = b.blockStart(root); d <= root; d++) b.delete(d);
          }
          const built = b.build(`_in${p}`);
          writeSegment(dir, new MemorySegment(built.data));
          inputs.push({ data: new DiskSegment(dir, `_in${p}`), liveDocs: built.liveDocs });
          memInputs.push({ data: new MemorySegment(decodeSegment(encodeSegment(built.data, { includeSource: true }))), liveDocs: built.liveDocs });
        }
        if (big) {
          // the largest input holds a term whose postings span several 64 KB chunks and many blocks
          const dict = inputs[0].data.terms('msg')!;
          const ord = dict.ord('common');
          expect(dict.docFreq(ord)).toBeGreaterThan(4 * 1024);
        }
        // the streamed merge, from the inputs' files
        const chunks: number[] = [];
        const reads: number[] = [];
        const spyChunks = jest.spyOn(RandomAccessFile.prototype, 'readInto').mockImplementation(function (this: RandomAccessFile, pos, dst, off, len) {
          chunks.push(len);
          return readInto.call(this, pos, dst, off, len);
        });
        // every read of the inputs' files: postings, keyword dictionaries, norms, stored fields, columns
        const spyReads = jest.spyOn(RandomAccessFile.prototype, 'read').mockImplementation(function (this: RandomAccessFile, pos, len) {
          reads.push(len);
          return read.call(this, pos, len);
        });
        const whole = jest.spyOn(DiskSegment.prototype, 'norms');
        const src = new MergedSource('_m', inputs);
        try {
          writeSegment(dir, src);
        } finally {
          spyChunks.mockRestore();
          spyReads.mockRestore();
        }
        // large postings streamed in chunks; no read of the inputs larger than 64 KB (the largest term's
        // postings and the `msg.keyword` dictionaries are several times that); norms never read whole
        if (big) expect(chunks.length).toBeGreaterThan(3);
        expect(Math.max(0, ...chunks, ...reads)).toBeLessThanOrEqual(64 * 1024);
        expect(whole).not.toHaveBeenCalled();
        whole.mockRestore();
        // the model: the live documents alone, in order, in one segment
        const model = new SegmentBuilder();
        docs.forEach((g, i) => {
          if (!deleted.has(i)) model.add(g.doc, meta(i));
        });
        const mdir = path.join(dir, 'model');
        fs.mkdirSync(mdir);
        // a merged segment keeps the highest seq_no of its inputs, deleted docs included
        const maxSeqNo = Math.max(...inputs.map((i) => i.data.maxSeqNo));
        writeSegment(mdir, new MemorySegment({ ...model.build('_m').data, maxSeqNo }));
        const merged = segFiles(dir, '_m');
        const expected = segFiles(mdir, '_m');
        expect(merged[0].length).toBe(expected[0].length);
        expect(merged[0].equals(expected[0])).toBe(true);
        expect(merged[1].equals(expected[1])).toBe(true);
        // the in-memory merge of the same inputs (whole postings arrays) writes the same bytes
        const idir = path.join(dir, 'mem');
        fs.mkdirSync(idir);
        writeSegment(idir, mergeSync('_m', memInputs).data);
        const inMem = segFiles(idir, '_m');
        expect(inMem[0].equals(merged[0])).toBe(true);
        expect(inMem[1].equals(merged[1])).toBe(true);
        // and it reads back: every live document, in order, with its nested documents before it
        const m = new DiskSegment(dir, '_m');
        const live = docs.filter((_, i) => !deleted.has(i));
        expect(m.maxDoc).toBe(live.reduce((s, g) => s + g.size, 0));
        let d = 0;
        for (const g of live) {
          d += g.size;
          expect(m.id(d - 1)).toBe(g.doc.id);
          expect(Buffer.from(m.source(d - 1)!).equals(Buffer.from(g.doc.source!))).toBe(true);
        }
        // random access to the merged view's docs (not in order) finds the same docs
        for (let x = 0; x < 200; x++) {
          const doc = Math.floor(rand() * src.maxDoc);
          expect(src.id(doc)).toBe(m.id(doc));
          expect(src.seqNo(doc)).toBe(m.seqNo(doc));
        }
        m.close();
        for (const i of inputs) i.data.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

/**
 * What a merge writes depends on the live docs alone, as a build of them: fields in name order whatever order
 * they first came in (deleted docs included, one input's order or another's); a field only deleted docs had
 * not written at all (terms, norms, doc values, points, keyword doc values); a doc-values field whose live
 * docs have one value each without counts, whatever the deleted docs had. Inputs written in the previous
 * form (fields in the order they came, fields without docs kept) are read and merged the same.
 */
describe('merge = the build of the live docs, whatever the deleted docs had', () => {
  // [source, deleted]; two inputs: the first four docs, then the rest
  const spec: Array<[Record<string, unknown>, boolean]> = [
    [{ zeta: 'gone soon', gone: 'only deleted docs', g: 5, n: [1, 2], m: 9 }, true],
    [{ zeta: 'first live', n: 1, msg: 'a b' }, false],
    [{ msg: 'b c', n: 2, o: { k: 'x', v: 1 } }, false],
    [{ n: 3, msg: 'c', zeta: 'z' }, true],
    [{ hidden: 'deleted too', msg: 'c d', m: [1, 2] }, true],
    [{ beta: 'second input first', n: 4, m: 7 }, false],
    [{ msg: 'd', n: 5, o: { v: 2 } }, false],
  ];
  const docs = spec.map(([src], i) => simpleParse(src, `d${i}`));
  const cuts = [0, 4, spec.length];
  const meta = (i: number) => ({ seqNo: i, primaryTerm: 1, version: 1 });

  function build(d: string, legacy: boolean): { inputs: Array<{ data: DiskSegment; liveDocs: Uint32Array | null }>; mem: Array<{ data: MemorySegment; liveDocs: Uint32Array | null }> } {
    const inputs: Array<{ data: DiskSegment; liveDocs: Uint32Array | null }> = [];
    const mem: Array<{ data: MemorySegment; liveDocs: Uint32Array | null }> = [];
    for (let p = 0; p + 1 < cuts.length; p++) {
      const b = new SegmentBuilder();
      for (let i = cuts[p]; i < cuts[p + 1]; i++) {
        const doc = b.add(docs[i], meta(i));
        if (spec[i][1]) b.delete(doc);
      }
      const built = b.build(`_in${p}`);
      writeSegment(d, new MemorySegment(built.data), { sourceFieldOrder: legacy });
      inputs.push({ data: new DiskSegment(d, `_in${p}`), liveDocs: built.liveDocs });
      mem.push({ data: new MemorySegment(built.data), liveDocs: built.liveDocs });
    }
    return { inputs, mem };
  }
  const fieldsOf = (s: DiskSegment): string[][] => [s.invertedFields(), s.numericFields(), s.pointFields(), s.sortedSetFields()];
  const files = (d: string, name: string): Buffer[] => ['seg', 'src'].map((e) => fs.readFileSync(path.join(d, `${name}.${e}`)));

  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-live-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const legacy of [false, true]) {
    it(`inputs written ${legacy ? 'in the previous form' : 'as now'}: the same bytes as the build of the live docs`, () => {
      const { inputs, mem } = build(dir, legacy);
      // the inputs list their fields in the order they came (previous form) or by name (now)
      const came = ['zeta', 'zeta.keyword', 'gone', 'gone.keyword', 'msg', 'msg.keyword', 'o.k', 'o.k.keyword', '_id'];
      expect(inputs[0].data.invertedFields()).toEqual(legacy ? came : [...came].sort());
      expect(inputs[0].data.numericFields()).toEqual(legacy ? ['g', 'n', 'm', 'o.v'] : ['g', 'm', 'n', 'o.v']);
      writeSegment(dir, new MergedSource('_m', inputs));
      const model = new SegmentBuilder();
      docs.forEach((d, i) => {
        if (!spec[i][1]) model.add(d, meta(i));
      });
      const mdir = path.join(dir, 'model');
      fs.mkdirSync(mdir);
      writeSegment(mdir, new MemorySegment({ ...model.build('_m').data, maxSeqNo: spec.length - 1 }));
      const idir = path.join(dir, 'mem');
      fs.mkdirSync(idir);
      writeSegment(idir, mergeSync('_m', mem).data);
      const [merged, expected, inMem] = [files(dir, '_m'), files(mdir, '_m'), files(idir, '_m')];
      expect(merged[0].equals(expected[0])).toBe(true);
      expect(merged[1].equals(expected[1])).toBe(true);
      expect(inMem[0].equals(expected[0])).toBe(true);
      expect(inMem[1].equals(expected[1])).toBe(true);
      const m = new DiskSegment(dir, '_m');
      // by name; no field only deleted docs had (gone, hidden, g); n single-valued over the live docs
      expect(fieldsOf(m)).toEqual([
        ['_id', 'beta', 'beta.keyword', 'msg', 'msg.keyword', 'o.k', 'o.k.keyword', 'zeta', 'zeta.keyword'],
        ['m', 'n', 'o.v'],
        ['m', 'n', 'o.v'],
        ['beta.keyword', 'msg.keyword', 'o.k.keyword', 'zeta.keyword'],
      ]);
      expect(m.numeric('n')!.singleValued).toBe(true);
      expect(m.numeric('m')!.singleValued).toBe(false);
      expect(m.numeric('o.v')!.singleValued).toBe(false);
      const dumpOf = (r: SegmentReader) => dump(r, ['n', 'm', 'o.v'], ['beta.keyword', 'msg.keyword', 'o.k.keyword', 'zeta.keyword']);
      const want = dumpOf(new SegmentReader(m, null, 0));
      expect(Object.keys(want)).toEqual(['d1', 'd2', 'd5', 'd6']);
      if (legacy) {
        // a merged segment of the previous form (the fields of deleted docs kept, empty): read the same
        writeSegment(dir, new MergedSource('_old', inputs), { sourceFieldOrder: true });
        const old = new DiskSegment(dir, '_old');
        expect(old.invertedFields()).toEqual([...came, 'hidden', 'hidden.keyword', 'beta', 'beta.keyword']);
        expect(old.fieldStats('gone')).toEqual({ docCount: 0, sumTotalTermFreq: 0, sumDocFreq: 0 });
        expect(old.terms('gone')!.size).toBe(0);
        // the same docs, with the norms of the empty fields: 0, as for any doc without a field
        const withEmpty = Object.fromEntries(
          Object.entries(want).map(([id, d]) => [id, { ...(d as object), inv: { ...(d as { inv: object }).inv, 'gone#norm': 0, 'hidden#norm': 0 } }]),
        );
        expect(dumpOf(new SegmentReader(old, null, 0))).toEqual(withEmpty);
        // and merged again, it is written as the build of its docs
        const adir = path.join(dir, 'again');
        fs.mkdirSync(adir);
        writeSegment(adir, new MergedSource('_m', [{ data: old, liveDocs: null }]));
        const again = files(adir, '_m');
        expect(again[0].equals(expected[0])).toBe(true);
        expect(again[1].equals(expected[1])).toBe(true);
        old.close();
      }
      m.close();
      for (const i of inputs) i.data.close();
    });
  }
});

/**
 * A merge copies the stored fields blocks of its inputs as written where all their docs live on and they are
 * full enough; the rest are re-packed. Every doc's id, routing and source read back the same, and the segment
 * file (everything but the stored fields) is byte for byte the model's.
 */
describe('merged stored fields: whole blocks copied as written', () => {
  for (const seed of [3, 99]) {
    it(`seed ${seed}`, () => {
      const rand = seededRandom(seed);
      const text = (n: number): string => Array.from({ length: n }, () => Math.floor(rand() * 36 ** 4).toString(36)).join(' ');
      const docs = Array.from({ length: 5200 }, (_, i) =>
        simpleParse({ msg: text(5 + Math.floor(rand() * 40)), n: i, ...(rand() < 0.1 ? { u: 'ü€😀' } : {}) }, rand() < 0.05 ? `ü-${i}` : `d${i}`, rand() < 0.2 ? `r${i % 5}` : undefined),
      );
      // inputs: 4000 docs none deleted (many blocks), 1100 with deletes in their first third only, 100 docs
      const cuts = [0, 4000, 5100, 5200];
      const deleted = new Set<number>();
      for (let i = 4000; i < 4360; i++) if (rand() < 0.3) deleted.add(i);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-stored-'));
      const copied = jest.spyOn(StoredFieldsWriter.prototype, 'addRawBlock');
      try {
        const inputs: Array<{ data: DiskSegment; liveDocs: Uint32Array | null }> = [];
        for (let p = 0; p + 1 < cuts.length; p++) {
          const b = new SegmentBuilder();
          for (let i = cuts[p]; i < cuts[p + 1]; i++) {
            const d = b.add(docs[i], { seqNo: i, primaryTerm: 1, version: 1 });
            if (deleted.has(i)) b.delete(d);
          }
          const built = b.build(`_in${p}`);
          writeSegment(dir, new MemorySegment(built.data));
          inputs.push({ data: new DiskSegment(dir, `_in${p}`), liveDocs: built.liveDocs });
        }
        const blocksIn = inputs.map((i) => i.data.storedBlocks().numBlocks);
        expect(blocksIn[0]).toBeGreaterThan(4);
        writeSegment(dir, new MergedSource('_m', inputs));
        // the first input's blocks but its last (partial) one, and the later all-live blocks of the second
        expect(copied.mock.calls.length).toBeGreaterThanOrEqual(blocksIn[0] - 1);
        const model = new SegmentBuilder();
        docs.forEach((d, i) => {
          if (!deleted.has(i)) model.add(d, { seqNo: i, primaryTerm: 1, version: 1 });
        });
        const mdir = path.join(dir, 'model');
        fs.mkdirSync(mdir);
        writeSegment(mdir, new MemorySegment(model.build('_m').data));
        expect(fs.readFileSync(path.join(dir, '_m.seg')).equals(fs.readFileSync(path.join(mdir, '_m.seg')))).toBe(true);
        const m = new DiskSegment(dir, '_m');
        const live = docs.filter((_, i) => !deleted.has(i));
        expect(m.maxDoc).toBe(live.length);
        // read back out of order too (each block is found by its first doc)
        const order = live.map((_, i) => i).sort(() => rand() - 0.5);
        for (const d of [...live.keys(), ...order]) {
          expect(m.id(d)).toBe(live[d].id);
          expect(m.routing(d)).toBe(live[d].routing ?? null);
          expect(Buffer.from(m.source(d)!).equals(Buffer.from(live[d].source!))).toBe(true);
        }
        // no block of the merged file is small but the ones that end an input's run
        const blocks = m.storedBlocks();
        const small = Array.from({ length: blocks.numBlocks }, (_, b) => blocks.rawBlock(b)).filter((r) => !worthCopying(r));
        expect(small.length).toBeLessThanOrEqual(3);
        m.close();
        for (const i of inputs) i.data.close();
      } finally {
        copied.mockRestore();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
