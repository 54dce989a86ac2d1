/**
 * Opens, closes and deletes shards following cluster metadata (like ES's IndicesClusterStateService):
 * subscribes to MetadataStore.onChange, recovers every existing index's shards at boot, applies dynamic
 * settings, and serves per-index stats.
 */
import * as path from 'node:path';
import { inject, injectable, multiInject, optional } from 'inversify';
import { Errors, EsError, ExtensionPoints, Tokens, type HostConfig, type LifecycleComponent, type Logger } from '@strata/core-common';
import type { ClusterMetadata, IndexMetadata, MetadataStore } from '../cluster/metadata.js';
import { EngineTokens, type IndicesService, type MapperService, type ShardFailureInfo, type ShardSegments } from '../services.js';
import { NODE_FILTER_CACHE } from '../search/filter-cache.js';
import type { EngineEventListener } from '../spi.js';
import type { ParsedDocument } from '../mapper/parsed-document.js';
import { IndexShardImpl, type IndexCommitRef, type ShardStats } from './index-shard.js';
import { blockCacheBytesFrom, bulkParseThreadsFrom, mergeThreadsFrom, shardSettingsFrom } from './shard-settings.js';
import { MergeWorkerPool, mergeWorkerFile } from './merge-pool.js';
import type { ParseTask, ParseTaskResult } from '../mapper/parse-task.js';
import { BlockCache } from '../store/block-cache.js';
import { indexDataDir, removeQuietly } from '../store/directory.js';
import * as fs from 'node:fs';

export interface IndexStatsSummary {
  index: string;
  uuid: string;
  shards: ShardStats[];
  total: ShardStats;
}

const SUM_KEYS: Array<keyof ShardStats> = [
  'docsCount',
  'docsDeleted',
  'storeSizeInBytes',
  'indexTotal',
  'indexTimeInMillis',
  'indexCurrent',
  'indexFailed',
  'deleteTotal',
  'deleteTimeInMillis',
  'noopUpdateTotal',
  'getTotal',
  'getTimeInMillis',
  'getExistsTotal',
  'getMissingTotal',
  'searchOpenContexts',
  'searchQueryTotal',
  'searchQueryNanos',
  'searchQueryCurrent',
  'searchFetchTotal',
  'searchFetchNanos',
  'searchFetchCurrent',
  'searchScrollTotal',
  'searchScrollMillis',
  'searchScrollCurrent',
  'searchSuggestTotal',
  'searchSuggestNanos',
  'searchSuggestCurrent',
  'refreshTotal',
  'refreshTimeInMillis',
  'externalRefreshTotal',
  'flushTotal',
  'flushTimeInMillis',
  'mergesTotal',
  'mergesTotalDocs',
  'mergesTotalSizeInBytes',
  'mergesTimeInMillis',
  'mergesCurrent',
  'segmentsCount',
  'segmentsMemoryInBytes',
  'translogOperations',
  'translogSizeInBytes',
  'translogUncommittedOperations',
  'translogUncommittedSizeInBytes',
];

export function sumShardStats(list: readonly ShardStats[]): ShardStats {
  const out = {} as Record<string, number>;
  for (const k of SUM_KEYS) out[k] = 0;
  out['maxSeqNo'] = -1;
  out['localCheckpoint'] = -1;
  out['generation'] = 0;
  for (const s of list) {
    for (const k of SUM_KEYS) out[k] += s[k] as number;
    out['maxSeqNo'] = Math.max(out['maxSeqNo'], s.maxSeqNo);
    out['localCheckpoint'] = Math.max(out['localCheckpoint'], s.localCheckpoint);
    out['generation'] = Math.max(out['generation'], s.generation);
  }
  return out as unknown as ShardStats;
}

