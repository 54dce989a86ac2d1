/**
 * DI wiring of the storage engine: IndicesService (shards), DocumentService (document write/read path),
 * the engine-owned settings and the IndicesService lifecycle (flush on shutdown).
 *
 * On-disk layout of a shard, `<path.data>/indices/<index-uuid>/<shard>/`:
 * - `commit.json`           the commit point (segments + their live-docs generation, local checkpoint,
 *                           translog generation), replaced atomically (temp + fsync + rename) by a flush
 * - `_N.seg`                an immutable segment (postings, norms, doc values, points, stored metadata),
 *                           written by a flush; `_N.src` its `_source` bytes, written at refresh/merge time
 *                           and read with positioned reads; `_N_G.liv` its live docs at generation G
 * - `translog/translog-K.tlog` checksummed frames of operations since the commit; replayed on start-up
 * Files not referenced by the commit are removed on start-up; old segment files go once no reader uses them.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import { EngineTokens } from './services.js';
import { IndicesServiceImpl } from './shard/indices-service.js';
import { DocumentService } from './action/document/document-service.js';
import { STORAGE_SETTINGS } from './shard/shard-settings.js';
import { ResizeService } from './action/admin/resize-service.js';
import { PATH_REPO_SETTING, SnapshotsService } from './snapshots/snapshots-service.js';

export const storageModule = new ContainerModule((options) => {
  options.bind(IndicesServiceImpl).toSelf().inSingletonScope();
  options.bind(EngineTokens.IndicesService).toService(IndicesServiceImpl);
  options.bind(ExtensionPoints.LifecycleComponent).toService(IndicesServiceImpl);
  options.bind(DocumentService).toSelf().inSingletonScope();
  options.bind(EngineTokens.DocumentService).toService(DocumentService);
  options.bind(ResizeService).toSelf().inSingletonScope();
  options.bind(SnapshotsService).toSelf().inSingletonScope();
  options.bind(ExtensionPoints.Setting).toConstantValue(PATH_REPO_SETTING);
  for (const s of STORAGE_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
