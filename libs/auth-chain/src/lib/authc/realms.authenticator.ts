/**
 * The last element of the authenticator chain (order 100): user name and password (`Basic`) through the
 * realm chain. It also answers every request that carries no credential another element claimed with
 * Elasticsearch's "missing authentication credentials" 401, so nothing is reachable anonymously.
 */
import { inject, injectable } from 'inversify';
import type { Authenticator, AuthResult, RestRequest } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { SecurityConfig } from '../security-config.js';
import { AuthCache } from './auth-cache.js';
import { REALM_ANONYMOUS, type Authentication } from './authentication.js';
import { failedUser, missingCredentials } from './auth-errors.js';
import { readCredential, type Credential } from './credentials.js';
import { RealmChain } from './realms.js';

type RealmCredential = { kind: 'basic'; cred: Extract<Credential, { scheme: 'basic' }> } | { kind: 'missing' } | { kind: 'invalid'; error: Error };

@injectable()
export class RealmsAuthenticator implements Authenticator {
  readonly name = 'realms';
  readonly order = 100;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(RealmChain) private readonly realms: RealmChain,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  extractCredentials(req: RestRequest): RealmCredential | undefined {
    if (!this.config.enabled) return undefined;
    try {
      const cred = readCredential(req.headers['authorization']);
      return cred?.scheme === 'basic' ? { kind: 'basic', cred } : { kind: 'missing' };
    } catch (e) {
      return { kind: 'invalid', error: e as Error };
    }
  }

  async authenticate(credentials: unknown, req: RestRequest): Promise<AuthResult> {
    const c = credentials as RealmCredential;
    if (c.kind === 'missing') {
      const anon = this.config.anonymous;
      if (anon) {
        const principal: Authentication = {
          username: anon.username,
          roles: [...anon.roles],
          realm: { ...REALM_ANONYMOUS },
          authenticationType: 'anonymous',
          fullName: null,
          email: null,
          metadata: { _reserved: true },
          enabled: true,
        };
        return { kind: 'success', principal };
      }
      this.audit.anonymousAccessDenied(req);
      return { kind: 'failure', error: missingCredentials(req) };
    }
    if (c.kind === 'invalid') {
      this.audit.authenticationFailed(req);
      return { kind: 'failure', error: c.error };
    }
    const key = this.cache.keyOf(c.cred.header);
    const cached = this.cache.get(key);
    if (cached) return { kind: 'success', principal: cached };
    const auth = await this.realms.authenticate(c.cred.username, c.cred.password);
    if (!auth) {
      this.audit.authenticationFailed(req, c.cred.username);
      return { kind: 'failure', error: failedUser(c.cred.username, req) };
    }
    const realm = this.config.realms.find((r) => r.name === auth.realm.name);
    this.cache.set(key, auth, realm?.cacheTtlMs ?? 20 * 60_000);
    this.audit.authenticationSuccess(auth, req);
    return { kind: 'success', principal: auth };
  }
}
