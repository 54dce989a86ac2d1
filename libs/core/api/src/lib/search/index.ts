import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import {
  CountRestHandler,
  ExplainRestHandler,
  FieldCapsRestHandler,
  MultiSearchRestHandler,
  SearchRestHandler,
  ValidateQueryRestHandler,
} from './search.rest-handlers.js';

export * from './search.rest-handlers.js';
export * from './search-request-builder.js';

/** REST handlers of the search APIs (SearchService comes from the engine's searchModule). */
export const searchApiModule = new ContainerModule(({ bind }) => {
  for (const h of [SearchRestHandler, CountRestHandler, MultiSearchRestHandler, FieldCapsRestHandler, ValidateQueryRestHandler, ExplainRestHandler]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});
