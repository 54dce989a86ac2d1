/**
 * The API key APIs: create, grant, get, query, update, bulk update, invalidate, clear cache.
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, RestResponses, route, simpleMatcher, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { NODE_INFO, type NodeInfo } from '@strata/core-api';
import { ApiKeyService, parseRoleDescriptors, validateApiKeyFields, type CreateApiKeyRequest } from '../apikey/api-key-service.js';
import { compareSortValues, compileQuery, parseSort, sortValues } from '../apikey/api-key-query.js';
import { parseApiKeyAggs, runApiKeyAggs } from '../apikey/api-key-aggs.js';
import { AuditTrail } from '../audit/audit-trail.js';
import { AuthCache } from '../authc/auth-cache.js';
import type { Authentication } from '../authc/authentication.js';
import { RealmChain } from '../authc/realms.js';
import { OWN_API_KEYS_ONLY } from '../authz/security-authorizer.js';
import { SecurityConfig } from '../security-config.js';
import type { ApiKeyRecord } from '../store/security-store.js';
import { SecurityStore } from '../store/security-store.js';
import { TokenService } from '../token/token-service.js';
import { caller, nodesResponse, objectBody, refreshParam, requireSecurity } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

function unknownField(parser: string, field: string): EsError {
  return new EsError('x_content_parse_exception', 400, `[${parser}] unknown field [${field}]`);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** the fields of a create request (`api_key` of a grant request) */
function createRequestOf(body: Record<string, unknown>, parser: string): CreateApiKeyRequest {
  for (const k of Object.keys(body)) if (!['name', 'expiration', 'role_descriptors', 'metadata'].includes(k)) throw unknownField(parser, k);
  if (body['metadata'] !== undefined && !isObject(body['metadata'])) throw new EsError('parse_exception', 400, 'failed to parse api key request. expected field [metadata] to be an object');
  const metadata = (body['metadata'] as Record<string, unknown> | undefined) ?? {};
  const errors = validateApiKeyFields(body['name'], metadata);
  if (body['expiration'] !== undefined && body['expiration'] !== null && typeof body['expiration'] !== 'string') errors.push('expiration must be a time value string');
  if (errors.length) throw Errors.actionRequestValidation(errors);
  const req: CreateApiKeyRequest = {
    name: (body['name'] as string | undefined) ?? null,
    metadata,
    roleDescriptors: parseRoleDescriptors(body['role_descriptors']),
  };
  if (typeof body['expiration'] === 'string') req.expiration = body['expiration'];
  return req;
}

@injectable()
export class CreateApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_create_api_key';
  readonly routes = [route('POST', '/_security/api_key', A.CREATE_API_KEY), route('PUT', '/_security/api_key', A.CREATE_API_KEY)];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    if (!this.config.apiKeyEnabled) throw Errors.illegalState('api keys are not enabled');
    refreshParam(req);
    const create = createRequestOf(objectBody(req, 'api key request'), 'create_api_key_request');
    const res = await this.keys.create(caller(req), create);
    this.audit.securityConfigChange(caller(req), 'create', { apikey: { id: res.id, name: res.name, type: 'rest' } }, req);
    return RestResponses.ok(res);
  }
}

