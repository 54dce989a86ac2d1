/**
 * The realm chain for user name + password: the reserved realm first (built-in users), then the configured
 * realms by `order` (file, native). A realm that does not know a user lets the next one try; the
 * reserved realm alone decides for reserved user names.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { verifyHash } from '../crypto/hasher.js';
import { SecurityConfig, type RealmConfig } from '../security-config.js';
import { SecurityStore, type NativeUserRecord } from '../store/security-store.js';
import { REALM_RESERVED, type Authentication } from './authentication.js';
import { FileRealmFiles } from './file-realm-files.js';

export type RealmResult = { kind: 'success'; auth: Authentication } | { kind: 'continue' } | { kind: 'terminate' };

export interface Realm {
  readonly name: string;
  readonly type: string;
  readonly order: number;
  authenticate(username: string, password: string): Promise<RealmResult>;
  /** the user without checking a password (grant API keys for another user, token refresh), if known */
  lookup(username: string): Authentication | undefined;
}

/** reserved user name → its roles and metadata */
export const RESERVED_USERS: ReadonlyMap<string, { roles: string[]; metadata: Record<string, unknown> }> = new Map([
  ['elastic', { roles: ['superuser'], metadata: { _reserved: true } }],
  ['kibana', { roles: ['kibana_system'], metadata: { _reserved: true, _deprecated: true, _deprecated_reason: 'Please use the [kibana_system] user instead.' } }],
  ['kibana_system', { roles: ['kibana_system'], metadata: { _reserved: true } }],
  ['logstash_system', { roles: ['logstash_system'], metadata: { _reserved: true } }],
  ['beats_system', { roles: ['beats_system'], metadata: { _reserved: true } }],
  ['apm_system', { roles: ['apm_system'], metadata: { _reserved: true } }],
  ['remote_monitoring_user', { roles: ['remote_monitoring_collector', 'remote_monitoring_agent'], metadata: { _reserved: true } }],
]);

/** a secret kept in memory only as a salted SHA-256 (the bootstrap password) */
class MemoryDigest {
  private readonly salt = randomBytes(16);
  private readonly digest: Buffer;
  constructor(secret: string) {
    this.digest = this.of(secret);
  }
  private of(secret: string): Buffer {
    return createHash('sha256').update(this.salt).update(secret, 'utf8').digest();
  }
  matches(secret: string): boolean {
    return timingSafeEqual(this.of(secret), this.digest);
  }
}

@injectable()
export class ReservedRealm implements Realm {
  readonly name = REALM_RESERVED.name;
  readonly type = REALM_RESERVED.type;
  readonly order = Number.MIN_SAFE_INTEGER - 1;
  private readonly bootstrap?: MemoryDigest;

  constructor(
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(SecurityConfig) config: SecurityConfig,
  ) {
    if (config.bootstrapPassword) this.bootstrap = new MemoryDigest(config.bootstrapPassword);
  }

  isReserved(username: string): boolean {
    return RESERVED_USERS.has(username);
  }

  enabled(username: string): boolean {
    return this.store.state().reserved_users[username]?.enabled !== false;
  }

  /** whether the elastic user's password is the bootstrap password (no stored password replaces it) */
  usesBootstrap(): boolean {
    const rec = this.store.state().reserved_users['elastic'];
    return this.bootstrap !== undefined && (!rec?.password_hash || rec.generated === true);
  }

  lookup(username: string): Authentication | undefined {
    const def = RESERVED_USERS.get(username);
    if (!def) return undefined;
    return {
      username,
      roles: [...def.roles],
      realm: { ...REALM_RESERVED },
      authenticationType: 'realm',
      fullName: null,
      email: null,
      metadata: { ...def.metadata },
      enabled: this.enabled(username),
    };
  }

