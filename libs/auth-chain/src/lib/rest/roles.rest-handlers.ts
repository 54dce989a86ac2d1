/**
 * Native roles and role mappings: `PUT|POST|GET|DELETE /_security/role[/{name}]`,
 * `PUT|POST|GET|DELETE /_security/role_mapping[/{name}]`, `POST /_security/role/{name}/_clear_cache`,
 * `POST /_security/realm/{realms}/_clear_cache`.
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { NODE_INFO, type NodeInfo } from '@strata/core-api';
import { AuditTrail } from '../audit/audit-trail.js';
import { AuthCache } from '../authc/auth-cache.js';
import { FileRealmFiles } from '../authc/file-realm-files.js';
import { RESERVED_ROLES } from '../authz/reserved-roles.js';
import { dlsFlsNonCompliant, parseAndValidateRole, roleDescriptorToJson, roleToJson, unlicensedFeatures } from '../authz/role-descriptor.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore, type RoleMappingRecord } from '../store/security-store.js';
import { caller, deleteEntry, nameList, nodesResponse, objectBody, objectField, refreshParam, requireSecurity, stringArrayField, validName } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

const ROLE_NAME_RULES =
  'Role names must be at least 1 and no more than 507 characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.';


/** `PUT|POST|GET|DELETE /_security/role[/{name}]` */
@injectable()
export class RolesRestHandler implements RestHandler {
  readonly name = 'security_roles_action';
  readonly routes = [
    route('PUT', '/_security/role/{name}', A.PUT_ROLE),
    route('POST', '/_security/role/{name}', A.PUT_ROLE),
    route('GET', '/_security/role', A.GET_ROLES),
    route('GET', '/_security/role/{name}', A.GET_ROLES),
    route('DELETE', '/_security/role/{name}', A.DELETE_ROLE),
  ];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    if (req.method === 'GET') return this.get(req);
    refreshParam(req);
    return req.method === 'DELETE' ? this.delete(req) : this.put(req);
  }

  private async put(req: RestRequest): Promise<RestResponse> {
    const name = req.pathParam('name');
    const errors: string[] = [];
    if (!validName(name)) errors.push(ROLE_NAME_RULES);
    else if (RESERVED_ROLES.has(name)) errors.push(`Role [${name}] is reserved and may not be used.`);
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const rd = parseAndValidateRole(name, objectBody(req, `role [${name}]`));
    if (unlicensedFeatures(rd).length) throw dlsFlsNonCompliant();
    const created = await this.store.update((d) => {
      const isNew = d.roles[name] === undefined;
      d.roles[name] = rd;
      return isNew;
    });
    this.audit.securityConfigChange(caller(req), 'put', { role: { name, role_descriptor: roleDescriptorToJson(rd) } }, req);
    return RestResponses.ok({ role: { created } });
  }

  private get(req: RestRequest): RestResponse {
    const all: Record<string, unknown> = {};
    for (const [n, rd] of RESERVED_ROLES) all[n] = roleDescriptorToJson(rd);
    const native = this.store.state().roles;
    for (const n of Object.keys(native).sort()) all[n] = roleToJson(native[n]);
    const wanted = nameList(req, 'name');
    if (wanted.length === 0) return RestResponses.ok(all);
    const out: Record<string, unknown> = {};
    for (const n of wanted) if (all[n]) out[n] = all[n];
    return RestResponses.json(Object.keys(out).length === 0 ? 404 : 200, out);
  }

  private async delete(req: RestRequest): Promise<RestResponse> {
    const name = req.pathParam('name');
    if (RESERVED_ROLES.has(name)) throw Errors.illegalArgument(`role [${name}] is a reserved role and cannot be deleted`);
    if (!(await deleteEntry(this.store, 'roles', name))) return RestResponses.json(404, { found: false });
    this.audit.securityConfigChange(caller(req), 'delete', { role: { name } }, req);
    return RestResponses.ok({ found: true });
  }
}

function validateRules(name: string, rules: unknown, depth = 0): void {
  const bad = () => new EsError('parse_exception', 400, `failed to parse role-mapping [${name}]. invalid rules expression`);
  if (rules === null || typeof rules !== 'object' || Array.isArray(rules) || depth > 32) throw bad();
  const keys = Object.keys(rules as Record<string, unknown>);
  if (keys.length !== 1) throw bad();
  const [k] = keys;
  const v = (rules as Record<string, unknown>)[k];
  if (k === 'any' || k === 'all') {
    if (!Array.isArray(v)) throw bad();
    for (const r of v) validateRules(name, r, depth + 1);
  } else if (k === 'except') validateRules(name, v, depth + 1);
  else if (k === 'field') {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || Object.keys(v).length !== 1) throw bad();
  } else throw bad();
}

