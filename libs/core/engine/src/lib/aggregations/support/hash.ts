/**
 * Hashes used by cardinality, as Elasticsearch: MurmurHash3 x64 128 (h1, seed 0) of the UTF-8 bytes for
 * strings, HPPC BitMixer.mix64 for longs and for the raw bits of doubles. 64-bit arithmetic on BigInt
 * (strings are hashed once per distinct segment term, so this is off the per-doc path).
 */
import { murmur3x86_32 } from '../../util/murmur3.js';
const M64 = (1n << 64n) - 1n;
const C1 = 0x87c37b91114253d5n;
const C2 = 0x4cf5ad432745937fn;

function rotl(x: bigint, r: bigint): bigint {
  return ((x << r) | (x >> (64n - r))) & M64;
}

function fmix(k: bigint): bigint {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  k ^= k >> 33n;
  return k;
}

function getLong(b: Uint8Array, i: number): bigint {
  const lo = (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
  const hi = (b[i + 4]! | (b[i + 5]! << 8) | (b[i + 6]! << 16) | (b[i + 7]! << 24)) >>> 0;
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** MurmurHash3 x64 128, returns h1 as unsigned 64-bit BigInt */
export function murmur3h1(bytes: Uint8Array, seed = 0n): bigint {
  const len = bytes.length;
  const nblocks = len >> 4;
  let h1 = seed;
  let h2 = seed;
  for (let i = 0; i < nblocks; i++) {
    let k1 = getLong(bytes, i * 16);
    let k2 = getLong(bytes, i * 16 + 8);
    k1 = (k1 * C1) & M64;
    k1 = rotl(k1, 31n);
    k1 = (k1 * C2) & M64;
    h1 ^= k1;
    h1 = rotl(h1, 27n);
    h1 = (h1 + h2) & M64;
    h1 = (h1 * 5n + 0x52dce729n) & M64;
    k2 = (k2 * C2) & M64;
    k2 = rotl(k2, 33n);
    k2 = (k2 * C1) & M64;
    h2 ^= k2;
    h2 = rotl(h2, 31n);
    h2 = (h2 + h1) & M64;
    h2 = (h2 * 5n + 0x38495ab5n) & M64;
  }
  const tail = nblocks * 16;
  let k1 = 0n;
  let k2 = 0n;
  const rem = len & 15;
  for (let i = rem - 1; i >= 8; i--) k2 ^= BigInt(bytes[tail + i]!) << BigInt((i - 8) * 8);
  if (rem > 8) {
    k2 = (k2 * C2) & M64;
    k2 = rotl(k2, 33n);
    k2 = (k2 * C1) & M64;
    h2 ^= k2;
  }
  for (let i = Math.min(rem, 8) - 1; i >= 0; i--) k1 ^= BigInt(bytes[tail + i]!) << BigInt(i * 8);
  if (rem > 0) {
    k1 = (k1 * C1) & M64;
    k1 = rotl(k1, 31n);
    k1 = (k1 * C2) & M64;
    h1 ^= k1;
  }
  const L = BigInt(len);
  h1 ^= L;
  h2 ^= L;
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) & M64;
  return h1;
}

const enc = new TextEncoder();

export function hashString(s: string): bigint {
  return murmur3h1(enc.encode(s));
}

/** HPPC BitMixer.mix64 */
export function mix64(z: bigint): bigint {
  z &= M64;
  z = ((z ^ (z >> 32n)) * 0x4cd6944c5cc20b6dn) & M64;
  z = ((z ^ (z >> 29n)) * 0xfc12ac2c654b2ab5n) & M64;
  return z ^ (z >> 32n);
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

export function hashLong(v: number): bigint {
  return mix64(BigInt.asUintN(64, BigInt(Math.trunc(v))));
}

export function hashDouble(v: number): bigint {
  if (Number.isNaN(v)) return mix64(0x7ff8000000000000n); // Java canonical NaN bits
  f64[0] = v;
  return mix64(u64[0]!);
}

export { murmur3x86_32 };

export function stringPartitionHash(s: string): number {
  return murmur3x86_32(enc.encode(s), 31);
}

/** Math.floorMod(BitMixer.mix64(v), n) as IncludeExclude does for longs */
export function longPartition(v: number, n: number): number {
  const h = BigInt.asIntN(64, mix64(BigInt.asUintN(64, BigInt(Math.trunc(v)))));
  const m = BigInt(n);
  return Number(((h % m) + m) % m);
}
