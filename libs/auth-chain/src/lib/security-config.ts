/**
 * The node's security settings, parsed once from HostConfig: whether security is on, the realm chain,
 * token and API key settings, hashing algorithms, the configuration directory.
 */
import { join, resolve } from 'node:path';
import { inject, injectable, optional } from 'inversify';
import { SettingParsers, Tokens, nodeIdentityOf, type HostConfig, type NodeIdentity } from '@strata/core-common';
import {
  API_KEY_CACHE_TTL,
  API_KEY_ENABLED,
  API_KEY_HASHING_ALGORITHM,
  AUDIT_ENABLED,
  BOOTSTRAP_PASSWORD,
  PASSWORD_HASHING_ALGORITHM,
  SERVICE_TOKEN_HASHING_ALGORITHM,
  TOKEN_ENABLED,
  TOKEN_TIMEOUT,
} from './security.settings.js';

export type RealmType = 'file' | 'native';

export interface RealmConfig {
  type: RealmType;
  name: string;
  order: number;
  enabled: boolean;
  /** cache.ttl in ms (default 20m) */
  cacheTtlMs: number;
  /** cache.max_users (default 100000) */
  cacheMaxUsers: number;
}

const REALM_TYPES: readonly string[] = ['file', 'native'];

function parseBool(key: string, v: unknown, dflt: boolean): boolean {
  return v === undefined ? dflt : SettingParsers.boolean(key)(v);
}

/** `xpack.security.authc.realms.<type>.<name>.*` → realm configurations, ordered; defaults when none given */
export function realmConfigs(settings: Record<string, unknown>): RealmConfig[] {
  const prefix = 'xpack.security.authc.realms.';
  const byRealm = new Map<string, Record<string, unknown>>();
  for (const [k, v] of Object.entries(settings)) {
    if (!k.startsWith(prefix)) continue;
    const parts = k.slice(prefix.length).split('.');
    if (parts.length < 3) throw new Error(`invalid realm setting [${k}]: expected xpack.security.authc.realms.<type>.<name>.<setting>`);
    const [type, name, ...rest] = parts;
    if (!REALM_TYPES.includes(type)) {
      throw new Error(`unknown realm type [${type}] for realm [${type}/${name}]; this service supports realms of type [file, native]`);
    }
    const id = `${type}.${name}`;
    const m = byRealm.get(id) ?? {};
    m[rest.join('.')] = v;
    byRealm.set(id, m);
  }
  if (byRealm.size === 0) {
    return [
      { type: 'file', name: 'default_file', order: Number.MIN_SAFE_INTEGER, enabled: true, cacheTtlMs: 20 * 60_000, cacheMaxUsers: 100_000 },
      { type: 'native', name: 'default_native', order: Number.MIN_SAFE_INTEGER + 1, enabled: true, cacheTtlMs: 20 * 60_000, cacheMaxUsers: 100_000 },
    ];
  }
  const out: RealmConfig[] = [];
  const types = new Set<string>();
  for (const [id, m] of byRealm) {
    const [type, name] = id.split('.', 2);
    const key = (s: string) => `${prefix}${id}.${s}`;
    const known = ['order', 'enabled', 'cache.ttl', 'cache.max_users', 'cache.hash_algo', 'authentication.enabled', 'files.users', 'files.users_roles'];
    for (const k of Object.keys(m)) if (!known.includes(k)) throw new Error(`unknown setting [${key(k)}]`);
    if (m['order'] === undefined) throw new Error(`Missing mandatory setting [${key('order')}]`);
    const order = SettingParsers.int(key('order'))(m['order']);
    const enabled = parseBool(key('enabled'), m['enabled'], true);
    if (enabled && types.has(type)) throw new Error(`multiple [${type}] realms are configured. [${type}] is an internal realm and therefore there can only be one such realm configured`);
    if (enabled) types.add(type);
    out.push({
      type: type as RealmType,
      name,
      order,
      enabled,
      cacheTtlMs: m['cache.ttl'] === undefined ? 20 * 60_000 : SettingParsers.time(key('cache.ttl'))(m['cache.ttl']),
      cacheMaxUsers: m['cache.max_users'] === undefined ? 100_000 : SettingParsers.int(key('cache.max_users'), 0)(m['cache.max_users']),
    });
  }
  const orders = new Map<number, string>();
  for (const r of out.filter((x) => x.enabled)) {
    const prev = orders.get(r.order);
    if (prev) throw new Error(`Found multiple realms configured with the same order [${r.order}]: [${prev}, ${r.type}.${r.name}]`);
    orders.set(r.order, `${r.type}.${r.name}`);
  }
  return out.filter((r) => r.enabled).sort((a, b) => a.order - b.order);
}