@injectable()
export class GrantApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_grant_api_key';
  readonly routes = [route('POST', '/_security/api_key/grant', A.GRANT_API_KEY), route('PUT', '/_security/api_key/grant', A.GRANT_API_KEY)];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
    @inject(RealmChain) private readonly realms: RealmChain,
    @inject(TokenService) private readonly tokens: TokenService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    refreshParam(req);
    const body = objectBody(req, 'grant api key request');
    for (const k of Object.keys(body)) {
      if (!['grant_type', 'username', 'password', 'access_token', 'api_key', 'run_as', 'client_authentication'].includes(k)) throw unknownField('grant_api_key_request', k);
    }
    const grant = body['grant_type'];
    const errors: string[] = [];
    if (grant === undefined) errors.push('[grant_type] is required');
    else if (grant === 'password') {
      if (typeof body['username'] !== 'string') errors.push('[username] is required for grant_type [password]');
      if (typeof body['password'] !== 'string') errors.push('[password] is required for grant_type [password]');
      if (body['access_token'] !== undefined) errors.push('[access_token] is not supported for grant_type [password]');
    } else if (grant === 'access_token') {
      if (typeof body['access_token'] !== 'string') errors.push('[access_token] is required for grant_type [access_token]');
      if (body['username'] !== undefined) errors.push('[username] is not supported for grant_type [access_token]');
      if (body['password'] !== undefined) errors.push('[password] is not supported for grant_type [access_token]');
    } else errors.push(`grant_type [${String(grant)}] is not supported`);
    if (!isObject(body['api_key'])) errors.push('api key is required');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const create = createRequestOf(body['api_key'] as Record<string, unknown>, 'api_key_request');
    let grantee: Authentication | undefined;
    if (grant === 'password') {
      grantee = await this.realms.authenticate(body['username'] as string, body['password'] as string);
      if (!grantee || grantee.enabled === false) {
        throw Errors.security(`unable to authenticate user [${String(body['username'])}] for action [${A.GRANT_API_KEY}]`, 401);
      }
    } else {
      grantee = await this.tokens.authenticateAccessToken(body['access_token'] as string).catch(() => undefined);
      if (!grantee) throw Errors.security('unable to authenticate with provided credentials and anonymous access is not allowed for this request', 401);
    }
    if (body['run_as'] !== undefined) {
      const target = String(body['run_as']);
      const looked = this.realms.lookup(target);
      if (!looked) throw Errors.security(`action [${A.GRANT_API_KEY}] is unauthorized for user [${grantee.username}] to run as [${target}]`, 403);
      grantee = looked;
    }
    const res = await this.keys.create(grantee, create);
    this.audit.securityConfigChange(caller(req), 'create', { apikey: { id: res.id, name: res.name, type: 'rest' }, grantee: grantee.username }, req);
    return RestResponses.ok(res);
  }
}

@injectable()
export class GetApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_get_api_key';
  readonly routes = [route('GET', '/_security/api_key', A.GET_API_KEY)];
  readonly params = ['id', 'name', 'username', 'realm_name', 'owner', 'with_limited_by', 'active_only', 'with_profile_uid'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const id = req.param('id');
    const name = req.param('name');
    const username = req.param('username');
    const realm = req.param('realm_name');
    const owner = req.boolParam('owner', false);
    const withLimitedBy = req.boolParam('with_limited_by', false);
    const activeOnly = req.boolParam('active_only', false);
    req.boolParam('with_profile_uid', false);
    const errors: string[] = [];
    if (owner && (username !== undefined || realm !== undefined)) errors.push('username or realm name must not be specified when retrieving owned API keys');
    if (id !== undefined && name !== undefined) errors.push('only one of [api key id, api key name] can be specified');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const me = caller(req);
    const nameRe = name !== undefined && name.includes('*') ? simpleMatcher(name) : undefined;
    const list = Object.values(this.store.state().api_keys)
      .filter((k) => id === undefined || k.id === id)
      .filter((k) => name === undefined || (nameRe ? nameRe.test(k.name ?? '') : k.name === name))
      .filter((k) => username === undefined || k.creator.principal === username)
      .filter((k) => realm === undefined || k.creator.realm === realm)
      .filter((k) => !owner || this.keys.ownedBy(k, me) || (me.apiKey?.id === k.id && id !== undefined))
      .filter((k) => !activeOnly || (!k.invalidated && !this.keys.expired(k)))
      .sort((a, b) => a.creation - b.creation || (a.id < b.id ? -1 : 1));
    return RestResponses.ok({ api_keys: list.map((k) => this.keys.toJson(k, withLimitedBy)) });
  }
}

