/**
 * POST /_cache/clear and POST /{index}/_cache/clear (action indices:admin/cache/clear).
 * Clears the request cache and the node's filter (query) cache; `fielddata` and `fields` are accepted for
 * compatibility (there is no fielddata cache to clear). As in Elasticsearch, the request cache is cleared when
 * `request=true`, the query cache when `query=true`, and both when no specific cache (query, fielddata, request,
 * fields) was asked for. The filter cache is kept per segment core, not per index: clearing it for any index
 * clears it whole (it only costs the next searches a rebuild).
 * Response: `{"_shards":{"total":N,"successful":M,"failed":0}}` with N counting replica copies.
 */
import { inject, injectable } from 'inversify';
import { DEFAULT_INDICES_OPTIONS, indicesOptionsOf, route, type IndicesOptions, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { EngineTokens, NODE_FILTER_CACHE, type IndexNameExpressionResolver, type MetadataStore } from '@strata/core-engine';
import { RequestCacheService } from '../request-cache.service.js';

export const CLEAR_CACHE_ACTION = 'indices:admin/cache/clear';

/** strictExpandOpenAndForbidClosed, the default of ClearIndicesCacheRequest */
const CLEAR_CACHE_DEFAULTS: IndicesOptions = DEFAULT_INDICES_OPTIONS;

@injectable()
export class ClearCacheRestHandler implements RestHandler {
  readonly name = 'indices_clear_cache';
  readonly routes = [route('POST', '/_cache/clear', CLEAR_CACHE_ACTION), route('POST', '/{index}/_cache/clear', CLEAR_CACHE_ACTION)];
  readonly params = [
    'index',
    'request',
    'query',
    'fielddata',
    'fields',
    'file',
    'ignore_unavailable',
    'allow_no_indices',
    'expand_wildcards',
  ];

  constructor(
    @inject(RequestCacheService) private readonly service: RequestCacheService,
    @inject(EngineTokens.MetadataStore) private readonly metadata: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const options = indicesOptionsOf(req, CLEAR_CACHE_DEFAULTS);
    const expression = req.optionalPathParam('index') ?? req.param('index');
    const indices = this.metadata.current().indices;
    const names = this.resolver.concreteIndices(expression === undefined ? undefined : expression.split(','), options, 'read');

    const request = req.boolParam('request', false);
    const query = req.boolParam('query', false);
    const fielddata = req.boolParam('fielddata', false);
    const fields = req.listParam('fields', [])!.filter((f) => f !== '');
    const clearAll = !request && !query && !fielddata && fields.length === 0;
    const clearRequest = request || clearAll;
    if ((query || clearAll) && names.length > 0) NODE_FILTER_CACHE.clear();

    let total = 0;
    let successful = 0;
    for (const name of names) {
      if (clearRequest) this.service.clearIndex(name);
      const m = indices[name];
      const shards = m?.numberOfShards ?? 1;
      const replicas = m?.numberOfReplicas ?? 0;
      total += shards * (1 + replicas);
      successful += shards;
    }
    return { status: 200, body: { _shards: { total, successful, failed: 0 } } };
  }
}
