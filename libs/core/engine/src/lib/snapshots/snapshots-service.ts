/**
 * Snapshot repositories and snapshots (ES SnapshotsService / RestoreService / RepositoriesService) over the
 * file system repository:
 *
 * - create: every shard of every index is flushed and its commit held (the point in time of the snapshot;
 *   indexing goes on), then the commit's files are copied into the repository unless a previous snapshot of
 *   the same index already holds them (incremental); the snapshot exists once the repository data lists it.
 * - restore / mount: an index is created from the snapshot's metadata, its shard directories filled from the
 *   repository before it is published (restore and full_copy mount copy or hard-link the blobs; a
 *   shared_cache mount links to them, so the index is served from the repository).
 * - delete: the snapshot leaves the repository data first, then the files only it used are removed.
 *
 * Repositories are registered in cluster metadata (`custom.repositories`); their location must lie under a
 * `path.repo` directory.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, PRODUCT_VERSION, Tokens, UserRegex, flattenSettings, setting, systemClock, type SettingDef, type Clock, type HostConfig, type Logger } from '@strata/core-common';
import type { ClusterMetadata, IndexMetadata, MetadataStore } from '../cluster/metadata.js';
import { EngineTokens, type IndexNameExpressionResolver, type MetadataIndexService } from '../services.js';
import type { StorageIndicesService } from '../shard/indices-service.js';
import type { IndexCommitRef } from '../shard/index-shard.js';
import { COMMIT_POINT_FILE } from '../shard/shard-files.js';
import { KeyedMutex } from '../action/document/document-service.js';
import { ensureDir, removeQuietly, writeFileAtomic } from '../store/directory.js';
import { randomBase64Uuid } from '../cluster/metadata-store.js';
import { simpleMatch } from '../mapper/mapping.js';
import { FsRepository, randomBlobId, type RepositoryData, type RepoSnapshotEntry, type ShardManifest } from './fs-repository.js';

type Json = Record<string, unknown>;

export const REPOSITORIES_SECTION = 'repositories';
/** the custom section data streams live in (owned by the data-streams feature; carried by snapshots) */
const DATA_STREAM_SECTION = 'data_stream';
const VERSION_ID = 8170099;

export interface RepositoryMetadata {
  type: string;
  settings: Record<string, unknown>;
}

export interface SnapshotInfo {
  snapshot: string;
  uuid: string;
  repository: string;
  version_id: number;
  version: string;
  indices: string[];
  data_streams: string[];
  include_global_state: boolean;
  metadata?: Json;
  state: 'IN_PROGRESS' | 'SUCCESS' | 'PARTIAL' | 'FAILED';
  start_time_in_millis: number;
  end_time_in_millis: number;
  failures: Json[];
  shards: { total: number; failed: number; successful: number };
  feature_states: Json[];
}

export interface CreateSnapshotRequest {
  indices?: string | string[];
  ignoreUnavailable?: boolean;
  includeGlobalState?: boolean;
  partial?: boolean;
  metadata?: Json;
  expandWildcards?: { open: boolean; closed: boolean; hidden: boolean };
}

export interface RestoreRequest {
  indices?: string | string[];
  ignoreUnavailable?: boolean;
  includeGlobalState?: boolean;
  renamePattern?: string;
  renameReplacement?: string;
  includeAliases?: boolean;
  indexSettings?: Json;
  ignoreIndexSettings?: string[];
  partial?: boolean;
}

export interface MountRequest {
  index: string;
  renamedIndex?: string;
  indexSettings?: Json;
  ignoreIndexSettings?: string[];
  storage?: 'full_copy' | 'shared_cache';
  /** per-index state the mounted index starts with (instead of the snapshotted index's) */
  custom?: Record<string, Record<string, unknown>>;
}

export interface RestoreResult {
  snapshot: string;
  indices: string[];
  shards: { total: number; failed: number; successful: number };
}

interface ShardProgress {
  index: string;
  shard: number;
  stage: 'INIT' | 'STARTED' | 'DONE' | 'FAILURE';
  incrementalFiles: number;
  incrementalBytes: number;
  totalFiles: number;
  totalBytes: number;
  processedFiles: number;
  processedBytes: number;
  start: number;
  time: number;
  reason?: string;
}

interface InProgress {
  repository: string;
  info: SnapshotInfo;
  shards: ShardProgress[];
  done: Promise<SnapshotInfo>;
}

/** stored index metadata of a snapshot (the engine's IndexMetadata as it was) */
type SnapshotIndexMetadata = IndexMetadata;


function repositoryMissing(name: string): EsError {
  return new EsError('repository_missing_exception', 404, `[${name}] missing`);
}

function repositoryException(name: string, reason: string): EsError {
  return new EsError('repository_exception', 500, `[${name}] ${reason}`);
}

function snapshotMissing(repo: string, name: string): EsError {
  return new EsError('snapshot_missing_exception', 404, `[${repo}:${name}] is missing`);
}

function invalidSnapshotName(repo: string, name: string, why: string): EsError {
  return new EsError('invalid_snapshot_name_exception', 400, `[${repo}:${name}] Invalid snapshot name [${name}], ${why}`);
}

function restoreException(repo: string, snap: string, uuid: string, why: string): EsError {
  return new EsError('snapshot_restore_exception', 500, `[${repo}:${snap}/${uuid}] ${why}`);
}

