/**
 * A parse thread's string table (packed-documents.ts `StringTable`, an open-addressing table of its own) numbers
 * strings exactly as a `Map` does: first seen, first numbered; equal strings one id, different strings (however
 * alike, whatever their hashes) different ids; across its growth and its new generations.
 */
import fc from 'fast-check';
import { seededRandom } from '@strata/core-common';
import { StringTable, stringHash } from './packed-documents.js';

/** the model: a Map numbering strings in first-seen order */
class ModelTable {
  ids = new Map<string, number>();
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.ids.size));
    return id;
  }
}

describe('StringTable', () => {
  it('numbers strings as a Map does, through many doublings of its slots', () => {
    const t = new StringTable(1);
    const m = new ModelTable();
    // 200,000 distinct strings: the slots double from 1,024 to 524,288; then every string again, from fresh copies
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const s = `w${i.toString(36)}`;
      const [got, want] = [t.id(s), m.id(s)];
      if (got !== want) wrong.push(`${s}: ${got}, not ${want}`);
    }
    for (let i = 0; i < 200_000; i += 7) {
      const s = ['w', i.toString(36)].join('');
      const got = t.id(s);
      if (got !== i) wrong.push(`${s} again: ${got}, not ${i}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(t.size).toBe(200_000);
    expect(t.since(199_998)).toEqual([`w${(199_998).toString(36)}`, `w${(199_999).toString(36)}`]);
  });

  it('tells apart different strings of equal hash', () => {
    // pairs of random strings with the same 32-bit hash (the birthday bound: ~10 pairs among 300,000 strings)
    const rnd = seededRandom(1502);
    const seen = new Map<number, string>();
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 300_000 && pairs.length < 3; i++) {
      const s = Math.floor(rnd() * 2 ** 48).toString(36);
      const h = stringHash(s);
      const o = seen.get(h);
      if (o !== undefined && o !== s) pairs.push([o, s]);
      else seen.set(h, s);
    }
    expect(pairs.length).toBe(3);
    const t = new StringTable(4);
    const m = new ModelTable();
    for (const [a, b] of pairs) {
      expect(stringHash(a)).toBe(stringHash(b));
      for (const s of [a, b, a, b]) expect(t.id(s)).toBe(m.id(s));
    }
    expect(t.size).toBe(6);
  });

  it('tells apart strings of one length and alike units (empty, unpaired surrogates, characters beyond the BMP, NUL)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constantFrom('', '\u0000', '\ud800', '\udc00', '😀', 'a\u0000', '\u0000a', 'ab', 'ba')), {
          maxLength: 400,
        }),
        (strings) => {
          const t = new StringTable(2);
          const m = new ModelTable();
          for (const s of strings) if (t.id(s) !== m.id(s)) return false;
          return t.size === m.ids.size && t.since(0).every((s, i) => m.ids.get(s) === i);
        },
      ),
      { seed: 1501, numRuns: 300 },
    );
  });

  it('starts a new generation (empty) when full, and numbers from 0 again', () => {
    const t = new StringTable(3, 5, 1000);
    const ids = ['a', 'b', 'c', 'd', 'e'].map((s) => t.id(s));
    expect(ids).toEqual([0, 1, 2, 3, 4]);
    t.startChunk();
    expect(t.generation).toBe(1);
    expect(t.size).toBe(0);
    expect([t.id('e'), t.id('a'), t.id('e')]).toEqual([0, 1, 0]);
    t.startChunk(true);
    expect(t.generation).toBe(2);
    expect([t.id('a'), t.id('z')]).toEqual([0, 1]);
  });
});
