import { randomBytes } from 'node:crypto';
import { gunzipSync, inflateSync } from 'node:zlib';
import { compressBody, gzipChunked, PARALLEL_CHUNK_BYTES } from './response-compression.js';

/** JSON-like text with repeats across chunk boundaries, so the dictionary priming matters */
function text(n: number, seed: number): Buffer {
  const words = ['"status":200', '"host":"web-01"', '"message":"GET /cart"', '{"_id":"', '"},', '1700000', 'é€😀'];
  const parts: string[] = [];
  let x = seed;
  for (let len = 0; len < n; ) {
    x = (x * 1103515245 + 12345) >>> 0;
    const w = words[x % words.length]! + (x % 97).toString(36);
    parts.push(w);
    len += Buffer.byteLength(w);
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

describe('response compression', () => {
  it('gzipChunked is one gzip member that decodes to the input, at every size around the chunk edges', async () => {
    const chunk = 1024; // small chunks: many boundaries, dictionary windows shorter and longer than 32 KB
    for (const n of [0, 1, 1023, 1024, 1025, 2048, 5000, 40_000, 70_001]) {
      const raw = text(n, n + 1);
      const gz = await gzipChunked(raw, 3, chunk);
      expect(gz.subarray(0, 3)).toEqual(Buffer.from([0x1f, 0x8b, 8]));
      expect(gz.readUInt32LE(gz.length - 4)).toBe(n);
      expect(gunzipSync(gz).equals(raw)).toBe(true);
    }
    const noise = randomBytes(300_000);
    expect(gunzipSync(await gzipChunked(noise, 1)).equals(noise)).toBe(true);
  });

  it('priming each chunk with the previous window compresses about as well as one stream', async () => {
    const raw = text(4 * PARALLEL_CHUNK_BYTES + 77, 9);
    const chunked = await gzipChunked(raw, 3, PARALLEL_CHUNK_BYTES);
    const oneStream = await gzipChunked(raw, 3, raw.length);
    expect(gunzipSync(chunked).equals(raw)).toBe(true);
    expect(chunked.length).toBeLessThan(oneStream.length * 1.03);
    expect(gunzipSync(await gzipChunked(raw, 3)).equals(raw)).toBe(true);
  });

  it('compressBody encodes small and large bodies, gzip and deflate', async () => {
    for (const n of [10, PARALLEL_CHUNK_BYTES - 1, PARALLEL_CHUNK_BYTES, 3 * PARALLEL_CHUNK_BYTES + 5]) {
      const raw = text(n, 3);
      expect(gunzipSync(await compressBody(raw, 'gzip', 3)).equals(raw)).toBe(true);
      expect(inflateSync(await compressBody(raw, 'deflate', 6)).equals(raw)).toBe(true);
    }
  });
});
