/**
 * POST /_cache/clear and POST /{index}/_cache/clear (action indices:admin/cache/clear).
 * Only the request cache lives here; `query`, `fielddata` and `fields` are accepted for compatibility
 * (there is no query or fielddata cache to clear). As in Elasticsearch, the request cache is cleared when
 * `request=true`, or when no specific cache (query, fielddata, request, fields) was asked for.
 * Response: `{"_shards":{"total":N,"successful":M,"failed":0}}` with N counting replica copies.
 */
import { inject, injectable, optional } from 'inversify';
import { Errors, route, wildcardRegExp, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import {
  EngineTokens,
  type IndexMetadata,
  type IndexNameExpressionResolver,
  type IndicesOptions,
  type MetadataStore,
} from '@strata/core-engine';
import { RequestCacheService } from '../request-cache.service.js';

export const CLEAR_CACHE_ACTION = 'indices:admin/cache/clear';

/** Parses ignore_unavailable / allow_no_indices / expand_wildcards with the given defaults. */
export function indicesOptionsFrom(req: RestRequest, defaults: IndicesOptions): IndicesOptions {
  const ew = req.param('expand_wildcards');
  let expandWildcards = { ...defaults.expandWildcards };
  if (ew !== undefined) {
    expandWildcards = { open: false, closed: false, hidden: false };
    for (const raw of ew.split(',')) {
      const w = raw.trim();
      if (w === 'open') expandWildcards.open = true;
      else if (w === 'closed') expandWildcards.closed = true;
      else if (w === 'hidden') expandWildcards.hidden = true;
      else if (w === 'all') expandWildcards = { open: true, closed: true, hidden: true };
      else if (w === 'none') {
        // no expansion
      } else {
        throw Errors.illegalArgument(`No enum constant org.elasticsearch.action.support.IndicesOptions.WildcardStates.${w.toUpperCase()}`);
      }
    }
  }
  return {
    ignoreUnavailable: req.boolParam('ignore_unavailable', defaults.ignoreUnavailable),
    allowNoIndices: req.boolParam('allow_no_indices', defaults.allowNoIndices),
    expandWildcards,
  };
}

/** strictExpandOpenAndForbidClosed, the default of ClearIndicesCacheRequest */
const CLEAR_CACHE_DEFAULTS: IndicesOptions = {
  ignoreUnavailable: false,
  allowNoIndices: true,
  expandWildcards: { open: true, closed: false, hidden: false },
};

/** A minimal resolver used only when the engine's IndexNameExpressionResolver is not bound. */
export function fallbackResolve(expression: string | undefined, indices: Record<string, IndexMetadata>, options: IndicesOptions): string[] {
  const all = Object.keys(indices).sort();
  const visible = (n: string) => {
    const m = indices[n];
    const hidden = m.settings['index.hidden'] === true || m.settings['index.hidden'] === 'true';
    const stateOk = m.state === 'close' ? options.expandWildcards.closed : options.expandWildcards.open;
    return stateOk && (!hidden || options.expandWildcards.hidden);
  };
  if (expression === undefined || expression === '' || expression === '_all' || expression === '*') {
    return all.filter(visible);
  }
  const out = new Set<string>();
  for (const part of expression.split(',')) {
    const p = part.trim();
    if (p === '') continue;
    if (p.startsWith('-')) {
      const re = wildcardRegExp(p.slice(1));
      for (const n of [...out]) if (re.test(n)) out.delete(n);
      continue;
    }
    if (p.includes('*')) {
      const re = wildcardRegExp(p);
      const matched = all.filter((n) => re.test(n) && visible(n));
      if (matched.length === 0 && !options.allowNoIndices) throw Errors.indexNotFound(p);
      matched.forEach((n) => out.add(n));
      continue;
    }
    if (indices[p]) out.add(p);
    else if (!options.ignoreUnavailable) throw Errors.indexNotFound(p);
  }
  if (out.size === 0 && !options.allowNoIndices) throw Errors.indexNotFound(expression);
  return [...out];
}

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
    @inject(EngineTokens.MetadataStore) @optional() private readonly metadata?: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) @optional() private readonly resolver?: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const options = indicesOptionsFrom(req, CLEAR_CACHE_DEFAULTS);
    const expression = req.optionalPathParam('index') ?? req.param('index');
    const indices = this.metadata?.current().indices ?? {};
    const names = this.resolver
      ? this.resolver.concreteIndices(expression === undefined ? undefined : expression.split(','), options, 'read')
      : fallbackResolve(expression, indices, options);

    const request = req.boolParam('request', false);
    const query = req.boolParam('query', false);
    const fielddata = req.boolParam('fielddata', false);
    const fields = req.listParam('fields', [])!.filter((f) => f !== '');
    const clearRequest = request || (!query && !fielddata && fields.length === 0);

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
