/**
 * DI wiring of the storage engine: IndicesService (shards), DocumentService (document write/read path),
 * the engine-owned settings and the IndicesService lifecycle (flush on shutdown).
 *
 * On-disk layout of a shard, `<path.data>/indices/<index-uuid>/<shard>/`:
 * - `commit.json`           the commit point (segments + their live-docs generation, local checkpoint,
 *                           translog generation), replaced atomically (temp + fsync + rename) by a flush
 * - `_N.seg`, `_N.src`     an immutable segment (index/disk-segment.ts, codec StrataSegment 4): postings,
 *                           term blocks, norms, doc values, points and `_seq_no`/`_version` columns in `.seg`;
 *                           compressed `_id`/routing/`_source` blocks in `.src`. Written at refresh and by
 *                           merges, fsynced by a flush, read with positioned reads through the node's block
 *                           cache (`indices.store.block_cache.size`); `_N_G.liv` its live docs at generation G.
 *                           Every file has a header (codec, version) and a checksum footer.
 * - `translog/translog-K.tlog` checksummed frames of operations since the commit; replayed on start-up
 * Files not referenced by the commit are removed on start-up; old segment files go once no reader uses them.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints, Tokens, nodeIdentityOf, type HostConfig, type NodeIdentity } from '@strata/core-common';
import { EngineTokens } from './services.js';
import { IndicesServiceImpl } from './shard/indices-service.js';
import { DocumentService } from './action/document/document-service.js';
import { STORAGE_SETTINGS } from './shard/shard-settings.js';
import { ResizeService } from './action/admin/resize-service.js';
import { PATH_REPO_SETTING, SnapshotsService } from './snapshots/snapshots-service.js';
import { BlockCacheNodeStats } from './shard/block-cache.stats.js';
import { THREAD_POOL_SETTINGS, ThreadPool } from './threadpool/thread-pool.js';
import { INDEXING_PRESSURE_SETTINGS, IndexingPressure, IndexingPressureNodeStats } from './threadpool/indexing-pressure.js';
import { DISK_THRESHOLD_SETTINGS, DiskThresholdMonitor, statfsDiskUsageProbe } from './cluster/disk-threshold-monitor.js';

export const storageModule = new ContainerModule((options) => {
  options
    .bind(EngineTokens.ThreadPool)
    .toDynamicValue((ctx) => {
      const config = ctx.get<HostConfig>(Tokens.HostConfig, { optional: true });
      return new ThreadPool(config?.settings ?? {}, nodeIdentityOf(ctx.get<NodeIdentity>(Tokens.NodeIdentity, { optional: true }), config).name);
    })
    .inSingletonScope();
  for (const s of THREAD_POOL_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
  options
    .bind(EngineTokens.IndexingPressure)
    .toDynamicValue((ctx) => new IndexingPressure(ctx.get<HostConfig>(Tokens.HostConfig, { optional: true })?.settings ?? {}))
    .inSingletonScope();
  for (const s of INDEXING_PRESSURE_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
  options.bind(ExtensionPoints.NodeStatsContributor).to(IndexingPressureNodeStats).inSingletonScope();
  options.bind(EngineTokens.DiskUsageProbe).toConstantValue(statfsDiskUsageProbe);
  options.bind(DiskThresholdMonitor).toSelf().inSingletonScope();
  options.bind(ExtensionPoints.LifecycleComponent).toService(DiskThresholdMonitor);
  for (const s of DISK_THRESHOLD_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
  options.bind(IndicesServiceImpl).toSelf().inSingletonScope();
  options.bind(EngineTokens.IndicesService).toService(IndicesServiceImpl);
  options.bind(ExtensionPoints.LifecycleComponent).toService(IndicesServiceImpl);
  options.bind(DocumentService).toSelf().inSingletonScope();
  options.bind(EngineTokens.DocumentService).toService(DocumentService);
  options.bind(ResizeService).toSelf().inSingletonScope();
  options.bind(SnapshotsService).toSelf().inSingletonScope();
  options.bind(ExtensionPoints.Setting).toConstantValue(PATH_REPO_SETTING);
  options.bind(ExtensionPoints.NodeStatsContributor).to(BlockCacheNodeStats).inSingletonScope();
  for (const s of STORAGE_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
