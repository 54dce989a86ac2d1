/**
 * Exact 64-bit values of `long` and `unsigned_long` fields. Numeric doc values and points hold doubles, exact
 * for every integer of magnitude below 2^53 (all common data). A value of magnitude 2^53 or more is kept, in
 * addition to its double, in a side field of the segment: one keyword term per such value (indexed when the
 * field is, doc values when the field has them) under `exactLongField(name)`, encoded so that the order of the
 * terms is the numeric order. A segment without such values has no side field and keeps the usual format.
 *
 * Invariant: every doc value / point whose double is not a safe integer has its exact value in the side field
 * of its doc. So an exact read of a value is its double when safe, else the side term that rounds to it;
 * a range over exact values is a point range over the safe doubles plus a term range over the side field.
 */
import { RawJson, exactInteger } from '@strata/core-common';
import { ordinalsReader, type DocValuesReader } from './doc-values-reader.js';
import type { LeafReader, SortedSetDocValues } from './leaf-reader.js';

/** the hidden side field of a long / unsigned_long field (a NUL can not reach a mapped field's name) */
export function exactLongField(field: string): string {
  return `${field}\u0000exact`;
}

export function isExactLongType(type: string): boolean {
  return type === 'long' || type === 'unsigned_long';
}

const OFFSET = 1n << 63n;

/** the side term of a value: 16 hex digits of the value (unsigned_long) or of value + 2^63 (long) */
export function encodeExactLong(v: bigint, unsigned: boolean): string {
  return (unsigned ? v : v + OFFSET).toString(16).padStart(16, '0');
}

export function decodeExactLong(term: string, unsigned: boolean): bigint {
  const u = BigInt(`0x${term}`);
  return unsigned ? u : u - OFFSET;
}

/** the range of the type: [min, max] */
export function exactLongRange(type: string): readonly [bigint, bigint] {
  return type === 'unsigned_long' ? U_RANGE : L_RANGE;
}
const L_RANGE = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const U_RANGE = [0n, 2n ** 64n - 1n] as const;

/**
 * The exact integer of a value given for a long / unsigned_long beyond what a double holds: a string of
 * digits, or a RawJson integer literal (an exactly parsed JSON number); undefined for anything else.
 */
export function exactLongLiteral(value: unknown): bigint | undefined {
  if (typeof value === 'string') {
    const s = value.trim();
    return /^[+-]?\d+$/.test(s) ? BigInt(s) : undefined;
  }
  return value instanceof RawJson ? exactInteger(value) : undefined;
}

/** the values that need the side field: magnitude 2^53 or more */
export function needsExact(v: number): boolean {
  return !Number.isSafeInteger(v) && Number.isFinite(v);
}

/**
 * Exact values of one field in one segment, per doc. `exact(doc, d, k)`: the exact value of the double `d`
 * of `doc` (its `k`-th double equal to d, for docs with several values rounding to the same double).
 */
export class ExactLongs {
  private doc = -1;
  private vals: bigint[] = [];

  private constructor(
    private readonly sdv: SortedSetDocValues,
    private readonly rd: DocValuesReader<Uint32Array>,
    private readonly unsigned: boolean,
  ) {}

  /** the reader of a segment's exact values; null when the segment holds no unsafe value of the field */
  static of(reader: LeafReader, field: string, type: string): ExactLongs | null {
    if (!isExactLongType(type)) return null;
    const sdv = reader.sortedSetDocValues(exactLongField(field));
    return sdv ? new ExactLongs(sdv, ordinalsReader(sdv), type === 'unsigned_long') : null;
  }

  /** the exact side values of `doc`, ascending (empty when none) */
  valuesOf(doc: number): bigint[] {
    if (doc !== this.doc) {
      const n = this.rd.advance(doc);
      const out: bigint[] = [];
      for (let i = 0; i < n; i++) out.push(decodeExactLong(this.sdv.terms[this.rd.value(i)]!, this.unsigned));
      this.vals = out;
      this.doc = doc;
    }
    return this.vals;
  }

  exact(doc: number, d: number, k = 0): number | bigint {
    if (!needsExact(d)) return d;
    let last: bigint | undefined;
    for (const v of this.valuesOf(doc)) {
      if (Number(v) !== d) continue;
      last = v;
      if (k-- === 0) return v;
    }
    return last ?? d;
  }
}

/**
 * The values of the doc a numeric reader is positioned on (advance(doc) done; ascending doubles), made exact:
 * `ex` null = the segment has no side field (the doubles are exact). Equal doubles map to successive side values.
 */
export function exactValuesOf(ex: ExactLongs | null, doc: number, rd: DocValuesReader<Float64Array>): Array<number | bigint> {
  const out: Array<number | bigint> = [];
  let prev = NaN;
  let k = 0;
  for (let i = 0; i < rd.count; i++) {
    const d = rd.value(i);
    k = d === prev ? k + 1 : 0;
    prev = d;
    out.push(ex ? ex.exact(doc, d, k) : d);
  }
  return out;
}
