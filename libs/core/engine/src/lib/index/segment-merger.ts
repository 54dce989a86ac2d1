/**
 * Merges segments into one, dropping deleted docs: `MergedSource` is a lazy view of the merged segment that
 * the segment writer streams from file to file — stored fields doc by doc, postings term by term (a k-way
 * merge of the inputs' term dictionaries; each term's postings read and remapped block by block, one input
 * after the other, never a term's whole postings), norms in chunks of docs, doc values and points block by
 * block (cursors over the inputs' columns: a merge holds one block per input and column, never a field's
 * whole column), keyword dictionaries block by block. What grows with the inputs: one doc map per input (4
 * bytes per doc, old doc → new doc), while an inverted field is written a bitset of the docs that have it, and
 * while a keyword field is written an ord map per input (4 bytes per distinct term) and a bit per merged term.
 * Blocks of nested documents stay whole: live docs keep their order and a block is deleted whole.
 */
import type { NumericDocValues, PointIndex, SortedSetDocValues, TermsDict } from './leaf-reader.js';
import { isLiveBit } from './live-docs.js';
import { STORED_BLOCK_TARGET, worthCopying, type StoredFieldsWriter } from './stored-fields.js';
import type { InvertedFieldData, SegmentData } from './segment.js';
import { MemorySegment } from './segment.js';
import {
  PASS_DOCS,
  PASS_FREQS,
  PASS_POSITIONS,
  POSTINGS_BLOCK,
  numericColumnsOf,
  readPostings,
  readTermPostings,
  pointColumnsOf,
  sortedSetColumnsOf,
  type InvertedFieldInfo,
  type NumberCursor,
  type NumericColumns,
  type PointColumns,
  type SegmentCore,
  type SegmentSource,
  type PostingsBlockReader,
  type PostingsPass,
  type SortedSetColumns,
  type StreamedTermPostings,
} from './segment-core.js';

export interface MergeInput {
  data: SegmentCore;
  liveDocs: Uint32Array | null;
}

export class MergedSource implements SegmentSource {
  readonly maxDoc: number;
  readonly maxSeqNo: number;
  readonly hasRouting: boolean;
  /** per input: old doc → new doc, or -1 when dropped */
  readonly docMaps: Int32Array[];
  private readonly bases: number[] = [];
  /** the last doc located (new doc, its input, its old doc): a writer reads the docs in order */
  private lastNew = -1;
  private lastS = 0;
  private lastOld = -1;

  constructor(
    readonly name: string,
    private readonly inputs: readonly MergeInput[],
  ) {
    const docMaps: Int32Array[] = [];
    let maxDoc = 0;
    let maxSeqNo = -1;
    for (const inp of inputs) {
      const m = new Int32Array(inp.data.maxDoc);
      this.bases.push(maxDoc);
      for (let d = 0; d < inp.data.maxDoc; d++) m[d] = isLiveBit(inp.liveDocs, d) ? maxDoc++ : -1;
      docMaps.push(m);
      if (inp.data.maxSeqNo > maxSeqNo) maxSeqNo = inp.data.maxSeqNo;
    }
    this.docMaps = docMaps;
    this.maxDoc = maxDoc;
    this.maxSeqNo = maxSeqNo;
    this.hasRouting = inputs.some((i) => i.data.hasRouting);
  }

  /**
   * the input and old doc of a merged doc: the next one from the last located in one step (a writer reads
   * docs in order), else a search along the input's doc map (its live entries ascend)
   */
  private locate(doc: number): [SegmentCore, number] {
    if (doc < 0 || doc >= this.maxDoc) throw new RangeError(`doc ${doc} out of bounds [0, ${this.maxDoc})`);
    if (doc !== this.lastNew) {
      let s: number;
      let d: number;
      if (doc === this.lastNew + 1 && this.lastNew >= 0) {
        s = this.lastS;
        d = this.lastOld + 1;
      } else {
        s = this.bases.length - 1;
        while (s > 0 && this.bases[s] > doc) s--;
        d = this.seekOld(s, doc);
      }
      for (;;) {
        const m = this.docMaps[s];
        while (d < m.length && m[d] < 0) d++;
        if (d < m.length) break;
        s++;
        d = 0;
      }
      this.lastNew = doc;
      this.lastS = s;
      this.lastOld = d;
    }
    return [this.inputs[this.lastS].data, this.lastOld];
  }

