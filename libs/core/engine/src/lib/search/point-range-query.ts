/**
 * Range / exact / set queries over numeric points (long, double, date, boolean...). Binary-searches the
 * sorted (value, doc) pairs of PointIndex (on disk: the resident block bounds, then the one block holding
 * each end), so the cost follows the number of matching values.
 */
import { pointAccess, type PointAccess } from '../index/point-access.js';
import { numericReader } from '../index/doc-values-reader.js';
import { BitSetIterator, type BulkMatcher, DocIdSetBuilder, DocIdSetIterator, type FixedBitSet, NO_MORE_DOCS, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import type { LeafReaderContext, NumericDocValues } from '../index/leaf-reader.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

/**
 * one value (a term on a numeric field): points are sorted by (value, doc), so the docs of the slice are
 * already in doc order — returned as they are (one block) or joined (several), unless a doc holds the value
 * twice (null then)
 */
function oneValueDocs(pa: PointAccess, from: number, to: number): Uint32Array | null {
  if (to <= from || pa.value(from) !== pa.value(to - 1)) return null;
  const chunks = [...pa.docChunks(from, to)];
  const docs = chunks.length === 1 ? chunks[0]! : new Uint32Array(to - from);
  if (chunks.length > 1) {
    let at = 0;
    for (const c of chunks) {
      docs.set(c, at);
      at += c.length;
    }
  }
  for (let i = 1; i < docs.length; i++) if (docs[i]! <= docs[i - 1]!) return null;
  return docs;
}

const NO_DOCS = new Uint32Array(0);

/**
 * the docs of one value's slice when no doc holds the value twice (so they ascend strictly), read a chunk (a
 * block of points) at a time as they are asked for: a search that needs its first docs only reads one block
 */
class OneValueIterator extends DocIdSetIterator {
  private readonly chunks: Generator<Uint32Array>;
  private cur: Uint32Array = NO_DOCS;
  /** index in cur of the current doc */
  private i = -1;
  private doc = -1;
  private joined: Uint32Array | null = null;
  constructor(
    pa: PointAccess,
    private readonly from: number,
    private readonly to: number,
  ) {
    super();
    this.chunks = pa.docChunks(from, to);
  }
  docID(): number {
    return this.doc;
  }
  nextDoc(): number {
    if (++this.i < this.cur.length) return (this.doc = this.cur[this.i]!);
    return this.nextChunk(-1);
  }
  advance(target: number): number {
    const c = this.cur;
    if (c.length > 0 && c[c.length - 1]! >= target) {
      let lo = this.i + 1;
      let hi = c.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (c[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      this.i = lo;
      return (this.doc = c[lo]!);
    }
    return this.nextChunk(target);
  }
  /** the first doc >= target (any doc when target < 0) of the chunks not read yet */
  private nextChunk(target: number): number {
    for (;;) {
      const r = this.chunks.next();
      if (r.done) {
        this.cur = NO_DOCS;
        this.i = 0;
        return (this.doc = NO_MORE_DOCS);
      }
      const c = r.value;
      if (c.length === 0 || c[c.length - 1]! < target) continue;
      this.cur = c;
      this.i = -1;
      if (target < 0) return this.nextDoc();
      return this.advance(target);
    }
  }
  cost(): number {
    return this.to - this.from;
  }
  /** (unpositioned) every doc in one array: the chunks joined */
  override docArray(): Uint32Array | null {
    if (this.doc !== -1) return null;
    if (this.joined === null) {
      const chunks = [...this.chunks];
      let docs = chunks.length === 1 ? chunks[0]! : NO_DOCS;
      if (chunks.length > 1) {
        docs = new Uint32Array(this.to - this.from);
        let at = 0;
        for (const c of chunks) {
          docs.set(c, at);
          at += c.length;
        }
      }
      this.joined = this.cur = docs;
      this.i = -1;
    }
    return this.joined;
  }
}

function sliceIterator(pa: PointAccess, from: number, to: number, maxDoc: number, oneValuePerDoc = false): DocIdSetIterator | null {
  if (to <= from) return null;
  if (oneValuePerDoc && pa.value(from) === pa.value(to - 1)) return new OneValueIterator(pa, from, to);
  const docs = oneValueDocs(pa, from, to);
  if (docs !== null) return new SortedArrayIterator(docs);
  const b = new DocIdSetBuilder(maxDoc);
  for (const chunk of pa.docChunks(from, to)) b.addAll(chunk);
  return b.build();
}

/** whether a doc has a value in the range, read from the field's doc values (the same values as its points) */
function docValuesMatcher(dv: NumericDocValues, inRange: (v: number) => boolean): (doc: number) => boolean {
  const vb = dv.valueBlocks;
  if (dv.singleValued === true && vb && Number.isInteger(Math.log2(vb.blockSize))) {
    // one value per doc: value i is doc i's, read block by block (only the blocks of the candidates)
    const shift = Math.log2(vb.blockSize);
    const mask = vb.blockSize - 1;
    let cur = -1;
    let block: Float64Array | null = null;
    return (doc) => {
      const b = doc >>> shift;
      if (b !== cur) {
        block = vb.block(b);
        cur = b;
      }
      return inRange(block![doc & mask]!);
    };
  }
  // several values per doc: the counts and values blocks of the candidates
  const rd = numericReader(dv);
  return (doc) => {
    const n = rd.advance(doc);
    for (let i = 0; i < n; i++) if (inRange(rd.value(i))) return true;
    return false;
  };
}

/**
 * the same test in bulk over ascending docs (one value per doc, read block by block): a block whose values all
 * lie below or above the range is passed over without being read
 */
function docValuesBulkMatcher(dv: NumericDocValues, lower: number, upper: number, includeLower: boolean, includeUpper: boolean): BulkMatcher | null {
  const vb = dv.valueBlocks;
  if (dv.singleValued !== true || !vb || !Number.isInteger(Math.log2(vb.blockSize))) return null;
  const shift = Math.log2(vb.blockSize);
  const mask = vb.blockSize - 1;
  const size = vb.blockSize;
  return (docs, from, to, out) => {
    let n = 0;
    let i = from;
    while (i < to) {
      const b = docs[i]! >>> shift;
      const end = (b + 1) * size;
      // (NaN bounds compare false: such a block is read)
      if (vb.max(b) < lower || vb.min(b) > upper) {
        while (i < to && docs[i]! < end) i++;
        continue;
      }
      const block = vb.block(b);
      for (; i < to; i++) {
        const d = docs[i]!;
        if (d >= end) break;
        const v = block[d & mask]!;
        if ((includeLower ? v >= lower : v > lower) && (includeUpper ? v <= upper : v < upper)) out[n++] = d;
      }
    }
    return n;
  };
}

/**
 * The docs of a range of values (several values: their doc set is built when first iterated). When the
 * field has doc values it also offers a membership test on them, so a conjunction that leads with a far
 * cheaper clause checks its candidates instead of building the set (Lucene's IndexOrDocValuesQuery).
 */
class PointRangeIterator extends DocIdSetIterator {
  private built = false;
  /** the doc set once built: a bit set walked here, or another iterator (sparse: a sorted array) */
  private bits: FixedBitSet | null = null;
  private it: DocIdSetIterator | null = null;
  private doc = -1;
  constructor(
    private readonly make: () => DocIdSetIterator,
    private readonly n: number,
    private readonly check: (() => ((doc: number) => boolean) | null) | null,
    private readonly bulk: (() => BulkMatcher | null) | null = null,
  ) {
    super();
  }
  private build(): void {
    const it = this.make();
    this.bits = it.bitSet();
    if (this.bits === null) this.it = it;
    this.built = true;
  }
  docID(): number {
    return this.doc;
  }
  nextDoc(): number {
    if (!this.built) this.build();
    return (this.doc = this.bits !== null ? this.bits.nextSetBit(this.doc + 1) : this.it!.nextDoc());
  }
  advance(target: number): number {
    if (!this.built) this.build();
    return (this.doc = this.bits !== null ? this.bits.nextSetBit(target) : this.it!.advance(target));
  }
  cost(): number {
    return this.n;
  }
  override bitSet(): FixedBitSet | null {
    if (!this.built) this.build();
    return this.bits;
  }
  override matcher(): ((doc: number) => boolean) | null {
    return !this.built && this.check !== null ? this.check() : null;
  }
  override bulkMatcher(): BulkMatcher | null {
    return !this.built && this.bulk !== null ? this.bulk() : null;
  }
}

/** inclusive bounds; use ±Infinity for open ends (callers convert gt/lt to the next representable value) */
export class PointRangeQuery extends Query {
  constructor(
    readonly field: string,
    readonly lower: number,
    readonly upper: number,
    readonly includeLower = true,
    readonly includeUpper = true,
  ) {
    super();
  }
  createWeight(searcher: IndexSearcher, _n: boolean, boost: number): Weight {
    const { field, lower, upper, includeLower, includeUpper } = this;
    // the doc sets of the range may be kept per segment core (a filter used again is tested, not built)
    const cache = searcher.filterCache;
    const cacheKey = cache !== null ? `range\u0000${this.toString()}` : '';
    if (cache !== null) cache.onUse(cacheKey);
    const slice = (ctx: LeafReaderContext): [PointAccess, number, number] | null => {
      const pi = ctx.reader.pointIndex(field);
      if (!pi) return null;
      const pa = pointAccess(pi);
      if (pa.size === 0) return null;
      return [pa, pa.lowerBound(lower, !includeLower), pa.lowerBound(upper, includeUpper)];
    };
    return new ConstantScoreWeight(
      this,
      boost,
      (ctx) => {
        // (kept doc sets are of ranges of several values, whose slice was found when they were built)
        const core = ctx.reader.coreCacheKey;
        if (cache !== null && core !== undefined) {
          const kept = cache.get(core, cacheKey);
          if (kept !== null) return new BitSetIterator(kept.bits, kept.cost);
        }
        const s = slice(ctx);
        if (!s || s[2] <= s[1]) return null;
        const [pa, from, to] = s;
        // one value: its docs are iterated in place (cheap to get); when every doc holds one value at most, as
        // they come (they ascend strictly: points are sorted by value, then doc)
        if (pa.value(from) === pa.value(to - 1)) return sliceIterator(pa, from, to, ctx.reader.maxDoc, ctx.reader.numericDocValues(field)?.singleValued === true);
        const inRange = (v: number): boolean => (includeLower ? v >= lower : v > lower) && (includeUpper ? v <= upper : v < upper);
        return new PointRangeIterator(
          () => {
            const it = sliceIterator(pa, from, to, ctx.reader.maxDoc)!;
            const bits = it.bitSet();
            if (cache !== null && core !== undefined && bits !== null && cache.shouldCache(cacheKey, ctx.reader.maxDoc)) cache.put(core, cacheKey, bits, to - from);
            return it;
          },
          to - from,
          () => {
            const dv = ctx.reader.numericDocValues(field);
            return dv ? docValuesMatcher(dv, inRange) : null;
          },
          () => {
            const dv = ctx.reader.numericDocValues(field);
            return dv ? docValuesBulkMatcher(dv, lower, upper, includeLower, includeUpper) : null;
          },
        );
      },
      // one value: the slice's length, when no doc holds the value twice — known at once when every doc has
      // exactly one doc value (points and doc values hold the same values), else checked on the slice
      (ctx) => {
        const s = slice(ctx);
        if (!s || s[2] <= s[1]) return 0;
        const [pa, from, to] = s;
        if (pa.value(from) !== pa.value(to - 1)) return -1;
        if (ctx.reader.numericDocValues(field)?.singleValued === true) return to - from;
        return oneValueDocs(pa, from, to) !== null ? to - from : -1;
      },
    );
  }
  toString(): string {
    return `${this.field}:${this.includeLower ? '[' : '{'}${this.lower} TO ${this.upper}${this.includeUpper ? ']' : '}'}`;
  }
}

export class PointInSetQuery extends Query {
  readonly values: number[];
  constructor(
    readonly field: string,
    values: number[],
  ) {
    super();
    this.values = [...new Set(values)].sort((a, b) => a - b);
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    const { field, values } = this;
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const pi = ctx.reader.pointIndex(field);
      if (!pi) return null;
      const pa = pointAccess(pi);
      if (pa.size === 0) return null;
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      let any = false;
      for (const v of values) {
        const from = pa.lowerBound(v, false);
        const to = pa.lowerBound(v, true);
        if (to > from) {
          for (const docs of pa.docChunks(from, to)) b.addAll(docs);
          any = true;
        }
      }
      return any ? b.build() : null;
    });
  }
  toString(): string {
    return `${this.field}:{${this.values.join(' ')}}`;
  }
}
