/**
 * `StringIds` (growable-columns.ts, an open-addressing table of its own) numbers strings exactly as a `Map` does:
 * first seen, first numbered; equal strings one id, different strings (however alike, whatever their hashes)
 * different ids; across its growth, a clear, a clone.
 */
import fc from 'fast-check';
import { seededRandom } from '@strata/core-common';
import { StringIds, stringHash } from './growable-columns.js';

/** the model: a Map numbering strings in first-seen order */
class ModelTable {
  ids = new Map<string, number>();
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) this.ids.set(s, (id = this.ids.size));
    return id;
  }
}

describe('StringIds', () => {
  it('numbers strings as a Map does, through many doublings of its slots', () => {
    const t = new StringIds();
    const m = new ModelTable();
    // 200,000 distinct strings: the slots double from 16 to 524,288; then every 7th again, from fresh copies
    const wrong: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const s = `w${i.toString(36)}`;
      const [got, want] = [t.id(s), m.id(s)];
      if (got !== want) wrong.push(`${s}: ${got}, not ${want}`);
    }
    for (let i = 0; i < 200_000; i += 7) {
      const s = ['w', i.toString(36)].join('');
      const [got, found] = [t.id(s), t.get(s)];
      if (got !== i || found !== i) wrong.push(`${s} again: ${got} / ${found}, not ${i}`);
    }
    expect(wrong.slice(0, 5)).toEqual([]);
    expect(t.size).toBe(200_000);
    expect(t.get('absent')).toBe(-1);
    expect(t.strings.slice(199_998)).toEqual([`w${(199_998).toString(36)}`, `w${(199_999).toString(36)}`]);
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
    const t = new StringIds();
    const m = new ModelTable();
    for (const [a, b] of pairs) {
      expect(stringHash(a)).toBe(stringHash(b));
      expect(t.id(a)).toBe(m.id(a));
      // its twin of equal hash is not found in its place
      expect(t.get(b)).toBe(-1);
      for (const s of [b, a, b]) expect(t.id(s)).toBe(m.id(s));
      expect([t.get(a), t.get(b)]).toEqual([m.ids.get(a), m.ids.get(b)]);
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
          const t = new StringIds();
          const m = new ModelTable();
          for (const s of strings) if (t.id(s) !== m.id(s)) return false;
          return t.size === m.ids.size && t.strings.every((s, i) => m.ids.get(s) === i && t.get(s) === i);
        },
      ),
      { seed: 1501, numRuns: 300 },
    );
  });

  it('clears, clones and is built from distinct strings', () => {
    const t = StringIds.of(['b', 'a', 'c']);
    expect([t.get('a'), t.get('b'), t.get('c'), t.size]).toEqual([1, 0, 2, 3]);
    const c = t.clone();
    expect(c.id('d')).toBe(3);
    // the clone is a table of its own
    expect([t.get('d'), t.size, c.size, c.get('b')]).toEqual([-1, 3, 4, 0]);
    t.clear();
    expect([t.size, t.get('a'), t.id('c'), t.id('a')]).toEqual([0, -1, 0, 1]);
    expect(c.strings).toEqual(['b', 'a', 'c', 'd']);
  });
});
