/**
 * DI wiring of the storage engine: IndicesService (shards), DocumentService (document write/read path),
 * the engine-owned settings and the IndicesService lifecycle (flush on shutdown).
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import { EngineTokens } from './services.js';
import { IndicesServiceImpl } from './shard/indices-service.js';
import { DocumentService } from './action/document/document-service.js';
import { STORAGE_SETTINGS } from './shard/shard-settings.js';

export const storageModule = new ContainerModule((options) => {
  options.bind(IndicesServiceImpl).toSelf().inSingletonScope();
  options.bind(EngineTokens.IndicesService).toService(IndicesServiceImpl);
  options.bind(ExtensionPoints.LifecycleComponent).toService(IndicesServiceImpl);
  options.bind(DocumentService).toSelf().inSingletonScope();
  options.bind(EngineTokens.DocumentService).toService(DocumentService);
  for (const s of STORAGE_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
