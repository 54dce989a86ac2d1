/**
 * The immutable core of one segment, whatever holds it: files read through the block cache (`DiskSegment`,
 * the format written today) or plain arrays in memory (`MemorySegment`: segments of the older single-file
 * format, and tests). Readers, merges and the shard only use this interface.
 */
import type { NumericDocValues, PointIndex, Postings, SortedSetDocValues, TermsDict } from './leaf-reader.js';
import type { StoredBlocks, StoredFieldsWriter } from './stored-fields.js';

/** what an inverted field records (the writer computes the statistics) */
export interface InvertedFieldInfo {
  freqs: boolean;
  positions: boolean;
  norms: boolean;
}

export interface InvertedFieldStats {
  docCount: number;
  sumTotalTermFreq: number;
  sumDocFreq: number;
}

/** one term with its postings, as a writer consumes them (positions concatenated in doc order) */
export interface TermPostings {
  term: string;
  docs: Uint32Array;
  freqs: Uint32Array | null;
  positions: Uint32Array | null;
}

/**
 * What a pass over one term's postings reads: the docs only, docs and freqs, or docs, freqs and positions.
 * A writer streaming a term makes one pass per part of its layout (doc deltas, then freqs, then positions).
 */
export const PASS_DOCS = 0;
export const PASS_FREQS = 1;
export const PASS_POSITIONS = 2;
export type PostingsPass = typeof PASS_DOCS | typeof PASS_FREQS | typeof PASS_POSITIONS;

/** one pass over a term's postings, block by block in doc order (the arrays are valid until the next call) */
export interface PostingsBlockReader {
  /** reads the next block; false at the end */
  next(): boolean;
  /** docs in the current block */
  readonly n: number;
  readonly docs: Uint32Array;
  /** freqs of the block's docs (PASS_FREQS and later; null: the source has none, 1 each) */
  readonly freqs: Uint32Array | null;
  /** positions of the block's docs concatenated, freq per doc (PASS_POSITIONS; null: none, zeros) */
  readonly positions: Uint32Array | null;
}

/** a term whose postings are read in passes of bounded blocks instead of whole arrays (merges) */
export interface StreamedTermPostings {
  term: string;
  read(pass: PostingsPass): PostingsBlockReader;
}

/** the whole postings of a term as one block (a built buffer's or an in-memory segment's arrays) */
class WholePostingsReader implements PostingsBlockReader {
  n = 0;
  private done = false;
  constructor(
    readonly docs: Uint32Array,
    readonly freqs: Uint32Array | null,
    readonly positions: Uint32Array | null,
  ) {}
  next(): boolean {
    if (this.done) return false;
    this.done = true;
    this.n = this.docs.length;
    return this.n > 0;
  }
}

/** docs per block of a streamed pass */
export const POSTINGS_BLOCK = 1024;

/** a pass over a term's postings held whole (an in-memory segment), in blocks */
class PostingsObjectReader implements PostingsBlockReader {
  n = 0;
  docs: Uint32Array;
  freqs: Uint32Array | null;
  positions: Uint32Array | null = null;
  private at = 0;
  constructor(
    private readonly p: Postings,
    private readonly pass: PostingsPass,
  ) {
    this.docs = p.docs;
    this.freqs = pass >= PASS_FREQS ? p.freqs : null;
  }
  next(): boolean {
    const p = this.p;
    if (this.at >= p.docFreq) return false;
    const from = this.at;
    const to = Math.min(p.docFreq, from + POSTINGS_BLOCK);
    this.at = to;
    this.n = to - from;
    this.docs = p.docs.subarray(from, to);
    if (this.pass >= PASS_FREQS && p.freqs) this.freqs = p.freqs.subarray(from, to);
    if (this.pass >= PASS_POSITIONS) {
      let total = 0;
      for (let i = from; i < to; i++) total += p.freqs ? p.freqs[i] : 1;
      const out = new Uint32Array(total);
      let w = 0;
      let any = false;
      for (let i = from; i < to; i++) {
        const ps = p.positions(i);
        const fr = p.freqs ? p.freqs[i] : 1;
        if (ps) {
          out.set(ps.subarray(0, fr), w);
          any = true;
        }
        w += fr;
      }
      this.positions = any ? out : null;
    }
    return true;
  }
}

