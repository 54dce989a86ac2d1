import { inject, injectable } from 'inversify';
import type { EngineEventListener } from '@strata/core-engine';
import { RequestCacheService } from './request-cache.service.js';

/** Drops cache entries eagerly when a shard refreshes, a mapping changes or an index goes away. */
@injectable()
export class RequestCacheEngineListener implements EngineEventListener {
  constructor(@inject(RequestCacheService) private readonly service: RequestCacheService) {}

  onRefresh(index: string, shard: number, generation: number): void {
    this.service.onRefresh(index, shard, generation);
  }

  onMappingUpdate(index: string, mappingVersion: number): void {
    this.service.onMappingUpdate(index, mappingVersion);
  }

  onIndexDeleted(index: string): void {
    this.service.onIndexDeleted(index);
  }

  onIndexCreated(index: string): void {
    // a re-created index starts with fresh counters
    this.service.onIndexDeleted(index);
  }
}
