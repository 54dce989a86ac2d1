/**
 * The segment format (codec `StrataSegment` version 4): two immutable files per segment, read with
 * positioned reads through the node's byte-bounded block cache; only small indexes stay resident.
 *
 * `<name>.seg`: header (codec name, version) | sections | meta (JSON) | footer (meta offset/length/crc,
 * magic, crc32 of the whole file). Sections:
 * - per inverted field, repeated per block of 64 terms: the postings of those terms (doc deltas, then freqs,
 *   then positions as per-doc deltas; a term in one doc keeps its doc inline), then the term block
 *   (prefix-coded terms + doc freq + byte lengths); after the field, its term index (first term, offset,
 *   length and crc32 of every block) and its norms;
 * - doc values, points, `_seq_no`/`_primary_term`/`_version`: number columns in blocks of 4096 values,
 *   each block constant, delta-varint, bit-packed or raw doubles (whichever is smallest), with a block table;
 * - keyword doc-value dictionaries: prefix-coded string blocks.
 * `<name>.src`: stored fields (see stored-fields.ts).
 *
 * Opening reads the header, the footer and the meta section of each file (checksummed); the full-file
 * checksum is verified by `verifySegmentFiles` (the `verify` tool) and every block read checks its own.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DocBlocks, NumberBlocks, NumericDocValues, PointIndex, Postings, SortedSetDocValues, TermsDict } from './leaf-reader.js';
import {
  PASS_DOCS,
  PASS_FREQS,
  PASS_POSITIONS,
  POSTINGS_BLOCK,
  readPostings,
  identityOffsets,
  numericColumnsOf,
  pointColumnsOf,
  sortedSetColumnsOf,
  totalTermFreqOf,
  type NumberCursor,
  type NumericColumns,
  type PointColumns,
  type SortedSetColumns,
  type InvertedFieldInfo,
  type InvertedFieldStats,
  type PostingsBlockReader,
  type PostingsPass,
  type SegmentCore,
  type SegmentSource,
  type StreamedTermPostings,
  type TermPostings,
} from './segment-core.js';
import { StoredFieldsReader, StoredFieldsWriter, type StoredBlocks } from './stored-fields.js';
import { defaultBlockCache, LastBlock, nextCacheUid, type BlockCache } from '../store/block-cache.js';
import {
  ByteReader,
  ByteWriter,
  ChecksumFileWriter,
  CorruptIndexException,
  FOOTER_LENGTH,
  RandomAccessFile,
  checkHeader,
  parseFooter,
  readDeltaInts,
  readHeader,
  readInts,
  readNumberBlock,
  readNumberList,
  readStringBlock,
  verifyFileChecksum,
  writeHeader,
  writeNumberBlock,
  writeNumberList,
  writeStringBlock,
} from '../store/codec-util.js';
import { crc32 } from '../store/crc32.js';
import { binarySearchTerms } from './segment.js';

export const SEGMENT_CODEC = 'StrataSegment';
export const SEGMENT_VERSION = 5;
/** the oldest segment format still read (3: the single-file format, read whole into memory) */
export const SEGMENT_MIN_VERSION = 3;
/**
 * the first format of block files read through the cache (4). Version 5 adds, per block of a number column,
 * its crc32, min and max to the column's block table; version 4 files are read as they are (the block
 * table of a column is rebuilt from the column, checksummed whole, the first time it is used).
 */
export const SEGMENT_BLOCK_FORMAT = 4;
const COL_BLOCK = 4096;
const TERM_BLOCK = 64;

/**
 * a number column: n values in blocks at [o, o+len) (crc32 of that range), block table at idx
 * (version 4: [offset, length] of the block offsets; 5: [offset, length, crc] of offsets, crcs, mins, maxs)
 */
interface ColRef {
  n: number;
  o: number;
  len: number;
  crc: number;
  idx: [number, number] | [number, number, number];
}

/** the resident table of a number column: per block its offset (relative to the column), crc32, min, max */
interface ColTable {
  offs: Float64Array;
  crcs: Float64Array;
  mins: Float64Array;
  maxs: Float64Array;
}

interface InvMeta {
  id: number;
  freqs: boolean;
  positions: boolean;
  docCount: number;
  sttf: number;
  sdf: number;
  nTerms: number;
  index: [number, number, number];
  norms: [number, number, number] | null;
}

interface SegMeta {
  name: string;
  maxDoc: number;
  maxSeqNo: number;
  hasRouting: boolean;
  cols: { seq: ColRef; term: ColRef; ver: ColRef };
  inv: Record<string, InvMeta>;
  num: Record<string, { id: number; counts: ColRef | null; values: ColRef }>;
  pts: Record<string, { id: number; values: ColRef; docs: ColRef }>;
  ss: Record<string, { id: number; counts: ColRef | null; ords: ColRef; terms: [number, number, number, number] }>;
}

// ------------------------------------------------------------------ writing

class SegWriter {
  readonly out: ChecksumFileWriter;
  constructor(
    file: string,
    private readonly version: number,
    holeBytes = 0,
  ) {
    this.out = new ChecksumFileWriter(file);
    const h = new ByteWriter(64);
    writeHeader(h, SEGMENT_CODEC, version);
    this.out.write(h.result());
    if (holeBytes > 0) this.out.hole(holeBytes);
  }

  /** a section written whole: [offset, length, crc] */
  section(b: Uint8Array): [number, number, number] {
    const o = this.out.offset;
    this.out.write(b);
    return [o, b.length, crc32(b)];
  }

  /** a number column from a cursor, block by block (only one block is held) */
  *column(src: NumberCursor): Generator<void, ColRef, void> {
    const n = src.size;
    const o = this.out.offset;
    const offs: number[] = [];
    const crcs: number[] = [];
    const mins: number[] = [];
    const maxs: number[] = [];
    const block = new Float64Array(COL_BLOCK);
    const w = new ByteWriter(COL_BLOCK * 2);
    let crc = 0;
    for (let i = 0; i < n; i += COL_BLOCK) {
      const m = Math.min(COL_BLOCK, n - i);
      let min = Infinity;
      let max = -Infinity;
      for (let j = 0; j < m; j++) {
        const v = src.next();
        block[j] = v;
        if (v < min) min = v;
        if (v > max) max = v;
      }
      w.reset();
      writeNumberBlock(w, block, 0, m);
      offs.push(this.out.offset - o);
      const b = w.result();
      crc = crc32(b, crc);
      crcs.push(crc32(b));
      mins.push(min);
      maxs.push(max);
      this.out.write(b);
      if ((i / COL_BLOCK) % 16 === 15) yield;
    }
    const len = this.out.offset - o;
    const iw = new ByteWriter(offs.length * 12 + 16);
    writeNumberList(iw, offs);
    if (this.version < 5) {
      const idx = this.section(iw.result());
      return { n, o, len, crc, idx: [idx[0], idx[1]] };
    }
    writeNumberList(iw, crcs);
    writeNumberList(iw, mins);
    writeNumberList(iw, maxs);
    return { n, o, len, crc, idx: this.section(iw.result()) };
  }

