/**
 * The per-segment join structure: for every parent id of a `<join>#<parent>` field (its term ordinals in
 * the segment), the document of that parent itself. Built once per immutable segment core and cached on it,
 * so it survives refreshes like global ordinals do; a join then costs a dictionary lookup per matching id.
 */
import { ordinalsReader, type DocValuesReader, type LeafReader, type LeafReaderContext, type SortedSetDocValues } from '@strata/core-engine';

interface SegmentParents {
  /** term ordinal → the last document of the parent relation with that id (-1: none in this segment) */
  lastParent: Int32Array;
  /** ordinals with more than one such document (older deleted versions): resolved by liveness */
  multi: Set<number>;
}

const cache = new WeakMap<object, Map<string, SegmentParents | null>>();

/** one per-doc reader of keyword doc values (block by block on disk) per doc-values object */
const readers = new WeakMap<SortedSetDocValues, DocValuesReader<Uint32Array>>();
function readerOf(dv: SortedSetDocValues): DocValuesReader<Uint32Array> {
  let rd = readers.get(dv);
  if (!rd) readers.set(dv, (rd = ordinalsReader(dv)));
  return rd;
}

/** the first ordinal of doc `d`, -1 when it has none */
function firstOrd(dv: SortedSetDocValues, d: number): number {
  const rd = readerOf(dv);
  return rd.advance(d) > 0 ? rd.value(0) : -1;
}

/** the segment-local ordinal of a relation name in the join field's doc values, -1 when absent */
export function relationOrd(dv: SortedSetDocValues | null, relation: string): number {
  if (!dv) return -1;
  let lo = 0;
  let hi = dv.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const t = dv.terms[mid]!;
    if (t < relation) lo = mid + 1;
    else if (t > relation) hi = mid - 1;
    else return mid;
  }
  return -1;
}

/** true when doc `d` has relation ordinal `ord` in the join field's doc values */
export function hasRelation(dv: SortedSetDocValues, d: number, ord: number): boolean {
  return ord >= 0 && firstOrd(dv, d) === ord;
}

function build(reader: LeafReader, joinField: string, idField: string, parentType: string): SegmentParents | null {
  const dict = reader.terms(idField);
  const rel = reader.sortedSetDocValues(joinField);
  const ro = relationOrd(rel, parentType);
  if (!dict || !rel || ro < 0) return null;
  const lastParent = new Int32Array(dict.size).fill(-1);
  const multi = new Set<number>();
  for (let o = 0; o < dict.size; o++) {
    const docs = dict.postings(o).docs;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (!hasRelation(rel, d, ro)) continue;
      if (lastParent[o]! >= 0) multi.add(o);
      lastParent[o] = d;
    }
  }
  return { lastParent, multi };
}

function segmentParents(reader: LeafReader, joinField: string, parentType: string): SegmentParents | null {
  const key = reader.coreCacheKey ?? reader;
  let m = cache.get(key);
  if (!m) cache.set(key, (m = new Map()));
  const idField = `${joinField}#${parentType}`;
  let sp = m.get(idField);
  if (sp === undefined) m.set(idField, (sp = build(reader, joinField, idField, parentType)));
  return sp;
}

/** the live document of parent `id` (relation `parentType`) in this leaf, or -1 */
export function parentDoc(leaf: LeafReaderContext, joinField: string, parentType: string, id: string): number {
  const r = leaf.reader;
  const sp = segmentParents(r, joinField, parentType);
  if (!sp) return -1;
  const dict = r.terms(`${joinField}#${parentType}`)!;
  const o = dict.ord(id);
  if (o < 0) return -1;
  const d = sp.lastParent[o]!;
  if (d < 0) return -1;
  if (r.isLive(d)) return d;
  if (!sp.multi.has(o)) return -1;
  const rel = r.sortedSetDocValues(joinField)!;
  const ro = relationOrd(rel, parentType);
  const docs = dict.postings(o).docs;
  for (let i = docs.length - 1; i >= 0; i--) {
    const x = docs[i]!;
    if (r.isLive(x) && hasRelation(rel, x, ro)) return x;
  }
  return -1;
}

/**
 * The live documents in this leaf whose `idField` holds `id` and whose relation is one of `relationOrds`
 * (the children of a parent, when `idField` is the parent's `<join>#<parent>` field), ascending.
 */
export function docsWithId(leaf: LeafReaderContext, idField: string, id: string, rel: SortedSetDocValues | null, relationOrds: readonly number[]): Uint32Array | number[] {
  const r = leaf.reader;
  const dict = r.terms(idField);
  if (!dict || !rel) return [];
  const o = dict.ord(id);
  if (o < 0) return [];
  const docs = dict.postings(o).docs;
  const out: number[] = [];
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i]!;
    if (!r.isLive(d)) continue;
    const o = firstOrd(rel, d);
    if (o >= 0 && relationOrds.includes(o)) out.push(d);
  }
  return out;
}

/** the value of a single-valued keyword doc-values field for a doc (undefined when none) */
export function keywordValue(dv: SortedSetDocValues | null, d: number): string | undefined {
  if (!dv) return undefined;
  const o = firstOrd(dv, d);
  return o >= 0 ? dv.terms[o] : undefined;
}
