/**
 * cardinality: HyperLogLog++ as Elasticsearch: linear counting over 25-bit encoded hashes while small
 * (practically exact), HLL registers (precision from precision_threshold, default 3000 -> p=14) above.
 * Keyword fields hash each distinct segment term once (ordinals), numerics hash per value with a last-value cache.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, NumericDocValues, SortedSetDocValues } from '../../index/leaf-reader.js';
import { numericReader, ordinalsReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import {
  AggSpec,
  Aggregator,
  bytesValues,
  checkParams,
  parseField,
  displayTerm,
  optInt,
  requireField,
  resolveField,
  type FieldSource,
} from '../framework.js';
import { hashDouble, hashLong, hashString } from '../support/hash.js';
import { hashDoublePair, hashLongPair, murmur3StringPair, out as hashOut } from '../support/hash64.js';

const P2 = 25;
const THRESHOLDS = [10, 20, 40, 80, 220, 400, 900, 1800, 3100, 6500, 11500, 20000, 50000, 120000, 350000];

export function precisionFromThreshold(count: number): number {
  const entries = Math.ceil(count / 0.75);
  const bytes = entries * 4;
  let precision = bytes <= 0 ? 1 : Math.floor(Math.log2(bytes)) + 1; // PackedInts.bitsRequired
  precision = Math.max(precision, 4);
  precision = Math.min(precision, 18);
  return precision;
}

function nlz64(x: bigint): number {
  if (x === 0n) return 64;
  const hi = Number(x >> 32n);
  if (hi !== 0) return Math.clz32(hi);
  return 32 + Math.clz32(Number(x & 0xffffffffn));
}

/** ES HyperLogLogPlusPlus.encodeHash, as an unsigned 32-bit number */
export function encodeHash(hash: bigint, p: number): number {
  const e = Number(hash >> BigInt(64 - P2));
  const maskBits = (1 << (P2 - p)) - 1;
  if ((e & maskBits) === 0) {
    const runLen = 1 + Math.min(nlz64((hash << BigInt(P2)) & 0xffffffffffffffffn), 64 - P2);
    return (e * 128 + runLen * 2 + 1) >>> 0;
  }
  return (e * 2) >>> 0;
}

/** encodeHash on a (hi, lo) pair (allocation-free twin of encodeHash) */
export function encodeHashPair(hi: number, lo: number, p: number): number {
  const e = hi >>> 7;
  const maskBits = (1 << (P2 - p)) - 1;
  if ((e & maskBits) === 0) {
    const sh = ((hi << 25) | (lo >>> 7)) >>> 0;
    const sl = (lo << 25) >>> 0;
    const nlz = sh !== 0 ? Math.clz32(sh) : 32 + Math.clz32(sl);
    const runLen = 1 + Math.min(nlz, 64 - P2);
    return (e * 128 + runLen * 2 + 1) >>> 0;
  }
  return (e * 2) >>> 0;
}

function decodeIndex(enc: number, p: number): number {
  const index = (enc & 1) === 1 ? enc >>> 7 : enc >>> 1;
  return index >>> (P2 - p);
}

function decodeRunLen(enc: number, p: number): number {
  if ((enc & 1) === 1) return ((enc >>> 1) & 0x3f) + (P2 - p);
  const bits = (enc << (31 + p - P2)) | 0;
  return Math.clz32(bits) + 1;
}

function linearCounting(m: number, v: number): number {
  return Math.round(m * Math.log(m / v));
}

/** per-bucket sketch: a set of encoded hashes, upgraded to registers past (1<<p)/4 entries */
class Sketch {
  lc: Set<number> | null = new Set();
  regs: Uint8Array | null = null;
  constructor(readonly p: number) {}
  add(enc: number): void {
    if (this.lc) {
      this.lc.add(enc);
      if (this.lc.size > (1 << this.p) / 4) this.upgrade();
      return;
    }
    const i = decodeIndex(enc, this.p);
    const r = decodeRunLen(enc, this.p);
    if (r > this.regs![i]!) this.regs![i] = r;
  }
  upgrade(): void {
    const regs = new Uint8Array(1 << this.p);
    for (const enc of this.lc!) {
      const i = decodeIndex(enc, this.p);
      const r = decodeRunLen(enc, this.p);
      if (r > regs[i]!) regs[i] = r;
    }
    this.lc = null;
    this.regs = regs;
  }
  mergeRegs(other: Uint8Array): void {
    if (this.lc) this.upgrade();
    const regs = this.regs!;
    for (let i = 0; i < regs.length; i++) if (other[i]! > regs[i]!) regs[i] = other[i]!;
  }
  cardinality(): number {
    if (this.lc) {
      const m = 2 ** P2;
      return linearCounting(m, m - this.lc.size);
    }
    const regs = this.regs!;
    const m = regs.length;
    let inv = 0;
    let zeros = 0;
    for (let i = 0; i < m; i++) {
      inv += 2 ** -regs[i]!;
      if (regs[i] === 0) zeros++;
    }
    const alpha = m === 16 ? 0.673 : m === 32 ? 0.697 : m === 64 ? 0.709 : 0.7213 / (1 + 1.079 / m);
    const e = (alpha * m * m) / inv;
    const h = zeros !== 0 ? linearCounting(m, zeros) : Math.round(e);
    return h <= THRESHOLDS[this.p - 4]! ? h : Math.round(e);
  }
}

