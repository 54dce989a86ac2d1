/**
 * The elastic superuser's password at start-up, as Elasticsearch 8 sets it up:
 * - `bootstrap.password` (the host maps `ELASTIC_PASSWORD` to it) is the password until one is set through
 *   the API; it is kept in memory only as a salted digest;
 * - with neither, a password is generated on the first start, printed once (stderr) and stored only as a
 *   hash (`xpack.security.authc.password_hashing.algorithm`); a bootstrap password given later replaces it.
 */
import { inject, injectable, optional } from 'inversify';
import { Tokens, type LifecycleComponent, type Logger } from '@strata/core-common';
import { generatePassword, hasher } from '../crypto/hasher.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore } from '../store/security-store.js';

/** where the generated password is shown (default: stderr); tests rebind it */
export const GENERATED_PASSWORD_SINK = Symbol.for('strata.security.GeneratedPasswordSink');
export type GeneratedPasswordSink = (text: string) => void;

/** the address a new user would curl: `http.port` (first of a range; 9200 by default), https with TLS on */
export function exampleUrl(settings: Readonly<Record<string, unknown>>): string {
  const port = /^\d+/.exec(String(settings['http.port'] ?? '9200'))?.[0] ?? '9200';
  const tls = String(settings['xpack.security.http.ssl.enabled'] ?? 'false') === 'true';
  return `${tls ? 'https' : 'http'}://127.0.0.1:${port}/`;
}

export function generatedPasswordBanner(password: string, url = 'http://127.0.0.1:9200/'): string {
  const line = '━'.repeat(72);
  return [
    line,
    'Security is on: every request needs credentials (HTTP Basic, an API key or a bearer token).',
    '',
    'Password for the elastic user (shown once; change it with POST /_security/user/elastic/_password,',
    'or start with ELASTIC_PASSWORD=<password>):',
    `  ${password}`,
    '',
    `Example: curl -u elastic:<password> ${url}`,
    'To turn security off: -E xpack.security.enabled=false',
    line,
    '',
  ].join('\n');
}

@injectable()
export class ElasticPasswordBootstrap implements LifecycleComponent {
  readonly name = 'security-bootstrap';

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
    @inject(GENERATED_PASSWORD_SINK) @optional() private readonly sink?: GeneratedPasswordSink,
  ) {}

  async start(): Promise<void> {
    if (!this.config.enabled) return;
    const rec = this.store.state().reserved_users['elastic'];
    if (this.config.bootstrapPassword) {
      if (rec?.generated) this.logger?.info({}, 'the bootstrap password (bootstrap.password / ELASTIC_PASSWORD) replaces the generated password of the elastic user');
      return;
    }
    if (rec?.password_hash) return;
    const password = generatePassword();
    const hash = await hasher(this.config.passwordHashing).hash(password);
    await this.store.update((d) => {
      d.reserved_users['elastic'] = { password_hash: hash, enabled: d.reserved_users['elastic']?.enabled ?? true, generated: true };
    });
    (this.sink ?? ((t: string) => process.stderr.write(t)))(generatedPasswordBanner(password, exampleUrl(this.config.settings)));
    this.logger?.warn({}, 'generated a password for the elastic user and printed it once to stderr (it is stored only as a hash)');
  }

  stop(): void {
    /* nothing to stop */
  }
}
