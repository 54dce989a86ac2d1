import { compareKeys, topK } from './bucket-order.js';

describe('topK', () => {
  it('selects the best k in order, like a full sort', () => {
    let seed = 7;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % 1000;
    const items = Array.from({ length: 5000 }, (_, i) => ({ c: rnd(), k: `t${i}` }));
    const cmp = (a: { c: number; k: string }, b: { c: number; k: string }) => b.c - a.c || compareKeys(a.k, b.k);
    expect(topK(items, 25, cmp)).toEqual(items.slice().sort(cmp).slice(0, 25));
    expect(topK(items, 0, cmp)).toEqual([]);
    expect(topK(items.slice(0, 10), 25, cmp)).toEqual(items.slice(0, 10).sort(cmp));
  });
  it('compares tuple keys element-wise with nulls first', () => {
    expect(compareKeys(['a', 2], ['a', 10])).toBeLessThan(0);
    expect(compareKeys([null, 1], ['a', 0])).toBeLessThan(0);
    expect(compareKeys('b', 'a')).toBeGreaterThan(0);
  });
});
