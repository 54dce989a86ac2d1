/**
 * Security state: reserved-user passwords, native users, roles, role mappings, API keys, OAuth2 tokens and
 * service account tokens. It lives in the `security` section of the cluster metadata (one versioned document
 * persisted atomically through MetadataStore), so it survives restarts and kill -9 like the rest of the
 * metadata, and a shared MetadataStore makes it shared. Secrets are only ever stored as salted hashes.
 */
import { inject, injectable } from 'inversify';
import { EngineTokens, type ClusterMetadata, type MetadataStore } from '@strata/core-engine';
import type { RoleDescriptor } from '../authz/role-descriptor.js';

export interface ReservedUserRecord {
  password_hash?: string;
  enabled: boolean;
  /** the password was generated at first start (a bootstrap password given later replaces it) */
  generated?: boolean;
}

export interface NativeUserRecord {
  username: string;
  password_hash: string | null;
  roles: string[];
  full_name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
  enabled: boolean;
}

export interface RoleMappingRecord {
  enabled: boolean;
  roles?: string[];
  role_templates?: unknown[];
  rules: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

/** who created an API key / to whom a token was issued (the authentication at that time, without secrets) */
export interface SubjectRecord {
  principal: string;
  full_name: string | null;
  email: string | null;
  metadata: Record<string, unknown>;
  realm: string;
  realm_type: string;
  roles: string[];
}

export interface ApiKeyRecord {
  id: string;
  name: string | null;
  type: 'rest';
  hash: string;
  creation: number;
  expiration: number | null;
  invalidated: boolean;
  invalidation: number | null;
  creator: SubjectRecord;
  /** the key's own role descriptors (empty: the creator's permissions at creation) */
  role_descriptors: Record<string, RoleDescriptor>;
  /** the creator's role descriptors at creation (the key never exceeds them) */
  limited_by: Record<string, RoleDescriptor>;
  metadata: Record<string, unknown>;
  version: number;
}

export interface TokenRecord {
  /** the id part of the access token (`<id>` of the wire form) */
  id: string;
  access_hash: string;
  refresh_id: string | null;
  refresh_hash: string | null;
  creation: number;
  expiration: number;
  refresh_expiration: number | null;
  invalidated: boolean;
  refresh_invalidated: boolean;
  /** set once the refresh token was used: when, and the pair it produced, encrypted with the refresh token (grace window) */
  refreshed: { at: number; encrypted_pair?: string } | null;
  /** who asked for the token (only they may refresh it) */
  client?: { principal: string; realm: string };
  /** the authenticated subject the token acts as */
  subject: SubjectRecord;
  /** `realm`, `api_key`... of the original authentication */
  authentication_type: string;
  /** API key the token was created with, if any */
  api_key?: { id: string; name: string | null; role_descriptors: Record<string, RoleDescriptor>; limited_by: Record<string, RoleDescriptor> };
  /** the grant used: `password`, `client_credentials`, `refresh_token`, `_kerberos`... */
  grant_type: string;
}

export interface ServiceTokenRecord {
  /** `namespace/service/name` */
  qualified_name: string;
  hash: string;
  creation: number;
  creator: { principal: string; realm: string; realm_type: string };
}

export interface SecurityState {
  reserved_users: Record<string, ReservedUserRecord>;
  users: Record<string, NativeUserRecord>;
  roles: Record<string, RoleDescriptor>;
  role_mappings: Record<string, RoleMappingRecord>;
  api_keys: Record<string, ApiKeyRecord>;
  tokens: Record<string, TokenRecord>;
  service_tokens: Record<string, ServiceTokenRecord>;
}

export const SECURITY_SECTION = 'security';

const SECTIONS: ReadonlyArray<keyof SecurityState> = ['reserved_users', 'users', 'roles', 'role_mappings', 'api_keys', 'tokens', 'service_tokens'];

function emptyState(): SecurityState {
  return { reserved_users: {}, users: {}, roles: {}, role_mappings: {}, api_keys: {}, tokens: {}, service_tokens: {} };
}

function normalize(raw: unknown): SecurityState {
  const out = emptyState();
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const k of SECTIONS) {
      const v = (raw as Record<string, unknown>)[k];
      if (v && typeof v === 'object' && !Array.isArray(v)) (out as unknown as Record<string, unknown>)[k] = v;
    }
  }
  return out;
}

@injectable()
export class SecurityStore {
  private cachedVersion = -1;
  private cached: SecurityState = emptyState();
  private cachedRaw: unknown = undefined;
  /** bumps on every change of the security section (caches key on it) */
  private generation = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(@inject(EngineTokens.MetadataStore) private readonly metadata: MetadataStore) {
    metadata.onChange((next: ClusterMetadata, prev: ClusterMetadata) => {
      if (next.custom[SECURITY_SECTION] !== prev.custom[SECURITY_SECTION]) {
        this.generation++;
        for (const l of this.listeners) l();
      }
    });
  }

  /** the current (frozen) state */
  state(): SecurityState {
    const md = this.metadata.current();
    if (md.version !== this.cachedVersion) {
      const raw = md.custom[SECURITY_SECTION];
      if (raw !== this.cachedRaw) {
        this.cached = normalize(raw);
        this.cachedRaw = raw;
      }
      this.cachedVersion = md.version;
    }
    return this.cached;
  }

  /** changes with every update of the security state */
  get version(): number {
    return this.generation;
  }

  /** applies fn to a draft and persists it atomically; fn may throw to abort; returns fn's result */
  async update<T>(fn: (draft: SecurityState) => T): Promise<T> {
    let result: T | undefined;
    await this.metadata.update((draft) => {
      const sec = normalize(draft.custom[SECURITY_SECTION]);
      result = fn(sec);
      draft.custom[SECURITY_SECTION] = sec;
    });
    return result as T;
  }

  /** called after every change of the security state (auth caches invalidate themselves) */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }
}