  /**
   * An inverted field, term by term: each term's postings go to the file as they are read, in passes of
   * bounded blocks (doc deltas, then freqs, then positions: the layout a reader expects), so a term with
   * millions of docs costs one block of each, not its whole postings. Per block of 64 terms the term block
   * (terms, doc freqs, byte lengths) follows their postings; norms are copied chunk by chunk. A field none of
   * whose terms has a doc (in a merge: only deleted docs had it) is not written (null), unless `keepEmpty`.
   */
  *inverted(
    id: number,
    info: InvertedFieldInfo,
    terms: Iterable<TermPostings | StreamedTermPostings>,
    maxDoc: number,
    norms: Uint8Array | Iterable<Uint8Array> | null,
    keepEmpty: boolean,
  ): Generator<void, InvMeta | null, void> {
    const firsts: string[] = [];
    const offs: number[] = [];
    const lens: number[] = [];
    const crcs: number[] = [];
    // docs with the field (docCount): a bitset, 1 bit per doc
    const seen = new Uint32Array((maxDoc + 31) >>> 5);
    let docCount = 0;
    let sttf = 0;
    let sdf = 0;
    let nTerms = 0;
    const pending: string[] = [];
    let base = 0;
    let blocks = 0;
    const pw = new ByteWriter(1 << 16);
    const tb = new ByteWriter(4096);
    const out = this.out;
    let flushed = 0;
    const spill = (): void => {
      flushed += pw.len;
      out.write(pw.result());
      pw.reset();
    };
    const head = new ByteWriter(4096);
    const flush = (): void => {
      if (pending.length === 0) return;
      head.reset();
      head.vint(base);
      writeStringBlock(head, pending, 0, pending.length);
      head.bytes(tb.result());
      firsts.push(pending[0]);
      offs.push(out.offset);
      lens.push(head.len);
      crcs.push(crc32(head.result()));
      out.write(head.result());
      tb.reset();
      pending.length = 0;
    };
    for (const t of terms) {
      const termStart = out.offset;
      // pass 1: doc deltas (held back while the term has one doc: its doc is kept inline in the term block)
      let df = 0;
      let prev = 0;
      let doc0 = 0;
      flushed = 0;
      pw.reset();
      const docs = readPostings(t, PASS_DOCS);
      while (docs.next()) {
        const ds = docs.docs;
        for (let i = 0; i < docs.n; i++) {
          const d = ds[i];
          pw.vint(d - prev);
          prev = d;
          const w = d >>> 5;
          const bit = 1 << (d & 31);
          if ((seen[w] & bit) === 0) {
            seen[w] |= bit;
            docCount++;
          }
        }
        if (df === 0 && docs.n > 0) doc0 = ds[0];
        df += docs.n;
        if (df > 1 && pw.len >= 1 << 16) spill();
      }
      if (df === 0) continue;
      if (pending.length === 0) base = termStart;
      nTerms++;
      sdf += df;
      if (df === 1) pw.reset();
      // pass 2: freqs (and the total term freq)
      let freq0 = 1;
      if (info.freqs) {
        const fr = readPostings(t, PASS_FREQS);
        let first = true;
        while (fr.next()) {
          const fs = fr.freqs;
          for (let i = 0; i < fr.n; i++) {
            const f = fs ? fs[i] : 1;
            if (first) {
              freq0 = f;
              first = false;
            }
            sttf += f;
            if (df > 1) pw.vint(f);
          }
          if (df > 1 && pw.len >= 1 << 16) spill();
        }
      } else sttf += df;
      const docsLen = df === 1 ? 0 : flushed + pw.len;
      tb.vint(df);
      if (df === 1) {
        tb.vint(doc0);
        if (info.freqs) tb.vint(freq0);
        tb.vint(0);
      } else tb.vint(docsLen);
      // pass 3: positions, per doc as deltas
      if (info.positions) {
        const before = flushed + pw.len;
        const ps = readPostings(t, PASS_POSITIONS);
        while (ps.next()) {
          const fs = ps.freqs;
          const pos = ps.positions;
          let at = 0;
          for (let i = 0; i < ps.n; i++) {
            const f = fs ? fs[i] : 1;
            let p0 = 0;
            for (let k = 0; k < f; k++) {
              const v = pos ? pos[at + k] : 0;
              pw.vint(v - p0);
              p0 = v;
            }
            at += f;
          }
          if (pw.len >= 1 << 16) spill();
        }
        tb.vint(flushed + pw.len - before);
      }
      spill();
      pending.push(t.term);
      if (pending.length === TERM_BLOCK) {
        flush();
        if (++blocks % 32 === 0) yield;
      }
    }
    flush();
    // nothing of the field was written: a term without docs writes nothing
    if (nTerms === 0 && !keepEmpty) return null;
    const iw = new ByteWriter(firsts.length * 16 + 16);
    iw.vint(firsts.length);
    writeNumberList(iw, offs);
    writeNumberList(iw, lens);
    writeNumberList(iw, crcs);
    for (let i = 0; i < firsts.length; i += TERM_BLOCK) writeStringBlock(iw, firsts, i, Math.min(firsts.length, i + TERM_BLOCK));
    const index = this.section(iw.result());
    let n: [number, number, number] | null = null;
    if (info.norms && norms) {
      if (norms instanceof Uint8Array) n = this.section(norms);
      else {
        const o = out.offset;
        let crc = 0;
        for (const c of norms) {
          crc = crc32(c, crc);
          out.write(c);
        }
        if (out.offset - o !== maxDoc) throw new Error(`norms of ${out.offset - o} docs for a segment of ${maxDoc}`);
        n = [o, maxDoc, crc >>> 0];
      }
    }
    return { id, freqs: info.freqs, positions: info.positions, docCount, sttf, sdf, nTerms, index, norms: n };
  }

  /** a keyword dictionary from consecutive blocks of terms: written in blocks of 64 as they come */
  strings(blocks: Iterable<readonly string[]>): [number, number, number, number] {
    const o = this.out.offset;
    const w = new ByteWriter(4096);
    const pending: string[] = [];
    let crc = 0;
    let n = 0;
    const flush = (): void => {
      w.reset();
      writeStringBlock(w, pending, 0, pending.length);
      crc = crc32(w.result(), crc);
      this.out.write(w.result());
      pending.length = 0;
    };
    for (const b of blocks) {
      for (const t of b) {
        pending.push(t);
        n++;
        if (pending.length === TERM_BLOCK) flush();
      }
    }
    if (pending.length > 0) flush();
    return [o, this.out.offset - o, crc >>> 0, n];
  }
}

/** a per-doc column of a source (seq no, primary term, version) as a cursor */
class DocColumnCursor implements NumberCursor {
  private d = 0;
  constructor(
    readonly size: number,
    private readonly get: (d: number) => number,
  ) {}
  next(): number {
    return this.get(this.d++);
  }
}

export interface WrittenSegment {
  segBytes: number;
  srcBytes: number;
}

/** the files of segment `name` in a shard directory */
export function segmentFileNames(name: string): string[] {
  return [`${name}.seg`, `${name}.src`];
}

/**
 * Writes a segment's two files (`.src` then `.seg`), streaming: stored fields doc by doc, postings term by
 * term, doc values and points block by block (from the source's column cursors). fsync is left to the commit
 * unless asked. `formatVersion` (tests) writes an older block format; `holeBytes` (tests) leaves a hole of
 * zeros after each file's header (a sparse file), so every section is read at an offset beyond it.
 */
export interface WriteSegmentOptions {
  fsync?: boolean;
  formatVersion?: number;
  holeBytes?: number;
  /**
   * (tests) the fields as writers before the name order wrote them: in the order the source lists them, fields
   * without docs included; readers must read both forms
   */
  sourceFieldOrder?: boolean;
}

