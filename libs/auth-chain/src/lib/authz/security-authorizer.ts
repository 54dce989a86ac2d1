/**
 * Authorization by action name, as Elasticsearch's RBAC engine decides it:
 * - cluster actions need a cluster privilege that grants them (`manage_own_api_key` only for the caller's keys);
 * - index actions need an index privilege on every name the request states explicitly (a backing index
 *   follows its data stream), and some privilege granting the action for wildcards and `_all`, which the
 *   core then expands only to authorized names (IndicesAccess);
 * - a few actions only need an authenticated caller (its own authentication, password, privileges; scroll,
 *   PIT and async-search contexts, whose owner the feature checks).
 * Denials are 403 `security_exception` naming the action, the caller, its effective roles and the
 * privileges that would grant the action.
 * Run-as (`es-security-runas-user: <user>`, realm users and their access tokens only): the caller's roles must
 * name the user in `run_as` and the user must exist; the action is then authorized as that user.
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, explicitIndexNames, type Authorizer, type IndicesAccess, type Principal, type RestRequest } from '@strata/core-common';
import { EngineTokens, resolveDateMathIndexName, type IndexNameExpressionResolver } from '@strata/core-engine';
import type { Authentication } from '../authc/authentication.js';
import { failedUser, missingCredentials } from '../authc/auth-errors.js';
import { RealmChain } from '../authc/realms.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { SecurityConfig } from '../security-config.js';
import { clusterPrivilegesThatGrant, indexPrivilegesThatGrant, isClusterAction, isIndexAction } from './privileges.js';
import type { Permission } from './role.js';
import { RolesService, type ResolvedPermission } from './roles-service.js';

/** set on a request allowed only through `manage_own_api_key`: the handler restricts itself to the caller's keys */
export const OWN_API_KEYS_ONLY = Symbol.for('strata.security.ownApiKeysOnly');

const SELF_ACTIONS = new Set([
  'cluster:admin/xpack/security/user/authenticate',
  'cluster:admin/xpack/security/user/has_privileges',
  'cluster:admin/xpack/security/user/list_privileges',
]);
const CHANGE_PASSWORD = 'cluster:admin/xpack/security/user/change_password';

/** actions on contexts (scroll, PIT, async searches) whose owner check is the feature's */
const OWNER_CHECKED_ACTIONS = new Set([
  'indices:data/read/scroll',
  'indices:data/read/scroll/clear',
  'indices:data/read/close_point_in_time',
  'indices:data/read/async_search/get',
  'indices:data/read/eql/async/get',
  'cluster:monitor/xpack/eql/async/status',
  'cluster:admin/xpack/async_search/delete',
]);

/** composite requests whose items name their own indices (checked item by item by the handler) */
const COMPOSITE_ACTIONS = new Set(['indices:data/write/bulk', 'indices:data/read/mget', 'indices:data/read/msearch', 'indices:data/read/mtv', 'indices:admin/aliases']);

export const RUN_AS_HEADER = 'es-security-runas-user';

export function describeCaller(auth: Authentication, resolved?: ResolvedPermission): string {
  if (auth.apiKey) return `API key id [${auth.apiKey.id}] of user [${auth.username}]`;
  if (auth.serviceAccountRole) return `service account [${auth.username}]`;
  let text = auth.runBy ? `user [${auth.runBy.username}] run as [${auth.username}]` : `user [${auth.username}]`;
  if (resolved) {
    text += ` with effective roles [${resolved.effective.join(',')}]`;
    if (resolved.missing.length) text += ` (assigned roles [${resolved.missing.join(',')}] were not found)`;
  } else {
    text += ` with assigned roles [${auth.roles.join(',')}]`;
  }
  return text;
}

export function actionDenied(action: string, auth: Authentication, resolved: ResolvedPermission | undefined, names?: readonly string[]): EsError {
  let msg = `action [${action}] is unauthorized for ${describeCaller(auth, resolved)}`;
  if (names && names.length) msg += ` on indices [${names.join(',')}]`;
  if (isClusterAction(action)) {
    const p = clusterPrivilegesThatGrant(action);
    if (p.length) msg += `, this action is granted by the cluster privileges [${p.join(',')}]`;
  } else if (isIndexAction(action)) {
    const p = indexPrivilegesThatGrant(action);
    if (p.length) msg += `, this action is granted by the index privileges [${p.join(',')}]`;
  }
  return Errors.security(msg, 403);
}

/** the caller's index-level access for one request (the core's IndicesAccess) */
class RequestIndicesAccess implements IndicesAccess {
  constructor(
    private readonly action: string,
    private readonly auth: Authentication,
    private readonly resolved: ResolvedPermission,
    private readonly dataStreamOf: (index: string) => string | undefined,
  ) {}

  allowed(name: string): boolean {
    return this.allowedFor(this.action, name);
  }

  allowedFor(action: string, name: string): boolean {
    const p = this.resolved.permission;
    if (p.unrestricted || p.index(action, name)) return true;
    const ds = this.dataStreamOf(name);
    return ds !== undefined && p.index(action, ds);
  }

  denied(action: string, names: readonly string[]): EsError {
    return actionDenied(action, this.auth, this.resolved, names);
  }
}

