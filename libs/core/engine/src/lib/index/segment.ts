/**
 * One immutable in-memory segment (plain typed arrays) and its LeafReader view.
 * A SegmentReader pairs the immutable data with a live-docs snapshot (copy-on-write by the shard).
 */
import type {
  FieldStats,
  LeafReader,
  NumericDocValues,
  PointIndex,
  Postings,
  SortedSetDocValues,
  TermsDict,
} from './leaf-reader.js';
import * as fs from 'node:fs';
import { termsOf, totalTermFreqOf, type InvertedFieldInfo, type InvertedFieldStats, type SegmentCore, type TermPostings } from './segment-core.js';
import { countLive, isLiveBit } from './live-docs.js';
import { hiddenDocBits, NESTED_PATH_FIELD } from './nested-blocks.js';

/**
 * `_source` bytes kept on disk (`<segment>.src`), read with positioned reads. Sequential access (paging
 * in index order, merges) is served from a read-ahead block, so a page of consecutive documents costs a
 * few reads instead of one per document; random access reads exactly the bytes asked for.
 */
export class SourceFile {
  static readonly READ_AHEAD = 64 * 1024;
  private fd: number;
  private block: Buffer | null = null;
  private blockStart = 0;
  private lastEnd = -1;
  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'r');
  }
  get isOpen(): boolean {
    return this.fd >= 0;
  }
  read(start: number, end: number): Uint8Array {
    const len = end - start;
    if (len === 0) return Buffer.alloc(0);
    const b = this.block;
    if (b && start >= this.blockStart && end <= this.blockStart + b.length) {
      this.lastEnd = end;
      return b.subarray(start - this.blockStart, end - this.blockStart);
    }
    const sequential = this.lastEnd >= 0 && start >= this.lastEnd && start - this.lastEnd < 4096;
    this.lastEnd = end;
    if (!sequential) return this.readExact(start, len);
    const want = Math.max(len, SourceFile.READ_AHEAD);
    const buf = Buffer.allocUnsafe(want);
    const got = this.fill(buf, start, want, len);
    this.block = got === want ? buf : buf.subarray(0, got);
    this.blockStart = start;
    return this.block.subarray(0, len);
  }
  private readExact(start: number, len: number): Uint8Array {
    const buf = Buffer.allocUnsafe(len);
    this.fill(buf, start, len, len);
    return buf;
  }
  /** reads up to `want` bytes at `start` (at least `need`, else a short-read error); returns bytes read */
  private fill(buf: Buffer, start: number, want: number, need: number): number {
    if (this.fd < 0) this.fd = fs.openSync(this.path, 'r');
    let off = 0;
    while (off < want) {
      const n = fs.readSync(this.fd, buf, off, want - off, start + off);
      if (n <= 0) break;
      off += n;
    }
    if (off < need) throw new Error(`short read of ${this.path} at ${start + off}`);
    return off;
  }
  fsync(): void {
    if (this.fd < 0) this.fd = fs.openSync(this.path, 'r');
    fs.fsyncSync(this.fd);
  }
  close(): void {
    this.block = null;
    if (this.fd >= 0) {
      try {
        fs.closeSync(this.fd);
      } catch {
        /* ignore */
      }
      this.fd = -1;
    }
  }
}

