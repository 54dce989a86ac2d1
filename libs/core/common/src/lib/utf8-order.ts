/**
 * Lucene compares terms as UTF-8 bytes (BytesRef), which is Unicode code point order. JavaScript's `<`
 * compares UTF-16 code units, which disagrees for characters U+E000..U+FFFF against supplementary ones
 * (surrogate pairs, U+10000 and up): '😀' < 'ｚ' in UTF-16 but 'ｚ' < '😀' in UTF-8.
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // move surrogates above U+E000..U+FFFF: code unit order then equals code point order
    if (x >= 0xd800) x += x >= 0xe000 ? -0x800 : 0x2000;
    if (y >= 0xd800) y += y >= 0xe000 ? -0x800 : 0x2000;
    return x - y;
  }
  return a.length - b.length;
}