/** a pass over a term of a dictionary: streamed from its file when the dictionary can, else in blocks of its arrays */
export function readTermPostings(dict: TermsDict, ord: number, pass: PostingsPass): PostingsBlockReader {
  return dict.readPostings ? dict.readPostings(ord, pass) : new PostingsObjectReader(dict.postings(ord), pass);
}

/** a pass over either form of a term's postings */
export function readPostings(t: TermPostings | StreamedTermPostings, pass: PostingsPass): PostingsBlockReader {
  if ('read' in t) return t.read(pass);
  return new WholePostingsReader(t.docs, pass >= PASS_FREQS ? t.freqs : null, pass >= PASS_POSITIONS ? t.positions : null);
}

/** what a segment writer reads: a built buffer, a segment, or the merged view of several */
export interface SegmentSource {
  readonly name: string;
  readonly maxDoc: number;
  readonly maxSeqNo: number;
  invertedFields(): string[];
  fieldInfo(field: string): InvertedFieldInfo | null;
  /** the field's terms in ascending (UTF-16 code unit) order, each with its postings (whole or streamed) */
  termIterator(field: string): Iterable<TermPostings | StreamedTermPostings>;
  norms(field: string): Uint8Array | null;
  /** optional: the same norms in consecutive chunks of docs (merges: never the whole column at once) */
  normsChunks?(field: string): Iterable<Uint8Array> | null;
  numericFields(): string[];
  numeric(field: string): NumericDocValues | null;
  pointFields(): string[];
  points(field: string): PointIndex | null;
  sortedSetFields(): string[];
  sortedSet(field: string): SortedSetDocValues | null;
  /**
   * Optional sequential, block-by-block reads of the same columns (segments on disk, merged views): a writer
   * streams them instead of holding a field's whole column (see numericColumnsOf and friends).
   */
  numericColumns?(field: string): NumericColumns | null;
  pointColumns?(field: string): PointColumns | null;
  sortedSetColumns?(field: string): SortedSetColumns | null;
  readonly hasRouting: boolean;
  id(doc: number): string;
  routing(doc: number): string | null;
  source(doc: number): Uint8Array | null;
  seqNo(doc: number): number;
  primaryTerm(doc: number): number;
  version(doc: number): number;
  /**
   * optional: writes the stored fields (id, routing, source) of every doc, in order, itself — a merge copies
   * whole compressed blocks of its inputs where it can — instead of the writer taking them doc by doc
   */
  writeStored?(out: StoredFieldsWriter): Generator<void, void, void>;
}

export interface SegmentCore extends SegmentSource {
  /** the commit names the segment (a shrunk index renames the segments it takes) */
  name: string;
  /** bytes on disk (memory for a segment that has no file) */
  readonly sizeInBytes: number;
  /** bytes kept resident while open (term indexes, block tables), not counting the block cache */
  readonly ramBytesUsed: number;
  /** format version of the files (4 = block files; 3 = the older single file read into memory) */
  readonly formatVersion: number;
  terms(field: string): TermsDict | null;
  fieldStats(field: string): InvertedFieldStats | null;
  /** fsyncs the segment's files (before a commit names them) */
  sync(): void;
  /** optional: the stored fields block by block as written (segments on disk), for merges to copy */
  storedBlocks?(): StoredBlocks | null;
  close(): void;
}

/** the terms of a dictionary, in order, with their postings */
export function* termsOf(dict: TermsDict, info: InvertedFieldInfo): Generator<TermPostings> {
  for (let o = 0; o < dict.size; o++) {
    const p = dict.postings(o);
    let positions: Uint32Array | null = null;
    if (info.positions && p.freqs && p.allPositions) positions = p.allPositions();
    else if (info.positions && p.freqs) {
      // entry by entry into one array (a view per entry: what `allPositions` spares a segment in memory)
      let total = 0;
      for (let i = 0; i < p.docFreq; i++) total += p.freqs[i];
      positions = new Uint32Array(total);
      let w = 0;
      for (let i = 0; i < p.docFreq; i++) {
        const ps = p.positions(i);
        if (ps) positions.set(ps, w);
        w += p.freqs[i];
      }
    }
    yield { term: dict.term(o), docs: p.docs, freqs: info.freqs ? p.freqs : null, positions };
  }
}

