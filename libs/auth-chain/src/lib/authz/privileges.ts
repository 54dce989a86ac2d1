/**
 * Elasticsearch's named privileges and the action-name patterns they grant (ClusterPrivilegeResolver,
 * IndexPrivilege). Every route carries an action name; a role grants an action when one of its privileges'
 * patterns matches it. Action names may also be used as privileges directly (`indices:data/read/*`).
 */
import { automatonMatcher, automatonRegExp, type StringMatcher } from '@strata/core-common';

/** a set of action patterns (with exclusions) compiled to one predicate */
export class ActionPattern {
  private readonly include: StringMatcher | null;
  private readonly exclude: StringMatcher | null;

  constructor(
    readonly includes: readonly string[],
    readonly excludes: readonly string[] = [],
  ) {
    this.include = compile(includes);
    this.exclude = compile(excludes);
  }

  test(action: string): boolean {
    return this.include !== null && this.include.test(action) && !(this.exclude !== null && this.exclude.test(action));
  }

  /** whether everything `other` grants is granted here (pattern coverage: exact or covered by a trailing `*`) */
  implies(other: ActionPattern): boolean {
    if (other.includes.length === 0) return true;
    return other.includes.every((p) => covered(p, this.includes) && !this.excludes.some((x) => overlaps(p, x) && !covered(p, other.excludes)));
  }
}

function compile(patterns: readonly string[]): StringMatcher | null {
  if (patterns.length === 0) return null;
  return automatonMatcher(patterns);
}

/** pattern p (an action or name pattern) is contained in one of the patterns of set */
export function covered(p: string, set: readonly string[]): boolean {
  for (const s of set) {
    if (s === p) return true;
    if (s.endsWith('*') && !s.slice(0, -1).includes('*') && p.startsWith(s.slice(0, -1))) return true;
    if (!p.includes('*') && automatonRegExp(s).test(p)) return true;
  }
  return false;
}

function overlaps(a: string, b: string): boolean {
  const pa = a.endsWith('*') ? a.slice(0, -1) : a;
  const pb = b.endsWith('*') ? b.slice(0, -1) : b;
  return pa.startsWith(pb) || pb.startsWith(pa);
}

// ------------------------------------------------------------------ action classification

const CLUSTER_ACTION = /^(?:cluster:|indices:admin\/template\/|indices:admin\/index_template\/)/;
const INDEX_ACTION = /^(?:indices:|internal:transport\/proxy\/indices:)/;

/** ClusterPrivilegeResolver.isClusterAction: cluster actions, plus the index-template ones */
export function isClusterAction(action: string): boolean {
  return CLUSTER_ACTION.test(action);
}

export function isIndexAction(action: string): boolean {
  return !isClusterAction(action) && INDEX_ACTION.test(action);
}

// ------------------------------------------------------------------ cluster privileges

const ALL_SECURITY = ['cluster:admin/xpack/security/*'];
const ALL_CLUSTER = ['cluster:*', 'indices:admin/template/*', 'indices:admin/index_template/*'];
const API_KEY_ACTIONS = ['cluster:admin/xpack/security/api_key/*'];

export interface NamedPrivilege {
  readonly name: string;
  readonly pattern: ActionPattern;
}

function priv(name: string, includes: string[], excludes: string[] = []): NamedPrivilege {
  return { name, pattern: new ActionPattern(includes, excludes) };
}

/** `manage_own_api_key`: API key actions, limited to the caller's own keys (checked by the authorizer) */
export const MANAGE_OWN_API_KEY = 'manage_own_api_key';

