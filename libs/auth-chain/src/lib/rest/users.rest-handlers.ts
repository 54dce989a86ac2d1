/**
 * The native realm's user API and the reserved users' passwords and enabled flags:
 * `PUT|POST /_security/user/{username}`, `GET /_security/user[/{username}]`, `DELETE /_security/user/{username}`,
 * `PUT|POST /_security/user[/{username}]/_password`, `PUT|POST /_security/user/{username}/_enable|_disable`.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { RESERVED_USERS } from '../authc/realms.js';
import { hasher, isKnownHash } from '../crypto/hasher.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore, type NativeUserRecord } from '../store/security-store.js';
import { caller, deleteEntry, objectBody, objectField, refreshParam, requireSecurity, stringArrayField, stringField, validName } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

const USERNAME_RULES =
  'Valid usernames must be at least 1 and no more than 507 characters. They can contain alphanumeric characters (a-z, A-Z, 0-9), spaces, punctuation, and printable symbols in the Basic Latin (ASCII) block. Leading or trailing whitespace is not allowed.';
export const MIN_PASSWORD_LENGTH = 6;

function userJson(u: NativeUserRecord): Record<string, unknown> {
  return { username: u.username, roles: u.roles, full_name: u.full_name, email: u.email, metadata: u.metadata, enabled: u.enabled };
}

/** the password or password_hash of a request body, hashed with the configured algorithm */
async function passwordHashOf(body: Record<string, unknown>, config: SecurityConfig, what: string): Promise<string | undefined> {
  const pw = stringField(body['password'], 'password', what);
  const given = stringField(body['password_hash'], 'password_hash', what);
  if (pw !== null && given !== null) throw Errors.actionRequestValidation(['only one of [password, passwordHash] can be provided']);
  if (given !== null) {
    if (!isKnownHash(given)) {
      throw Errors.actionRequestValidation([
        'The provided password hash is not a hash or it could not be resolved to a supported hash algorithm. The supported password hash algorithms are [bcrypt, pbkdf2, pbkdf2_stretch]',
      ]);
    }
    return given;
  }
  if (pw === null) return undefined;
  if (pw.length < MIN_PASSWORD_LENGTH) throw Errors.actionRequestValidation([`passwords must be at least [${MIN_PASSWORD_LENGTH}] characters long`]);
  return hasher(config.passwordHashing).hash(pw);
}

/** `PUT|POST|GET|DELETE /_security/user[/{username}]` */
@injectable()
export class UsersRestHandler implements RestHandler {
  readonly name = 'security_users_action';
  readonly routes = [
    route('PUT', '/_security/user/{username}', A.PUT_USER),
    route('POST', '/_security/user/{username}', A.PUT_USER),
    route('GET', '/_security/user', A.GET_USERS),
    route('GET', '/_security/user/{username}', A.GET_USERS),
    route('DELETE', '/_security/user/{username}', A.DELETE_USER),
  ];
  readonly params = ['refresh', 'with_profile_uid'];

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
      const username = req.pathParam('username');
      if (RESERVED_USERS.has(username)) throw Errors.illegalArgument(`user [${username}] is reserved and cannot be deleted`);
      if (!(await deleteEntry(this.store, 'users', username))) return RestResponses.json(404, { found: false });
      this.audit.securityConfigChange(caller(req), 'delete', { user: { name: username } }, req);
      return RestResponses.ok({ found: true });
    }
    return this.put(req);
  }

  private async put(req: RestRequest): Promise<RestResponse> {
    const username = req.pathParam('username');
    const what = 'add user request';
    const body = objectBody(req, what);
    const allowed = ['username', 'password', 'password_hash', 'roles', 'full_name', 'email', 'metadata', 'enabled', 'profile_uid'];
    for (const k of Object.keys(body)) if (!allowed.includes(k)) throw new EsError('parse_exception', 400, `failed to parse ${what}. unexpected field [${k}]`);
    const errors: string[] = [];
    if (!validName(username)) errors.push(USERNAME_RULES);
    else if (RESERVED_USERS.has(username)) errors.push(`Username [${username}] is reserved and may not be used.`);
    if (body['roles'] === undefined) errors.push('roles are missing');
    const metadata = objectField(body['metadata'], 'metadata', what);
    if (Object.keys(metadata).some((k) => k.startsWith('_'))) errors.push('metadata keys may not start with [_]');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const roles = stringArrayField(body['roles'], 'roles', what);
    if (body['enabled'] !== undefined && typeof body['enabled'] !== 'boolean') throw new EsError('parse_exception', 400, `failed to parse ${what}. expected field [enabled] to be of type boolean`);
    const hash = await passwordHashOf(body, this.config, what);
    const created = await this.store.update((d) => {
      const prev = d.users[username];
      if (!prev && hash === undefined) throw Errors.actionRequestValidation(['password must be specified unless you are updating an existing user']);
      d.users[username] = {
        username,
        password_hash: hash ?? prev?.password_hash ?? null,
        roles,
        full_name: stringField(body['full_name'], 'full_name', what),
        email: stringField(body['email'], 'email', what),
        metadata,
        enabled: body['enabled'] === undefined ? (prev?.enabled ?? true) : (body['enabled'] as boolean),
      };
      return !prev;
    });
    this.audit.securityConfigChange(caller(req), 'put', { user: { name: username, enabled: body['enabled'] ?? true, roles } }, req);
    return RestResponses.ok({ created });
  }

  private get(req: RestRequest): RestResponse {
    req.boolParam('with_profile_uid', false);
    const state = this.store.state();
    const all: Record<string, Record<string, unknown>> = {};
    for (const [name, def] of RESERVED_USERS) {
      all[name] = { username: name, roles: def.roles, full_name: null, email: null, metadata: def.metadata, enabled: state.reserved_users[name]?.enabled !== false };
    }
    for (const u of Object.values(state.users).sort((a, b) => (a.username < b.username ? -1 : 1))) all[u.username] = userJson(u);
    const wanted = req.optionalPathParam('username');
    if (wanted === undefined) return RestResponses.ok(all);
    const out: Record<string, unknown> = {};
    for (const n of wanted.split(',').map((s) => s.trim()).filter(Boolean)) if (all[n]) out[n] = all[n];
    return RestResponses.json(Object.keys(out).length === 0 ? 404 : 200, out);
  }
}