  /** the first old doc of input s whose live successor (or itself) maps to a new doc >= doc (binary search) */
  private seekOld(s: number, doc: number): number {
    const m = this.docMaps[s];
    let lo = 0;
    let hi = m.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      let x = mid;
      while (x < hi && m[x] < 0) x++;
      if (x < hi && m[x] < doc) lo = x + 1;
      else hi = mid;
    }
    return lo;
  }

  id(doc: number): string {
    const [c, d] = this.locate(doc);
    return c.id(d);
  }
  routing(doc: number): string | null {
    const [c, d] = this.locate(doc);
    return c.routing(d);
  }
  source(doc: number): Uint8Array | null {
    const [c, d] = this.locate(doc);
    return c.source(d);
  }

  /**
   * The stored fields of the merged docs, in order: a block of an input whose docs all live on is copied as
   * written (no decompression, no compression: most of a merge's stored-fields cost) when it is full enough
   * and the writer has no docs pending, or has enough pending to close a block of its own first; the other
   * docs are re-packed one by one. The bytes of each doc are the same either way.
   */
  *writeStored(out: StoredFieldsWriter): Generator<void, void, void> {
    for (let s = 0; s < this.inputs.length; s++) {
      const core = this.inputs[s].data;
      const m = this.docMaps[s];
      const blocks = core.storedBlocks?.() ?? null;
      if (!blocks) {
        for (let d = 0; d < m.length; d++) {
          if (m[d] >= 0) out.add(core.id(d), core.routing(d), core.source(d));
          if ((d & 2047) === 2047) yield;
        }
        continue;
      }
      for (let b = 0; b < blocks.numBlocks; b++) {
        const first = blocks.firstDoc(b);
        const n = blocks.docsIn(b);
        let allLive = true;
        for (let d = first; d < first + n && allLive; d++) allLive = m[d] >= 0;
        if (allLive && (out.pendingDocs === 0 || out.pendingBytes >= STORED_BLOCK_TARGET / 2)) {
          const raw = blocks.rawBlock(b);
          if (worthCopying(raw)) {
            out.flush();
            out.addRawBlock(raw);
            yield;
            continue;
          }
        }
        for (let d = first; d < first + n; d++) if (m[d] >= 0) out.add(core.id(d), core.routing(d), core.source(d));
        yield;
      }
    }
  }
  seqNo(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.seqNo(d);
  }
  primaryTerm(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.primaryTerm(d);
  }
  version(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.version(d);
  }

  private union(names: (c: SegmentCore) => string[]): string[] {
    const out = new Set<string>();
    for (const i of this.inputs) for (const n of names(i.data)) out.add(n);
    return [...out];
  }

  invertedFields(): string[] {
    return this.union((c) => c.invertedFields());
  }
  fieldInfo(field: string): InvertedFieldInfo | null {
    let info: InvertedFieldInfo | null = null;
    for (const i of this.inputs) {
      const f = i.data.fieldInfo(field);
      if (!f) continue;
      // norms only when every input that has the field has them (Lucene: omitting norms is sticky)
      info = info ? { freqs: info.freqs || f.freqs, positions: info.positions || f.positions, norms: info.norms && f.norms } : { ...f };
    }
    return info;
  }
  norms(field: string): Uint8Array | null {
    const chunks = this.normsChunks(field);
    if (!chunks) return null;
    const out = new Uint8Array(this.maxDoc);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }

  /**
   * the merged norms in chunks of at most NORMS_CHUNK docs: each input's norms read in chunks (from its file
   * when on disk), deleted docs dropped; zeros for the docs of inputs without the field. None when an input
   * has the field without norms (its norms were disabled): the merged segment has none for it.
   */
  normsChunks(field: string): Iterable<Uint8Array> | null {
    if (!this.fieldInfo(field)?.norms) return null;
    return this.mergedNorms(field);
  }

  private *mergedNorms(field: string): Generator<Uint8Array> {
    const out = new Uint8Array(Math.min(NORMS_CHUNK, this.maxDoc));
    let w = 0;
    for (let s = 0; s < this.inputs.length; s++) {
      const data = this.inputs[s].data;
      const m = this.docMaps[s];
      const chunks = data.normsChunks ? data.normsChunks(field) : wholeChunk(data.norms(field));
      let d = 0;
      if (chunks) {
        for (const c of chunks) {
          for (let i = 0; i < c.length; i++, d++) {
            if (m[d] < 0) continue;
            out[w++] = c[i];
            if (w === out.length) {
              yield out;
              w = 0;
            }
          }
        }
        if (d !== m.length) throw new Error(`norms of ${d} docs in a segment of ${m.length} (field [${field}])`);
      } else {
        for (; d < m.length; d++) {
          if (m[d] < 0) continue;
          out[w++] = 0;
          if (w === out.length) {
            yield out;
            w = 0;
          }
        }
      }
    }
    if (w > 0) yield out.subarray(0, w);
  }

  *termIterator(field: string): Generator<StreamedTermPostings> {
    const info = this.fieldInfo(field);
    if (!info) return;
    const dicts = this.inputs.map((i) => i.data.terms(field));
    const k = dicts.length;
    const pos = new Array<number>(k).fill(0);
    const heads: Array<string | undefined> = dicts.map((d) => (d && d.size > 0 ? d.term(0) : undefined));
    for (;;) {
      let min: string | undefined;
      for (let i = 0; i < k; i++) {
        const t = heads[i];
        if (t !== undefined && (min === undefined || t < min)) min = t;
      }
      if (min === undefined) return;
      const parts: MergedPart[] = [];
      for (let i = 0; i < k; i++) {
        if (heads[i] === min) {
          parts.push({ dict: dicts[i]!, ord: pos[i], map: this.docMaps[i] });
          pos[i]++;
          const d = dicts[i]!;
          heads[i] = pos[i] < d.size ? d.term(pos[i]) : undefined;
        }
      }
      // a term only deleted docs had is dropped by the writer (its first pass finds no doc)
      yield new MergedTerm(min, parts);
    }
  }

  numericFields(): string[] {
    return this.union((c) => c.numericFields());
  }
  numeric(field: string): NumericDocValues | null {
    const c = this.numericColumns(field);
    if (!c) return null;
    const values = new Float64Array(drain(c.values()));
    return { offsets: offsetsFrom(c.counts, this.maxDoc), values };
  }

  numericColumns(field: string): NumericColumns | null {
    const ins = this.inputs.map((i) => numericColumnsOf(i.data, field));
    return ins.every((c) => !c) ? null : this.valueColumns(ins, null);
  }

  /**
   * counts and values of a doc-values field over the live docs of the inputs (ords mapped by `map`): without
   * counts when every live doc has one value, as a build of the live docs alone writes it, even where a
   * deleted doc (or an input's doc without the field) had none or several
   */
  private valueColumns(ins: ReadonlyArray<NumericColumns | null>, map: ((s: number, v: number) => number) | null): NumericColumns {
    let single = ins.every((c, s) => (c ? c.counts === null : this.docMaps[s].length === 0));
    let total = this.maxDoc;
    const counts = (): NumberCursor => new MergedCounts(ins, this.docMaps, this.maxDoc);
    if (!single) {
      // the number of values of live docs, and whether each has exactly one (a first pass over the counts)
      const c = counts();
      let t = 0;
      let ones = true;
      for (let d = 0; d < c.size; d++) {
        const n = c.next();
        t += n;
        if (n !== 1) ones = false;
      }
      total = t;
      single = ones;
    }
    return { counts: single ? null : counts, values: () => new MergedValues(ins, this.docMaps, total, map) };
  }

  /**
   * A keyword doc-values field: the inputs' dictionaries merged in a k-way walk of their blocks (never held
   * whole: an ord map per input, 4 bytes a term, and a bit per merged term), ords remapped; terms only
   * deleted docs used are dropped (a first pass over the merged ords). The merged dictionary is streamed
   * to the writer by a second walk.
   */
  sortedSetColumns(field: string): SortedSetColumns | null {
    const ins = this.inputs.map((i) => sortedSetColumnsOf(i.data, field));
    if (ins.every((c) => !c)) return null;
    const maps = ins.map((c) => new Uint32Array(c ? c.termCount : 0));
    let total = 0;
    const parts: number[] = [];
    for (const _term of mergedDictionary(ins, parts)) {
      for (let j = 0; j < parts.length; j += 2) maps[parts[j]][parts[j + 1]] = total;
      total++;
    }
    const asNum = ins.map((c) => (c ? { counts: c.counts, values: () => c.ords() } : null));
    const merged = this.valueColumns(asNum, (s, o) => maps[s][o]);
    // the merged terms live docs use (a first pass over the merged ords)
    const used = new Uint32Array((total + 31) >>> 5);
    const all = merged.values();
    for (let i = 0; i < all.size; i++) {
      const o = all.next();
      used[o >>> 5] |= 1 << (o & 31);
    }
    let kept = 0;
    for (let o = 0; o < total; o++) if (used[o >>> 5] & (1 << (o & 31))) kept++;
    const termBlocks = (): Iterable<readonly string[]> => keptTerms(ins, used);
    if (kept === total) return { counts: merged.counts, ords: merged.values, termCount: total, termBlocks };
    const remap = new Uint32Array(total);
    for (let o = 0, k = 0; o < total; o++) if (used[o >>> 5] & (1 << (o & 31))) remap[o] = k++;
    for (const m of maps) for (let i = 0; i < m.length; i++) m[i] = remap[m[i]];
    const pruned = this.valueColumns(asNum, (s, o) => maps[s][o]);
    return { counts: pruned.counts, ords: pruned.values, termCount: kept, termBlocks };
  }

  pointColumns(field: string): PointColumns | null {
    const ins = this.inputs.map((i) => pointColumnsOf(i.data, field));
    if (ins.every((c) => !c)) return null;
    // the number of points of live docs (a first pass over the inputs' doc columns)
    let total = 0;
    ins.forEach((c, s) => {
      if (!c) return;
      const docs = c.docs();
      const m = this.docMaps[s];
      for (let i = 0; i < docs.size; i++) if (m[docs.next()] >= 0) total++;
    });
    return { values: () => new MergedPoints(ins, this.docMaps, total, false), docs: () => new MergedPoints(ins, this.docMaps, total, true) };
  }

  pointFields(): string[] {
    return this.union((c) => c.pointFields());
  }
  points(field: string): PointIndex | null {
    const c = this.pointColumns(field);
    return c ? { values: new Float64Array(drain(c.values())), docs: new Uint32Array(drain(c.docs())) } : null;
  }

  sortedSetFields(): string[] {
    return this.union((c) => c.sortedSetFields());
  }
  sortedSet(field: string): SortedSetDocValues | null {
    const c = this.sortedSetColumns(field);
    if (!c) return null;
    const terms: string[] = [];
    for (const b of c.termBlocks()) for (const t of b) terms.push(t);
    return { offsets: offsetsFrom(c.counts, this.maxDoc), ords: new Uint32Array(drain(c.ords())), terms };
  }
}

