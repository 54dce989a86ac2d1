/**
 * Top-k collection: a bounded heap whose root is the worst kept hit (Lucene's TopScoreDocCollector /
 * TopFieldCollector). Docs arrive in ascending global doc order, so on ties the earlier doc is kept.
 */
import { compareKeys, type CompiledSortField, type SortKey } from './sort.js';

export interface CollectedHit {
  /** shard-global doc id (docBase + segment doc) */
  doc: number;
  score: number;
  /** sort keys (field sort only) */
  keys: SortKey[] | null;
}

/** compares two hits of the same shard: negative when a ranks before b */
export function compareHits(sort: readonly CompiledSortField[] | null, a: CollectedHit, b: CollectedHit): number {
  if (!sort || sort.length === 0) {
    if (a.score !== b.score) return a.score > b.score ? -1 : 1;
    return a.doc - b.doc;
  }
  for (let i = 0; i < sort.length; i++) {
    const c = compareKeys(sort[i]!, a.keys![i]!, b.keys![i]!);
    if (c !== 0) return c;
  }
  return a.doc - b.doc;
}

export class TopHitsHeap {
  private readonly heap: CollectedHit[] = [];
  constructor(
    readonly k: number,
    private readonly sort: readonly CompiledSortField[] | null,
  ) {}

  get size(): number {
    return this.heap.length;
  }
  get full(): boolean {
    return this.heap.length >= this.k;
  }
  /** the worst kept hit */
  top(): CollectedHit | undefined {
    return this.heap[0];
  }
  /** > 0 when a ranks after b */
  private worse(a: CollectedHit, b: CollectedHit): boolean {
    return compareHits(this.sort, a, b) > 0;
  }

  /** offers a hit; returns true when kept */
  offer(hit: CollectedHit): boolean {
    const h = this.heap;
    if (this.k <= 0) return false;
    if (h.length < this.k) {
      h.push(hit);
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (this.worse(h[i]!, h[p]!)) {
          [h[i], h[p]] = [h[p]!, h[i]!];
          i = p;
        } else break;
      }
      return true;
    }
    if (!this.worse(h[0]!, hit)) return false;
    h[0] = hit;
    this.siftDown(0);
    return true;
  }

  private siftDown(i: number): void {
    const h = this.heap;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < n && this.worse(h[l]!, h[w]!)) w = l;
      if (r < n && this.worse(h[r]!, h[w]!)) w = r;
      if (w === i) return;
      [h[i], h[w]] = [h[w]!, h[i]!];
      i = w;
    }
  }

  /** hits best first */
  sorted(): CollectedHit[] {
    return [...this.heap].sort((a, b) => compareHits(this.sort, a, b));
  }
}
