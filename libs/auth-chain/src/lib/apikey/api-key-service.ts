/**
 * API keys: `ApiKey base64(id:key)` credentials whose secret is stored only as a salted hash
 * (`xpack.security.authc.api_key.hashing.algorithm`, PBKDF2 by default). A key's permissions are its own
 * role descriptors intersected with its creator's at creation (`limited_by`), so it never exceeds them.
 */
import { randomBytes } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, Tokens, parseTimeValue, systemClock, type Clock } from '@strata/core-common';
import { REALM_API_KEY, type Authentication } from '../authc/authentication.js';
import { hasher, verifyHash } from '../crypto/hasher.js';
import { parseRoleDescriptor, roleDescriptorToJson, validateRolePrivileges, type RoleDescriptor } from '../authz/role-descriptor.js';
import { RolesService } from '../authz/roles-service.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore, type ApiKeyRecord, type SubjectRecord } from '../store/security-store.js';

export interface CreateApiKeyRequest {
  name: string | null;
  expiration?: string;
  roleDescriptors?: Record<string, RoleDescriptor>;
  metadata: Record<string, unknown>;
}

export interface CreateApiKeyResponse {
  id: string;
  name: string | null;
  expiration?: number;
  api_key: string;
  encoded: string;
}

/** why an API key credential did not authenticate (the `additional_unsuccessful_credentials` detail) */
export class ApiKeyAuthenticationError extends Error {}

