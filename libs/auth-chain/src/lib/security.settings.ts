/**
 * Node settings of the security feature, under Elasticsearch's names. `xpack.security.enabled` itself is
 * registered by the core (default true, as in Elasticsearch 8) so a host without this feature accepts it.
 */
import { Errors, SettingParsers, formatTimeValue, parseTimeValue, setting, type SettingDef } from '@strata/core-common';

const bool = (key: string) => SettingParsers.boolean(key);

/** a time value bounded like Setting.timeSetting(key, default, min, max) */
function boundedTime(key: string, minMs: number, maxMs: number) {
  return (raw: unknown): number => {
    const ms = parseTimeValue(raw, key);
    if (ms < minMs) throw Errors.illegalArgument(`failed to parse value [${String(raw)}] for setting [${key}], must be >= [${formatTimeValue(minMs)}]`);
    if (ms > maxMs) throw Errors.illegalArgument(`failed to parse value [${String(raw)}] for setting [${key}], must be <= [${formatTimeValue(maxMs)}]`);
    return ms;
  };
}

/** bcrypt, bcrypt4..bcrypt14, pbkdf2, pbkdf2_<iterations>, pbkdf2_stretch, pbkdf2_stretch_<iterations> (Hasher names) */
export function parseHashAlgorithm() {
  return (raw: unknown): string => {
    const v = String(raw).toLowerCase();
    if (/^bcrypt([4-9]|1[0-4])?$/.test(v) || /^pbkdf2(_stretch)?(_(1000|10000|50000|100000|500000|1000000))?$/.test(v)) return v;
    throw Errors.illegalArgument(
      `Invalid algorithm: ${String(raw)}. Valid values for password hashing are [bcrypt, bcrypt4, bcrypt5, bcrypt6, bcrypt7, bcrypt8, bcrypt9, bcrypt10, bcrypt11, bcrypt12, bcrypt13, bcrypt14, pbkdf2, pbkdf2_1000, pbkdf2_10000, pbkdf2_50000, pbkdf2_100000, pbkdf2_500000, pbkdf2_1000000, pbkdf2_stretch, pbkdf2_stretch_1000, pbkdf2_stretch_10000, pbkdf2_stretch_50000, pbkdf2_stretch_100000, pbkdf2_stretch_500000, pbkdf2_stretch_1000000]`,
    );
  };
}

export const BOOTSTRAP_PASSWORD = setting({
  key: 'bootstrap.password',
  scope: 'node',
  dynamic: false,
  defaultValue: '',
  secure: true,
  parse: SettingParsers.string(),
});

export const PASSWORD_HASHING_ALGORITHM = setting({
  key: 'xpack.security.authc.password_hashing.algorithm',
  scope: 'node',
  dynamic: false,
  defaultValue: 'bcrypt',
  parse: parseHashAlgorithm(),
});

export const TOKEN_ENABLED = setting({
  key: 'xpack.security.authc.token.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: true,
  parse: bool('xpack.security.authc.token.enabled'),
});

export const TOKEN_TIMEOUT = setting({
  key: 'xpack.security.authc.token.timeout',
  scope: 'node',
  dynamic: false,
  defaultValue: 20 * 60_000,
  defaultRaw: '20m',
  parse: boundedTime('xpack.security.authc.token.timeout', 1_000, 3_600_000),
});

export const API_KEY_ENABLED = setting({
  key: 'xpack.security.authc.api_key.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: true,
  parse: bool('xpack.security.authc.api_key.enabled'),
});

export const API_KEY_HASHING_ALGORITHM = setting({
  key: 'xpack.security.authc.api_key.hashing.algorithm',
  scope: 'node',
  dynamic: false,
  defaultValue: 'pbkdf2',
  parse: parseHashAlgorithm(),
});

export const API_KEY_CACHE_TTL = setting({
  key: 'xpack.security.authc.api_key.cache.ttl',
  scope: 'node',
  dynamic: false,
  defaultValue: 24 * 3_600_000,
  defaultRaw: '1d',
  parse: SettingParsers.time('xpack.security.authc.api_key.cache.ttl'),
});

export const API_KEY_DELETE_RETENTION = setting({
  key: 'xpack.security.authc.api_key.delete.retention_period',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 7 * 24 * 3_600_000,
  defaultRaw: '7d',
  parse: SettingParsers.time('xpack.security.authc.api_key.delete.retention_period'),
});

export const SERVICE_TOKEN_HASHING_ALGORITHM = setting({
  key: 'xpack.security.authc.service_token_hashing.algorithm',
  scope: 'node',
  dynamic: false,
  defaultValue: 'pbkdf2_stretch',
  parse: parseHashAlgorithm(),
});

/** `xpack.security.authc.realms.<type>.<name>.<setting>` (order, enabled, cache.ttl, cache.max_users, files.users, ...) */
export const REALMS = setting({
  key: 'xpack.security.authc.realms',
  scope: 'node',
  dynamic: false,
  defaultValue: {},
  prefix: true,
  parse: SettingParsers.any(),
});

export const ANONYMOUS = setting({
  key: 'xpack.security.authc.anonymous',
  scope: 'node',
  dynamic: false,
  defaultValue: {},
  prefix: true,
  parse: SettingParsers.any(),
});

export const HTTP_SSL = setting({
  key: 'xpack.security.http.ssl',
  scope: 'node',
  dynamic: false,
  defaultValue: {},
  prefix: true,
  parse: SettingParsers.any(),
});

/** accepted for compatibility with Elasticsearch configurations (one node: there is no transport layer) */
export const TRANSPORT_SSL = setting({
  key: 'xpack.security.transport.ssl',
  scope: 'node',
  dynamic: false,
  defaultValue: {},
  prefix: true,
  parse: SettingParsers.any(),
});

export const ENROLLMENT_ENABLED = setting({
  key: 'xpack.security.enrollment.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: false,
  parse: bool('xpack.security.enrollment.enabled'),
});

export const AUDIT_ENABLED = setting({
  key: 'xpack.security.audit.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: false,
  parse: bool('xpack.security.audit.enabled'),
});

/** `xpack.security.audit.logfile.events.include|exclude`, `...emit_request_body` */
export const AUDIT_LOGFILE = setting({
  key: 'xpack.security.audit.logfile',
  scope: 'node',
  dynamic: false,
  defaultValue: {},
  prefix: true,
  parse: SettingParsers.any(),
});

export const securitySettings: readonly SettingDef[] = [
  BOOTSTRAP_PASSWORD,
  PASSWORD_HASHING_ALGORITHM,
  TOKEN_ENABLED,
  TOKEN_TIMEOUT,
  API_KEY_ENABLED,
  API_KEY_HASHING_ALGORITHM,
  API_KEY_CACHE_TTL,
  API_KEY_DELETE_RETENTION,
  SERVICE_TOKEN_HASHING_ALGORITHM,
  REALMS,
  ANONYMOUS,
  HTTP_SSL,
  TRANSPORT_SSL,
  ENROLLMENT_ENABLED,
  AUDIT_ENABLED,
  AUDIT_LOGFILE,
];
