/**
 * inner_hits of has_child (the matching children of each parent hit) and has_parent (the matching parent of
 * each child hit), on the engine's shared inner hits machinery (ES ParentChildInnerHitContextBuilder).
 */
import type { DirectoryReader, InnerHitsDefinition, LeafReaderContext, Query, SearchSource } from '@strata/core-engine';
import type { Joiner } from './joiner.js';
import { docsWithId, keywordValue, parentDoc, relationOrd } from './parent-index.js';

export class ParentChildInnerHits implements InnerHitsDefinition {
  constructor(
    readonly name: string,
    readonly source: SearchSource,
    /** the has_child / has_parent inner query, filtered on its relation */
    readonly query: Query,
    private readonly joiner: Joiner,
    /** children: the hits are parents, inner hits their children; parent: the other way round */
    private readonly direction: 'children' | 'parent',
    /** the relation of the inner hits */
    private readonly relation: string,
    /** the parent relation of the join between them */
    private readonly parentType: string,
    readonly children: readonly InnerHitsDefinition[],
  ) {}

  candidates(reader: DirectoryReader, hit: { leaf: LeafReaderContext; doc: number }): number[] {
    const idField = `${this.joiner.field}#${this.parentType}`;
    // a parent's own id and a child's parent id are both in the parent relation's id field
    const id = keywordValue(hit.leaf.reader.sortedSetDocValues(idField), hit.doc);
    if (id === undefined) return [];
    const out: number[] = [];
    for (const leaf of reader.leaves) {
      if (this.direction === 'parent') {
        const d = parentDoc(leaf, this.joiner.field, this.parentType, id);
        if (d >= 0) out.push(leaf.docBase + d);
      } else {
        const rel = leaf.reader.sortedSetDocValues(this.joiner.field);
        const ord = relationOrd(rel, this.relation);
        if (ord < 0) continue;
        for (const d of docsWithId(leaf, idField, id, rel, [ord])) out.push(leaf.docBase + d);
      }
    }
    return out;
  }
}
