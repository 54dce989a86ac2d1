import { seededRandom } from '@strata/core-common';
import { BitSetIterator, FixedBitSet, NO_MORE_DOCS, SortedArrayIterator, type DocIdSetIterator } from './doc-id-set.js';
import { IndexSearcher } from './index-searcher.js';
import { PointRangeQuery } from './point-range-query.js';
import { ConstantScoreScorer, Scorer } from './query.js';
import { ConjunctionScorer } from './scorers.js';
import { BooleanQuery } from './boolean-query.js';
import { TermQuery } from './term-query.js';
import { fakeReader, type FakeDoc } from './testing/fake-index.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SegmentBuilder } from '../index/segment-builder.js';
import { MemorySegment, SegmentReader } from '../index/segment.js';
import { DiskSegment, writeSegment } from '../index/disk-segment.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { BlockCache } from '../store/block-cache.js';

/** a scoring iterator over sorted docs whose score is a function of the doc (to check scores follow the doc) */
class ArrayScorer extends ConstantScoreScorer {
  constructor(docs: number[]) {
    super(new SortedArrayIterator(Uint32Array.from(docs)), 0);
  }
  override score(): number {
    return (this.docID() % 7) + 1;
  }
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
      const r = seededRandom(Math.round(lead * 1000 + filter * 100 + other * 10));
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
    const r = seededRandom(7);
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

describe('ConjunctionScorer in bulk (the lead walks an array, the other clauses are membership tests)', () => {
  // a bit set of a size similar to the lead's is tested, not led with (no leap-frog); the lead's docs are
  // filtered chunk by chunk (several chunks of 512 here) and the lead is positioned on each match for its score
  for (const [lead, filter, filter2] of [
    [0.3, 0.2, 0],
    [0.2, 0.35, 0.6],
    [0.05, 0.9, 0],
    [0.6, 0.01, 0],
  ] as const) {
    it(`same docs and scores as the doc-by-doc conjunction, with nextDoc and advance (densities ${lead} / ${filter} / ${filter2})`, () => {
      const r = seededRandom(Math.round(lead * 1000 + filter * 100 + filter2 * 10) + 1);
      const maxDoc = 20000;
      const a = randomDocs(r, maxDoc, lead);
      const f = randomDocs(r, maxDoc, filter);
      const f2 = filter2 > 0 ? randomDocs(r, maxDoc, filter2) : null;
      const fs1 = new Set(f);
      const fs2 = f2 ? new Set(f2) : null;
      const expected = a.filter((d) => fs1.has(d) && (fs2 === null || fs2.has(d)));
      const make = (): ConjunctionScorer => {
        const sa = new ArrayScorer(a);
        const its: DocIdSetIterator[] = [new ConstantScoreScorer(new BitSetIterator(bitsOf(f, maxDoc), f.length), 0), sa];
        if (f2) its.push(new BitSetIterator(bitsOf(f2, maxDoc), f2.length));
        return new ConjunctionScorer(its, [sa]);
      };
      const probe = make() as unknown as { leadDocs: Uint32Array | null; bits: unknown[] };
      // (a bit set 8× sparser than the array leads instead)
      const bulk = 8 * f.length >= a.length;
      expect([probe.leadDocs !== null, probe.bits.length]).toEqual(bulk ? [true, f2 ? 2 : 1] : [false, f2 ? 1 : 0]);
      expect(drain(make())).toEqual(expected.map((d): [number, number] => [d, (d % 7) + 1]));
      for (const step of [1, 7, 700, 5000]) {
        // advance to targets on matches, between matches and past the end, mixed with nextDoc
        const s = make();
        const got: number[] = [];
        let d = s.nextDoc();
        let i = 0;
        while (d !== NO_MORE_DOCS) {
          got.push(d);
          expect(s.score()).toBe((d % 7) + 1);
          d = ++i % 2 === 0 ? s.advance(d + step) : s.nextDoc();
        }
        const want: number[] = [];
        let k = 0;
        let j = 0;
        while (k < expected.length) {
          want.push(expected[k]!);
          const target = ++j % 2 === 0 ? expected[k]! + step : expected[k]! + 1;
          while (k < expected.length && expected[k]! < target) k++;
        }
        expect(got).toEqual(want);
      }
      expect(make().advance(maxDoc + 1)).toBe(NO_MORE_DOCS);
    });
  }
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

  it('on disk, a value whose docs span several point blocks: iterated in place and counted without visiting its docs', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'point-term-'));
    try {
      const n = 10_000;
      // seg _0: one value per doc (404 on every other doc: 5,000 points over several 4,096-entry blocks);
      // seg _1: the same, but some docs hold 404 twice (the count is then unknown, iteration dedups)
      const value = (seg: number, i: number): unknown => (i % 2 === 0 ? (seg === 1 && i % 998 === 0 ? [404, 404] : 404) : i % 4 === 1 ? 200 : [500, 201]);
      for (const seg of [0, 1]) {
        const b = new SegmentBuilder();
        for (let i = 0; i < n; i++) b.add(simpleParse({ n: value(seg, i) }, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
        writeSegment(dir, new MemorySegment({ ...b.build(`_${seg}`).data, name: `_${seg}` }));
      }
      const cache = new BlockCache(8 << 20);
      for (const seg of [0, 1]) {
        const disk = new DiskSegment(dir, `_${seg}`, { cache });
        const leaf = { reader: new SegmentReader(disk, null, 0), docBase: 0, ord: 0 };
        const reader = { leaves: [leaf], maxDoc: n, numDocs: n, generation: 1, cacheKey: `pt${seg}`, mappingVersion: 1, incRef: () => undefined, decRef: () => undefined };
        const w = new IndexSearcher(reader).createWeight(new PointRangeQuery('n', 404, 404), false, 1);
        const s = w.scorer(leaf)!;
        const got: number[] = [];
        for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) got.push(d);
        const expected = Array.from({ length: n }, (_, i) => i).filter((i) => i % 2 === 0);
        expect(got).toEqual(expected);
        expect(w.count!(leaf)).toBe(seg === 0 ? expected.length : -1);
        if (seg === 0) {
          expect(w.scorer(leaf)!.bitSet()).toBeNull(); // in place, not through a bit set of maxDoc bits
          const a = w.scorer(leaf)!;
          expect(a.advance(4001)).toBe(4002);
          expect(a.advance(9_998)).toBe(9_998);
          expect(a.nextDoc()).toBe(NO_MORE_DOCS);
        }
        expect(new IndexSearcher(reader).createWeight(new PointRangeQuery('n', 405, 405), false, 1).count!(leaf)).toBe(0);
        disk.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('PointRangeQuery on one value, one value per doc', () => {
  it('on disk: the docs are read block by block as they are asked for (nextDoc, advance across blocks, all at once for a conjunction)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'point-one-'));
    try {
      const n = 20_000;
      // every doc holds one value: 404 on docs ≡ 0 or 3 mod 5 (8,000 points over several 4,096-entry blocks)
      const value = (i: number): number => (i % 5 === 0 || i % 5 === 3 ? 404 : 200 + (i % 7));
      const b = new SegmentBuilder();
      for (let i = 0; i < n; i++) b.add(simpleParse({ n: value(i), k: i % 9 === 0 ? 'nine' : 'other' }, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
      writeSegment(dir, new MemorySegment({ ...b.build('_0').data, name: '_0' }));
      const disk = new DiskSegment(dir, '_0', { cache: new BlockCache(8 << 20) });
      const leaf = { reader: new SegmentReader(disk, null, 0), docBase: 0, ord: 0 };
      expect(leaf.reader.numericDocValues('n')!.singleValued).toBe(true);
      const reader = { leaves: [leaf], maxDoc: n, numDocs: n, generation: 1, cacheKey: 'one', mappingVersion: 1, incRef: () => undefined, decRef: () => undefined };
      const w = new IndexSearcher(reader).createWeight(new PointRangeQuery('n', 404, 404), false, 1);
      const expected = Array.from({ length: n }, (_, i) => i).filter((i) => value(i) === 404);
      const all: number[] = [];
      const s = w.scorer(leaf)!;
      for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) all.push(d);
      expect(all).toEqual(expected);
      expect(w.count!(leaf)).toBe(expected.length);
      // advance to docs held, not held, at block ends and past the end, mixed with nextDoc
      for (const step of [1, 2, 3, 97, 4096, 5000]) {
        const a = w.scorer(leaf)!;
        const got: number[] = [];
        let i = 0;
        for (let d = a.nextDoc(); d !== NO_MORE_DOCS; d = ++i % 2 === 0 ? a.advance(d + step) : a.nextDoc()) got.push(d);
        const want: number[] = [];
        let j = 0;
        for (let k = 0; k < expected.length; ) {
          want.push(expected[k]!);
          const target = ++j % 2 === 0 ? expected[k]! + step : expected[k]! + 1;
          while (k < expected.length && expected[k]! < target) k++;
        }
        expect([step, got]).toEqual([step, want]);
      }
      expect(w.scorer(leaf)!.advance(n)).toBe(NO_MORE_DOCS);
      // a first advance to each doc held and to the doc after it (block boundaries included)
      const onDoc: number[] = [];
      const after: number[] = [];
      for (const d of expected) {
        onDoc.push(w.scorer(leaf)!.advance(d));
        after.push(w.scorer(leaf)!.advance(d + 1));
      }
      expect(onDoc).toEqual(expected);
      expect(after).toEqual([...expected.slice(1), NO_MORE_DOCS]);
      // unpositioned: every doc in one array (a conjunction leading with it filters them in bulk)
      expect(Array.from(w.scorer(leaf)!.docArray()!)).toEqual(expected);
      const conj = new IndexSearcher(reader).createWeight(
        new BooleanQuery([{ occur: 'filter', query: new PointRangeQuery('n', 404, 404) }, { occur: 'filter', query: new TermQuery('k', 'nine') }]),
        false,
        1,
      );
      const c = conj.scorer(leaf)!;
      const cgot: number[] = [];
      for (let d = c.nextDoc(); d !== NO_MORE_DOCS; d = c.nextDoc()) cgot.push(d);
      expect(cgot).toEqual(expected.filter((i) => i % 9 === 0));
      disk.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a range filter led by a far cheaper clause is checked on doc values (IndexOrDocValuesQuery)', () => {
  it('matches what iterating the range matches: single- and multi-valued, bound flags, on disk and in memory', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'range-dv-'));
    try {
      const n = 6000;
      // seg _0 one value per doc (doc values read block by block), seg _1 some docs with two values, none with none
      const vals = (seg: number, i: number): number[] => (seg === 1 && i % 3 === 0 ? [(i * 7) % 1000, (i * 13) % 1000] : seg === 1 && i % 11 === 0 ? [] : [(i * 7) % 1000]);
      const tag = (i: number): string => (i % 101 === 0 ? 'rare' : 'common');
      const leaves = [0, 1].map((seg) => {
        const b = new SegmentBuilder();
        for (let i = 0; i < n; i++) {
          const v = vals(seg, i);
          b.add(simpleParse(v.length ? { n: v.length === 1 ? v[0] : v, k: tag(i) } : { k: tag(i) }, `id${i}`), { seqNo: i, primaryTerm: 1, version: 1 });
        }
        writeSegment(dir, new MemorySegment({ ...b.build(`_${seg}`).data, name: `_${seg}` }));
        return new SegmentReader(new DiskSegment(dir, `_${seg}`, { cache: new BlockCache(8 << 20) }), null, 0);
      });
      const memory = fakeReader([
        Array.from({ length: 500 }, (_, i) => ({ id: `m${i}`, keyword: { k: tag(i) }, num: { n: vals(1, i).length === 1 ? vals(1, i)[0]! : vals(1, i) } })),
      ]);
      const ranges: Array<[number, number, boolean, boolean]> = [
        // bounds on values the rare docs hold (0, 707, 414, 121, 828, 535, 242, 949…), so the flags matter
        [121, 535, true, true],
        [121, 535, false, false],
        [414, 707, true, false],
        [-Infinity, 121, true, true],
        [828, Infinity, false, true],
      ];
      for (const [lo, hi, il, iu] of ranges) {
        const inRange = (v: number): boolean => (il ? v >= lo : v > lo) && (iu ? v <= hi : v < hi);
        const q = new BooleanQuery([
          { occur: 'filter', query: new TermQuery(memory.leaves.length ? 'k.keyword' : 'k', 'rare') },
          { occur: 'filter', query: new PointRangeQuery('n', lo, hi, il, iu) },
        ]);
        for (const seg of [0, 1]) {
          const leaf = { reader: leaves[seg]!, docBase: 0, ord: 0 };
          const reader = { leaves: [leaf], maxDoc: n, numDocs: n, generation: 1, cacheKey: `r${seg}`, mappingVersion: 1, incRef: () => undefined, decRef: () => undefined };
          const sc = new IndexSearcher(reader).createWeight(q, false, 1).scorer(leaf)!;
          expect([lo, hi, seg, (sc as unknown as { checks: unknown[] }).checks.length]).toEqual([lo, hi, seg, 1]); // the doc-values path ran
          const got: number[] = [];
          for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) got.push(d);
          const expected = Array.from({ length: n }, (_, i) => i).filter((i) => tag(i) === 'rare' && vals(seg, i).some(inRange));
          expect(got).toEqual(expected);
          expect(expected.length).toBeGreaterThan(0);
          // a term on one value counts its docs (seg _0: one doc value per doc, known without a scan)
          for (const v of [lo, hi]) {
            if (!Number.isFinite(v)) continue;
            const c = new IndexSearcher(reader).createWeight(new PointRangeQuery('n', v, v), false, 1).count!(leaf);
            const docsWith = Array.from({ length: n }, (_, i) => i).filter((i) => vals(seg, i).includes(v)).length;
            expect(c).toBe(seg === 0 || Array.from({ length: n }, (_, i) => vals(seg, i)).every((x) => x.filter((y) => y === v).length < 2) ? docsWith : -1);
          }
        }
        const mq = new BooleanQuery([
          { occur: 'filter', query: new TermQuery('k', 'rare') },
          { occur: 'filter', query: new PointRangeQuery('n', lo, hi, il, iu) },
        ]);
        const ml = memory.leaves[0]!;
        const msc = new IndexSearcher(memory).createWeight(mq, false, 1).scorer(ml);
        const mgot: string[] = [];
        if (msc) for (let d = msc.nextDoc(); d !== NO_MORE_DOCS; d = msc.nextDoc()) mgot.push(ml.reader.id(d));
        expect(mgot).toEqual(Array.from({ length: 500 }, (_, i) => i).filter((i) => tag(i) === 'rare' && vals(1, i).some(inRange)).map((i) => `m${i}`));
      }
      for (const l of leaves) l.data.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('scoring in batches (nextBatch) gives the docs and scores of nextDoc/score', () => {
  // random text over a skewed vocabulary: words repeat in a doc (freq > 1) and lengths vary (norms)
  const r = seededRandom(4242);
  const vocab = ['a', 'b', 'c', 'd', 'e'];
  const segment = (n: number, deleted: number): FakeDoc[] =>
    Array.from({ length: n }, (_, i) => {
      const words: string[] = [];
      const len = 1 + Math.floor(r() * 12);
      for (let j = 0; j < len; j++) words.push(vocab[Math.min(4, Math.floor(-Math.log2(1 - r() * 0.97)))]!);
      return { id: `d${i}`, text: { body: words.join(' ') }, num: { n: i % 10 }, deleted: r() < deleted };
    });
  const reader = fakeReader([segment(3000, 0), segment(1700, 0.1)]);
  const searcher = new IndexSearcher(reader);
  const term = (t: string): TermQuery => new TermQuery('body', t);
  const queries: Array<[string, BooleanQuery | TermQuery]> = [
    ['one term', term('b')],
    ['two terms', new BooleanQuery([{ occur: 'should', query: term('c') }, { occur: 'should', query: term('e') }])],
    ['three terms', new BooleanQuery(['a', 'd', 'e'].map((t) => ({ occur: 'should' as const, query: term(t) })))],
    ['a term and a range filter', new BooleanQuery([{ occur: 'must', query: term('c') }, { occur: 'filter', query: new PointRangeQuery('n', 3, 6) }])],
    ['filters only', new BooleanQuery([{ occur: 'filter', query: term('d') }, { occur: 'filter', query: new PointRangeQuery('n', 2, 8) }])],
    // sparse: the term's docs that pass are far apart (the lead's index is found by galloping)
    ['a common term and a narrow range filter', new BooleanQuery([{ occur: 'must', query: term('a') }, { occur: 'filter', query: new PointRangeQuery('n', 6, 7) }])],
    [
      'a common term and two range filters',
      new BooleanQuery([
        { occur: 'must', query: term('a') },
        { occur: 'filter', query: new PointRangeQuery('n', 1, 8) },
        { occur: 'filter', query: new PointRangeQuery('n', 4, 9) },
      ]),
    ],
  ];
  for (const [name, q] of queries) {
    it(`${name}: batches of several sizes mixed with nextDoc and advance`, () => {
      for (const leaf of reader.leaves) {
        const w = searcher.createWeight(q, true, 1);
        const want = drain(w.scorer(leaf)!);
        expect(want.length).toBeGreaterThan(20);
        expect(w.scorer(leaf)!.canBatch()).toBe(true);
        for (const size of [1, 7, 256]) {
          for (const mix of [0, 1, 2]) {
            const s = w.scorer(leaf)!;
            const got: Array<[number, number]> = [];
            const docs = new Int32Array(size);
            const scores = new Float64Array(size);
            for (let round = 0; ; round++) {
              // between batches: a nextDoc (mix 1) or an advance past a few docs (mix 2), scored one by one
              if (mix > 0 && round % 3 === 2) {
                const d = mix === 1 ? s.nextDoc() : s.advance(s.docID() + 4);
                if (d === NO_MORE_DOCS) break;
                got.push([d, s.score()]);
                continue;
              }
              const n = s.nextBatch(docs, scores, size);
              if (n === 0) break;
              expect(s.docID()).toBe(docs[n - 1]);
              // the scorer is left on the last doc: its score is the batch's
              expect(s.score()).toBe(scores[n - 1]);
              for (let i = 0; i < n; i++) got.push([docs[i]!, scores[i]!]);
            }
            expect(s.nextDoc()).toBe(NO_MORE_DOCS);
            if (mix === 2) {
              // advance skips docs: the docs seen are a subsequence of the doc-by-doc ones, each with its score
              const byDoc = new Map(want);
              for (const [d, sc] of got) expect(byDoc.get(d)).toBe(sc);
              expect(got.map(([d]) => d)).toEqual([...got.map(([d]) => d)].sort((x, y) => x - y));
            } else expect(got).toEqual(want);
          }
        }
      }
    });
  }
  it('a disjunction told a minimum competitive score (skipping) or requiring several clauses does not batch', () => {
    const leaf = reader.leaves[0]!;
    const two = searcher.createWeight(queries[1]![1], true, 1).scorer(leaf)!;
    expect(two.canBatch()).toBe(true);
    two.setMinCompetitiveScore(two.maxScore() * 0.75);
    expect(two.canBatch()).toBe(false);
    const msm = new BooleanQuery(['a', 'd', 'e'].map((t) => ({ occur: 'should' as const, query: term(t) })), 2);
    expect(searcher.createWeight(msm, true, 1).scorer(leaf)!.canBatch()).toBe(false);
  });
});
