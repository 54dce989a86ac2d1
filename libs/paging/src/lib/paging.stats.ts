import { inject, injectable } from 'inversify';
import { Tokens, type Clock, type NodeStatsContributor } from '@strata/core-common';
import { ContextRegistry } from './context-registry.js';
import { PagingTokens } from './paging.service.js';

/** `indices.search` of GET /_nodes/stats: open contexts and scroll counters. */
@injectable()
export class PagingNodeStats implements NodeStatsContributor {
  readonly section = 'indices.search';

  constructor(
    @inject(PagingTokens.ContextRegistry) private readonly registry: ContextRegistry,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  stats(): Record<string, unknown> {
    const s = this.registry.stats(this.clock.now());
    return {
      open_contexts: s.openContexts,
      scroll_total: s.scrollTotal,
      scroll_time_in_millis: s.scrollTimeMs,
      scroll_current: s.scrollCurrent,
    };
  }
}
