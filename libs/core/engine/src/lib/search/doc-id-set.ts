/**
 * Doc-id iteration primitives (Lucene's DocIdSetIterator, FixedBitSet, DocIdSetBuilder).
 * Doc ids are leaf-local and iterate in ascending order; NO_MORE_DOCS ends the iteration.
 */
export const NO_MORE_DOCS = 2147483647;

export abstract class DocIdSetIterator {
  abstract docID(): number;
  abstract nextDoc(): number;
  /** advances to the first doc >= target (target > docID()) */
  abstract advance(target: number): number;
  /** an upper bound on the number of docs this iterator may return */
  abstract cost(): number;
  /**
   * the bit set this iterator walks when it is a plain bit-set iterator (unpositioned membership tests, as
   * Lucene's BitSetConjunctionDISI does); null otherwise
   */
  bitSet(): FixedBitSet | null {
    return null;
  }
  /**
   * a membership test for any doc, without iterating (a range checked on doc values: Lucene's
   * IndexOrDocValuesQuery), for a conjunction that leads with a far cheaper clause; null when there is none
   */
  matcher(): ((doc: number) => boolean) | null {
    return null;
  }
  /**
   * the same membership test in bulk, when there is one: keeps the docs of `docs[from, to)` (ascending) that
   * match, written from `out[0]` on (`out` may be `docs` itself, written behind the reads); returns how many
   */
  bulkMatcher(): BulkMatcher | null {
    return null;
  }
  /**
   * the ascending docs this iterator walks when it is a plain walk over an array and is not positioned yet
   * (a conjunction leading with it may scan them in bulk); null otherwise
   */
  docArray(): Uint32Array | null {
    return null;
  }
}

/** see DocIdSetIterator.bulkMatcher */
export type BulkMatcher = (docs: Uint32Array, from: number, to: number, out: Uint32Array) => number;

export class EmptyIterator extends DocIdSetIterator {
  docID(): number {
    return NO_MORE_DOCS;
  }
  nextDoc(): number {
    return NO_MORE_DOCS;
  }
  advance(): number {
    return NO_MORE_DOCS;
  }
  cost(): number {
    return 0;
  }
}

/** Iterates 0..maxDoc-1. */
export class AllDocsIterator extends DocIdSetIterator {
  private doc = -1;
  constructor(private readonly maxDoc: number) {
    super();
  }
  docID(): number {
    return this.doc;
  }
  nextDoc(): number {
    return this.advance(this.doc + 1);
  }
  advance(target: number): number {
    this.doc = target >= this.maxDoc ? NO_MORE_DOCS : target;
    return this.doc;
  }
  cost(): number {
    return this.maxDoc;
  }
}