export function writeSegment(dir: string, src: SegmentSource, opts: WriteSegmentOptions = {}): WrittenSegment {
  const it = writeSegmentSteps(dir, src, opts);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/**
 * The order a segment's fields are written in (sections, ids, meta): by name, so that a merge writes the bytes
 * a build of the same live docs writes. A source lists its fields in the order their first token or value
 * arrived, deleted docs included (a builder), or the union of its inputs' orders (a merge). Readers look
 * fields up by name and never depended on the order. Likewise a field no doc has a term or value of (in a merge:
 * one only deleted docs had) is not written at all: a build of the live docs would not have it.
 */
function fieldOrder(names: string[]): string[] {
  return [...names].sort();
}

/** the same, yielding between slices of work (merges on the event loop) */
export function* writeSegmentSteps(dir: string, src: SegmentSource, opts: WriteSegmentOptions = {}): Generator<void, WrittenSegment, void> {
  const name = src.name;
  const maxDoc = src.maxDoc;
  const sw = new StoredFieldsWriter(path.join(dir, `${name}.src`), opts.holeBytes);
  let srcBytes: number;
  let done = false;
  try {
    if (src.writeStored) yield* src.writeStored(sw);
    else {
      for (let d = 0; d < maxDoc; d++) {
        sw.add(src.id(d), src.routing(d), src.source(d));
        if ((d & 2047) === 2047) yield;
      }
    }
    if (sw.numDocs !== maxDoc) throw new Error(`stored fields of ${sw.numDocs} docs written for a segment of ${maxDoc}`);
    srcBytes = sw.finish(opts.fsync ?? false);
    done = true;
  } finally {
    if (!done) sw.abort();
  }
  const w = new SegWriter(path.join(dir, `${name}.seg`), opts.formatVersion ?? SEGMENT_VERSION, opts.holeBytes);
  const legacy = opts.sourceFieldOrder ?? false;
  const order = legacy ? (names: string[]): string[] => names : fieldOrder;
  done = false;
  try {
    let id = 0;
    const cols = {
      seq: yield* w.column(new DocColumnCursor(maxDoc, (d) => src.seqNo(d))),
      term: yield* w.column(new DocColumnCursor(maxDoc, (d) => src.primaryTerm(d))),
      ver: yield* w.column(new DocColumnCursor(maxDoc, (d) => src.version(d))),
    };
    const inv: Record<string, InvMeta> = {};
    for (const f of order(src.invertedFields())) {
      const info = src.fieldInfo(f);
      if (!info) continue;
      // every segment has `_id` (a builder makes it even for no docs); another field is written if a doc has it
      const m = yield* w.inverted(id, info, src.termIterator(f), maxDoc, src.normsChunks ? src.normsChunks(f) : src.norms(f), legacy || f === '_id');
      if (m) {
        inv[f] = m;
        id++;
      }
    }
    const num: SegMeta['num'] = {};
    for (const f of order(src.numericFields())) {
      const dv = numericColumnsOf(src, f);
      if (!dv) continue;
      const values = dv.values();
      if (values.size === 0 && !legacy) continue;
      num[f] = { id: id++, counts: dv.counts ? yield* w.column(dv.counts()) : null, values: yield* w.column(values) };
    }
    const pts: SegMeta['pts'] = {};
    for (const f of order(src.pointFields())) {
      const p = pointColumnsOf(src, f);
      if (!p) continue;
      const values = p.values();
      if (values.size === 0 && !legacy) continue;
      pts[f] = { id: id++, values: yield* w.column(values), docs: yield* w.column(p.docs()) };
    }
    const ss: SegMeta['ss'] = {};
    for (const f of order(src.sortedSetFields())) {
      const dv = sortedSetColumnsOf(src, f);
      if (!dv) continue;
      const ords = dv.ords();
      if (ords.size === 0 && !legacy) continue;
      ss[f] = { id: id++, counts: dv.counts ? yield* w.column(dv.counts()) : null, ords: yield* w.column(ords), terms: w.strings(dv.termBlocks()) };
      yield;
    }
    const meta: SegMeta = { name, maxDoc, maxSeqNo: src.maxSeqNo, hasRouting: src.hasRouting, cols, inv, num, pts, ss };
    const segBytes = w.out.finish(Buffer.from(JSON.stringify(meta), 'utf8'), opts.fsync ?? false);
    done = true;
    return { segBytes, srcBytes };
  } finally {
    if (!done) {
      w.out.abort();
      fs.rmSync(path.join(dir, `${name}.src`), { force: true });
    }
  }
}

// ------------------------------------------------------------------ reading

/** the format version of a `.seg` file from its first bytes (3 = the single-file format) */
export function segmentFormatVersion(head: Uint8Array, resource: string): number {
  const legacy = Buffer.from(head.subarray(0, 8)).toString('latin1');
  if (/^STRSEG0\d$/.test(legacy)) {
    const v = Number(legacy.slice(7));
    if (v < SEGMENT_MIN_VERSION) throw new IndexFormatTooOld(resource, v);
    return v;
  }
  return checkHeader(readHeader(head), resource, SEGMENT_CODEC, SEGMENT_MIN_VERSION, SEGMENT_VERSION);
}

class IndexFormatTooOld extends CorruptIndexException {
  constructor(resource: string, v: number) {
    super(`Format version is not supported (resource ${resource}): ${v} (needs to be between ${SEGMENT_MIN_VERSION} and ${SEGMENT_VERSION}). This version of Strata only supports segments written by its own or the previous format; reindex the data`);
    this.name = 'IndexFormatException';
    this.esType = 'index_format_too_old_exception';
  }
}

interface TermBlock {
  terms: string[];
  df: Uint32Array;
  inlineDoc: Int32Array;
  inlineFreq: Uint32Array;
  start: Float64Array;
  docsLen: Uint32Array;
  posLen: Uint32Array;
}

interface TermIndex {
  firsts: string[];
  offs: Float64Array;
  lens: Float64Array;
  crcs: Float64Array;
}

interface DecodedPostings {
  docs: Uint32Array;
  freqs: Uint32Array | null;
  /** the summed freqs once asked for (kept with the cached postings: computed once per term, not per search) */
  ttf?: number;
}

class DiskPostings implements Postings {
  readonly docFreq: number;
  readonly docs: Uint32Array;
  readonly freqs: Uint32Array | null;
  private pos: { all: Uint32Array; starts: Uint32Array } | null = null;
  constructor(
    private readonly dict: DiskTermsDict,
    private readonly ord: number,
    private readonly p: DecodedPostings,
  ) {
    this.docFreq = p.docs.length;
    this.docs = p.docs;
    this.freqs = p.freqs;
  }
  positions(i: number): Uint32Array | null {
    if (!this.dict.m.positions) return null;
    if (!this.pos) this.pos = this.dict.positionsOf(this.ord, this.freqs);
    return this.pos.all.subarray(this.pos.starts[i], this.pos.starts[i + 1]);
  }
  get totalTermFreq(): number {
    return (this.p.ttf ??= totalTermFreqOf(this.freqs, this.docFreq));
  }
}

/** bytes read at a time by a streamed pass over postings (and below which a term's region is read once) */
const STREAM_CHUNK = 1 << 16;

/** varints read from a range of a file in chunks of STREAM_CHUNK (or from bytes already read) */
class VIntInput {
  private buf: Uint8Array;
  private p = 0;
  private len: number;
  /** file position of buf[len] */
  private at: number;
  constructor(
    private readonly file: RandomAccessFile | null,
    start: number,
    private readonly end: number,
    bytes: Uint8Array | null,
  ) {
    if (bytes) {
      this.buf = bytes;
      this.len = bytes.length;
      this.at = end;
    } else {
      this.buf = new Uint8Array(Math.min(STREAM_CHUNK, end - start));
      this.len = 0;
      this.at = start;
    }
  }
  /** file position of the next byte */
  get pos(): number {
    return this.at - (this.len - this.p);
  }
  private refill(): void {
    const keep = this.len - this.p;
    this.buf.copyWithin(0, this.p, this.len);
    const n = Math.min(this.buf.length - keep, this.end - this.at);
    this.file!.readInto(this.at, this.buf, keep, n);
    this.at += n;
    this.p = 0;
    this.len = keep + n;
  }
  vint(): number {
    if (this.len - this.p < 10 && this.at < this.end) this.refill();
    const b = this.buf;
    let p = this.p;
    if (p >= this.len) throw new CorruptIndexException(`read past the end of postings (resource ${this.file?.path ?? 'postings'})`);
    let x = b[p++];
    if (x < 0x80) {
      this.p = p;
      return x;
    }
    let v = x & 0x7f;
    let shift = 7;
    for (;;) {
      if (p >= this.len) throw new CorruptIndexException(`read past the end of postings (resource ${this.file?.path ?? 'postings'})`);
      x = b[p++];
      if (shift < 28) v |= (x & 0x7f) << shift;
      else v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) break;
      shift += 7;
      if (shift > 63) throw new CorruptIndexException(`malformed varint in postings (resource ${this.file?.path ?? 'postings'})`);
    }
    this.p = p;
    return v;
  }
}

