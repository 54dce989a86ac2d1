/**
 * REST: snapshot repositories (`/_snapshot/{repository}`) and snapshots (create, get, status, delete,
 * restore, `_mount`) over the engine's SnapshotsService.
 */
import { ContainerModule, inject, injectable } from 'inversify';
import { Errors, ExtensionPoints, RestResponses, parseExpandWildcards, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { SnapshotsService, type SnapshotInfo } from '@strata/core-engine';
import { NODE_INFO, type NodeInfo } from '../cluster/node-info.js';

type Json = Record<string, unknown>;

const TIMEOUTS = ['master_timeout', 'timeout'];

export const SnapshotActions = {
  REPO_PUT: 'cluster:admin/repository/put',
  REPO_GET: 'cluster:admin/repository/get',
  REPO_DELETE: 'cluster:admin/repository/delete',
  REPO_VERIFY: 'cluster:admin/repository/verify',
  REPO_CLEANUP: 'cluster:admin/repository/_cleanup',
  CREATE: 'cluster:admin/snapshot/create',
  GET: 'cluster:admin/snapshot/get',
  STATUS: 'cluster:admin/snapshot/status',
  DELETE: 'cluster:admin/snapshot/delete',
  RESTORE: 'cluster:admin/snapshot/restore',
  MOUNT: 'cluster:admin/snapshot/mount',
} as const;
const A = SnapshotActions;

function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** ES CreateSnapshotRequest/RestoreSnapshotRequest.source: an unknown key is an illegal argument */
function checkKeys(body: Json, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) if (!allowed.includes(k)) throw Errors.illegalArgument(`Unknown parameter ${k}`);
}

function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (Array.isArray(v)) return v.map(String);
  return String(v).split(',').map((s) => s.trim()).filter(Boolean);
}

function bool(v: unknown, key: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw Errors.illegalArgument(`Failed to parse value [${String(v)}] as only [true] or [false] are allowed for [${key}].`);
}

/** SnapshotInfo as ES renders it (verbose) */
export function renderSnapshotInfo(i: SnapshotInfo, verbose = true): Json {
  if (!verbose) return { snapshot: i.snapshot, uuid: i.uuid, repository: i.repository, indices: i.indices, data_streams: i.data_streams, state: i.state };
  const o: Json = {
    snapshot: i.snapshot,
    uuid: i.uuid,
    repository: i.repository,
    version_id: i.version_id,
    version: i.version,
    indices: i.indices,
    data_streams: i.data_streams,
    include_global_state: i.include_global_state,
  };
  if (i.metadata) o['metadata'] = i.metadata;
  o['state'] = i.state;
  o['start_time'] = new Date(i.start_time_in_millis).toISOString();
  o['start_time_in_millis'] = i.start_time_in_millis;
  if (i.state !== 'IN_PROGRESS') {
    o['end_time'] = new Date(i.end_time_in_millis).toISOString();
    o['end_time_in_millis'] = i.end_time_in_millis;
    o['duration_in_millis'] = i.end_time_in_millis - i.start_time_in_millis;
  }
  o['failures'] = i.failures;
  o['shards'] = i.shards;
  o['feature_states'] = i.feature_states;
  return o;
}

function renderRepoSettings(settings: Record<string, unknown>): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(settings)) out[k] = isObj(v) || Array.isArray(v) ? v : String(v);
  return out;
}

// ---------------------------------------------------------------- repositories

