/**
 * `GET|POST /_security/user[/{user}]/_has_privileges`, `GET /_security/user/_privileges`,
 * `GET /_security/privilege/_builtin`, `GET /_security/privilege[/{application}[/{name}]]`.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import type { Authentication } from '../authc/authentication.js';
import { CLUSTER_PRIVILEGES, INDEX_PRIVILEGES, resolveClusterPrivilege, resolveIndexPrivileges } from '../authz/privileges.js';
import type { RoleDescriptor } from '../authz/role-descriptor.js';
import { RolesService } from '../authz/roles-service.js';
import { SecurityConfig } from '../security-config.js';
import { caller, objectBody, requireSecurity } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

function stringList(v: unknown, field: string): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new EsError('parse_exception', 400, `failed to parse privilege check request. expected field [${field}] to be an array of strings`);
}

@injectable()
export class HasPrivilegesRestHandler implements RestHandler {
  readonly name = 'security_has_privileges_action';
  readonly routes = [
    route('GET', '/_security/user/_has_privileges', A.HAS_PRIVILEGES),
    route('POST', '/_security/user/_has_privileges', A.HAS_PRIVILEGES),
    route('GET', '/_security/user/{username}/_has_privileges', A.HAS_PRIVILEGES),
    route('POST', '/_security/user/{username}/_has_privileges', A.HAS_PRIVILEGES),
  ];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(RolesService) private readonly roles: RolesService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const me = caller(req);
    const target = req.optionalPathParam('username');
    if (target !== undefined && target !== me.username) {
      throw Errors.illegalArgument('users may only check the privileges of their own account');
    }
    const body = objectBody(req, 'privilege check request');
    for (const k of Object.keys(body)) {
      if (!['cluster', 'index', 'application'].includes(k)) throw new EsError('parse_exception', 400, `failed to parse privilege check request. unexpected field [${k}]`);
    }
    const cluster = stringList(body['cluster'], 'cluster');
    const indexChecks = body['index'] === undefined ? [] : body['index'];
    const appChecks = body['application'] === undefined ? [] : body['application'];
    if (!Array.isArray(indexChecks) || !Array.isArray(appChecks)) throw new EsError('parse_exception', 400, 'failed to parse privilege check request. expected [index] and [application] to be arrays');
    if (cluster.length === 0 && indexChecks.length === 0 && appChecks.length === 0) {
      throw Errors.actionRequestValidation(['clusterPrivileges, indexPrivileges or applicationPrivileges must be specified']);
    }
    const p = this.roles.permissionOf(me).permission;
    let all = true;
    const clusterOut: Record<string, boolean> = {};
    for (const c of cluster) {
      let pattern;
      try {
        pattern = resolveClusterPrivilege(c);
      } catch (e) {
        throw Errors.illegalArgument((e as Error).message);
      }
      const ok = p.unrestricted || p.clusterCovers(pattern);
      clusterOut[c] = ok;
      all &&= ok;
    }
    const indexOut: Record<string, Record<string, boolean>> = {};
    for (const ic of indexChecks as Array<Record<string, unknown>>) {
      if (ic === null || typeof ic !== 'object') throw new EsError('parse_exception', 400, 'failed to parse privilege check request. expected [index] entries to be objects');
      const names = stringList(ic['names'], 'names');
      const privs = stringList(ic['privileges'], 'privileges');
      if (names.length === 0 || privs.length === 0) throw Errors.actionRequestValidation(['indices and privileges must be specified']);
      for (const n of names) {
        const row = (indexOut[n] ??= {});
        for (const pr of privs) {
          let pattern;
          try {
            pattern = resolveIndexPrivileges([pr]);
          } catch (e) {
            throw Errors.illegalArgument((e as Error).message);
          }
          const ok = p.unrestricted || p.indexCovers(n, pattern);
          row[pr] = ok;
          all &&= ok;
        }
      }
    }
    const appOut: Record<string, Record<string, Record<string, boolean>>> = {};
    for (const ac of appChecks as Array<Record<string, unknown>>) {
      const app = String(ac?.['application'] ?? '');
      const privs = stringList(ac?.['privileges'], 'privileges');
      const resources = stringList(ac?.['resources'], 'resources');
      const a = (appOut[app] ??= {});
      for (const r of resources) {
        const row = (a[r] ??= {});
        for (const pr of privs) {
          const ok = p.applicationCovers(app, pr, r);
          row[pr] = ok;
          all &&= ok;
        }
      }
    }
    return RestResponses.ok({ username: me.username, has_all_requested: all, cluster: clusterOut, index: indexOut, application: appOut });
  }
}

/** the union of role descriptors in the shape of GET /_security/user/_privileges */
function privilegesOf(descriptors: RoleDescriptor[]): Record<string, unknown> {
  const sortUnique = (xs: string[]) => [...new Set(xs)].sort();
  const indices = descriptors
    .flatMap((d) => d.indices)
    .map((ip) => {
      const o: Record<string, unknown> = { names: sortUnique(ip.names), privileges: sortUnique(ip.privileges) };
      if (ip.field_security) o['field_security'] = [ip.field_security];
      if (ip.query !== undefined) o['query'] = [ip.query];
      o['allow_restricted_indices'] = ip.allow_restricted_indices;
      return o;
    });
  return {
    cluster: sortUnique(descriptors.flatMap((d) => d.cluster)),
    global: [],
    indices,
    applications: descriptors.flatMap((d) => d.applications),
    run_as: sortUnique(descriptors.flatMap((d) => d.run_as)),
  };
}

