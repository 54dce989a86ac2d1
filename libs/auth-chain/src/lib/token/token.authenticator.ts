/**
 * The token-service element of the authenticator chain (order 20): every `Bearer` credential the service
 * accounts did not claim. An expired or invalidated token answers Elasticsearch's "token expired" 401.
 */
import { inject, injectable } from 'inversify';
import type { Authenticator, AuthResult, RestRequest } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { AuthCache } from '../authc/auth-cache.js';
import { expiredToken, failedCredentials } from '../authc/auth-errors.js';
import { readCredential, type Credential } from '../authc/credentials.js';
import { TokenAuthenticationError, TokenService } from './token-service.js';

@injectable()
export class TokenAuthenticator implements Authenticator {
  readonly name = 'token-service';
  readonly order = 20;

  constructor(
    @inject(TokenService) private readonly tokens: TokenService,
    @inject(AuthCache) private readonly cache: AuthCache,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  extractCredentials(req: RestRequest): Extract<Credential, { scheme: 'bearer' }> | undefined {
    if (!this.tokens.enabled) return undefined;
    const h = req.headers['authorization'];
    if (!h || !/^bearer /i.test(h)) return undefined;
    const c = readCredential(h);
    return c?.scheme === 'bearer' ? c : undefined;
  }

  async authenticate(credentials: unknown, req: RestRequest): Promise<AuthResult> {
    const cred = credentials as Extract<Credential, { scheme: 'bearer' }>;
    try {
      const { auth, cached } = await this.cache.through(cred.header, 20 * 60_000, () => this.tokens.authenticateAccessToken(cred.token));
      if (!cached) this.audit.authenticationSuccess(auth, req);
      return { kind: 'success', principal: auth };
    } catch (e) {
      if (!(e instanceof TokenAuthenticationError)) throw e;
      this.audit.authenticationFailed(req);
      return { kind: 'failure', error: e.expired ? expiredToken() : failedCredentials() };
    }
  }
}
