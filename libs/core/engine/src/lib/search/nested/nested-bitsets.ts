/**
 * Per-segment bitsets of the nested block structure (Lucene's BitSetProducer over the `_nested_path` field),
 * cached on the segment core: the root documents and the hidden documents of each nested path.
 */
import type { LeafReader } from '../../index/leaf-reader.js';
import { hiddenDocBits, nestedPathBits, NESTED_PATH_FIELD } from '../../index/nested-blocks.js';
import { FixedBitSet } from '../doc-id-set.js';

const rootCache = new WeakMap<object, FixedBitSet | null>();
const pathCache = new WeakMap<object, Map<string, FixedBitSet | null>>();

function keyOf(reader: LeafReader): object {
  return reader.coreCacheKey ?? reader;
}

/** hidden nested documents of the segment (null: none, every document is a root document) */
export function hiddenDocs(reader: LeafReader): FixedBitSet | null {
  const words = hiddenDocBits(keyOf(reader), reader.terms(NESTED_PATH_FIELD), reader.maxDoc);
  return words ? new FixedBitSet(reader.maxDoc, words) : null;
}

/** the root documents of the segment as a bitset (null: the segment has no nested documents) */
export function rootDocs(reader: LeafReader): FixedBitSet | null {
  const key = keyOf(reader);
  const hit = rootCache.get(key);
  if (hit !== undefined) return hit;
  const hidden = hiddenDocBits(key, reader.terms(NESTED_PATH_FIELD), reader.maxDoc);
  let bits: FixedBitSet | null = null;
  if (hidden) {
    const maxDoc = reader.maxDoc;
    bits = new FixedBitSet(maxDoc);
    const w = bits.words;
    for (let i = 0; i < w.length; i++) w[i] = ~hidden[i]! >>> 0;
    const rem = maxDoc & 31;
    if (rem !== 0) w[w.length - 1]! &= (1 << rem) - 1;
  }
  rootCache.set(key, bits);
  return bits;
}

/** the hidden documents of one nested path (null: none in this segment) */
export function nestedPathDocs(reader: LeafReader, path: string): FixedBitSet | null {
  const key = keyOf(reader);
  let m = pathCache.get(key);
  if (!m) pathCache.set(key, (m = new Map()));
  const hit = m.get(path);
  if (hit !== undefined) return hit;
  const words = nestedPathBits(key, reader.terms(NESTED_PATH_FIELD), reader.maxDoc, path);
  const bits = words ? new FixedBitSet(reader.maxDoc, words) : null;
  m.set(path, bits);
  return bits;
}

/**
 * The parent documents of a nested scope: the root documents (path null) or the documents of the enclosing
 * nested path; null when the segment has no nested documents of that scope.
 */
export function parentDocs(reader: LeafReader, parentPath: string | null): FixedBitSet | null {
  return parentPath === null ? rootDocs(reader) : nestedPathDocs(reader, parentPath);
}
