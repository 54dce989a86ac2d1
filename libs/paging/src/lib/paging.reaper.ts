import { inject, injectable, optional } from 'inversify';
import { Tokens, type Clock, type HostConfig, type LifecycleComponent } from '@strata/core-common';
import { ContextRegistry } from './context-registry.js';
import { PagingTokens } from './paging.service.js';
import { KEEPALIVE_INTERVAL } from './paging.settings.js';

/** Frees expired PIT and scroll contexts on a timer (search.keep_alive_interval), not only lazily. */
@injectable()
export class ContextReaper implements LifecycleComponent {
  readonly name = 'paging-context-reaper';
  private timer?: NodeJS.Timeout;
  private readonly intervalMs: number;

  constructor(
    @inject(PagingTokens.ContextRegistry) private readonly registry: ContextRegistry,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.HostConfig) @optional() config?: HostConfig,
  ) {
    const raw = config?.settings[KEEPALIVE_INTERVAL.key];
    this.intervalMs = raw === undefined ? Math.min(KEEPALIVE_INTERVAL.defaultValue, 1000) : KEEPALIVE_INTERVAL.parse(raw);
  }

  /** frees what has expired now; returns how many */
  reap(): number {
    return this.registry.reap(this.clock.now());
  }

  start(): void {
    this.timer = setInterval(() => this.reap(), Math.max(10, this.intervalMs));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.registry.clear(this.clock.now());
  }
}
