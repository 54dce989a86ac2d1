import { ENTRY_OVERHEAD_BYTES, keyToString, RequestCache, type RequestCacheKey } from './request-cache.js';
import { copyWithSize } from './deep-copy.js';

function key(over: Partial<RequestCacheKey> = {}): RequestCacheKey {
  return {
    index: 'logs',
    shard: 0,
    readerKey: 'uuid-0#1',
    generation: 1,
    mappingVersion: 1,
    requestHash: 'h1',
    ...over,
  };
}

function sizeOf(k: RequestCacheKey, v: unknown): number {
  return copyWithSize(v).bytes + keyToString(k).length * 2 + ENTRY_OVERHEAD_BYTES;
}

describe('RequestCache', () => {
  it('counts a miss then a hit and returns equal, independent copies', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    const value = { total: { value: 3, relation: 'eq' }, aggs: { a: { buckets: [{ key: 'x', doc_count: 3 }] } } };
    let loads = 0;
    const loader = async () => {
      loads++;
      return structuredClone(value);
    };
    const first = await c.getOrLoad(key(), loader);
    const second = await c.getOrLoad(key(), loader);
    expect(loads).toBe(1);
    expect(second).toEqual(value);
    expect(second).not.toBe(first);
    (second as typeof value).aggs.a.buckets[0].doc_count = 99;
    const third = await c.getOrLoad(key(), loader);
    expect((third as typeof value).aggs.a.buckets[0].doc_count).toBe(3);
    expect(c.stats('logs')).toEqual({
      memorySizeInBytes: sizeOf(key(), value),
      evictions: 0,
      hitCount: 2,
      missCount: 1,
    });
    expect(c.totalStats().hitCount).toBe(2);
  });

  it('keeps typed arrays and nested structures intact', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    const v = { docs: new Uint32Array([1, 2, 3]), scores: new Float32Array([0.5]), m: new Map([['a', 1]]) };
    expect(c.put(key(), v)).toBe(true);
    const got = c.get<typeof v>(key())!;
    expect(got.docs).toBeInstanceOf(Uint32Array);
    expect([...got.docs]).toEqual([1, 2, 3]);
    expect(got.scores[0]).toBe(0.5);
    expect(got.m.get('a')).toBe(1);
  });

  it('differentiates every key component', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    c.put(key(), 1);
    expect(c.get(key())).toBe(1);
    expect(c.get(key({ requestHash: 'h2' }))).toBeUndefined();
    expect(c.get(key({ readerKey: 'uuid-0#2', generation: 2 }))).toBeUndefined();
    expect(c.get(key({ mappingVersion: 2 }))).toBeUndefined();
    expect(c.get(key({ shard: 1 }))).toBeUndefined();
    expect(c.get(key({ index: 'other' }))).toBeUndefined();
    expect(c.stats('logs')).toMatchObject({ hitCount: 1, missCount: 4 });
    expect(c.stats('other')).toMatchObject({ hitCount: 0, missCount: 1 });
  });

  it('does not cache results the predicate rejects (e.g. timed out)', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let loads = 0;
    const load = async () => ({ timedOut: true, n: ++loads });
    await c.getOrLoad(key(), load, (r) => !r.timedOut);
    const r2 = await c.getOrLoad(key(), load, (r) => !r.timedOut);
    expect(r2.n).toBe(2);
    expect(c.size).toBe(0);
    expect(c.stats('logs')).toMatchObject({ hitCount: 0, missCount: 2, memorySizeInBytes: 0 });
  });

  it('does not cache when the loader throws, and propagates the error', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    await expect(c.getOrLoad(key(), async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(c.size).toBe(0);
    expect(await c.getOrLoad(key(), async () => 7)).toBe(7);
    expect(await c.getOrLoad(key(), async () => 8)).toBe(7);
  });

  it('shares one load between concurrent callers', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = async () => {
      loads++;
      await gate;
      return { v: 1 };
    };
    const a = c.getOrLoad(key(), loader);
    const b = c.getOrLoad(key(), loader);
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(loads).toBe(1);
    expect(ra).toEqual({ v: 1 });
    expect(rb).toEqual({ v: 1 });
    expect(ra).not.toBe(rb);
    expect(c.stats('logs')).toMatchObject({ hitCount: 1, missCount: 1 });
  });

  it('refuses unserialisable values without failing', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    expect(c.put(key(), { f: () => 1 })).toBe(false);
    expect(c.size).toBe(0);
    expect(c.totalStats().memorySizeInBytes).toBe(0);
  });

  it('evicts least recently used entries when full, counting evictions and bytes', () => {
    const v = { payload: 'x'.repeat(1000) };
    const one = sizeOf(key({ requestHash: 'a' }), v);
    const c = new RequestCache({ maxSizeBytes: one * 3 });
    c.put(key({ requestHash: 'a' }), v);
    c.put(key({ requestHash: 'b' }), v);
    c.put(key({ requestHash: 'c' }), v);
    expect(c.size).toBe(3);
    expect(c.stats('logs').memorySizeInBytes).toBe(one * 3);
    // touch a so that b is the least recently used
    expect(c.get(key({ requestHash: 'a' }))).toEqual(v);
    c.put(key({ requestHash: 'd' }), v);
    expect(c.size).toBe(3);
    expect(c.has(key({ requestHash: 'b' }))).toBe(false);
    expect(c.has(key({ requestHash: 'a' }))).toBe(true);
    expect(c.has(key({ requestHash: 'c' }))).toBe(true);
    expect(c.has(key({ requestHash: 'd' }))).toBe(true);
    expect(c.stats('logs')).toEqual({ memorySizeInBytes: one * 3, evictions: 1, hitCount: 1, missCount: 0 });
    expect(c.totalStats().evictions).toBe(1);
  });

  it('never stores an entry larger than the whole cache', () => {
    const c = new RequestCache({ maxSizeBytes: 500 });
    c.put(key({ requestHash: 'small' }), 1);
    expect(c.put(key({ requestHash: 'big' }), 'y'.repeat(2000))).toBe(false);
    expect(c.has(key({ requestHash: 'small' }))).toBe(true);
    expect(c.stats('logs').evictions).toBe(0);
  });

  it('expires entries after the TTL', () => {
    let now = 1000;
    const c = new RequestCache({ maxSizeBytes: 1 << 20, ttlMs: 60_000, now: () => now });
    c.put(key(), 1);
    now += 59_999;
    expect(c.get(key())).toBe(1);
    now += 2;
    expect(c.get(key())).toBeUndefined();
    expect(c.stats('logs')).toEqual({ memorySizeInBytes: 0, evictions: 1, hitCount: 1, missCount: 1 });
  });

  it('reports memory of expired entries as freed when stats are read', () => {
    let now = 1000;
    const c = new RequestCache({ maxSizeBytes: 1 << 20, ttlMs: 1000, now: () => now });
    c.put(key(), 1);
    expect(c.stats('logs').memorySizeInBytes).toBeGreaterThan(0);
    now = 5000;
    expect(c.stats('logs').memorySizeInBytes).toBe(0);
    expect(c.size).toBe(0);
  });

  it('drops older reader generations of a shard on refresh, and only those', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    c.put(key({ readerKey: 'u#1', generation: 1, requestHash: 'a' }), 1);
    c.put(key({ readerKey: 'u#2', generation: 2, requestHash: 'a' }), 2);
    c.put(key({ shard: 1, readerKey: 'v#1', generation: 1 }), 3);
    c.put(key({ index: 'other', readerKey: 'w#1', generation: 1 }), 4);
    expect(c.invalidateShardGenerationsBelow('logs', 0, 2)).toBe(1);
    expect(c.has(key({ readerKey: 'u#1', generation: 1, requestHash: 'a' }))).toBe(false);
    expect(c.has(key({ readerKey: 'u#2', generation: 2, requestHash: 'a' }))).toBe(true);
    expect(c.has(key({ shard: 1, readerKey: 'v#1', generation: 1 }))).toBe(true);
    expect(c.has(key({ index: 'other', readerKey: 'w#1', generation: 1 }))).toBe(true);
    expect(c.stats('logs').evictions).toBe(0);
  });

  it('drops entries of older mapping versions of an index', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    c.put(key({ mappingVersion: 1 }), 1);
    c.put(key({ mappingVersion: 1, shard: 1 }), 1);
    c.put(key({ mappingVersion: 3, requestHash: 'z' }), 1);
    expect(c.invalidateMappingVersionsBelow('logs', 3)).toBe(2);
    expect(c.size).toBe(1);
    expect(c.has(key({ mappingVersion: 3, requestHash: 'z' }))).toBe(true);
  });

  it('clears an index, keeps its counters; removeIndex forgets them', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    c.put(key(), 1);
    c.get(key());
    c.put(key({ index: 'b' }), 1);
    expect(c.clearIndex('logs')).toBe(1);
    expect(c.stats('logs')).toEqual({ memorySizeInBytes: 0, evictions: 0, hitCount: 1, missCount: 0 });
    expect(c.has(key({ index: 'b' }))).toBe(true);
    c.removeIndex('logs');
    expect(c.indices()).toEqual(['b']);
    expect(c.totalStats().hitCount).toBe(1);
    c.clear();
    expect(c.size).toBe(0);
    expect(c.totalStats().memorySizeInBytes).toBe(0);
  });
});