/** docs per chunk of merged norms */
const NORMS_CHUNK = 1 << 16;

function wholeChunk(n: Uint8Array | null): Uint8Array[] | null {
  return n ? [n] : null;
}

/** an input's postings of a merged term */
interface MergedPart {
  dict: TermsDict;
  ord: number;
  map: Int32Array;
}

/** a merged term: its postings are read in passes over its inputs' */
class MergedTerm implements StreamedTermPostings {
  constructor(
    readonly term: string,
    private readonly parts: readonly MergedPart[],
  ) {}
  read(pass: PostingsPass): PostingsBlockReader {
    return new MergedPostingsReader(this.parts, pass);
  }
}

/**
 * One pass over a merged term's postings: the inputs one after the other (their new docs ascend), each read
 * block by block, docs remapped, deleted docs dropped (with their freqs and positions). Freqs are 1 for an
 * input without them, positions zeros for an input without them (freqs and positions always agree).
 */
class MergedPostingsReader implements PostingsBlockReader {
  n = 0;
  readonly docs: Uint32Array;
  readonly freqs: Uint32Array | null;
  positions: Uint32Array | null;
  private readonly block: number;
  private part = -1;
  private cur: PostingsBlockReader | null = null;
  private i = 0;
  private at = 0;
  constructor(
    private readonly parts: readonly MergedPart[],
    private readonly pass: PostingsPass,
  ) {
    // blocks no larger than the term (most terms have a few docs)
    let df = 0;
    for (const p of parts) df += p.dict.docFreq(p.ord);
    const block = (this.block = Math.max(1, Math.min(POSTINGS_BLOCK, df)));
    this.docs = new Uint32Array(block);
    this.freqs = pass >= PASS_FREQS ? new Uint32Array(block) : null;
    this.positions = pass >= PASS_POSITIONS ? new Uint32Array(block) : null;
  }
  /** the next input block with entries left; false at the end */
  private advance(): boolean {
    for (;;) {
      if (this.cur && this.cur.next()) {
        this.i = 0;
        this.at = 0;
        return true;
      }
      if (++this.part >= this.parts.length) {
        this.cur = null;
        return false;
      }
      const p = this.parts[this.part];
      this.cur = readTermPostings(p.dict, p.ord, this.pass);
    }
  }
  next(): boolean {
    let n = 0;
    let w = 0;
    const wantFreqs = this.freqs !== null;
    const wantPos = this.positions !== null;
    const block = this.block;
    while (n < block) {
      if (!this.cur || this.i >= this.cur.n) {
        if (!this.advance()) break;
      }
      const c = this.cur!;
      const m = this.parts[this.part].map;
      const cf = c.freqs;
      const cp = c.positions;
      while (this.i < c.n && n < block) {
        const i = this.i++;
        const fr = cf ? cf[i] : 1;
        const nd = m[c.docs[i]];
        if (nd >= 0) {
          this.docs[n] = nd;
          if (wantFreqs) this.freqs![n] = fr;
          if (wantPos) {
            if (this.positions!.length < w + fr) {
              const grown = new Uint32Array(Math.max(w + fr, this.positions!.length * 2));
              grown.set(this.positions!.subarray(0, w));
              this.positions = grown;
            }
            const ps = this.positions!;
            if (cp) for (let k = 0; k < fr; k++) ps[w + k] = cp[this.at + k];
            else ps.fill(0, w, w + fr);
            w += fr;
          }
          n++;
        }
        if (wantPos) this.at += fr;
      }
    }
    this.n = n;
    return n > 0;
  }
}

