/**
 * EQL REST endpoints: search, get / status / delete of stored (async) searches.
 */
import { inject, injectable } from 'inversify';
import { Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { parseEqlRequest } from '../service/eql-request.js';
import { EqlSearchService } from '../service/eql-search.service.js';

export const EqlActions = {
  SEARCH: 'indices:data/read/eql',
  GET: 'indices:data/read/eql/async/get',
  STATUS: 'cluster:monitor/xpack/eql/async/status',
  DELETE: 'cluster:admin/xpack/async_search/delete',
} as const;

@injectable()
export class EqlSearchRestHandler implements RestHandler {
  readonly name = 'eql_search';
  readonly routes = [route('GET', '/{index}/_eql/search', EqlActions.SEARCH), route('POST', '/{index}/_eql/search', EqlActions.SEARCH)];
  readonly params = [
    'wait_for_completion_timeout',
    'keep_on_completion',
    'keep_alive',
    'allow_partial_search_results',
    'allow_partial_sequence_results',
    'ccs_minimize_roundtrips',
    'ignore_unavailable',
    'allow_no_indices',
    'expand_wildcards',
  ];

  constructor(@inject(EqlSearchService) private readonly eql: EqlSearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const request = parseEqlRequest(req);
    const out = await this.eql.submit(request, req.principal);
    return RestResponses.json(out.status, out.body);
  }
}

@injectable()
export class EqlGetRestHandler implements RestHandler {
  readonly name = 'eql_get_async';
  readonly routes = [route('GET', '/_eql/search/{id}', EqlActions.GET)];
  readonly params = ['wait_for_completion_timeout', 'keep_alive'];

  constructor(@inject(EqlSearchService) private readonly eql: EqlSearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const wait = req.timeParam('wait_for_completion_timeout');
    const keepAlive = req.timeParam('keep_alive');
    if (keepAlive !== undefined && keepAlive < 60_000) {
      throw Errors.actionRequestValidation([`keep_alive must be greater than 1 minute, got: ${req.param('keep_alive')}`]);
    }
    const out = await this.eql.get(req.pathParam('id'), req.principal, wait, keepAlive);
    return RestResponses.json(out.status, out.body);
  }
}

@injectable()
export class EqlStatusRestHandler implements RestHandler {
  readonly name = 'eql_get_async_status';
  readonly routes = [route('GET', '/_eql/search/status/{id}', EqlActions.STATUS)];

  constructor(@inject(EqlSearchService) private readonly eql: EqlSearchService) {}

  handle(req: RestRequest): RestResponse {
    return RestResponses.ok(this.eql.status(req.pathParam('id'), req.principal));
  }
}

@injectable()
export class EqlDeleteRestHandler implements RestHandler {
  readonly name = 'eql_delete_async';
  readonly routes = [route('DELETE', '/_eql/search/{id}', EqlActions.DELETE)];

  constructor(@inject(EqlSearchService) private readonly eql: EqlSearchService) {}

  handle(req: RestRequest): RestResponse {
    this.eql.delete(req.pathParam('id'), req.principal);
    return RestResponses.acknowledged();
  }
}
