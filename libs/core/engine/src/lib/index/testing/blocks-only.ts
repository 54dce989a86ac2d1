/**
 * Test support: doc values the way a segment on disk offers them — blocks of `blockSize` values (and of
 * per-doc counts; single-valued when every doc has exactly one value) — with the whole-column accessors throwing, so a test proves a reader of doc values goes
 * block by block (index/doc-values-reader.ts) and answers the same.
 */
import type { DirectoryReader, DocBlocks, LeafReader, LeafReaderContext, NumberBlocks, NumericDocValues, SortedSetDocValues } from '../leaf-reader.js';

export function wholeColumnRead(): never {
  throw new Error('a whole doc-values column was read (blocks expected)');
}

function docBlocks<T extends Float64Array | Uint32Array>(offsets: Uint32Array, values: T, blockSize: number): DocBlocks<T> {
  const maxDoc = offsets.length - 1;
  const single = offsets[maxDoc] === maxDoc && offsets.every((o, i) => o === i);
  const chunks = <U extends Float64Array | Uint32Array>(a: U): NumberBlocks<U> => ({
    size: a.length,
    blockSize,
    numBlocks: Math.ceil(a.length / blockSize),
    min: (b) => Math.min(...a.subarray(b * blockSize, (b + 1) * blockSize)),
    max: (b) => Math.max(...a.subarray(b * blockSize, (b + 1) * blockSize)),
    block: (b) => a.subarray(b * blockSize, (b + 1) * blockSize) as U,
  });
  const counts = new Uint32Array(maxDoc);
  for (let d = 0; d < maxDoc; d++) counts[d] = offsets[d + 1]! - offsets[d]!;
  return { values: chunks(values), counts: single ? null : chunks(counts), countStart: (b) => offsets[b * blockSize]! };
}

/** numeric doc values readable only block by block */
export function blocksOnlyNumeric(offsets: Uint32Array, values: Float64Array, blockSize: number): NumericDocValues {
  const b = docBlocks(offsets, values, blockSize);
  return { docBlocks: b, singleValued: b.counts === null, get offsets(): Uint32Array { return wholeColumnRead(); }, get values(): Float64Array { return wholeColumnRead(); } };
}

/** keyword doc values readable only block by block */
export function blocksOnlySortedSet(offsets: Uint32Array, ords: Uint32Array, terms: readonly string[], blockSize: number): SortedSetDocValues {
  const b = docBlocks(offsets, ords, blockSize);
  return { docBlocks: b, singleValued: b.counts === null, terms, get offsets(): Uint32Array { return wholeColumnRead(); }, get ords(): Uint32Array { return wholeColumnRead(); } };
}

/** a leaf whose doc values are readable only block by block (everything else delegates to `reader`) */
export function blocksOnlyLeaf(reader: LeafReader, blockSize: number): LeafReader {
  const num = new Map<string, NumericDocValues | null>();
  const ss = new Map<string, SortedSetDocValues | null>();
  const leaf = Object.create(reader) as LeafReader;
  Object.assign(leaf, {
    numericDocValues(field: string): NumericDocValues | null {
      if (!num.has(field)) {
        const dv = reader.numericDocValues(field);
        num.set(field, dv && blocksOnlyNumeric(dv.offsets, dv.values, blockSize));
      }
      return num.get(field)!;
    },
    sortedSetDocValues(field: string): SortedSetDocValues | null {
      if (!ss.has(field)) {
        const dv = reader.sortedSetDocValues(field);
        ss.set(field, dv && blocksOnlySortedSet(dv.offsets, dv.ords, dv.terms, blockSize));
      }
      return ss.get(field)!;
    },
  });
  return leaf;
}

/** a point-in-time reader whose leaves read doc values only block by block */
export function blocksOnlyReader(reader: DirectoryReader, blockSize: number): DirectoryReader {
  const leaves: LeafReaderContext[] = reader.leaves.map((l) => ({ reader: blocksOnlyLeaf(l.reader, blockSize), docBase: l.docBase, ord: l.ord }));
  const out = Object.create(reader) as DirectoryReader;
  Object.defineProperty(out, 'leaves', { value: leaves });
  return out;
}