/** a cursor read whole (in-memory merges) */
function drain(c: NumberCursor): Float64Array {
  const out = new Float64Array(c.size);
  for (let i = 0; i < out.length; i++) out[i] = c.next();
  return out;
}

/** per-doc offsets from a counts column (null: one value per doc) */
function offsetsFrom(counts: (() => NumberCursor) | null, maxDoc: number): Uint32Array {
  const offsets = new Uint32Array(maxDoc + 1);
  const c = counts ? counts() : null;
  for (let d = 0; d < maxDoc; d++) offsets[d + 1] = offsets[d] + (c ? c.next() : 1);
  return offsets;
}

/** the value counts of the live docs of the inputs, in merged doc order */
class MergedCounts implements NumberCursor {
  private s = -1;
  private d = 0;
  private counts: NumberCursor | null = null;
  private has = false;
  constructor(
    private readonly ins: ReadonlyArray<NumericColumns | null>,
    private readonly docMaps: Int32Array[],
    readonly size: number,
  ) {}
  next(): number {
    for (;;) {
      while (this.s < 0 || this.d >= this.docMaps[this.s].length) {
        if (++this.s >= this.ins.length) throw new RangeError('read past the end of a merged column');
        this.d = 0;
        const c = this.ins[this.s];
        this.has = c !== null;
        this.counts = c?.counts ? c.counts() : null;
      }
      const n = !this.has ? 0 : this.counts ? this.counts.next() : 1;
      if (this.docMaps[this.s][this.d++] >= 0) return n;
    }
  }
}

