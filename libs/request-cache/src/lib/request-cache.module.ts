import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import { RequestCacheService } from './request-cache.service.js';
import { requestCacheSettings } from './request-cache.settings.js';
import { RequestCacheIndexStats, RequestCacheNodeStats } from './request-cache.stats.js';
import { RequestCacheEngineListener } from './request-cache.listener.js';
import { ClearCacheRestHandler } from './rest/clear-cache.rest-handler.js';
import { RequestCacheShardInterceptor } from './request-cache.interceptor.js';

/**
 * The request-cache feature: settings, the node-wide cache, eager invalidation on engine events,
 * stats sections, the cache-clear endpoint and the shard search interceptor.
 */
export const requestCacheModule = new ContainerModule(({ bind }) => {
  bind(RequestCacheService).toSelf().inSingletonScope();
  for (const def of requestCacheSettings) bind(ExtensionPoints.Setting).toConstantValue(def);
  bind(RequestCacheEngineListener).toSelf().inSingletonScope();
  bind(ExtensionPoints.EngineEventListener).toService(RequestCacheEngineListener);
  bind(ExtensionPoints.NodeStatsContributor).to(RequestCacheNodeStats).inSingletonScope();
  bind(ExtensionPoints.IndexStatsContributor).to(RequestCacheIndexStats).inSingletonScope();
  bind(ExtensionPoints.RestHandler).to(ClearCacheRestHandler).inSingletonScope();
  bind(ExtensionPoints.ShardSearchInterceptor).to(RequestCacheShardInterceptor).inSingletonScope();
});

export const requestCacheFeature: FeatureModule = { name: 'request-cache', module: requestCacheModule };
