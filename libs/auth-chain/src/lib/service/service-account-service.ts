/**
 * Service accounts (`elastic/fleet-server`, `elastic/kibana`, `elastic/enterprise-search-server`) and their
 * tokens: `Bearer` credentials of the form base64(0x00 0x01 0x00 0x01 "namespace/service/name:secret"),
 * kept in the index (created by the API) or in the `service_tokens` file (written by the `service-tokens`
 * tool), only as salted hashes (`xpack.security.authc.service_token_hashing.algorithm`).
 */
import { randomBytes } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, Tokens, systemClock, type Clock } from '@strata/core-common';
import { REALM_SERVICE_ACCOUNT, type Authentication } from '../authc/authentication.js';
import { FileRealmFiles } from '../authc/file-realm-files.js';
import { hasher, verifyHash } from '../crypto/hasher.js';
import { SERVICE_ACCOUNTS, type ServiceAccountDef } from '../authz/reserved-roles.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore } from '../store/security-store.js';

export const SERVICE_TOKEN_MAGIC = Buffer.from([0x00, 0x01, 0x00, 0x01]);
export const TOKEN_NAME_PATTERN = /^[a-zA-Z0-9-][a-zA-Z0-9_-]{0,255}$/;
export const TOKEN_NAME_RULES =
  'service account token name must be at least [1] and no more than [256] characters long, must contain only alphanumeric (a-z, A-Z, 0-9), dash (-) and underscore (_), and must not begin with an underscore';

export interface ServiceToken {
  /** `namespace/service` */
  account: string;
  name: string;
  secret: string;
}

/** the wire value of a token */
export function encodeServiceToken(account: string, name: string, secret: string): string {
  return Buffer.concat([SERVICE_TOKEN_MAGIC, Buffer.from(`${account}/${name}:${secret}`, 'utf8')]).toString('base64');
}

/** parses a bearer value; undefined when it is not a service account token */
export function decodeServiceToken(value: string): ServiceToken | undefined {
  if (!/^[A-Za-z0-9+/=_-]+$/.test(value)) return undefined;
  const b = Buffer.from(value, 'base64');
  if (b.length <= 4 || !b.subarray(0, 4).equals(SERVICE_TOKEN_MAGIC)) return undefined;
  const text = b.subarray(4).toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return undefined;
  const qualified = text.slice(0, colon);
  const parts = qualified.split('/');
  if (parts.length !== 3) return undefined;
  return { account: `${parts[0]}/${parts[1]}`, name: parts[2], secret: text.slice(colon + 1) };
}

/** a new token secret, like Elasticsearch's (22 base64url characters) */
export function newServiceTokenSecret(): string {
  return randomBytes(16).toString('base64url');
}

export class ServiceTokenError extends Error {}

@injectable()
export class ServiceAccountService {
  private readonly clock: Clock;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(FileRealmFiles) private readonly files: FileRealmFiles,
    @inject(Tokens.Clock) @optional() clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
  }

  account(principal: string): ServiceAccountDef | undefined {
    return SERVICE_ACCOUNTS.get(principal);
  }

  accounts(): ServiceAccountDef[] {
    return [...SERVICE_ACCOUNTS.values()];
  }

  indexTokenNames(account: string): string[] {
    return Object.values(this.store.state().service_tokens)
      .filter((t) => t.qualified_name.startsWith(account + '/'))
      .map((t) => t.qualified_name.slice(account.length + 1))
      .sort();
  }

  fileTokenNames(account: string): string[] {
    return [...this.files.serviceTokens().keys()]
      .filter((k) => k.startsWith(account + '/'))
      .map((k) => k.slice(account.length + 1))
      .sort();
  }

  async createToken(account: string, name: string | undefined, creator: Authentication): Promise<{ name: string; value: string }> {
    if (!SERVICE_ACCOUNTS.has(account)) throw Errors.illegalArgument(`service account [${account}] does not exist`);
    const tokenName = name ?? `token_${randomBytes(15).toString('base64url').replace(/^_/, 'a')}`;
    if (!TOKEN_NAME_PATTERN.test(tokenName)) throw Errors.actionRequestValidation([TOKEN_NAME_RULES]);
    const qualified = `${account}/${tokenName}`;
    const secret = newServiceTokenSecret();
    const hash = await hasher(this.config.serviceTokenHashing).hash(secret);
    await this.store.update((d) => {
      if (d.service_tokens[qualified]) {
        throw new EsError('version_conflict_engine_exception', 409, `[service_account_token-${qualified}]: version conflict, document already exists (current version [1])`);
      }
      const realm = creator.apiKeyOwnerRealm ?? creator.lookupRealm ?? creator.realm;
      d.service_tokens[qualified] = { qualified_name: qualified, hash, creation: this.clock.now(), creator: { principal: creator.username, realm: realm.name, realm_type: realm.type } };
    });
    return { name: tokenName, value: encodeServiceToken(account, tokenName, secret) };
  }

  async deleteToken(account: string, name: string): Promise<boolean> {
    const qualified = `${account}/${name}`;
    if (!this.store.state().service_tokens[qualified]) return false;
    return this.store.update((d) => {
      const had = d.service_tokens[qualified] !== undefined;
      delete d.service_tokens[qualified];
      return had;
    });
  }

  /** the authentication of a service account token, or a ServiceTokenError saying why not */
  async authenticate(token: ServiceToken): Promise<Authentication> {
    const def = SERVICE_ACCOUNTS.get(token.account);
    const fail = () => new ServiceTokenError(`failed to authenticate service account [${token.account}] with token name [${token.name}]`);
    if (!def) throw fail();
    const qualified = `${token.account}/${token.name}`;
    const indexed = this.store.state().service_tokens[qualified];
    let type: string | undefined;
    if (indexed && (await verifyHash(token.secret, indexed.hash))) type = '_service_account_index';
    else {
      const fileHash = this.files.serviceTokens().get(qualified);
      if (fileHash && (await verifyHash(token.secret, fileHash))) type = '_service_account_file';
    }
    if (!type) throw fail();
    return {
      username: token.account,
      roles: [],
      realm: { ...REALM_SERVICE_ACCOUNT },
      lookupRealm: { ...REALM_SERVICE_ACCOUNT },
      authenticationType: 'token',
      fullName: `Service account - ${token.account}`,
      email: null,
      metadata: { _elastic_service_account: true },
      enabled: true,
      token: { name: token.name, type },
      serviceAccountRole: def.role,
    };
  }
}
