/**
 * HTTPS for the REST layer, configured as Elasticsearch configures it (`xpack.security.http.ssl.*`):
 * `enabled`, PEM `key` (+ `key_passphrase`), `certificate`, `certificate_authorities`, or a PKCS#12
 * `keystore.path` (+ `keystore.password`); `client_authentication` none|optional|required;
 * `supported_protocols`. Relative paths resolve against the configuration directory. Contributed to the
 * core as Tokens.HttpsServerOptions; the host then serves HTTPS only.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { HttpsServerOptions } from '@strata/core-common';
import type { SecurityConfig } from '../security-config.js';

const PREFIX = 'xpack.security.http.ssl.';
const KNOWN = new Set([
  'enabled',
  'key',
  'key_passphrase',
  'secure_key_passphrase',
  'certificate',
  'certificate_authorities',
  'keystore.path',
  'keystore.password',
  'keystore.secure_password',
  'keystore.type',
  'truststore.path',
  'truststore.password',
  'truststore.secure_password',
  'truststore.type',
  'client_authentication',
  'verification_mode',
  'supported_protocols',
  'cipher_suites',
]);

type TlsVersion = NonNullable<HttpsServerOptions['minVersion']>;
const ORDER: TlsVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];

function list(v: unknown): string[] {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return v.map(String);
  return String(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function sslError(reason: string): Error {
  return new Error(`invalid SSL configuration for xpack.security.http.ssl - ${reason}`);
}

/** the HTTPS options of `xpack.security.http.ssl.*`, or undefined when TLS is off; throws on a bad configuration */
export function httpsOptions(config: SecurityConfig): HttpsServerOptions | undefined {
  const s: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config.settings)) {
    if (!k.startsWith(PREFIX)) continue;
    const name = k.slice(PREFIX.length);
    if (!KNOWN.has(name)) throw new Error(`unknown setting [${k}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`);
    s[name] = v;
  }
  const enabled = s['enabled'] === true || s['enabled'] === 'true';
  if (s['enabled'] !== undefined && !enabled && s['enabled'] !== false && s['enabled'] !== 'false') {
    throw new Error(`Failed to parse value [${String(s['enabled'])}] as only [true] or [false] are allowed for setting [${PREFIX}enabled].`);
  }
  if (!enabled) return undefined;
  if (!config.enabled) throw sslError('[xpack.security.http.ssl.enabled] is not allowed when [xpack.security.enabled] is [false]');
  const path = (p: unknown) => (isAbsolute(String(p)) ? String(p) : join(config.configDir, String(p)));
  const read = (p: unknown, what: string): Buffer => {
    const file = path(p);
    try {
      return readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(
        `failed to load SSL configuration [xpack.security.http.ssl] - cannot read configured ${what} [${file}] because ${code === 'ENOENT' ? 'the file does not exist' : `access failed: ${code}`}`,
        { cause: e },
      );
    }
  };
  const opts: HttpsServerOptions = {};
  if (s['keystore.path'] !== undefined) {
    opts.pfx = read(s['keystore.path'], '[PKCS12] keystore');
    const pw = s['keystore.secure_password'] ?? s['keystore.password'];
    if (pw !== undefined) opts.passphrase = String(pw);
  } else {
    if (s['key'] === undefined || s['certificate'] === undefined) {
      throw sslError(
        'server ssl configuration requires a key and certificate, but these have not been configured; you must set either [xpack.security.http.ssl.keystore.path], or both [xpack.security.http.ssl.key] and [xpack.security.http.ssl.certificate]',
      );
    }
    opts.key = read(s['key'], 'PEM private key');
    opts.cert = read(s['certificate'], 'PEM certificate');
    const pw = s['secure_key_passphrase'] ?? s['key_passphrase'];
    if (pw !== undefined) opts.passphrase = String(pw);
  }
  const cas = list(s['certificate_authorities']).map((p) => read(p, 'PEM certificate authorities'));
  if (s['truststore.path'] !== undefined) throw sslError('[xpack.security.http.ssl.truststore.path] is not supported; use [xpack.security.http.ssl.certificate_authorities] (PEM)');
  if (cas.length) opts.ca = cas;
  const clientAuth = String(s['client_authentication'] ?? 'none').toLowerCase();
  if (!['none', 'optional', 'required'].includes(clientAuth)) {
    throw new Error(`unknown client auth mode [${clientAuth}]; supported values are [none, optional, required]`);
  }
  if (clientAuth !== 'none') {
    opts.requestCert = true;
    // `required` refuses a connection without a certificate the configured authorities signed
    opts.rejectUnauthorized = clientAuth === 'required';
  }
  const protocols = list(s['supported_protocols']);
  if (protocols.length) {
    const idx = protocols
      .map((p) => {
        const i = ORDER.indexOf(p as TlsVersion);
        if (i < 0) throw new Error(`unsupported protocol [${p}] in [xpack.security.http.ssl.supported_protocols]; supported: [TLSv1.3, TLSv1.2, TLSv1.1, TLSv1]`);
        return i;
      })
      .sort((a, b) => a - b);
    opts.minVersion = ORDER[idx[0]];
    opts.maxVersion = ORDER[idx[idx.length - 1]];
  }
  return opts;
}