/** the storage engine's extended IndicesService */
export interface StorageIndicesService extends IndicesService {
  shards(index: string): IndexShardImpl[];
  shard(index: string, shardId: number, unavailable?: (failure: ShardFailureInfo) => Error): IndexShardImpl;
  shardFailures(index?: string): ShardFailureInfo[];
  retryFailedShards(): number;
  /** open indices with shards */
  indexNames(): string[];
  /** ES `_stats` sections of an index (docs, store, indexing, get, refresh, flush, merges, segments, translog) */
  indexStats(index: string): Record<string, Record<string, unknown>>;
  /** raw per-shard and summed numbers */
  indexStatsSummary(index: string): IndexStatsSummary;
  /** the segments of each started shard (reader and last commit; see IndexShardImpl.segmentsInfo) */
  indexSegments(index: string): ShardSegments[];
  refreshIndex(index: string): Promise<{ total: number; successful: number; failed: number }>;
  flushIndex(index: string): { total: number; successful: number; failed: number };
  /** merges in the node's merge threads (see IndexShardImpl.forceMergeAsync), one shard after the other */
  forceMerge(index: string, maxNumSegments?: number, onlyExpungeDeletes?: boolean): Promise<void>;
  /** the `_forcemerge` API on one index: maxNumSegments -1 runs the policy's merges; flush commits afterwards */
  forceMergeIndex(
    index: string,
    opts: { maxNumSegments: number; onlyExpungeDeletes: boolean; flush: boolean },
  ): Promise<{ total: number; successful: number; failed: number }>;
  /** flushes a shard and holds its commit (files kept until release): snapshots and shrink copy from it */
  acquireIndexCommit(index: string, shardId: number): IndexCommitRef;
  /** the directory of shard `shardId` of the index with this uuid (restore/shrink fill it before publishing) */
  shardPath(indexUuid: string, shardId: number): string;
  /**
   * parses a chunk of bulk documents in a parse thread of the node; null (at once) when the node has none, the
   * promise's null when the chunk could not be taken: the event loop parses those documents
   */
  parseDocuments?(task: ParseTask): Promise<ParseTaskResult | null> | null;
  close(): void;
}

interface OpenIndex {
  uuid: string;
  /** started shards, by ascending shard id */
  shards: IndexShardImpl[];
  /** shards that failed to open: their files stay untouched until the index is deleted */
  failed: Map<number, ShardFailureInfo>;
  settingsVersion: number;
}

