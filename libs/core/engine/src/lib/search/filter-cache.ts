/**
 * The node's filter cache (Lucene's LRUQueryCache as Elasticsearch's indices query cache uses it): the doc set
 * a filter matches in a segment, kept per segment core so a filter used again (the same range in every search
 * of a dashboard) is tested as a bit set instead of being built again. A segment core is immutable and a
 * doc set holds deleted docs as the built one does (searches test live docs apart), so an entry stays exact
 * under deletes; a refresh or merge makes new cores, whose entries start empty, and the entries of cores no
 * longer searched age out of the LRU. Memory follows `indices.queries.cache.size` / `.count`, not the data.
 * Which filters are kept follows Lucene's UsageTrackingQueryCachingPolicy for costly filters: one used at
 * least twice among the last 256 filters seen, on segments of at least 10,000 docs.
 */
import type { FixedBitSet } from './doc-id-set.js';

export interface FilterCacheOptions {
  /** bytes of doc sets kept at most */
  maxBytes: number;
  /** entries kept at most */
  maxCount: number;
  /** a filter is kept once used this many times among the last `historySize` filters seen */
  minUses?: number;
  historySize?: number;
  /** segments with fewer docs are not cached */
  minSegmentDocs?: number;
}

/** a kept doc set, with its cost (the matches it was built from, deleted docs included) */
export interface CachedDocSet {
  readonly bits: FixedBitSet;
  readonly cost: number;
}

interface Entry extends CachedDocSet {
  bytes: number;
  /** the index whose search kept it ('' when kept without one) */
  owner: string;
}

/** one index's share of the cache and of its counters */
interface OwnerCounters {
  bytes: number;
  entries: number;
  hits: number;
  misses: number;
  puts: number;
  evictions: number;
}

const noCounters = (): OwnerCounters => ({ bytes: 0, entries: 0, hits: 0, misses: 0, puts: 0, evictions: 0 });

export interface QueryCacheStats {
  memory_size_in_bytes: number;
  total_count: number;
  hit_count: number;
  miss_count: number;
  cache_size: number;
  cache_count: number;
  evictions: number;
}

/** what a search uses of a filter cache: the node's, or its view for one index (stats counted per index) */
export interface FilterCacheView {
  onUse(key: string): void;
  get(core: object, key: string): CachedDocSet | null;
  shouldCache(key: string, maxDoc: number): boolean;
  put(core: object, key: string, bits: FixedBitSet, cost: number): void;
}

/** bytes charged per entry besides its bit set (key, map slots) */
const ENTRY_OVERHEAD = 120;

export class FilterCache implements FilterCacheView {
  private maxBytes: number;
  private maxCount: number;
  private readonly minUses: number;
  private readonly historySize: number;
  private readonly minSegmentDocs: number;
  /** a number per segment core (the cores themselves are not held) */
  private readonly coreIds = new WeakMap<object, number>();
  private nextCoreId = 1;
  /** `core id/filter key` → entry, least recently used first */
  private readonly entries = new Map<string, Entry>();
  /** the last filters seen (a ring) and how often each is in it */
  private readonly history: string[] = [];
  private historyAt = 0;
  private readonly useCounts = new Map<string, number>();
  bytes = 0;
  hits = 0;
  misses = 0;
  evictions = 0;
  /** doc sets ever kept */
  puts = 0;
  private readonly owners = new Map<string, OwnerCounters>();
  private readonly views = new Map<string, FilterCacheView>();

  constructor(options: FilterCacheOptions) {
    this.maxBytes = options.maxBytes;
    this.maxCount = options.maxCount;
    this.minUses = options.minUses ?? 2;
    this.historySize = options.historySize ?? 256;
    this.minSegmentDocs = options.minSegmentDocs ?? 10000;
  }

  /** new limits (node settings read at boot): entries beyond them are evicted */
  configure(maxBytes: number, maxCount: number): void {
    this.maxBytes = maxBytes;
    this.maxCount = maxCount;
    this.evict();
  }

  get size(): number {
    return this.entries.size;
  }

  /** one search uses the filter (once per search, whatever the number of segments) */
  onUse(key: string): void {
    const h = this.history;
    if (h.length < this.historySize) h.push(key);
    else {
      const old = h[this.historyAt]!;
      const c = this.useCounts.get(old)! - 1;
      if (c === 0) this.useCounts.delete(old);
      else this.useCounts.set(old, c);
      h[this.historyAt] = key;
      this.historyAt = (this.historyAt + 1) % this.historySize;
    }
    this.useCounts.set(key, (this.useCounts.get(key) ?? 0) + 1);
  }

