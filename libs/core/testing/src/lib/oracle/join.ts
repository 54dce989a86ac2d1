/**
 * Parent/child documents in the oracle (for hosts with the join-queries feature, `runOracle({ join: true })`):
 * a `rel` join field with the relation `p` → `c`; a document's role follows from its id (ids below 8 are
 * parents, the others children of `id % 8`), so it never changes through overwrites and partial updates,
 * and every write of a child carries its parent's id as routing, as Elasticsearch requires.
 */
import type { Json, ModelDoc } from './model.js';

export const JOIN_FIELD = 'rel';
export const JOIN_PARENT = 'p';
export const JOIN_CHILD = 'c';
export const JOIN_PARENTS = 8;

/** the join field value of document `id` */
export function joinValue(id: string): string | Json {
  const n = Number(id);
  return n < JOIN_PARENTS ? JOIN_PARENT : { name: JOIN_CHILD, parent: String(n % JOIN_PARENTS) };
}

/** the routing of document `id` (children go with their parent) */
export function joinRouting(id: string): string | undefined {
  const n = Number(id);
  return n < JOIN_PARENTS ? undefined : String(n % JOIN_PARENTS);
}

export function isParentDoc(doc: ModelDoc): boolean {
  return doc.source[JOIN_FIELD] === JOIN_PARENT;
}

/** the parent id of a child document, undefined for any other document */
export function parentIdOf(doc: ModelDoc): string | undefined {
  const v = doc.source[JOIN_FIELD];
  return v !== null && typeof v === 'object' && (v as Json)['name'] === JOIN_CHILD ? String((v as Json)['parent']) : undefined;
}