const CLUSTER_PRIVILEGE_LIST: NamedPrivilege[] = [
  priv('none', []),
  priv('all', ALL_CLUSTER),
  priv('monitor', ['cluster:monitor/*', 'indices:admin/template/get', 'cluster:admin/component_template/get', 'indices:admin/index_template/get']),
  priv('monitor_ml', ['cluster:monitor/xpack/ml/*']),
  priv('monitor_text_structure', ['cluster:monitor/text_structure/*']),
  priv('monitor_data_frame_transforms', ['cluster:monitor/data_frame/*', 'cluster:monitor/transform/*']),
  priv('monitor_transform', ['cluster:monitor/data_frame/*', 'cluster:monitor/transform/*']),
  priv('monitor_watcher', ['cluster:monitor/xpack/watcher/*']),
  priv('monitor_rollup', ['cluster:monitor/xpack/rollup/*']),
  priv('monitor_enrich', ['cluster:monitor/xpack/enrich/*', 'cluster:admin/xpack/enrich/get']),
  priv('manage', ALL_CLUSTER, ALL_SECURITY),
  priv('manage_ml', ['cluster:admin/xpack/ml/*', 'cluster:monitor/xpack/ml/*']),
  priv('manage_data_frame_transforms', ['cluster:admin/data_frame/*', 'cluster:monitor/data_frame/*', 'cluster:monitor/transform/*', 'cluster:admin/transform/*']),
  priv('manage_transform', ['cluster:admin/data_frame/*', 'cluster:monitor/data_frame/*', 'cluster:monitor/transform/*', 'cluster:admin/transform/*']),
  priv('manage_token', ['cluster:admin/xpack/security/token/*']),
  priv('manage_watcher', ['cluster:admin/xpack/watcher/*', 'cluster:monitor/xpack/watcher/*']),
  priv('manage_index_templates', ['indices:admin/template/*', 'indices:admin/index_template/*', 'cluster:admin/component_template/*']),
  priv('manage_ingest_pipelines', ['cluster:admin/ingest/pipeline/*']),
  priv('read_pipeline', ['cluster:admin/ingest/pipeline/get', 'cluster:admin/ingest/pipeline/simulate']),
  priv('transport_client', ['cluster:monitor/nodes/liveness', 'cluster:monitor/state']),
  priv('manage_security', ALL_SECURITY),
  priv('read_security', [
    'cluster:admin/xpack/security/api_key/get',
    'cluster:admin/xpack/security/api_key/query',
    'cluster:admin/xpack/security/privilege/builtin/get',
    'cluster:admin/xpack/security/privilege/get',
    'cluster:admin/xpack/security/profile/get',
    'cluster:admin/xpack/security/profile/has_privileges',
    'cluster:admin/xpack/security/profile/suggest',
    'cluster:admin/xpack/security/role/get',
    'cluster:admin/xpack/security/role_mapping/get',
    'cluster:admin/xpack/security/service_account/get',
    'cluster:admin/xpack/security/service_account/credential/get*',
    'cluster:admin/xpack/security/user/get',
    'cluster:admin/xpack/security/user/list_privileges',
    'cluster:admin/xpack/security/user/has_privileges',
  ]),
  priv('manage_saml', ['cluster:admin/xpack/security/saml/*', 'cluster:admin/xpack/security/token/invalidate', 'cluster:admin/xpack/security/token/refresh']),
  priv('manage_oidc', ['cluster:admin/xpack/security/oidc/*']),
  priv('manage_api_key', API_KEY_ACTIONS),
  priv('grant_api_key', ['cluster:admin/xpack/security/api_key/grant*']),
  priv('manage_service_account', ['cluster:admin/xpack/security/service_account/*']),
  priv('manage_user_profile', ['cluster:admin/xpack/security/profile/*']),
  priv('manage_pipeline', ['cluster:admin/ingest/pipeline/*']),
  priv('manage_rollup', ['cluster:admin/xpack/rollup/*', 'cluster:monitor/xpack/rollup/*']),
  priv('manage_autoscaling', ['cluster:admin/autoscaling/*']),
  priv('manage_ccr', ['cluster:admin/xpack/ccr/*', 'cluster:monitor/state', 'cluster:admin/xpack/security/user/has_privileges']),
  priv('read_ccr', ['cluster:monitor/state', 'cluster:admin/xpack/security/user/has_privileges']),
  priv('create_snapshot', ['cluster:admin/snapshot/create', 'cluster:admin/snapshot/status*', 'cluster:admin/snapshot/get', 'cluster:admin/repository/get']),
  priv('monitor_snapshot', ['cluster:admin/snapshot/status*', 'cluster:admin/snapshot/get', 'cluster:admin/repository/get']),
  priv('manage_ilm', ['cluster:admin/ilm/*']),
  priv('read_ilm', ['cluster:admin/ilm/get', 'cluster:admin/ilm/operation_mode/get']),
  priv('manage_slm', ['cluster:admin/slm/*', 'cluster:admin/ilm/start', 'cluster:admin/ilm/stop', 'cluster:admin/ilm/operation_mode/get']),
  priv('read_slm', ['cluster:admin/slm/get', 'cluster:admin/ilm/operation_mode/get']),
  priv('delegate_pki', ['cluster:admin/xpack/security/delegate_pki', 'cluster:admin/xpack/security/token/invalidate']),
  priv(MANAGE_OWN_API_KEY, API_KEY_ACTIONS, ['cluster:admin/xpack/security/api_key/grant*']),
  priv('manage_enrich', ['cluster:admin/xpack/enrich/*']),
  priv('manage_logstash_pipelines', ['cluster:admin/logstash/pipeline/*']),
  priv('cancel_task', ['cluster:admin/tasks/cancel*']),
  priv('manage_search_application', ['cluster:admin/xpack/application/search_application/*']),
  priv('manage_behavioral_analytics', ['cluster:admin/xpack/application/analytics/*']),
  priv('post_behavioral_analytics_event', ['cluster:admin/xpack/application/analytics/post_event']),
  priv('read_fleet_secrets', ['cluster:admin/fleet/secrets/get']),
  priv('write_fleet_secrets', ['cluster:admin/fleet/secrets/post', 'cluster:admin/fleet/secrets/delete']),
  priv('manage_inference', ['cluster:admin/xpack/inference/*', 'cluster:monitor/xpack/inference*']),
  priv('monitor_inference', ['cluster:monitor/xpack/inference*']),
  priv('manage_data_stream_global_retention', ['cluster:admin/data_stream/global_retention/*', 'cluster:monitor/data_stream/global_retention/*']),
  priv('monitor_data_stream_global_retention', ['cluster:monitor/data_stream/global_retention/*']),
];