/** writes `_source` bytes to a new `.src` file (no fsync: the commit fsyncs) */
export function writeSourceFile(path: string, chunks: readonly Uint8Array[]): void {
  const fd = fs.openSync(path, 'w');
  try {
    for (const c of chunks) {
      let off = 0;
      while (off < c.length) off += fs.writeSync(fd, c, off, c.length - off);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** the stored `_source` of a doc, in memory or from the segment's source file */
export function readSource(d: SegmentData, doc: number): Uint8Array | null {
  if (d.sourceMissing && d.sourceMissing[doc]) return null;
  const a = d.sourceStarts[doc];
  const b = d.sourceStarts[doc + 1];
  if (d.sourceBytes) return d.sourceBytes.subarray(a, b);
  if (d.sourceFile) return d.sourceFile.read(a, b);
  return null;
}

/** a byte range of the segment's `_source` data (merges copy runs of live docs) */
export function readSourceRange(d: SegmentData, start: number, end: number): Uint8Array {
  if (d.sourceBytes) return d.sourceBytes.subarray(start, end);
  if (d.sourceFile) return d.sourceFile.read(start, end);
  throw new Error(`segment ${d.name} has no source data`);
}

export interface InvertedFieldData {
  /** sorted ascending by UTF-16 code units */
  terms: string[];
  /** start of each term's postings in docs (length terms.length + 1) */
  postingStarts: Uint32Array;
  docs: Uint32Array;
  /** null when index options are `docs` */
  freqs: Uint32Array | null;
  /** start of each term's positions block (length terms.length + 1); a posting's positions follow its
   * predecessors' (freq each); null without positions */
  posStarts: Uint32Array | null;
  positions: Uint32Array | null;
  /** one byte per doc, null when norms are not recorded */
  norms: Uint8Array | null;
  docCount: number;
  sumTotalTermFreq: number;
  sumDocFreq: number;
}

export interface SegmentData {
  name: string;
  maxDoc: number;
  inverted: Map<string, InvertedFieldData>;
  numeric: Map<string, NumericDocValues>;
  points: Map<string, PointIndex>;
  sortedSet: Map<string, SortedSetDocValues>;
  ids: string[];
  /** routing per doc or null when no doc has a routing */
  routing: Array<string | null> | null;
  /** `_source` bytes in memory (freshly built segments, tests); null once they live in `sourceFile` */
  sourceBytes: Uint8Array | null;
  /** `_source` bytes on disk */
  sourceFile?: SourceFile | null;
  /** length maxDoc + 1: offsets into the source bytes */
  sourceStarts: Uint32Array;
  /** 1 = _source absent (disabled); null when every doc has one */
  sourceMissing: Uint8Array | null;
  seqNos: Float64Array;
  primaryTerms: Float64Array;
  versions: Float64Array;
  /** highest seq no in this segment (-1 when empty) */
  maxSeqNo: number;
  /** approximate bytes in memory / on disk */
  sizeInBytes: number;
}

export function binarySearchTerms(terms: readonly string[], target: string): number {
  let lo = 0;
  let hi = terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = terms[mid];
    if (t < target) lo = mid + 1;
    else if (t > target) hi = mid - 1;
    else return mid;
  }
  return -(lo + 1);
}

class SegmentPostings implements Postings {
  readonly docFreq: number;
  readonly docs: Uint32Array;
  readonly freqs: Uint32Array | null;
  private ttf = -1;
  /** sequential-access cursor into the term's positions block */
  private curI = -1;
  private curOff = 0;
  private offsets: Uint32Array | null = null;
  constructor(
    private readonly f: InvertedFieldData,
    private readonly ord: number,
    start: number,
    end: number,
  ) {
    this.docFreq = end - start;
    this.docs = f.docs.subarray(start, end);
    this.freqs = f.freqs ? f.freqs.subarray(start, end) : null;
  }
  positions(i: number): Uint32Array | null {
    const f = this.f;
    const freqs = this.freqs;
    if (!f.posStarts || !f.positions || !freqs) return null;
    let off: number;
    if (i === this.curI) off = this.curOff;
    else if (i === this.curI + 1) off = this.curI < 0 ? f.posStarts[this.ord] : this.curOff + freqs[this.curI];
    else {
      if (!this.offsets) {
        const o = new Uint32Array(this.docFreq + 1);
        let acc = f.posStarts[this.ord];
        for (let j = 0; j < this.docFreq; j++) {
          o[j] = acc;
          acc += freqs[j];
        }
        o[this.docFreq] = acc;
        this.offsets = o;
      }
      off = this.offsets[i];
    }
    this.curI = i;
    this.curOff = off;
    return f.positions.subarray(off, off + freqs[i]);
  }
  allPositions(): Uint32Array | null {
    const f = this.f;
    if (!f.posStarts || !f.positions || !this.freqs) return null;
    const start = f.posStarts[this.ord];
    return f.positions.subarray(start, start + this.totalTermFreq);
  }
  get totalTermFreq(): number {
    if (this.ttf < 0) this.ttf = totalTermFreqOf(this.freqs, this.docFreq);
    return this.ttf;
  }
}

class SegmentTermsDict implements TermsDict {
  constructor(private readonly f: InvertedFieldData) {}
  get size(): number {
    return this.f.terms.length;
  }
  term(ord: number): string {
    return this.f.terms[ord];
  }
  ord(term: string): number {
    const i = binarySearchTerms(this.f.terms, term);
    return i >= 0 ? i : -1;
  }
  seekCeil(target: string): number {
    const i = binarySearchTerms(this.f.terms, target);
    return i >= 0 ? i : -(i + 1);
  }
  postings(ord: number): Postings {
    return new SegmentPostings(this.f, ord, this.f.postingStarts[ord], this.f.postingStarts[ord + 1]);
  }
  docFreq(ord: number): number {
    return this.f.postingStarts[ord + 1] - this.f.postingStarts[ord];
  }
}

const textDecoder = new TextDecoder();

/** a segment held in memory as plain arrays: the older single-file format (read whole), and tests */
export class MemorySegment implements SegmentCore {
  private readonly dicts = new Map<string, SegmentTermsDict>();
  readonly formatVersion: number;
  constructor(
    readonly data: SegmentData,
    formatVersion = 3,
  ) {
    this.formatVersion = formatVersion;
  }
  get name(): string {
    return this.data.name;
  }
  set name(n: string) {
    this.data.name = n;
  }
  get maxDoc(): number {
    return this.data.maxDoc;
  }
  get maxSeqNo(): number {
    return this.data.maxSeqNo;
  }
  get sizeInBytes(): number {
    return this.data.sizeInBytes;
  }
  get ramBytesUsed(): number {
    return this.data.sizeInBytes;
  }
  get hasRouting(): boolean {
    return this.data.routing !== null;
  }
  invertedFields(): string[] {
    return [...this.data.inverted.keys()];
  }
  fieldInfo(field: string): InvertedFieldInfo | null {
    const f = this.data.inverted.get(field);
    return f ? { freqs: f.freqs !== null, positions: f.positions !== null, norms: f.norms !== null } : null;
  }
  terms(field: string): TermsDict | null {
    let d = this.dicts.get(field);
    if (!d) {
      const f = this.data.inverted.get(field);
      if (!f) return null;
      d = new SegmentTermsDict(f);
      this.dicts.set(field, d);
    }
    return d;
  }
  termIterator(field: string): Iterable<TermPostings> {
    const d = this.terms(field);
    const info = this.fieldInfo(field);
    return d && info ? termsOf(d, info) : [];
  }
  fieldStats(field: string): InvertedFieldStats | null {
    const f = this.data.inverted.get(field);
    return f ? { docCount: f.docCount, sumTotalTermFreq: f.sumTotalTermFreq, sumDocFreq: f.sumDocFreq } : null;
  }
  norms(field: string): Uint8Array | null {
    return this.data.inverted.get(field)?.norms ?? null;
  }
  numericFields(): string[] {
    return [...this.data.numeric.keys()];
  }
  numeric(field: string): NumericDocValues | null {
    return this.data.numeric.get(field) ?? null;
  }
  pointFields(): string[] {
    return [...this.data.points.keys()];
  }
  points(field: string): PointIndex | null {
    return this.data.points.get(field) ?? null;
  }
  sortedSetFields(): string[] {
    return [...this.data.sortedSet.keys()];
  }
  sortedSet(field: string): SortedSetDocValues | null {
    return this.data.sortedSet.get(field) ?? null;
  }
  id(doc: number): string {
    return this.data.ids[doc];
  }
  routing(doc: number): string | null {
    return this.data.routing?.[doc] ?? null;
  }
  source(doc: number): Uint8Array | null {
    return readSource(this.data, doc);
  }
  seqNo(doc: number): number {
    return this.data.seqNos[doc];
  }
  primaryTerm(doc: number): number {
    return this.data.primaryTerms[doc];
  }
  version(doc: number): number {
    return this.data.versions[doc];
  }
  sync(): void {
    this.data.sourceFile?.fsync();
  }
  close(): void {
    this.data.sourceFile?.close();
  }
}

/** the hidden nested documents of a segment (bit set = hidden), null when it has none */
export function segmentHiddenDocs(core: SegmentCore): Uint32Array | null {
  return hiddenDocBits(core, core.terms(NESTED_PATH_FIELD), core.maxDoc);
}

export class SegmentReader implements LeafReader {
  readonly segmentName: string;
  readonly maxDoc: number;
  readonly numDocs: number;

  constructor(
    readonly data: SegmentCore,
    readonly liveDocs: Uint32Array | null,
    readonly delGen: number,
    numDocs?: number,
  ) {
    this.segmentName = data.name;
    this.maxDoc = data.maxDoc;
    this.numDocs = numDocs ?? countLive(liveDocs, data.maxDoc);
  }

  /** the immutable segment core: readers of the same segment (other live docs) share it */
  get coreCacheKey(): object {
    return this.data;
  }
  isLive(doc: number): boolean {
    return isLiveBit(this.liveDocs, doc);
  }
  fieldNames(): string[] {
    return this.data.invertedFields();
  }
  terms(field: string): TermsDict | null {
    return this.data.terms(field);
  }
  postings(field: string, term: string): Postings | null {
    const t = this.terms(field);
    if (!t) return null;
    const o = t.ord(term);
    return o < 0 ? null : t.postings(o);
  }
  fieldStats(field: string): FieldStats | null {
    return this.data.fieldStats(field);
  }
  norms(field: string): Uint8Array | null {
    return this.data.norms(field);
  }
  numericDocValues(field: string): NumericDocValues | null {
    return this.data.numeric(field);
  }
  sortedSetDocValues(field: string): SortedSetDocValues | null {
    return this.data.sortedSet(field);
  }
  pointIndex(field: string): PointIndex | null {
    return this.data.points(field);
  }
  id(doc: number): string {
    return this.data.id(doc);
  }
  routing(doc: number): string | undefined {
    return this.data.routing(doc) ?? undefined;
  }
  source(doc: number): Uint8Array | null {
    return this.data.source(doc);
  }
  /** convenience: _source as a string */
  sourceString(doc: number): string | null {
    const b = this.source(doc);
    return b ? textDecoder.decode(b) : null;
  }
  seqNo(doc: number): number {
    return this.data.seqNo(doc);
  }
  primaryTerm(doc: number): number {
    return this.data.primaryTerm(doc);
  }
  version(doc: number): number {
    return this.data.version(doc);
  }

  /** the doc with this _id in this segment (the live one if any, else the last), or -1 */
  lookupId(id: string, liveOnly = true): number {
    return lookupIdIn(this.data, this.liveDocs, id, liveOnly);
  }
}

/** the doc with this _id in a segment (the live one if any, else the last unless liveOnly), or -1 */
export function lookupIdIn(core: SegmentCore, live: Uint32Array | null, id: string, liveOnly = true): number {
  const t = core.terms('_id');
  if (!t) return -1;
  const o = t.ord(id);
  if (o < 0) return -1;
  const docs = t.postings(o).docs;
  for (let p = docs.length - 1; p >= 0; p--) {
    const d = docs[p];
    if (!liveOnly || isLiveBit(live, d)) return d;
  }
  return -1;
}
