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