/** a 20-character base64url id like Elasticsearch's UUIDs.base64UUID() */
export function newId(): string {
  return randomBytes(15).toString('base64url');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** the `role_descriptors` object of a create/update/grant body */
export function parseRoleDescriptors(v: unknown): Record<string, RoleDescriptor> {
  if (v === undefined || v === null) return {};
  if (!isObject(v)) throw new EsError('parse_exception', 400, 'failed to parse api key request. expected field [role_descriptors] to be an object');
  const out: Record<string, RoleDescriptor> = {};
  const errors: string[] = [];
  for (const [name, body] of Object.entries(v)) {
    const rd = parseRoleDescriptor(name, body);
    errors.push(...validateRolePrivileges(rd));
    out[name] = rd;
  }
  if (errors.length) throw Errors.actionRequestValidation(errors);
  return out;
}

/** `name` (required, at most 256 characters, no leading underscore), `expiration`, `metadata` */
export function validateApiKeyFields(name: unknown, metadata: Record<string, unknown>, requireName = true): string[] {
  const errors: string[] = [];
  if (name === undefined || name === null || name === '') {
    if (requireName) errors.push('api key name is required');
  } else if (typeof name !== 'string') errors.push('api key name must be a string');
  else {
    if (name.length > 256) errors.push('api key name may not be more than 256 characters long');
    if (name !== name.trim()) errors.push('api key name may not begin or end with whitespace');
    if (name.startsWith('_')) errors.push('api key name may not begin with an underscore');
  }
  if (Object.keys(metadata).some((k) => k.startsWith('_'))) errors.push('API key metadata keys may not start with [_]');
  return errors;
}

@injectable()
export class ApiKeyService {
  private readonly clock: Clock;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(RolesService) private readonly roles: RolesService,
    @inject(Tokens.Clock) @optional() clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  /** the creator of a key as stored with it (for an API key caller: the key's own owner) */
  subjectOf(auth: Authentication): SubjectRecord {
    const realm = auth.apiKeyOwnerRealm ?? auth.lookupRealm ?? auth.realm;
    return {
      principal: auth.username,
      full_name: auth.fullName ?? null,
      email: auth.email ?? null,
      metadata: { ...(auth.metadata ?? {}) },
      realm: realm.name,
      realm_type: realm.type,
      roles: auth.apiKey || auth.serviceAccountRole ? [] : [...auth.roles],
    };
  }

  /** the role descriptors a new key of `auth` is limited by (the creator's permissions now) */
  limitedByOf(auth: Authentication): Record<string, RoleDescriptor> {
    if (auth.serviceAccountRole) return { [auth.username]: auth.serviceAccountRole };
    if (auth.apiKeyRoles) {
      const own = auth.apiKeyRoles.roleDescriptors;
      return Object.keys(own).length ? own : auth.apiKeyRoles.limitedBy;
    }
    return this.roles.descriptorsOf(auth.roles);
  }

  async create(auth: Authentication, req: CreateApiKeyRequest): Promise<CreateApiKeyResponse> {
    const roleDescriptors = req.roleDescriptors ?? {};
    // a key created with a key must say explicitly that it has no privileges of its own
    if (auth.apiKey && !Object.values(roleDescriptors).some((rd) => rd.cluster.length === 0 && rd.indices.length === 0 && rd.applications.length === 0 && rd.run_as.length === 0)) {
      throw Errors.illegalArgument('creating derived api keys requires an explicit role descriptor that is empty (has no privileges)');
    }
    const now = this.clock.now();
    let expiration: number | null = null;
    if (req.expiration !== undefined) {
      const ms = parseTimeValue(req.expiration, 'expiration');
      if (ms <= 0) throw Errors.actionRequestValidation(['expiration must be a positive time value']);
      expiration = now + ms;
    }
    const id = newId();
    const secret = randomBytes(16).toString('base64url');
    const hash = await hasher(this.config.apiKeyHashing).hash(secret);
    const rec: ApiKeyRecord = {
      id,
      name: req.name,
      type: 'rest',
      hash,
      creation: now,
      expiration,
      invalidated: false,
      invalidation: null,
      creator: this.subjectOf(auth),
      role_descriptors: roleDescriptors,
      limited_by: this.limitedByOf(auth),
      metadata: req.metadata,
      version: 1,
    };
    await this.store.update((d) => {
      d.api_keys[id] = rec;
    });
    const out: CreateApiKeyResponse = { id, name: req.name, api_key: secret, encoded: Buffer.from(`${id}:${secret}`).toString('base64') };
    if (expiration !== null) out.expiration = expiration;
    return out;
  }

  /** the authentication of an `ApiKey` credential, or an ApiKeyAuthenticationError saying why not */
  async authenticate(encoded: string): Promise<Authentication> {
    const decoded = Buffer.from(encoded, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0 || colon === decoded.length - 1) throw new ApiKeyAuthenticationError('invalid ApiKey value');
    const id = decoded.slice(0, colon);
    const secret = decoded.slice(colon + 1);
    const rec = this.store.state().api_keys[id];
    if (!rec) throw new ApiKeyAuthenticationError(`unable to find apikey with id ${id}`);
    if (!(await verifyHash(secret, rec.hash))) throw new ApiKeyAuthenticationError(`invalid credentials for API key [${id}]`);
    if (rec.invalidated) throw new ApiKeyAuthenticationError(`api key [${id}] has been invalidated`);
    if (rec.expiration !== null && rec.expiration <= this.clock.now()) throw new ApiKeyAuthenticationError('api key is expired');
    return this.authenticationOf(rec);
  }

  /** the authentication a key acts as (also for tokens created with a key) */
  authenticationOf(rec: ApiKeyRecord): Authentication {
    const auth: Authentication = {
      username: rec.creator.principal,
      roles: [],
      realm: { ...REALM_API_KEY },
      lookupRealm: { ...REALM_API_KEY },
      authenticationType: 'api_key',
      fullName: rec.creator.full_name,
      email: rec.creator.email,
      metadata: { ...rec.creator.metadata },
      enabled: true,
      apiKey: { id: rec.id, name: rec.name },
      apiKeyRoles: { roleDescriptors: rec.role_descriptors, limitedBy: rec.limited_by },
      apiKeyOwnerRealm: { name: rec.creator.realm, type: rec.creator.realm_type },
    };
    if (rec.expiration !== null) auth.expiresAt = rec.expiration;
    return auth;
  }

  /** the wire form of a key (get and query APIs) */
  toJson(rec: ApiKeyRecord, withLimitedBy: boolean): Record<string, unknown> {
    const o: Record<string, unknown> = { id: rec.id, name: rec.name, type: rec.type, creation: rec.creation };
    if (rec.expiration !== null) o['expiration'] = rec.expiration;
    o['invalidated'] = rec.invalidated;
    if (rec.invalidation !== null) o['invalidation'] = rec.invalidation;
    o['username'] = rec.creator.principal;
    o['realm'] = rec.creator.realm;
    o['realm_type'] = rec.creator.realm_type;
    o['metadata'] = rec.metadata;
    o['role_descriptors'] = Object.fromEntries(Object.entries(rec.role_descriptors).map(([k, v]) => [k, roleDescriptorToJson(v)]));
    if (withLimitedBy) o['limited_by'] = [Object.fromEntries(Object.entries(rec.limited_by).map(([k, v]) => [k, roleDescriptorToJson(v)]))];
    return o;
  }

  /** whether `rec` belongs to `auth` (same user of the same realm) */
  ownedBy(rec: ApiKeyRecord, auth: Authentication): boolean {
    const s = this.subjectOf(auth);
    return rec.creator.principal === s.principal && rec.creator.realm === s.realm;
  }

  expired(rec: ApiKeyRecord): boolean {
    return rec.expiration !== null && rec.expiration <= this.clock.now();
  }

  /** marks keys invalidated; returns the ids newly and previously invalidated */
  async invalidate(ids: string[]): Promise<{ invalidated: string[]; previously: string[] }> {
    const now = this.clock.now();
    return this.store.update((d) => {
      const invalidated: string[] = [];
      const previously: string[] = [];
      for (const id of ids) {
        const k = d.api_keys[id];
        if (!k) continue;
        if (k.invalidated) previously.push(id);
        else {
          k.invalidated = true;
          k.invalidation = now;
          invalidated.push(id);
        }
      }
      return { invalidated, previously };
    });
  }

  /**
   * Updates the caller's own key: new role descriptors / metadata / expiration when given, and always the
   * creator's current permissions as `limited_by`. Returns whether anything changed.
   */
  async update(auth: Authentication, id: string, change: { roleDescriptors?: Record<string, RoleDescriptor>; metadata?: Record<string, unknown>; expiration?: string }): Promise<boolean> {
    if (auth.apiKey) throw Errors.illegalArgument('authentication via API key not supported: only the owner user can update an API key');
    const rec = this.store.state().api_keys[id];
    if (!rec || !this.ownedBy(rec, auth)) throw Errors.resourceNotFound(`no API key owned by requesting user found for ID [${id}]`);
    if (rec.invalidated) throw Errors.illegalArgument(`cannot update invalidated API key [${id}]`);
    if (this.expired(rec)) throw Errors.illegalArgument(`cannot update expired API key [${id}]`);
    const next: ApiKeyRecord = structuredClone(rec) as ApiKeyRecord;
    if (change.roleDescriptors !== undefined) next.role_descriptors = change.roleDescriptors;
    if (change.metadata !== undefined) next.metadata = change.metadata;
    if (change.expiration !== undefined) next.expiration = this.clock.now() + parseTimeValue(change.expiration, 'expiration');
    next.limited_by = this.limitedByOf(auth);
    next.creator = this.subjectOf(auth);
    const { version: _v1, ...a } = rec;
    const { version: _v2, ...b } = next;
    void _v1;
    void _v2;
    if (JSON.stringify(a) === JSON.stringify(b)) return false;
    next.version = rec.version + 1;
    await this.store.update((d) => {
      d.api_keys[id] = next;
    });
    return true;
  }
}
