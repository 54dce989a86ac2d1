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
