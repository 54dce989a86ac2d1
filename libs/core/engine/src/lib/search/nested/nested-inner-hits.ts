/** inner_hits of a nested query: the matching objects of the path inside the hit's block. */
import type { DirectoryReader, LeafReader, LeafReaderContext } from '../../index/leaf-reader.js';
import type { InnerHitsDefinition } from '../inner-hits.js';
import type { Query } from '../query.js';
import type { SearchSource } from '../spi-search.js';
import type { NestedLookup } from '../../mapper/mapping.js';
import { NO_MORE_DOCS } from '../doc-id-set.js';
import { nestedPathDocs, parentDocs, rootDocs } from './nested-bitsets.js';

export class NestedInnerHitsDefinition implements InnerHitsDefinition {
  constructor(
    readonly name: string,
    readonly source: SearchSource,
    readonly query: Query,
    readonly nestedPath: string,
    /** the nested scope of the query (null: root documents); hits are documents of that scope */
    readonly parentPath: string | null,
    readonly children: readonly InnerHitsDefinition[],
  ) {}

  candidates(_reader: DirectoryReader, hit: { leaf: LeafReaderContext; doc: number }): number[] {
    const r = hit.leaf.reader;
    const children = nestedPathDocs(r, this.nestedPath);
    const parents = parentDocs(r, this.parentPath);
    if (!children || !parents || hit.doc === 0) return [];
    const out: number[] = [];
    for (let c = parents.prevSetBit(hit.doc - 1) + 1; c < hit.doc; c++) if (children.get(c)) out.push(hit.leaf.docBase + c);
    return out;
  }
}

/** `_nested` of a hit: the nested field (relative to the enclosing one) and the object's offset, outermost first */
export interface NestedIdentity {
  field: string;
  offset: number;
  _nested?: NestedIdentity;
}

/**
 * The identity of hidden doc `doc` of nested path `path`: at each level the offset is its position among the
 * objects of that field in its parent (the nested docs of the path between the parent's previous sibling scope
 * and the parent). `chain` lists the nested paths from the outermost to `path`.
 */
export function nestedIdentity(reader: LeafReader, doc: number, chain: readonly string[]): NestedIdentity | null {
  let cur = doc;
  let inner: NestedIdentity | undefined;
  for (let k = chain.length - 1; k >= 0; k--) {
    const path = chain[k]!;
    const parentPath = k > 0 ? chain[k - 1]! : null;
    const own = nestedPathDocs(reader, path);
    const parents = parentDocs(reader, parentPath);
    if (!own || !parents) return null;
    const parent = parents.nextSetBit(cur);
    const start = parents.prevSetBit(cur - 1) + 1;
    let offset = 0;
    for (let d = start; d < cur; d++) if (own.get(d)) offset++;
    const id: NestedIdentity = { field: parentPath === null ? path : path.substring(parentPath.length + 1), offset };
    if (inner) id._nested = inner;
    inner = id;
    cur = parent;
  }
  return inner ?? null;
}

/** the objects of `field` (a dotted path) in a parsed object: arrays flattened, non-objects skipped */
export function objectsAt(obj: unknown, field: string): Record<string, unknown>[] {
  let vals: unknown[] = [obj];
  for (const part of field.split('.')) {
    const next: unknown[] = [];
    for (const v of vals) {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) continue;
      const x = (v as Record<string, unknown>)[part];
      if (x !== undefined) next.push(x);
    }
    vals = next;
  }
  const out: Record<string, unknown>[] = [];
  const add = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(add);
    else if (v !== null && typeof v === 'object') out.push(v as Record<string, unknown>);
  };
  vals.forEach(add);
  return out;
}

/** the object a nested identity designates inside the root document's `_source`, or undefined */
export function nestedObject(rootSource: unknown, id: NestedIdentity): Record<string, unknown> | undefined {
  let cur: unknown = rootSource;
  for (let n: NestedIdentity | undefined = id; n; n = n._nested) {
    cur = objectsAt(cur, n.field)[n.offset];
    if (cur === undefined) return undefined;
  }
  return cur as Record<string, unknown>;
}

/** `{a: {b: obj}}` for path `a.b`: the object placed at its full path (for full-path `_source` filtering and `fields`) */
export function wrapAtPath(path: string, obj: unknown): Record<string, unknown> {
  const parts = path.split('.');
  let out: unknown = obj;
  for (let i = parts.length - 1; i >= 0; i--) out = { [parts[i]!]: out };
  return out as Record<string, unknown>;
}

/** the inverse of wrapAtPath ({} when the path is gone, e.g. filtered out) */
export function unwrapAtPath(path: string, wrapped: unknown): unknown {
  let cur: unknown = wrapped;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return {};
    cur = (cur as Record<string, unknown>)[p];
    if (cur === undefined) return {};
  }
  return cur;
}

/** the nested paths from the outermost down to `path` */
function nestedChain(path: string, lookup: NestedLookup | undefined): string[] {
  const chain: string[] = [];
  for (let p: string | null = path; p !== null; p = lookup?.get(p)?.parentPath ?? null) chain.unshift(p);
  return chain;
}

const decoder = new TextDecoder();

/**
 * `_nested` and the object of a nested hit (hidden doc `doc` of `path`), the object placed at its full path
 * (for full-path `_source` filtering and `fields`); `roots` caches parsed root sources per root doc.
 */
export function nestedHitSource(
  r: LeafReader,
  doc: number,
  path: string,
  lookup: NestedLookup | undefined,
  roots: Map<number, unknown>,
): { id: NestedIdentity | null; wrapped: unknown } {
  const id = nestedIdentity(r, doc, nestedChain(path, lookup));
  const root = rootDocs(r)?.nextSetBit(doc) ?? NO_MORE_DOCS;
  if (!id || root === NO_MORE_DOCS) return { id, wrapped: undefined };
  let parsedRoot = roots.get(root);
  if (parsedRoot === undefined) {
    const bytes = r.source(root);
    parsedRoot = bytes ? JSON.parse(decoder.decode(bytes)) : null;
    roots.set(root, parsedRoot);
  }
  const obj = parsedRoot === null ? undefined : nestedObject(parsedRoot, id);
  return { id, wrapped: obj === undefined ? undefined : wrapAtPath(path, obj) };
}