describe('RequestCache concurrent loads', () => {
  it('a waiter gets the stored copy even if the first caller mutates its result', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = async () => {
      await gate;
      return { v: 1 };
    };
    const a = c.getOrLoad(key(), loader).then((r) => {
      r.v = 99;
      return r;
    });
    const b = c.getOrLoad(key(), loader);
    release();
    expect((await a).v).toBe(99);
    expect((await b).v).toBe(1);
  });

  it('waiters load themselves when the shared result was not cacheable', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = async () => {
      loads++;
      await gate;
      return { timedOut: true };
    };
    const a = c.getOrLoad(key(), loader, (r) => !r.timedOut);
    const b = c.getOrLoad(key(), loader, (r) => !r.timedOut);
    release();
    await Promise.all([a, b]);
    expect(loads).toBe(2);
    expect(c.stats('logs')).toMatchObject({ hitCount: 0, missCount: 2 });
  });

  it('waiters retry after a failed shared load', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let loads = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = async () => {
      loads++;
      await gate;
      if (loads === 1) throw new Error('first fails');
      return 5;
    };
    const a = c.getOrLoad(key(), loader);
    const b = c.getOrLoad(key(), loader);
    release();
    await expect(a).rejects.toThrow('first fails');
    expect(await b).toBe(5);
    expect(loads).toBe(2);
  });
});

describe('RequestCache superseded loads', () => {
  it('does not store a result whose reader generation was refreshed away during the load', async () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const p = c.getOrLoad(key({ generation: 1 }), async () => {
      await gate;
      return 1;
    });
    c.invalidateShardGenerationsBelow('logs', 0, 2);
    release();
    expect(await p).toBe(1);
    expect(c.size).toBe(0);
    // other shards and newer generations are stored as usual
    expect(c.put(key({ shard: 1, generation: 1 }), 1)).toBe(true);
    expect(c.put(key({ generation: 2, readerKey: 'u#2' }), 1)).toBe(true);
  });

  it('does not store a result parsed against a superseded mapping; a removed index starts over', () => {
    const c = new RequestCache({ maxSizeBytes: 1 << 20 });
    c.invalidateMappingVersionsBelow('logs', 3);
    expect(c.put(key({ mappingVersion: 2 }), 1)).toBe(false);
    expect(c.put(key({ mappingVersion: 3 }), 1)).toBe(true);
    c.removeIndex('logs');
    expect(c.put(key({ mappingVersion: 1 }), 1)).toBe(true);
  });
});
