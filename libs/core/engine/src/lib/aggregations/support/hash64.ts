/**
 * Allocation-free 64-bit hashing on (hi, lo) uint32 pairs: MurmurHash3 x64 128 (h1) and BitMixer.mix64,
 * bit-identical to the BigInt reference in hash.ts but ~20x faster (used on the cardinality hot path).
 * Results are returned through the module-level `out` pair.
 */

export const out = { hi: 0, lo: 0 };

// scratch for mul64
let mh = 0;
let ml = 0;

/** (ah,al) * (bh,bl) mod 2^64 into (mh, ml): full 32x32 product of the low words plus the cross terms */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff, a1 = al >>> 16;
  const b0 = bl & 0xffff, b1 = bl >>> 16;
  const t = a0 * b0;
  const m1 = a1 * b0;
  const m2 = a0 * b1;
  const carry = ((t >>> 16) + (m1 & 0xffff) + (m2 & 0xffff)) >>> 16;
  const hiLow = a1 * b1 + (m1 >>> 16) + (m2 >>> 16) + carry;
  ml = Math.imul(al, bl) >>> 0;
  mh = (hiLow + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

const C1H = 0x87c37b91, C1L = 0x114253d5;
const C2H = 0x4cf5ad43, C2L = 0x2745937f;

let th = 0;
let tl = 0;

function rotl(h: number, l: number, r: number): void {
  if (r === 32) {
    th = l;
    tl = h;
  } else if (r < 32) {
    th = ((h << r) | (l >>> (32 - r))) >>> 0;
    tl = ((l << r) | (h >>> (32 - r))) >>> 0;
  } else {
    const s = r - 32;
    th = ((l << s) | (h >>> (32 - s))) >>> 0;
    tl = ((h << s) | (l >>> (32 - s))) >>> 0;
  }
}

function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  tl = lo >>> 0;
  th = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** fmix64 into (th, tl) */
function fmix(h: number, l: number): void {
  // k ^= k >>> 33
  l = (l ^ (h >>> 1)) >>> 0;
  mul64(h, l, 0xff51afd7, 0xed558ccd);
  h = mh;
  l = ml;
  l = (l ^ (h >>> 1)) >>> 0;
  mul64(h, l, 0xc4ceb9fe, 0x1a85ec53);
  h = mh;
  l = ml;
  l = (l ^ (h >>> 1)) >>> 0;
  th = h;
  tl = l;
}

function getLo(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/** MurmurHash3 x64 128 with seed 0 of bytes[0..len); h1 into `out` */
export function murmur3h1Pair(bytes: Uint8Array, len: number = bytes.length): void {
  const nblocks = len >> 4;
  let h1h = 0, h1l = 0, h2h = 0, h2l = 0;
  for (let i = 0; i < nblocks; i++) {
    const o = i * 16;
    let k1l = getLo(bytes, o), k1h = getLo(bytes, o + 4);
    let k2l = getLo(bytes, o + 8), k2h = getLo(bytes, o + 12);
    mul64(k1h, k1l, C1H, C1L);
    rotl(mh, ml, 31);
    mul64(th, tl, C2H, C2L);
    k1h = mh; k1l = ml;
    h1h = (h1h ^ k1h) >>> 0; h1l = (h1l ^ k1l) >>> 0;
    rotl(h1h, h1l, 27);
    add(th, tl, h2h, h2l);
    mul64(th, tl, 0, 5);
    add(mh, ml, 0, 0x52dce729);
    h1h = th; h1l = tl;
    mul64(k2h, k2l, C2H, C2L);
    rotl(mh, ml, 33);
    mul64(th, tl, C1H, C1L);
    k2h = mh; k2l = ml;
    h2h = (h2h ^ k2h) >>> 0; h2l = (h2l ^ k2l) >>> 0;
    rotl(h2h, h2l, 31);
    add(th, tl, h1h, h1l);
    mul64(th, tl, 0, 5);
    add(mh, ml, 0, 0x38495ab5);
    h2h = th; h2l = tl;
  }
  const tail = nblocks * 16;
  const rem = len & 15;
  if (rem > 8) {
    let k2h = 0, k2l = 0;
    for (let i = rem - 1; i >= 8; i--) {
      const sh = (i - 8) * 8;
      if (sh < 32) k2l = (k2l | (bytes[tail + i]! << sh)) >>> 0;
      else k2h = (k2h | (bytes[tail + i]! << (sh - 32))) >>> 0;
    }
    mul64(k2h, k2l, C2H, C2L);
    rotl(mh, ml, 33);
    mul64(th, tl, C1H, C1L);
    h2h = (h2h ^ mh) >>> 0; h2l = (h2l ^ ml) >>> 0;
  }
  if (rem > 0) {
    let k1h = 0, k1l = 0;
    for (let i = Math.min(rem, 8) - 1; i >= 0; i--) {
      const sh = i * 8;
      if (sh < 32) k1l = (k1l | (bytes[tail + i]! << sh)) >>> 0;
      else k1h = (k1h | (bytes[tail + i]! << (sh - 32))) >>> 0;
    }
    mul64(k1h, k1l, C1H, C1L);
    rotl(mh, ml, 31);
    mul64(th, tl, C2H, C2L);
    h1h = (h1h ^ mh) >>> 0; h1l = (h1l ^ ml) >>> 0;
  }
  h1l = (h1l ^ len) >>> 0;
  h2l = (h2l ^ len) >>> 0;
  add(h1h, h1l, h2h, h2l); h1h = th; h1l = tl;
  add(h2h, h2l, h1h, h1l); h2h = th; h2l = tl;
  fmix(h1h, h1l); h1h = th; h1l = tl;
  fmix(h2h, h2l); h2h = th; h2l = tl;
  add(h1h, h1l, h2h, h2l);
  out.hi = th;
  out.lo = tl;
}

/** HPPC BitMixer.mix64 into `out` */
export function mix64Pair(h: number, l: number): void {
  // z = (z ^ (z >>> 32)) * 0x4cd6944c5cc20b6d
  l = (l ^ h) >>> 0;
  mul64(h, l, 0x4cd6944c, 0x5cc20b6d);
  h = mh;
  l = ml;
  // z = (z ^ (z >>> 29)) * 0xfc12ac2c654b2ab5
  l = (l ^ ((h << 3) | (l >>> 29))) >>> 0;
  h = (h ^ (h >>> 29)) >>> 0;
  mul64(h, l, 0xfc12ac2c, 0x654b2ab5);
  h = mh;
  l = ml;
  // z ^ (z >>> 32)
  out.hi = h;
  out.lo = (l ^ h) >>> 0;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** mix64 of a long value (two's complement) into `out` */
export function hashLongPair(v: number): void {
  const t = Math.trunc(v);
  let lo = t % 4294967296;
  let hi = Math.floor(t / 4294967296);
  if (lo < 0) lo += 4294967296;
  hi = hi >>> 0;
  mix64Pair(hi, lo >>> 0);
}

/** mix64 of Double.doubleToLongBits(v) into `out` */
export function hashDoublePair(v: number): void {
  if (Number.isNaN(v)) {
    mix64Pair(0x7ff80000, 0);
    return;
  }
  f64[0] = v;
  mix64Pair(u32[1]!, u32[0]!);
}

/** leading zeros of a 64-bit (hi, lo) */
export function nlz64Pair(hi: number, lo: number): number {
  if (hi !== 0) return Math.clz32(hi);
  return 32 + Math.clz32(lo);
}

let scratch = new Uint8Array(256);
const encoder = new TextEncoder();

/** MurmurHash3 x64 128 (h1, seed 0) of the UTF-8 bytes of s into `out`, without allocating for short strings */
export function murmur3StringPair(s: string): void {
  const n = s.length;
  if (n * 3 > scratch.length) scratch = new Uint8Array(n * 3 + 16);
  let ascii = true;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) {
      ascii = false;
      break;
    }
    scratch[i] = c;
  }
  if (ascii) {
    murmur3h1Pair(scratch, n);
    return;
  }
  const { written } = encoder.encodeInto(s, scratch);
  murmur3h1Pair(scratch, written);
}
