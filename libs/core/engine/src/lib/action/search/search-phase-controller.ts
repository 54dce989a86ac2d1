/**
 * Coordinator-side reduction, as pure functions over plain shard results (Elasticsearch's
 * SearchPhaseController): global top docs merge, total hits and max score reduction.
 */
import { compareUtf8 } from '@strata/core-common';
import type { ShardHit, ShardQueryResult, SortFieldMeta } from '../../search/spi-search.js';
import { TRACK_TOTAL_HITS_DISABLED } from '../../search/spi-search.js';

export interface MergedHit {
  /** position of the shard result in the input array */
  resultIndex: number;
  shardIndex: number;
  hit: ShardHit;
}

function compareKey(m: SortFieldMeta, a: unknown, b: unknown): number {
  if (m.kind === 'string') {
    if (a === b) return 0;
    if (a === null || a === undefined) return m.missingFirst ? -1 : 1;
    if (b === null || b === undefined) return m.missingFirst ? 1 : -1;
    return (compareUtf8(a as string, b as string) < 0 ? -1 : 1) * m.reverse;
  }
  const x = a as number;
  const y = b as number;
  return x < y ? -m.reverse : x > y ? m.reverse : 0;
}

/** merges the per-shard top hits into the global page [from, from+size) */
export function mergeTopDocs(results: readonly ShardQueryResult[], opts: { from: number; size: number; collapse?: boolean }): MergedHit[] {
  const all: MergedHit[] = [];
  results.forEach((r, resultIndex) => {
    for (const hit of r.hits) all.push({ resultIndex, shardIndex: r.shardIndex, hit });
  });
  const meta = results.find((r) => r.sortMeta !== null)?.sortMeta ?? null;
  all.sort((a, b) => {
    if (meta) {
      for (let i = 0; i < meta.length; i++) {
        const c = compareKey(meta[i]!, a.hit.keys?.[i] ?? null, b.hit.keys?.[i] ?? null);
        if (c !== 0) return c;
      }
    } else {
      const sa = Number.isNaN(a.hit.score) ? -Infinity : a.hit.score;
      const sb = Number.isNaN(b.hit.score) ? -Infinity : b.hit.score;
      if (sa !== sb) return sa > sb ? -1 : 1;
    }
    if (a.shardIndex !== b.shardIndex) return a.shardIndex - b.shardIndex;
    return a.hit.doc - b.hit.doc;
  });
  const from = Math.max(0, opts.from);
  let list = all;
  if (opts.collapse) {
    const seen = new Set<unknown>();
    list = all.filter((m) => {
      const key = m.hit.collapseKey ?? null;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }
  return list.slice(from, from + Math.max(0, opts.size));
}

/** sums shard totals; caps to track_total_hits with relation gte; undefined when not tracked */
export function reduceTotalHits(
  results: readonly ShardQueryResult[],
  trackTotalHitsUpTo: number,
): { value: number; relation: 'eq' | 'gte' } | undefined {
  if (trackTotalHitsUpTo === TRACK_TOTAL_HITS_DISABLED) return undefined;
  let value = 0;
  let relation: 'eq' | 'gte' = 'eq';
  for (const r of results) {
    if (!r.totalHits) continue;
    value += r.totalHits.value;
    if (r.totalHits.relation === 'gte') relation = 'gte';
  }
  if (value > trackTotalHitsUpTo) return { value: trackTotalHitsUpTo, relation: 'gte' };
  return { value, relation };
}

export function reduceMaxScore(results: readonly ShardQueryResult[]): number | null {
  let max: number | null = null;
  for (const r of results) if (r.maxScore !== null && !Number.isNaN(r.maxScore) && (max === null || r.maxScore > max)) max = r.maxScore;
  return max;
}
