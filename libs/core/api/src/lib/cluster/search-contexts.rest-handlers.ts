import { inject, injectable, multiInject, optional } from 'inversify';
import {
  Errors,
  ExtensionPoints,
  RestResponses,
  Tokens,
  route,
  type Clock,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  type SearchContextInfo,
  type SearchContextProvider,
} from '@strata/core-common';
import { humanize } from './human.js';

/**
 * Strata's own API over every open search context (points in time, scrolls, async searches): what
 * Elasticsearch users have long asked for. Listing needs a `cluster:monitor/*` privilege (`monitor`),
 * closing a `cluster:admin/*` one (`manage`).
 */
export const SearchContextActions = {
  LIST: 'cluster:monitor/strata/search_contexts/get',
  CLOSE: 'cluster:admin/strata/search_contexts/close',
} as const;

/** All SearchContextProviders as one: kinds must be unique across providers. */
@injectable()
export class SearchContexts {
  private readonly providers: SearchContextProvider[];

  constructor(@multiInject(ExtensionPoints.SearchContextProvider) @optional() providers: SearchContextProvider[] | undefined = []) {
    this.providers = [...(providers ?? [])];
    const seen = new Set<string>();
    for (const p of this.providers) {
      for (const k of p.kinds) {
        if (seen.has(k)) throw new Error(`search context kind [${k}] is provided twice`);
        seen.add(k);
      }
    }
  }

  kinds(): string[] {
    return this.providers.flatMap((p) => [...p.kinds]).sort();
  }

  async list(kinds?: string[]): Promise<SearchContextInfo[]> {
    const out: SearchContextInfo[] = [];
    for (const p of this.providers) {
      if (kinds && !p.kinds.some((k) => kinds.includes(k))) continue;
      for (const c of await p.list()) if (!kinds || kinds.includes(c.kind)) out.push(c);
    }
    return out.sort((a, b) => a.openedAt - b.openedAt || a.id.localeCompare(b.id));
  }

  /** closes one context by id; false when no provider holds it */
  async close(id: string): Promise<boolean> {
    for (const p of this.providers) if (await p.close(id)) return true;
    return false;
  }
}

function checkKinds(ctx: SearchContexts, kinds: string[] | undefined): void {
  if (!kinds) return;
  const known = ctx.kinds();
  for (const k of kinds) {
    if (!known.includes(k)) throw Errors.illegalArgument(`unknown search context kind [${k}], expected one of [${known.join(', ')}]`);
  }
}

export function renderContext(c: SearchContextInfo, now: number): Record<string, unknown> {
  return {
    id: c.id,
    kind: c.kind,
    indices: c.indices,
    owner: c.owner ?? null,
    opened_at: new Date(c.openedAt).toISOString(),
    opened_at_in_millis: c.openedAt,
    age_in_millis: Math.max(0, now - c.openedAt),
    keep_alive_in_millis: c.keepAliveMs,
    keep_alive_left_in_millis: Math.max(0, c.expiresAt - now),
    running: c.running ?? false,
    origin: c.origin ? { method: c.origin.method, url: c.origin.url, ...(c.origin.opaqueId ? { opaque_id: c.origin.opaqueId } : {}) } : null,
    ...(c.details ?? {}),
  };
}

/** `GET /_strata/search_contexts[?kind=point_in_time,scroll&owner=u]` */
@injectable()
export class ListSearchContextsRestHandler implements RestHandler {
  readonly name = 'strata_list_search_contexts';
  readonly routes = [route('GET', '/_strata/search_contexts', SearchContextActions.LIST)];
  readonly params = ['kind', 'owner'];

  constructor(
    @inject(SearchContexts) private readonly contexts: SearchContexts,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const kinds = req.listParam('kind');
    checkKinds(this.contexts, kinds);
    const owner = req.param('owner');
    const now = this.clock.now();
    const list = (await this.contexts.list(kinds)).filter((c) => owner === undefined || c.owner === owner);
    const body = { total: list.length, contexts: list.map((c) => renderContext(c, now)) };
    return RestResponses.ok(req.boolParam('human', false) ? humanize(body) : body);
  }
}

/**
 * `DELETE /_strata/search_contexts/{id}` (a comma list of ids) and `DELETE /_strata/search_contexts`
 * (every context, or those of `?kind=`): `{succeeded, num_freed}`, 404 when nothing was freed, like
 * clear scroll.
 */
@injectable()
export class CloseSearchContextsRestHandler implements RestHandler {
  readonly name = 'strata_close_search_contexts';
  readonly routes = [
    route('DELETE', '/_strata/search_contexts', SearchContextActions.CLOSE),
    route('DELETE', '/_strata/search_contexts/{id}', SearchContextActions.CLOSE),
  ];
  readonly params = ['kind'];

  constructor(@inject(SearchContexts) private readonly contexts: SearchContexts) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const kinds = req.listParam('kind');
    checkKinds(this.contexts, kinds);
    const idParam = req.optionalPathParam('id');
    let ids: string[];
    if (idParam === undefined || idParam === '_all') ids = (await this.contexts.list(kinds)).map((c) => c.id);
    else ids = idParam.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
    let freed = 0;
    for (const id of ids) if (await this.contexts.close(id)) freed++;
    return RestResponses.json(freed === 0 ? 404 : 200, { succeeded: true, num_freed: freed });
  }
}