interface CardinalityInternal extends InternalAggregation {
  type: 'cardinality';
  p: number;
  lc: number[] | null;
  regs: Uint8Array | null;
}

export class CardinalitySpec extends AggSpec {
  field = '';
  precisionThreshold = 3000;
  missing: unknown;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): CardinalitySpec {
    checkParams('cardinality', body, ['field', 'precision_threshold', 'missing', 'script', 'value_type', 'execution_hint', 'rehash']);
    const s = new CardinalitySpec(name, 'cardinality');
    s.field = requireField('cardinality', name, body);
    const pt = optInt('cardinality', body, 'precision_threshold');
    if (pt !== undefined) {
      parseField('cardinality', 'precision_threshold', () => {
        if (pt < 0) throw Errors.illegalArgument(`[precisionThreshold] must be greater than or equal to 0. Found [${pt}] in [${name}]`);
      });
      s.precisionThreshold = pt;
    }
    s.missing = body['missing'];
    return s;
  }
  get precision(): number {
    return precisionFromThreshold(this.precisionThreshold);
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new CardinalityAggregator(this, resolveField(ctx, this.field));
  }
  empty(): InternalAggregation {
    return { type: 'cardinality', p: this.precision, lc: [], regs: null } satisfies CardinalityInternal;
  }
  typedName(): string {
    return 'cardinality';
  }
  private toSketch(list: CardinalityInternal[]): Sketch {
    const s = new Sketch(this.precision);
    for (const x of list) {
      if (x.regs) s.mergeRegs(x.regs);
      else for (const e of x.lc ?? []) s.add(e);
    }
    return s;
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    const s = this.toSketch(list as CardinalityInternal[]);
    return { type: 'cardinality', p: s.p, lc: s.lc ? [...s.lc] : null, regs: s.regs } satisfies CardinalityInternal;
  }
  override value(agg: InternalAggregation): number {
    return this.toSketch([agg as CardinalityInternal]).cardinality();
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    return { value: this.toSketch([agg as CardinalityInternal]).cardinality() };
  }
}

class CardinalityAggregator extends Aggregator {
  private readonly sketches: (Sketch | undefined)[] = [];
  private ndv: NumericDocValues | null = null;
  private sdv: SortedSetDocValues | null = null;
  private nrd: DocValuesReader | null = null;
  private srd: DocValuesReader<Uint32Array> | null = null;
  private encCache: Float64Array | null = null;
  private lastValue = NaN;
  private lastEnc = 0;
  private readonly p: number;
  private missingEnc: number | undefined;

  constructor(private readonly spec: CardinalitySpec, private readonly src: FieldSource) {
    super();
    this.p = spec.precision;
    if (spec.missing !== undefined && spec.missing !== null) {
      const m = spec.missing;
      this.missingEnc = encodeHash(
        src.kind === 'numeric' ? this.hashNumber(Number(m === true ? 1 : m === false ? 0 : m)) : hashString(String(m)),
        this.p,
      );
    }
  }

  private hashNumber(v: number): bigint {
    return this.src.integer ? hashLong(v) : hashDouble(v);
  }

  private sketch(ord: number): Sketch {
    let s = this.sketches[ord];
    if (!s) {
      s = new Sketch(this.p);
      this.sketches[ord] = s;
    }
    return s;
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.ndv = this.src.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
    this.sdv = this.src.kind === 'bytes' ? bytesValues(leaf, this.src) : null;
    this.encCache = this.sdv ? new Float64Array(this.sdv.terms.length).fill(-1) : null;
    this.nrd = this.ndv ? numericReader(this.ndv) : null;
    this.srd = this.sdv ? ordinalsReader(this.sdv) : null;
  }

  collect(doc: number, owningOrd: number): void {
    const sdv = this.sdv;
    const srd = this.srd;
    if (sdv && srd) {
      const n = srd.advance(doc);
      if (n > 0) {
        const sk = this.sketch(owningOrd);
        const cache = this.encCache!;
        for (let i = 0; i < n; i++) {
          const o = srd.value(i);
          let enc = cache[o]!;
          if (enc < 0) {
            murmur3StringPair(displayTerm(this.src, sdv.terms[o]!));
            enc = encodeHashPair(hashOut.hi, hashOut.lo, this.p);
            cache[o] = enc;
          }
          sk.add(enc);
        }
        return;
      }
    }
    const nrd = this.nrd;
    if (nrd) {
      const n = nrd.advance(doc);
      if (n > 0) {
        const sk = this.sketch(owningOrd);
        const scale = this.src.scale;
        for (let i = 0; i < n; i++) {
          const v = nrd.value(i) * scale;
          if (v !== this.lastValue) {
            this.lastValue = v;
            if (this.src.integer) hashLongPair(v);
            else hashDoublePair(v);
            this.lastEnc = encodeHashPair(hashOut.hi, hashOut.lo, this.p);
          }
          sk.add(this.lastEnc);
        }
        return;
      }
    }
    if (this.missingEnc !== undefined) this.sketch(owningOrd).add(this.missingEnc);
  }

  build(owningOrd: number): InternalAggregation {
    const s = this.sketches[owningOrd];
    if (!s) return this.spec.empty();
    return { type: 'cardinality', p: s.p, lc: s.lc ? [...s.lc] : null, regs: s.regs } satisfies CardinalityInternal;
  }
}
