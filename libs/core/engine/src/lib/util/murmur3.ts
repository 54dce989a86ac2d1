/**
 * MurmurHash3 x86 32-bit (Lucene StringHelper.murmurhash3_x86_32), the one copy: document routing hashes the
 * routing value's UTF-16LE bytes with seed 0 (ES Murmur3HashFunction), terms partitions the UTF-8 bytes with seed 31.
 */
/** Lucene StringHelper.murmurhash3_x86_32 (signed 32-bit result) */
export function murmur3x86_32(bytes: Uint8Array, seed: number): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let h1 = seed | 0;
  const len = bytes.length;
  const rounded = len & ~3;
  for (let i = 0; i < rounded; i += 4) {
    let k1 = bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  const rem = len & 3;
  if (rem > 0) {
    let k1 = 0;
    if (rem === 3) k1 = (bytes[rounded + 2]! & 0xff) << 16;
    if (rem >= 2) k1 |= (bytes[rounded + 1]! & 0xff) << 8;
    k1 |= bytes[rounded]! & 0xff;
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
  }
  h1 ^= len;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 | 0;
}