/** a column of numbers read once, in order (a writer's input) */
export interface NumberCursor {
  readonly size: number;
  next(): number;
}

/** a numeric doc-values field as columns: values per doc (null: exactly one per doc) and the values */
export interface NumericColumns {
  counts: (() => NumberCursor) | null;
  values(): NumberCursor;
}

/** a point field as columns: values ascending, then the doc of each value */
export interface PointColumns {
  values(): NumberCursor;
  docs(): NumberCursor;
}

/** a keyword doc-values field as columns: ords per doc (null: exactly one per doc), the ords, the dictionary */
export interface SortedSetColumns {
  counts: (() => NumberCursor) | null;
  ords(): NumberCursor;
  /** the number of terms of the dictionary */
  readonly termCount: number;
  /** the dictionary in order, in consecutive blocks (each call reads it again: merges stream it) */
  termBlocks(): Iterable<readonly string[]>;
}

export class ArrayCursor implements NumberCursor {
  private i = 0;
  readonly size: number;
  constructor(private readonly a: ArrayLike<number>) {
    this.size = a.length;
  }
  next(): number {
    return this.a[this.i++]!;
  }
}

/** the value counts of docs from per-doc offsets */
class CountsCursor implements NumberCursor {
  private d = 0;
  readonly size: number;
  constructor(private readonly offsets: Uint32Array) {
    this.size = offsets.length - 1;
  }
  next(): number {
    const d = this.d++;
    return this.offsets[d + 1]! - this.offsets[d]!;
  }
}

/** true when offsets describe exactly one value per doc */
export function isIdentityOffsets(offsets: Uint32Array, maxDoc: number): boolean {
  if (offsets[maxDoc] !== maxDoc) return false;
  for (let d = 0; d < maxDoc; d++) if (offsets[d + 1]! - offsets[d]! !== 1) return false;
  return true;
}

export function numericColumnsOf(src: SegmentSource, field: string): NumericColumns | null {
  if (src.numericColumns) return src.numericColumns(field);
  const dv = src.numeric(field);
  if (!dv) return null;
  const single = dv.singleValued ?? isIdentityOffsets(dv.offsets, src.maxDoc);
  return { counts: single ? null : () => new CountsCursor(dv.offsets), values: () => new ArrayCursor(dv.values) };
}

export function pointColumnsOf(src: SegmentSource, field: string): PointColumns | null {
  if (src.pointColumns) return src.pointColumns(field);
  const p = src.points(field);
  if (!p) return null;
  return { values: () => new ArrayCursor(p.values), docs: () => new ArrayCursor(p.docs) };
}

export function sortedSetColumnsOf(src: SegmentSource, field: string): SortedSetColumns | null {
  if (src.sortedSetColumns) return src.sortedSetColumns(field);
  const dv = src.sortedSet(field);
  if (!dv) return null;
  const single = isIdentityOffsets(dv.offsets, src.maxDoc);
  return { counts: single ? null : () => new CountsCursor(dv.offsets), ords: () => new ArrayCursor(dv.ords), termCount: dv.terms.length, termBlocks: () => [dv.terms] };
}

let identity = new Uint32Array(0);
/** offsets 0..n (one value per doc): shared, never written to */
export function identityOffsets(n: number): Uint32Array {
  if (identity.length < n + 1) {
    const len = Math.max(n + 1, identity.length * 2, 1024);
    identity = new Uint32Array(len);
    for (let i = 0; i < len; i++) identity[i] = i;
  }
  return identity.subarray(0, n + 1);
}

/** sum of a postings list's freqs (its doc count when the field records no freqs) */
export function totalTermFreqOf(freqs: Uint32Array | null, docFreq: number): number {
  if (!freqs) return docFreq;
  let s = 0;
  for (let i = 0; i < freqs.length; i++) s += freqs[i];
  return s;
}