/** Iterates a sorted array of doc ids (postings). `index()` exposes the position for freqs/positions. */
export class SortedArrayIterator extends DocIdSetIterator {
  private i = -1;
  private doc = -1;
  constructor(
    readonly docs: Uint32Array,
    private readonly length = docs.length,
  ) {
    super();
  }
  index(): number {
    return this.i;
  }
  /** positions the iterator on the doc at index i (past the end: exhausted); a bulk reader hands its place back */
  setIndex(i: number): void {
    this.i = i < this.length ? i : this.length;
    this.doc = i < this.length ? this.docs[i]! : NO_MORE_DOCS;
  }
  docID(): number {
    return this.doc;
  }
  nextDoc(): number {
    const i = ++this.i;
    this.doc = i < this.length ? this.docs[i]! : NO_MORE_DOCS;
    return this.doc;
  }
  advance(target: number): number {
    const docs = this.docs;
    const n = this.length;
    let i = this.i + 1;
    if (i >= n) {
      this.i = n;
      return (this.doc = NO_MORE_DOCS);
    }
    if (docs[i]! < target) {
      // gallop then binary search
      let step = 1;
      let lo = i;
      let hi = i + step;
      while (hi < n && docs[hi]! < target) {
        lo = hi;
        step <<= 1;
        hi = i + step;
      }
      if (hi > n) hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (docs[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    this.i = i;
    this.doc = i < n ? docs[i]! : NO_MORE_DOCS;
    return this.doc;
  }
  cost(): number {
    return this.length;
  }
  override docArray(): Uint32Array | null {
    if (this.i !== -1) return null;
    return this.length === this.docs.length ? this.docs : this.docs.subarray(0, this.length);
  }
}

/** Lucene's FixedBitSet over maxDoc bits. */
export class FixedBitSet {
  readonly words: Uint32Array;
  constructor(readonly numBits: number, words?: Uint32Array) {
    this.words = words ?? new Uint32Array((numBits + 31) >>> 5);
  }
  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }
  get(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }
  clear(i: number): void {
    this.words[i >>> 5]! &= ~(1 << (i & 31));
  }
  /** first set bit >= from, or NO_MORE_DOCS */
  nextSetBit(from: number): number {
    if (from >= this.numBits) return NO_MORE_DOCS;
    const words = this.words;
    let w = from >>> 5;
    let word = words[w]! >>> (from & 31);
    if (word !== 0) return from + (31 - Math.clz32(word & -word));
    const n = words.length;
    while (++w < n) {
      word = words[w]!;
      if (word !== 0) {
        const r = (w << 5) + (31 - Math.clz32(word & -word));
        return r < this.numBits ? r : NO_MORE_DOCS;
      }
    }
    return NO_MORE_DOCS;
  }
  /** last set bit <= from, or -1 */
  prevSetBit(from: number): number {
    if (from < 0) return -1;
    const words = this.words;
    let w = from >>> 5;
    let word = (words[w]! << (31 - (from & 31))) >>> 0;
    if (word !== 0) return from - Math.clz32(word);
    while (--w >= 0) {
      word = words[w]!;
      if (word !== 0) return (w << 5) + 31 - Math.clz32(word);
    }
    return -1;
  }
  cardinality(): number {
    let c = 0;
    const words = this.words;
    for (let i = 0; i < words.length; i++) {
      let v = words[i]!;
      v = v - ((v >>> 1) & 0x55555555);
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      c += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return c;
  }
}

export class BitSetIterator extends DocIdSetIterator {
  private doc = -1;
  constructor(
    private readonly bits: FixedBitSet,
    private readonly costValue: number,
  ) {
    super();
  }
  docID(): number {
    return this.doc;
  }
  nextDoc(): number {
    return (this.doc = this.bits.nextSetBit(this.doc + 1));
  }
  advance(target: number): number {
    return (this.doc = this.bits.nextSetBit(target));
  }
  cost(): number {
    return this.costValue;
  }
  override bitSet(): FixedBitSet {
    return this.bits;
  }
}

/**
 * Builds a doc id set from unordered doc ids (Lucene's DocIdSetBuilder): a sorted array while sparse,
 * a bitset once dense, so the cost follows the number of matches.
 */
export class DocIdSetBuilder {
  private buf: Uint32Array | null = new Uint32Array(16);
  private size = 0;
  private bits: FixedBitSet | null = null;
  private readonly threshold: number;
  private counter = 0;

  constructor(private readonly maxDoc: number) {
    this.threshold = Math.max(64, maxDoc >>> 7);
  }

  add(doc: number): void {
    this.counter++;
    if (this.bits) {
      this.bits.set(doc);
      return;
    }
    if (this.size === this.buf!.length) {
      if (this.size >= this.threshold) {
        this.upgrade();
        this.bits!.set(doc);
        return;
      }
      const nb = new Uint32Array(Math.min(this.buf!.length * 2, this.threshold + 16));
      nb.set(this.buf!);
      this.buf = nb;
    }
    this.buf![this.size++] = doc;
  }

  /** adds every doc of a (sorted or not) array slice */
  addAll(docs: Uint32Array, from = 0, to = docs.length): void {
    const n = to - from;
    if (!this.bits && this.size + n > this.threshold) this.upgrade();
    if (this.bits) {
      const words = this.bits.words;
      for (let i = from; i < to; i++) {
        const d = docs[i]!;
        words[d >>> 5]! |= 1 << (d & 31);
      }
      this.counter += n;
      return;
    }
    for (let i = from; i < to; i++) this.add(docs[i]!);
  }

  private upgrade(): void {
    this.bits = new FixedBitSet(this.maxDoc);
    for (let i = 0; i < this.size; i++) this.bits.set(this.buf![i]!);
    this.buf = null;
  }

  build(): DocIdSetIterator {
    if (this.bits) return new BitSetIterator(this.bits, this.counter);
    if (this.size === 0) return new EmptyIterator();
    const arr = this.buf!.subarray(0, this.size).sort();
    // dedupe
    let w = 0;
    for (let i = 0; i < arr.length; i++) {
      if (i === 0 || arr[i] !== arr[w - 1]) arr[w++] = arr[i]!;
    }
    return new SortedArrayIterator(arr, w);
  }

  /** a bitset view of the result (for slices, filters kept across calls) */
  buildBitSet(): FixedBitSet {
    if (!this.bits) this.upgrade();
    return this.bits!;
  }
}

export function isLive(liveDocs: Uint32Array | null, doc: number): boolean {
  return liveDocs === null || (liveDocs[doc >>> 5]! & (1 << (doc & 31))) !== 0;
}