const INVALID_NAME_CHARS = ['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ','];

/** node setting: the directories `fs` repositories may live under (ES path.repo) */
export const PATH_REPO_SETTING: SettingDef<string[]> = setting({
  key: 'path.repo',
  scope: 'node',
  dynamic: false,
  defaultValue: [],
  parse: (raw: unknown) => parsePathRepo(raw),
});

/** the `path.repo` node setting: a list (JSON array, or a comma-separated string) */
export function parsePathRepo(raw: unknown): string[] {
  if (raw === undefined || raw === null || raw === '') return [];
  const list = Array.isArray(raw) ? raw.map(String) : String(raw).split(',');
  return list.map((s) => s.trim()).filter(Boolean);
}

@injectable()
export class SnapshotsService {
  private readonly inProgress = new Map<string, InProgress>();
  private readonly locks = new KeyedMutex();
  private readonly pathRepo: string[];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(Tokens.HostConfig) @optional() hostConfig?: HostConfig,
    @inject(Tokens.Clock) @optional() private readonly clock: Clock = systemClock,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    this.clock = clock ?? systemClock;
    this.pathRepo = parsePathRepo(hostConfig?.settings?.['path.repo']).map((p) => path.resolve(p));
  }

  // ------------------------------------------------------------------ repositories

  private repositories(md: ClusterMetadata = this.store.current()): Record<string, RepositoryMetadata> {
    const r = md.custom[REPOSITORIES_SECTION];
    return r && typeof r === 'object' ? (r as Record<string, RepositoryMetadata>) : {};
  }

  /** the repository location, checked against path.repo (ES FsRepository + Environment.resolveRepoFile) */
  private location(name: string, settings: Record<string, unknown>): string {
    const loc = settings['location'];
    if (loc === undefined || loc === null || loc === '') throw repositoryException(name, 'missing location');
    const raw = String(loc);
    if (this.pathRepo.length === 0) {
      throw repositoryException(name, `location [${raw}] doesn't match any of the locations specified by path.repo because this setting is empty`);
    }
    const abs = path.isAbsolute(raw) ? path.resolve(raw) : path.resolve(this.pathRepo[0], raw);
    const ok = this.pathRepo.some((root) => abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
    if (!ok) throw repositoryException(name, `location [${raw}] doesn't match any of the locations specified by path.repo`);
    return abs;
  }

  repository(name: string): FsRepository {
    const r = this.repositories()[name];
    if (!r) throw repositoryMissing(name);
    return new FsRepository(this.location(name, r.settings));
  }

  private isReadonly(name: string): boolean {
    const r = this.repositories()[name];
    return r?.settings?.['readonly'] === true || r?.settings?.['readonly'] === 'true';
  }

  async putRepository(name: string, body: { type?: unknown; settings?: unknown }, verify = true): Promise<void> {
    const errors: string[] = [];
    if (!name) errors.push('name is missing');
    if (body.type === undefined || body.type === null || body.type === '') errors.push('type is missing');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const type = String(body.type);
    if (type !== 'fs') throw repositoryException(name, `repository type [${type}] does not exist`);
    if (name.startsWith('_') || INVALID_NAME_CHARS.some((c) => name.includes(c)) || name.includes('#')) {
      throw new EsError('repository_exception', 500, `[${name}] Invalid repository name [${name}], must not start with '_' and must not contain '#' or any of ${JSON.stringify(INVALID_NAME_CHARS)}`);
    }
    const settings: Record<string, unknown> = {};
    if (body.settings !== undefined && body.settings !== null) {
      if (typeof body.settings !== 'object' || Array.isArray(body.settings)) throw Errors.illegalArgument('settings must be an object');
      for (const [k, v] of Object.entries(body.settings as Json)) settings[k] = v;
    }
    const loc = this.location(name, settings);
    try {
      ensureDir(loc);
    } catch (e) {
      throw repositoryException(name, `cannot create location [${String(settings['location'])}]: ${String(e)}`);
    }
    if (verify) this.verifyLocation(name, loc, settings);
    await this.store.update((d) => {
      const repos = (d.custom[REPOSITORIES_SECTION] ??= {}) as Record<string, RepositoryMetadata>;
      repos[name] = { type, settings };
    });
  }

  /** writes and reads back a test blob (ES repository verification) */
  private verifyLocation(name: string, loc: string, settings: Record<string, unknown>): void {
    if (settings['readonly'] === true || settings['readonly'] === 'true') {
      if (!fs.existsSync(loc)) throw new EsError('repository_verification_exception', 500, `[${name}] path [${loc}] is not accessible on master node`);
      return;
    }
    const dir = path.join(loc, `tests-${randomBlobId()}`);
    try {
      ensureDir(dir);
      writeFileAtomic(path.join(dir, 'master.dat'), 'verify');
      if (fs.readFileSync(path.join(dir, 'master.dat'), 'utf8') !== 'verify') throw new Error('read back a different content');
    } catch (e) {
      throw new EsError('repository_verification_exception', 500, `[${name}] path [${loc}] is not accessible on master node`, { cause: e instanceof Error ? e : undefined });
    } finally {
      removeQuietly(dir);
    }
  }

  verifyRepository(name: string): void {
    const r = this.repositories()[name];
    if (!r) throw repositoryMissing(name);
    this.verifyLocation(name, this.location(name, r.settings), r.settings);
  }

  getRepositories(expr?: string): Record<string, RepositoryMetadata> {
    const all = this.repositories();
    if (expr === undefined || expr === '' || expr === '_all' || expr === '*') return { ...all };
    const out: Record<string, RepositoryMetadata> = {};
    for (const p of expr.split(',').map((s) => s.trim()).filter(Boolean)) {
      if (p.includes('*')) {
        for (const [n, r] of Object.entries(all)) if (simpleMatch(p, n)) out[n] = r;
      } else if (all[p]) out[p] = all[p];
      else throw repositoryMissing(p);
    }
    return out;
  }

  async deleteRepository(expr: string): Promise<void> {
    const names = Object.keys(this.getRepositories(expr));
    if (names.length === 0 && !expr.includes('*')) throw repositoryMissing(expr);
    for (const n of names) {
      const used = Object.values(this.store.current().indices).filter((im) => im.settings['index.store.snapshot.repository_name'] === n);
      if (used.length) {
        throw Errors.illegalArgument(`trying to modify or unregister repository [${n}] that is currently used (found ${used.length} searchable snapshots indices that use the repository: [${used.map((i) => i.name).join(', ')}])`);
      }
      if ([...this.inProgress.values()].some((p) => p.repository === n)) {
        throw new EsError('repository_conflict_exception', 409, `[${n}] trying to modify or unregister repository that is currently used`);
      }
    }
    await this.store.update((d) => {
      const repos = (d.custom[REPOSITORIES_SECTION] ??= {}) as Record<string, RepositoryMetadata>;
      for (const n of names) delete repos[n];
    });
  }

  /** removes blobs and folders no snapshot refers to (what a crash mid-snapshot or mid-delete left) */
  async cleanupRepository(name: string): Promise<{ deleted_bytes: number; deleted_blobs: number }> {
    return this.locks.run(name, async () => {
      const repo = this.repository(name);
      const data = repo.readRepositoryData();
      let bytes = 0;
      let blobs = 0;
      const drop = (rel: string) => {
        const abs = repo.abs(rel);
        try {
          const st = fs.statSync(abs);
          if (st.isDirectory()) {
            for (const f of repo.list(rel)) drop(path.join(rel, f));
          } else bytes += st.size;
        } catch {
          /* gone */
        }
        if (!fs.statSync(abs, { throwIfNoEntry: false })?.isDirectory()) blobs++;
        repo.remove(rel);
      };
      const live = new Set(data.snapshots.map((s) => s.uuid));
      for (const f of repo.list('')) {
        const m = /^(?:snap|meta)-(.+)\.dat$/.exec(f);
        if (m && !live.has(m[1])) drop(f);
        if (/^index-\d+$/.test(f) && f !== `index-${data.generation}`) drop(f);
      }
      const ids = new Map(Object.values(data.indices).map((e) => [e.id, e]));
      for (const id of repo.list('indices')) {
        if (!ids.has(id)) {
          drop(path.join('indices', id));
          continue;
        }
        const r = this.referencedBlobs(repo, id, live);
        for (const shard of repo.list(path.join('indices', id))) {
          const rel = path.join('indices', id, shard);
          if (!/^\d+$/.test(shard)) {
            const m = /^meta-(.+)\.dat$/.exec(shard);
            if (m && !live.has(m[1])) drop(rel);
            continue;
          }
          for (const f of repo.list(rel)) {
            const snap = /^snap-(.+)\.dat$/.exec(f);
            if (snap ? !live.has(snap[1]) : !r.get(shard)?.has(f)) drop(path.join(rel, f));
          }
        }
      }
      return { deleted_bytes: bytes, deleted_blobs: blobs };
    });
  }

  /** blobs referenced by the manifests of live snapshots, per shard folder */
  private referencedBlobs(repo: FsRepository, indexId: string, live: Set<string>): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const shard of repo.list(path.join('indices', indexId))) {
      if (!/^\d+$/.test(shard)) continue;
      const set = new Set<string>();
      for (const f of repo.list(path.join('indices', indexId, shard))) {
        const m = /^snap-(.+)\.dat$/.exec(f);
        if (!m || !live.has(m[1])) continue;
        const man = repo.readJson<ShardManifest>(path.join('indices', indexId, shard, f));
        for (const e of man.files) set.add(e.blob);
      }
      out.set(shard, set);
    }
    return out;
  }

  // ------------------------------------------------------------------ create

  private validateSnapshotName(repo: string, name: string): void {
    if (!name) throw invalidSnapshotName(repo, name, 'cannot be empty');
    if (name.includes('#')) throw invalidSnapshotName(repo, name, "must not contain '#'");
    if (name.startsWith('_')) throw invalidSnapshotName(repo, name, "must not start with '_'");
    if (name.toLowerCase() !== name) throw invalidSnapshotName(repo, name, 'must be lowercase');
    for (const c of INVALID_NAME_CHARS) {
      if (name.includes(c)) throw invalidSnapshotName(repo, name, `must not contain the following characters [${INVALID_NAME_CHARS.join(', ')}]`);
    }
  }

  /** the data streams a snapshot request names (wildcards match stream names) */
  private selectDataStreams(md: ClusterMetadata, exprs: string[]): string[] {
    const streams = md.custom[DATA_STREAM_SECTION] && typeof md.custom[DATA_STREAM_SECTION] === 'object' ? Object.keys(md.custom[DATA_STREAM_SECTION] as Json) : [];
    if (exprs.length === 0 || exprs.includes('_all') || exprs.includes('*')) return streams.sort();
    return streams.filter((s) => exprs.some((e) => !e.startsWith('-') && simpleMatch(e, s))).sort();
  }

  /**
   * Starts a snapshot: the shard commits are taken before this resolves (the point in time); `done`
   * resolves when the files are in the repository and the snapshot is listed.
   */
  async createSnapshot(repoName: string, name: string, req: CreateSnapshotRequest = {}): Promise<{ info: SnapshotInfo; done: Promise<SnapshotInfo> }> {
    const repo = this.repository(repoName);
    if (this.isReadonly(repoName)) throw repositoryException(repoName, 'cannot create snapshot in a readonly repository');
    this.validateSnapshotName(repoName, name);
    const data = repo.readRepositoryData();
    if (data.snapshots.some((s) => s.name === name) || [...this.inProgress.values()].some((p) => p.repository === repoName && p.info.snapshot === name)) {
      throw invalidSnapshotName(repoName, name, 'snapshot with the same name already exists');
    }
    const md = this.store.current();
    const exprs = req.indices === undefined ? [] : Array.isArray(req.indices) ? req.indices : req.indices.split(',').map((s) => s.trim()).filter(Boolean);
    const opts = {
      ignoreUnavailable: req.ignoreUnavailable === true,
      allowNoIndices: true,
      expandWildcards: req.expandWildcards ?? { open: true, closed: true, hidden: true },
    };
    const resolved = exprs.length === 0 ? Object.keys(md.indices).sort() : this.resolver.concreteIndices(exprs, opts, 'read');
    const dataStreams = this.selectDataStreams(md, exprs);
    const indexNames = [...new Set(resolved)].filter((n) => md.indices[n]).sort();
    const start = this.clock.now();
    const info: SnapshotInfo = {
      snapshot: name,
      uuid: randomBase64Uuid(),
      repository: repoName,
      version_id: VERSION_ID,
      version: PRODUCT_VERSION.number,
      indices: indexNames,
      data_streams: dataStreams,
      include_global_state: req.includeGlobalState !== false,
      ...(req.metadata ? { metadata: req.metadata } : {}),
      state: 'IN_PROGRESS',
      start_time_in_millis: start,
      end_time_in_millis: 0,
      failures: [],
      shards: { total: 0, failed: 0, successful: 0 },
      feature_states: [],
    };
    // the point in time: every shard flushed and its commit held, before anything is copied
    const commits: Array<{ index: string; shard: number; ref?: IndexCommitRef; error?: string }> = [];
    for (const n of indexNames) {
      const im = md.indices[n];
      for (let s = 0; s < im.numberOfShards; s++) {
        if (im.state !== 'open') {
          commits.push({ index: n, shard: s, error: `index [${n}] is closed` });
          continue;
        }
        try {
          commits.push({ index: n, shard: s, ref: this.indices.acquireIndexCommit(n, s) });
        } catch (e) {
          commits.push({ index: n, shard: s, error: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    const failedAtStart = commits.filter((c) => c.error);
    if (failedAtStart.length && req.partial !== true) {
      for (const c of commits) c.ref?.release();
      const closed = failedAtStart.map((c) => c.index);
      throw new EsError('snapshot_exception', 400, `[${repoName}:${name}/${info.uuid}] Indices don't have primary shards [${[...new Set(closed)].join(', ')}]`);
    }
    info.shards.total = commits.length;
    const shards: ShardProgress[] = commits.map((c) => ({
      index: c.index,
      shard: c.shard,
      stage: c.error ? 'FAILURE' : 'INIT',
      incrementalFiles: 0,
      incrementalBytes: 0,
      totalFiles: c.ref?.files.length ?? 0,
      totalBytes: c.ref?.files.reduce((a, f) => a + f.length, 0) ?? 0,
      processedFiles: 0,
      processedBytes: 0,
      start,
      time: 0,
      reason: c.error,
    }));
    const key = `${repoName}/${name}`;
    const globalState = info.include_global_state ? this.globalState(md) : undefined;
    const indexMeta = new Map(indexNames.map((n) => [n, md.indices[n]]));
    const streamsMeta = dataStreams.map((s) => (md.custom[DATA_STREAM_SECTION] as Json)[s]);
    const done = this.locks
      .run(repoName, () => this.writeSnapshot(repo, info, commits, shards, indexMeta, streamsMeta, globalState))
      .finally(() => {
        for (const c of commits) c.ref?.release();
        this.inProgress.delete(key);
      });
    this.inProgress.set(key, { repository: repoName, info, shards, done });
    done.catch((e) => this.logger?.warn({ snapshot: key, err: String(e) }, 'snapshot failed'));
    return { info, done };
  }

  /** the cluster-wide state a snapshot carries with include_global_state (not the data streams, not the repositories) */
  private globalState(md: ClusterMetadata): Json {
    const custom: Json = {};
    for (const [k, v] of Object.entries(md.custom)) if (k !== REPOSITORIES_SECTION && k !== DATA_STREAM_SECTION) custom[k] = v;
    return { persistent_settings: md.persistentSettings, custom };
  }

  private async writeSnapshot(
    repo: FsRepository,
    info: SnapshotInfo,
    commits: Array<{ index: string; shard: number; ref?: IndexCommitRef; error?: string }>,
    shards: ShardProgress[],
    indexMeta: Map<string, IndexMetadata>,
    streamsMeta: unknown[],
    globalState: Json | undefined,
  ): Promise<SnapshotInfo> {
    let data = repo.readRepositoryData();
    const ids: Record<string, string> = {};
    for (const n of info.indices) ids[n] = data.indices[n]?.id ?? randomBlobId();
    for (let i = 0; i < commits.length; i++) {
      const c = commits[i];
      const p = shards[i];
      if (!c.ref) continue;
      p.stage = 'STARTED';
      p.start = this.clock.now();
      try {
        await this.snapshotShard(repo, data, ids[c.index], c.index, indexMeta.get(c.index)!, c.shard, c.ref, info.uuid, p);
        p.stage = 'DONE';
      } catch (e) {
        p.stage = 'FAILURE';
        p.reason = e instanceof Error ? e.message : String(e);
        this.logger?.warn({ index: c.index, shard: c.shard, err: p.reason }, 'shard snapshot failed');
      }
      p.time = this.clock.now() - p.start;
    }
    const failed = shards.filter((s) => s.stage === 'FAILURE');
    info.shards = { total: shards.length, failed: failed.length, successful: shards.length - failed.length };
    info.failures = failed.map((s) => ({ index: s.index, index_uuid: s.index, shard_id: s.shard, reason: s.reason ?? 'failed', node_id: '_na_', status: 'INTERNAL_SERVER_ERROR' }));
    info.state = failed.length === 0 ? 'SUCCESS' : failed.length === shards.length && shards.length > 0 ? 'FAILED' : 'PARTIAL';
    info.end_time_in_millis = this.clock.now();
    for (const n of info.indices) repo.writeJson(path.join('indices', ids[n], `meta-${info.uuid}.dat`), indexMeta.get(n));
    repo.writeJson(`meta-${info.uuid}.dat`, { global: globalState ?? null, data_streams: streamsMeta });
    repo.writeJson(`snap-${info.uuid}.dat`, info);
    // listing the snapshot in a new generation of the repository data publishes it
    data = repo.readRepositoryData();
    const entry: RepoSnapshotEntry = {
      name: info.snapshot,
      uuid: info.uuid,
      state: info.state as RepoSnapshotEntry['state'],
      start_time: info.start_time_in_millis,
      end_time: info.end_time_in_millis,
      indices: info.indices,
      data_streams: info.data_streams,
    };
    const indices = structuredClone(data.indices);
    for (const n of info.indices) {
      const e = (indices[n] ??= { id: ids[n], snapshots: [] });
      e.snapshots.push(info.uuid);
    }
    repo.writeRepositoryData({ ...data, snapshots: [...data.snapshots, entry], indices });
    return info;
  }

  private async snapshotShard(
    repo: FsRepository,
    data: RepositoryData,
    indexId: string,
    index: string,
    im: IndexMetadata,
    shard: number,
    ref: IndexCommitRef,
    snapUuid: string,
    p: ShardProgress,
  ): Promise<void> {
    const dir = path.join('indices', indexId, String(shard));
    // files of earlier snapshots of this index incarnation, by name and length
    const known = new Map<string, { blob: string; crc32: number }>();
    for (const s of data.indices[index]?.snapshots ?? []) {
      const rel = path.join(dir, `snap-${s}.dat`);
      if (!repo.exists(rel)) continue;
      const man = repo.readJson<ShardManifest>(rel);
      if (man.index_uuid !== im.uuid) continue;
      for (const f of man.files) if (repo.exists(path.join(dir, f.blob))) known.set(`${f.name}|${f.length}`, { blob: f.blob, crc32: f.crc32 });
    }
    const files: ShardManifest['files'] = [];
    for (const f of ref.files) {
      const prev = known.get(`${f.name}|${f.length}`);
      if (prev) {
        files.push({ name: f.name, blob: prev.blob, length: f.length, crc32: prev.crc32 });
      } else {
        const copied = await repo.copyIn(path.join(ref.dir, f.name), dir);
        files.push({ name: f.name, blob: copied.blob, length: copied.length, crc32: copied.crc32 });
        p.incrementalFiles++;
        p.incrementalBytes += copied.length;
      }
      p.processedFiles++;
      p.processedBytes += f.length;
    }
    const manifest: ShardManifest = {
      index_uuid: im.uuid,
      files,
      commit: Buffer.from(ref.commitBytes).toString('base64'),
      num_docs: ref.numDocs,
      incremental_file_count: p.incrementalFiles,
      incremental_size_in_bytes: p.incrementalBytes,
      start_time: p.start,
      time_in_millis: this.clock.now() - p.start,
    };
    repo.writeJson(path.join(dir, `snap-${snapUuid}.dat`), manifest);
  }

  // ------------------------------------------------------------------ get / status

  private readInfo(repo: FsRepository, uuid: string): SnapshotInfo {
    return repo.readJson<SnapshotInfo>(`snap-${uuid}.dat`);
  }

  /** snapshots of a repository by names / wildcards / `_all` / `_current` (ES order: start time, then name) */
  getSnapshots(repoName: string, expr: string | undefined, ignoreUnavailable = false): SnapshotInfo[] {
    const repo = this.repository(repoName);
    const data = repo.readRepositoryData();
    const current = [...this.inProgress.values()].filter((p) => p.repository === repoName).map((p) => ({ ...p.info }));
    const parts = (expr ?? '_all').split(',').map((s) => s.trim()).filter(Boolean);
    const out = new Map<string, SnapshotInfo>();
    for (const p of parts) {
      if (p === '_current') {
        for (const c of current) out.set(c.uuid, c);
        continue;
      }
      if (p === '_all' || p.includes('*')) {
        for (const s of data.snapshots) if (p === '_all' || simpleMatch(p, s.name)) out.set(s.uuid, this.readInfo(repo, s.uuid));
        for (const c of current) if (p === '_all' || simpleMatch(p, c.snapshot)) out.set(c.uuid, c);
        continue;
      }
      const s = data.snapshots.find((x) => x.name === p);
      if (s) out.set(s.uuid, this.readInfo(repo, s.uuid));
      else {
        const c = current.find((x) => x.snapshot === p);
        if (c) out.set(c.uuid, c);
        else if (!ignoreUnavailable) throw snapshotMissing(repoName, p);
      }
    }
    return [...out.values()].sort((a, b) => a.start_time_in_millis - b.start_time_in_millis || (a.snapshot < b.snapshot ? -1 : 1));
  }

  /** ES `_status`: stage and file statistics per snapshot, index and shard */
  status(repoName: string | undefined, names: string[] | undefined, ignoreUnavailable = false): Json[] {
    const out: Json[] = [];
    if (!repoName || !names || names.length === 0) {
      for (const p of this.inProgress.values()) {
        if (repoName && p.repository !== repoName) continue;
        out.push(this.renderStatus(p.info, p.shards));
      }
      return out;
    }
    const repo = this.repository(repoName);
    const data = repo.readRepositoryData();
    for (const n of names) {
      const running = this.inProgress.get(`${repoName}/${n}`);
      if (running) {
        out.push(this.renderStatus(running.info, running.shards));
        continue;
      }
      const s = data.snapshots.find((x) => x.name === n);
      if (!s) {
        if (ignoreUnavailable) continue;
        throw snapshotMissing(repoName, n);
      }
      const info = this.readInfo(repo, s.uuid);
      const shards: ShardProgress[] = [];
      for (const idx of info.indices) {
        const id = data.indices[idx]?.id;
        if (!id) continue;
        const im = repo.readJson<SnapshotIndexMetadata>(path.join('indices', id, `meta-${info.uuid}.dat`));
        for (let sh = 0; sh < im.numberOfShards; sh++) {
          const rel = path.join('indices', id, String(sh), `snap-${info.uuid}.dat`);
          if (!repo.exists(rel)) {
            shards.push({ index: idx, shard: sh, stage: 'FAILURE', incrementalFiles: 0, incrementalBytes: 0, totalFiles: 0, totalBytes: 0, processedFiles: 0, processedBytes: 0, start: 0, time: 0 });
            continue;
          }
          const man = repo.readJson<ShardManifest>(rel);
          const totalBytes = man.files.reduce((a, f) => a + f.length, 0);
          shards.push({
            index: idx,
            shard: sh,
            stage: 'DONE',
            incrementalFiles: man.incremental_file_count,
            incrementalBytes: man.incremental_size_in_bytes,
            totalFiles: man.files.length,
            totalBytes,
            processedFiles: man.files.length,
            processedBytes: totalBytes,
            start: man.start_time,
            time: man.time_in_millis,
          });
        }
      }
      out.push(this.renderStatus(info, shards));
    }
    return out;
  }

  private renderStatus(info: SnapshotInfo, shards: ShardProgress[]): Json {
    const stats = (list: ShardProgress[]): Json => {
      const start = list.length ? Math.min(...list.map((s) => s.start)) : info.start_time_in_millis;
      const o: Json = {
        incremental: { file_count: sum(list, (s) => s.incrementalFiles), size_in_bytes: sum(list, (s) => s.incrementalBytes) },
        total: { file_count: sum(list, (s) => s.totalFiles), size_in_bytes: sum(list, (s) => s.totalBytes) },
        start_time_in_millis: start,
        time_in_millis: info.state === 'IN_PROGRESS' ? this.clock.now() - start : Math.max(0, ...list.map((s) => s.start + s.time)) - start,
      };
      if (info.state === 'IN_PROGRESS') o['processed'] = { file_count: sum(list, (s) => s.processedFiles), size_in_bytes: sum(list, (s) => s.processedBytes) };
      return o;
    };
    const shardStats = (list: ShardProgress[]): Json => ({
      initializing: list.filter((s) => s.stage === 'INIT').length,
      started: list.filter((s) => s.stage === 'STARTED').length,
      finalizing: 0,
      done: list.filter((s) => s.stage === 'DONE').length,
      failed: list.filter((s) => s.stage === 'FAILURE').length,
      total: list.length,
    });
    const indices: Json = {};
    for (const idx of info.indices) {
      const list = shards.filter((s) => s.index === idx);
      const perShard: Json = {};
      for (const s of list) {
        perShard[String(s.shard)] = { stage: s.stage === 'INIT' ? 'INIT' : s.stage, stats: stats([s]), ...(s.reason ? { reason: s.reason } : {}) };
      }
      indices[idx] = { shards_stats: shardStats(list), stats: stats(list), shards: perShard };
    }
    return {
      snapshot: info.snapshot,
      repository: info.repository,
      uuid: info.uuid,
      state: info.state === 'IN_PROGRESS' ? 'STARTED' : info.state,
      include_global_state: info.include_global_state,
      shards_stats: shardStats(shards),
      stats: stats(shards),
      indices,
    };
  }

  // ------------------------------------------------------------------ delete

  async deleteSnapshots(repoName: string, expr: string): Promise<void> {
    const repo = this.repository(repoName);
    if (this.isReadonly(repoName)) throw repositoryException(repoName, 'cannot delete snapshot from a readonly repository');
    const data0 = repo.readRepositoryData();
    const parts = expr.split(',').map((s) => s.trim()).filter(Boolean);
    const targets = new Set<string>();
    for (const p of parts) {
      if (p === '_all' || p.includes('*')) {
        for (const s of data0.snapshots) if (p === '_all' || simpleMatch(p, s.name)) targets.add(s.uuid);
      } else {
        const s = data0.snapshots.find((x) => x.name === p);
        if (!s) throw snapshotMissing(repoName, p);
        targets.add(s.uuid);
      }
    }
    if (targets.size === 0) return;
    const mounted = Object.values(this.store.current().indices).filter(
      (im) => im.settings['index.store.snapshot.repository_name'] === repoName && targets.has(String(im.settings['index.store.snapshot.snapshot_uuid'])),
    );
    if (mounted.length) {
      const names = data0.snapshots.filter((s) => targets.has(s.uuid)).map((s) => s.name);
      throw new EsError(
        'snapshot_in_use_deletion_exception',
        400,
        `[${repoName}:${names.join(',')}] Cannot delete snapshot [${names.join(', ')}] while it is used by searchable snapshot indices [${mounted.map((m) => m.name).join(', ')}]`,
      );
    }
    await this.locks.run(repoName, async () => {
      const data = repo.readRepositoryData();
      const indices = structuredClone(data.indices);
      const touched = new Set<string>();
      for (const [n, e] of Object.entries(indices)) {
        const before = e.snapshots.length;
        e.snapshots = e.snapshots.filter((u) => !targets.has(u));
        if (e.snapshots.length !== before) touched.add(n);
      }
      const gone: Array<{ id: string; name: string; remaining: string[] }> = [];
      for (const n of touched) {
        gone.push({ id: indices[n].id, name: n, remaining: indices[n].snapshots });
        if (indices[n].snapshots.length === 0) delete indices[n];
      }
      repo.writeRepositoryData({ ...data, snapshots: data.snapshots.filter((s) => !targets.has(s.uuid)), indices });
      // the snapshots are gone; now their files, and the blobs no remaining snapshot uses
      for (const u of targets) {
        repo.remove(`snap-${u}.dat`);
        repo.remove(`meta-${u}.dat`);
      }
      const live = new Set(data.snapshots.filter((s) => !targets.has(s.uuid)).map((s) => s.uuid));
      for (const g of gone) {
        if (g.remaining.length === 0) {
          repo.remove(path.join('indices', g.id));
          continue;
        }
        for (const u of targets) repo.remove(path.join('indices', g.id, `meta-${u}.dat`));
        const refs = this.referencedBlobs(repo, g.id, live);
        for (const shard of repo.list(path.join('indices', g.id))) {
          if (!/^\d+$/.test(shard)) continue;
          const rel = path.join('indices', g.id, shard);
          for (const u of targets) repo.remove(path.join(rel, `snap-${u}.dat`));
          for (const f of repo.list(rel)) if (f.startsWith('__') && !refs.get(shard)?.has(f)) repo.remove(path.join(rel, f));
        }
      }
    });
  }

  // ------------------------------------------------------------------ restore

  private snapshotEntry(repoName: string, repo: FsRepository, name: string): { data: RepositoryData; entry: RepoSnapshotEntry; info: SnapshotInfo } {
    const data = repo.readRepositoryData();
    const entry = data.snapshots.find((s) => s.name === name);
    if (!entry) throw snapshotMissing(repoName, name);
    return { data, entry, info: this.readInfo(repo, entry.uuid) };
  }

  /** fills the shard directories of a new index from a snapshot's shard manifests (verifying each blob) */
  private async populateShards(repo: FsRepository, indexId: string, snapUuid: string, shards: number, uuid: string, mode: 'copy' | 'link'): Promise<void> {
    try {
      for (let s = 0; s < shards; s++) {
        const dir = path.join('indices', indexId, String(s));
        const man = repo.readJson<ShardManifest>(path.join(dir, `snap-${snapUuid}.dat`));
        const target = this.indices.shardPath(uuid, s);
        ensureDir(target);
        for (const f of man.files) {
          if (mode === 'link') repo.linkOut(dir, f, path.join(target, f.name));
          else await repo.copyOut(dir, f, path.join(target, f.name));
        }
        writeFileAtomic(path.join(target, COMMIT_POINT_FILE), Buffer.from(man.commit, 'base64'));
      }
    } catch (e) {
      for (let s = 0; s < shards; s++) removeQuietly(this.indices.shardPath(uuid, s));
      throw e;
    }
  }

  async restore(repoName: string, snapshot: string, req: RestoreRequest = {}): Promise<RestoreResult> {
    const repo = this.repository(repoName);
    const { data, info } = this.snapshotEntry(repoName, repo, snapshot);
    if (info.state === 'FAILED') throw restoreException(repoName, snapshot, info.uuid, 'unsupported snapshot state [FAILED]');
    const meta = repo.readJson<{ global: Json | null; data_streams: Array<Json & { name: string; indices: Array<{ index_name: string }> }> }>(`meta-${info.uuid}.dat`);
    // which indices and data streams: the request's expressions against the snapshot's content
    const exprs = req.indices === undefined ? [] : Array.isArray(req.indices) ? req.indices : req.indices.split(',').map((s) => s.trim()).filter(Boolean);
    const selectedStreams = meta.data_streams.filter((ds) => exprs.length === 0 || exprs.some((e) => e === '_all' || simpleMatch(e, ds.name)));
    const selected = new Set<string>();
    for (const ds of selectedStreams) for (const b of ds.indices) if (info.indices.includes(b.index_name)) selected.add(b.index_name);
    if (exprs.length === 0) info.indices.forEach((n) => selected.add(n));
    const positive = exprs.filter((e) => !e.startsWith('-'));
    for (const e of positive) {
      const hits = info.indices.filter((n) => e === '_all' || simpleMatch(e, n));
      hits.forEach((n) => selected.add(n));
      if (hits.length === 0 && !e.includes('*') && e !== '_all' && !selectedStreams.some((d) => d.name === e) && !req.ignoreUnavailable) {
        throw restoreException(repoName, snapshot, info.uuid, `indices [${e}] missing`);
      }
    }
    for (const e of exprs.filter((x) => x.startsWith('-'))) for (const n of [...selected]) if (simpleMatch(e.slice(1), n)) selected.delete(n);
    const rename = (n: string): string => (req.renamePattern !== undefined ? UserRegex.java(req.renamePattern).replace(n, req.renameReplacement ?? '') : n);
    const streamRename = new Map(selectedStreams.map((ds) => [ds.name, rename(ds.name)]));
    const targetName = (n: string): string => {
      for (const [from, to] of streamRename) if (from !== to && n.startsWith(`.ds-${from}-`)) return `.ds-${to}-${n.slice(`.ds-${from}-`.length)}`;
      return rename(n);
    };
    const md = this.store.current();
    const plan = [...selected].sort().map((n) => ({ source: n, target: targetName(n) }));
    const seen = new Set<string>();
    for (const p of plan) {
      if (seen.has(p.target)) throw restoreException(repoName, snapshot, info.uuid, `indices [${plan.filter((x) => x.target === p.target).map((x) => x.source).join(',')}] and [${p.target}] are renamed into the same index`);
      seen.add(p.target);
      const existing = md.indices[p.target];
      if (existing && existing.state === 'open') {
        throw restoreException(
          repoName,
          snapshot,
          info.uuid,
          `cannot restore index [${p.target}] because an open index with same name already exists in the cluster. Either close or delete the existing index or restore the index under a different name by providing a rename pattern and replacement name`,
        );
      }
    }
    const streams = (md.custom[DATA_STREAM_SECTION] ?? {}) as Json;
    for (const ds of selectedStreams) {
      const to = streamRename.get(ds.name)!;
      if (streams[to]) throw restoreException(repoName, snapshot, info.uuid, `cannot restore data stream [${to}] because a data stream with the same name already exists`);
    }
    let shardsTotal = 0;
    const restored: string[] = [];
    for (const p of plan) {
      const id = data.indices[p.source]?.id;
      if (!id) throw restoreException(repoName, snapshot, info.uuid, `index [${p.source}] is not in the repository`);
      const im = repo.readJson<SnapshotIndexMetadata>(path.join('indices', id, `meta-${info.uuid}.dat`));
      const existing = this.store.current().indices[p.target];
      if (existing) await this.mis.deleteIndices([p.target]);
      const settings = this.restoreSettings(im, req.indexSettings, req.ignoreIndexSettings);
      await this.mis.createIndex(
        p.target,
        { settings, mappings: im.mappings, aliases: req.includeAliases === false ? undefined : im.aliases },
        'restore_snapshot',
        {
          skipTemplates: true,
          creationDate: im.creationDate,
          primaryTerms: im.primaryTerms,
          custom: im.custom,
          populate: (uuid) => this.populateShards(repo, id, info.uuid, im.numberOfShards, uuid, 'copy'),
        },
      );
      shardsTotal += im.numberOfShards;
      restored.push(p.target);
    }
    // restored data streams: published once their backing indices are, keeping the ones restored
    if (selectedStreams.length) {
      await this.store.update((d) => {
        const sec = (d.custom[DATA_STREAM_SECTION] ??= {}) as Json;
        for (const ds of selectedStreams) {
          const to = streamRename.get(ds.name)!;
          const indices = ds.indices
            .map((b) => d.indices[targetName(b.index_name)])
            .filter((im): im is IndexMetadata => im !== undefined && restored.includes(im.name))
            .map((im) => ({ index_name: im.name, index_uuid: im.uuid }));
          if (indices.length) sec[to] = { ...structuredClone(ds), name: to, indices };
        }
      });
    }
    if (req.includeGlobalState === true && meta.global) await this.restoreGlobalState(meta.global);
    return { snapshot, indices: restored, shards: { total: shardsTotal, failed: 0, successful: shardsTotal } };
  }

  private restoreSettings(im: IndexMetadata, overrides: Json | undefined, ignore: string[] | undefined): Json {
    const settings: Json = { ...im.settings, 'index.number_of_shards': im.numberOfShards };
    if (!('index.number_of_replicas' in settings)) settings['index.number_of_replicas'] = im.numberOfReplicas;
    for (const k of Object.keys(settings)) if (k.startsWith('index.resize.')) delete settings[k];
    for (const pat of ignore ?? []) {
      const key = pat.startsWith('index.') ? pat : `index.${pat}`;
      if (key === 'index.number_of_shards') throw Errors.illegalArgument(`cannot remove setting [${key}] on restore`);
      for (const k of Object.keys(settings)) if (simpleMatch(key, k)) delete settings[k];
    }
    if (overrides) {
      for (const [k, v] of Object.entries(flattenSettings(overrides))) {
        const key = k.startsWith('index.') ? k : `index.${k}`;
        if (key === 'index.number_of_shards') throw Errors.illegalArgument(`cannot modify setting [${key}] on restore`);
        settings[key] = v;
      }
    }
    return settings;
  }

  /** persistent settings and feature sections (templates, pipelines, policies) from a snapshot: same names replaced */
  private async restoreGlobalState(global: Json): Promise<void> {
    await this.store.update((d) => {
      const ps = global['persistent_settings'];
      if (ps && typeof ps === 'object') Object.assign(d.persistentSettings, ps);
      const custom = (global['custom'] ?? {}) as Json;
      for (const [k, v] of Object.entries(custom)) {
        const cur = d.custom[k];
        if (cur && typeof cur === 'object' && !Array.isArray(cur) && v && typeof v === 'object' && !Array.isArray(v)) d.custom[k] = { ...(cur as Json), ...(v as Json) };
        else d.custom[k] = structuredClone(v);
      }
    });
  }

  // ------------------------------------------------------------------ mount (searchable snapshots)

  async mount(repoName: string, snapshot: string, req: MountRequest): Promise<RestoreResult> {
    const repo = this.repository(repoName);
    const { data, info } = this.snapshotEntry(repoName, repo, snapshot);
    if (!info.indices.includes(req.index)) throw Errors.indexNotFound(req.index);
    const id = data.indices[req.index]?.id;
    if (!id) throw Errors.indexNotFound(req.index);
    const im = repo.readJson<SnapshotIndexMetadata>(path.join('indices', id, `meta-${info.uuid}.dat`));
    const target = req.renamedIndex ?? req.index;
    const existing = this.store.current().indices[target];
    if (existing) throw Errors.resourceAlreadyExists(target, existing.uuid);
    const partial = req.storage === 'shared_cache';
    const settings = this.restoreSettings(im, req.indexSettings, req.ignoreIndexSettings);
    for (const k of Object.keys(settings)) if (k.startsWith('index.lifecycle.') && req.indexSettings?.[k] === undefined) delete settings[k];
    Object.assign(settings, {
      'index.store.type': 'snapshot',
      'index.store.snapshot.repository_name': repoName,
      'index.store.snapshot.repository_uuid': data.uuid,
      'index.store.snapshot.snapshot_name': snapshot,
      'index.store.snapshot.snapshot_uuid': info.uuid,
      'index.store.snapshot.index_name': req.index,
      'index.store.snapshot.index_uuid': im.uuid,
      'index.store.snapshot.partial': partial,
      'index.blocks.write': true,
    });
    if (partial) settings['index.number_of_replicas'] = 0;
    await this.mis.createIndex(
      target,
      { settings, mappings: im.mappings },
      'mount_snapshot',
      {
        skipTemplates: true,
        creationDate: im.creationDate,
        primaryTerms: im.primaryTerms,
        custom: req.custom ?? im.custom,
        populate: (uuid) => this.populateShards(repo, id, info.uuid, im.numberOfShards, uuid, partial ? 'link' : 'copy'),
      },
    );
    return { snapshot, indices: [target], shards: { total: im.numberOfShards, failed: 0, successful: im.numberOfShards } };
  }

  /** waits for running snapshots (shutdown, tests) */
  async awaitRunning(): Promise<void> {
    await Promise.allSettled([...this.inProgress.values()].map((p) => p.done));
  }
}

function sum(list: ShardProgress[], f: (s: ShardProgress) => number): number {
  return list.reduce((a, s) => a + f(s), 0);
}

