import { allowedSegmentCount, DEFAULT_MERGE_POLICY, findMerges } from './merge-policy.js';

const cfg = DEFAULT_MERGE_POLICY;
const seg = (size: number, maxDoc = size) => ({ size, maxDoc });

describe('tiered merge policy', () => {
  it('computes a segment budget per size level', () => {
    expect(allowedSegmentCount(0, cfg)).toBe(10);
    expect(allowedSegmentCount(200_000, cfg)).toBe(10);
    expect(allowedSegmentCount(330_000, cfg)).toBe(11);
    expect(allowedSegmentCount(1_000_000, cfg)).toBe(14);
  });

  it('does not merge within the budget (ten 100k segments of a 1M index)', () => {
    expect(findMerges(Array.from({ length: 10 }, () => seg(100_000)), cfg)).toBeNull();
  });

  it('merges the smallest segments when over budget', () => {
    const segs = [seg(300_000), ...Array.from({ length: 15 }, (_, i) => seg(30_000 + i))];
    expect(allowedSegmentCount(750_105, cfg)).toBe(13);
    expect(findMerges(segs, cfg)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(findMerges(segs.slice(0, 13), cfg)).toBeNull();
  });

  it('reclaims deletes', () => {
    expect(findMerges([seg(10, 100), seg(50)], cfg)).toEqual([0, 1]);
    expect(findMerges([seg(10, 100)], cfg)).toEqual([0]);
    expect(findMerges([seg(90, 100), seg(50)], cfg)).toBeNull();
  });
});
