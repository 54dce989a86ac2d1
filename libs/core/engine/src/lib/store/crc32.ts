/** CRC32 (IEEE): node:zlib's native crc32 when available, else a table implementation. */
import * as zlib from 'node:zlib';

let table: Int32Array | null = null;
function jsCrc32(data: Uint8Array, value = 0): number {
  if (!table) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let crc = ~value;
  for (let i = 0; i < data.length; i++) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

const native = (zlib as unknown as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/**
 * CRC32 of `data` continuing from `value` (0 to start). Empty input keeps the running value: node's zlib
 * answers a zero-length view over a zero-length ArrayBuffer with its initial value (0), which once made
 * incremental checksums of files with an empty part wrong (see `legacyEmptyPartCrcs`).
 */
export function crc32(data: Uint8Array, value = 0): number {
  if (data.byteLength === 0) return value >>> 0;
  return native ? native(data, value) >>> 0 : jsCrc32(data, value);
}

export const crc32Js = jsCrc32;

// CRC32 of zero bytes appended, in O(log n): appending n zero bytes multiplies the register by x^(8n) mod P
const POLY = 0xedb88320;
function multModP(a: number, b: number): number {
  let m = 1 << 31;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p >>> 0;
}
let x2n: number[] | null = null;

/** crc32(zeros(n), value) without touching n bytes (a hole in a sparse file); n may exceed 2^32 */
export function crc32Zeros(value: number, n: number): number {
  if (n <= 0) return value >>> 0;
  if (!x2n) {
    x2n = [1 << 30];
    for (let k = 1; k < 32; k++) x2n.push(multModP(x2n[k - 1], x2n[k - 1]));
  }
  // x^(8n) mod P
  let p = 1 << 31;
  let k = 3;
  while (n > 0) {
    if (n % 2 === 1) p = multModP(x2n[k & 31], p);
    n = Math.floor(n / 2);
    k++;
  }
  return ~multModP(p, ~value >>> 0) >>> 0;
}
