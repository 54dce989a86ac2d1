/**
 * Block structure of segments holding nested documents (Lucene block join): every nested object is a hidden
 * document carrying the `_nested_path` term, stored right before its parent; a root document ends its block.
 * The structure is derived from that indexed field, like Lucene's parent/child BitSetProducers, and cached per
 * immutable segment core (it does not depend on deletes).
 */
import type { TermsDict } from './leaf-reader.js';

/** the metadata field every hidden nested document indexes its nested path in (root documents have none) */
export const NESTED_PATH_FIELD = '_nested_path';

const hiddenCache = new WeakMap<object, Uint32Array | null>();
const pathCache = new WeakMap<object, Map<string, Uint32Array | null>>();

function bitsOf(maxDoc: number, fill: (words: Uint32Array) => void): Uint32Array {
  const words = new Uint32Array((maxDoc + 31) >>> 5);
  fill(words);
  return words;
}

function setAll(words: Uint32Array, docs: Uint32Array): void {
  for (let i = 0; i < docs.length; i++) {
    const d = docs[i]!;
    words[d >>> 5]! |= 1 << (d & 31);
  }
}

/**
 * Bits (one per doc, set = hidden nested document) of a segment, or null when it holds no nested document.
 * `key` identifies the segment core (cache key); `dict` is its `_nested_path` terms.
 */
export function hiddenDocBits(key: object, dict: TermsDict | null, maxDoc: number): Uint32Array | null {
  const hit = hiddenCache.get(key);
  if (hit !== undefined) return hit;
  let words: Uint32Array | null = null;
  if (dict && dict.size > 0) {
    words = bitsOf(maxDoc, (w) => {
      for (let o = 0; o < dict.size; o++) setAll(w, dict.postings(o).docs);
    });
  }
  hiddenCache.set(key, words);
  return words;
}

/** Bits of the hidden documents of one nested path (null when the segment has none). */
export function nestedPathBits(key: object, dict: TermsDict | null, maxDoc: number, path: string): Uint32Array | null {
  let m = pathCache.get(key);
  if (!m) pathCache.set(key, (m = new Map()));
  const hit = m.get(path);
  if (hit !== undefined) return hit;
  let words: Uint32Array | null = null;
  const ord = dict ? dict.ord(path) : -1;
  if (dict && ord >= 0) {
    const docs = dict.postings(ord).docs;
    words = bitsOf(maxDoc, (w) => setAll(w, docs));
  }
  m.set(path, words);
  return words;
}

export function isHidden(hidden: Uint32Array | null, doc: number): boolean {
  return hidden !== null && (hidden[doc >>> 5]! & (1 << (doc & 31))) !== 0;
}

/** first doc of the block that `rootDoc` (a root document) closes */
export function blockStart(hidden: Uint32Array | null, rootDoc: number): number {
  let d = rootDoc;
  while (d > 0 && isHidden(hidden, d - 1)) d--;
  return d;
}
