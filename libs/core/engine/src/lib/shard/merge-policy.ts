/**
 * A tiered merge policy in the spirit of Lucene's TieredMergePolicy: the index may hold a budget of
 * segments (`segsPerTier` per size level, levels growing by `segsPerTier` from `floorSegmentDocs`); only
 * when there are more segments than the budget are the smallest ones merged (up to `maxMergeAtOnce`).
 * Segments with many deletions are merged with a neighbour to reclaim them.
 */
export interface MergePolicyConfig {
  segsPerTier: number;
  maxMergeAtOnce: number;
  /** segments smaller than this (docs) are treated as this size */
  floorSegmentDocs: number;
  /** never produce merged segments above this doc count */
  maxMergedDocs: number;
  /** merge a segment whose deleted ratio exceeds this (percent) */
  deletesPctAllowed: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicyConfig = {
  segsPerTier: 10,
  maxMergeAtOnce: 10,
  floorSegmentDocs: 20_000,
  maxMergedDocs: 5_000_000,
  deletesPctAllowed: 33,
};

export interface SegmentInfo {
  /** live docs */
  size: number;
  maxDoc: number;
}

/** how many segments an index of `totalDocs` may have before merging (Lucene's allowedSegCount) */
export function allowedSegmentCount(totalDocs: number, cfg: MergePolicyConfig): number {
  let allowed = 0;
  let levelSize = Math.max(1, cfg.floorSegmentDocs);
  let remaining = totalDocs;
  for (;;) {
    const atLevel = remaining / levelSize;
    if (atLevel < cfg.segsPerTier) {
      allowed += Math.ceil(atLevel);
      break;
    }
    allowed += cfg.segsPerTier;
    remaining -= cfg.segsPerTier * levelSize;
    levelSize *= cfg.segsPerTier;
  }
  return Math.max(allowed, cfg.segsPerTier);
}

/** returns the indexes (into segs) to merge, or null */
export function findMerges(segs: readonly SegmentInfo[], cfg: MergePolicyConfig): number[] | null {
  const eligible: number[] = [];
  let total = 0;
  segs.forEach((s, i) => {
    total += s.size;
    if (s.size < cfg.maxMergedDocs / 2) eligible.push(i);
  });
  if (eligible.length > allowedSegmentCount(total, cfg)) {
    // merge the smallest segments: cheapest, and keeps sizes balanced
    const bySize = [...eligible].sort((a, b) => segs[a].size - segs[b].size || a - b);
    const pick: number[] = [];
    let docs = 0;
    for (const i of bySize) {
      if (pick.length >= cfg.maxMergeAtOnce) break;
      if (docs + segs[i].size > cfg.maxMergedDocs && pick.length >= 2) break;
      pick.push(i);
      docs += segs[i].size;
    }
    if (pick.length >= 2) return pick.sort((a, b) => a - b);
  }
  // reclaim deletes: a segment with too many deleted docs merges with its smallest neighbour (or alone)
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s.maxDoc > 0 && ((s.maxDoc - s.size) * 100) / s.maxDoc > cfg.deletesPctAllowed) {
      if (segs.length === 1) return [0];
      const left = i > 0 ? segs[i - 1].size : Infinity;
      const right = i + 1 < segs.length ? segs[i + 1].size : Infinity;
      const j = left <= right ? i - 1 : i + 1;
      return [Math.min(i, j), Math.max(i, j)];
    }
  }
  return null;
}
