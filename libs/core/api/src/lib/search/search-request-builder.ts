/** Builds engine SearchRequests from REST requests (RestSearchAction.parseSearchRequest). */
import { Errors, indicesOptionsOf, type RestRequest } from '@strata/core-common';
import {
  applyUrlParams,
  parseSortParam,
  parseTrackTotalHits,
  parseSourceFilter,
  type SearchRequest,
  type SearchService,
  type SearchUrlParams,
} from '@strata/core-engine';

export const SEARCH_PARAMS = [
  'q',
  'df',
  'default_operator',
  'analyzer',
  'analyze_wildcard',
  'lenient',
  'from',
  'size',
  'sort',
  '_source',
  '_source_includes',
  '_source_include',
  '_source_excludes',
  '_source_exclude',
  'stored_fields',
  'docvalue_fields',
  'track_total_hits',
  'track_scores',
  'timeout',
  'terminate_after',
  'search_type',
  'preference',
  'routing',
  'request_cache',
  'allow_no_indices',
  'ignore_unavailable',
  'ignore_throttled',
  'expand_wildcards',
  'allow_partial_search_results',
  'batched_reduce_size',
  'pre_filter_shard_size',
  'ccs_minimize_roundtrips',
  'typed_keys',
  'rest_total_hits_as_int',
  'scroll',
  'seq_no_primary_term',
  'version',
  'explain',
  'max_concurrent_shard_requests',
  'stats',
  'suggest_field',
  'suggest_mode',
  'suggest_size',
  'suggest_text',
  'include_named_queries_score',
  'force_synthetic_source',
];

function intParam(req: RestRequest, name: string): number | undefined {
  const v = req.param(name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw Errors.illegalArgument(`Failed to parse int parameter [${name}] with value [${v}]`);
  return Number(v);
}

function sourceParam(req: RestRequest): SearchUrlParams['source'] {
  const v = req.param('_source');
  if (v === undefined) return undefined;
  if (v === 'true' || v === '') return parseSourceFilter(true);
  if (v === 'false') return parseSourceFilter(false);
  return parseSourceFilter(v.split(','));
}

export function searchTypeParam(v: string | undefined): SearchRequest['searchType'] {
  if (v === undefined || v === 'query_then_fetch') return 'query_then_fetch';
  if (v === 'dfs_query_then_fetch') return 'dfs_query_then_fetch';
  throw Errors.illegalArgument(`No search type for [${v}]`);
}

export function indicesOf(req: RestRequest): string[] | undefined {
  const idx = req.optionalPathParam('index');
  return idx === undefined ? undefined : idx.split(',').filter((s) => s.length > 0);
}

/** the SearchRequest of `GET|POST [/{index}]/_search` */
export function buildSearchRequest(req: RestRequest, service: SearchService, body: unknown, indices = indicesOf(req)): SearchRequest {
  const source = service.parseSource(body);
  const p: SearchUrlParams = {};
  if (req.param('q') !== undefined) p.q = req.param('q');
  if (req.param('df') !== undefined) p.df = req.param('df');
  if (req.param('default_operator') !== undefined) p.defaultOperator = req.param('default_operator');
  if (req.param('analyzer') !== undefined) p.analyzer = req.param('analyzer');
  if (req.hasParam('analyze_wildcard')) p.analyzeWildcard = req.boolParam('analyze_wildcard', false);
  if (req.hasParam('lenient')) p.lenient = req.boolParam('lenient', false);
  p.from = intParam(req, 'from');
  p.size = intParam(req, 'size');
  const sort = req.param('sort');
  if (sort !== undefined) p.sort = parseSortParam(sort);
  p.source = sourceParam(req);
  p.sourceIncludes = req.listParam('_source_includes') ?? req.listParam('_source_include');
  p.sourceExcludes = req.listParam('_source_excludes') ?? req.listParam('_source_exclude');
  p.storedFields = req.listParam('stored_fields');
  p.docvalueFields = req.listParam('docvalue_fields');
  const tth = req.param('track_total_hits');
  if (tth !== undefined) p.trackTotalHits = parseTrackTotalHits(tth === '' ? true : tth);
  if (req.hasParam('track_scores')) p.trackScores = req.boolParam('track_scores', false);
  p.terminateAfter = intParam(req, 'terminate_after');
  if (req.hasParam('version')) p.version = req.boolParam('version', false);
  if (req.hasParam('seq_no_primary_term')) p.seqNoPrimaryTerm = req.boolParam('seq_no_primary_term', false);
  if (req.hasParam('explain')) p.explain = req.boolParam('explain', false);
  if (req.hasParam('timeout')) p.timeoutMs = req.timeParam('timeout');
  const restTotalHitsAsInt = req.boolParam('rest_total_hits_as_int', false);
  p.restTotalHitsAsInt = restTotalHitsAsInt;
  for (const k of Object.keys(p) as Array<keyof SearchUrlParams>) if (p[k] === undefined) delete p[k];
  applyUrlParams(source, p);
  if (restTotalHitsAsInt && source.trackTotalHitsUpTo !== 2147483647 && source.trackTotalHitsUpTo !== -1 && tth !== undefined) {
    throw Errors.illegalArgument(`[rest_total_hits_as_int] cannot be used if the tracking of total hits is not accurate, got ${source.trackTotalHitsUpTo}`);
  }
  const request: SearchRequest = {
    indicesOptions: indicesOptionsOf(req),
    source,
    searchType: searchTypeParam(req.param('search_type')),
    typedKeys: req.boolParam('typed_keys', false),
    restTotalHitsAsInt,
    allowPartialSearchResults: req.boolParam('allow_partial_search_results', true),
    attributes: {},
  };
  if (req.principal) request.principal = req.principal;
  if (indices !== undefined) request.indices = indices;
  if (req.hasBody()) request.rawBody = req.rawBody();
  if (req.hasParam('request_cache')) request.requestCache = req.boolParam('request_cache', true);
  const scroll = req.param('scroll');
  if (scroll !== undefined) request.scroll = scroll;
  const routing = req.listParam('routing');
  if (routing) request.routing = routing;
  const pref = req.param('preference');
  if (pref !== undefined) request.preference = pref;
  if (req.hasParam('ccs_minimize_roundtrips')) request.ccsMinimizeRoundtrips = req.boolParam('ccs_minimize_roundtrips', true);
  return request;
}