/** the values of the live docs of the inputs, in merged doc order (values of deleted docs skipped) */
class MergedValues implements NumberCursor {
  private s = -1;
  private d = 0;
  private counts: NumberCursor | null = null;
  private values: NumberCursor | null = null;
  private left = 0;
  constructor(
    private readonly ins: ReadonlyArray<NumericColumns | null>,
    private readonly docMaps: Int32Array[],
    readonly size: number,
    private readonly map: ((s: number, v: number) => number) | null,
  ) {}
  next(): number {
    while (this.left === 0) {
      while (this.s < 0 || this.d >= this.docMaps[this.s].length) {
        if (++this.s >= this.ins.length) throw new RangeError('read past the end of a merged column');
        this.d = 0;
        const c = this.ins[this.s];
        this.counts = c?.counts ? c.counts() : null;
        this.values = c ? c.values() : null;
      }
      const n = !this.values ? 0 : this.counts ? this.counts.next() : 1;
      if (this.docMaps[this.s][this.d++] >= 0) this.left = n;
      else for (let i = 0; i < n; i++) this.values!.next();
    }
    this.left--;
    const v = this.values!.next();
    return this.map ? this.map(this.s, v) : v;
  }
}

/** k-way merge of the inputs' points (each sorted by value, then doc; doc maps are monotonic), live docs only */
class MergedPoints implements NumberCursor {
  private readonly vals: Array<NumberCursor | null>;
  private readonly docs: Array<NumberCursor | null>;
  private readonly left: number[];
  private readonly hv: number[];
  private readonly hd: number[];
  constructor(
    ins: ReadonlyArray<PointColumns | null>,
    private readonly docMaps: Int32Array[],
    readonly size: number,
    private readonly wantDocs: boolean,
  ) {
    this.vals = ins.map((c) => (c ? c.values() : null));
    this.docs = ins.map((c) => (c ? c.docs() : null));
    this.left = this.docs.map((c) => c?.size ?? 0);
    this.hv = ins.map(() => 0);
    this.hd = ins.map(() => -1);
    for (let i = 0; i < ins.length; i++) this.advance(i);
  }
  /** the next live (value, new doc) of input i into its head; hd = -1 when exhausted */
  private advance(i: number): void {
    const m = this.docMaps[i];
    while (this.left[i] > 0) {
      this.left[i]--;
      const v = this.vals[i]!.next();
      const nd = m[this.docs[i]!.next()];
      if (nd >= 0) {
        this.hv[i] = v;
        this.hd[i] = nd;
        return;
      }
    }
    this.hd[i] = -1;
  }
  next(): number {
    let best = -1;
    for (let i = 0; i < this.hd.length; i++) {
      if (this.hd[i] < 0) continue;
      if (best < 0 || this.hv[i] < this.hv[best] || (this.hv[i] === this.hv[best] && this.hd[i] < this.hd[best])) best = i;
    }
    if (best < 0) throw new RangeError('read past the end of merged points');
    const r = this.wantDocs ? this.hd[best] : this.hv[best];
    this.advance(best);
    return r;
  }
}

