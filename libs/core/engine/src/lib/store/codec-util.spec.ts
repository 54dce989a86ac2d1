/**
 * The string encoders of the segment files: bytes exactly as a TextEncoder would give them (the files written
 * before the ASCII fast path must stay byte-identical), and blocks that read back to the same strings.
 */
import { ByteReader, ByteWriter, readStringBlock, writeStringBlock } from './codec-util.js';

const enc = new TextEncoder();

function expectedUtf8From(s: string, from: number): number[] {
  const bytes = enc.encode(s.slice(from));
  const w = new ByteWriter(16);
  w.vint(bytes.length);
  return [...w.result(), ...bytes];
}

describe('ByteWriter.utf8From', () => {
  it.each([
    ['', 0],
    ['timeout', 0],
    ['timeout', 4],
    ['timeout', 7],
    ['café', 0],
    ['café', 2],
    ['naïve façade', 5],
    ['日本語のテキスト', 3],
    ['emoji 😀 here', 0],
    ['emoji 😀 here', 7],
    ['x'.repeat(300), 10],
  ])('writes %j from %i as its UTF-8 byte length and bytes', (s, from) => {
    const w = new ByteWriter(4);
    w.byte(0xaa);
    w.utf8From(s, from);
    expect([...w.result()]).toEqual([0xaa, ...expectedUtf8From(s, from)]);
  });
});

describe('writeStringBlock', () => {
  it('reads back every string, ASCII, non-ASCII and not well-formed ones, with shared prefixes', () => {
    const blocks = [
      ['apple', 'applesauce', 'application', 'banana', 'band', 'bandana'],
      ['café', 'cafés', 'cafétéria', 'zèbre'],
      ['a\ud800b', 'a\ud800c'],
      ['', 'a', 'ab', 'abc'],
    ];
    for (const strings of blocks) {
      const w = new ByteWriter(8);
      writeStringBlock(w, strings, 0, strings.length);
      const out: string[] = [];
      expect(readStringBlock(new ByteReader(w.result()), out)).toBe(strings.length);
      expect(out).toEqual(strings);
    }
  });
});
