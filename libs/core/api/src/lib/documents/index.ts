import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import {
  BulkRestHandler,
  DeleteDocRestHandler,
  FlushRestHandler,
  GetDocRestHandler,
  GetSourceRestHandler,
  IndexDocRestHandler,
  MgetRestHandler,
  RefreshRestHandler,
  ForceMergeRestHandler,
  UpdateDocRestHandler,
} from './documents.rest-handlers.js';

export * from './documents.rest-handlers.js';
export { DocumentActions } from './document-actions.js';

/** REST handlers of the document APIs (the services come from the engine's storageModule). */
export const documentsApiModule = new ContainerModule(({ bind }) => {
  for (const h of [
    IndexDocRestHandler,
    GetDocRestHandler,
    GetSourceRestHandler,
    DeleteDocRestHandler,
    UpdateDocRestHandler,
    MgetRestHandler,
    BulkRestHandler,
    RefreshRestHandler,
    FlushRestHandler,
    ForceMergeRestHandler,
  ]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});