/** a dictionary read block by block: the current term and its ord */
class DictCursor {
  private readonly it: Iterator<readonly string[]>;
  private block: readonly string[] = [];
  private i = 0;
  ord = -1;
  term: string | undefined = undefined;
  constructor(c: SortedSetColumns) {
    this.it = c.termBlocks()[Symbol.iterator]();
    this.advance();
  }
  advance(): void {
    while (this.i >= this.block.length) {
      const r = this.it.next();
      if (r.done) {
        this.term = undefined;
        return;
      }
      this.block = r.value;
      this.i = 0;
    }
    this.term = this.block[this.i++];
    this.ord++;
  }
}

/**
 * k-way merge of the inputs' sorted dictionaries (k is small), block by block: each merged term in order, with
 * the inputs holding it and their ords in `parts` ([input, ord, input, ord, ...], valid until the next term)
 */
function* mergedDictionary(ins: ReadonlyArray<SortedSetColumns | null>, parts: number[]): Generator<string, void, void> {
  const cur = ins.map((c) => (c ? new DictCursor(c) : null));
  for (;;) {
    let min: string | undefined;
    for (const c of cur) if (c && c.term !== undefined && (min === undefined || c.term < min)) min = c.term;
    if (min === undefined) return;
    parts.length = 0;
    for (let s = 0; s < cur.length; s++) {
      const c = cur[s];
      if (c && c.term === min) {
        parts.push(s, c.ord);
        c.advance();
      }
    }
    yield min;
  }
}

/** the merged dictionary's terms whose bit is set, in blocks */
function* keptTerms(ins: ReadonlyArray<SortedSetColumns | null>, used: Uint32Array): Generator<string[], void, void> {
  let block: string[] = [];
  let o = 0;
  for (const term of mergedDictionary(ins, [])) {
    if (used[o >>> 5] & (1 << (o & 31))) block.push(term);
    o++;
    if (block.length === 1024) {
      yield block;
      block = [];
    }
  }
  if (block.length > 0) yield block;
}