/** where a term's postings are, and what a first pass learnt of them (the start of its freqs) */
interface TermRegion {
  ord: number;
  df: number;
  start: number;
  docsLen: number;
  posLen: number;
  inlineDoc: number;
  inlineFreq: number;
  /** file position of the first freq (after the doc deltas); -1 until a pass has read the docs */
  freqStart: number;
  /** the whole region, when small enough to read at once */
  bytes: Uint8Array | null;
}

/** one pass over a term's postings on disk: doc deltas, freqs and positions each read through a chunk */
class DiskPostingsReader implements PostingsBlockReader {
  n = 0;
  readonly docs: Uint32Array;
  readonly freqs: Uint32Array | null;
  positions: Uint32Array | null;
  private left: number;
  private prev = 0;
  private readonly docsIn: VIntInput | null;
  private readonly freqsIn: VIntInput | null;
  private readonly posIn: VIntInput | null;
  constructor(
    private readonly file: RandomAccessFile,
    private readonly maxDoc: number,
    private readonly r: TermRegion,
    private readonly pass: PostingsPass,
    hasFreqs: boolean,
    hasPositions: boolean,
  ) {
    this.left = r.df;
    const inline = r.df === 1;
    const block = Math.min(POSTINGS_BLOCK, r.df);
    this.docs = new Uint32Array(block);
    const wantFreqs = hasFreqs && pass >= PASS_FREQS;
    this.freqs = wantFreqs ? new Uint32Array(block) : null;
    this.positions = hasPositions && pass >= PASS_POSITIONS ? new Uint32Array(block) : null;
    const docsEnd = r.start + r.docsLen;
    this.docsIn = inline ? null : this.input(r.start, docsEnd);
    if (wantFreqs && !inline && r.freqStart < 0) {
      // the docs were not read yet: skip their varints to find the freqs
      const skip = this.input(r.start, docsEnd);
      for (let i = 0; i < r.df; i++) skip.vint();
      r.freqStart = skip.pos;
    }
    this.freqsIn = wantFreqs && !inline ? this.input(r.freqStart, docsEnd) : null;
    this.posIn = this.positions ? this.input(docsEnd, docsEnd + r.posLen) : null;
  }
  private input(from: number, to: number): VIntInput {
    const r = this.r;
    return new VIntInput(this.file, from, to, r.bytes ? r.bytes.subarray(from - r.start, to - r.start) : null);
  }
  next(): boolean {
    if (this.left === 0) return false;
    const r = this.r;
    const m = Math.min(this.left, this.docs.length);
    if (!this.docsIn) {
      this.docs[0] = r.inlineDoc;
      if (this.freqs) this.freqs[0] = r.inlineFreq;
    } else {
      let prev = this.prev;
      for (let i = 0; i < m; i++) this.docs[i] = prev += this.docsIn.vint();
      this.prev = prev;
      if (this.freqsIn) for (let i = 0; i < m; i++) this.freqs![i] = this.freqsIn.vint();
    }
    if (this.docs[m - 1] >= this.maxDoc) throw new CorruptIndexException(`postings of a term are inconsistent (resource ${this.file.path})`);
    if (this.posIn) {
      let total = 0;
      for (let i = 0; i < m; i++) total += this.freqs ? this.freqs[i] : 1;
      if (this.positions!.length < total) this.positions = new Uint32Array(Math.max(total, this.positions!.length * 2));
      const ps = this.positions!;
      let w = 0;
      for (let i = 0; i < m; i++) {
        const fr = this.freqs ? this.freqs[i] : 1;
        let prev = 0;
        for (let k = 0; k < fr; k++) ps[w++] = prev += this.posIn.vint();
      }
    }
    this.left -= m;
    this.n = m;
    if (this.left === 0) this.finish();
    return true;
  }
  /** a pass read exactly the bytes of the term's regions */
  private finish(): void {
    const r = this.r;
    const docsEnd = r.start + r.docsLen;
    if (this.docsIn) {
      if (r.freqStart < 0) r.freqStart = this.docsIn.pos;
      else if (this.docsIn.pos !== r.freqStart) this.corrupt();
    }
    if (this.freqsIn && this.freqsIn.pos !== docsEnd) this.corrupt();
    if (this.pass >= PASS_FREQS && this.docsIn && !this.freqsIn && r.freqStart !== docsEnd) this.corrupt();
    if (this.posIn && this.posIn.pos !== docsEnd + r.posLen) this.corrupt();
  }
  private corrupt(): never {
    throw new CorruptIndexException(`postings of a term are inconsistent (resource ${this.file.path})`);
  }
}

/** a term of a segment on disk whose postings are streamed from the file */
class DiskTerm implements StreamedTermPostings {
  constructor(
    readonly term: string,
    private readonly dict: DiskTermsDict,
    private readonly ord: number,
  ) {}
  read(pass: PostingsPass): PostingsBlockReader {
    return this.dict.readPostings(this.ord, pass);
  }
}

