import { inject, injectable } from 'inversify';
import { Tokens, type Clock, type SearchContextInfo, type SearchContextProvider } from '@strata/core-common';
import type { AsyncSearchStore } from './async-store.js';
import { EqlTokens } from './eql-search.service.js';

/**
 * Lists the stored async EQL searches (kind `async_eql`) for `/_strata/search_contexts` and the console's
 * live view, and closes one by its id (a running search is cancelled, as `DELETE /_eql/search/<id>` does).
 */
@injectable()
export class EqlSearchContexts implements SearchContextProvider {
  readonly kinds = ['async_eql'] as const;

  constructor(
    @inject(EqlTokens.AsyncStore) private readonly store: AsyncSearchStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  list(): SearchContextInfo[] {
    const now = this.clock.now();
    return this.store
      .all()
      .filter((e) => e.expirationTime > now)
      .map((e) => {
        const info: SearchContextInfo = {
          id: e.id,
          kind: 'async_eql',
          indices: e.indices ?? [],
          openedAt: e.startTime,
          keepAliveMs: e.keepAliveMs ?? Math.max(0, e.expirationTime - e.startTime),
          expiresAt: e.expirationTime,
          running: e.running,
          details: { is_partial: e.running ? true : e.partial, ...(e.running ? {} : { completion_status: e.completionStatus ?? 200 }) },
        };
        if (e.owner) info.owner = e.owner.username;
        if (e.origin) info.origin = e.origin;
        return info;
      });
  }

  close(id: string): boolean {
    return this.store.close(id);
  }
}
