/**
 * Elasticsearch's 401 answers: `security_exception` with the WWW-Authenticate challenges as response
 * headers and under `header` in the body. The same wording whatever went wrong with a credential, so an
 * error never tells whether a user, key or token exists.
 */
import { EsError, Errors, type RestRequest } from '@strata/core-common';

export const CHALLENGES = ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'];

function challenge(extra: Record<string, unknown> = {}): { headers: Record<string, string[]>; metadata: Record<string, unknown> } {
  return { headers: { 'WWW-Authenticate': [...CHALLENGES] }, metadata: extra };
}

export function uriOf(req: RestRequest): string {
  return req.uri ?? req.path;
}

export function authenticationError(reason: string, metadata: Record<string, unknown> = {}): EsError {
  const c = challenge(metadata);
  return Errors.security(reason, 401, c.headers, c.metadata);
}

export function missingCredentials(req: RestRequest): EsError {
  return authenticationError(`missing authentication credentials for REST request [${uriOf(req)}]`);
}

export function failedUser(username: string, req: RestRequest): EsError {
  return authenticationError(`unable to authenticate user [${username}] for REST request [${uriOf(req)}]`);
}

/** a token-like credential (API key, bearer token) that did not authenticate */
export function failedCredentials(detail?: string): EsError {
  return authenticationError(
    'unable to authenticate with provided credentials and anonymous access is not allowed for this request',
    detail ? { additional_unsuccessful_credentials: detail } : {},
  );
}

export function invalidBasicHeader(): EsError {
  return authenticationError('invalid basic authentication header value');
}

/** an expired access token, as the token service answers it */
export function expiredToken(): EsError {
  return Errors.security('token expired', 401, {
    'WWW-Authenticate': ['Bearer realm="security", error="invalid_token", error_description="The access token expired"', ...CHALLENGES.filter((c) => !c.startsWith('Bearer'))],
  });
}

/** the answer of every security API while xpack.security.enabled is false */
export function securityDisabled(): EsError {
  return new EsError(
    'exception',
    500,
    'Security must be explicitly enabled when using a [basic] license. Enable security by setting [xpack.security.enabled] to [true] in the elasticsearch.yml file and restart the node.',
  );
}
