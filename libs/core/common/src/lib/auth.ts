import type { Principal, RestRequest } from './rest.js';

export type AuthResult =
  | { kind: 'success'; principal: Principal }
  | { kind: 'not-handled' }
  | { kind: 'failure'; error: Error };

/** An element of the authenticator chain (service accounts 10, tokens 20, API keys 30, realms 100). */
export interface Authenticator {
  readonly name: string;
  readonly order: number;
  /** returns undefined when the request carries no credential this authenticator understands */
  extractCredentials(req: RestRequest): unknown | undefined;
  authenticate(credentials: unknown, req: RestRequest): Promise<AuthResult>;
}

/** Decides whether a principal may run an action on targets. The default allows everything. */
export interface Authorizer {
  authorize(principal: Principal | undefined, action: string, req: RestRequest): Promise<void>;
}

/**
 * The owner of a context (scroll, point in time, async search) as recorded when it was opened: the
 * principal reduced to what identifies it. Undefined when security was off at creation time.
 */
export interface ContextOwner {
  username: string;
  realmName: string;
  realmType: string;
  /** contexts opened with an API key belong to that key */
  apiKeyId?: string;
}

export function contextOwner(principal: Principal | undefined): ContextOwner | undefined {
  if (!principal) return undefined;
  const realm = principal.lookupRealm ?? principal.realm;
  const owner: ContextOwner = { username: principal.username, realmName: realm.name, realmType: realm.type };
  if (principal.apiKey) owner.apiKeyId = principal.apiKey.id;
  return owner;
}

/**
 * Whether `principal` may use a context owned by `owner`, as Elasticsearch's
 * `Authentication#canAccessResourcesOf` decides: a context opened without security is anyone's;
 * one opened with an API key only that key's; otherwise the same user of the same realm (an access
 * token acts as the user it was issued to). A context made with security on is nobody's once
 * security is off for the caller.
 */
export function sameOwner(owner: ContextOwner | undefined, principal: Principal | undefined): boolean {
  if (!owner) return true;
  const other = contextOwner(principal);
  if (!other) return false;
  if (owner.apiKeyId !== undefined || other.apiKeyId !== undefined) return owner.apiKeyId === other.apiKeyId;
  return owner.username === other.username && owner.realmType === other.realmType && owner.realmName === other.realmName;
}
