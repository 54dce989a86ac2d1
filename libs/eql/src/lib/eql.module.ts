import { ContainerModule, inject, injectable, optional } from 'inversify';
import { ExtensionPoints, Tokens, type Clock, type FeatureModule, type HostConfig, type LifecycleComponent, type XPackFeature } from '@strata/core-common';
import { AsyncSearchStore } from './service/async-store.js';
import { EqlBreakerService } from './service/breaker.js';
import { EqlSearchService, EqlTokens } from './service/eql-search.service.js';
import { EqlSearchContexts } from './service/eql.search-contexts.js';
import { RemoteClusters } from './service/remote-clusters.js';
import { eqlSettings } from './eql.settings.js';
import { EqlDeleteRestHandler, EqlGetRestHandler, EqlSearchRestHandler, EqlStatusRestHandler } from './rest/eql.rest-handlers.js';

/** deletes stored EQL searches whose keep_alive passed (cancelling running ones) */
@injectable()
export class EqlAsyncReaper implements LifecycleComponent {
  readonly name = 'eql-async-reaper';
  private timer?: NodeJS.Timeout;

  constructor(@inject(EqlTokens.AsyncStore) private readonly store: AsyncSearchStore) {}

  start(): void {
    this.timer = setInterval(() => this.store.reap(), 1000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.store.stop();
  }
}

@injectable()
class AsyncStoreFactory {
  readonly store: AsyncSearchStore;
  constructor(@inject(Tokens.Clock) clock: Clock, @inject(Tokens.HostConfig) @optional() config?: HostConfig) {
    const dataPath = config?.settings['path.data'];
    this.store = new AsyncSearchStore(clock, dataPath === undefined ? undefined : String(dataPath));
  }
}

/**
 * The eql feature: `/{index}/_eql/search` (sync and async), `/_eql/search/{id}` get/delete,
 * `/_eql/search/status/{id}`, the async store, its reaper and its search-context provider (kind `async_eql`), the eql_sequence breaker and remote clusters.
 */
export const eqlModule = new ContainerModule(({ bind }) => {
  bind(AsyncStoreFactory).toSelf().inSingletonScope();
  bind(EqlTokens.AsyncStore)
    .toDynamicValue((ctx) => ctx.get(AsyncStoreFactory).store)
    .inSingletonScope();
  bind(EqlBreakerService).toSelf().inSingletonScope();
  bind(RemoteClusters).toSelf().inSingletonScope();
  bind(EqlSearchService).toSelf().inSingletonScope();
  bind(EqlAsyncReaper).toSelf().inSingletonScope();
  bind(ExtensionPoints.LifecycleComponent).toService(EqlAsyncReaper);
  bind(ExtensionPoints.SearchContextProvider).to(EqlSearchContexts).inSingletonScope();
  bind(ExtensionPoints.XPackFeature).toConstantValue({ name: 'eql', enabled: () => true } satisfies XPackFeature);
  for (const def of eqlSettings) bind(ExtensionPoints.Setting).toConstantValue(def);
  for (const h of [EqlSearchRestHandler, EqlGetRestHandler, EqlStatusRestHandler, EqlDeleteRestHandler]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});

export const eqlFeature: FeatureModule = { name: 'eql', module: eqlModule };
