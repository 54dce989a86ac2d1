/**
 * The node's request cache: one RequestCache sized from the node settings, plus the decision logic that the
 * shard-search interceptor delegates to. Independent of any search implementation: callers describe the
 * shard search with a CacheableShardSearch.
 */
import { inject, injectable, optional } from 'inversify';
import { systemClock, Tokens, type Clock, type HostConfig } from '@strata/core-common';
import { EngineTokens, type ClusterMetadata, type MetadataStore } from '@strata/core-engine';
import { RequestCache, type RequestCacheKey } from './cache/request-cache.js';
import { inspectSource, notCacheableReason, type NotCachedReason } from './cache/cache-policy.js';
import { hashRequest } from './cache/request-key.js';
import {
  INDICES_REQUESTS_CACHE_EXPIRE,
  INDICES_REQUESTS_CACHE_SIZE,
  indicesRequestsCacheExpireSetting,
  indicesRequestsCacheSizeSetting,
  resolveMemorySize,
} from './request-cache.settings.js';

/** Everything the cache needs to know about one shard-level search. */
export interface CacheableShardSearch {
  readonly index: string;
  readonly shard: number;
  /** reader identity (DirectoryReader.cacheKey: shard uuid + generation) */
  readonly readerKey: string;
  readonly generation: number;
  /** mapping version the request is parsed against */
  readonly mappingVersion: number;
  /** the request body exactly as sent ('' when none) */
  readonly rawBody: string;
  /** URL query parameters of the search (result-neutral ones are ignored) */
  readonly params?: Readonly<Record<string, string | undefined>>;
  /** parsed search source (inspected for `now`, scripts, random_score) */
  readonly source?: unknown;
  /** the request_cache parameter, if given */
  readonly requestCache?: boolean;
  /** index.requests.cache.enable of the index */
  readonly indexEnabled: boolean;
  readonly size: number;
  readonly scroll: boolean;
  readonly profile: boolean;
  readonly searchType?: string;
  /** set by the query parser when date math used `now` without rounding (or anything non-deterministic) */
  readonly nonDeterministic?: boolean;
  /** other parts of the shard request that change the result (alias filter, shard ordinal, ...) */
  readonly extra?: unknown;
}

export interface RequestCacheConfig {
  maxSizeBytes: number;
  ttlMs: number;
}

/** Reads the node settings (from the host config) into a cache configuration. */
export function requestCacheConfigFrom(settings: Readonly<Record<string, unknown>> | undefined, heapBytes?: number): RequestCacheConfig {
  const rawSize = settings?.[INDICES_REQUESTS_CACHE_SIZE];
  const size = rawSize === undefined || rawSize === null ? indicesRequestsCacheSizeSetting.defaultValue : indicesRequestsCacheSizeSetting.parse(rawSize);
  const rawExpire = settings?.[INDICES_REQUESTS_CACHE_EXPIRE];
  const ttlMs =
    rawExpire === undefined || rawExpire === null ? indicesRequestsCacheExpireSetting.defaultValue : indicesRequestsCacheExpireSetting.parse(rawExpire);
  return { maxSizeBytes: Math.max(1, resolveMemorySize(size, heapBytes)), ttlMs };
}

/** A shard result that must not be cached (ES does not cache timed-out or partial shard results). */
export function isCacheableResult(result: unknown): boolean {
  if (result === null || typeof result !== 'object') return true;
  const r = result as Record<string, unknown>;
  return r['timedOut'] !== true && r['timed_out'] !== true && r['searchTimedOut'] !== true && r['partial'] !== true;
}

@injectable()
export class RequestCacheService {
  readonly cache: RequestCache;
  private readonly clock: Clock;
  /** why the last decisions bypassed the cache (for debugging / tests) */
  lastBypassReason: NotCachedReason | undefined;

  constructor(
    @inject(Tokens.HostConfig) @optional() hostConfig?: HostConfig,
    @inject(Tokens.Clock) @optional() clock?: Clock,
    @inject(EngineTokens.MetadataStore) @optional() metadata?: MetadataStore,
  ) {
    this.clock = clock ?? systemClock;
    const cfg = requestCacheConfigFrom(hostConfig?.settings);
    this.cache = new RequestCache({
      maxSizeBytes: cfg.maxSizeBytes,
      ttlMs: cfg.ttlMs,
      now: cfg.ttlMs > 0 ? () => this.clock.now() : undefined,
    });
    // belt and braces next to the engine events: metadata changes drop entries eagerly too
    metadata?.onChange((next, prev) => this.onMetadataChange(next, prev));
  }

  /** Drops entries of deleted / re-created indices and of older mapping versions. */
  onMetadataChange(next: ClusterMetadata, prev: ClusterMetadata): void {
    for (const [name, before] of Object.entries(prev.indices)) {
      const after = next.indices[name];
      if (!after || after.uuid !== before.uuid) this.onIndexDeleted(name);
      else if (after.mappingVersion > before.mappingVersion) this.onMappingUpdate(name, after.mappingVersion);
      else if (after.state === 'close' && before.state !== 'close') this.clearIndex(name);
    }
  }

  /**
   * Returns the key under which the search may be cached, or the reason it may not.
   */
  keyFor(s: CacheableShardSearch): { key: RequestCacheKey } | { reason: NotCachedReason } {
    // cheap checks first: most searches (size > 0) stop here without inspecting the source
    const reason = notCacheableReason({
      requestCache: s.requestCache,
      indexEnabled: s.indexEnabled,
      size: s.size,
      scroll: s.scroll,
      profile: s.profile,
      searchType: s.searchType,
      nonDeterministic: s.nonDeterministic === true,
    });
    if (reason !== undefined) return { reason };
    let nowBucket: number | undefined;
    if (s.source !== undefined) {
      const d = inspectSource(s.source, this.clock.now());
      if (d.nonDeterministic) return { reason: 'non_deterministic' };
      nowBucket = d.nowBucket;
    }
    const extra = nowBucket === undefined ? s.extra : { extra: s.extra ?? null, nowBucket };
    return {
      key: {
        index: s.index,
        shard: s.shard,
        readerKey: s.readerKey,
        generation: s.generation,
        mappingVersion: s.mappingVersion,
        requestHash: hashRequest({ rawBody: s.rawBody, params: s.params, extra }),
      },
    };
  }

  /**
   * Runs the shard search through the cache: a cached copy when present, else `next()` (cached when the
   * result is cacheable). Searches that may not be cached go straight to `next()` and touch no counter.
   */
  async execute<T>(s: CacheableShardSearch, next: () => Promise<T>): Promise<T> {
    const k = this.keyFor(s);
    if ('reason' in k) {
      this.lastBypassReason = k.reason;
      return next();
    }
    this.lastBypassReason = undefined;
    return this.cache.getOrLoad(k.key, next, isCacheableResult);
  }

  // invalidation entry points (engine events, cache clear)

  onRefresh(index: string, shard: number, generation: number): void {
    this.cache.invalidateShardGenerationsBelow(index, shard, generation);
  }

  onMappingUpdate(index: string, mappingVersion: number): void {
    this.cache.invalidateMappingVersionsBelow(index, mappingVersion);
  }

  onIndexDeleted(index: string): void {
    this.cache.removeIndex(index);
  }

  clearIndex(index: string): void {
    this.cache.clearIndex(index);
  }
}
