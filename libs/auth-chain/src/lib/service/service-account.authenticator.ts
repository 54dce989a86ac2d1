/** The first element of the authenticator chain (order 10): `Bearer` service account tokens. */
import { inject, injectable } from 'inversify';
import type { Authenticator, AuthResult, RestRequest } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { AuthCache } from '../authc/auth-cache.js';
import { failedCredentials } from '../authc/auth-errors.js';
import { SecurityConfig } from '../security-config.js';
import { ServiceAccountService, ServiceTokenError, decodeServiceToken, type ServiceToken } from './service-account-service.js';

@injectable()
export class ServiceAccountAuthenticator implements Authenticator {
  readonly name = 'service-accounts';
  readonly order = 10;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ServiceAccountService) private readonly accounts: ServiceAccountService,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  extractCredentials(req: RestRequest): { header: string; token: ServiceToken } | undefined {
    if (!this.config.enabled) return undefined;
    const h = req.headers['authorization'];
    if (!h || !/^bearer /i.test(h)) return undefined;
    const token = decodeServiceToken(h.slice(7).trim());
    return token ? { header: h, token } : undefined;
  }

  async authenticate(credentials: unknown, req: RestRequest): Promise<AuthResult> {
    const c = credentials as { header: string; token: ServiceToken };
    try {
      const { auth, cached } = await this.cache.through(c.header, 20 * 60_000, () => this.accounts.authenticate(c.token));
      if (!cached) this.audit.authenticationSuccess(auth, req);
      return { kind: 'success', principal: auth };
    } catch (e) {
      if (!(e instanceof ServiceTokenError)) throw e;
      this.audit.authenticationFailed(req, c.token.account);
      return { kind: 'failure', error: failedCredentials(`Service account: ${e.message}`) };
    }
  }
}