@injectable()
export class SecurityConfig {
  readonly enabled: boolean;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly realms: readonly RealmConfig[];
  readonly bootstrapPassword: string;
  readonly passwordHashing: string;
  readonly tokenEnabled: boolean;
  readonly tokenTimeoutMs: number;
  readonly apiKeyEnabled: boolean;
  readonly apiKeyHashing: string;
  readonly apiKeyCacheTtlMs: number;
  readonly serviceTokenHashing: string;
  readonly auditEnabled: boolean;
  /** the configuration directory (users, users_roles, roles.yml, service_tokens) */
  readonly configDir: string;
  readonly dataPath: string;
  readonly nodeName: string;
  /** `xpack.security.authc.anonymous.*`: requests without credentials act as this user when roles are set */
  readonly anonymous?: { username: string; roles: string[]; authzException: boolean };

  constructor(
    @inject(Tokens.HostConfig) @optional() config?: HostConfig,
    @inject(Tokens.NodeIdentity) @optional() node?: NodeIdentity,
  ) {
    const s = config?.settings ?? {};
    this.settings = s;
    const get = <T>(def: { key: string; defaultValue: T; parse(raw: unknown): T }): T => (s[def.key] === undefined ? def.defaultValue : def.parse(s[def.key]));
    const enabled = s['xpack.security.enabled'];
    this.enabled = enabled === undefined ? true : SettingParsers.boolean('xpack.security.enabled')(enabled);
    this.realms = this.enabled ? realmConfigs(s) : [];
    this.bootstrapPassword = get(BOOTSTRAP_PASSWORD);
    this.passwordHashing = get(PASSWORD_HASHING_ALGORITHM);
    this.tokenEnabled = get(TOKEN_ENABLED);
    this.tokenTimeoutMs = get(TOKEN_TIMEOUT);
    this.apiKeyEnabled = get(API_KEY_ENABLED);
    this.apiKeyHashing = get(API_KEY_HASHING_ALGORITHM);
    this.apiKeyCacheTtlMs = get(API_KEY_CACHE_TTL);
    this.serviceTokenHashing = get(SERVICE_TOKEN_HASHING_ALGORITHM);
    this.auditEnabled = this.enabled && get(AUDIT_ENABLED);
    this.dataPath = resolve(String(s['path.data'] ?? './data'));
    this.configDir = resolve(config?.configDir ?? join(process.cwd(), 'config'));
    this.nodeName = nodeIdentityOf(node, config).name;
    const anonRoles = s['xpack.security.authc.anonymous.roles'];
    const roles = anonRoles === undefined ? [] : Array.isArray(anonRoles) ? anonRoles.map(String) : String(anonRoles).split(',').map((r) => r.trim()).filter(Boolean);
    for (const k of Object.keys(s)) {
      if (k.startsWith('xpack.security.authc.anonymous.') && !['username', 'roles', 'authz_exception'].includes(k.slice('xpack.security.authc.anonymous.'.length))) {
        throw new Error(`unknown setting [${k}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
      }
    }
    if (this.enabled && roles.length > 0) {
      const authz = s['xpack.security.authc.anonymous.authz_exception'];
      this.anonymous = {
        username: String(s['xpack.security.authc.anonymous.username'] ?? '_anonymous'),
        roles,
        authzException: authz === undefined ? true : SettingParsers.boolean('xpack.security.authc.anonymous.authz_exception')(authz),
      };
    }
  }
}
