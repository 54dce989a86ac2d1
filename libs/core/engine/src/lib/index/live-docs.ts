/** Live-docs bitsets (bit set = live) over Uint32Array words. */
export function newLiveDocs(maxDoc: number): Uint32Array {
  const words = new Uint32Array((maxDoc + 31) >>> 5);
  words.fill(0xffffffff);
  const rem = maxDoc & 31;
  if (rem !== 0 && words.length > 0) words[words.length - 1] = (1 << rem) - 1 >>> 0 || 0xffffffff;
  return words;
}

export function isLiveBit(bits: Uint32Array | null, doc: number): boolean {
  return bits === null || (bits[doc >>> 5] & (1 << (doc & 31))) !== 0;
}

export function clearBit(bits: Uint32Array, doc: number): boolean {
  const w = doc >>> 5;
  const m = 1 << (doc & 31);
  const was = (bits[w] & m) !== 0;
  bits[w] &= ~m;
  return was;
}

function bitCount(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

export function countLive(bits: Uint32Array | null, maxDoc: number): number {
  if (bits === null) return maxDoc;
  let c = 0;
  for (let i = 0; i < bits.length; i++) c += bitCount(bits[i]);
  return c;
}

/** documents set in `mask` and live in `live` (null: every document live) — e.g. the live hidden nested docs */
export function countLiveIn(mask: Uint32Array, live: Uint32Array | null): number {
  let c = 0;
  for (let i = 0; i < mask.length; i++) c += bitCount(live === null ? mask[i] : mask[i] & live[i]);
  return c;
}