@injectable()
export class PutRepositoryRestHandler implements RestHandler {
  readonly name = 'put_repository_action';
  readonly routes = [route('PUT', '/_snapshot/{repository}', A.REPO_PUT), route('POST', '/_snapshot/{repository}', A.REPO_PUT)];
  readonly params = ['verify', ...TIMEOUTS];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    for (const k of Object.keys(body)) if (k !== 'type' && k !== 'settings') throw Errors.illegalArgument(`Unknown field [${k}] for repository`);
    await this.snapshots.putRepository(req.pathParam('repository'), { type: body['type'], settings: body['settings'] }, req.boolParam('verify', true));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetRepositoriesRestHandler implements RestHandler {
  readonly name = 'get_repositories_action';
  readonly routes = [route('GET', '/_snapshot', A.REPO_GET), route('GET', '/_snapshot/{repository}', A.REPO_GET)];
  readonly params = ['local', 'master_timeout'];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  handle(req: RestRequest): RestResponse {
    const out: Json = {};
    for (const [n, r] of Object.entries(this.snapshots.getRepositories(req.optionalPathParam('repository')))) {
      out[n] = { type: r.type, settings: renderRepoSettings(r.settings) };
    }
    return RestResponses.ok(out);
  }
}

@injectable()
export class DeleteRepositoryRestHandler implements RestHandler {
  readonly name = 'delete_repository_action';
  readonly routes = [route('DELETE', '/_snapshot/{repository}', A.REPO_DELETE)];
  readonly params = TIMEOUTS;

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.snapshots.deleteRepository(req.pathParam('repository'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class VerifyRepositoryRestHandler implements RestHandler {
  readonly name = 'verify_repository_action';
  readonly routes = [route('POST', '/_snapshot/{repository}/_verify', A.REPO_VERIFY)];
  readonly params = TIMEOUTS;

  constructor(
    @inject(SnapshotsService) private readonly snapshots: SnapshotsService,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    this.snapshots.verifyRepository(req.pathParam('repository'));
    return RestResponses.ok({ nodes: { [this.node.id]: { name: this.node.name } } });
  }
}

@injectable()
export class CleanupRepositoryRestHandler implements RestHandler {
  readonly name = 'cleanup_repository_action';
  readonly routes = [route('POST', '/_snapshot/{repository}/_cleanup', A.REPO_CLEANUP)];
  readonly params = TIMEOUTS;

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    return RestResponses.ok({ results: await this.snapshots.cleanupRepository(req.pathParam('repository')) });
  }
}

// ---------------------------------------------------------------- snapshots

@injectable()
export class CreateSnapshotRestHandler implements RestHandler {
  readonly name = 'create_snapshot_action';
  readonly routes = [route('PUT', '/_snapshot/{repository}/{snapshot}', A.CREATE), route('POST', '/_snapshot/{repository}/{snapshot}', A.CREATE)];
  readonly params = ['wait_for_completion', ...TIMEOUTS];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    checkKeys(body, ['indices', 'ignore_unavailable', 'include_global_state', 'partial', 'metadata', 'feature_states', 'expand_wildcards']);
    if (body['metadata'] !== undefined && body['metadata'] !== null && !isObj(body['metadata'])) throw Errors.illegalArgument('malformed metadata, should be an object');
    const ew = body['expand_wildcards'];
    const { done } = await this.snapshots.createSnapshot(req.pathParam('repository'), req.pathParam('snapshot'), {
      indices: stringList(body['indices']),
      ignoreUnavailable: bool(body['ignore_unavailable'], 'ignore_unavailable'),
      includeGlobalState: bool(body['include_global_state'], 'include_global_state'),
      partial: bool(body['partial'], 'partial'),
      metadata: isObj(body['metadata']) ? body['metadata'] : undefined,
      expandWildcards: ew === undefined ? undefined : parseExpandWildcards(stringList(ew) ?? []),
    });
    if (!req.boolParam('wait_for_completion', false)) {
      done.catch(() => undefined);
      return RestResponses.ok({ accepted: true });
    }
    const info = await done;
    return RestResponses.ok({ snapshot: renderSnapshotInfo(info) });
  }
}

@injectable()
export class GetSnapshotsRestHandler implements RestHandler {
  readonly name = 'get_snapshots_action';
  readonly routes = [route('GET', '/_snapshot/{repository}/{snapshot}', A.GET)];
  readonly params = ['ignore_unavailable', 'verbose', 'index_details', 'include_repository', 'index_names', 'sort', 'size', 'order', 'offset', 'after', 'from_sort_value', 'slm_policy_filter', 'master_timeout'];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  handle(req: RestRequest): RestResponse {
    const verbose = req.boolParam('verbose', true);
    const repos = Object.keys(this.snapshots.getRepositories(req.pathParam('repository'))).sort();
    const ignore = req.boolParam('ignore_unavailable', false);
    let list: SnapshotInfo[] = [];
    for (const r of repos) list.push(...this.snapshots.getSnapshots(r, req.pathParam('snapshot'), ignore));
    const order = req.param('order') ?? 'asc';
    const sort = req.param('sort') ?? 'start_time';
    const key = (i: SnapshotInfo): number | string => {
      switch (sort) {
        case 'name':
          return i.snapshot;
        case 'duration':
          return i.end_time_in_millis - i.start_time_in_millis;
        case 'index_count':
          return i.indices.length;
        case 'shard_count':
          return i.shards.total;
        case 'failed_shard_count':
          return i.shards.failed;
        case 'repository':
          return i.repository;
        case 'start_time':
          return i.start_time_in_millis;
        default:
          throw Errors.illegalArgument(`unknown sort order [${sort}]`);
      }
    };
    list = [...list].sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c = ka < kb ? -1 : ka > kb ? 1 : a.snapshot < b.snapshot ? -1 : 1;
      return order === 'desc' ? -c : c;
    });
    const offset = req.intParam('offset', 0) ?? 0;
    const size = req.intParam('size', 0) ?? 0;
    const page = list.slice(offset, size > 0 ? offset + size : undefined);
    return RestResponses.ok({ snapshots: page.map((i) => renderSnapshotInfo(i, verbose)), total: list.length, remaining: list.length - offset - page.length });
  }
}

