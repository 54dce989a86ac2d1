import { compareUtf8 } from './utf8-order.js';

describe('compareUtf8 (Lucene BytesRef order)', () => {
  it('agrees with comparing the UTF-8 bytes', () => {
    const words = ['', 'a', 'ab', 'B', 'é', 'ｚ', '😀', '\uffff', '\ue000', 'a😀', 'aｚ', '𝄞', 'z'];
    for (const a of words) {
      for (const b of words) {
        expect(Math.sign(compareUtf8(a, b))).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
      }
    }
  });
  it('differs from UTF-16 code unit order above U+E000', () => {
    expect('😀' < 'ｚ').toBe(true);
    expect(compareUtf8('😀', 'ｚ')).toBeGreaterThan(0);
  });
});
