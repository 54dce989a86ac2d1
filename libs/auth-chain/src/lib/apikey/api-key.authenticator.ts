/** The API key element of the authenticator chain (order 30): `Authorization: ApiKey base64(id:key)`. */
import { inject, injectable } from 'inversify';
import type { Authenticator, AuthResult, RestRequest } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { AuthCache } from '../authc/auth-cache.js';
import { failedCredentials } from '../authc/auth-errors.js';
import { readCredential, type Credential } from '../authc/credentials.js';
import { SecurityConfig } from '../security-config.js';
import { ApiKeyAuthenticationError, ApiKeyService } from './api-key-service.js';

@injectable()
export class ApiKeyAuthenticator implements Authenticator {
  readonly name = 'api-key-service';
  readonly order = 30;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ApiKeyService) private readonly keys: ApiKeyService,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  extractCredentials(req: RestRequest): Extract<Credential, { scheme: 'apikey' }> | undefined {
    if (!this.config.enabled || !this.config.apiKeyEnabled) return undefined;
    const h = req.headers['authorization'];
    if (!h || !/^apikey /i.test(h)) return undefined;
    const c = readCredential(h);
    return c?.scheme === 'apikey' ? c : undefined;
  }

  async authenticate(credentials: unknown, req: RestRequest): Promise<AuthResult> {
    const cred = credentials as Extract<Credential, { scheme: 'apikey' }>;
    try {
      const { auth, cached } = await this.cache.through(cred.header, this.config.apiKeyCacheTtlMs, () => this.keys.authenticate(cred.encoded));
      if (!cached) this.audit.authenticationSuccess(auth, req);
      return { kind: 'success', principal: auth };
    } catch (e) {
      if (!(e instanceof ApiKeyAuthenticationError)) throw e;
      this.audit.authenticationFailed(req);
      return { kind: 'failure', error: failedCredentials(`API key: ${e.message}`) };
    }
  }
}