class DiskTermsDict implements TermsDict {
  private index: TermIndex | null = null;
  private readonly last: LastBlock<TermBlock>;
  readonly size: number;
  constructor(
    private readonly seg: DiskSegment,
    readonly m: InvMeta,
  ) {
    this.size = m.nTerms;
    this.last = new LastBlock(seg.cache, (b) => this.loadBlock(b));
  }
  private idx(): TermIndex {
    if (!this.index) {
      const [o, len, crc] = this.m.index;
      const raw = this.seg.readChecked(o, len, crc, 'term index');
      const r = new ByteReader(raw);
      const n = r.vint();
      const offs = readNumberList(r);
      const lens = readNumberList(r);
      const crcs = readNumberList(r);
      const firsts: string[] = [];
      while (firsts.length < n) readStringBlock(r, firsts);
      if (offs.length !== n || lens.length !== n || crcs.length !== n) throw new CorruptIndexException(`term index is inconsistent (resource ${this.seg.segPath})`);
      this.index = { firsts, offs, lens, crcs };
      let bytes = offs.byteLength * 3;
      for (const t of firsts) bytes += 40 + t.length * 2;
      this.seg.addResident(bytes);
    }
    return this.index;
  }
  private block(b: number): TermBlock {
    return this.last.get(b);
  }
  private loadBlock(b: number): TermBlock {
    return this.seg.cache.get(`${this.seg.uid}t${this.m.id}:${b}`, () => {
      const ix = this.idx();
      const raw = this.seg.readChecked(ix.offs[b], ix.lens[b], ix.crcs[b], 'term block');
      const r = new ByteReader(raw);
      let at = r.vint();
      const terms: string[] = [];
      readStringBlock(r, terms);
      const n = terms.length;
      const df = new Uint32Array(n);
      const inlineDoc = new Int32Array(n).fill(-1);
      const inlineFreq = new Uint32Array(n);
      const start = new Float64Array(n);
      const docsLen = new Uint32Array(n);
      const posLen = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        df[i] = r.vint();
        if (df[i] === 1) {
          inlineDoc[i] = r.vint();
          inlineFreq[i] = this.m.freqs ? r.vint() : 1;
        }
        docsLen[i] = r.vint();
        if (this.m.positions) posLen[i] = r.vint();
        start[i] = at;
        at += docsLen[i] + posLen[i];
      }
      let bytes = n * 40 + 200;
      for (const t of terms) bytes += 40 + t.length * 2;
      return { value: { terms, df, inlineDoc, inlineFreq, start, docsLen, posLen }, bytes, readBytes: raw.length };
    });
  }
  term(ord: number): string {
    return this.block(ord >>> 6).terms[ord & 63];
  }
  /** index of the last block whose first term <= target (-1 when target precedes every term) */
  private blockFor(target: string): number {
    const f = this.idx().firsts;
    let lo = 0;
    let hi = f.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (f[mid] <= target) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }
  ord(term: string): number {
    if (this.size === 0) return -1;
    const b = this.blockFor(term);
    if (b < 0) return -1;
    const i = binarySearchTerms(this.block(b).terms, term);
    return i >= 0 ? b * TERM_BLOCK + i : -1;
  }
  ordsOfSorted(terms: readonly string[], out: Int32Array): void {
    out.fill(-1, 0, terms.length);
    if (this.size === 0) return;
    const firsts = this.idx().firsts;
    let b = -1;
    let blk: readonly string[] | null = null;
    let i = 0;
    for (let k = 0; k < terms.length; k++) {
      const t = terms[k];
      if (b + 1 < firsts.length && firsts[b + 1] <= t) {
        // the next block, or a binary search when the term is further on
        b = b + 2 < firsts.length && firsts[b + 2] <= t ? this.blockFor(t) : b + 1;
        blk = null;
      }
      if (b < 0) continue;
      if (blk === null) {
        blk = this.block(b).terms;
        i = 0;
      }
      while (i < blk.length && blk[i] < t) i++;
      if (i < blk.length && blk[i] === t) out[k] = b * TERM_BLOCK + i;
    }
  }
  seekCeil(target: string): number {
    if (this.size === 0) return 0;
    const b = this.blockFor(target);
    if (b < 0) return 0;
    const i = binarySearchTerms(this.block(b).terms, target);
    return b * TERM_BLOCK + (i >= 0 ? i : -(i + 1));
  }
  docFreq(ord: number): number {
    return this.block(ord >>> 6).df[ord & 63];
  }
  postings(ord: number): Postings {
    const blk = this.block(ord >>> 6);
    const i = ord & 63;
    const df = blk.df[i];
    let p: DecodedPostings;
    if (df === 1) {
      p = this.decodePostings(ord);
    } else {
      p = this.seg.cache.get(`${this.seg.uid}p${this.m.id}:${ord}`, () => {
        const value = this.decodePostings(ord);
        return { value, bytes: value.docs.byteLength + (value.freqs?.byteLength ?? 0) + 100, readBytes: blk.docsLen[i] };
      });
    }
    return new DiskPostings(this, ord, p);
  }
  /** the postings of a term read from the file (not cached: merges read every term once) */
  decodePostings(ord: number): DecodedPostings {
    const blk = this.block(ord >>> 6);
    const i = ord & 63;
    const df = blk.df[i];
    if (df === 1) return { docs: Uint32Array.of(blk.inlineDoc[i]), freqs: this.m.freqs ? Uint32Array.of(blk.inlineFreq[i]) : null };
    const raw = this.seg.read(blk.start[i], blk.docsLen[i]);
    const r = new ByteReader(raw);
    const docs = new Uint32Array(df);
    readDeltaInts(r, docs, 0, df);
    let freqs: Uint32Array | null = null;
    if (this.m.freqs) {
      freqs = new Uint32Array(df);
      readInts(r, freqs, 0, df);
    }
    if (r.pos !== raw.length || (df > 0 && docs[df - 1] >= this.seg.maxDoc)) throw new CorruptIndexException(`postings of a term are inconsistent (resource ${this.seg.segPath})`);
    return { docs, freqs };
  }
  /** the last term a streamed pass read: later passes over the same term reuse what the first learnt */
  private region: TermRegion | null = null;
  readPostings(ord: number, pass: PostingsPass): PostingsBlockReader {
    let r = this.region;
    if (!r || r.ord !== ord) {
      const blk = this.block(ord >>> 6);
      const i = ord & 63;
      r = {
        ord,
        df: blk.df[i],
        start: blk.start[i],
        docsLen: blk.docsLen[i],
        posLen: blk.posLen[i],
        inlineDoc: blk.inlineDoc[i],
        inlineFreq: blk.inlineFreq[i],
        freqStart: blk.df[i] === 1 ? blk.start[i] : -1,
        bytes: null,
      };
      const len = r.docsLen + (this.m.positions ? r.posLen : 0);
      if (len > 0 && len <= STREAM_CHUNK) r.bytes = this.seg.read(r.start, len);
      this.region = r;
    }
    return new DiskPostingsReader(this.seg.file, this.seg.maxDoc, r, pass, this.m.freqs, this.m.positions);
  }
  positionsOf(ord: number, freqs: Uint32Array | null): { all: Uint32Array; starts: Uint32Array } {
    return this.seg.cache.get(`${this.seg.uid}q${this.m.id}:${ord}`, () => {
      const value = this.decodePositions(ord, freqs);
      return { value, bytes: value.all.byteLength + value.starts.byteLength + 100, readBytes: this.block(ord >>> 6).posLen[ord & 63] };
    });
  }
  /** the positions of a term read from the file (not cached) */
  decodePositions(ord: number, freqs: Uint32Array | null): { all: Uint32Array; starts: Uint32Array } {
    const blk = this.block(ord >>> 6);
    const i = ord & 63;
    const df = blk.df[i];
    const raw = this.seg.read(blk.start[i] + blk.docsLen[i], blk.posLen[i]);
    const r = new ByteReader(raw);
    const starts = new Uint32Array(df + 1);
    for (let k = 0; k < df; k++) starts[k + 1] = starts[k] + (freqs ? freqs[k] : 1);
    const all = new Uint32Array(starts[df]);
    for (let k = 0; k < df; k++) {
      let prev = 0;
      for (let j = starts[k]; j < starts[k + 1]; j++) {
        prev += r.vint();
        all[j] = prev;
      }
    }
    return { all, starts };
  }
}

const f64 = (n: number): Float64Array => new Float64Array(n);
const u32 = (n: number): Uint32Array => new Uint32Array(n);

/** a number column block by block through the block cache; block bounds from the resident table */
class DiskColumnBlocks<T extends Float64Array | Uint32Array> implements NumberBlocks<T> {
  readonly size: number;
  readonly blockSize = COL_BLOCK;
  readonly numBlocks: number;
  constructor(
    private readonly seg: DiskSegment,
    private readonly key: string,
    private readonly c: ColRef,
    make: (n: number) => T,
  ) {
    this.size = c.n;
    this.numBlocks = Math.ceil(c.n / COL_BLOCK);
    this.last = new LastBlock(seg.cache, (b) => seg.colBlock(key, c, b, make));
  }
  min(b: number): number {
    return this.seg.colTable(this.key, this.c).mins[b];
  }
  max(b: number): number {
    return this.seg.colTable(this.key, this.c).maxs[b];
  }
  private readonly last: LastBlock<T>;
  block(b: number): T {
    if (b < 0 || b >= this.numBlocks) throw new RangeError(`block ${b} out of bounds [0, ${this.numBlocks})`);
    return this.last.get(b);
  }
}

/** numeric doc values of a segment on disk: blocks on demand; the whole column only when asked for */
class DiskNumeric implements NumericDocValues {
  readonly singleValued: boolean;
  readonly valueBlocks: NumberBlocks;
  readonly docBlocks: DocBlocks;
  constructor(
    private readonly seg: DiskSegment,
    private readonly field: string,
    private readonly m: SegMeta['num'][string],
  ) {
    this.singleValued = m.counts === null;
    this.valueBlocks = new DiskColumnBlocks(seg, `n${m.id}v`, m.values, f64);
    this.docBlocks = diskDocBlocks(seg, `n${m.id}c`, m.counts, this.valueBlocks);
  }
  // decoded on first access, then held by this object (per-doc readers touch them on every doc)
  private o: Uint32Array | null = null;
  private v: Float64Array | null = null;
  get offsets(): Uint32Array {
    return (this.o ??= this.seg.numericOffsets(this.m));
  }
  get values(): Float64Array {
    return (this.v ??= this.seg.numericValues(this.field, this.m));
  }
}

/** per-doc blocks of a doc-values field on disk: the values column and, multi-valued, the counts column */
function diskDocBlocks<T extends Float64Array | Uint32Array>(seg: DiskSegment, countsKey: string, counts: ColRef | null, values: NumberBlocks<T>): DocBlocks<T> {
  const cb = counts ? new DiskColumnBlocks(seg, countsKey, counts, u32) : null;
  return { values, counts: cb, countStart: (b) => seg.countStarts(countsKey, counts!)[b]! };
}