@injectable()
export class QueryApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_query_api_key';
  readonly routes = [route('GET', '/_security/_query/api_key', A.QUERY_API_KEY), route('POST', '/_security/_query/api_key', A.QUERY_API_KEY)];
  readonly params = ['with_limited_by', 'with_profile_uid', 'typed_keys'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const withLimitedBy = req.boolParam('with_limited_by', false);
    req.boolParam('with_profile_uid', false);
    const typedKeys = req.boolParam('typed_keys', false);
    const body = req.hasBody() ? objectBody(req, 'query api key request') : {};
    for (const k of Object.keys(body)) if (!['query', 'from', 'size', 'sort', 'search_after', 'aggs', 'aggregations'].includes(k)) throw unknownField('query_api_keys_request', k);
    if (body['aggs'] !== undefined && body['aggregations'] !== undefined) {
      throw Errors.parsing('[query_api_keys_request] takes [aggs] or [aggregations], not both');
    }
    const from = body['from'] === undefined ? 0 : Number(body['from']);
    const size = body['size'] === undefined ? 10 : Number(body['size']);
    const errors: string[] = [];
    if (!Number.isInteger(from) || from < 0) errors.push('[from] parameter cannot be negative');
    if (!Number.isInteger(size) || size < 0) errors.push('[size] parameter cannot be negative');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const now = Date.now();
    const match = compileQuery(body['query'], now);
    const aggsJson = body['aggs'] ?? body['aggregations'];
    const aggs = aggsJson !== undefined ? parseApiKeyAggs(aggsJson, now) : undefined;
    const sort = body['sort'] !== undefined ? parseSort(body['sort']) : undefined;
    const me = caller(req);
    const ownOnly = req.context.get(OWN_API_KEYS_ONLY) === true;
    const all = Object.values(this.store.state().api_keys).sort((a, b) => a.creation - b.creation || (a.id < b.id ? -1 : 1));
    const visible = all.map((k, i) => ({ k, i })).filter(({ k }) => !ownOnly || this.keys.ownedBy(k, me));
    let hits: Array<{ k: ApiKeyRecord; sv?: Array<string | number | boolean | null | undefined> }> = visible
      .filter(({ k }) => match(k))
      .map(({ k, i }) => (sort ? { k, sv: sortValues(k, sort, i) } : { k }));
    // aggregations run on every key the query matched (before search_after and paging)
    const aggregations = aggs
      ? runApiKeyAggs(aggs, hits.map((h) => h.k), { now, typedKeys, visible: visible.map(({ k }) => k) })
      : undefined;
    if (sort) hits.sort((a, b) => compareSortValues(a.sv!, b.sv!, sort));
    if (sort && Array.isArray(body['search_after'])) {
      const after = body['search_after'] as Array<string | number | boolean | null>;
      hits = hits.filter((h) => compareSortValues(h.sv!, after, sort) > 0);
    }
    const page = hits.slice(from, from + size);
    return RestResponses.ok({
      total: hits.length,
      count: page.length,
      api_keys: page.map((h) => {
        const o = this.keys.toJson(h.k, withLimitedBy);
        if (h.sv) o['_sort'] = h.sv.map((v) => (v === undefined ? null : v));
        return o;
      }),
      ...(aggregations ? { aggregations } : {}),
    });
  }
}

@injectable()
export class UpdateApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_update_api_key';
  readonly routes = [route('PUT', '/_security/api_key/{id}', A.UPDATE_API_KEY)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    const body = req.hasBody() ? objectBody(req, 'update api key request') : {};
    for (const k of Object.keys(body)) if (!['role_descriptors', 'metadata', 'expiration'].includes(k)) throw unknownField('update_api_key_request', k);
    const change = updateChangeOf(body);
    const updated = await this.keys.update(caller(req), req.pathParam('id'), change);
    return RestResponses.ok({ updated });
  }
}

function updateChangeOf(body: Record<string, unknown>): Parameters<ApiKeyService['update']>[2] {
  const change: Parameters<ApiKeyService['update']>[2] = {};
  if (body['role_descriptors'] !== undefined) change.roleDescriptors = parseRoleDescriptors(body['role_descriptors']);
  if (body['metadata'] !== undefined) {
    if (!isObject(body['metadata'])) throw new EsError('parse_exception', 400, 'failed to parse api key request. expected field [metadata] to be an object');
    const errors = validateApiKeyFields('x', body['metadata'], false);
    if (errors.length) throw Errors.actionRequestValidation(errors);
    change.metadata = body['metadata'];
  }
  if (body['expiration'] !== undefined) change.expiration = String(body['expiration']);
  return change;
}

