/**
 * Extension points around search (tokens in @strata/core-common ExtensionPoints) and the plain,
 * structured-clone-safe shard-level messages they see.
 *
 * - ShardSearchInterceptor (ordered, lowest first = outermost) wraps the shard query phase: the request
 *   cache keys on `ShardSearchContext.reader.cacheKey` + `ShardSearchRequest.rawBody` and may answer
 *   without calling next().
 * - CoordinatorSearchInterceptor (ordered) wraps the whole coordinated search (fan-out, merge, fetch):
 *   paging supplies held readers (`SearchOptions.readers`), retains the ones used (`retainReaders`), and
 *   post-processes the response (`_scroll_id`, `pit_id`).
 * - SearchSourceExtension parses a top-level search body key the core does not know (`pit`).
 *
 * Recipe for scroll / PIT (paging lib):
 * - declare `handles: ['scroll']` (otherwise `?scroll=` is rejected as an unrecognized parameter);
 * - first page: call next() with `retainReaders` to incRef the readers used; remember `response.targets`
 *   (their order defines `_shard_doc`'s shard index) and the request;
 * - PIT: `SearchService.resolveTargets(request)` gives the targets (with alias filters) at open time; searches
 *   with a PIT pass `options.targets` + `options.readers` and add the `_shard_doc` tiebreaker to `source.sort`;
 * - next scroll pages: re-run with the held readers, `source.sort` ending in `{_shard_doc: asc}` (or `_doc`),
 *   `source.searchAfter` = last hit's sort values, `source.trackTotalHitsUpTo = -1` and `request.scroll`
 *   unset: the shard query phase then starts right after the last doc and stops after `size` hits.
 */
import type { Principal, Task } from '@strata/core-common';
import type { DirectoryReader } from '../index/leaf-reader.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import type { IndicesOptions } from '../spi.js';
import type { InternalAggregations } from '../aggregations/api.js';
import type { SortKey, SortSpec } from './sort.js';
import type { DfsStats } from './index-searcher.js';
import type { ShardSuggest, TermSuggestSpec } from './term-suggester.js';

// ------------------------------------------------------------------ the parsed search body

export interface FieldAndFormat {
  field: string;
  format?: string;
  include_unmapped?: boolean;
}

export interface FetchSourceFilter {
  fetch: boolean;
  includes: string[];
  excludes: string[];
}

export interface SliceSpec {
  id: number;
  max: number;
  field?: string;
}

export interface HighlightSpec {
  preTags: string[];
  postTags: string[];
  fragmentSize: number;
  numberOfFragments: number;
  requireFieldMatch: boolean;
  fields: Record<string, { fragmentSize?: number; numberOfFragments?: number; preTags?: string[]; postTags?: string[]; highlightQuery?: unknown }>;
  highlightQuery?: unknown;
}

/** The search body (SearchSourceBuilder), normalised. Plain data: raw JSON for query/aggs. */
export interface SearchSource {
  query?: unknown;
  postFilter?: unknown;
  from: number;
  size: number;
  /** explicit from was given */
  fromSet: boolean;
  sort: SortSpec[];
  /** hits counted exactly up to this; -1: not tracked (track_total_hits false); 2147483647: true */
  trackTotalHitsUpTo: number;
  trackScores: boolean;
  minScore?: number;
  terminateAfter: number;
  timeoutMs?: number;
  searchAfter?: unknown[];
  slice?: SliceSpec;
  source: FetchSourceFilter;
  /** `_source` was given explicitly (body or URL): script_fields alone then do not suppress it */
  sourceExplicit?: boolean;
  fields?: FieldAndFormat[];
  docvalueFields?: FieldAndFormat[];
  /** undefined: default; [] with `_none_`: no stored fields and no _source */
  storedFields?: string[];
  version: boolean;
  seqNoPrimaryTerm: boolean;
  explain: boolean;
  highlight?: HighlightSpec;
  aggs?: unknown;
  profile: boolean;
  indicesBoost?: Array<Record<string, number>>;
  /** values parsed by SearchSourceExtensions, by key (e.g. `pit`) */
  extensions: Record<string, unknown>;
  /** script_fields: name → the request's script (compiled per shard on the shared Painless engine) */
  scriptFields?: Record<string, { script: unknown; ignoreFailure: boolean }>;
  /** runtime_mappings: runtime fields of this search, shadowing the mapping's */
  runtimeMappings?: Record<string, unknown>;
  /** term suggestions */
  suggest?: TermSuggestSpec[];
  /** query rescorers, applied in order to the top window of each shard */
  rescore?: RescoreSpec[];
  /** field collapsing: one hit per distinct value of a single-valued keyword/numeric field */
  collapse?: { field: string };
  /** other accepted but ignored keys (rescore, suggest, ...) */
  ignored?: string[];
}

export interface RescoreSpec {
  windowSize: number;
  query: unknown;
  queryWeight: number;
  rescoreQueryWeight: number;
  scoreMode: 'total' | 'multiply' | 'avg' | 'max' | 'min';
}

export const DEFAULT_TRACK_TOTAL_HITS = 10000;
export const TRACK_TOTAL_HITS_ACCURATE = 2147483647;
export const TRACK_TOTAL_HITS_DISABLED = -1;

// ------------------------------------------------------------------ coordinator-level request / options