/** keyword doc values of a segment on disk: ordinals block by block; the whole columns only when asked for */
class DiskSortedSet implements SortedSetDocValues {
  readonly singleValued: boolean;
  readonly docBlocks: DocBlocks<Uint32Array>;
  constructor(
    private readonly seg: DiskSegment,
    private readonly field: string,
    private readonly m: SegMeta['ss'][string],
  ) {
    this.singleValued = m.counts === null;
    this.docBlocks = diskDocBlocks(seg, `S${m.id}c`, m.counts, new DiskColumnBlocks(seg, `S${m.id}o`, m.ords, u32));
  }
  private o: Uint32Array | null = null;
  private ord: Uint32Array | null = null;
  private t: readonly string[] | null = null;
  get offsets(): Uint32Array {
    return (this.o ??= this.seg.sortedSetOffsets(this.m));
  }
  get ords(): Uint32Array {
    return (this.ord ??= this.seg.sortedSetOrds(this.field, this.m));
  }
  ordCounts(): Int32Array {
    return this.seg.sortedSetOrdCounts(this.m, this.terms.length);
  }
  get terms(): readonly string[] {
    return (this.t ??= this.seg.sortedSetTerms(this.m));
  }
}

/** points of a segment on disk: blocks on demand; the whole columns only when asked for */
class DiskPoints implements PointIndex {
  readonly blocks: { values: NumberBlocks; docs: NumberBlocks<Uint32Array> };
  constructor(
    private readonly seg: DiskSegment,
    private readonly m: SegMeta['pts'][string],
  ) {
    this.blocks = { values: new DiskColumnBlocks(seg, `P${m.id}v`, m.values, f64), docs: new DiskColumnBlocks(seg, `P${m.id}d`, m.docs, u32) };
    if (m.values.n !== m.docs.n) throw new CorruptIndexException(`points are inconsistent (resource ${seg.segPath})`);
  }
  private whole: { values: Float64Array; docs: Uint32Array } | null = null;
  get values(): Float64Array {
    return (this.whole ??= this.seg.wholePoints(this.m)).values;
  }
  get docs(): Uint32Array {
    return (this.whole ??= this.seg.wholePoints(this.m)).docs;
  }
}

/** a column read once in order: one decoded block at a time, read straight from the file */
class ColumnCursor implements NumberCursor {
  readonly size: number;
  private readonly buf = new Float64Array(COL_BLOCK);
  private b = 0;
  private at = 0;
  private len = 0;
  constructor(
    private readonly seg: DiskSegment,
    private readonly key: string,
    private readonly c: ColRef,
  ) {
    this.size = c.n;
  }
  next(): number {
    if (this.at === this.len) {
      if (this.b * COL_BLOCK >= this.c.n) throw new RangeError(`read past the end of a column of ${this.c.n} values`);
      this.len = this.seg.readColBlock(this.key, this.c, this.b++, this.buf);
      this.at = 0;
    }
    return this.buf[this.at++];
  }
}

export interface DiskSegmentOptions {
  cache?: BlockCache;
}

/** a segment of the current format, opened from its two files */
export class DiskSegment implements SegmentCore {
  name: string;
  readonly maxDoc: number;
  readonly maxSeqNo: number;
  readonly hasRouting: boolean;
  readonly formatVersion: number;
  readonly cache: BlockCache;
  readonly uid: string;
  readonly segPath: string;
  private readonly seg: RandomAccessFile;
  private readonly stored: StoredFieldsReader;
  private readonly meta: SegMeta;
  private readonly dicts = new Map<string, DiskTermsDict>();
  private readonly colTables = new Map<string, ColTable>();
  private readonly countStartTables = new Map<string, Float64Array>();
  private resident: number;
  readonly sizeInBytes: number;

  constructor(dir: string, name: string, opts: DiskSegmentOptions = {}) {
    this.name = name;
    this.cache = opts.cache ?? defaultBlockCache;
    this.uid = nextCacheUid();
    this.segPath = path.join(dir, `${name}.seg`);
    this.seg = new RandomAccessFile(this.segPath);
    try {
      const len = this.seg.length;
      if (len < FOOTER_LENGTH + 12) throw new CorruptIndexException(`file too short to be a segment (resource ${this.segPath})`);
      const v = segmentFormatVersion(this.seg.read(0, Math.min(len, 64)), this.segPath);
      this.formatVersion = v;
      if (v < SEGMENT_BLOCK_FORMAT) throw new CorruptIndexException(`segment format ${v} must be opened as a legacy segment (resource ${this.segPath})`);
      const f = parseFooter(this.seg.read(len - FOOTER_LENGTH, FOOTER_LENGTH), len, this.segPath);
      const mb = this.seg.read(f.metaOffset, f.metaLength);
      if (crc32(mb) !== f.metaCrc) throw new CorruptIndexException(`checksum failed for the segment metadata (resource ${this.segPath})`);
      try {
        this.meta = JSON.parse(Buffer.from(mb).toString('utf8')) as SegMeta;
      } catch {
        throw new CorruptIndexException(`unreadable segment metadata (resource ${this.segPath})`);
      }
      this.maxDoc = this.meta.maxDoc;
      this.maxSeqNo = this.meta.maxSeqNo;
      this.hasRouting = this.meta.hasRouting;
      this.stored = new StoredFieldsReader(path.join(dir, `${name}.src`), this.cache, `${this.uid}`);
    } catch (err) {
      this.seg.close();
      throw err;
    }
    if (this.stored.maxDoc !== this.maxDoc) {
      this.close();
      throw new CorruptIndexException(`stored fields hold ${this.stored.maxDoc} docs, the segment ${this.maxDoc} (resource ${this.segPath})`);
    }
    this.sizeInBytes = this.seg.length + fs.statSync(this.stored.path).size;
    this.resident = mbLen(this.meta) + this.stored.ramBytesUsed;
  }

  get ramBytesUsed(): number {
    return this.resident;
  }
  addResident(n: number): void {
    this.resident += n;
  }

  read(pos: number, len: number): Uint8Array {
    return this.seg.read(pos, len);
  }
  /** the `.seg` file (streamed reads) */
  get file(): RandomAccessFile {
    return this.seg;
  }
  readChecked(pos: number, len: number, crc: number, what: string): Uint8Array {
    const b = this.seg.read(pos, len);
    if (crc32(b) !== crc >>> 0) throw new CorruptIndexException(`checksum failed for a ${what} (resource ${this.segPath})`);
    return b;
  }

  /** a whole number column (checksummed) */
  private column<T extends Float64Array | Uint32Array>(c: ColRef, make: (n: number) => T): T {
    const raw = this.readChecked(c.o, c.len, c.crc, 'number column');
    const out = make(c.n);
    const r = new ByteReader(raw);
    let at = 0;
    while (at < c.n) at += readNumberBlock(r, out, at);
    if (at !== c.n || r.pos !== raw.length) throw new CorruptIndexException(`number column is inconsistent (resource ${this.segPath})`);
    return out;
  }

  /**
   * the resident block table of a column: read from the file (version 5), or rebuilt once from the whole
   * column, checksummed (version 4)
   */
  colTable(key: string, c: ColRef): ColTable {
    let t = this.colTables.get(key);
    if (t) return t;
    const nb = Math.ceil(c.n / COL_BLOCK);
    if (c.idx.length === 3) {
      const r = new ByteReader(this.readChecked(c.idx[0], c.idx[1], c.idx[2], 'block table'));
      t = { offs: readNumberList(r), crcs: readNumberList(r), mins: readNumberList(r), maxs: readNumberList(r) };
    } else {
      const raw = this.readChecked(c.o, c.len, c.crc, 'number column');
      t = { offs: new Float64Array(nb), crcs: new Float64Array(nb), mins: new Float64Array(nb), maxs: new Float64Array(nb) };
      const r = new ByteReader(raw);
      const buf = new Float64Array(COL_BLOCK);
      for (let b = 0; b < nb; b++) {
        const start = r.pos;
        const m = readNumberBlock(r, buf, 0);
        let min = Infinity;
        let max = -Infinity;
        for (let i = 0; i < m; i++) {
          if (buf[i] < min) min = buf[i];
          if (buf[i] > max) max = buf[i];
        }
        t.offs[b] = start;
        t.crcs[b] = crc32(raw.subarray(start, r.pos));
        t.mins[b] = min;
        t.maxs[b] = max;
      }
    }
    if (t.offs.length !== nb || t.crcs.length !== nb || t.mins.length !== nb || t.maxs.length !== nb) {
      throw new CorruptIndexException(`block table of a number column is inconsistent (resource ${this.segPath})`);
    }
    this.colTables.set(key, t);
    this.resident += nb * 32 + 64;
    return t;
  }