@injectable()
export class IndicesServiceImpl implements StorageIndicesService, LifecycleComponent {
  readonly name = 'indices-service';
  private readonly open = new Map<string, OpenIndex>();
  private readonly dataPath: string;
  private readonly listeners: EngineEventListener[];
  private closed = false;
  /** the node's block cache: every shard reads its segment files through it */
  readonly blockCache: BlockCache;
  /** the node's merge threads (null: merges run on the event loop) */
  readonly mergePool: MergeWorkerPool | null;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(Tokens.HostConfig) @optional() hostConfig?: HostConfig,
    @multiInject(ExtensionPoints.EngineEventListener) @optional() listeners?: EngineEventListener[],
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    this.dataPath = String(hostConfig?.settings?.['path.data'] ?? './data');
    this.blockCache = new BlockCache(blockCacheBytesFrom(hostConfig?.settings));
    const mergeThreads = mergeThreadsFrom(hostConfig?.settings);
    const workerFile = mergeThreads > 0 ? mergeWorkerFile() : null;
    if (mergeThreads > 0 && !workerFile) this.logger?.info({ threads: mergeThreads }, 'no merge worker entry beside the bundle: merges run on the event loop');
    this.mergePool = workerFile ? new MergeWorkerPool(mergeThreads, workerFile, bulkParseThreadsFrom(hostConfig?.settings)) : null;
    this.listeners = listeners ?? [];
    this.store.onChange((next, prev) => this.apply(next, prev));
    this.sweepOrphans(this.store.current());
    this.apply(this.store.current(), null);
  }

  /**
   * Removes index directories no index in the metadata refers to: what a crash left between filling a new
   * index's shards (restore, shrink) and publishing it, or between unpublishing and deleting one.
   */
  private sweepOrphans(md: ClusterMetadata): void {
    const root = path.join(this.dataPath, 'indices');
    let names: string[];
    try {
      names = fs.readdirSync(root);
    } catch {
      return;
    }
    const known = new Set(Object.values(md.indices).map((im) => im.uuid));
    for (const n of names) if (!known.has(n)) removeQuietly(path.join(root, n));
  }

  start(): void {
    /* shards are opened eagerly in the constructor */
  }

  /**
   * Graceful shutdown: the segment writes running in the write thread finish first (up to 10 s), so closing
   * commits their files instead of writing those segments again on the event loop.
   */
  async stop(): Promise<void> {
    if (!this.closed) {
      const shards = [...this.open.values()].flatMap((e) => e.shards).filter((s) => !s.isClosed);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(shards.map((s) => s.waitForSegmentWrites(1))),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, 10_000))),
      ]);
      clearTimeout(timer);
    }
    this.close();
  }

  parseDocuments(task: ParseTask): Promise<ParseTaskResult | null> | null {
    return this.mergePool?.canParse ? this.mergePool.parse(task) : null;
  }

  /** flushes and closes every shard (graceful shutdown) */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [, entry] of this.open) for (const s of entry.shards) this.safe(() => s.close(true));
    this.open.clear();
    void this.mergePool?.close().catch(() => undefined);
  }

  private safe(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger?.error({ err: String(err) }, 'shard operation failed');
    }
  }

  indexDir(uuid: string): string {
    return indexDataDir(this.dataPath, uuid);
  }

  shardPath(indexUuid: string, shardId: number): string {
    return path.join(this.indexDir(indexUuid), String(shardId));
  }

  acquireIndexCommit(index: string, shardId: number): IndexCommitRef {
    return this.shard(index, shardId).acquireIndexCommit();
  }

  private apply(next: ClusterMetadata, prev: ClusterMetadata | null): void {
    if (this.closed) return;
    // removed or closed indices
    for (const [name, entry] of [...this.open]) {
      const meta = next.indices[name];
      if (!meta || meta.uuid !== entry.uuid) {
        // the index directory goes once every shard released its files (searches still running on the
        // deleted index finish on them); a crash meanwhile leaves an orphan that the next start sweeps
        const dir = this.indexDir(entry.uuid);
        let left = entry.shards.length;
        const shardRemoved = (): void => {
          if (--left === 0) removeQuietly(dir);
        };
        if (left === 0) removeQuietly(dir);
        for (const s of entry.shards) this.safe(() => s.destroy(shardRemoved));
        this.open.delete(name);
        NODE_FILTER_CACHE.dropIndex(name);
        for (const l of this.listeners) this.safe(() => l.onIndexDeleted?.(name, entry.uuid));
      } else if (meta.state === 'close') {
        for (const s of entry.shards) this.safe(() => s.close(true));
        this.open.delete(name);
      }
    }
    // removed indices whose shards were never opened (closed indices): delete their data
    if (prev) {
      for (const [name, meta] of Object.entries(prev.indices)) {
        const n = next.indices[name];
        if ((!n || n.uuid !== meta.uuid) && !this.open.has(name)) removeQuietly(this.indexDir(meta.uuid));
      }
    }
    for (const meta of Object.values(next.indices)) {
      if (meta.state !== 'open') continue;
      const entry = this.open.get(meta.name);
      if (!entry) {
        this.openIndex(meta, prev === null || !prev.indices[meta.name]);
      } else if (entry.settingsVersion !== meta.settingsVersion) {
        const s = shardSettingsFrom(meta.settings);
        for (const shard of entry.shards) shard.updateConfig({ ...s, primaryTerm: meta.primaryTerms?.[shard.shardId] ?? 1 });
        entry.settingsVersion = meta.settingsVersion;
      }
      const p = prev?.indices[meta.name];
      if (p && p.mappingVersion !== meta.mappingVersion) {
        for (const l of this.listeners) this.safe(() => l.onMappingUpdate?.(meta.name, meta.mappingVersion));
      }
    }
  }

  /**
   * Opens every shard of an index. A shard that fails to open (a corrupt file, an unreadable commit) does
   * not take the index with it: the index stays in the metadata and open with its other shards, the failed
   * shard is reported unassigned (health red, `_cat/shards`, allocation explain), reads answer 503 for it,
   * and none of its files is deleted or rewritten until the index itself is deleted.
   */
  private openIndex(meta: IndexMetadata, created: boolean): void {
    const shards: IndexShardImpl[] = [];
    const failed = new Map<number, ShardFailureInfo>();
    for (let i = 0; i < meta.numberOfShards; i++) {
      const r = this.openShard(meta, i, undefined);
      if (r instanceof IndexShardImpl) shards.push(r);
      else failed.set(i, r);
    }
    this.open.set(meta.name, { uuid: meta.uuid, shards, failed, settingsVersion: meta.settingsVersion });
    if (created) for (const l of this.listeners) this.safe(() => l.onIndexCreated?.(meta.name, meta.uuid));
  }

  private openShard(meta: IndexMetadata, i: number, previous: ShardFailureInfo | undefined): IndexShardImpl | ShardFailureInfo {
    let opened: IndexShardImpl | null = null;
    try {
      return (opened = new IndexShardImpl({
        index: meta.name,
        indexUuid: meta.uuid,
        shardId: i,
        dir: path.join(this.indexDir(meta.uuid), String(i)),
        primaryTerm: meta.primaryTerms?.[i] ?? 1,
        ...shardSettingsFrom(meta.settings),
        mappingVersion: () => this.store.current().indices[meta.name]?.mappingVersion ?? meta.mappingVersion,
        parse: (source, id, routing) => this.parse(meta.name, source, id, routing),
        onRefresh: (gen) => {
          for (const l of this.listeners) this.safe(() => l.onRefresh?.(meta.name, i, gen));
        },
        logger: this.logger,
        blockCache: this.blockCache,
        mergeExecutor: this.mergePool,
        onCorruption: (err) => this.failShard(meta.uuid, i, err, previous),
        // after the failing operation has answered, the shard is failed and recovered from disk
        onTragicEvent: (err) => setImmediate(() => opened && this.recoverFailedShard(meta.uuid, opened, err)),
      }));
    } catch (err) {
      const reason = failureReason(err);
      this.logger?.error({ index: meta.name, shard: i, err: reason }, 'failed to open shard; it stays unassigned and its files are kept');
      return { index: meta.name, indexUuid: meta.uuid, shardId: i, reason, type: failureType(err), at: Date.now(), failedAttempts: (previous?.failedAttempts ?? 0) + 1 };
    }
  }

  /**
   * A started shard found corrupt (the background checksum pass after open): closed without a flush — its
   * translog keeps every acknowledged write — and reported like a shard that failed to open (unassigned,
   * health red, 503 for its reads, files kept); `POST /_cluster/reroute?retry_failed=true` tries again.
   */
  private failShard(uuid: string, shardId: number, err: unknown, previous: ShardFailureInfo | undefined): void {
    for (const [name, e] of this.open) {
      if (e.uuid !== uuid) continue;
      const s = e.shards.find((x) => x.shardId === shardId);
      if (!s) return;
      e.shards = e.shards.filter((x) => x !== s);
      this.safe(() => s.close(false));
      const reason = failureReason(err);
      this.logger?.error({ index: name, shard: shardId, err: reason }, 'shard failed: corrupt segment file; it stays unassigned and its files are kept');
      e.failed.set(shardId, { index: name, indexUuid: uuid, shardId, reason, type: failureType(err), at: Date.now(), failedAttempts: (previous?.failedAttempts ?? 0) + 1 });
      return;
    }
  }

  /**
   * A shard whose translog failed (an fsync or write error): as Elasticsearch fails such a shard and
   * recovers it from its store, the shard is closed without a flush (what reached the disk is what the
   * recovery finds; every acknowledged write was fsynced before it was acknowledged) and opened again from
   * its commit and translog. Should that fail too (the disk still failing), the shard is reported like one
   * that failed to open (unassigned, 503 for its reads) until `POST /_cluster/reroute?retry_failed=true`.
   */
  private recoverFailedShard(uuid: string, shard: IndexShardImpl, err: Error): void {
    for (const [name, e] of this.open) {
      if (e.uuid !== uuid) continue;
      if (!e.shards.includes(shard)) return;
      e.shards = e.shards.filter((x) => x !== shard);
      this.safe(() => shard.close(false));
      const reason = failureReason(err);
      this.logger?.warn({ index: name, shard: shard.shardId, err: reason }, 'shard failed: translog failure; recovering it from disk');
      const meta = this.store.current().indices[name];
      if (!meta) return;
      const r = this.openShard(meta, shard.shardId, undefined);
      if (r instanceof IndexShardImpl) {
        e.shards.push(r);
        e.shards.sort((a, b) => a.shardId - b.shardId);
        this.logger?.info({ index: name, shard: shard.shardId }, 'shard recovered from disk after a translog failure');
      } else e.failed.set(shard.shardId, r);
      return;
    }
  }

  shardFailures(index?: string): ShardFailureInfo[] {
    const out: ShardFailureInfo[] = [];
    for (const [name, e] of this.open) if (index === undefined || index === name) out.push(...e.failed.values());
    return out.sort((a, b) => (a.index === b.index ? a.shardId - b.shardId : a.index < b.index ? -1 : 1));
  }

  /** tries to open the failed shards again (`POST /_cluster/reroute?retry_failed=true`) */
  retryFailedShards(): number {
    let opened = 0;
    for (const [name, e] of this.open) {
      const meta = this.store.current().indices[name];
      if (!meta) continue;
      for (const [i, prev] of [...e.failed]) {
        const r = this.openShard(meta, i, prev);
        if (r instanceof IndexShardImpl) {
          e.failed.delete(i);
          e.shards.push(r);
          e.shards.sort((a, b) => a.shardId - b.shardId);
          opened++;
        } else e.failed.set(i, r);
      }
    }
    return opened;
  }

  private parse(index: string, source: Uint8Array, id: string, routing: string | undefined): ParsedDocument {
    const meta = this.store.current().indices[index];
    const obj = JSON.parse(Buffer.from(source.buffer, source.byteOffset, source.byteLength).toString('utf8')) as Record<string, unknown>;
    return this.mappers.documentMapper(meta).parse(obj, id, routing, source).doc;
  }

  private entry(index: string): OpenIndex {
    let e = this.open.get(index);
    if (!e) {
      const meta = this.store.current().indices[index];
      if (meta && meta.state === 'open' && !this.closed) {
        this.openIndex(meta, false);
        e = this.open.get(index);
      }
      if (meta && meta.state === 'close') throw Errors.indexClosed(index, meta.uuid);
    }
    if (!e) throw Errors.indexNotFound(index);
    return e;
  }

  shards(index: string): IndexShardImpl[] {
    return this.entry(index).shards;
  }

  shard(index: string, shardId: number, unavailable?: (failure: ShardFailureInfo) => Error): IndexShardImpl {
    const e = this.entry(index);
    const f = e.failed.get(shardId);
    if (f) {
      if (unavailable) throw unavailable(f);
      throw Errors.noShardAvailable(`[${index}][${shardId}] shard failed to open: ${f.reason}`, index, shardId, e.uuid);
    }
    const s = e.shards.find((x) => x.shardId === shardId);
    if (!s) throw Errors.illegalArgument(`no shard [${shardId}] in index [${index}]`);
    return s;
  }

  hasIndex(index: string): boolean {
    return this.open.has(index);
  }

  indexMetadata(index: string): IndexMetadata {
    const meta = this.store.current().indices[index];
    if (!meta) throw Errors.indexNotFound(index);
    return meta;
  }

  indexNames(): string[] {
    return [...this.open.keys()];
  }

  indexStats(index: string): Record<string, Record<string, unknown>> {
    // the filter cache is the node's; an index's share is what its searches kept and asked for
    return { ...renderIndexStatsSections(this.indexStatsSummary(index).total), query_cache: { ...NODE_FILTER_CACHE.stats(index) } };
  }

  indexStatsSummary(index: string): IndexStatsSummary {
    const e = this.entry(index);
    const shards = e.shards.map((s) => s.stats());
    return { index, uuid: e.uuid, shards, total: sumShardStats(shards) };
  }

  indexSegments(index: string): ShardSegments[] {
    return this.entry(index).shards.filter((s) => !s.isClosed).map((s) => ({ shardId: s.shardId, segments: s.segmentsInfo() }));
  }

  async refreshIndex(index: string): Promise<{ total: number; successful: number; failed: number }> {
    const shards = this.shards(index);
    for (const s of shards) await s.refresh('api');
    const meta = this.store.current().indices[index];
    return { total: (meta?.numberOfShards ?? shards.length) * (1 + (meta?.numberOfReplicas ?? 0)), successful: shards.length, failed: 0 };
  }

  flushIndex(index: string): { total: number; successful: number; failed: number } {
    const shards = this.shards(index);
    for (const s of shards) s.flush();
    const meta = this.store.current().indices[index];
    return { total: (meta?.numberOfShards ?? shards.length) * (1 + (meta?.numberOfReplicas ?? 0)), successful: shards.length, failed: 0 };
  }

  async forceMerge(index: string, maxNumSegments = 1, onlyExpungeDeletes = false): Promise<void> {
    for (const s of this.shards(index)) if (!s.isClosed) await s.forceMergeAsync(maxNumSegments, onlyExpungeDeletes);
  }

  async forceMergeIndex(
    index: string,
    opts: { maxNumSegments: number; onlyExpungeDeletes: boolean; flush: boolean },
  ): Promise<{ total: number; successful: number; failed: number }> {
    const shards = this.shards(index);
    for (const s of shards) {
      if (s.isClosed) continue;
      await s.forceMergeAsync(opts.maxNumSegments, opts.onlyExpungeDeletes);
      if (opts.flush && !s.isClosed) s.flush();
    }
    const meta = this.store.current().indices[index];
    return { total: shards.length * (1 + (meta?.numberOfReplicas ?? 0)), successful: shards.length, failed: 0 };
  }
}