@injectable()
export class ChangePasswordRestHandler implements RestHandler {
  readonly name = 'security_change_password_action';
  readonly routes = [
    route('PUT', '/_security/user/{username}/_password', A.CHANGE_PASSWORD),
    route('POST', '/_security/user/{username}/_password', A.CHANGE_PASSWORD),
    route('PUT', '/_security/user/_password', A.CHANGE_PASSWORD),
    route('POST', '/_security/user/_password', A.CHANGE_PASSWORD),
  ];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    refreshParam(req);
    const me = caller(req);
    const username = req.optionalPathParam('username') ?? me.username;
    const what = 'change password request';
    const body = objectBody(req, what);
    for (const k of Object.keys(body)) {
      if (k !== 'password' && k !== 'password_hash') throw new EsError('parse_exception', 400, `failed to parse ${what}. unexpected field [${k}]`);
    }
    const hash = await passwordHashOf(body, this.config, what);
    if (hash === undefined) throw Errors.actionRequestValidation(['password is missing']);
    await this.store.update((d) => {
      if (RESERVED_USERS.has(username)) {
        const prev = d.reserved_users[username];
        d.reserved_users[username] = { password_hash: hash, enabled: prev?.enabled ?? true };
        return;
      }
      const u = d.users[username];
      if (!u) throw new EsError('validation_exception', 400, 'Validation Failed: 1: user must exist in order to change password;');
      u.password_hash = hash;
    });
    this.audit.securityConfigChange(me, 'change', { password: { user: { name: username } } }, req);
    return RestResponses.ok({});
  }
}

@injectable()
export class SetEnabledRestHandler implements RestHandler {
  readonly name = 'security_set_enabled_action';
  readonly routes = [
    route('PUT', '/_security/user/{username}/_enable', A.SET_ENABLED),
    route('POST', '/_security/user/{username}/_enable', A.SET_ENABLED),
    route('PUT', '/_security/user/{username}/_disable', A.SET_ENABLED),
    route('POST', '/_security/user/{username}/_disable', A.SET_ENABLED),
  ];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    refreshParam(req);
    const username = req.pathParam('username');
    const enabled = req.path.endsWith('/_enable');
    if (caller(req).username === username) {
      throw Errors.actionRequestValidation(['users may not update the enabled status of their own account']);
    }
    await this.store.update((d) => {
      if (RESERVED_USERS.has(username)) {
        d.reserved_users[username] = { ...(d.reserved_users[username] ?? {}), enabled };
        return;
      }
      const u = d.users[username];
      if (!u) throw Errors.resourceNotFound(`user [${username}] does not exist`);
      u.enabled = enabled;
    });
    this.audit.securityConfigChange(caller(req), 'change', { [enabled ? 'enable' : 'disable']: { user: { name: username } } }, req);
    return RestResponses.ok({});
  }
}

export const USER_HANDLERS = [UsersRestHandler, ChangePasswordRestHandler, SetEnabledRestHandler];
