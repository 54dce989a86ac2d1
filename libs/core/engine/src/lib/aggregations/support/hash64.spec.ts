import { hashDouble, hashLong, murmur3h1 } from './hash.js';
import { hashDoublePair, hashLongPair, mix64Pair, murmur3h1Pair, murmur3StringPair, out } from './hash64.js';
import { hashString } from './hash.js';
import { encodeHash, encodeHashPair } from '../metrics/cardinality.js';

const pair = () => (BigInt(out.hi) << 32n) | BigInt(out.lo);

describe('64-bit pair hashing matches the BigInt reference', () => {
  it('murmur3 x64 128 h1 for all tail lengths and random bytes', () => {
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) & 0xff;
    for (let len = 0; len < 70; len++) {
      for (let rep = 0; rep < 5; rep++) {
        const b = new Uint8Array(len);
        for (let i = 0; i < len; i++) b[i] = rnd();
        murmur3h1Pair(b);
        expect(pair()).toBe(murmur3h1(b));
      }
    }
  });
  it('strings (ASCII fast path and UTF-8)', () => {
    for (const str of ['', 'hello', 'The quick brown fox jumps over the lazy dog', 'héllo wörld', '日本語のテキスト', 'x'.repeat(300) + 'é']) {
      murmur3StringPair(str);
      expect(pair()).toBe(hashString(str));
    }
  });

  it('mix64 for longs and doubles', () => {
    for (const v of [0, 1, -1, 42, 2 ** 40 + 7, -(2 ** 45) - 3, 1704067200000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      hashLongPair(v);
      expect(pair()).toBe(hashLong(v));
    }
    for (const v of [0, -0, 1.5, -2.25, 1e300, NaN, Infinity, 3.14159]) {
      hashDoublePair(v);
      expect(pair()).toBe(hashDouble(v));
    }
    mix64Pair(0xffffffff, 0xffffffff);
    expect(pair()).toBe(hashLong(-1));
  });
  it('encodeHash on pairs', () => {
    for (let i = 0; i < 2000; i++) {
      hashLongPair(i * 7919);
      const h = pair();
      for (const p of [4, 10, 14, 18]) expect(encodeHashPair(out.hi, out.lo, p)).toBe(encodeHash(h, p));
    }
    // a hash whose post-index bits are all zero takes the run-length branch
    for (const p of [4, 14]) expect(encodeHashPair(0, 1, p)).toBe(encodeHash(1n, p));
  });
});
