import { inject, injectable } from 'inversify';
import { formatByteSize, type NodeStatsContributor } from '@strata/core-common';
import { IndicesServiceImpl } from './indices-service.js';

/**
 * `indices.block_cache` of GET /_nodes/stats: the node's cache of decoded segment blocks
 * (`indices.store.block_cache.size`): its limit, current size, entries, hits, misses, evictions and the
 * bytes read from segment files to fill it.
 */
@injectable()
export class BlockCacheNodeStats implements NodeStatsContributor {
  readonly section = 'indices.block_cache';
  constructor(@inject(IndicesServiceImpl) private readonly indices: IndicesServiceImpl) {}
  stats(opts: { human: boolean }): Record<string, unknown> {
    const s = this.indices.blockCache.stats();
    const out: Record<string, unknown> = {};
    if (opts.human) out['limit_size'] = formatByteSize(s.limitInBytes);
    out['limit_size_in_bytes'] = s.limitInBytes;
    if (opts.human) out['memory_size'] = formatByteSize(s.sizeInBytes);
    out['memory_size_in_bytes'] = s.sizeInBytes;
    out['entries'] = s.entries;
    out['hit_count'] = s.hits;
    out['miss_count'] = s.misses;
    out['evictions'] = s.evictions;
    if (opts.human) out['read'] = formatByteSize(s.readBytes);
    out['read_in_bytes'] = s.readBytes;
    return out;
  }
}
