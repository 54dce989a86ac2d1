/**
 * has_child and has_parent as Lucene-style joins over the parent id fields (`<join>#<parent>`): the inner
 * query runs once per shard search, its matches are grouped by parent id, and each segment resolves only those
 * ids through its cached dictionary (parent-index.ts), so the cost follows the matching documents.
 */
import {
  NO_MORE_DOCS,
  Query,
  Scorer,
  type Explanation,
  type IndexSearcher,
  type LeafReaderContext,
  type Weight,
} from '@strata/core-engine';
import { docsWithId, keywordValue, parentDoc, relationOrd } from './parent-index.js';

export type ChildScoreMode = 'none' | 'avg' | 'sum' | 'min' | 'max';

/** a scorer over precomputed (doc, score) pairs, docs ascending */
export class ArrayScorer extends Scorer {
  private i = -1;
  constructor(
    private readonly docs: Int32Array,
    private readonly scores: Float64Array,
  ) {
    super();
  }
  docID(): number {
    return this.i < 0 ? -1 : this.i < this.docs.length ? this.docs[this.i]! : NO_MORE_DOCS;
  }
  nextDoc(): number {
    this.i++;
    return this.docID();
  }
  advance(target: number): number {
    let i = Math.max(this.i, 0);
    while (i < this.docs.length && this.docs[i]! < target) i++;
    this.i = i;
    return this.docID();
  }
  cost(): number {
    return this.docs.length;
  }
  score(): number {
    return this.scores[this.i]!;
  }
}

/**
 * (doc, score) pairs (docs distinct) as a scorer in doc order; null when empty. Many matches (at least 1/16
 * of the segment) are placed by doc id in one pass, few are sorted.
 */
function scorerOf(docs: number[], scores: number[], maxDoc: number): Scorer | null {
  const n = docs.length;
  if (n === 0) return null;
  if (n * 16 >= maxDoc) {
    const byDoc = new Float64Array(maxDoc).fill(NaN);
    for (let i = 0; i < n; i++) byDoc[docs[i]!] = scores[i]!;
    const outDocs = new Int32Array(n);
    const outScores = new Float64Array(n);
    let w = 0;
    for (let d = 0; d < maxDoc; d++) {
      const s = byDoc[d]!;
      if (s === s) {
        outDocs[w] = d;
        outScores[w++] = s;
      }
    }
    return new ArrayScorer(outDocs, outScores);
  }
  const order = docs.map((_, i) => i).sort((a, b) => docs[a]! - docs[b]!);
  return new ArrayScorer(Int32Array.from(order, (i) => docs[i]!), Float64Array.from(order, (i) => scores[i]!));
}

function explainFrom(w: Weight, ctx: LeafReaderContext, doc: number, what: string): Explanation {
  const s = w.scorer(ctx);
  if (s && s.advance(doc) === doc) return { value: s.score(), description: what, details: [] };
  return { value: 0, description: `no match on ${what}`, details: [] };
}

interface ChildAcc {
  score: number;
  count: number;
}

