/**
 * The OAuth2-style token service: access tokens (`xpack.security.authc.token.timeout`, 20 minutes by
 * default, at most 1 hour) and refresh tokens (24 hours, single use with a 30-second grace window in which
 * a repeated refresh answers the same new pair, as Elasticsearch does). A token is `<id><secret>` in
 * base64; only a salted hash of the secret is stored, and a refreshed pair is kept only encrypted with a
 * key derived from the refresh token that produced it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { EsError, Tokens, systemClock, type Clock } from '@strata/core-common';
import type { Authentication } from '../authc/authentication.js';
import { hasher, verifyHash } from '../crypto/hasher.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore, type SubjectRecord, type TokenRecord } from '../store/security-store.js';

const ACCESS_VERSION = 0x01;
const REFRESH_VERSION = 0x02;
const ID_BYTES = 15;
export const REFRESH_TOKEN_LIFETIME_MS = 24 * 3_600_000;
export const REFRESH_GRACE_MS = 30_000;
/** token secrets are 128-256 random bits: a cheap salted PBKDF2 is enough to keep them unreadable at rest */
const TOKEN_HASHING = 'pbkdf2_1000';

export interface TokenPair {
  access_token: string;
  type: 'Bearer';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
  authentication: Authentication;
}

/** an OAuth2 error of the token endpoint: `{"error":"invalid_grant","error_description":...}` (400) */
export class TokenRequestError extends EsError {
  constructor(
    readonly error: 'invalid_grant' | 'invalid_request' | 'unsupported_grant_type',
    readonly description: string,
  ) {
    super('security_exception', 400, error);
  }
}

/** why a bearer token did not authenticate */
export class TokenAuthenticationError extends Error {
  constructor(
    message: string,
    readonly expired = false,
  ) {
    super(message);
  }
}

function encode(version: number, id: Buffer, secret: Buffer): string {
  return Buffer.concat([Buffer.from([version]), id, secret]).toString('base64');
}

function decode(token: string, version: number, secretBytes: number): { id: string; secret: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return undefined;
  const b = Buffer.from(token, 'base64');
  if (b.length !== 1 + ID_BYTES + secretBytes || b[0] !== version) return undefined;
  return { id: b.subarray(1, 1 + ID_BYTES).toString('base64url'), secret: b.subarray(1 + ID_BYTES).toString('base64url') };
}

function pairKey(refreshSecret: string, salt: Buffer): Buffer {
  return createHash('sha256').update(salt).update(refreshSecret, 'utf8').digest();
}

function seal(plain: string, refreshSecret: string): string {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', pairKey(refreshSecret, salt), iv);
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return [salt, iv, c.getAuthTag(), body].map((x) => x.toString('base64')).join('.');
}

