/**
 * The thin adapter between the engine's shard search (ShardSearchInterceptor around the query phase) and
 * the RequestCacheService. Everything that decides and keys lives in the service; this maps the engine's
 * shard request/context onto a CacheableShardSearch.
 */
import { inject, injectable } from 'inversify';
import { RequestCacheService, type CacheableShardSearch } from './request-cache.service.js';
import { indexCacheEnabled } from './request-cache.settings.js';

export const REQUEST_CACHE_INTERCEPTOR_ORDER = 500;

/*
 * Structural views of the engine's ShardSearchRequest / ShardSearchContext / ShardQueryResult
 * (core-engine search/spi-search.ts): only the members the cache reads, so the adapter also works with any
 * shard-search implementation that exposes them.
 */
export interface ShardSearchRequestView {
  readonly shardIndex: number;
  readonly numShards: number;
  readonly source: { readonly size: number; readonly slice?: unknown; readonly profile?: boolean };
  readonly rawBody?: string;
  readonly requestCache?: boolean;
  readonly scroll: boolean;
  readonly nowUsed: boolean;
  readonly profile: boolean;
  readonly aliasFilter?: unknown;
  readonly searchAfter?: unknown[];
  /** dfs_query_then_fetch cannot be cached (absent = query_then_fetch) */
  readonly searchType?: string;
}

export interface ShardSearchContextView {
  readonly index: string;
  readonly shardId: number;
  readonly indexMetadata?: { readonly mappingVersion: number };
  readonly indexSettings: Readonly<Record<string, unknown>>;
  readonly reader: { readonly cacheKey: string; readonly generation: number; readonly mappingVersion: number };
}

export interface ShardQueryResultView {
  shardIndex: number;
}

/** Maps an engine shard search onto the cache's view of it. */
export function toCacheableShardSearch(req: ShardSearchRequestView, shard: ShardSearchContextView): CacheableShardSearch {
  const src = req.source;
  const reader = shard.reader;
  // hits (size > 0), slices and search_after depend on the shard's position in the request
  const positional = src.size !== 0 || src.slice !== undefined || req.searchAfter !== undefined;
  return {
    index: shard.index,
    shard: shard.shardId,
    readerKey: reader.cacheKey,
    generation: reader.generation,
    // queries are parsed against the current mapping, which may be newer than the reader
    mappingVersion: Math.max(reader.mappingVersion, shard.indexMetadata?.mappingVersion ?? 0),
    rawBody: req.rawBody ?? '',
    source: src,
    requestCache: req.requestCache,
    indexEnabled: indexCacheEnabled(shard.indexSettings),
    size: src.size,
    scroll: req.scroll,
    profile: req.profile || src.profile === true,
    searchType: req.searchType,
    nonDeterministic: req.nowUsed,
    // the normalised source covers URL parameters folded into it (q, size, sort, track_total_hits, ...)
    extra: {
      source: src,
      aliasFilter: req.aliasFilter ?? null,
      searchAfter: req.searchAfter ?? null,
      position: positional ? [req.shardIndex, req.numShards] : null,
    },
  };
}

@injectable()
export class RequestCacheShardInterceptor {
  readonly name = 'request_cache';
  readonly order = REQUEST_CACHE_INTERCEPTOR_ORDER;

  constructor(@inject(RequestCacheService) private readonly service: RequestCacheService) {}

  async intercept<R extends ShardQueryResultView>(
    req: ShardSearchRequestView,
    shard: ShardSearchContextView,
    next: () => Promise<R>,
  ): Promise<R> {
    const result = await this.service.execute(toCacheableShardSearch(req, shard), next);
    // a result cached for another request may have had this shard at another position
    if (result.shardIndex !== req.shardIndex) result.shardIndex = req.shardIndex;
    return result;
  }
}