/** any segment source as plain in-memory arrays (tests, tools) */
export function materialize(src: SegmentSource): SegmentData {
  const maxDoc = src.maxDoc;
  const inverted = new Map<string, InvertedFieldData>();
  for (const field of src.invertedFields()) {
    const info = src.fieldInfo(field)!;
    const terms: string[] = [];
    const starts: number[] = [0];
    const docs: number[] = [];
    const freqs: number[] = [];
    const posStarts: number[] = [0];
    const positions: number[] = [];
    const seen = new Uint8Array(maxDoc);
    let docCount = 0;
    let sttf = 0;
    for (const t of src.termIterator(field)) {
      const before = docs.length;
      const r = readPostings(t, info.positions ? PASS_POSITIONS : info.freqs ? PASS_FREQS : PASS_DOCS);
      while (r.next()) {
        let at = 0;
        for (let i = 0; i < r.n; i++) {
          const d = r.docs[i];
          docs.push(d);
          const fr = r.freqs ? r.freqs[i] : 1;
          if (info.freqs) freqs.push(fr);
          sttf += info.freqs ? fr : 1;
          if (!seen[d]) {
            seen[d] = 1;
            docCount++;
          }
          if (info.positions) for (let k = 0; k < fr; k++) positions.push(r.positions ? r.positions[at + k] : 0);
          at += fr;
        }
      }
      if (docs.length === before) continue;
      terms.push(t.term);
      starts.push(docs.length);
      posStarts.push(positions.length);
    }
    inverted.set(field, {
      terms,
      postingStarts: Uint32Array.from(starts),
      docs: Uint32Array.from(docs),
      freqs: info.freqs ? Uint32Array.from(freqs) : null,
      posStarts: info.positions ? Uint32Array.from(posStarts) : null,
      positions: info.positions ? Uint32Array.from(positions) : null,
      norms: info.norms ? src.norms(field) : null,
      docCount,
      sumTotalTermFreq: sttf,
      sumDocFreq: docs.length,
    });
  }
  const numeric = new Map<string, NumericDocValues>();
  for (const f of src.numericFields()) numeric.set(f, src.numeric(f)!);
  const points = new Map<string, PointIndex>();
  for (const f of src.pointFields()) points.set(f, src.points(f)!);
  const sortedSet = new Map<string, SortedSetDocValues>();
  for (const f of src.sortedSetFields()) sortedSet.set(f, src.sortedSet(f)!);
  const ids: string[] = [];
  const routing: Array<string | null> | null = src.hasRouting ? [] : null;
  const chunks: Uint8Array[] = [];
  const sourceStarts = new Uint32Array(maxDoc + 1);
  let sourceMissing: Uint8Array | null = null;
  let off = 0;
  const seqNos = new Float64Array(maxDoc);
  const primaryTerms = new Float64Array(maxDoc);
  const versions = new Float64Array(maxDoc);
  for (let d = 0; d < maxDoc; d++) {
    ids.push(src.id(d));
    routing?.push(src.routing(d));
    sourceStarts[d] = off;
    const s = src.source(d);
    if (s) {
      chunks.push(s);
      off += s.length;
    } else (sourceMissing ??= new Uint8Array(maxDoc))[d] = 1;
    seqNos[d] = src.seqNo(d);
    primaryTerms[d] = src.primaryTerm(d);
    versions[d] = src.version(d);
  }
  sourceStarts[maxDoc] = off;
  return {
    name: src.name,
    maxDoc,
    inverted,
    numeric,
    points,
    sortedSet,
    ids,
    routing,
    sourceBytes: Buffer.concat(chunks),
    sourceStarts,
    sourceMissing,
    seqNos,
    primaryTerms,
    versions,
    maxSeqNo: src.maxSeqNo,
    sizeInBytes: off + maxDoc * 40,
  };
}

/** merges in memory (tests, small merges): the merged segment and the doc maps */
export function mergeSync(name: string, inputs: MergeInput[]): { data: MemorySegment; docMaps: Int32Array[] } {
  const m = new MergedSource(name, inputs);
  return { data: new MemorySegment(materialize(m)), docMaps: m.docMaps };
}
