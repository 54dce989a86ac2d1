/**
 * Lucene's Query → Weight → Scorer pipeline. A Query is an immutable description; createWeight binds it
 * to an IndexSearcher (shard-level statistics); a Weight yields one Scorer per leaf (segment).
 */
import type { LeafReaderContext } from '../index/leaf-reader.js';
import { DocIdSetIterator, NO_MORE_DOCS, type BulkMatcher, type FixedBitSet } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';

export abstract class Scorer extends DocIdSetIterator {
  /** score of the current doc (valid while positioned on a doc) */
  abstract score(): number;
  /** an upper bound of score() over every doc (Infinity when unknown) */
  maxScore(): number {
    return Infinity;
  }
  /**
   * an upper bound of score() for the current doc, known without computing the score (a collector whose
   * top hits are full skips scoring a doc that cannot enter them); maxScore() unless a scorer knows better
   */
  scoreBound(): number {
    return this.maxScore();
  }
  /** the least scoreBound() can give for a doc of this scorer (a collector compares it before asking for one) */
  minScoreBound(): number {
    return this.maxScore();
  }
  /**
   * from now on only docs scoring above minScore are collected: the scorer may skip docs that cannot
   * (Lucene's setMinCompetitiveScore); minScore only grows. Skipping is optional.
   */
  setMinCompetitiveScore(_minScore: number): void {
    // default: no skipping
  }
  /** whether nextBatch may be called now (a scorer that walks arrays it can score in tight loops) */
  canBatch(): boolean {
    return false;
  }
  /**
   * the next docs after docID() with their scores, in doc order, at most `max` of them written from index 0;
   * the scorer is left on the last one (nextDoc and advance go on from there); 0 once exhausted. The scores
   * are the very values score() gives. Only when canBatch() is true.
   */
  nextBatch(_docs: Int32Array, _scores: Float64Array, _max: number): number {
    throw new Error(`${this.constructor.name} does not score in batches`);
  }
}

export interface Explanation {
  value: number;
  description: string;
  details: Explanation[];
}

export interface Weight {
  readonly query: Query;
  /** null when nothing in this leaf can match */
  scorer(ctx: LeafReaderContext): Scorer | null;
  explain?(ctx: LeafReaderContext, doc: number): Explanation;
  /**
   * how many docs of the leaf match, deleted ones included, when that is known without iterating them
   * (Lucene's Weight#count); -1 when not
   */
  count?(ctx: LeafReaderContext): number;
}

export abstract class Query {
  /** needsScores=false lets clauses skip scoring work (filters, sorted searches without track_scores) */
  abstract createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight;
  /** returns a primitive query (multi-term expansion etc. may happen here); default: itself */
  rewrite(_searcher: IndexSearcher): Query {
    return this;
  }
  abstract toString(): string;
}

/** Wraps an iterator with a constant score. */
export class ConstantScoreScorer extends Scorer {
  constructor(
    private readonly it: DocIdSetIterator,
    private readonly constant: number,
  ) {
    super();
  }
  docID(): number {
    return this.it.docID();
  }
  nextDoc(): number {
    return this.it.nextDoc();
  }
  advance(target: number): number {
    return this.it.advance(target);
  }
  cost(): number {
    return this.it.cost();
  }
  override bitSet(): FixedBitSet | null {
    return this.it.bitSet();
  }
  override matcher(): ((doc: number) => boolean) | null {
    return this.it.matcher();
  }
  override bulkMatcher(): BulkMatcher | null {
    return this.it.bulkMatcher();
  }
  override docArray(): Uint32Array | null {
    return this.it.docArray();
  }
  score(): number {
    return this.constant;
  }
  override maxScore(): number {
    return this.constant;
  }
}

/** A weight whose leaf iterator comes from a function, scored with the boost. */
export class ConstantScoreWeight implements Weight {
  constructor(
    readonly query: Query,
    private readonly boost: number,
    private readonly iteratorFn: (ctx: LeafReaderContext) => DocIdSetIterator | null,
    private readonly countFn?: (ctx: LeafReaderContext) => number,
  ) {}
  count(ctx: LeafReaderContext): number {
    return this.countFn ? this.countFn(ctx) : -1;
  }
  scorer(ctx: LeafReaderContext): Scorer | null {
    const it = this.iteratorFn(ctx);
    if (!it) return null;
    return new ConstantScoreScorer(it, Math.fround(this.boost));
  }
  explain(ctx: LeafReaderContext, doc: number): Explanation {
    const s = this.scorer(ctx);
    if (s && s.advance(doc) === doc) return { value: s.score(), description: this.query.toString(), details: [] };
    return { value: 0, description: 'no match on required clause (' + this.query.toString() + ')', details: [] };
  }
}

export { NO_MORE_DOCS };