/** ES `_stats` sections for one shard-stats aggregate (primaries == total on one node without replicas) */
export function renderIndexStatsSections(s: ShardStats): Record<string, Record<string, unknown>> {
  return {
    docs: { count: s.docsCount, deleted: s.docsDeleted },
    store: { size_in_bytes: s.storeSizeInBytes, total_data_set_size_in_bytes: s.storeSizeInBytes, reserved_in_bytes: 0 },
    indexing: {
      index_total: s.indexTotal,
      index_time_in_millis: s.indexTimeInMillis,
      index_current: s.indexCurrent,
      index_failed: s.indexFailed,
      delete_total: s.deleteTotal,
      delete_time_in_millis: s.deleteTimeInMillis,
      delete_current: 0,
      noop_update_total: s.noopUpdateTotal,
      is_throttled: false,
      throttle_time_in_millis: 0,
    },
    get: {
      total: s.getTotal,
      time_in_millis: s.getTimeInMillis,
      exists_total: s.getExistsTotal,
      exists_time_in_millis: 0,
      missing_total: s.getMissingTotal,
      missing_time_in_millis: 0,
      current: 0,
    },
    search: {
      open_contexts: s.searchOpenContexts,
      query_total: s.searchQueryTotal,
      query_time_in_millis: Math.floor(s.searchQueryNanos / 1e6),
      query_current: s.searchQueryCurrent,
      fetch_total: s.searchFetchTotal,
      fetch_time_in_millis: Math.floor(s.searchFetchNanos / 1e6),
      fetch_current: s.searchFetchCurrent,
      scroll_total: s.searchScrollTotal,
      scroll_time_in_millis: s.searchScrollMillis,
      scroll_current: s.searchScrollCurrent,
      suggest_total: s.searchSuggestTotal,
      suggest_time_in_millis: Math.floor(s.searchSuggestNanos / 1e6),
      suggest_current: s.searchSuggestCurrent,
    },
    refresh: {
      total: s.refreshTotal,
      total_time_in_millis: s.refreshTimeInMillis,
      external_total: s.externalRefreshTotal,
      external_total_time_in_millis: 0,
      listeners: 0,
    },
    flush: { total: s.flushTotal, periodic: 0, total_time_in_millis: s.flushTimeInMillis },
    merges: {
      current: s.mergesCurrent,
      current_docs: 0,
      current_size_in_bytes: 0,
      total: s.mergesTotal,
      total_time_in_millis: s.mergesTimeInMillis,
      total_docs: s.mergesTotalDocs,
      total_size_in_bytes: s.mergesTotalSizeInBytes,
    },
    segments: { count: s.segmentsCount, memory_in_bytes: s.segmentsMemoryInBytes },
    translog: {
      operations: s.translogOperations,
      size_in_bytes: s.translogSizeInBytes,
      uncommitted_operations: s.translogUncommittedOperations,
      uncommitted_size_in_bytes: s.translogUncommittedSizeInBytes,
      earliest_last_modified_age: 0,
    },
  };
}

function failureReason(err: unknown): string {
  return err instanceof Error ? `${err.name === 'Error' ? 'Exception' : err.name}: ${err.message}` : String(err);
}

/** a shard failure's type as Elasticsearch names it (a store's exceptions carry theirs; anything else is `exception`) */
export function failureType(err: unknown): string {
  if (err instanceof EsError) return err.type;
  const t = (err as { esType?: unknown } | null)?.esType;
  return typeof t === 'string' ? t : 'exception';
}
