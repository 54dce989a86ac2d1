/**
 * Phrase queries (exact and sloppy), including multi-phrase positions (several terms at one position, used
 * by match_phrase_prefix). Freq is the number of exact matches, or the sum of 1/(1+matchLength) for sloppy
 * matches (Lucene's SloppyPhraseMatcher), scored by BM25 with the summed idf of all terms.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, Postings } from '../index/leaf-reader.js';
import { DocIdSetBuilder, type DocIdSetIterator, NO_MORE_DOCS, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { Query, Scorer, type Weight } from './query.js';
import { ConjunctionScorer } from './scorers.js';
import { bm25Scorer, type BM25SimScorer } from './similarity/bm25.js';

/** one position of the phrase: its alternatives and its offset inside the phrase */
interface PositionSource {
  it: DocIdSetIterator;
  offset: number;
  /** positions of the current doc */
  positions(doc: number): Uint32Array;
}

function singleSource(field: string, p: Postings, offset: number): PositionSource {
  const it = new SortedArrayIterator(p.docs);
  return {
    it,
    offset,
    positions() {
      const pos = p.positions(it.index());
      if (!pos) throw Errors.illegalState(`field:[${field}] was indexed without position data; cannot run PhraseQuery`);
      return pos;
    },
  };
}

function multiSource(field: string, ps: Postings[], offset: number, maxDoc: number): PositionSource {
  const b = new DocIdSetBuilder(maxDoc);
  for (const p of ps) b.addAll(p.docs);
  const it = b.build();
  const cursors = ps.map(() => 0);
  return {
    it,
    offset,
    positions(doc: number) {
      const all: number[] = [];
      ps.forEach((p, k) => {
        let i = cursors[k]!;
        const docs = p.docs;
        while (i < docs.length && docs[i]! < doc) i++;
        cursors[k] = i;
        if (i < docs.length && docs[i] === doc) {
          const pos = p.positions(i);
          if (!pos) throw Errors.illegalState(`field:[${field}] was indexed without position data; cannot run PhraseQuery`);
          for (const x of pos) all.push(x);
        }
      });
      return Uint32Array.from(all).sort();
    },
  };
}

/** exact phrase freq: occurrences of source 0 at p such that source k has p - off0 + offk */
export function exactPhraseFreq(positions: Uint32Array[], offsets: number[]): number {
  let freq = 0;
  const ptr = positions.map(() => 0);
  const first = positions[0]!;
  outer: for (let i = 0; i < first.length; i++) {
    const start = first[i]! - offsets[0]!;
    for (let k = 1; k < positions.length; k++) {
      const want = start + offsets[k]!;
      const pk = positions[k]!;
      let j = ptr[k]!;
      while (j < pk.length && pk[j]! < want) j++;
      ptr[k] = j;
      if (j >= pk.length) break outer;
      if (pk[j] !== want) continue outer;
    }
    freq++;
  }
  return freq;
}

/** sloppy phrase freq: smallest windows over relative positions (position - offset) with spread <= slop */
export function sloppyPhraseFreq(positions: Uint32Array[], offsets: number[], slop: number): number {
  const n = positions.length;
  const ptr = new Array<number>(n).fill(0);
  let freq = 0;
  for (;;) {
    let min = Infinity;
    let max = -Infinity;
    let minK = -1;
    for (let k = 0; k < n; k++) {
      const pk = positions[k]!;
      if (ptr[k]! >= pk.length) return freq;
      const rel = pk[ptr[k]!]! - offsets[k]!;
      if (rel < min) {
        min = rel;
        minK = k;
      }
      if (rel > max) max = rel;
    }
    const matchLength = max - min;
    if (matchLength <= slop) freq += 1 / (1 + matchLength);
    ptr[minK]!++;
  }
}

