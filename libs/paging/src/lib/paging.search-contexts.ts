import { inject, injectable, optional } from 'inversify';
import { Tokens, nodeIdentityOf, type Clock, type HostConfig, type NodeIdentity, type SearchContextInfo, type SearchContextProvider } from '@strata/core-common';
import { ContextRegistry, type ReaderContext } from './context-registry.js';
import { decodeAnyContextId, encodePitId, encodeScrollId } from './context-id.js';
import { PagingTokens } from './paging.service.js';

/**
 * Lists the open points in time and scrolls for `/_strata/search_contexts` and the console's live
 * view, and closes one by its PIT or scroll id.
 */
@injectable()
export class PagingSearchContexts implements SearchContextProvider {
  readonly kinds = ['point_in_time', 'scroll'] as const;
  private readonly node: string;

  constructor(
    @inject(PagingTokens.ContextRegistry) private readonly registry: ContextRegistry,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.HostConfig) @optional() config?: HostConfig,
    @inject(Tokens.NodeIdentity) @optional() node?: NodeIdentity,
  ) {
    this.node = nodeIdentityOf(node, config).id;
  }

  list(): SearchContextInfo[] {
    return this.registry.list(this.clock.now()).map((c) => this.info(c));
  }

  close(id: string): boolean {
    const d = decodeAnyContextId(id);
    if (!d) return false;
    const ctx = this.registry.get(d.contextId);
    if (!ctx || ctx.kind !== d.kind) return false;
    return this.registry.free(ctx.id, this.clock.now());
  }

  private info(c: ReaderContext): SearchContextInfo {
    const indices = [...new Set(c.targets.map((t) => t.index))];
    const info: SearchContextInfo = {
      id: c.kind === 'pit' ? encodePitId(c.id, this.node) : encodeScrollId(c.id, this.node),
      kind: c.kind === 'pit' ? 'point_in_time' : 'scroll',
      indices,
      openedAt: c.openedAt,
      keepAliveMs: c.keepAliveMs,
      expiresAt: c.expiresAt,
      running: c.inUse > 0,
      details: { shards: c.targets.length, ...(c.scroll ? { hits_returned: c.scroll.returned, page_size: c.scroll.size } : {}) },
    };
    if (c.owner) info.owner = c.owner;
    if (c.origin) info.origin = c.origin;
    return info;
  }
}
