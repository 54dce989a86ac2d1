import { ContainerModule } from 'inversify';
import { ExtensionPoints, type FeatureModule } from '@strata/core-common';
import { EngineTokens, type IndicesService } from '@strata/core-engine';
import { ContextRegistry } from './context-registry.js';
import { PagingService, PagingTokens } from './paging.service.js';
import { PagingCoordinatorInterceptor } from './paging.interceptor.js';
import { pitSourceExtension } from './pit.source-extension.js';
import { shardContextStats } from './paging.stats.js';
import { ContextReaper } from './paging.reaper.js';
import { pagingSettings } from './paging.settings.js';
import { PagingSearchContexts } from './paging.search-contexts.js';
import { ClearScrollRestHandler, ClosePitRestHandler, OpenPitRestHandler, ScrollRestHandler } from './rest/paging.rest-handlers.js';

/**
 * The paging feature: point-in-time and scroll reader contexts, their REST endpoints, the coordinator
 * interceptor that runs searches on held readers, a reaper for expired contexts; the contexts count in the
 * shards' search stats.
 */
export const pagingModule = new ContainerModule(({ bind }) => {
  bind(PagingTokens.ContextRegistry)
    .toDynamicValue((ctx) => {
      const indices = ctx.get<IndicesService>(EngineTokens.IndicesService, { optional: true });
      return new ContextRegistry(indices ? shardContextStats(indices) : undefined);
    })
    .inSingletonScope();
  bind(PagingService).toSelf().inSingletonScope();
  bind(ExtensionPoints.CoordinatorSearchInterceptor).to(PagingCoordinatorInterceptor).inSingletonScope();
  bind(ExtensionPoints.SearchSourceExtension).toConstantValue(pitSourceExtension);
  bind(ContextReaper).toSelf().inSingletonScope();
  bind(ExtensionPoints.LifecycleComponent).toService(ContextReaper);
  bind(ExtensionPoints.SearchContextProvider).to(PagingSearchContexts).inSingletonScope();
  for (const def of pagingSettings) bind(ExtensionPoints.Setting).toConstantValue(def);
  for (const h of [OpenPitRestHandler, ClosePitRestHandler, ScrollRestHandler, ClearScrollRestHandler]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});

export const pagingFeature: FeatureModule = { name: 'paging', module: pagingModule };
