import { digestAdd, digestCdf, digestMerge, digestQuantile, maxSortingSize, newDigest, sortedCdf, sortedQuantile } from './tdigest.js';

describe('hybrid digest (ES HybridDigest semantics)', () => {
  it('sorting phase ends when the size reaches round(compression) * 20', () => {
    expect(maxSortingSize(100)).toBe(2000);
    expect(maxSortingSize(20.4)).toBe(400);
    const d = newDigest();
    for (let i = 0; i < 1999; i++) digestAdd(d, i, 100);
    expect(d.samples).toHaveLength(1999);
    expect(digestQuantile(d, 0.5)).toBe(999);
    digestAdd(d, 1999, 100);
    expect(d.samples).toBeNull();
    expect(d.count).toBe(2000);
  });
  it('merge keeps samples exact below the threshold and switches at it', () => {
    const a = newDigest();
    const b = newDigest();
    for (let i = 0; i < 1000; i++) digestAdd(a, i, 100);
    for (let i = 1000; i < 1999; i++) digestAdd(b, i, 100);
    digestMerge(a, b, 100);
    expect(a.samples).toHaveLength(1999);
    expect(digestQuantile(a, 0.25)).toBe(499.5);
    const c = newDigest();
    digestAdd(c, 5000, 100);
    digestMerge(a, c, 100);
    expect(a.samples).toBeNull();
    expect(a.count).toBe(2000);
    expect(a.max).toBe(5000);
  });
  it('exact quantile and cdf (ES Dist)', () => {
    const v = [1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 100];
    expect(sortedQuantile(v, 0)).toBe(1);
    expect(sortedQuantile(v, 1)).toBe(100);
    expect(sortedQuantile(v, 0.25)).toBeCloseTo(5.25, 12);
    expect(sortedQuantile(v, 0.95)).toBeCloseTo(19.95, 12);
    expect(sortedQuantile(v, 0.99)).toBeCloseTo(83.2, 12);
    expect(sortedCdf(v, 0)).toBe(0);
    expect(sortedCdf(v, 1)).toBe(1 / 22);
    expect(sortedCdf(v, 10)).toBe(10 / 22);
    expect(sortedCdf(v, 60)).toBeCloseTo(21 / 22, 12);
    expect(sortedCdf(v, 100)).toBe(21.5 / 22);
    expect(sortedCdf(v, 1000)).toBe(1);
    expect(sortedQuantile([], 0.5)).toBeNaN();
    const d = newDigest();
    for (const x of [...v].reverse()) digestAdd(d, x, 100);
    expect(digestCdf(d, 10)).toBe(10 / 22);
    expect(digestQuantile(d, 0.25)).toBeCloseTo(5.25, 12);
  });
});
