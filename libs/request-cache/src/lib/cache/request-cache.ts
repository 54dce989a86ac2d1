/**
 * The shard request cache core, in the spirit of Elasticsearch's IndicesRequestCache: an LRU bounded by
 * bytes, keyed by (shard, reader identity, mapping version, request hash). Free of Koa and DI so that any
 * shard-search implementation exposing a reader identity can reuse it.
 *
 * Values are stored as a private deep copy (with a byte estimate computed while copying), and every hit
 * returns a fresh deep copy, so callers can never mutate a cached result.
 */
import { LRUCache } from 'lru-cache';
import { copyWithSize, deepCopy } from './deep-copy.js';

/** Identifies one cache entry. `requestHash` is the hash of everything in the request that changes the result. */
export interface RequestCacheKey {
  readonly index: string;
  readonly shard: number;
  /** the reader's cache key (shard identity + generation) */
  readonly readerKey: string;
  /** the reader generation, used to drop older generations eagerly on refresh */
  readonly generation: number;
  /** mapping version the request was parsed against */
  readonly mappingVersion: number;
  readonly requestHash: string;
}

export interface RequestCacheOptions {
  /** maximum total size in bytes (keys + serialised values); at least 1 */
  readonly maxSizeBytes: number;
  /** optional time to live of an entry in ms (0 / undefined: none) */
  readonly ttlMs?: number;
  /** time source for the TTL (ms); defaults to performance.now */
  readonly now?: () => number;
}

/** Counters in Elasticsearch's RequestCacheStats vocabulary. */
export interface RequestCacheStats {
  memorySizeInBytes: number;
  evictions: number;
  hitCount: number;
  missCount: number;
}

interface Entry {
  readonly key: RequestCacheKey;
  readonly value: unknown;
  readonly size: number;
}

/** Fixed per-entry overhead added to the size estimate (object headers, maps, bookkeeping). */
export const ENTRY_OVERHEAD_BYTES = 96;

const emptyStats = (): RequestCacheStats => ({ memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 });

export function keyToString(k: RequestCacheKey): string {
  return `${k.index}\u0000${k.shard}\u0000${k.readerKey}\u0000${k.mappingVersion}\u0000${k.requestHash}`;
}

export class RequestCache {
  private readonly lru: LRUCache<string, Entry>;
  /** index -> shard -> entry key strings, for eager invalidation without scanning */
  private readonly byShard = new Map<string, Map<number, Set<string>>>();
  private readonly perIndex = new Map<string, RequestCacheStats>();
  private readonly total = emptyStats();
  private readonly inflight = new Map<string, Promise<unknown>>();
  /** newest reader generation per index/shard and mapping version per index seen by invalidations */
  private readonly newestGeneration = new Map<string, Map<number, number>>();
  private readonly newestMappingVersion = new Map<string, number>();
  readonly maxSizeBytes: number;
  readonly ttlMs: number;

  constructor(options: RequestCacheOptions) {
    this.maxSizeBytes = Math.max(1, Math.floor(options.maxSizeBytes));
    this.ttlMs = options.ttlMs && options.ttlMs > 0 ? options.ttlMs : 0;
    const now = options.now;
    this.lru = new LRUCache<string, Entry>({
      maxSize: this.maxSizeBytes,
      sizeCalculation: (e) => Math.max(1, e.size),
      ...(this.ttlMs > 0 ? { ttl: this.ttlMs, ttlResolution: 0, updateAgeOnGet: false } : {}),
      ...(now ? { perf: { now } } : {}),
      dispose: (entry, k, reason) => this.onRemoval(entry, k, reason),
    });
  }

  /** Number of entries currently stored. */
  get size(): number {
    return this.lru.size;
  }

  /**
   * Looks the key up. A hit returns a fresh copy and counts a hit; otherwise counts a miss.
   */
  get<T>(key: RequestCacheKey): T | undefined {
    const k = keyToString(key);
    const e = this.lru.get(k);
    if (e === undefined) {
      this.countMiss(key.index);
      return undefined;
    }
    this.countHit(key.index);
    return deepCopy(e.value) as T;
  }

  /** Looks the key up without touching counters or recency. */
  peek<T>(key: RequestCacheKey): T | undefined {
    const e = this.lru.peek(keyToString(key));
    return e === undefined ? undefined : (deepCopy(e.value) as T);
  }

  has(key: RequestCacheKey): boolean {
    return this.lru.has(keyToString(key));
  }

  /**
   * Stores a copy of value. Returns false when the value cannot be serialised or is larger than the whole
   * cache (then nothing is stored).
   */
  put(key: RequestCacheKey, value: unknown): boolean {
    // a load that finished after its reader or mapping was superseded would never be hit again
    if (this.isSuperseded(key)) return false;
    let copied: { value: unknown; bytes: number };
    try {
      copied = copyWithSize(value);
    } catch {
      return false;
    }
    const k = keyToString(key);
    const size = copied.bytes + k.length * 2 + ENTRY_OVERHEAD_BYTES;
    if (size > this.maxSizeBytes) return false;
    this.lru.set(k, { key, value: copied.value, size });
    if (!this.lru.has(k)) return false;
    // accounting for the inserted entry (removals are accounted in onRemoval)
    this.total.memorySizeInBytes += size;
    this.indexStats(key.index).memorySizeInBytes += size;
    let shards = this.byShard.get(key.index);
    if (!shards) this.byShard.set(key.index, (shards = new Map()));
    let set = shards.get(key.shard);
    if (!set) shards.set(key.shard, (set = new Set()));
    set.add(k);
    return true;
  }

