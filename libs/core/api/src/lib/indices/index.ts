import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import {
  CloseIndexRestHandler,
  CreateIndexRestHandler,
  DeleteIndexRestHandler,
  GetFieldMappingRestHandler,
  GetIndexRestHandler,
  GetMappingRestHandler,
  GetSettingsRestHandler,
  OpenIndexRestHandler,
  PutMappingRestHandler,
  ResolveIndexRestHandler,
  UpdateSettingsRestHandler,
} from './indices.rest-handlers.js';
import { DeleteAliasRestHandler, GetAliasesRestHandler, PutAliasRestHandler, UpdateAliasesRestHandler } from './aliases.rest-handlers.js';
import { AnalyzeRestHandler } from './analyze.rest-handler.js';
import { ResizeIndexRestHandler } from './resize.rest-handler.js';

export * from './indices.rest-handlers.js';
export * from './aliases.rest-handlers.js';
export * from './analyze.rest-handler.js';
export * from './resize.rest-handler.js';
export { IndicesActions } from './indices-support.js';

/** REST handlers of the index admin APIs (services come from the engine's clusterModule). */
export const indicesApiModule = new ContainerModule(({ bind }) => {
  for (const h of [
    CreateIndexRestHandler,
    GetIndexRestHandler,
    DeleteIndexRestHandler,
    GetMappingRestHandler,
    PutMappingRestHandler,
    GetFieldMappingRestHandler,
    GetSettingsRestHandler,
    UpdateSettingsRestHandler,
    CloseIndexRestHandler,
    OpenIndexRestHandler,
    ResolveIndexRestHandler,
    UpdateAliasesRestHandler,
    PutAliasRestHandler,
    DeleteAliasRestHandler,
    GetAliasesRestHandler,
    AnalyzeRestHandler,
    ResizeIndexRestHandler,
  ]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});