// ------------------------------------------------------------------ index privileges

const INDEX_PRIVILEGE_LIST: NamedPrivilege[] = [
  priv('none', []),
  priv('all', ['indices:*', 'internal:transport/proxy/indices:*']),
  priv('read', ['indices:data/read/*', 'indices:admin/resolve/index']),
  priv('read_cross_cluster', ['internal:transport/proxy/indices:data/read/*', 'indices:admin/shards/search_shards']),
  priv('create', ['indices:data/write/index*', 'indices:data/write/bulk*', 'indices:admin/mapping/auto_put']),
  priv('index', ['indices:data/write/index*', 'indices:data/write/bulk*', 'indices:data/write/update*', 'indices:admin/mapping/auto_put']),
  priv('delete', ['indices:data/write/delete*', 'indices:data/write/bulk*']),
  priv('write', ['indices:data/write/*', 'indices:admin/mapping/auto_put']),
  priv('create_doc', [
    'indices:data/write/index',
    'indices:data/write/index[*',
    'indices:data/write/index:op_type/create',
    'indices:data/write/bulk*',
    'indices:admin/mapping/auto_put',
  ]),
  priv('monitor', ['indices:monitor/*']),
  priv('manage', ['indices:monitor/*', 'indices:admin/*', 'indices:data/read/field_caps*', 'indices:admin/xpack/rollup/get/index/caps*']),
  priv('create_index', ['indices:admin/create', 'indices:admin/auto_create', 'indices:admin/data_stream/create']),
  priv('delete_index', ['indices:admin/delete', 'indices:admin/data_stream/delete']),
  priv('view_index_metadata', [
    'indices:admin/aliases/get',
    'indices:admin/get',
    'indices:admin/mappings/fields/get*',
    'indices:admin/mappings/get',
    'indices:admin/shards/search_shards',
    'indices:admin/validate/query*',
    'indices:monitor/settings/get',
    'indices:admin/ilm/explain',
    'indices:admin/data_stream/get',
    'indices:admin/resolve/index',
    'indices:data/read/field_caps*',
    'indices:admin/xpack/rollup/get/index/caps*',
    'indices:admin/data_stream/lifecycle/get',
    'indices:admin/data_stream/lifecycle/explain',
  ]),
  priv('manage_follow_index', [
    'indices:admin/xpack/ccr/put_follow',
    'indices:admin/xpack/ccr/unfollow',
    'indices:admin/close*',
    'indices:admin/data_stream/promote',
    'indices:admin/rollover',
  ]),
  priv('manage_leader_index', ['indices:admin/xpack/ccr/forget_follower*']),
  priv('manage_ilm', ['indices:admin/ilm/*']),
  priv('manage_data_stream_lifecycle', ['indices:admin/data_stream/lifecycle/*']),
  priv('maintenance', ['indices:admin/refresh*', 'indices:admin/flush*', 'indices:admin/synced_flush', 'indices:admin/forcemerge*']),
  priv('auto_configure', ['indices:admin/mapping/auto_put', 'indices:admin/auto_create', 'indices:admin/data_stream/create']),
];

