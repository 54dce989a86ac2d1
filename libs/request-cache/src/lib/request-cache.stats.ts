import { inject, injectable } from 'inversify';
import { formatByteSize, type IndexStatsContributor, type NodeStatsContributor } from '@strata/core-common';
import type { RequestCacheStats } from './cache/request-cache.js';
import { RequestCacheService } from './request-cache.service.js';

/**
 * Renders RequestCacheStats as Elasticsearch does (`human` adds `memory_size` before `memory_size_in_bytes`):
 * `{"memory_size":"1.2kb","memory_size_in_bytes":1234,"evictions":0,"hit_count":1,"miss_count":1}`.
 */
export function renderRequestCacheStats(s: RequestCacheStats, human: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (human) out['memory_size'] = formatByteSize(s.memorySizeInBytes);
  out['memory_size_in_bytes'] = s.memorySizeInBytes;
  out['evictions'] = s.evictions;
  out['hit_count'] = s.hitCount;
  out['miss_count'] = s.missCount;
  return out;
}

/** `indices.request_cache` of GET /_nodes/stats. */
@injectable()
export class RequestCacheNodeStats implements NodeStatsContributor {
  readonly section = 'indices.request_cache';
  constructor(@inject(RequestCacheService) private readonly service: RequestCacheService) {}
  stats(opts: { human: boolean }): Record<string, unknown> {
    return renderRequestCacheStats(this.service.cache.totalStats(), opts.human);
  }
}

/** `request_cache` metric of GET /_stats and /{index}/_stats. */
@injectable()
export class RequestCacheIndexStats implements IndexStatsContributor {
  readonly metric = 'request_cache';
  constructor(@inject(RequestCacheService) private readonly service: RequestCacheService) {}
  indexStats(index: string, opts: { human: boolean }): Record<string, unknown> {
    return renderRequestCacheStats(this.service.cache.stats(index), opts.human);
  }
}
