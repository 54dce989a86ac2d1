/**
 * Lucene's SmallFloat int4 encoding of field lengths into one byte (as BM25 norms do).
 * encodeNorm(length) → byte; decodeNorm(byte) → the length Lucene's LENGTH_TABLE holds.
 */
function longToInt4(i: number): number {
  if (i < 0) throw new Error('Only supports positive values, got ' + i);
  const numBits = i === 0 ? 0 : Math.floor(Math.log2(i)) + 1;
  if (numBits < 4) return i;
  const shift = numBits - 4;
  let encoded = Math.floor(i / 2 ** shift);
  encoded &= 0x07;
  encoded |= (shift + 1) << 3;
  return encoded;
}

function int4ToLong(i: number): number {
  const bits = i & 0x07;
  const shift = (i >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

const MAX_INT = 2147483647;
const NUM_FREE_VALUES = 255 - longToInt4(MAX_INT);

export function encodeNorm(length: number): number {
  if (length < NUM_FREE_VALUES) return length;
  return NUM_FREE_VALUES + longToInt4(length - NUM_FREE_VALUES);
}

export function decodeNorm(b: number): number {
  const i = b & 0xff;
  if (i < NUM_FREE_VALUES) return i;
  return Math.min(NUM_FREE_VALUES + int4ToLong(i - NUM_FREE_VALUES), MAX_INT);
}

/** LENGTH_TABLE of Lucene's BM25Similarity: decodeNorm for every byte. */
export const LENGTH_TABLE: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = decodeNorm(i);
  return t;
})();