@injectable()
export class SecurityAuthorizer implements Authorizer {
  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(RolesService) private readonly roles: RolesService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
    @inject(RealmChain) private readonly realms: RealmChain,
    @inject(EngineTokens.IndexNameExpressionResolver) @optional() private readonly resolver?: IndexNameExpressionResolver,
  ) {}

  private dataStreamOf = (index: string): string | undefined => this.resolver?.dataStreamOf?.(index);

  async authorize(principal: Principal | undefined, action: string, req: RestRequest): Promise<void> {
    if (!this.config.enabled) return;
    if (!principal) throw missingCredentials(req);
    let auth = principal as Authentication;
    const runAs = req.headers[RUN_AS_HEADER];
    if (runAs !== undefined && supportsRunAs(auth)) {
      auth = this.runAs(auth, runAs, action, req);
      req.principal = auth;
    }
    const resolved = this.roles.permissionOf(auth);
    const p = resolved.permission;
    try {
      this.check(auth, resolved, p, action, req);
    } catch (e) {
      this.audit.accessDenied(auth, action, req);
      // an anonymous caller is asked for credentials instead, unless anonymous.authz_exception is true
      if (auth.authenticationType === 'anonymous' && this.config.anonymous?.authzException === false) throw missingCredentials(req);
      throw e;
    }
    this.audit.accessGranted(auth, action, req);
  }

  /** the user `target` as run by `auth`, or ES's run-as denial (an unknown user is denied alike) */
  private runAs(auth: Authentication, target: string, action: string, req: RestRequest): Authentication {
    if (target === '') {
      this.audit.runAsDenied(auth, target, action, req);
      throw failedUser(auth.username, req);
    }
    const resolved = this.roles.permissionOf(auth);
    const user = resolved.permission.runAs(target) ? this.realms.lookup(target) : undefined;
    if (!user) {
      this.audit.runAsDenied(auth, target, action, req);
      throw Errors.security(
        `action [${action}] is unauthorized for ${describeCaller(auth, resolved)}, because user [${auth.username}] is unauthorized to run as [${target}]`,
        403,
      );
    }
    const runAs: Authentication = {
      ...user,
      realm: { ...auth.realm },
      lookupRealm: { ...(user.lookupRealm ?? user.realm) },
      authenticationType: auth.authenticationType,
      runBy: { username: auth.username, realm: { ...(auth.lookupRealm ?? auth.realm) }, roles: [...auth.roles] },
    };
    if (auth.token) runAs.token = auth.token;
    this.audit.runAsGranted(runAs, action, req);
    return runAs;
  }

  private check(auth: Authentication, resolved: ResolvedPermission, p: Permission, action: string, req: RestRequest): void {
    if (p.unrestricted) return;
    if (SELF_ACTIONS.has(action) && this.isSelf(auth, req)) return;
    if (action === CHANGE_PASSWORD && this.isSelf(auth, req) && !auth.apiKey && !auth.serviceAccountRole && auth.authenticationType === 'realm') return;
    if (OWNER_CHECKED_ACTIONS.has(action)) return;
    if (isClusterAction(action)) {
      const grant = p.cluster(action);
      if (grant === 'granted') return;
      if (grant === 'own-api-keys' && this.ownApiKeys(auth, action, req)) return;
      throw actionDenied(action, auth, resolved);
    }
    if (!isIndexAction(action)) throw actionDenied(action, auth, resolved);
    const composite = COMPOSITE_ACTIONS.has(action);
    const explicit = composite ? [] : this.explicitTargets(req);
    if (!p.anyIndex(action)) throw actionDenied(action, auth, resolved, explicit);
    const access = new RequestIndicesAccess(action, auth, resolved, this.dataStreamOf);
    req.indicesAccess = access;
    const denied = explicit.filter((n) => !access.allowed(n));
    if (denied.length) throw actionDenied(action, auth, resolved, denied);
  }

  /** the names a request states explicitly (patterns, `_all` and exclusions are left to IndicesAccess) */
  private explicitTargets(req: RestRequest): string[] {
    const param = req.route.targets ?? (req.route.action.startsWith('indices:admin/data_stream/') ? 'name' : 'index');
    return explicitIndexNames(req.optionalPathParam(param), (n) => resolveDateMathIndexName(n, Date.now()));
  }

  private isSelf(auth: Authentication, req: RestRequest): boolean {
    const target = req.optionalPathParam('username') ?? req.optionalPathParam('user');
    return target === undefined || target === auth.username;
  }

  /** `manage_own_api_key`: only requests about the caller's own keys */
  private ownApiKeys(auth: Authentication, action: string, req: RestRequest): boolean {
    const verb = action.slice(action.lastIndexOf('/') + 1);
    if (verb === 'create' || verb === 'update' || verb === 'bulk_update') return true;
    if (verb === 'query') {
      req.context.set(OWN_API_KEYS_ONLY, true);
      return true;
    }
    const body = req.hasBody() ? (req.jsonBody() as Record<string, unknown> | undefined) : undefined;
    const get = (k: string): unknown => (verb === 'get' ? req.param(k) : body?.[k]);
    const owner = get('owner');
    if (owner === true || owner === 'true' || owner === '') {
      req.context.set(OWN_API_KEYS_ONLY, true);
      return true;
    }
    const realm = auth.lookupRealm ?? auth.realm;
    if (get('username') === auth.username && get('realm_name') === realm.name) return true;
    // an API key may look at or invalidate itself
    if (auth.apiKey) {
      const id = get('id');
      const ids = verb === 'invalidate' ? body?.['ids'] : undefined;
      if (id === auth.apiKey.id) return true;
      if (Array.isArray(ids) && ids.length > 0 && ids.every((x) => x === auth.apiKey!.id)) return true;
    }
    return false;
  }
}

/** run-as is for users of realms and their access tokens (ES ignores the header for API keys, service accounts, anonymous) */
function supportsRunAs(auth: Authentication): boolean {
  return !auth.apiKey && !auth.serviceAccountRole && !auth.runBy && auth.authenticationType !== 'anonymous';
}
