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

export function countLive(bits: Uint32Array | null, maxDoc: number): number {
  if (bits === null) return maxDoc;
  let c = 0;
  for (let i = 0; i < bits.length; i++) {
    let v = bits[i];
    v = v - ((v >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    c += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
  }
  return c;
}