function unseal(sealed: string, refreshSecret: string): string | undefined {
  try {
    const [salt, iv, tag, body] = sealed.split('.').map((x) => Buffer.from(x, 'base64'));
    const d = createDecipheriv('aes-256-gcm', pairKey(refreshSecret, salt), iv);
    d.setAuthTag(tag);
    return Buffer.concat([d.update(body), d.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

@injectable()
export class TokenService {
  private readonly clock: Clock;
  private refreshIndexVersion = -1;
  private refreshIndex = new Map<string, string>();

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(Tokens.Clock) @optional() clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  get enabled(): boolean {
    return this.config.enabled && this.config.tokenEnabled;
  }

  subjectOf(auth: Authentication): SubjectRecord {
    const realm = auth.apiKeyOwnerRealm ?? auth.lookupRealm ?? auth.realm;
    return {
      principal: auth.username,
      full_name: auth.fullName ?? null,
      email: auth.email ?? null,
      metadata: { ...(auth.metadata ?? {}) },
      realm: auth.apiKey ? auth.realm.name : realm.name,
      realm_type: auth.apiKey ? auth.realm.type : realm.type,
      roles: [...auth.roles],
    };
  }

  /** a new access token (and refresh token unless `withRefresh` is false) acting as `subject` */
  async create(subject: Authentication, client: Authentication, grantType: string, withRefresh: boolean): Promise<TokenPair> {
    const now = this.clock.now();
    const h = hasher(TOKEN_HASHING);
    const id = randomBytes(ID_BYTES);
    const secret = randomBytes(32);
    const refreshId = withRefresh ? randomBytes(ID_BYTES) : undefined;
    const refreshSecret = withRefresh ? randomBytes(16) : undefined;
    const rec: TokenRecord = {
      id: id.toString('base64url'),
      access_hash: await h.hash(secret.toString('base64url')),
      refresh_id: refreshId ? refreshId.toString('base64url') : null,
      refresh_hash: refreshSecret ? await h.hash(refreshSecret.toString('base64url')) : null,
      creation: now,
      expiration: now + this.config.tokenTimeoutMs,
      refresh_expiration: withRefresh ? now + REFRESH_TOKEN_LIFETIME_MS : null,
      invalidated: false,
      refresh_invalidated: false,
      refreshed: null,
      subject: this.subjectOf(subject),
      authentication_type: subject.authenticationType,
      grant_type: grantType,
      client: { principal: client.username, realm: (client.apiKeyOwnerRealm ?? client.lookupRealm ?? client.realm).name },
    };
    if (subject.apiKey && subject.apiKeyRoles) {
      rec.api_key = { id: subject.apiKey.id, name: subject.apiKey.name, role_descriptors: subject.apiKeyRoles.roleDescriptors, limited_by: subject.apiKeyRoles.limitedBy };
    }
    await this.store.update((d) => {
      d.tokens[rec.id] = rec;
    });
    const pair: TokenPair = {
      access_token: encode(ACCESS_VERSION, id, secret),
      type: 'Bearer',
      expires_in: Math.round(this.config.tokenTimeoutMs / 1000),
      scope: 'full',
      authentication: this.authenticationOf(rec),
    };
    if (refreshId && refreshSecret) pair.refresh_token = encode(REFRESH_VERSION, refreshId, refreshSecret);
    return pair;
  }

  /** the authentication a token acts as */
  authenticationOf(rec: TokenRecord): Authentication {
    const s = rec.subject;
    const auth: Authentication = {
      username: s.principal,
      roles: [...s.roles],
      realm: { name: s.realm, type: s.realm_type },
      authenticationType: 'token',
      fullName: s.full_name,
      email: s.email,
      metadata: { ...s.metadata },
      enabled: true,
      expiresAt: rec.expiration,
    };
    if (rec.api_key) {
      auth.roles = [];
      auth.apiKey = { id: rec.api_key.id, name: rec.api_key.name };
      auth.apiKeyRoles = { roleDescriptors: rec.api_key.role_descriptors, limitedBy: rec.api_key.limited_by };
    }
    return auth;
  }

  /** looks up and checks an access token; throws TokenAuthenticationError */
  async authenticateAccessToken(token: string): Promise<Authentication> {
    const d = decode(token, ACCESS_VERSION, 32);
    if (!d) throw new TokenAuthenticationError('token malformed');
    const rec = this.store.state().tokens[d.id];
    if (!rec || !(await verifyHash(d.secret, rec.access_hash))) throw new TokenAuthenticationError('token not found');
    if (rec.invalidated || rec.expiration <= this.clock.now()) throw new TokenAuthenticationError('token expired', true);
    return this.authenticationOf(rec);
  }

  private recordOfRefresh(refreshId: string): TokenRecord | undefined {
    const state = this.store.state();
    if (this.store.version !== this.refreshIndexVersion) {
      const m = new Map<string, string>();
      for (const t of Object.values(state.tokens)) if (t.refresh_id) m.set(t.refresh_id, t.id);
      this.refreshIndex = m;
      this.refreshIndexVersion = this.store.version;
    }
    const id = this.refreshIndex.get(refreshId);
    return id === undefined ? undefined : state.tokens[id];
  }

  /** the refresh_token grant: a new pair, single use; a repeat within the grace window answers the same pair */
  async refresh(refreshToken: string, client: Authentication): Promise<TokenPair> {
    const d = decode(refreshToken, REFRESH_VERSION, 16);
    const rec = d ? this.recordOfRefresh(d.id) : undefined;
    if (!d || !rec || !rec.refresh_hash || !(await verifyHash(d.secret, rec.refresh_hash))) {
      throw new TokenRequestError('invalid_grant', 'could not refresh the requested token');
    }
    const now = this.clock.now();
    const clientRealm = (client.apiKeyOwnerRealm ?? client.lookupRealm ?? client.realm).name;
    if (rec.client && (rec.client.principal !== client.username || rec.client.realm !== clientRealm)) {
      throw new TokenRequestError('invalid_grant', 'tokens must be refreshed by the creating client');
    }
    if (rec.refresh_invalidated) throw new TokenRequestError('invalid_grant', 'token has been invalidated');
    if (rec.refresh_expiration !== null && rec.refresh_expiration <= now) throw new TokenRequestError('invalid_grant', 'refresh token is expired');
    if (rec.refreshed) {
      if (now - rec.refreshed.at > REFRESH_GRACE_MS || !rec.refreshed.encrypted_pair) {
        throw new TokenRequestError('invalid_grant', 'token has already been refreshed more than 30 seconds in the past');
      }
      const plain = unseal(rec.refreshed.encrypted_pair, d.secret);
      if (!plain) throw new TokenRequestError('invalid_grant', 'could not refresh the requested token');
      const again = JSON.parse(plain) as { access_token: string; refresh_token: string };
      const next = decode(again.access_token, ACCESS_VERSION, 32);
      const nextRec = next ? this.store.state().tokens[next.id] : undefined;
      if (!nextRec) throw new TokenRequestError('invalid_grant', 'could not refresh the requested token');
      return {
        access_token: again.access_token,
        type: 'Bearer',
        expires_in: Math.max(0, Math.round((nextRec.expiration - now) / 1000)),
        scope: 'full',
        refresh_token: again.refresh_token,
        authentication: this.authenticationOf(nextRec),
      };
    }
    const pair = await this.create(this.authenticationOf(rec), client, 'refresh_token', true);
    const sealed = seal(JSON.stringify({ access_token: pair.access_token, refresh_token: pair.refresh_token }), d.secret);
    await this.store.update((s) => {
      const t = s.tokens[rec.id];
      if (t) t.refreshed = { at: now, encrypted_pair: sealed };
    });
    return pair;
  }

  /**
   * DELETE /_security/oauth2/token: by access token, by refresh token (both tokens of the pair), or every
   * token of a realm and/or user. Counts each access and refresh token.
   */
  async invalidate(by: { token?: string; refreshToken?: string; realm?: string; username?: string }): Promise<{ invalidated: number; previously: number; found: boolean }> {
    let targets: Array<{ id: string; access: boolean; refresh: boolean }> = [];
    const state = this.store.state();
    if (by.token !== undefined) {
      const d = decode(by.token, ACCESS_VERSION, 32);
      const rec = d ? state.tokens[d.id] : undefined;
      if (!d || !rec || !(await verifyHash(d.secret, rec.access_hash))) return { invalidated: 0, previously: 0, found: false };
      targets = [{ id: rec.id, access: true, refresh: false }];
    } else if (by.refreshToken !== undefined) {
      const d = decode(by.refreshToken, REFRESH_VERSION, 16);
      const rec = d ? this.recordOfRefresh(d.id) : undefined;
      if (!d || !rec || !rec.refresh_hash || !(await verifyHash(d.secret, rec.refresh_hash))) return { invalidated: 0, previously: 0, found: false };
      targets = [{ id: rec.id, access: true, refresh: true }];
    } else {
      for (const t of Object.values(state.tokens)) {
        if (by.realm !== undefined && t.subject.realm !== by.realm) continue;
        if (by.username !== undefined && t.subject.principal !== by.username) continue;
        targets.push({ id: t.id, access: true, refresh: t.refresh_id !== null });
      }
      if (targets.length === 0) return { invalidated: 0, previously: 0, found: false };
    }
    return this.store.update((s) => {
      let invalidated = 0;
      let previously = 0;
      for (const t of targets) {
        const rec = s.tokens[t.id];
        if (!rec) continue;
        if (t.access) {
          if (rec.invalidated) previously++;
          else {
            rec.invalidated = true;
            invalidated++;
          }
        }
        if (t.refresh && rec.refresh_id) {
          if (rec.refresh_invalidated) previously++;
          else {
            rec.refresh_invalidated = true;
            invalidated++;
          }
        }
      }
      return { invalidated, previously, found: true };
    });
  }

  /** removes tokens whose refresh window is long over (ExpiredTokenRemover); returns how many */
  async removeExpired(): Promise<number> {
    const cutoff = this.clock.now() - REFRESH_TOKEN_LIFETIME_MS - REFRESH_GRACE_MS;
    const old = Object.values(this.store.state().tokens).filter((t) => t.creation < cutoff && t.expiration < this.clock.now());
    if (old.length === 0) return 0;
    return this.store.update((d) => {
      let n = 0;
      for (const t of old) if (d.tokens[t.id]) {
        delete d.tokens[t.id];
        n++;
      }
      return n;
    });
  }
}
