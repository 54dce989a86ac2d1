/** `POST /_security/oauth2/token` (password, client_credentials, refresh_token grants) and `DELETE /_security/oauth2/token`. */
import { inject, injectable } from 'inversify';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { authenticateResponse } from '../authc/authentication.js';
import { RealmChain } from '../authc/realms.js';
import { SecurityConfig } from '../security-config.js';
import { TokenRequestError, TokenService, type TokenPair } from '../token/token-service.js';
import { caller, objectBody, refreshParam, requireSecurity } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

const GRANTS = ['password', 'refresh_token', 'client_credentials', '_kerberos'];

/** the OAuth2 error body (RFC 6749 §5.2) Elasticsearch answers for validation and grant errors */
function tokenError(error: string, description: string): RestResponse {
  return RestResponses.json(400, { error, error_description: description });
}

function tokensDisabled(): EsError {
  return new EsError('feature_not_enabled_exception', 400, 'security tokens are not enabled', { metadata: { 'es.feature_not_enabled': 'security_tokens' } });
}

function render(pair: TokenPair): Record<string, unknown> {
  const out: Record<string, unknown> = { access_token: pair.access_token, type: pair.type, expires_in: pair.expires_in };
  if (pair.scope) out['scope'] = pair.scope;
  if (pair.refresh_token) out['refresh_token'] = pair.refresh_token;
  out['authentication'] = authenticateResponse(pair.authentication);
  return out;
}

@injectable()
export class GetTokenRestHandler implements RestHandler {
  readonly name = 'security_get_token_action';
  readonly routes = [route('POST', '/_security/oauth2/token', A.CREATE_TOKEN)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(TokenService) private readonly tokens: TokenService,
    @inject(RealmChain) private readonly realms: RealmChain,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    if (!this.tokens.enabled) throw tokensDisabled();
    const body = objectBody(req, 'token request');
    for (const k of Object.keys(body)) {
      if (!['grant_type', 'username', 'password', 'kerberos_ticket', 'scope', 'refresh_token'].includes(k)) {
        throw new EsError('x_content_parse_exception', 400, `[token_request] unknown field [${k}]`);
      }
      if (typeof body[k] !== 'string') throw new EsError('x_content_parse_exception', 400, `[token_request] ${k} doesn't support values of type: ${Array.isArray(body[k]) ? 'START_ARRAY' : 'VALUE_NUMBER'}`);
    }
    const grant = body['grant_type'] as string | undefined;
    const errors: string[] = [];
    const has = (k: string) => body[k] !== undefined;
    if (grant === undefined) errors.push('grant_type is missing');
    else if (!GRANTS.includes(grant)) errors.push(`grant_type [${grant}] is not supported`);
    else if (grant === 'password') {
      if (!has('username')) errors.push('username is missing');
      if (!has('password')) errors.push('password is missing');
      if (has('refresh_token')) errors.push('refresh_token is not supported with the password grant_type');
      if (has('kerberos_ticket')) errors.push('kerberos_ticket is not supported with the password grant_type');
    } else if (grant === 'refresh_token') {
      if (!has('refresh_token')) errors.push('refresh_token is missing');
      if (has('username')) errors.push('username is not supported with the refresh_token grant_type');
      if (has('password')) errors.push('password is not supported with the refresh_token grant_type');
    } else if (grant === 'client_credentials') {
      for (const k of ['username', 'password', 'refresh_token', 'kerberos_ticket']) if (has(k)) errors.push(`${k} is not supported with the client_credentials grant_type`);
    } else if (grant === '_kerberos') errors.push('grant_type [_kerberos] is not supported: no kerberos realm is configured');
    if (errors.length) {
      const message = Errors.actionRequestValidation(errors).reason;
      return tokenError(errors.some((e) => e.includes('grant_type')) ? 'unsupported_grant_type' : 'invalid_request', message);
    }
    const me = caller(req);
    try {
      let pair: TokenPair;
      if (grant === 'refresh_token') {
        pair = await this.tokens.refresh(body['refresh_token'] as string, me);
      } else if (grant === 'client_credentials') {
        pair = await this.tokens.create(me, me, grant, false);
      } else {
        const user = await this.realms.authenticate(body['username'] as string, body['password'] as string);
        if (!user) throw Errors.security(`unable to authenticate user [${String(body['username'])}] for action [${A.CREATE_TOKEN}]`, 401);
        pair = await this.tokens.create(user, me, grant!, true);
      }
      this.audit.authenticationSuccess(pair.authentication, req);
      return RestResponses.ok(render(pair));
    } catch (e) {
      if (e instanceof TokenRequestError) return tokenError(e.error, e.description);
      throw e;
    }
  }
}

@injectable()
export class InvalidateTokenRestHandler implements RestHandler {
  readonly name = 'security_invalidate_token_action';
  readonly routes = [route('DELETE', '/_security/oauth2/token', A.INVALIDATE_TOKEN)];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(TokenService) private readonly tokens: TokenService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    if (!this.tokens.enabled) throw tokensDisabled();
    refreshParam(req);
    const body = objectBody(req, 'invalidate token request');
    for (const k of Object.keys(body)) {
      if (!['token', 'refresh_token', 'realm_name', 'username'].includes(k)) throw new EsError('x_content_parse_exception', 400, `[invalidate_token] unknown field [${k}]`);
    }
    const str = (k: string) => (typeof body[k] === 'string' && body[k] !== '' ? (body[k] as string) : undefined);
    const token = str('token');
    const refreshToken = str('refresh_token');
    const realm = str('realm_name');
    const username = str('username');
    const errors: string[] = [];
    if (token !== undefined && refreshToken !== undefined) errors.push('only one of [token, refresh_token] may be sent per request');
    if ((token !== undefined || refreshToken !== undefined) && (realm !== undefined || username !== undefined)) {
      errors.push('token and refresh_token may not be used together with realm_name or username');
    }
    if (token === undefined && refreshToken === undefined && realm === undefined && username === undefined) {
      errors.push('at least one of [token, refresh_token, realm_name, username] must be specified');
    }
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const r = await this.tokens.invalidate({ token, refreshToken, realm, username });
    if (r.invalidated) this.audit.securityConfigChange(caller(req), 'invalidate', { tokens: { count: r.invalidated } }, req);
    return RestResponses.json(r.found ? 200 : 404, { invalidated_tokens: r.invalidated, previously_invalidated_tokens: r.previously, error_count: 0 });
  }
}

export const TOKEN_HANDLERS = [GetTokenRestHandler, InvalidateTokenRestHandler];