  /** the cached doc set of the filter in this segment core, if any */
  get(core: object, key: string, owner = ''): CachedDocSet | null {
    const id = this.coreIds.get(core);
    const k = id === undefined ? '' : id + '/' + key;
    const e = id === undefined ? undefined : this.entries.get(k);
    if (e === undefined) {
      this.misses++;
      this.counters(owner).misses++;
      return null;
    }
    // most recently used last
    this.entries.delete(k);
    this.entries.set(k, e);
    this.hits++;
    this.counters(owner).hits++;
    return e;
  }

  /** whether a doc set just built for this filter in a segment of maxDoc docs is worth keeping */
  shouldCache(key: string, maxDoc: number): boolean {
    return maxDoc >= this.minSegmentDocs && (this.useCounts.get(key) ?? 0) >= this.minUses && this.maxCount > 0;
  }

  /** keeps the doc set (the caller no longer changes it) */
  put(core: object, key: string, bits: FixedBitSet, cost: number, owner = ''): void {
    const bytes = bits.words.byteLength + ENTRY_OVERHEAD + key.length * 2;
    if (bytes > this.maxBytes) return;
    let id = this.coreIds.get(core);
    if (id === undefined) this.coreIds.set(core, (id = this.nextCoreId++));
    const k = id + '/' + key;
    const prev = this.entries.get(k);
    if (prev !== undefined) this.remove(k, prev);
    this.entries.set(k, { bits, cost, bytes, owner });
    this.bytes += bytes;
    const c = this.counters(owner);
    c.bytes += bytes;
    c.entries++;
    this.puts++;
    c.puts++;
    this.evict();
  }

  /** the cache as the searches of one index use it: the same entries, that index's counters */
  forIndex(index: string): FilterCacheView {
    let v = this.views.get(index);
    if (v === undefined) {
      v = {
        onUse: (key) => this.onUse(key),
        get: (core, key) => this.get(core, key, index),
        shouldCache: (key, maxDoc) => this.shouldCache(key, maxDoc),
        put: (core, key, bits, cost) => this.put(core, key, bits, cost, index),
      };
      this.views.set(index, v);
    }
    return v;
  }

  /** drops every kept doc set (`POST /_cache/clear?query=true`); the counters stay */
  clear(): void {
    this.entries.clear();
    this.bytes = 0;
    for (const c of this.owners.values()) {
      c.bytes = 0;
      c.entries = 0;
    }
  }

  /** forgets a deleted index: its entries and counters */
  dropIndex(index: string): void {
    for (const [k, e] of this.entries) if (e.owner === index) this.remove(k, e);
    this.owners.delete(index);
    this.views.delete(index);
  }

  private counters(owner: string): OwnerCounters {
    let c = this.owners.get(owner);
    if (c === undefined) this.owners.set(owner, (c = noCounters()));
    return c;
  }

  private remove(k: string, e: Entry): void {
    this.entries.delete(k);
    this.bytes -= e.bytes;
    const c = this.counters(e.owner);
    c.bytes -= e.bytes;
    c.entries--;
  }

  /** Elasticsearch's `query_cache` stats section: the node's, or one index's share */
  stats(index?: string): QueryCacheStats {
    const c = index === undefined ? { bytes: this.bytes, entries: this.entries.size, hits: this.hits, misses: this.misses, puts: this.puts, evictions: this.evictions } : (this.owners.get(index) ?? noCounters());
    return {
      memory_size_in_bytes: c.bytes,
      total_count: c.hits + c.misses,
      hit_count: c.hits,
      miss_count: c.misses,
      cache_size: c.entries,
      cache_count: c.puts,
      evictions: c.evictions,
    };
  }

  private evict(): void {
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes && this.entries.size <= this.maxCount) break;
      this.remove(k, e);
      this.evictions++;
      this.counters(e.owner).evictions++;
    }
  }
}

/** the node's filter cache (sized at boot from `indices.queries.cache.size` and `.count` by the search module) */
export const NODE_FILTER_CACHE = new FilterCache({ maxBytes: 0, maxCount: 0 });
