/**
 * A small tiered merge policy: group segments into size tiers (log base `segsPerTier`); when a tier holds
 * `segsPerTier` segments, merge them. Segments with many deletions are merged with their neighbours too.
 */
export interface MergePolicyConfig {
  segsPerTier: number;
  /** segments smaller than this (docs) all count as one tier */
  floorSegmentDocs: number;
  /** never produce merged segments above this doc count */
  maxMergedDocs: number;
  /** merge a segment whose deleted ratio exceeds this */
  deletesPctAllowed: number;
}

export const DEFAULT_MERGE_POLICY: MergePolicyConfig = {
  segsPerTier: 10,
  floorSegmentDocs: 20_000,
  maxMergedDocs: 5_000_000,
  deletesPctAllowed: 33,
};

export interface SegmentInfo {
  /** live docs */
  size: number;
  maxDoc: number;
}

/** returns the indexes (into segs) to merge, or null */
export function findMerges(segs: readonly SegmentInfo[], cfg: MergePolicyConfig): number[] | null {
  if (segs.length < 2) {
    if (segs.length === 1 && segs[0].maxDoc > 0 && ((segs[0].maxDoc - segs[0].size) * 100) / segs[0].maxDoc > cfg.deletesPctAllowed * 1.5) {
      return [0];
    }
    return null;
  }
  const tierOf = (s: SegmentInfo): number => {
    const n = Math.max(s.size, cfg.floorSegmentDocs);
    return Math.floor(Math.log(n / cfg.floorSegmentDocs) / Math.log(cfg.segsPerTier));
  };
  const tiers = new Map<number, number[]>();
  segs.forEach((s, i) => {
    if (s.size >= cfg.maxMergedDocs) return;
    const t = tierOf(s);
    const arr = tiers.get(t) ?? [];
    arr.push(i);
    tiers.set(t, arr);
  });
  const sortedTiers = [...tiers.keys()].sort((a, b) => a - b);
  for (const t of sortedTiers) {
    const idx = tiers.get(t)!;
    if (idx.length >= cfg.segsPerTier) {
      const pick = idx.slice(0, cfg.segsPerTier);
      let total = 0;
      for (const i of pick) total += segs[i].size;
      if (total <= cfg.maxMergedDocs) return pick;
    }
  }
  // reclaim deletes: a segment with too many deleted docs merges with its smallest neighbour
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i];
    if (s.maxDoc > 0 && ((s.maxDoc - s.size) * 100) / s.maxDoc > cfg.deletesPctAllowed) {
      const j = i + 1 < segs.length ? i + 1 : i - 1;
      return [Math.min(i, j), Math.max(i, j)];
    }
  }
  return null;
}
