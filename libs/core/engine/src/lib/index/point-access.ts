/**
 * Reads a PointIndex the same way whether it is held as whole arrays (segments in memory) or block by block
 * (segments on disk: only the blocks a search touches are decoded, found by binary search over the resident
 * block bounds). Range queries, sorted paging and the other users of points go through it.
 */
import type { NumberBlocks, PointIndex } from './leaf-reader.js';

export interface PointAccess {
  /** number of (value, doc) pairs */
  readonly size: number;
  value(i: number): number;
  doc(i: number): number;
  /** the first i whose value is >= v (> v when strict); size when none */
  lowerBound(v: number, strict: boolean): number;
  /** the docs of entries [from, to) as consecutive views (never mutate them) */
  docChunks(from: number, to: number): Generator<Uint32Array>;
}

/** first index i in [lo, hi) of `values` with values[i] >= v (or > v when strict) */
export function lowerBoundIn(values: ArrayLike<number>, v: number, strict: boolean, lo = 0, hi = values.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = values[mid]!;
    if (strict ? x <= v : x < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class ArrayPoints implements PointAccess {
  readonly size: number;
  constructor(private readonly pi: PointIndex) {
    this.size = pi.docs.length;
  }
  value(i: number): number {
    return this.pi.values[i]!;
  }
  doc(i: number): number {
    return this.pi.docs[i]!;
  }
  lowerBound(v: number, strict: boolean): number {
    return lowerBoundIn(this.pi.values, v, strict);
  }
  *docChunks(from: number, to: number): Generator<Uint32Array> {
    if (to > from) yield this.pi.docs.subarray(from, to);
  }
}

class BlockPoints implements PointAccess {
  readonly size: number;
  private readonly shift: number;
  private readonly mask: number;
  private vb = -1;
  private vBlock: Float64Array | null = null;
  private db = -1;
  private dBlock: Uint32Array | null = null;
  constructor(
    private readonly values: NumberBlocks,
    private readonly docs: NumberBlocks<Uint32Array>,
  ) {
    this.size = values.size;
    this.shift = Math.log2(values.blockSize);
    this.mask = values.blockSize - 1;
  }
  value(i: number): number {
    const b = i >>> this.shift;
    if (b !== this.vb) {
      this.vBlock = this.values.block(b);
      this.vb = b;
    }
    return this.vBlock![i & this.mask]!;
  }
  doc(i: number): number {
    const b = i >>> this.shift;
    if (b !== this.db) {
      this.dBlock = this.docs.block(b);
      this.db = b;
    }
    return this.dBlock![i & this.mask]!;
  }
  lowerBound(v: number, strict: boolean): number {
    const vs = this.values;
    // the first block whose largest value qualifies (values ascend, so every earlier block is below v)
    let lo = 0;
    let hi = vs.numBlocks;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const x = vs.max(mid);
      if (strict ? x <= v : x < v) lo = mid + 1;
      else hi = mid;
    }
    if (lo === vs.numBlocks) return this.size;
    if (strict ? vs.min(lo) > v : vs.min(lo) >= v) return lo << this.shift;
    return (lo << this.shift) + lowerBoundIn(vs.block(lo), v, strict);
  }
  *docChunks(from: number, to: number): Generator<Uint32Array> {
    while (from < to) {
      const b = from >>> this.shift;
      const base = b << this.shift;
      const end = Math.min(to, base + this.docs.blockSize);
      yield this.docs.block(b).subarray(from - base, end - base);
      from = end;
    }
  }
}

export function pointAccess(pi: PointIndex): PointAccess {
  return pi.blocks ? new BlockPoints(pi.blocks.values, pi.blocks.docs) : new ArrayPoints(pi);
}