  /**
   * Returns the cached value (a copy) or runs the loader once, caching its result when `cacheable(result)`
   * holds. Concurrent calls for the same key share one load (they count as hits, as in Elasticsearch).
   * The caller always receives a copy independent from the stored bytes.
   */
  async getOrLoad<T>(
    key: RequestCacheKey,
    loader: () => Promise<T>,
    cacheable: (result: T) => boolean = () => true,
  ): Promise<T> {
    const k = keyToString(key);
    const e = this.lru.get(k);
    if (e !== undefined) {
      this.countHit(key.index);
      return deepCopy(e.value) as T;
    }
    const pending = this.inflight.get(k);
    if (pending) {
      // wait for the running load, then read the stored copy (the loader's own object belongs to its caller)
      await pending.catch(() => undefined);
      const stored = this.lru.get(k);
      if (stored !== undefined) {
        this.countHit(key.index);
        return deepCopy(stored.value) as T;
      }
      return this.getOrLoad(key, loader, cacheable);
    }
    this.countMiss(key.index);
    const p = (async () => {
      const result = await loader();
      if (cacheable(result)) this.put(key, result);
      return result;
    })();
    this.inflight.set(k, p);
    try {
      const result = await p;
      // hand the loader's own object to this caller; the cache holds its own serialised copy
      return result;
    } finally {
      this.inflight.delete(k);
    }
  }

  /** Removes one entry. */
  invalidate(key: RequestCacheKey): void {
    this.lru.delete(keyToString(key));
  }

  /** Drops the entries of a shard whose reader generation is below `generation` (refresh). */
  invalidateShardGenerationsBelow(index: string, shard: number, generation: number): number {
    let shards = this.newestGeneration.get(index);
    if (!shards) this.newestGeneration.set(index, (shards = new Map()));
    if ((shards.get(shard) ?? -Infinity) < generation) shards.set(shard, generation);
    return this.dropWhere(this.byShard.get(index)?.get(shard), (e) => e.key.generation < generation);
  }

  /** Drops the entries of an index parsed against a mapping version below `mappingVersion`. */
  invalidateMappingVersionsBelow(index: string, mappingVersion: number): number {
    if ((this.newestMappingVersion.get(index) ?? -Infinity) < mappingVersion) this.newestMappingVersion.set(index, mappingVersion);
    let n = 0;
    for (const set of this.shardSetsOf(index)) n += this.dropWhere(set, (e) => e.key.mappingVersion < mappingVersion);
    return n;
  }

  /** Drops every entry of an index (cache clear). Counters are kept. */
  clearIndex(index: string): number {
    let n = 0;
    for (const set of this.shardSetsOf(index)) n += this.dropWhere(set, () => true);
    return n;
  }

  /** Drops every entry of an index and forgets its counters (index deleted). */
  removeIndex(index: string): void {
    this.clearIndex(index);
    this.perIndex.delete(index);
    this.newestGeneration.delete(index);
    this.newestMappingVersion.delete(index);
  }

  /** Drops everything. Counters are kept. */
  clear(): void {
    this.lru.clear();
  }

  /** Removes entries whose TTL has passed (they are otherwise dropped lazily on access). */
  purgeStale(): void {
    if (this.ttlMs > 0) this.lru.purgeStale();
  }

  /** Stats of one index (zeros when the index never used the cache). */
  stats(index: string): RequestCacheStats {
    this.purgeStale();
    return { ...(this.perIndex.get(index) ?? emptyStats()) };
  }

  /** Node-wide totals (including indices deleted since). */
  totalStats(): RequestCacheStats {
    this.purgeStale();
    return { ...this.total };
  }

  /** Indices that currently have counters. */
  indices(): string[] {
    return [...this.perIndex.keys()];
  }

  // ------------------------------------------------------------------ internals

  private isSuperseded(key: RequestCacheKey): boolean {
    const gen = this.newestGeneration.get(key.index)?.get(key.shard);
    if (gen !== undefined && key.generation < gen) return true;
    const mv = this.newestMappingVersion.get(key.index);
    return mv !== undefined && key.mappingVersion < mv;
  }

  private shardSetsOf(index: string): Set<string>[] {
    const shards = this.byShard.get(index);
    return shards ? [...shards.values()] : [];
  }

  private dropWhere(set: Set<string> | undefined, pred: (e: Entry) => boolean): number {
    if (!set) return 0;
    let n = 0;
    for (const k of [...set]) {
      const e = this.lru.peek(k, { allowStale: true });
      if (e === undefined) {
        set.delete(k);
        continue;
      }
      if (pred(e)) {
        this.lru.delete(k);
        n++;
      }
    }
    return n;
  }

  private onRemoval(entry: Entry, k: string, reason: LRUCache.DisposeReason): void {
    this.total.memorySizeInBytes -= entry.size;
    const s = this.perIndex.get(entry.key.index);
    if (s) s.memorySizeInBytes -= entry.size;
    const shards = this.byShard.get(entry.key.index);
    const set = shards?.get(entry.key.shard);
    if (shards && set) {
      set.delete(k);
      if (set.size === 0) {
        shards.delete(entry.key.shard);
        if (shards.size === 0) this.byShard.delete(entry.key.index);
      }
    }
    if (reason === 'evict' || reason === 'expire') {
      this.total.evictions++;
      if (s) s.evictions++;
    }
  }

  private indexStats(index: string): RequestCacheStats {
    let s = this.perIndex.get(index);
    if (!s) this.perIndex.set(index, (s = emptyStats()));
    return s;
  }

  private countHit(index: string): void {
    this.total.hitCount++;
    this.indexStats(index).hitCount++;
  }

  private countMiss(index: string): void {
    this.total.missCount++;
    this.indexStats(index).missCount++;
  }
}