/** parents (of relation `parentType`) of the children matching `childQuery` (already filtered on the child type) */
export class HasChildQuery extends Query {
  constructor(
    readonly childQuery: Query,
    readonly joinField: string,
    readonly parentType: string,
    readonly scoreMode: ChildScoreMode,
    readonly minChildren: number,
    readonly maxChildren: number,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.childQuery.rewrite(searcher);
    return r === this.childQuery ? this : new HasChildQuery(r, this.joinField, this.parentType, this.scoreMode, this.minChildren, this.maxChildren);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const mode = this.scoreMode;
    const scoring = needsScores && mode !== 'none';
    const w = searcher.createWeight(this.childQuery, scoring, 1);
    const idField = `${this.joinField}#${this.parentType}`;
    const f = Math.fround;
    // the matching children grouped by parent id (float accumulation, as Lucene's join collectors)
    const byParent = new Map<string, ChildAcc>();
    for (const leaf of searcher.leaves) {
      const s = w.scorer(leaf);
      if (!s) continue;
      const dv = leaf.reader.sortedSetDocValues(idField);
      if (!dv) continue;
      const r = leaf.reader;
      for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) {
        if (!r.isLive(d)) continue;
        const id = keywordValue(dv, d);
        if (id === undefined) continue;
        const sc = scoring ? s.score() : 0;
        const a = byParent.get(id);
        if (!a) byParent.set(id, { score: sc, count: 1 });
        else {
          a.count++;
          if (mode === 'sum' || mode === 'avg') a.score = f(a.score + sc);
          else if (mode === 'max') a.score = Math.max(a.score, sc);
          else if (mode === 'min') a.score = Math.min(a.score, sc);
        }
      }
    }
    const { joinField, parentType, minChildren, maxChildren } = this;
    const cb = f(boost);
    const scorer = (leaf: LeafReaderContext): Scorer | null => {
      const docs: number[] = [];
      const scores: number[] = [];
      for (const [id, a] of byParent) {
        if (a.count < minChildren || a.count > maxChildren) continue;
        const d = parentDoc(leaf, joinField, parentType, id);
        if (d < 0) continue;
        docs.push(d);
        if (!scoring) scores.push(cb);
        else scores.push(f((mode === 'avg' ? f(a.score / a.count) : a.score) * cb));
      }
      return scorerOf(docs, scores, leaf.reader.maxDoc);
    };
    return { query: this, scorer, explain: (ctx, doc) => explainFrom({ query: this, scorer }, ctx, doc, `A match, join value ${this.toString()}`) };
  }
  toString(): string {
    return `HasChildQuery(${this.childQuery.toString()})`;
  }
}

/** children (of relations `childTypes`) of the parents (relation `parentType`) matching `parentQuery` */
export class HasParentQuery extends Query {
  constructor(
    readonly parentQuery: Query,
    readonly joinField: string,
    readonly parentType: string,
    readonly childTypes: readonly string[],
    readonly score: boolean,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const r = this.parentQuery.rewrite(searcher);
    return r === this.parentQuery ? this : new HasParentQuery(r, this.joinField, this.parentType, this.childTypes, this.score);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    const scoring = needsScores && this.score;
    const w = searcher.createWeight(this.parentQuery, scoring, 1);
    const idField = `${this.joinField}#${this.parentType}`;
    const f = Math.fround;
    // the matching parents by id (a parent's own id is in its `<join>#<parent>` field)
    const parents = new Map<string, number>();
    for (const leaf of searcher.leaves) {
      const s = w.scorer(leaf);
      if (!s) continue;
      const dv = leaf.reader.sortedSetDocValues(idField);
      if (!dv) continue;
      for (let d = s.nextDoc(); d !== NO_MORE_DOCS; d = s.nextDoc()) {
        if (!leaf.reader.isLive(d)) continue;
        const id = keywordValue(dv, d);
        if (id !== undefined) parents.set(id, scoring ? Math.max(parents.get(id) ?? -Infinity, s.score()) : 0);
      }
    }
    const cb = f(boost);
    const { joinField, childTypes } = this;
    const scorer = (leaf: LeafReaderContext): Scorer | null => {
      const rel = leaf.reader.sortedSetDocValues(joinField);
      const ords = childTypes.map((t) => relationOrd(rel, t)).filter((o) => o >= 0);
      if (ords.length === 0) return null;
      const docs: number[] = [];
      const scores: number[] = [];
      for (const [id, sc] of parents) {
        const score = scoring ? f(sc * cb) : cb;
        for (const d of docsWithId(leaf, idField, id, rel, ords)) {
          docs.push(d);
          scores.push(score);
        }
      }
      return scorerOf(docs, scores, leaf.reader.maxDoc);
    };
    return { query: this, scorer, explain: (ctx, doc) => explainFrom({ query: this, scorer }, ctx, doc, `A match, join value ${this.toString()}`) };
  }
  toString(): string {
    return `HasParentQuery(${this.parentQuery.toString()})`;
  }
}
