import { injectable, multiInject, optional } from 'inversify';
import {
  EsError,
  Errors,
  ExtensionPoints,
  type Authenticator,
  type Authorizer,
  type Principal,
  type RestRequest,
} from '@strata/core-common';

/** The default authorizer: everything is allowed (auth-chain rebinds Tokens.Authorizer). */
@injectable()
export class AllowAllAuthorizer implements Authorizer {
  async authorize(): Promise<void> {
    /* allow */
  }
}

/**
 * Runs the ExtensionPoints.Authenticator contributions sorted by `order`. The first authenticator
 * that recognises a credential decides; no contributions (or no credential recognised) → anonymous.
 */
@injectable()
export class AuthenticatorChain {
  private readonly chain: Authenticator[];

  constructor(@multiInject(ExtensionPoints.Authenticator) @optional() authenticators: Authenticator[] | undefined = []) {
    const list = [...(authenticators ?? [])];
    const names = new Set<string>();
    for (const a of list) {
      if (names.has(a.name)) throw new Error(`authenticator [${a.name}] is registered twice`);
      names.add(a.name);
    }
    this.chain = list.sort((a, b) => a.order - b.order);
  }

  get size(): number {
    return this.chain.length;
  }

  async authenticate(req: RestRequest): Promise<Principal | undefined> {
    for (const a of this.chain) {
      const cred = a.extractCredentials(req);
      if (cred === undefined) continue;
      const r = await a.authenticate(cred, req);
      if (r.kind === 'success') return r.principal;
      if (r.kind === 'failure') {
        if (r.error instanceof EsError) throw r.error;
        throw Errors.security(r.error.message || 'unable to authenticate user', 401, {
          'WWW-Authenticate': 'Basic realm="security" charset="UTF-8"',
        });
      }
    }
    return undefined;
  }
}

