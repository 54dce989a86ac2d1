/**
 * Removes what can no longer authenticate, like Elasticsearch's ExpiredTokenRemover and the API key
 * remover: tokens past their refresh window, and API keys invalidated or expired for longer than
 * `xpack.security.authc.api_key.delete.retention_period` (7 days). Runs every 30 minutes.
 */
import { inject, injectable, optional } from 'inversify';
import { Tokens, systemClock, type Clock, type LifecycleComponent, type Logger } from '@strata/core-common';
import { API_KEY_DELETE_RETENTION } from '../security.settings.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityStore } from '../store/security-store.js';
import { TokenService } from './token-service.js';

export const REMOVER_INTERVAL_MS = 30 * 60_000;

@injectable()
export class ExpiredCredentialsRemover implements LifecycleComponent {
  readonly name = 'security-expired-credentials-remover';
  private timer?: NodeJS.Timeout;
  private readonly clock: Clock;

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(SecurityStore) private readonly store: SecurityStore,
    @inject(TokenService) private readonly tokens: TokenService,
    @inject(Tokens.Clock) @optional() clock?: Clock,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    this.clock = clock ?? systemClock;
  }

  start(): void {
    if (!this.config.enabled) return;
    this.timer = setInterval(() => void this.run().catch((err) => this.logger?.warn({ err: String(err) }, 'failed to remove expired credentials')), REMOVER_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** one pass; returns how many tokens and API keys were removed */
  async run(): Promise<{ tokens: number; apiKeys: number }> {
    const tokens = await this.tokens.removeExpired();
    const md = this.store.state();
    const raw = this.config.settings[API_KEY_DELETE_RETENTION.key];
    const retention = raw === undefined ? API_KEY_DELETE_RETENTION.defaultValue : API_KEY_DELETE_RETENTION.parse(raw);
    const cutoff = this.clock.now() - retention;
    const stale = Object.values(md.api_keys).filter(
      (k) => (k.invalidated && (k.invalidation ?? k.creation) < cutoff) || (k.expiration !== null && k.expiration < cutoff),
    );
    let apiKeys = 0;
    if (stale.length) {
      apiKeys = await this.store.update((d) => {
        let n = 0;
        for (const k of stale) if (d.api_keys[k.id]) {
          delete d.api_keys[k.id];
          n++;
        }
        return n;
      });
    }
    return { tokens, apiKeys };
  }
}
