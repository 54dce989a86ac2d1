/**
 * The node's block cache: decoded pieces of segment files (term blocks, postings, doc-value columns,
 * compressed `_source` blocks), bounded in bytes, least recently used out first — a buffer pool in front of
 * positioned reads (Node has no mmap). One per node (`indices.store.block_cache.size`); shards share it.
 * An entry larger than the whole cache is handed out without being kept.
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

export class BlockCache {
  private readonly map = new Map<string, Entry>();
  private size = 0;
  private hitCount = 0;
  private missCount = 0;
  private evictionCount = 0;
  private read = 0;

  constructor(private limit: number = DEFAULT_BLOCK_CACHE_BYTES) {}

  get limitInBytes(): number {
    return this.limit;
  }

  setLimit(bytes: number): void {
    this.limit = Math.max(0, bytes);
    this.evict();
  }

  /** the cached value of `key`, or the loaded one (kept when it fits); `bytes` = its size in memory */
  get<T>(key: string, load: () => { value: T; bytes: number; readBytes?: number }): T {
    const e = this.map.get(key);
    if (e !== undefined) {
      this.hitCount++;
      // most recently used last
      this.map.delete(key);
      this.map.set(key, e);
      return e.value as T;
    }
    this.missCount++;
    const r = load();
    this.read += r.readBytes ?? 0;
    const bytes = r.bytes + 64 + key.length * 2;
    if (bytes <= this.limit) {
      this.map.set(key, { value: r.value, bytes });
      this.size += bytes;
      this.evict();
    }
    return r.value;
  }

  /** drops every entry whose key starts with `prefix` (a closed segment) */
  invalidatePrefix(prefix: string): void {
    for (const [k, e] of this.map) {
      if (k.startsWith(prefix)) {
        this.map.delete(k);
        this.size -= e.bytes;
      }
    }
  }

  clear(): void {
    this.map.clear();
    this.size = 0;
  }

  private evict(): void {
    if (this.size <= this.limit) return;
    for (const [k, e] of this.map) {
      if (this.size <= this.limit) break;
      this.map.delete(k);
      this.size -= e.bytes;
      this.evictionCount++;
    }
  }

  stats(): BlockCacheStats {
    return {
      limitInBytes: this.limit,
      sizeInBytes: this.size,
      entries: this.map.size,
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
