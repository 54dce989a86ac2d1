import { BlockCache, LastBlock } from './block-cache.js';

/** loads `key` as a value of `bytes` (the cache adds 64 + 2 per key char to each entry) */
function load(c: BlockCache, key: string, bytes: number, loads: string[], pool: 'data' | 'stored' = 'data'): string {
  return c.get(key, () => (loads.push(key), { value: `v:${key}`, bytes, readBytes: bytes }), pool);
}
const ENTRY = 1000 - 64 - 2; // a one-char key of this many bytes takes 1000 bytes

describe('BlockCache', () => {
  it('keeps what fits, drops the least recently used first, and gives a used entry a second chance', () => {
    // 8000 bytes: the data pool holds 7000, so seven 1000-byte entries
    const c = new BlockCache(8000);
    const loads: string[] = [];
    for (const k of 'abcdefg') load(c, k, ENTRY, loads);
    expect(c.stats()).toMatchObject({ entries: 7, sizeInBytes: 7000, hits: 0, misses: 7, evictions: 0, readBytes: 7 * ENTRY });
    // a and c used again: h then i push out b and d, the oldest unused
    expect(load(c, 'a', ENTRY, loads)).toBe('v:a');
    expect(load(c, 'c', ENTRY, loads)).toBe('v:c');
    load(c, 'h', ENTRY, loads);
    load(c, 'i', ENTRY, loads);
    loads.length = 0;
    for (const k of 'acefghi') load(c, k, ENTRY, loads);
    expect(loads).toEqual([]);
    expect(c.stats()).toMatchObject({ entries: 7, sizeInBytes: 7000, evictions: 2 });
    for (const k of 'bd') load(c, k, ENTRY, loads);
    expect(loads).toEqual(['b', 'd']);
    expect(c.stats().sizeInBytes).toBeLessThanOrEqual(7000);
  });

  it('hands out an entry larger than its pool without keeping it; stored blocks have a pool of their own', () => {
    const c = new BlockCache(8000);
    const loads: string[] = [];
    expect(load(c, 'x', 7001, loads)).toBe('v:x');
    expect(load(c, 'x', 7001, loads)).toBe('v:x');
    expect(loads).toEqual(['x', 'x']);
    expect(c.stats().entries).toBe(0);
    // the stored pool is an eighth of the limit: one 1000-byte entry
    load(c, 's', ENTRY, loads, 'stored');
    for (const k of 'abcdefg') load(c, k, ENTRY, loads);
    load(c, 't', ENTRY, loads, 'stored');
    loads.length = 0;
    for (const k of 'abcdefg') load(c, k, ENTRY, loads);
    load(c, 't', ENTRY, loads, 'stored');
    load(c, 's', ENTRY, loads, 'stored');
    expect(loads).toEqual(['s']);
  });

  it('drops the entries of a closed segment by key prefix, and all of them on clear', () => {
    const c = new BlockCache(8000);
    const loads: string[] = [];
    for (const k of ['1a', '1b', '2a']) load(c, k, ENTRY - 2, loads);
    c.invalidatePrefix('1');
    expect(c.stats()).toMatchObject({ entries: 1, sizeInBytes: 1000 });
    loads.length = 0;
    for (const k of ['1a', '2a']) load(c, k, ENTRY - 2, loads);
    expect(loads).toEqual(['1a']);
    c.clear();
    expect(c.stats()).toMatchObject({ entries: 0, sizeInBytes: 0 });
  });
});

describe('LastBlock', () => {
  it('holds the block it got last, for its own number only, and counts what it serves as cache hits', () => {
    const c = new BlockCache(8000);
    const loads: number[] = [];
    const last = new LastBlock(c, (b) => (loads.push(b), { v: b }));
    const a = last.get(3);
    expect(last.get(3)).toBe(a);
    expect(loads).toEqual([3]);
    expect(c.stats().hits).toBe(1);
    expect(last.get(2)).toEqual({ v: 2 });
    expect(last.get(3)).not.toBe(a);
    expect(loads).toEqual([3, 2, 3]);
    expect(c.stats().hits).toBe(1);
  });
});