export interface SearchRequest {
  /** the target expression(s) as given; undefined or [] = all */
  indices?: string[];
  indicesOptions: IndicesOptions;
  source: SearchSource;
  /** the request body exactly as sent (request cache hashes it) */
  rawBody?: string;
  /** `?request_cache=` */
  requestCache?: boolean;
  /** `?scroll=` keep-alive as given (the paging lib handles it) */
  scroll?: string;
  searchType: 'query_then_fetch' | 'dfs_query_then_fetch';
  routing?: string[];
  preference?: string;
  typedKeys: boolean;
  restTotalHitsAsInt: boolean;
  allowPartialSearchResults: boolean;
  ccsMinimizeRoundtrips?: boolean;
  /** fixed `now` of this request (epoch millis) */
  nowMillis?: number;
  /** free-form state for interceptors */
  attributes: Record<string, unknown>;
  /** who is searching (RestRequest.principal); scroll and PIT contexts belong to it. Undefined with security off */
  principal?: Principal;
}

/** one target shard of a search */
export interface ShardTarget {
  index: string;
  shardId: number;
  /** alias filter (query JSON) applying to this index, if the index was reached through filtered aliases */
  aliasFilter?: unknown;
}

export interface SearchOptions {
  /** held readers to use instead of acquiring fresh ones, keyed `index#shard` */
  readers?: Map<string, DirectoryReader>;
  /** explicit shard targets (a PIT pins them); when set, `indices` are not resolved */
  targets?: ShardTarget[];
  /** called with every reader used, before the search releases them (incRef the ones to keep) */
  retainReaders?(readers: Map<string, DirectoryReader>, targets: ShardTarget[]): void;
  /** the search's task (TaskManager): checked for cancellation between shards and before the fetch phase */
  task?: Task;
  /**
   * when set, the search's shard phases are recorded here instead of being counted in the shards' search
   * statistics: a scroll page computed ahead of its request counts when the page is asked for (the paging
   * library replays them with `searchPhaseStarted`/`searchPhaseEnded`), or not at all if it never is
   */
  deferPhaseStats?: DeferredSearchPhase[];
}

/** one shard search phase that ran, to be counted later (SearchOptions.deferPhaseStats) */
export interface DeferredSearchPhase {
  index: string;
  shardId: number;
  phase: 'query' | 'fetch' | 'suggest';
  nanos: number;
  completed: boolean;
}

export interface SearchResponse {
  /** the response body as Elasticsearch returns it */
  body: Record<string, unknown>;
  /** the shard targets searched, in shard-index order */
  targets: ShardTarget[];
}

// ------------------------------------------------------------------ shard-level messages

export interface ShardSearchRequest {
  index: string;
  shardId: number;
  /** position of this shard in the request's target list (used by `_shard_doc` and slices) */
  shardIndex: number;
  numShards: number;
  source: SearchSource;
  rawBody?: string;
  requestCache?: boolean;
  scroll: boolean;
  nowMillis: number;
  /** set by query parsing when date math used `now` without rounding (such results must not be cached) */
  nowUsed: boolean;
  profile: boolean;
  aliasFilter?: unknown;
  /** sort values to search after, as sent */
  searchAfter?: unknown[];
  /** absent = query_then_fetch */
  searchType?: string;
  /** dfs_query_then_fetch: statistics aggregated over all target shards */
  dfs?: DfsStats;
}

export interface ShardHit {
  /** shard-global doc id in the reader used */
  doc: number;
  /** NaN when not computed */
  score: number;
  /** comparable keys (field sort) */
  keys?: SortKey[];
  /** the formatted values for hits.hits[].sort */
  sortValues?: unknown[];
  /** collapse key (comparable) and its display value */
  collapseKey?: string | number | null;
  collapseValue?: unknown;
}

export interface SortFieldMeta {
  kind: 'score' | 'doc' | 'shard_doc' | 'number' | 'string';
  reverse: 1 | -1;
  missingFirst: boolean;
}

export interface ShardQueryResult {
  index: string;
  shardId: number;
  shardIndex: number;
  /** top from+size hits of this shard, best first */
  hits: ShardHit[];
  /** undefined when total hits are not tracked */
  totalHits?: { value: number; relation: 'eq' | 'gte' };
  /** null when not computed (field sort without track_scores) or no hits */
  maxScore: number | null;
  /** null = sorted by score */
  sortMeta: SortFieldMeta[] | null;
  terminatedEarly?: boolean;
  timedOut: boolean;
  aggregations?: InternalAggregations;
  suggest?: ShardSuggest;
  /** `profile: true`: this shard's entry of `profile.shards` (without id/node) */
  profile?: { searches: unknown[]; aggregations: unknown[] };
}

export interface ShardSearchContext {
  readonly index: string;
  readonly shardId: number;
  readonly indexMetadata: IndexMetadata;
  /** flat index settings (explicitly set ones; defaults are the registry's) */
  readonly indexSettings: Readonly<Record<string, unknown>>;
  /** the reader the query phase runs on (cacheKey identifies it) */
  readonly reader: DirectoryReader;
}

export interface ShardSearchInterceptor {
  readonly name: string;
  readonly order: number;
  intercept(req: ShardSearchRequest, shard: ShardSearchContext, next: () => Promise<ShardQueryResult>): Promise<ShardQueryResult>;
}

export interface CoordinatorSearchInterceptor {
  readonly name: string;
  readonly order: number;
  /** URL params / features this interceptor implements (e.g. `scroll`); unhandled ones are rejected */
  readonly handles?: readonly string[];
  intercept(
    request: SearchRequest,
    options: SearchOptions,
    next: (request: SearchRequest, options: SearchOptions) => Promise<SearchResponse>,
  ): Promise<SearchResponse>;
}

export interface SearchSourceExtension {
  /** the top-level body key, e.g. `pit` */
  readonly key: string;
  /** validates the value (throw parsing_exception like ES); the result lands in `source.extensions[key]` */
  parse(json: unknown): unknown;
}

/** key of a held reader in SearchOptions.readers */
export function shardKey(index: string, shardId: number): string {
  return `${index}#${shardId}`;
}