class PhraseScorer extends Scorer {
  private readonly conj: ConjunctionScorer;
  private curFreq = 0;
  constructor(
    private readonly sources: PositionSource[],
    private readonly slop: number,
    private readonly sim: BM25SimScorer | null,
    private readonly norms: Uint8Array | null,
  ) {
    super();
    this.conj = new ConjunctionScorer(
      sources.map((s) => s.it),
      [],
    );
  }
  private offsets(): number[] {
    return this.sources.map((s) => s.offset);
  }
  private matches(doc: number): boolean {
    if (doc === NO_MORE_DOCS) return true;
    const pos = this.sources.map((s) => s.positions(doc));
    this.curFreq = this.slop === 0 ? exactPhraseFreq(pos, this.offsets()) : sloppyPhraseFreq(pos, this.offsets(), this.slop);
    return this.curFreq > 0;
  }
  docID(): number {
    return this.conj.docID();
  }
  nextDoc(): number {
    let d = this.conj.nextDoc();
    while (!this.matches(d)) d = this.conj.nextDoc();
    return d;
  }
  advance(target: number): number {
    let d = this.conj.advance(target);
    while (!this.matches(d)) d = this.conj.nextDoc();
    return d;
  }
  cost(): number {
    return this.conj.cost();
  }
  score(): number {
    if (!this.sim) return 0;
    const norm = this.norms ? this.norms[this.docID()]! : 1;
    return this.sim.score(Math.fround(this.curFreq), norm);
  }
}

/** terms[i] = alternatives at phrase position positions[i] */
export class PhraseQuery extends Query {
  readonly positions: number[];
  constructor(
    readonly field: string,
    readonly terms: string[][],
    positions?: number[],
    readonly slop = 0,
  ) {
    super();
    this.positions = positions ?? terms.map((_, i) => i);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const { field, terms, positions, slop } = this;
    let sim: BM25SimScorer | null = null;
    if (needsScores) {
      const dfs: number[] = [];
      for (const alts of terms) for (const t of alts) dfs.push(searcher.termStatistics(field, t).docFreq);
      sim = bm25Scorer(boost, searcher.collectionStatistics(field), dfs);
    }
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const sources: PositionSource[] = [];
        for (let i = 0; i < terms.length; i++) {
          const ps = terms[i]!.map((t) => ctx.reader.postings(field, t)).filter((p): p is Postings => !!p && p.docFreq > 0);
          if (ps.length === 0) return null;
          sources.push(ps.length === 1 ? singleSource(field, ps[0]!, positions[i]!) : multiSource(field, ps, positions[i]!, ctx.reader.maxDoc));
        }
        return new PhraseScorer(sources, slop, sim, ctx.reader.norms(field));
      },
    };
  }
  toString(): string {
    const t = this.terms.map((a) => (a.length === 1 ? a[0] : `(${a.join(' ')})`)).join(' ');
    return `${this.field}:"${t}"${this.slop ? '~' + this.slop : ''}`;
  }
}

/**
 * match_phrase_prefix: a phrase whose last position expands to the first `maxExpansions` terms
 * (in term order over the shard) starting with the last term.
 */
export class PhrasePrefixQuery extends Query {
  constructor(
    readonly field: string,
    readonly terms: string[][],
    readonly positions: number[],
    readonly slop = 0,
    readonly maxExpansions = 50,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const last = this.terms[this.terms.length - 1]!;
    const expanded = new Set<string>();
    for (const prefix of last) {
      for (const leaf of searcher.leaves) {
        const dict = leaf.reader.terms(this.field);
        if (!dict) continue;
        for (let o = dict.seekCeil(prefix); o < dict.size; o++) {
          const t = dict.term(o);
          if (!t.startsWith(prefix)) break;
          expanded.add(t);
        }
      }
    }
    const exp = [...expanded].sort().slice(0, this.maxExpansions);
    if (exp.length === 0) return new NoMatch();
    return new PhraseQuery(this.field, [...this.terms.slice(0, -1), exp], this.positions, this.slop);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    return this.rewrite(searcher).createWeight(searcher, needsScores, boost);
  }
  toString(): string {
    return `${this.field}:"${this.terms.map((a) => a.join('|')).join(' ')}*"`;
  }
}

class NoMatch extends Query {
  createWeight(): Weight {
    return { query: this, scorer: () => null };
  }
  toString(): string {
    return 'MatchNoDocsQuery("no expansions")';
  }
}