  async authenticate(username: string, password: string): Promise<RealmResult> {
    if (!RESERVED_USERS.has(username)) return { kind: 'continue' };
    const rec = this.store.state().reserved_users[username];
    let ok = false;
    if (username === 'elastic' && this.usesBootstrap()) ok = this.bootstrap!.matches(password);
    else if (rec?.password_hash) ok = await verifyHash(password, rec.password_hash);
    if (!ok || rec?.enabled === false) return { kind: 'terminate' };
    return { kind: 'success', auth: this.lookup(username)! };
  }
}

function userAuthentication(u: NativeUserRecord | { username: string; roles: string[] }, realm: { name: string; type: string }): Authentication {
  const n = u as Partial<NativeUserRecord>;
  return {
    username: u.username,
    roles: [...u.roles],
    realm: { ...realm },
    authenticationType: 'realm',
    fullName: n.full_name ?? null,
    email: n.email ?? null,
    metadata: { ...(n.metadata ?? {}) },
    enabled: n.enabled ?? true,
  };
}

/** a realm configured by `xpack.security.authc.realms.<type>.<name>.*` */
abstract class ConfiguredRealm implements Realm {
  abstract readonly type: string;
  constructor(private readonly config: RealmConfig) {}
  get name(): string {
    return this.config.name;
  }
  get order(): number {
    return this.config.order;
  }
  protected ref(): { name: string; type: string } {
    return { name: this.name, type: this.type };
  }
  abstract lookup(username: string): Authentication | undefined;
  abstract authenticate(username: string, password: string): Promise<RealmResult>;
}

export class NativeRealm extends ConfiguredRealm {
  readonly type = 'native';
  constructor(
    config: RealmConfig,
    private readonly store: SecurityStore,
  ) {
    super(config);
  }
  lookup(username: string): Authentication | undefined {
    const u = this.store.state().users[username];
    return u && u.enabled ? userAuthentication(u, this.ref()) : undefined;
  }
  async authenticate(username: string, password: string): Promise<RealmResult> {
    const u = this.store.state().users[username];
    if (!u || !u.password_hash) return { kind: 'continue' };
    if (!(await verifyHash(password, u.password_hash)) || !u.enabled) return { kind: 'continue' };
    return { kind: 'success', auth: userAuthentication(u, this.ref()) };
  }
}

export class FileRealm extends ConfiguredRealm {
  readonly type = 'file';
  constructor(
    config: RealmConfig,
    private readonly files: FileRealmFiles,
  ) {
    super(config);
  }
  lookup(username: string): Authentication | undefined {
    if (!this.files.users().has(username)) return undefined;
    return userAuthentication({ username, roles: this.files.rolesOf(username) }, this.ref());
  }
  async authenticate(username: string, password: string): Promise<RealmResult> {
    const hash = this.files.users().get(username);
    if (!hash || !(await verifyHash(password, hash))) return { kind: 'continue' };
    return { kind: 'success', auth: this.lookup(username)! };
  }
}

/** the configured realms, reserved first */
@injectable()
export class RealmChain {
  readonly realms: readonly Realm[];

  constructor(
    @inject(ReservedRealm) readonly reserved: ReservedRealm,
    @inject(SecurityStore) store: SecurityStore,
    @inject(SecurityConfig) config: SecurityConfig,
    @inject(FileRealmFiles) files: FileRealmFiles,
  ) {
    const list: Realm[] = [reserved];
    for (const r of config.realms) list.push(r.type === 'file' ? new FileRealm(r, files) : new NativeRealm(r, store));
    this.realms = list;
  }

  config(name: string): Realm | undefined {
    return this.realms.find((r) => r.name === name);
  }

  /** the user with a password, or undefined (same outcome for an unknown user and a wrong password) */
  async authenticate(username: string, password: string): Promise<Authentication | undefined> {
    for (const realm of this.realms) {
      const r = await realm.authenticate(username, password);
      if (r.kind === 'success') return r.auth;
      if (r.kind === 'terminate') return undefined;
    }
    return undefined;
  }

  /** a user of any realm, without a password */
  lookup(username: string): Authentication | undefined {
    for (const realm of this.realms) {
      const a = realm.lookup(username);
      if (a) return a;
    }
    return undefined;
  }
}
