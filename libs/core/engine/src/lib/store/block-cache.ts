/**
 * The node's block cache: decoded pieces of segment files (term blocks, postings, doc-value columns,
 * compressed `_source` blocks), bounded in bytes, least recently used out first — a buffer pool in front of
 * positioned reads (Node has no mmap). Recency is kept as CLOCK does (second chance): a hit only marks its
 * entry, and eviction, going from the oldest entry, moves a marked one to the newest end (unmarked) instead of
 * dropping it; a hit costs no reordering of the map (it was 19% of a merge's time). One per node (`indices.store.block_cache.size`); shards share it.
 * An entry larger than the whole cache is handed out without being kept.
 *
 * Two pools share the limit: `data` (postings, term blocks, doc values, points) and `stored` (decompressed
 * `_source` blocks, an eighth of the limit), so a scroll or a merge reading every document's `_source`
 * cycles through its own small pool instead of evicting the columns that queries and aggregations reuse.
 */
export interface BlockCacheStats {
  limitInBytes: number;
  sizeInBytes: number;
  entries: number;
  hits: number;
  misses: number;
  evictions: number;
  /** bytes read from files to fill it */
  readBytes: number;
}

export const DEFAULT_BLOCK_CACHE_BYTES = 512 * 1024 * 1024;

interface Entry {
  value: unknown;
  bytes: number;
  /** used since eviction last passed it */
  ref: boolean;
}

export type CachePool = 'data' | 'stored';

class Pool {
  readonly map = new Map<string, Entry>();
  size = 0;
  constructor(public limit: number) {}
}

export class BlockCache {
  private readonly pools: Record<CachePool, Pool>;
  private limit: number;
  private hitCount = 0;
  private missCount = 0;
  private evictionCount = 0;
  private read = 0;

  constructor(limit: number = DEFAULT_BLOCK_CACHE_BYTES) {
    this.limit = Math.max(0, limit);
    this.pools = { data: new Pool(0), stored: new Pool(0) };
    this.setLimit(this.limit);
  }

  get limitInBytes(): number {
    return this.limit;
  }

  setLimit(bytes: number): void {
    this.limit = Math.max(0, bytes);
    const stored = Math.floor(this.limit / 8);
    this.pools.stored.limit = stored;
    this.pools.data.limit = this.limit - stored;
    this.evict(this.pools.data);
    this.evict(this.pools.stored);
  }

  /** the cached value of `key`, or the loaded one (kept when it fits); `bytes` = its size in memory */
  get<T>(key: string, load: () => { value: T; bytes: number; readBytes?: number }, poolName: CachePool = 'data'): T {
    const pool = this.pools[poolName];
    const e = pool.map.get(key);
    if (e !== undefined) {
      this.hitCount++;
      e.ref = true;
      return e.value as T;
    }
    this.missCount++;
    const r = load();
    this.read += r.readBytes ?? 0;
    const bytes = r.bytes + 64 + key.length * 2;
    if (bytes <= pool.limit) {
      pool.map.set(key, { value: r.value, bytes, ref: false });
      pool.size += bytes;
      this.evict(pool);
    }
    return r.value;
  }

  /**
   * A hit its reader served from what it last got of the cache (see `LastBlock`), counted as one: the entry is
   * marked used as by `get` when the caller still has it
   */
  countHit(): void {
    this.hitCount++;
  }

  /** drops every entry whose key starts with `prefix` (a closed segment) */
  invalidatePrefix(prefix: string): void {
    for (const pool of Object.values(this.pools)) {
      for (const [k, e] of pool.map) {
        if (k.startsWith(prefix)) {
          pool.map.delete(k);
          pool.size -= e.bytes;
        }
      }
    }
  }

  clear(): void {
    for (const pool of Object.values(this.pools)) {
      pool.map.clear();
      pool.size = 0;
    }
  }

  private evict(pool: Pool): void {
    if (pool.size <= pool.limit) return;
    // (a marked entry moved to the end is met again, unmarked, after all the others)
    for (const [k, e] of pool.map) {
      if (pool.size <= pool.limit) break;
      pool.map.delete(k);
      if (e.ref) {
        e.ref = false;
        pool.map.set(k, e);
        continue;
      }
      pool.size -= e.bytes;
      this.evictionCount++;
    }
  }

  stats(): BlockCacheStats {
    return {
      limitInBytes: this.limit,
      sizeInBytes: this.pools.data.size + this.pools.stored.size,
      entries: this.pools.data.map.size + this.pools.stored.map.size,
      hits: this.hitCount,
      misses: this.missCount,
      evictions: this.evictionCount,
      readBytes: this.read,
    };
  }
}

/**
 * The block a reader got last, held weakly: a reader that reads the same block again (a merge or a scroll
 * going through docs in order, a column read doc by doc) takes it from here without making the cache key
 * (a string built and hashed per call) or looking it up. Held weakly, it keeps no memory the cache gave up.
 */
export class LastBlock<T extends object> {
  private b = -1;
  private ref: WeakRef<T> | null = null;

  /** `load` gets a block (through `cache`, which counts the hits served from here) */
  constructor(
    private readonly cache: BlockCache,
    private readonly load: (b: number) => T,
  ) {}

  /** block `b`: the one held when it is that one and still alive (a hit of the cache), else `load`'s, held from now on */
  get(b: number): T {
    if (b === this.b) {
      const held = this.ref!.deref();
      if (held !== undefined) {
        this.cache.countHit();
        return held;
      }
    }
    const value = this.load(b);
    this.b = b;
    this.ref = new WeakRef(value);
    return value;
  }
}

/** the cache of segments opened without one (tests, tools); the node passes its own */
export const defaultBlockCache = new BlockCache();

let uidCounter = 0;
/** a process-unique prefix for the cache keys of one opened file */
export function nextCacheUid(): string {
  return `${(uidCounter++).toString(36)}|`;
}