  /** decodes block b of a column into dst (checksummed); returns the number of values */
  readColBlock(key: string, c: ColRef, b: number, dst: Float64Array | Uint32Array): number {
    const t = this.colTable(key, c);
    const start = t.offs[b];
    const end = b + 1 < t.offs.length ? t.offs[b + 1] : c.len;
    const raw = this.readChecked(c.o + start, end - start, t.crcs[b], 'number block');
    const r = new ByteReader(raw);
    const m = readNumberBlock(r, dst, 0);
    if (m !== Math.min(COL_BLOCK, c.n - b * COL_BLOCK) || r.pos !== raw.length) throw new CorruptIndexException(`number block is inconsistent (resource ${this.segPath})`);
    return m;
  }

  /** block b of a column through the cache */
  colBlock<T extends Float64Array | Uint32Array>(key: string, c: ColRef, b: number, make: (n: number) => T): T {
    return this.cache.get(`${this.uid}c${key}:${b}`, () => {
      const out = make(Math.min(COL_BLOCK, c.n - b * COL_BLOCK));
      this.readColBlock(key, c, b, out);
      const t = this.colTables.get(key)!;
      const len = (b + 1 < t.offs.length ? t.offs[b + 1] : c.len) - t.offs[b];
      return { value: out, bytes: out.byteLength + 64, readBytes: len };
    });
  }

  /**
   * index of the first value of each block of a per-doc counts column: computed once from the counts (read
   * block by block straight from the file) and kept resident (8 bytes per 4096 docs)
   */
  countStarts(key: string, c: ColRef): Float64Array {
    let s = this.countStartTables.get(key);
    if (s) return s;
    const nb = Math.ceil(c.n / COL_BLOCK);
    s = new Float64Array(nb + 1);
    const buf = new Uint32Array(COL_BLOCK);
    let at = 0;
    for (let b = 0; b < nb; b++) {
      s[b] = at;
      const m = this.readColBlock(key, c, b, buf);
      for (let i = 0; i < m; i++) at += buf[i];
    }
    s[nb] = at;
    this.countStartTables.set(key, s);
    this.resident += s.byteLength + 64;
    return s;
  }

  /** one value of a per-doc column (`seq`, `term`, `ver`), through the cache (one block of 4096 values) */
  private colValue(key: string, c: ColRef, i: number): number {
    if (i < 0 || i >= c.n) throw new RangeError(`doc ${i} out of bounds [0, ${c.n})`);
    const b = Math.floor(i / COL_BLOCK);
    let last = this.lastColBlocks.get(key);
    if (!last) this.lastColBlocks.set(key, (last = new LastBlock(this.cache, (x) => this.colBlock(key, c, x, f64))));
    return last.get(b)[i - b * COL_BLOCK];
  }
  private readonly lastColBlocks = new Map<string, LastBlock<Float64Array>>();

  private offsetsOf(counts: ColRef | null, key: string): Uint32Array {
    if (!counts) return identityOffsets(this.maxDoc);
    return this.cache.get(`${this.uid}o${key}`, () => {
      const c = this.column(counts, (n) => new Uint32Array(n));
      const offsets = new Uint32Array(this.maxDoc + 1);
      for (let d = 0; d < this.maxDoc; d++) offsets[d + 1] = offsets[d] + c[d];
      return { value: offsets, bytes: offsets.byteLength, readBytes: counts.len };
    });
  }

  /** a column read once in order, block by block, straight from the file (merges: the cache is left alone) */
  private cursor(key: string, c: ColRef): NumberCursor {
    return new ColumnCursor(this, key, c);
  }

  invertedFields(): string[] {
    return Object.keys(this.meta.inv);
  }
  fieldInfo(field: string): InvertedFieldInfo | null {
    const m = this.meta.inv[field];
    return m ? { freqs: m.freqs, positions: m.positions, norms: m.norms !== null } : null;
  }
  terms(field: string): TermsDict | null {
    let d = this.dicts.get(field);
    if (!d) {
      const m = Object.prototype.hasOwnProperty.call(this.meta.inv, field) ? this.meta.inv[field] : undefined;
      if (!m) return null;
      d = new DiskTermsDict(this, m);
      this.dicts.set(field, d);
    }
    return d;
  }
  *termIterator(field: string): Generator<StreamedTermPostings> {
    const d = this.terms(field) as DiskTermsDict | null;
    if (!d) return;
    // every term once, in order: postings streamed straight from the file, leaving the block cache to searches
    for (let o = 0; o < d.size; o++) yield new DiskTerm(d.term(o), d, o);
  }
  fieldStats(field: string): InvertedFieldStats | null {
    const m = Object.prototype.hasOwnProperty.call(this.meta.inv, field) ? this.meta.inv[field] : undefined;
    return m ? { docCount: m.docCount, sumTotalTermFreq: m.sttf, sumDocFreq: m.sdf } : null;
  }
  norms(field: string): Uint8Array | null {
    const m = Object.prototype.hasOwnProperty.call(this.meta.inv, field) ? this.meta.inv[field] : undefined;
    const n = m?.norms;
    if (!m || !n) return null;
    return this.cache.get(`${this.uid}N${m.id}`, () => ({ value: new Uint8Array(this.readChecked(n[0], n[1], n[2], 'norms')), bytes: n[1], readBytes: n[1] }));
  }
  normsChunks(field: string): Iterable<Uint8Array> | null {
    const m = Object.prototype.hasOwnProperty.call(this.meta.inv, field) ? this.meta.inv[field] : undefined;
    return m?.norms ? this.readNorms(m.norms) : null;
  }
  /** norms straight from the file in chunks (merges), checksummed as a whole once read through */
  private *readNorms(n: [number, number, number]): Generator<Uint8Array> {
    let crc = 0;
    for (let o = 0; o < n[1]; o += STREAM_CHUNK) {
      const b = this.seg.read(n[0] + o, Math.min(STREAM_CHUNK, n[1] - o));
      crc = crc32(b, crc);
      if (o + b.length === n[1] && crc >>> 0 !== n[2] >>> 0) throw new CorruptIndexException(`checksum failed for a norms (resource ${this.segPath})`);
      yield b;
    }
  }
  numericFields(): string[] {
    return Object.keys(this.meta.num);
  }
  private numMeta(field: string): SegMeta['num'][string] | undefined {
    return Object.prototype.hasOwnProperty.call(this.meta.num, field) ? this.meta.num[field] : undefined;
  }
  private ptsMeta(field: string): SegMeta['pts'][string] | undefined {
    return Object.prototype.hasOwnProperty.call(this.meta.pts, field) ? this.meta.pts[field] : undefined;
  }
  private ssMeta(field: string): SegMeta['ss'][string] | undefined {
    return Object.prototype.hasOwnProperty.call(this.meta.ss, field) ? this.meta.ss[field] : undefined;
  }

