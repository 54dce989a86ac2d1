/**
 * The node's block cache: decoded pieces of segment files (term blocks, postings, doc-value columns,
 * compressed `_source` blocks), bounded in bytes, least recently used out first — a buffer pool in front of
 * positioned reads (Node has no mmap). One per node (`indices.store.block_cache.size`); shards share it.
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
      // most recently used last
      pool.map.delete(key);
      pool.map.set(key, e);
      return e.value as T;
    }
    this.missCount++;
    const r = load();
    this.read += r.readBytes ?? 0;
    const bytes = r.bytes + 64 + key.length * 2;
    if (bytes <= pool.limit) {
      pool.map.set(key, { value: r.value, bytes });
      pool.size += bytes;
      this.evict(pool);
    }
    return r.value;
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
    for (const [k, e] of pool.map) {
      if (pool.size <= pool.limit) break;
      pool.map.delete(k);
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

/** the cache of segments opened without one (tests, tools); the node passes its own */
export const defaultBlockCache = new BlockCache();

let uidCounter = 0;
/** a process-unique prefix for the cache keys of one opened file */
export function nextCacheUid(): string {
  return `${(uidCounter++).toString(36)}|`;
}
