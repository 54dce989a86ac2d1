import { BitSetIterator, FixedBitSet, NO_MORE_DOCS, SortedArrayIterator, type DocIdSetIterator } from './doc-id-set.js';
import { IndexSearcher } from './index-searcher.js';
import { PointRangeQuery } from './point-range-query.js';
import { ConstantScoreScorer, Scorer } from './query.js';
import { ConjunctionScorer } from './scorers.js';
import { fakeReader, type FakeDoc } from './testing/fake-index.js';

/** a scoring iterator over sorted docs whose score is a function of the doc (to check scores follow the doc) */
class ArrayScorer extends ConstantScoreScorer {
  constructor(docs: number[]) {
    super(new SortedArrayIterator(Uint32Array.from(docs)), 0);
  }
  override score(): number {
    return (this.docID() % 7) + 1;
  }
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomDocs(r: () => number, maxDoc: number, density: number): number[] {
  const out: number[] = [];
  for (let d = 0; d < maxDoc; d++) if (r() < density) out.push(d);
  return out;
}

function bitsOf(docs: number[], maxDoc: number): FixedBitSet {
  const b = new FixedBitSet(maxDoc);
  for (const d of docs) b.set(d);
  return b;
}

function drain(s: Scorer, advanceEvery = 0): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = 0;
  for (let d = s.nextDoc(); d !== NO_MORE_DOCS; ) {
    out.push([d, s.score()]);
    d = advanceEvery > 0 && ++i % advanceEvery === 0 ? s.advance(d + 5) : s.nextDoc();
  }
  return out;
}

describe('ConjunctionScorer with bit-set filters (membership tests instead of advancing)', () => {
  // densities chosen so the bit set is sometimes tested by membership (dense) and sometimes stays an
  // iterator (much sparser than the other clauses)
  const cases: Array<[number, number, number]> = [
    [0.05, 0.3, 0.5],
    [0.3, 0.01, 0.6],
    [0.2, 0.002, 0.9],
    [0.5, 0.5, 0.5],
  ];
  for (const [lead, filter, other] of cases) {
    it(`same docs and scores as plain leapfrogging (densities ${lead} / ${filter} / ${other})`, () => {
      const r = rng(Math.round(lead * 1000 + filter * 100 + other * 10));
      const maxDoc = 5000;
      const a = randomDocs(r, maxDoc, lead);
      const f = randomDocs(r, maxDoc, filter);
      const c = randomDocs(r, maxDoc, other);
      const fs = new Set(f);
      const cs = new Set(c);
      const expected = a.filter((d) => fs.has(d) && cs.has(d)).map((d): [number, number] => [d, Math.fround((d % 7) + 1 + ((d % 7) + 1))]);
      for (const advanceEvery of [0, 3]) {
        const make = (): Scorer => {
          const sa = new ArrayScorer(a);
          const sc = new ArrayScorer(c);
          const filterIt: DocIdSetIterator = new ConstantScoreScorer(new BitSetIterator(bitsOf(f, maxDoc), f.length), 0);
          return new ConjunctionScorer([sa, filterIt, sc], [sa, sc]);
        };
        const got = drain(make(), advanceEvery);
        if (advanceEvery === 0) expect(got).toEqual(expected);
        else {
          // with advances: every returned doc is a match, in order, and no match between them is skipped
          // except those an advance jumped over
          const ok = new Set(expected.map(([d]) => d));
          for (const [d, s] of got) {
            expect(ok.has(d)).toBe(true);
            expect(s).toBe(Math.fround(2 * ((d % 7) + 1)));
          }
          expect(got.map(([d]) => d)).toEqual([...got.map(([d]) => d)].sort((x, y) => x - y));
        }
      }
    });
  }

  it('two bit-set filters and one scoring clause', () => {
    const r = rng(7);
    const maxDoc = 3000;
    const a = randomDocs(r, maxDoc, 0.1);
    const f1 = randomDocs(r, maxDoc, 0.4);
    const f2 = randomDocs(r, maxDoc, 0.7);
    const s1 = new Set(f1);
    const s2 = new Set(f2);
    const sa = new ArrayScorer(a);
    const conj = new ConjunctionScorer(
      [new ConstantScoreScorer(new BitSetIterator(bitsOf(f1, maxDoc), f1.length), 0), sa, new BitSetIterator(bitsOf(f2, maxDoc), f2.length)],
      [sa],
    );
    expect(drain(conj).map(([d]) => d)).toEqual(a.filter((d) => s1.has(d) && s2.has(d)));
  });
});

describe('PointRangeQuery on one value', () => {
  it('iterates the docs of the value in place, each doc once even when it holds the value twice', () => {
    const docs: FakeDoc[] = Array.from({ length: 300 }, (_, i) => ({
      id: `d${i}`,
      num: { n: i % 5 === 0 ? [404, 404] : i % 3 === 0 ? [404, 7] : i % 2 === 0 ? 404 : 200 },
    }));
    const reader = fakeReader([docs.slice(0, 100), docs.slice(100)]);
    const w = new IndexSearcher(reader).createWeight(new PointRangeQuery('n', 404, 404), false, 1);
    const got: string[] = [];
    for (const leaf of reader.leaves) {
      const s = w.scorer(leaf);
      if (!s) continue;
      for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) got.push(leaf.reader.id(d));
    }
    const expected = docs.filter((_, i) => i % 5 === 0 || i % 3 === 0 || i % 2 === 0).map((d) => d.id);
    expect(got).toEqual(expected);
    const single = fakeReader([docs.filter((_, i) => i % 5 !== 0)]);
    const w2 = new IndexSearcher(single).createWeight(new PointRangeQuery('n', 404, 404), false, 1);
    const s2 = w2.scorer(single.leaves[0]!)!;
    expect(s2.bitSet()).toBeNull();
    const got2: string[] = [];
    for (let d = s2.nextDoc(); d !== NO_MORE_DOCS; d = s2.nextDoc()) got2.push(single.leaves[0]!.reader.id(d));
    expect(got2).toEqual(docs.filter((_, i) => i % 5 !== 0 && (i % 3 === 0 || i % 2 === 0)).map((d) => d.id));
  });
});