  numeric(field: string): NumericDocValues | null {
    const m = this.numMeta(field);
    return m ? new DiskNumeric(this, field, m) : null;
  }
  /** the whole values column of a numeric field (cached) */
  numericValues(field: string, m: SegMeta['num'][string]): Float64Array {
    return this.cache.get(`${this.uid}n${m.id}`, () => {
      const values = this.column(m.values, f64);
      if (this.offsetsOf(m.counts, `n${m.id}`)[this.maxDoc] !== values.length) throw new CorruptIndexException(`doc values of [${field}] are inconsistent (resource ${this.segPath})`);
      return { value: values, bytes: values.byteLength + 64, readBytes: m.values.len };
    });
  }
  numericOffsets(m: SegMeta['num'][string]): Uint32Array {
    return this.offsetsOf(m.counts, `n${m.id}`);
  }
  numericColumns(field: string): NumericColumns | null {
    const m = this.numMeta(field);
    if (!m) return null;
    const counts = m.counts;
    return { counts: counts ? () => this.cursor(`n${m.id}c`, counts) : null, values: () => this.cursor(`n${m.id}v`, m.values) };
  }
  pointFields(): string[] {
    return Object.keys(this.meta.pts);
  }
  points(field: string): PointIndex | null {
    const m = this.ptsMeta(field);
    return m ? new DiskPoints(this, m) : null;
  }
  /** the whole columns of a point field (cached) */
  wholePoints(m: SegMeta['pts'][string]): { values: Float64Array; docs: Uint32Array } {
    return this.cache.get(`${this.uid}P${m.id}`, () => {
      const values = this.column(m.values, f64);
      const docs = this.column(m.docs, u32);
      return { value: { values, docs }, bytes: values.byteLength + docs.byteLength + 64, readBytes: m.values.len + m.docs.len };
    });
  }
  pointColumns(field: string): PointColumns | null {
    const m = this.ptsMeta(field);
    if (!m) return null;
    return { values: () => this.cursor(`P${m.id}v`, m.values), docs: () => this.cursor(`P${m.id}d`, m.docs) };
  }
  sortedSetFields(): string[] {
    return Object.keys(this.meta.ss);
  }
  private dictionary(m: SegMeta['ss'][string]): string[] {
    const [o, len, crc, n] = m.terms;
    const r = new ByteReader(this.readChecked(o, len, crc, 'keyword dictionary'));
    const terms: string[] = [];
    while (terms.length < n) readStringBlock(r, terms);
    return terms;
  }
  sortedSet(field: string): SortedSetDocValues | null {
    const m = this.ssMeta(field);
    return m ? new DiskSortedSet(this, field, m) : null;
  }
  /** the dictionary of a keyword field (cached) */
  sortedSetTerms(m: SegMeta['ss'][string]): readonly string[] {
    return this.cache.get(`${this.uid}D${m.id}`, () => {
      const terms = this.dictionary(m);
      let bytes = 64;
      for (const t of terms) bytes += 40 + t.length * 2;
      return { value: terms, bytes, readBytes: m.terms[1] };
    });
  }
  /** the whole ordinals column of a keyword field (cached) */
  sortedSetOrds(field: string, m: SegMeta['ss'][string]): Uint32Array {
    return this.cache.get(`${this.uid}S${m.id}`, () => {
      const ords = this.column(m.ords, u32);
      if (this.sortedSetOffsets(m)[this.maxDoc] !== ords.length) throw new CorruptIndexException(`doc values of [${field}] are inconsistent (resource ${this.segPath})`);
      return { value: ords, bytes: ords.byteLength + 64, readBytes: m.ords.len };
    });
  }
  /**
   * values per ordinal of a keyword field (cached, 4 bytes a term): the ordinals read once in order straight
   * from the file, so counting does not push decoded columns through the cache
   */
  sortedSetOrdCounts(m: SegMeta['ss'][string], numTerms: number): Int32Array {
    return this.cache.get(`${this.uid}K${m.id}`, () => {
      const counts = new Int32Array(numTerms);
      const cur = this.cursor(`S${m.id}o`, m.ords);
      for (let i = 0; i < cur.size; i++) {
        const o = cur.next();
        if (o >= numTerms) throw new CorruptIndexException(`doc values are inconsistent: ordinal ${o} of ${numTerms} terms (resource ${this.segPath})`);
        counts[o]! += 1;
      }
      return { value: counts, bytes: counts.byteLength + 64, readBytes: m.ords.len };
    });
  }
  sortedSetOffsets(m: SegMeta['ss'][string]): Uint32Array {
    return this.offsetsOf(m.counts, `S${m.id}`);
  }
  sortedSetColumns(field: string): SortedSetColumns | null {
    const m = this.ssMeta(field);
    if (!m) return null;
    const counts = m.counts;
    return { counts: counts ? () => this.cursor(`S${m.id}c`, counts) : null, ords: () => this.cursor(`S${m.id}o`, m.ords), termCount: m.terms[3], termBlocks: () => this.dictionaryBlocks(m) };
  }
  /**
   * a keyword dictionary block by block, read from the file in chunks (merges: never the whole dictionary;
   * a chunk grows only to hold one block), checksummed as a whole once read through
   */
  private *dictionaryBlocks(m: SegMeta['ss'][string]): Generator<string[]> {
    const [o, len, crc, n] = m.terms;
    let buf = new Uint8Array(0);
    let start = 0;
    let at = 0;
    let sum = 0;
    let count = 0;
    while (count < n) {
      const r = new ByteReader(buf.subarray(start));
      const block: string[] = [];
      try {
        readStringBlock(r, block);
      } catch (err) {
        // a block cut by the end of the chunk: read on (a chunk at least doubles, so any block fits)
        if (at >= len || !(err instanceof CorruptIndexException)) throw err;
        const keep = buf.subarray(start);
        const more = this.seg.read(o + at, Math.min(len - at, Math.max(STREAM_CHUNK, keep.length)));
        sum = crc32(more, sum);
        at += more.length;
        const next = new Uint8Array(keep.length + more.length);
        next.set(keep, 0);
        next.set(more, keep.length);
        buf = next;
        start = 0;
        continue;
      }
      start += r.pos;
      count += block.length;
      if (block.length === 0 || count > n) break;
      yield block;
    }
    if (count !== n || at !== len || start !== buf.length || sum >>> 0 !== crc >>> 0) {
      throw new CorruptIndexException(`keyword dictionary is inconsistent or its checksum failed (resource ${this.segPath})`);
    }
  }
  id(doc: number): string {
    return this.stored.id(doc);
  }
  routing(doc: number): string | null {
    return this.hasRouting ? this.stored.routing(doc) : null;
  }
  source(doc: number): Uint8Array | null {
    return this.stored.source(doc);
  }

  storedBlocks(): StoredBlocks {
    return this.stored;
  }
  seqNo(doc: number): number {
    return this.colValue('seq', this.meta.cols.seq, doc);
  }
  primaryTerm(doc: number): number {
    return this.colValue('term', this.meta.cols.term, doc);
  }
  version(doc: number): number {
    return this.colValue('ver', this.meta.cols.ver, doc);
  }
  sync(): void {
    this.stored.fsync();
    this.seg.fsync();
  }
  close(): void {
    this.seg.close();
    this.stored.close();
    this.cache.invalidatePrefix(this.uid);
  }
}

function mbLen(m: SegMeta): number {
  return 2048 + Object.keys(m.inv).length * 200 + Object.keys(m.num).length * 200 + Object.keys(m.pts).length * 200 + Object.keys(m.ss).length * 200;
}

/**
 * Full verification of a segment's files: header, footer and the checksum of every byte (the `verify`
 * tool; opening a segment checks the header, the footer and the metadata only). Throws CorruptIndexException.
 */
export function verifySegmentFiles(dir: string, name: string): { version: number; files: string[] } {
  const seg = path.join(dir, `${name}.seg`);
  const fd = fs.openSync(seg, 'r');
  const head = Buffer.alloc(64);
  const n = fs.readSync(fd, head, 0, 64, 0);
  fs.closeSync(fd);
  const v = segmentFormatVersion(head.subarray(0, n), seg);
  if (v < SEGMENT_BLOCK_FORMAT) return { version: v, files: [`${name}.seg`] };
  verifyFileChecksum(seg);
  verifyFileChecksum(path.join(dir, `${name}.src`));
  // opening checks headers, footers, metadata and that both files agree
  const s = new DiskSegment(dir, name);
  s.close();
  return { version: v, files: segmentFileNames(name) };
}