/** sorted from least to most privileged (how many others each implies), then by name, like Privilege.sortByAccessLevel */
function sortByAccessLevel(list: NamedPrivilege[]): Map<string, NamedPrivilege> {
  const implies = new Map<string, number>();
  for (const p of list) implies.set(p.name, list.filter((q) => q !== p && p.pattern.implies(q.pattern)).length);
  const sorted = [...list].sort((a, b) => implies.get(a.name)! - implies.get(b.name)! || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return new Map(sorted.map((p) => [p.name, p]));
}

export const CLUSTER_PRIVILEGES: ReadonlyMap<string, NamedPrivilege> = sortByAccessLevel(CLUSTER_PRIVILEGE_LIST);
export const INDEX_PRIVILEGES: ReadonlyMap<string, NamedPrivilege> = sortByAccessLevel(INDEX_PRIVILEGE_LIST);

/** the privileges that grant an action, least privileged first (for the 403 message) */
export function clusterPrivilegesThatGrant(action: string): string[] {
  return [...CLUSTER_PRIVILEGES.values()].filter((p) => p.pattern.test(action)).map((p) => p.name);
}

export function indexPrivilegesThatGrant(action: string): string[] {
  return [...INDEX_PRIVILEGES.values()].filter((p) => p.pattern.test(action)).map((p) => p.name);
}

/** a cluster privilege name or a cluster action pattern; throws with Elasticsearch's message when neither */
export function resolveClusterPrivilege(name: string): ActionPattern {
  const n = name.toLowerCase();
  if (isClusterAction(n)) return new ActionPattern([n.endsWith('*') ? n : n + '*']);
  const p = CLUSTER_PRIVILEGES.get(n);
  if (p) return p.pattern;
  throw new Error(
    `unknown cluster privilege [${n}]. a privilege must be either one of the predefined cluster privilege names [${[...CLUSTER_PRIVILEGES.keys()].join(',')}] or a pattern over one of the available cluster actions`,
  );
}

/** index privilege names / index action patterns → one predicate; throws with Elasticsearch's message */
export function resolveIndexPrivileges(names: readonly string[]): ActionPattern {
  const includes: string[] = [];
  for (const raw of names) {
    const n = raw.toLowerCase();
    if (INDEX_ACTION.test(n)) {
      includes.push(n.endsWith('*') ? n : n + '*');
      continue;
    }
    const p = INDEX_PRIVILEGES.get(n);
    if (!p) {
      throw new Error(
        `unknown index privilege [${n}]. a privilege must be either one of the predefined fixed indices privileges [${[...INDEX_PRIVILEGES.keys()].join(',')}] or a pattern over one of the available index actions`,
      );
    }
    includes.push(...p.pattern.includes);
  }
  return new ActionPattern(includes);
}
