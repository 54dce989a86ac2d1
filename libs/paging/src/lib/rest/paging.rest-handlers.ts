import { inject, injectable } from 'inversify';
import { Errors, RestResponses, indicesOptionsOf, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { EngineTokens, type SearchService } from '@strata/core-engine';
import { PagingService } from '../paging.service.js';

export const PagingActions = {
  OPEN_PIT: 'indices:data/read/open_point_in_time',
  CLOSE_PIT: 'indices:data/read/close_point_in_time',
  SCROLL: 'indices:data/read/scroll',
  CLEAR_SCROLL: 'indices:data/read/scroll/clear',
} as const;

/** ES ClearScrollResponse: 404 when nothing was freed */
function freed(n: number): RestResponse {
  return RestResponses.json(n === 0 ? 404 : 200, { succeeded: true, num_freed: n });
}

/** ES ClosePointInTimeResponse: 404 only when it did not succeed and freed nothing */
function pitClosed(r: { succeeded: boolean; numFreed: number }): RestResponse {
  return RestResponses.json(r.succeeded || r.numFreed > 0 ? 200 : 404, { succeeded: r.succeeded, num_freed: r.numFreed });
}

/** string, array of strings or comma list → ids */
function idList(v: unknown, field: string): string[] {
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return (v as string[]).flatMap((s) => idList(s, field));
  throw Errors.illegalArgument(`[${field}] must be a string or an array of strings`);
}

@injectable()
export class OpenPitRestHandler implements RestHandler {
  readonly name = 'open_point_in_time';
  readonly routes = [route('POST', '/{index}/_pit', PagingActions.OPEN_PIT)];
  readonly params = ['keep_alive', 'ignore_unavailable', 'expand_wildcards', 'allow_no_indices', 'preference', 'routing', 'allow_partial_search_results', 'max_concurrent_shard_requests'];

  constructor(
    @inject(PagingService) private readonly paging: PagingService,
    @inject(EngineTokens.SearchService) private readonly search: SearchService,
  ) {}

  handle(req: RestRequest): RestResponse {
    const indices = req.pathParam('index').split(',').filter((s) => s.length > 0);
    const routing = req.listParam('routing');
    const body = this.paging.openPit(this.search, indices, indicesOptionsOf(req), req.param('keep_alive'), routing, req.principal);
    return RestResponses.ok(body);
  }
}

@injectable()
export class ClosePitRestHandler implements RestHandler {
  readonly name = 'close_point_in_time';
  readonly routes = [route('DELETE', '/_pit', PagingActions.CLOSE_PIT)];

  constructor(@inject(PagingService) private readonly paging: PagingService) {}

  handle(req: RestRequest): RestResponse {
    const body = req.objectBody(true)!;
    for (const k of Object.keys(body)) {
      if (k !== 'id') throw Errors.parsing(`[close_point_in_time] unknown field [${k}]`);
    }
    if (typeof body['id'] !== 'string' || body['id'].length === 0) {
      throw Errors.actionRequestValidation(['point in time id must be specified']);
    }
    return pitClosed(this.paging.closePit([body['id']], req.principal));
  }
}

@injectable()
export class ScrollRestHandler implements RestHandler {
  readonly name = 'search_scroll';
  readonly routes = [
    route('GET', '/_search/scroll', PagingActions.SCROLL),
    route('POST', '/_search/scroll', PagingActions.SCROLL),
    route('GET', '/_search/scroll/{scroll_id}', PagingActions.SCROLL),
    route('POST', '/_search/scroll/{scroll_id}', PagingActions.SCROLL),
  ];
  readonly params = ['scroll', 'scroll_id', 'rest_total_hits_as_int'];

  constructor(
    @inject(PagingService) private readonly paging: PagingService,
    @inject(EngineTokens.SearchService) private readonly search: SearchService,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    let scrollId = req.optionalPathParam('scroll_id') ?? req.param('scroll_id');
    let scroll = req.param('scroll');
    if (req.hasBody()) {
      const body = req.objectBody(false);
      if (body) {
        for (const [k, v] of Object.entries(body)) {
          if (k === 'scroll_id') {
            if (typeof v !== 'string') throw Errors.illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[${typeof v}] `);
            scrollId = v;
          } else if (k === 'scroll') {
            if (typeof v !== 'string' && typeof v !== 'number') {
              throw Errors.illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[${typeof v}] `);
            }
            scroll = String(v);
          } else {
            throw Errors.illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[VALUE_STRING] `);
          }
        }
      }
    }
    if (!scrollId) throw Errors.actionRequestValidation(['scrollId is missing']);
    const body = await this.paging.continueScroll(this.search, scrollId, scroll, req.boolParam('rest_total_hits_as_int', false), req.principal);
    return RestResponses.ok(body);
  }
}

@injectable()
export class ClearScrollRestHandler implements RestHandler {
  readonly name = 'clear_scroll';
  readonly routes = [
    route('DELETE', '/_search/scroll', PagingActions.CLEAR_SCROLL),
    route('DELETE', '/_search/scroll/{scroll_id}', PagingActions.CLEAR_SCROLL),
  ];
  readonly params = ['scroll_id'];

  constructor(@inject(PagingService) private readonly paging: PagingService) {}

  handle(req: RestRequest): RestResponse {
    const ids: string[] = [];
    const fromPath = req.optionalPathParam('scroll_id') ?? req.param('scroll_id');
    if (fromPath !== undefined) ids.push(...idList(fromPath, 'scroll_id'));
    if (req.hasBody()) {
      const body = req.objectBody(false);
      if (body) {
        for (const [k, v] of Object.entries(body)) {
          if (k !== 'scroll_id') throw Errors.illegalArgument(`Unknown parameter [${k}] in request body or parameter is of the wrong type[VALUE_STRING] `);
          ids.push(...idList(v, 'scroll_id'));
        }
      }
    }
    if (ids.length === 0) throw Errors.actionRequestValidation(['no scroll ids specified']);
    return freed(this.paging.clearScroll(ids, req.principal));
  }
}