@injectable()
export class SnapshotStatusRestHandler implements RestHandler {
  readonly name = 'snapshot_status_action';
  readonly routes = [
    route('GET', '/_snapshot/_status', A.STATUS),
    route('GET', '/_snapshot/{repository}/_status', A.STATUS),
    route('GET', '/_snapshot/{repository}/{snapshot}/_status', A.STATUS),
  ];
  readonly params = ['ignore_unavailable', 'master_timeout'];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  handle(req: RestRequest): RestResponse {
    const repo = req.optionalPathParam('repository');
    if (repo !== undefined) this.snapshots.getRepositories(repo);
    const names = req.optionalPathParam('snapshot')?.split(',').map((s) => s.trim()).filter(Boolean);
    return RestResponses.ok({ snapshots: this.snapshots.status(repo, names, req.boolParam('ignore_unavailable', false)) });
  }
}

@injectable()
export class DeleteSnapshotRestHandler implements RestHandler {
  readonly name = 'delete_snapshot_action';
  readonly routes = [route('DELETE', '/_snapshot/{repository}/{snapshot}', A.DELETE)];
  readonly params = ['wait_for_completion', 'master_timeout'];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.snapshots.deleteSnapshots(req.pathParam('repository'), req.pathParam('snapshot'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class RestoreSnapshotRestHandler implements RestHandler {
  readonly name = 'restore_snapshot_action';
  readonly routes = [route('POST', '/_snapshot/{repository}/{snapshot}/_restore', A.RESTORE)];
  readonly params = ['wait_for_completion', ...TIMEOUTS];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    checkKeys(
      body,
      ['indices', 'ignore_unavailable', 'include_global_state', 'rename_pattern', 'rename_replacement', 'include_aliases', 'index_settings', 'ignore_index_settings', 'partial', 'feature_states', 'expand_wildcards', 'allow_no_indices', 'rename_alias_pattern', 'rename_alias_replacement', 'quiet'],
    );
    const p = this.snapshots.restore(req.pathParam('repository'), req.pathParam('snapshot'), {
      indices: stringList(body['indices']),
      ignoreUnavailable: bool(body['ignore_unavailable'], 'ignore_unavailable'),
      includeGlobalState: bool(body['include_global_state'], 'include_global_state'),
      renamePattern: body['rename_pattern'] === undefined ? undefined : String(body['rename_pattern']),
      renameReplacement: body['rename_replacement'] === undefined ? undefined : String(body['rename_replacement']),
      includeAliases: bool(body['include_aliases'], 'include_aliases'),
      indexSettings: isObj(body['index_settings']) ? body['index_settings'] : undefined,
      ignoreIndexSettings: stringList(body['ignore_index_settings']),
      partial: bool(body['partial'], 'partial'),
    });
    if (!req.boolParam('wait_for_completion', false)) {
      // the checks ran before anything is restored: an invalid request still fails here
      const r = await Promise.race([p.then((x) => ({ x })), new Promise<null>((res) => setImmediate(() => res(null)))]);
      if (r === null) p.catch(() => undefined);
      return RestResponses.ok({ accepted: true });
    }
    return RestResponses.ok({ snapshot: await p });
  }
}

@injectable()
export class MountSnapshotRestHandler implements RestHandler {
  readonly name = 'mount_snapshot_action';
  readonly routes = [route('POST', '/_snapshot/{repository}/{snapshot}/_mount', A.MOUNT)];
  readonly params = ['wait_for_completion', 'storage', 'master_timeout'];

  constructor(@inject(SnapshotsService) private readonly snapshots: SnapshotsService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    checkKeys(body, ['index', 'renamed_index', 'index_settings', 'ignore_index_settings']);
    if (typeof body['index'] !== 'string' || body['index'] === '') throw Errors.actionRequestValidation(['index name is missing']);
    const storage = req.param('storage') ?? 'full_copy';
    if (storage !== 'full_copy' && storage !== 'shared_cache') throw Errors.illegalArgument(`unknown storage type [${storage}]`);
    const p = this.snapshots.mount(req.pathParam('repository'), req.pathParam('snapshot'), {
      index: body['index'],
      renamedIndex: typeof body['renamed_index'] === 'string' ? body['renamed_index'] : undefined,
      indexSettings: isObj(body['index_settings']) ? body['index_settings'] : undefined,
      ignoreIndexSettings: stringList(body['ignore_index_settings']),
      storage,
    });
    if (!req.boolParam('wait_for_completion', false)) {
      const r = await Promise.race([p.then((x) => ({ x })), new Promise<null>((res) => setImmediate(() => res(null)))]);
      if (r === null) p.catch(() => undefined);
      return RestResponses.ok({ accepted: true });
    }
    return RestResponses.ok({ snapshot: await p });
  }
}

/** REST handlers of the snapshot and repository APIs (the service is the engine's SnapshotsService). */
export const snapshotsApiModule = new ContainerModule(({ bind }) => {
  for (const h of [
    PutRepositoryRestHandler,
    GetRepositoriesRestHandler,
    DeleteRepositoryRestHandler,
    VerifyRepositoryRestHandler,
    CleanupRepositoryRestHandler,
    CreateSnapshotRestHandler,
    GetSnapshotsRestHandler,
    SnapshotStatusRestHandler,
    DeleteSnapshotRestHandler,
    RestoreSnapshotRestHandler,
    MountSnapshotRestHandler,
  ]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});