/** `PUT|POST|GET|DELETE /_security/role_mapping[/{name}]` */
@injectable()
export class RoleMappingsRestHandler implements RestHandler {
  readonly name = 'security_role_mappings_action';
  readonly routes = [
    route('PUT', '/_security/role_mapping/{name}', A.PUT_ROLE_MAPPING),
    route('POST', '/_security/role_mapping/{name}', A.PUT_ROLE_MAPPING),
    route('GET', '/_security/role_mapping', A.GET_ROLE_MAPPINGS),
    route('GET', '/_security/role_mapping/{name}', A.GET_ROLE_MAPPINGS),
    route('DELETE', '/_security/role_mapping/{name}', A.DELETE_ROLE_MAPPING),
  ];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    if (req.method === 'GET') return this.get(req);
    refreshParam(req);
    if (req.method === 'DELETE') {
      const name = req.pathParam('name');
      if (!(await deleteEntry(this.store, 'role_mappings', name))) return RestResponses.json(404, { found: false });
      this.audit.securityConfigChange(caller(req), 'delete', { role_mapping: { name } }, req);
      return RestResponses.ok({ found: true });
    }
    return this.put(req);
  }

  private async put(req: RestRequest): Promise<RestResponse> {
    const name = req.pathParam('name');
    const what = `role-mapping [${name}]`;
    const body = objectBody(req, what);
    for (const k of Object.keys(body)) {
      if (!['enabled', 'roles', 'role_templates', 'rules', 'metadata'].includes(k)) throw new EsError('parse_exception', 400, `failed to parse ${what}. unexpected field [${k}]`);
    }
    const errors: string[] = [];
    if (!validName(name)) errors.push(ROLE_NAME_RULES.replace('Role names', 'Role-mapping names'));
    if (body['rules'] === undefined) errors.push('role-mapping rules are missing');
    const hasRoles = body['roles'] !== undefined;
    const hasTemplates = body['role_templates'] !== undefined;
    if (hasRoles === hasTemplates) errors.push('a role mapping must specify exactly one of [roles] or [role_templates]');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    validateRules(name, body['rules']);
    if (body['enabled'] !== undefined && typeof body['enabled'] !== 'boolean') throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [enabled] to be a boolean`);
    const rec: RoleMappingRecord = {
      enabled: body['enabled'] === undefined ? true : (body['enabled'] as boolean),
      rules: body['rules'] as Record<string, unknown>,
      metadata: objectField(body['metadata'], 'metadata', what),
    };
    if (hasRoles) rec.roles = stringArrayField(body['roles'], 'roles', what);
    else {
      if (!Array.isArray(body['role_templates'])) throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [role_templates] to be an array`);
      rec.role_templates = body['role_templates'] as unknown[];
    }
    const created = await this.store.update((d) => {
      const isNew = d.role_mappings[name] === undefined;
      d.role_mappings[name] = rec;
      return isNew;
    });
    this.audit.securityConfigChange(caller(req), 'put', { role_mapping: { name, ...rec } }, req);
    return RestResponses.ok({ role_mapping: { created } });
  }

  private get(req: RestRequest): RestResponse {
    const all = this.store.state().role_mappings;
    const wanted = nameList(req, 'name');
    const names = wanted.length ? wanted.filter((n) => all[n]) : Object.keys(all).sort();
    const out: Record<string, unknown> = {};
    for (const n of names) out[n] = all[n];
    return RestResponses.json(wanted.length && names.length === 0 ? 404 : 200, out);
  }
}

@injectable()
export class ClearCacheRestHandler implements RestHandler {
  readonly name = 'security_clear_cache_action';
  readonly routes = [
    route('POST', '/_security/realm/{realms}/_clear_cache', A.CLEAR_REALM_CACHE),
    route('POST', '/_security/role/{name}/_clear_cache', A.CLEAR_ROLES_CACHE),
  ];
  readonly params = ['usernames'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(FileRealmFiles) private readonly files: FileRealmFiles,
    @inject(NODE_INFO) @optional() private readonly node?: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    req.listParam('usernames');
    // the caches are dropped whole: authentications are re-checked, roles re-read
    this.cache.clear();
    if (req.route.action === A.CLEAR_ROLES_CACHE) this.files.reload();
    return RestResponses.ok(nodesResponse(this.config, this.node?.id ?? 'strata'));
  }
}

export const ROLE_HANDLERS = [RolesRestHandler, RoleMappingsRestHandler, ClearCacheRestHandler];