@injectable()
export class BulkUpdateApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_bulk_update_api_keys';
  readonly routes = [route('POST', '/_security/api_key/_bulk_update', A.BULK_UPDATE_API_KEY)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    const body = objectBody(req, 'bulk update api key request');
    for (const k of Object.keys(body)) if (!['ids', 'role_descriptors', 'metadata', 'expiration'].includes(k)) throw unknownField('bulk_update_api_key_request', k);
    const ids = body['ids'];
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((x) => typeof x === 'string')) throw Errors.actionRequestValidation(['Field [ids] cannot be empty']);
    const change = updateChangeOf(body);
    const updated: string[] = [];
    const noops: string[] = [];
    const details: Record<string, unknown> = {};
    for (const id of ids as string[]) {
      try {
        if (await this.keys.update(caller(req), id, change)) updated.push(id);
        else noops.push(id);
      } catch (e) {
        if (!(e instanceof EsError)) throw e;
        details[id] = e.toObject();
      }
    }
    const out: Record<string, unknown> = { updated, noops };
    if (Object.keys(details).length) out['errors'] = { count: Object.keys(details).length, details };
    return RestResponses.ok(out);
  }
}

@injectable()
export class InvalidateApiKeyRestHandler implements RestHandler {
  readonly name = 'xpack_security_invalidate_api_key';
  readonly routes = [route('DELETE', '/_security/api_key', A.INVALIDATE_API_KEY)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    const body = objectBody(req, 'invalidate api key request');
    for (const k of Object.keys(body)) if (!['id', 'ids', 'name', 'realm_name', 'username', 'owner'].includes(k)) throw unknownField('invalidate_api_key_request', k);
    const str = (k: string): string | undefined => (typeof body[k] === 'string' && body[k] !== '' ? (body[k] as string) : undefined);
    const ids = Array.isArray(body['ids']) ? (body['ids'] as unknown[]).map(String) : undefined;
    const id = str('id');
    const name = str('name');
    const username = str('username');
    const realm = str('realm_name');
    const owner = body['owner'] === true;
    const errors: string[] = [];
    if (id !== undefined && ids !== undefined) errors.push('Must use either [id] or [ids], not both at the same time');
    if (!owner && id === undefined && (ids === undefined || ids.length === 0) && name === undefined && username === undefined && realm === undefined) {
      errors.push('One of [api key id(s), api key name, username, realm name] must be specified if [owner] flag is false');
    }
    if (owner && (username !== undefined || realm !== undefined)) errors.push('username or realm name must not be specified when invalidating owned API keys');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const wantIds = ids ?? (id !== undefined ? [id] : undefined);
    const me = caller(req);
    const matched = Object.values(this.store.state().api_keys)
      .filter((k) => wantIds === undefined || wantIds.includes(k.id))
      .filter((k) => name === undefined || k.name === name)
      .filter((k) => username === undefined || k.creator.principal === username)
      .filter((k) => realm === undefined || k.creator.realm === realm)
      .filter((k) => !owner || this.keys.ownedBy(k, me) || me.apiKey?.id === k.id)
      .map((k) => k.id);
    const r = await this.keys.invalidate(matched);
    if (r.invalidated.length) this.audit.securityConfigChange(me, 'invalidate', { apikeys: { ids: r.invalidated } }, req);
    return RestResponses.ok({ invalidated_api_keys: r.invalidated, previously_invalidated_api_keys: r.previously, error_count: 0 });
  }
}

@injectable()
export class ClearApiKeyCacheRestHandler implements RestHandler {
  readonly name = 'xpack_security_clear_api_key_cache';
  readonly routes = [route('POST', '/_security/api_key/{ids}/_clear_cache', A.CLEAR_API_KEY_CACHE)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(NODE_INFO) @optional() private readonly node?: NodeInfo,
  ) {}

  handle(): RestResponse {
    requireSecurity(this.config);
    this.cache.clear();
    return RestResponses.ok(nodesResponse(this.config, this.node?.id ?? 'strata'));
  }
}

export const API_KEY_HANDLERS = [
  CreateApiKeyRestHandler,
  GrantApiKeyRestHandler,
  GetApiKeyRestHandler,
  QueryApiKeyRestHandler,
  UpdateApiKeyRestHandler,
  BulkUpdateApiKeyRestHandler,
  InvalidateApiKeyRestHandler,
  ClearApiKeyCacheRestHandler,
];
