/**
 * Block-join queries over nested documents (Lucene's join module): a nested object is a hidden document
 * stored right before its parent, so a parent's children are the documents between the previous parent and it.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { BitSetIterator, NO_MORE_DOCS, type FixedBitSet } from '../doc-id-set.js';
import type { IndexSearcher } from '../index-searcher.js';
import { ConstantScoreWeight, Query, Scorer, type Explanation, type Weight } from '../query.js';
import { hiddenDocs, nestedPathDocs, parentDocs } from './nested-bitsets.js';

/** how the scores of a parent's matching children make its score (Lucene ScoreMode) */
export type NestedScoreMode = 'avg' | 'sum' | 'min' | 'max' | 'none';

/** the hidden documents of one nested path (`_nested_path:<path>`), constant score */
export class NestedPathQuery extends Query {
  constructor(readonly path: string) {
    super();
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const bits = nestedPathDocs(ctx.reader, this.path);
      return bits ? new BitSetIterator(bits, bits.cardinality()) : null;
    });
  }
  toString(): string {
    return `_nested_path:${this.path}`;
  }
}

/** the inner query restricted to root documents (Elasticsearch filters every search this way when the mapping has nested fields) */
export class NonNestedDocsQuery extends Query {
  constructor(readonly inner: Query) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.inner.rewrite(searcher);
    return r === this.inner ? this : new NonNestedDocsQuery(r);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const w = searcher.createWeight(this.inner, needsScores, boost);
    return {
      query: this,
      scorer(ctx: LeafReaderContext): Scorer | null {
        const s = w.scorer(ctx);
        if (!s) return null;
        const hidden = hiddenDocs(ctx.reader);
        return hidden ? new SkipHiddenScorer(s, hidden) : s;
      },
      explain: w.explain ? (ctx, doc) => w.explain!(ctx, doc) : undefined,
    };
  }
  toString(): string {
    return `+${this.inner.toString()} #-_nested_path:*`;
  }
}

class SkipHiddenScorer extends Scorer {
  constructor(
    private readonly inner: Scorer,
    private readonly hidden: FixedBitSet,
  ) {
    super();
  }
  docID(): number {
    return this.inner.docID();
  }
  private skip(d: number): number {
    while (d !== NO_MORE_DOCS && this.hidden.get(d)) d = this.inner.nextDoc();
    return d;
  }
  nextDoc(): number {
    return this.skip(this.inner.nextDoc());
  }
  advance(target: number): number {
    return this.skip(this.inner.advance(target));
  }
  cost(): number {
    return this.inner.cost();
  }
  score(): number {
    return this.inner.score();
  }
}

/**
 * Matches the parents (root documents, or documents of the enclosing nested path) of the child documents the
 * child query matches; the parent's score combines its matching children's scores (Lucene ToParentBlockJoinQuery).
 * The child query must only match child documents (the nested query parser filters it on the nested path).
 */
export class ToParentBlockJoinQuery extends Query {
  constructor(
    readonly child: Query,
    /** the enclosing nested path whose documents are the parents; null: root documents */
    readonly parentPath: string | null,
    readonly scoreMode: NestedScoreMode,
    /** the nested path of the children (for toString / explanations) */
    readonly path: string,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.child.rewrite(searcher);
    return r === this.child ? this : new ToParentBlockJoinQuery(r, this.parentPath, this.scoreMode, this.path);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const scores = needsScores && this.scoreMode !== 'none';
    const childWeight = searcher.createWeight(this.child, scores, boost);
    const mode = this.scoreMode;
    const parentPath = this.parentPath;
    const modeName = { avg: 'Avg', sum: 'Total', min: 'Min', max: 'Max', none: 'None' }[this.scoreMode];
    const scorer = (ctx: LeafReaderContext): BlockJoinScorer | null => {
      const cs = childWeight.scorer(ctx);
      if (!cs) return null;
      const parents = parentDocs(ctx.reader, parentPath);
      if (!parents) return null;
      return new BlockJoinScorer(cs, parents, scores ? mode : 'none');
    };
    return {
      query: this,
      scorer,
      explain(ctx: LeafReaderContext, doc: number): Explanation {
        const s = scorer(ctx);
        if (!s || s.advance(doc) !== doc) return { value: 0, description: 'Not a match', details: [] };
        const parents = parentDocs(ctx.reader, parentPath)!;
        const start = parents.prevSetBit(doc - 1) + 1;
        let best: Explanation | null = null;
        for (let c = start; c < doc; c++) {
          const e = childWeight.explain?.(ctx, c);
          if (e && e.value > 0 && (best === null || e.value > best.value)) best = e;
        }
        return {
          value: s.score(),
          description: `Score based on ${s.freq} child docs in range from ${start} to ${doc - 1}, using score mode ${modeName}`,
          details: best ? [best] : [],
        };
      },
    };
  }
  toString(): string {
    return `ToParentBlockJoinQuery (${this.child.toString()})`;
  }
}

class BlockJoinScorer extends Scorer {
  private doc = -1;
  private scoreValue = 0;
  /** matching children of the current parent */
  freq = 0;
  constructor(
    private readonly child: Scorer,
    private readonly parents: FixedBitSet,
    private readonly mode: NestedScoreMode,
  ) {
    super();
  }
  docID(): number {
    return this.doc;
  }
  /** groups the children from `c` up to their parent */
  private collect(c: number): number {
    if (c === NO_MORE_DOCS) return (this.doc = NO_MORE_DOCS);
    const parent = this.parents.nextSetBit(c);
    if (parent === NO_MORE_DOCS) return (this.doc = NO_MORE_DOCS);
    // Lucene's check (e.g. a nested query on the path of the nested scope it is in)
    if (parent === c) {
      throw Errors.illegalState(`Child query must not match same docs with parent filter. Combine them as must clauses (+) to find a problem doc. docId=${c}, class ${this.child.constructor.name}`);
    }
    const mode = this.mode;
    const child = this.child;
    let score = mode === 'none' ? 0 : child.score();
    let freq = 1;
    for (c = child.nextDoc(); c < parent; c = child.nextDoc()) {
      freq++;
      if (mode === 'none') continue;
      const s = child.score();
      if (mode === 'min') score = Math.min(score, s);
      else if (mode === 'max') score = Math.max(score, s);
      else score += s;
    }
    if (mode === 'avg') score /= freq;
    this.scoreValue = Math.fround(score);
    this.freq = freq;
    return (this.doc = parent);
  }
  nextDoc(): number {
    let c = this.child.docID();
    if (c <= this.doc) c = this.child.nextDoc();
    return this.collect(c);
  }
  advance(target: number): number {
    const prevParent = target === 0 ? -1 : this.parents.prevSetBit(target - 1);
    let c = this.child.docID();
    if (c <= prevParent) c = this.child.advance(prevParent + 1);
    return this.collect(c);
  }
  cost(): number {
    return this.child.cost();
  }
  score(): number {
    return this.scoreValue;
  }
}
