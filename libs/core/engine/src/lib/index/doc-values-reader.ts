/**
 * Per-doc access to numeric and keyword doc values (Lucene's SortedNumericDocValues / SortedSetDocValues
 * iterators): `advance(doc)` positions on a doc and returns its number of values, `value(i)` reads them. A
 * segment on disk is read block by block through the block cache (the counts block of the doc, then the
 * values blocks the doc's values sit in), so a collector over a few docs never decodes a whole column, and
 * a small cache is not flooded by columns decoded whole on every use. Segments in memory read their arrays.
 */
import type { DocBlocks, NumberBlocks, NumericDocValues, SortedSetDocValues } from './leaf-reader.js';

export class DocValuesReader<T extends Float64Array | Uint32Array = Float64Array> {
  /** values of the current doc (after advance) */
  count = 0;
  private start = 0;
  // in memory
  private readonly offsets: Uint32Array | null;
  private readonly all: T | null;
  // on disk
  private readonly vb: NumberBlocks<T> | null;
  private readonly cb: NumberBlocks<Uint32Array> | null;
  private readonly blocks: DocBlocks<T> | null;
  private readonly shift: number;
  private readonly mask: number;
  private vBlock = -1;
  private vArr: T | null = null;
  private cBlock = -1;
  private cArr: Uint32Array | null = null;
  /** prefix sums of the current counts block: value index of each doc of the block (+ its end) */
  private cPre: Float64Array | null = null;

  constructor(dv: { readonly offsets: Uint32Array; readonly docBlocks?: DocBlocks<T> }, whole: () => T) {
    const b = dv.docBlocks;
    if (b) {
      this.blocks = b;
      this.vb = b.values;
      this.cb = b.counts;
      this.offsets = null;
      this.all = null;
      this.shift = Math.log2(b.values.blockSize);
      this.mask = b.values.blockSize - 1;
      if (b.counts && b.counts.blockSize !== b.values.blockSize) throw new Error('counts and values blocks differ in size');
    } else {
      this.blocks = null;
      this.vb = null;
      this.cb = null;
      this.offsets = dv.offsets;
      this.all = whole();
      this.shift = 0;
      this.mask = 0;
    }
  }

  /** positions on `doc` (any order; forward is cheapest); returns its number of values */
  advance(doc: number): number {
    if (this.offsets) {
      this.start = this.offsets[doc]!;
      return (this.count = this.offsets[doc + 1]! - this.start);
    }
    const cb = this.cb;
    if (!cb) {
      this.start = doc;
      return (this.count = 1);
    }
    const b = doc >>> this.shift;
    if (b !== this.cBlock) {
      const c = cb.block(b);
      const pre = this.cPre && this.cPre.length === c.length + 1 ? this.cPre : new Float64Array(c.length + 1);
      let at = this.blocks!.countStart(b);
      for (let i = 0; i < c.length; i++) {
        pre[i] = at;
        at += c[i]!;
      }
      pre[c.length] = at;
      this.cPre = pre;
      this.cArr = c;
      this.cBlock = b;
    }
    const i = doc & this.mask;
    this.start = this.cPre![i]!;
    return (this.count = this.cArr![i]!);
  }

  /** value i (0 <= i < count) of the current doc: ascending */
  value(i: number): number {
    const at = this.start + i;
    if (this.all) return this.all[at]!;
    const b = at >>> this.shift;
    if (b !== this.vBlock) {
      this.vArr = this.vb!.block(b);
      this.vBlock = b;
    }
    return this.vArr![at & this.mask]!;
  }
}

/** a per-doc reader of numeric doc values */
export function numericReader(dv: NumericDocValues): DocValuesReader<Float64Array> {
  return new DocValuesReader<Float64Array>(dv, () => dv.values);
}

/** a per-doc reader of keyword doc values (ordinals; `dv.terms[ord]` is the value) */
export function ordinalsReader(dv: SortedSetDocValues): DocValuesReader<Uint32Array> {
  return new DocValuesReader<Uint32Array>(dv, () => dv.ords);
}

/** the terms of one doc in keyword doc values, in ordinal order (only the doc's blocks are read) */
export function termsOfDoc(dv: SortedSetDocValues, doc: number): string[] {
  const rd = ordinalsReader(dv);
  const n = rd.advance(doc);
  const out: string[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = dv.terms[rd.value(i)]!;
  return out;
}

/**
 * Single-valued doc values on disk as blocks of consecutive docs (value j of block b is the value of doc
 * b * blockSize + j), for column-wise collectors; null when multi-valued or in memory (use a reader).
 */
export function singleValuedBlocks<T extends Float64Array | Uint32Array>(dv: { readonly docBlocks?: DocBlocks<T> }): NumberBlocks<T> | null {
  const b = dv.docBlocks;
  return b && !b.counts ? b.values : null;
}

/** ordinal counts of whole columns in memory (or of block views without their own), keyed by the immutable column */
const ordCountsByColumn = new WeakMap<object, Int32Array>();

/**
 * how many values of a keyword column carry each ordinal (= docs per term: ordinals are unique within a doc),
 * over every doc of the segment, deleted ones included. A segment on disk counts its ordinals block by block
 * once and keeps the counts in the block cache (`ordCounts`); a column in memory is counted once and the
 * counts kept as long as the column.
 */
export function ordinalCounts(dv: SortedSetDocValues): Int32Array {
  if (dv.ordCounts) return dv.ordCounts();
  const vb = dv.docBlocks?.values;
  const key: object = vb ?? dv.ords;
  let counts = ordCountsByColumn.get(key);
  if (counts === undefined || counts.length !== dv.terms.length) {
    counts = new Int32Array(dv.terms.length);
    if (vb) {
      for (let b = 0; b < vb.numBlocks; b++) {
        const ords = vb.block(b);
        for (let i = 0; i < ords.length; i++) counts[ords[i]!]! += 1;
      }
    } else {
      const ords = dv.ords;
      for (let i = 0; i < ords.length; i++) counts[ords[i]!]! += 1;
    }
    ordCountsByColumn.set(key, counts);
  }
  return counts;
}