@injectable()
export class GetUserPrivilegesRestHandler implements RestHandler {
  readonly name = 'security_user_privileges_action';
  readonly routes = [route('GET', '/_security/user/_privileges', A.GET_USER_PRIVILEGES)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(RolesService) private readonly roles: RolesService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const me: Authentication = caller(req);
    let descriptors: RoleDescriptor[];
    if (me.apiKeyRoles) {
      if (Object.keys(me.apiKeyRoles.roleDescriptors).length > 0) {
        throw Errors.illegalArgument(
          'Cannot retrieve privileges for API keys with assigned role descriptors. Please use the Get API key information API https://ela.st/es-api-get-api-key',
        );
      }
      descriptors = Object.values(me.apiKeyRoles.limitedBy);
    } else if (me.serviceAccountRole) descriptors = [me.serviceAccountRole];
    else descriptors = Object.values(this.roles.descriptorsOf(me.roles));
    return RestResponses.ok(privilegesOf(descriptors));
  }
}

@injectable()
export class GetBuiltinPrivilegesRestHandler implements RestHandler {
  readonly name = 'security_get_builtin_privileges_action';
  readonly routes = [route('GET', '/_security/privilege/_builtin', A.GET_BUILTIN_PRIVILEGES)];

  constructor(@inject(SecurityConfig) private readonly config: SecurityConfig) {}

  handle(): RestResponse {
    requireSecurity(this.config);
    return RestResponses.ok({
      cluster: [...CLUSTER_PRIVILEGES.keys()].sort(),
      index: [...INDEX_PRIVILEGES.keys()].sort(),
      remote_cluster: ['monitor_enrich'],
    });
  }
}

/** application privileges: none are defined on this service */
@injectable()
export class GetApplicationPrivilegesRestHandler implements RestHandler {
  readonly name = 'security_get_privileges_action';
  readonly routes = [
    route('GET', '/_security/privilege', 'cluster:admin/xpack/security/privilege/get'),
    route('GET', '/_security/privilege/{application}', 'cluster:admin/xpack/security/privilege/get'),
    route('GET', '/_security/privilege/{application}/{name}', 'cluster:admin/xpack/security/privilege/get'),
  ];

  constructor(@inject(SecurityConfig) private readonly config: SecurityConfig) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    return RestResponses.json(req.optionalPathParam('application') ? 404 : 200, {});
  }
}

export const PRIVILEGE_HANDLERS = [HasPrivilegesRestHandler, GetUserPrivilegesRestHandler, GetBuiltinPrivilegesRestHandler, GetApplicationPrivilegesRestHandler];
