/**
 * SearchService: the coordinating search (resolve targets, fan out the shard query phase through the
 * ShardSearchInterceptors, merge, fetch the winners, reduce aggregations) wrapped by the
 * CoordinatorSearchInterceptors. Also `_count` and the shard-level entry point other features reuse.
 */
import { NODE_FILTER_CACHE } from '../../search/filter-cache.js';
import type { ThreadPool } from '../../threadpool/thread-pool.js';
import { inject, injectable, multiInject, optional } from 'inversify';
import {
  EsError,
  Errors,
  ExtensionPoints,
  locateJsonPath,
  locateKey,
  positionOf,
  RequestContexts,
  onClientGone,
  Tokens,
  type Clock,
  type HostConfig,
  type NodeIdentity,
  nodeIdentityOf,
  type ScriptService,
  type Logger,
  type Task,
  type TaskManager,
  wildcardRegExp,
} from '@strata/core-common';
import { aggParseErrorPath, parseAggregations, reduceAggregations, renderAggregations } from '../../aggregations/aggregation-phase.js';
import { BoostQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { aggregateDfs, shardDfs } from '../../search/dfs.js';
import { reduceSuggest, type ShardSuggest } from '../../search/term-suggester.js';
import { QueryProfiler } from '../../search/profile.js';
import { IndexSearcher, type DfsStats } from '../../search/index-searcher.js';
import { hiddenDocs } from '../../search/nested/nested-bitsets.js';
import { isRequestLevel } from '../../query-dsl/parse-utils.js';
import { checkInnerResultWindow, type InnerHitsDefinition } from '../../search/inner-hits.js';
import type { AggregationTypeParser, AggregatorFactories, InternalAggregations } from '../../aggregations/api.js';
import { AGG_PARSERS } from '../../aggregations/registry.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { DirectoryReader } from '../../index/leaf-reader.js';
import { createParseContext, type ParseContextHandle } from '../../query-dsl/parse-context.js';
import { QueryParserRegistry } from '../../query-dsl/query-parser.js';
import {
  EngineTokens,
  type AnalysisRegistry,
  type IndexNameExpressionResolver,
  type IndexShard,
  type IndicesService,
  type MapperService,
  type MetadataStore,
} from '../../services.js';
import {
  shardKey,
  type CoordinatorSearchInterceptor,
  type DeferredSearchPhase,
  type SearchOptions,
  type SearchRequest,
  type SearchResponse,
  type SearchSource,
  type SearchSourceExtension,
  type ShardQueryResult,
  type ShardSearchContext,
  type ShardSearchInterceptor,
  type ShardSearchRequest,
  type ShardTarget,
} from '../../search/spi-search.js';
import { executeFetchPhase, type FetchedHit } from './fetch-phase.js';
import { searchSlowLog } from '../../slowlog/slow-log.js';
import { extractHighlightTerms } from './highlighter.js';
import {
  checkResultWindow,
  executeQueryPhaseSliced,
  sliceFilter,
  prepareShardQuery,
  type PreparedShardQuery,
} from './query-phase.js';
import { mergeTopDocs, reduceMaxScore, reduceTotalHits } from './search-phase-controller.js';
import { emptySearchSource, parseSearchSource, validateSearchSource } from './search-source.js';
import { shardIdForDoc } from '../../shard/routing.js';
import { DEFAULT_SCRIPT_SERVICE } from '../../script/search-scripts.js';
import { BooleanQuery } from '../../search/boolean-query.js';
import { NO_MORE_DOCS } from '../../search/doc-id-set.js';
import type { Query } from '../../search/query.js';
import type { IndicesOptions } from '../../spi.js';

const scanDecoder = new TextDecoder();

/** one document found by SearchService.scanDocs */
export interface ScannedDoc {
  index: string;
  id: string;
  routing?: string;
  seqNo: number;
  primaryTerm: number;
  version: number;
  source: Record<string, unknown>;
}
import { aggregationScriptRuntimeDefs, rewriteAggregationScripts, type AggregationScriptDef } from '../../script/aggregation-scripts.js';
import { resolveMoreLikeThisDocs, resolveTermsLookups, type LookupDocumentGetter } from './terms-lookup.js';

export const DEFAULT_MAX_RESULT_WINDOW = 10000;

/**
 * A shard's `profile.shards[].searches` entry (ES 8 shape): the measured query tree, the rewrite time and the
 * collector tree. The collectors' time is the query phase minus the query's own calls and the rewrite; the
 * aggregations' share is what their leaf collectors took.
 */
function shardProfile(p: QueryProfiler, phaseNanos: number, req: ShardSearchRequest, aggregations: AggregatorFactories | undefined): NonNullable<ShardQueryResult['profile']> {
  const rewrite = Math.round(p.rewriteMillis * 1e6);
  const collectorNanos = Math.max(0, phaseNanos - p.queryNanos - rewrite);
  const aggNanos = Math.min(collectorNanos, Math.round(p.aggregationMillis * 1e6));
  const children: Array<Record<string, unknown>> = [];
  const sorted = (req.source.sort?.length ?? 0) > 0;
  if (req.source.size > 0) children.push({ name: sorted ? 'SimpleFieldCollector' : 'SimpleTopScoreDocCollector', reason: 'search_top_hits', time_in_nanos: collectorNanos - aggNanos });
  else children.push({ name: 'TotalHitCountCollector', reason: 'search_count', time_in_nanos: collectorNanos - aggNanos });
  const aggs = req.source.aggs;
  const aggNames = aggregations && aggs && typeof aggs === 'object' ? Object.keys(aggs) : [];
  if (aggNames.length > 0) children.push({ name: `AggregatorCollector: [${aggNames.join(', ')}]`, reason: 'aggregation', time_in_nanos: aggNanos });
  return {
    searches: [
      {
        query: p.roots.map((r) => r.toJSON()),
        rewrite_time: rewrite,
        collector: [{ name: 'QueryPhaseCollector', reason: 'search_query_phase', time_in_nanos: collectorNanos, children }],
      },
    ],
    aggregations: p.aggregations.map((a) => a.toJSON()),
  };
}

/** errors that are request-level (thrown before any shard runs in Elasticsearch) */
function isRequestLevelError(e: unknown): boolean {
  return e instanceof EsError && (e.type === 'parsing_exception' || e.type === 'x_content_parse_exception' || e.type === 'named_object_not_found_exception' || isRequestLevel(e));
}

/** rewrites "unknown query [x]" errors with the position of x in the raw body */
function withPosition(e: unknown, raw: string | undefined): unknown {
  if (!(e instanceof EsError) || e.type !== 'parsing_exception' || raw === undefined) return e;
  const m = /^unknown query \[(.+)\]$/.exec(e.reason);
  if (!m) return e;
  const loc = locateKey(raw, m[1]!, 'value');
  if (!loc) return e;
  return new EsError('parsing_exception', 400, e.reason, {
    metadata: { line: loc.line, col: loc.col },
    cause: new EsError('named_object_not_found_exception', 400, `[${loc.line}:${loc.col}] unknown field [${m[1]}]`),
    rootCauses: [new EsError('parsing_exception', 400, e.reason, { metadata: { line: loc.line, col: loc.col } })],
  });
}

/**
 * Shard-level errors carry the searched index's real uuid (Elasticsearch's QueryShardException takes the
 * index from the shard's context): fills `index_uuid` where an error about `index` (its causes and root
 * causes included) still says `_na_`. The errors are fresh per request, so they are completed in place.
 */
export function withIndexUuid<T>(e: T, index: string, uuid: string | undefined): T {
  if (!uuid || !(e instanceof EsError)) return e;
  const seen = new Set<EsError>();
  const visit = (x: EsError | Error | undefined): void => {
    if (!(x instanceof EsError) || seen.has(x)) return;
    seen.add(x);
    if (x.metadata['index'] === index && x.metadata['index_uuid'] === '_na_') x.metadata['index_uuid'] = uuid;
    visit(x.cause);
    for (const r of x.rootCauses ?? []) visit(r);
  };
  visit(e);
  return e;
}

const AGG_FIELD_ERROR = /^\[1:1\] (\[[^\]]+\] (?:unknown field \[(.+)\]|failed to parse field \[(.+)\]|(\S+) doesn't support values of type: .+))$/s;

/**
 * An aggregation's x_content_parse_exception is raised on the parsed body, at [1:1]: with the raw body, put
 * the real position in it as Jackson reports it (ObjectParser: the key of an unknown field, the value of a
 * field that fails to parse).
 */
export function withAggPosition(e: unknown, raw: string | undefined): unknown {
  const path = aggParseErrorPath(e);
  if (!path || raw === undefined || !(e instanceof EsError) || e.type !== 'x_content_parse_exception') return e;
  const m = AGG_FIELD_ERROR.exec(e.reason);
  if (!m) return e;
  const key = m[2] ?? m[3] ?? m[4]!;
  for (const top of ['aggs', 'aggregations']) {
    const loc = locateJsonPath(raw, [top, ...path, key]);
    if (!loc) continue;
    const { line, col } = positionOf(raw, m[2] !== undefined ? loc.key : loc.value);
    return Errors.xContentParse(m[1]!, line, col, e.cause);
  }
  return e;
}

/** wraps a query construction failure as Elasticsearch's QueryShardException */
export function failedToCreateQuery(e: unknown, index: string, uuid?: string): EsError {
  if (e instanceof EsError && e.type === 'query_shard_exception') return withIndexUuid(e, index, uuid);
  const msg = e instanceof Error ? e.message : String(e);
  const cause = e instanceof EsError ? e : new EsError('exception', 400, msg);
  const reason = `failed to create query: ${msg}`;
  const metadata = { index_uuid: uuid ?? '_na_', index };
  // the cause is a plain Java exception in Elasticsearch, so the root cause is the QueryShardException itself
  return new EsError('query_shard_exception', 400, reason, {
    metadata,
    cause,
    rootCauses: [new EsError('query_shard_exception', 400, reason, { metadata })],
  });
}

interface ShardFailure {
  shard: number;
  index: string;
  /** null for a shard no node holds (unassigned), as Elasticsearch reports it */
  node: string | null;
  reason: EsError;
}

function failureObject(f: ShardFailure): Record<string, unknown> {
  return { shard: f.shard, index: f.index, node: f.node, reason: f.reason.toObject() };
}

/** ES's search task description: `indices[a,b], search_type[QUERY_THEN_FETCH], source[{...}]` */
function searchTaskDescription(request: SearchRequest): string {
  const indices = (request.indices ?? []).join(',');
  const source = request.rawBody !== undefined ? `, source[${request.rawBody}]` : '';
  return `indices[${indices}], search_type[${request.searchType.toUpperCase()}]${source}`;
}

/** a search lets other requests run between its shards, and before its fetch, once it has run this long (ms) */
const SEARCH_TURN_MS = 5;

/**
 * Stops a cancelled search with ES's task_cancelled_exception (a no-op without a task). Once the search has run
 * SEARCH_TURN_MS since it started or last did so, it first lets other requests run (a cancel among them); a
 * quick search goes on at once, so it is not held behind the slices of running bulks (a couple of
 * milliseconds each) on every step.
 */
function cancelCheck(task: Task | undefined): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (!task) return;
    if (performance.now() - since >= SEARCH_TURN_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      since = performance.now();
    }
    if (task.isCancelled()) throw new EsError('task_cancelled_exception', 400, `task cancelled [${task.cancelReason ?? 'by user request'}]`);
  };
}

/** Elasticsearch's search_phase_execution_exception "all shards failed" with grouped failures */
export function allShardsFailed(failures: ShardFailure[], phase = 'query', reason = 'all shards failed'): EsError {
  const grouped: ShardFailure[] = [];
  const seen = new Set<string>();
  for (const f of failures) {
    const key = `${f.index}\u0000${f.reason.type}\u0000${f.reason.reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    grouped.push(f);
  }
  const roots: EsError[] = [];
  const rootSeen = new Set<string>();
  for (const f of grouped) {
    for (const r of f.reason.guessRootCauses()) {
      const k = `${r.type}\u0000${r.reason}\u0000${String(r.metadata['index'] ?? '')}`;
      if (!rootSeen.has(k)) {
        rootSeen.add(k);
        roots.push(r);
      }
    }
  }
  const status = failures[0]?.reason.status ?? 500;
  return new EsError('search_phase_execution_exception', status, reason, {
    rootCauses: roots,
    extra: { phase, grouped: true, failed_shards: grouped.map(failureObject) },
    cause: failures[0]?.reason,
  });
}

interface IndexPlan {
  /** absent only with `failure`: a pinned target's index deleted since (see execute) */
  meta?: IndexMetadata;
  /** parse context + parsed queries, or the failure every shard of the index reports */
  parse?: { ctx: ParseContextHandle; prepared: PreparedShardQuery };
  failure?: EsError;
}

/** `index.queries.cache.enabled` (static, default true): whether the index's filters use the node's filter cache */
function queriesCacheEnabled(settings: Record<string, unknown>): boolean {
  const v = settings['index.queries.cache.enabled'];
  return v === undefined || v === null || (v !== false && v !== 'false');
}

@injectable()
export class SearchService {
  readonly registry: QueryParserRegistry;
  /** the shared script engine */
  readonly scripts: ScriptService;
  private readonly shardInterceptors: ShardSearchInterceptor[];
  private readonly coordinatorInterceptors: CoordinatorSearchInterceptor[];
  private readonly extensions = new Map<string, SearchSourceExtension>();
  /** aggregation types contributed by features (ExtensionPoints.AggregationType) */
  readonly aggregationTypes = new Map<string, AggregationTypeParser>();
  private readonly clock: Clock;
  private readonly nodeId: string;

  constructor(
    @inject(EngineTokens.IndicesService) private readonly indices: IndicesService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(EngineTokens.QueryParserRegistry) registry: QueryParserRegistry,
    @inject(EngineTokens.MetadataStore) @optional() private readonly metadata?: MetadataStore,
    @inject(EngineTokens.AnalysisRegistry) @optional() private readonly analysis?: AnalysisRegistry,
    @multiInject(ExtensionPoints.ShardSearchInterceptor) @optional() shardInterceptors?: ShardSearchInterceptor[],
    @multiInject(ExtensionPoints.CoordinatorSearchInterceptor) @optional() coordinatorInterceptors?: CoordinatorSearchInterceptor[],
    @multiInject(ExtensionPoints.SearchSourceExtension) @optional() extensions?: SearchSourceExtension[],
    @inject(Tokens.Clock) @optional() clock?: Clock,
    @inject(Tokens.HostConfig) @optional() hostConfig?: HostConfig,
    @inject(EngineTokens.DocumentService) @optional() private readonly documents?: LookupDocumentGetter,
    @inject(Tokens.ScriptService) @optional() scripts?: ScriptService,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
    @multiInject(ExtensionPoints.AggregationType) @optional() aggregationTypes?: AggregationTypeParser[],
    @inject(Tokens.TaskManager) @optional() private readonly tasks?: TaskManager,
    @inject(EngineTokens.ThreadPool) @optional() private readonly threadPool?: ThreadPool,
    @inject(Tokens.NodeIdentity) @optional() node?: NodeIdentity,
  ) {
    for (const t of aggregationTypes ?? []) {
      if (this.aggregationTypes.has(t.type) || AGG_PARSERS[t.type]) throw new Error(`aggregation type [${t.type}] is already registered`);
      this.aggregationTypes.set(t.type, t);
    }
    this.scripts = scripts ?? DEFAULT_SCRIPT_SERVICE;
    this.registry = registry;
    this.shardInterceptors = [...(shardInterceptors ?? [])].sort((a, b) => a.order - b.order);
    this.coordinatorInterceptors = [...(coordinatorInterceptors ?? [])].sort((a, b) => a.order - b.order);
    for (const e of extensions ?? []) {
      if (this.extensions.has(e.key)) throw new Error(`search source extension [${e.key}] is already registered`);
      this.extensions.set(e.key, e);
    }
    this.clock = clock ?? { now: () => Date.now(), nanoTime: () => process.hrtime.bigint() };
    this.nodeId = nodeIdentityOf(node, hostConfig).id;
  }

  /** parses a search body with the registered SearchSourceExtensions */
  parseSource(body: unknown): SearchSource {
    return parseSearchSource(body, this.extensions);
  }

  /** true when some coordinator interceptor implements the feature (e.g. `scroll`) */
  handles(feature: string): boolean {
    return this.coordinatorInterceptors.some((i) => i.handles?.includes(feature));
  }

  /** the coordinated search, through the CoordinatorSearchInterceptors */
  async search(request: SearchRequest, options: SearchOptions = {}): Promise<SearchResponse> {
    if (request.scroll !== undefined && !this.handles('scroll')) {
      throw Errors.illegalArgument(`request [/_search] contains unrecognized parameter: [scroll]`);
    }
    // the request as the user sent it, before interceptors rewrite it (scroll/PIT tiebreakers)
    validateSearchSource(request.source, request.scroll !== undefined, options.readers !== undefined, {
      requestCache: request.requestCache,
      userSort: true,
    });
    const chain = this.coordinatorInterceptors;
    const run = (i: number, req: SearchRequest, opts: SearchOptions): Promise<SearchResponse> =>
      i < chain.length ? chain[i]!.intercept(req, opts, (r, o) => run(i + 1, r, o)) : this.execute(req, opts);
    // the search is a task: GET /_tasks lists it, POST /_tasks/{id}/_cancel stops it between shards
    if (!this.tasks || options.task) return run(0, request, options);
    const task = this.tasks.register('indices:data/read/search', searchTaskDescription(request), { cancellable: true });
    // a client that disconnects cancels its search the way POST /_tasks/{id}/_cancel does
    const stopListening = onClientGone(RequestContexts.current(), () => void this.tasks?.cancel(task.id, 'http channel closed'));
    try {
      return await run(0, request, { ...options, task });
    } finally {
      stopListening();
      this.tasks.unregister(task);
    }
  }

  /** `_count`: total hits of the query */
  async count(request: SearchRequest): Promise<Record<string, unknown>> {
    const source = { ...request.source, size: 0, from: 0, trackTotalHitsUpTo: 2147483647, sort: [], aggs: undefined };
    const res = await this.execute({ ...request, source, scroll: undefined }, {});
    const hits = res.body['hits'] as { total?: { value: number } };
    const out: Record<string, unknown> = { count: hits.total?.value ?? 0 };
    if (res.body['terminated_early'] !== undefined) out['terminated_early'] = res.body['terminated_early'];
    out['_shards'] = res.body['_shards'];
    return out;
  }

  /** `GET /{index}/_explain/{id}`: whether and how the document matches the query */
  async explain(indexExpr: string, id: string, query: unknown, opts: { routing?: string; nowMillis?: number } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const concrete = this.resolver.concreteIndices([indexExpr], { ignoreUnavailable: false, allowNoIndices: false, expandWildcards: { open: true, closed: false, hidden: false } }, 'read');
    if (concrete.length !== 1) throw Errors.illegalArgument(`explain requests can only target a single index, got [${concrete.join(', ')}]`);
    const index = concrete[0]!;
    const meta = this.indices.indexMetadata(index);
    const shardId = shardIdForDoc(meta, id, opts.routing);
    const shard = this.startedShard(index, shardId);
    const nowMillis = opts.nowMillis ?? this.clock.now();
    const ctx = this.parseContextFor(meta, nowMillis);
    let parsed;
    try {
      parsed = query === undefined ? undefined : ctx.parseInnerQuery(query);
    } catch (e) {
      if (isRequestLevelError(e)) throw e;
      throw failedToCreateQuery(e, index, meta.uuid);
    }
    const reader = shard.acquireReader();
    try {
      for (const leaf of reader.leaves) {
        const p = leaf.reader.postings('_id', id);
        if (!p) continue;
        const hidden = hiddenDocs(leaf.reader);
        for (const d of p.docs) {
          if (!leaf.reader.isLive(d) || hidden?.get(d)) continue;
          const q = parsed ?? new MatchAllDocsQuery();
          const w = new IndexSearcher(reader).createWeight(q, true, 1);
          const sc = w.scorer(leaf);
          const matched = sc !== null && sc.advance(d) === d;
          const explanation = w.explain?.(leaf, d) ?? {
            value: matched ? sc!.score() : 0,
            description: matched ? q.toString() : `no matching clause`,
            details: [],
          };
          return { status: 200, body: { _index: index, _id: id, matched, explanation } };
        }
      }
      return { status: 404, body: { _index: index, _id: id, matched: false } };
    } finally {
      reader.decRef();
    }
  }

  /**
   * Runs one search phase of one shard and counts it in the shard's search statistics (`_stats` /
   * `_nodes/stats` `indices.search`): `*_current` while it runs, `*_total` and `*_time_in_millis` once it completed.
   */
  private async timedPhase<T>(
    t: { index: string; shardId: number },
    phase: 'query' | 'fetch' | 'suggest',
    fn: () => T | Promise<T>,
    defer?: DeferredSearchPhase[],
  ): Promise<T> {
    let shard: IndexShard | undefined;
    if (!defer) {
      try {
        shard = this.startedShard(t.index, t.shardId);
      } catch {
        shard = undefined; // the phase itself reports the unavailable shard
      }
    }
    shard?.searchPhaseStarted?.(phase);
    const t0 = process.hrtime.bigint();
    let completed = false;
    try {
      const r = await fn();
      completed = true;
      return r;
    } finally {
      const nanos = Number(process.hrtime.bigint() - t0);
      if (defer) defer.push({ index: t.index, shardId: t.shardId, phase, nanos, completed });
      else shard?.searchPhaseEnded?.(phase, nanos, completed);
    }
  }

  private indexMetadataIfExists(index: string): IndexMetadata | undefined {
    try {
      return this.indices.indexMetadata(index);
    } catch (e) {
      if (e instanceof EsError && e.type === 'index_not_found_exception') return undefined;
      throw e;
    }
  }

  /** a started shard; one that failed to open throws no_shard_available_action_exception (503) */
  private startedShard(index: string, shardId: number): IndexShard {
    if (this.indices.shard) return this.indices.shard(index, shardId);
    const shard = this.indices.shards(index).find((s) => s.shardId === shardId);
    if (!shard) throw Errors.noShardAvailable(`[${index}][${shardId}] shard is not available`, index, shardId);
    return shard;
  }

  private maxResultWindow(meta: IndexMetadata): number {
    const v = meta.settings['index.max_result_window'];
    return v === undefined || v === null ? DEFAULT_MAX_RESULT_WINDOW : Number(v);
  }

  private maxBuckets(): number {
    const md = this.metadata?.current();
    const v = md?.transientSettings['search.max_buckets'] ?? md?.persistentSettings['search.max_buckets'];
    return v === undefined || v === null ? 65536 : Number(v);
  }

  /**
   * Pins a reader of every target shard (a point-in-time view for PIT, scroll or EQL); the caller decRefs
   * them. A shard that failed to open has no reader: 503 no_shard_available_action_exception.
   */
  acquireReaders(targets: readonly ShardTarget[]): Map<string, DirectoryReader> {
    const readers = new Map<string, DirectoryReader>();
    try {
      for (const t of targets) {
        const key = shardKey(t.index, t.shardId);
        if (readers.has(key)) continue;
        const shard = this.indices.shard ? this.indices.shard(t.index, t.shardId) : this.indices.shards(t.index).find((s) => s.shardId === t.shardId);
        if (!shard) throw Errors.noShardAvailable(`[${t.index}][${t.shardId}] shard is not available`, t.index, t.shardId);
        readers.set(key, shard.acquireReader());
      }
    } catch (e) {
      for (const r of readers.values()) r.decRef();
      throw e;
    }
    return readers;
  }

  /** resolves shard targets (concrete indices, alias filters, routing) */
  resolveTargets(request: SearchRequest): ShardTarget[] {
    const expr = request.indices && request.indices.length > 0 ? request.indices : undefined;
    const concrete = this.resolver.concreteIndices(expr, request.indicesOptions, 'read');
    const requested = (expr ?? ['_all']).flatMap((e) => e.split(',')).filter((x) => x.length > 0);
    const md = this.metadata?.current();
    const targets: ShardTarget[] = [];
    for (const index of [...new Set(concrete)].sort()) {
      const meta = this.indices.indexMetadata(index);
      const aliasFilter = this.aliasFilter(index, meta, requested, md?.indices);
      // every shard of the index, started or not: one that failed to open is reported as a shard failure
      let shardIds = Array.from({ length: meta.numberOfShards }, (_, i) => i);
      if (request.routing && request.routing.length > 0) {
        const wanted = new Set(request.routing.map((r) => shardIdForRouting(r, meta)));
        shardIds = shardIds.filter((s) => wanted.has(s));
      }
      const pref = request.preference;
      if (pref !== undefined && pref.startsWith('_shards:')) {
        const wanted = new Set(
          pref
            .substring('_shards:'.length)
            .split('|')[0]!
            .split(',')
            .map((x) => Number(x.trim())),
        );
        shardIds = shardIds.filter((s) => wanted.has(s));
      }
      for (const shardId of shardIds.sort((a, b) => a - b)) targets.push({ index, shardId, ...(aliasFilter !== undefined ? { aliasFilter } : {}) });
    }
    return targets;
  }

  private aliasFilter(index: string, meta: IndexMetadata, requested: string[], _all?: Record<string, IndexMetadata>): unknown {
    const match = (pattern: string, name: string) =>
      pattern === '_all' || pattern === '*' || pattern === name || (pattern.includes('*') && wildcardRegExp(pattern).test(name));
    if (requested.some((p) => !p.startsWith('-') && match(p, index))) return undefined;
    const filters: unknown[] = [];
    for (const [alias, am] of Object.entries(meta.aliases ?? {})) {
      if (!requested.some((p) => match(p, alias))) continue;
      if (!am.filter) return undefined;
      filters.push(am.filter);
    }
    if (filters.length === 0) return undefined;
    if (filters.length === 1) return filters[0];
    return { bool: { should: filters, minimum_should_match: 1 } };
  }

  private parseContextFor(meta: IndexMetadata | undefined, nowMillis: number, runtimeMappings?: Record<string, unknown>, aggScripts?: Record<string, AggregationScriptDef>): ParseContextHandle {
    let runtimeFields = runtimeMappings && this.mappers.runtimeFieldTypes ? this.mappers.runtimeFieldTypes(meta, runtimeMappings) : undefined;
    if (aggScripts && Object.keys(aggScripts).length > 0 && this.mappers.runtimeFieldTypes) {
      const lookup = (n: string) => runtimeFields?.get(n) ?? (meta ? this.mappers.fieldType(meta, n) : undefined);
      const aggTypes = this.mappers.runtimeFieldTypes(meta, aggregationScriptRuntimeDefs(aggScripts, lookup), 'aggregation');
      runtimeFields = new Map([...(runtimeFields ?? []), ...aggTypes]);
    }
    return createParseContext({
      scripts: this.scripts,
      runtimeFields,
      hasMappingRuntime: (i) => this.mappers.hasRuntimeFields?.(i) ?? false,
      registry: this.registry,
      index: meta,
      fieldType: (i, n) => this.mappers.fieldType(i, n),
      matchingFieldNames: (i, p) => this.mappers.matchingFieldNames(i, p),
      nestedLookup: this.mappers.nestedLookup ? (i) => this.mappers.nestedLookup!(i) : undefined,
      analyzer: (name, settings) => this.analysis?.analyzer(name, settings),
      nowMillis,
    });
  }

  /** runs the shard query phase for one shard, through the ShardSearchInterceptors */
  async executeShardQuery(
    shardReq: ShardSearchRequest,
    reader: DirectoryReader,
    meta: IndexMetadata,
    prepared: { ctx: ParseContextHandle; prepared: PreparedShardQuery },
    aggregations: AggregatorFactories | undefined,
    task?: Task,
  ): Promise<ShardQueryResult> {
    checkResultWindow(shardReq, this.maxResultWindow(meta));
    const shardCtx: ShardSearchContext = {
      index: shardReq.index,
      shardId: shardReq.shardId,
      indexMetadata: meta,
      indexSettings: meta.settings,
      reader,
    };
    const phase = async (): Promise<ShardQueryResult> => {
      const t0 = process.hrtime.bigint();
      const profiler = shardReq.profile ? new QueryProfiler() : undefined;
      // in slices: a long shard query lets other requests run and stops once its task is cancelled
      const r = await executeQueryPhaseSliced(
        shardReq,
        {
          parseContext: prepared.ctx,
          indexMetadata: meta,
          reader,
          aggregations,
          maxBuckets: this.maxBuckets(),
          fieldType: (n) => prepared.ctx.fieldType(n),
          filterCache: queriesCacheEnabled(meta.settings) ? NODE_FILTER_CACHE.forIndex(meta.name) : null,
          ...(profiler ? { profiler } : {}),
        },
        prepared.prepared,
        { cancelled: () => (task?.isCancelled() ? (task.cancelReason ?? 'by user request') : undefined) },
      );
      searchSlowLog(this.logger, 'query', meta.settings, {
        index: shardReq.index,
        shardId: shardReq.shardId,
        tookNanos: process.hrtime.bigint() - t0,
        source: shardReq.rawBody,
        totalHits: r.totalHits,
        totalShards: shardReq.numShards,
        searchType: 'query_then_fetch',
      });
      if (profiler) r.profile = shardProfile(profiler, Number(process.hrtime.bigint() - t0), shardReq, aggregations);
      return r;
    };
    const chain = this.shardInterceptors;
    const run = (i: number): Promise<ShardQueryResult> => (i < chain.length ? chain[i]!.intercept(shardReq, shardCtx, () => run(i + 1)) : phase());
    // the shard query runs in a search-pool slot; a full queue fails the shard with es_rejected_execution_exception
    const pool = this.threadPool?.search;
    return pool ? pool.execute(() => `shard query [${shardReq.index}][${shardReq.shardId}]`, () => run(0)) : run(0);
  }

  /**
   * Every live document matching `query` in the targets, read from one point-in-time reader per shard and
   * handed over in batches (update/delete by query, reindex). `onBatch` returns false to stop.
   */
  async scanDocs(
    req: { indices?: string[]; indicesOptions: IndicesOptions; query?: unknown; routing?: string[]; slice?: { id: number; max: number } },
    onBatch: (docs: ScannedDoc[]) => Promise<boolean>,
    batchSize = 1000,
  ): Promise<void> {
    const nowMillis = this.clock.now();
    const search: SearchRequest = {
      indices: req.indices, indicesOptions: req.indicesOptions, source: emptySearchSource(), searchType: 'query_then_fetch',
      typedKeys: false, restTotalHitsAsInt: false, allowPartialSearchResults: false, attributes: {},
      ...(req.routing ? { routing: req.routing } : {}),
    };
    const targets = this.resolveTargets(search);
    const prepared = new Map<string, { meta: IndexMetadata; ctx: ParseContextHandle; query: Query }>();
    for (const t of targets) {
      if (prepared.has(t.index)) continue;
      const meta = this.indices.indexMetadata(t.index);
      const ctx = this.parseContextFor(meta, nowMillis);
      let query: Query;
      try {
        query = req.query === undefined ? new MatchAllDocsQuery() : ctx.parseInnerQuery(req.query);
      } catch (e) {
        if (isRequestLevelError(e)) throw e;
        throw failedToCreateQuery(e, t.index, meta.uuid);
      }
      prepared.set(t.index, { meta, ctx, query });
    }
    let batch: ScannedDoc[] = [];
    for (let shardIndex = 0; shardIndex < targets.length; shardIndex++) {
      const t = targets[shardIndex]!;
      // a sliced scan (by-query `slices`) reads only its slice, as a sliced scroll does
      const slice = req.slice ? sliceFilter(req.slice, shardIndex, targets.length) : 'all';
      if (slice === 'none') continue;
      const p = prepared.get(t.index)!;
      const shard = this.startedShard(t.index, t.shardId);
      const base = shard.acquireReader();
      try {
        const reader = p.ctx.wrapReader(base);
        let q = p.query;
        if (t.aliasFilter !== undefined) q = new BooleanQuery([{ occur: 'must', query: q }, { occur: 'filter', query: p.ctx.parseInnerQuery(t.aliasFilter) }]);
        const w = new IndexSearcher(reader).createWeight(q, false, 1);
        for (const leaf of reader.leaves) {
          const sc = w.scorer(leaf);
          if (!sc) continue;
          const r = leaf.reader;
          const hidden = hiddenDocs(r);
          const inSlice = slice === 'all' ? null : slice(leaf);
          for (let d = sc.nextDoc(); d !== NO_MORE_DOCS; d = sc.nextDoc()) {
            if (!r.isLive(d) || hidden?.get(d) || (inSlice !== null && !inSlice(d))) continue;
            const bytes = r.source(d);
            batch.push({
              index: t.index,
              id: r.id(d),
              routing: r.routing(d),
              seqNo: r.seqNo(d),
              primaryTerm: r.primaryTerm(d),
              version: r.version(d),
              source: bytes ? (JSON.parse(scanDecoder.decode(bytes)) as Record<string, unknown>) : {},
            });
            if (batch.length >= batchSize) {
              const go = await onBatch(batch);
              batch = [];
              if (!go) return;
            }
          }
        }
      } finally {
        base.decRef();
      }
    }
    if (batch.length > 0) await onBatch(batch);
  }

  /** the coordinated search itself (no coordinator interceptors) */
  async execute(request: SearchRequest, options: SearchOptions): Promise<SearchResponse> {
    const start = this.clock.nanoTime();
    let source = request.source;
    if (source.query !== undefined || source.postFilter !== undefined) {
      const defaultIndex = request.indices && request.indices.length === 1 && !/[*,]/.test(request.indices[0]!) ? request.indices[0] : undefined;
      const query = await resolveMoreLikeThisDocs(await resolveTermsLookups(source.query, this.documents), this.documents, defaultIndex);
      const postFilter = await resolveTermsLookups(source.postFilter, this.documents);
      if (query !== source.query || postFilter !== source.postFilter) {
        source = { ...source, query, postFilter };
        request = { ...request, source };
      }
    }
    validateSearchSource(source, request.scroll !== undefined, options.readers !== undefined);
    const nowMillis = request.nowMillis ?? this.clock.now();
    let aggs;
    let aggScripts: Record<string, AggregationScriptDef>;
    try {
      const rewritten = rewriteAggregationScripts(source.aggs);
      aggScripts = rewritten.defs;
      aggs = parseAggregations(rewritten.aggs, { scripts: this.scripts, types: this.aggregationTypes });
    } catch (e) {
      throw withAggPosition(e, request.rawBody);
    }
    const targets = options.targets ?? this.resolveTargets(request);
    const checkCancelled = cancelCheck(options.task);

    // parse once per index; request-level errors (syntax) are thrown as is
    const plans = new Map<string, IndexPlan>();
    for (const t of targets) {
      if (plans.has(t.index)) continue;
      // a search over pinned readers (EQL's searches of one request, PIT) whose index was deleted since:
      // its shards fail with index_not_found_exception, as a shard of a deleted index does in Elasticsearch
      const meta = options.readers ? this.indexMetadataIfExists(t.index) : this.indices.indexMetadata(t.index);
      if (!meta) {
        plans.set(t.index, { failure: Errors.indexNotFound(t.index) });
        continue;
      }
      const ctx = this.parseContextFor(meta, nowMillis, source.runtimeMappings, aggScripts);
      const probe: ShardSearchRequest = this.shardRequest(request, t, 0, targets.length, nowMillis);
      try {
        const prepared = prepareShardQuery(probe, ctx);
        const checkWindows = (defs: readonly InnerHitsDefinition[]): void => {
          for (const d of defs) {
            checkInnerResultWindow(d, meta.settings);
            checkWindows(d.children);
          }
        };
        checkWindows(ctx.innerHits);
        const boost = indexBoost(source.indicesBoost, t.index, meta);
        if (boost !== 1) prepared.query = new BoostQuery(prepared.query, Math.fround(boost));
        plans.set(t.index, { meta, parse: { ctx, prepared } });
      } catch (e) {
        if (isRequestLevelError(e)) throw withPosition(e, request.rawBody);
        plans.set(t.index, { meta, failure: failedToCreateQuery(e, t.index, meta.uuid) });
      }
    }
    if (targets.length === 0 && source.query !== undefined) {
      // validate the syntax even when nothing is searched
      try {
        prepareShardQuery(this.shardRequest(request, { index: '_na_', shardId: 0 }, 0, 0, nowMillis), this.parseContextFor(undefined, nowMillis));
      } catch (e) {
        if (isRequestLevelError(e)) throw withPosition(e, request.rawBody);
      }
    }

    const readers = new Map<string, DirectoryReader>();
    const acquired: DirectoryReader[] = [];
    const results: ShardQueryResult[] = [];
    const resultTargets: ShardTarget[] = [];
    const failures: ShardFailure[] = [];
    const readerFor = (t: ShardTarget): DirectoryReader => {
      const key = shardKey(t.index, t.shardId);
      let reader = options.readers?.get(key) ?? readers.get(key);
      if (!reader) {
        reader = this.startedShard(t.index, t.shardId).acquireReader();
        acquired.push(reader);
      }
      readers.set(key, reader);
      return reader;
    };
    try {
      let dfs: DfsStats | undefined;
      if (request.searchType === 'dfs_query_then_fetch' && targets.length > 1) {
        const parts: DfsStats[] = [];
        for (const t of targets) {
          const plan = plans.get(t.index)!;
          if (plan.failure) continue;
          try {
            parts.push(shardDfs(new IndexSearcher(readerFor(t)), plan.parse!.prepared.query));
          } catch {
            /* the query phase reports the failure */
          }
        }
        dfs = aggregateDfs(parts);
      }
      // a suggest-only request counts in suggest_*, not query_* (SearchContext#hasOnlySuggest)
      const onlySuggest = (source.suggest?.length ?? 0) > 0 && source.query === undefined && aggs.isEmpty && source.size === 0;
      for (let shardIndex = 0; shardIndex < targets.length; shardIndex++) {
        if (shardIndex > 0) await checkCancelled();
        const t = targets[shardIndex]!;
        const plan = plans.get(t.index)!;
        try {
          if (plan.failure) throw plan.failure;
          const reader = plan.parse!.ctx.wrapReader(readerFor(t));
          const shardReq = this.shardRequest(request, t, shardIndex, targets.length, nowMillis);
          if (dfs) shardReq.dfs = dfs;
          shardReq.nowUsed = plan.parse!.ctx.nowUsed;
          const r = await this.timedPhase(t, onlySuggest ? 'suggest' : 'query', () => this.executeShardQuery(shardReq, reader, plan.meta!, plan.parse!, aggs.isEmpty ? undefined : aggs, options.task), options.deferPhaseStats);
          results.push(r);
          resultTargets.push(t);
        } catch (e) {
          // a cancelled search stops as a whole, as between shards
          if (isRequestLevelError(e) || (e instanceof EsError && e.type === 'task_cancelled_exception')) throw e;
          const reason = e instanceof EsError ? (plan.meta ? withIndexUuid(e, t.index, plan.meta.uuid) : e) : toShardError(e);
          const node = reason.type === 'no_shard_available_action_exception' ? null : this.nodeId;
          failures.push({ shard: t.shardId, index: t.index, node, reason });
        }
      }
      if (targets.length > 0 && failures.length === targets.length) throw allShardsFailed(failures);
      if (failures.length > 0 && !request.allowPartialSearchResults) throw allShardsFailed(failures, 'query', 'Partial shards failure');

      // merge + fetch
      await checkCancelled();
      const from = source.from < 0 ? 0 : source.from;
      const merged = mergeTopDocs(results, { from, size: source.size, collapse: source.collapse !== undefined });
      let fetched: FetchedHit[] = new Array(merged.length);
      const fetchFailedResults = new Set<number>();
      const fetchFailures: ShardFailure[] = [];
      const byResult = new Map<number, number[]>();
      merged.forEach((m, i) => {
        const arr = byResult.get(m.resultIndex);
        if (arr) arr.push(i);
        else byResult.set(m.resultIndex, [i]);
      });
      for (const [ri, positions] of byResult) {
        const r = results[ri]!;
        const t = resultTargets[ri]!;
        const plan = plans.get(t.index)!;
        const ctx = plan.parse!.ctx;
        const reader = ctx.wrapReader(readers.get(shardKey(t.index, t.shardId))!);
        const hl = source.highlight
          ? extractHighlightTerms(
              source.highlight.highlightQuery !== undefined ? ctx.parseInnerQuery(source.highlight.highlightQuery) : plan.parse!.prepared.query,
            )
          : undefined;
        const f0 = process.hrtime.bigint();
        let hits: FetchedHit[];
        try {
          hits = await this.timedPhase(t, 'fetch', () => executeFetchPhase(
          positions.map((p) => merged[p]!.hit),
          source,
          {
            index: r.index,
            reader,
            fieldType: (n) => ctx.fieldType(n),
            matchingFieldNames: (p) => ctx.matchingFieldNames(p),
            highlightTerms: hl,
            query: plan.parse!.prepared.query,
            namedQueries: ctx.namedQueries,
            scriptFields: plan.parse!.prepared.scriptFields,
            innerHits: ctx.innerHits,
            nestedLookup: ctx.nestedLookup,
          },
          ), options.deferPhaseStats);
        } catch (e) {
          // a fetch failure (a script field, a runtime field in `fields`) fails that shard, as in Elasticsearch
          if (isRequestLevelError(e)) throw e;
          const reason = e instanceof EsError ? withIndexUuid(e, t.index, plan.meta!.uuid) : toShardError(e);
          fetchFailures.push({ shard: t.shardId, index: t.index, node: this.nodeId, reason });
          continue;
        }
        const fetchSettings = this.metadata?.current().indices[t.index]?.settings;
        if (fetchSettings) {
          searchSlowLog(this.logger, 'fetch', fetchSettings, {
            index: t.index,
            shardId: t.shardId,
            tookNanos: process.hrtime.bigint() - f0,
            source: request.rawBody,
            totalHits: r.totalHits,
            totalShards: targets.length,
            searchType: request.searchType,
          });
        }
        positions.forEach((p, i) => (fetched[p] = hits[i]!));
      }
      if (fetchFailures.length > 0) {
        // one shard: Elasticsearch fetches within the query phase (query_and_fetch), so it is that phase that failed
        if (fetchFailures.length === byResult.size) throw allShardsFailed([...failures, ...fetchFailures], targets.length === 1 ? 'query' : 'fetch');
        if (!request.allowPartialSearchResults) throw allShardsFailed(fetchFailures, 'fetch', 'Partial shards failure');
        // the failed shards' hits are left out; the shards are reported failed
        fetched = fetched.filter((h) => h !== undefined);
        for (const f of fetchFailures) {
          failures.push(f);
          const i = resultTargets.findIndex((x) => x.index === f.index && x.shardId === f.shard);
          if (i >= 0) fetchFailedResults.add(i);
        }
      }
      options.retainReaders?.(readers, targets);

      // aggregations
      let aggregations: Record<string, unknown> | undefined;
      if (!aggs.isEmpty) {
        const shardAggs = results.map((r) => r.aggregations).filter((a): a is InternalAggregations => a !== undefined);
        const reduced = reduceAggregations(aggs, shardAggs, { maxBuckets: this.maxBuckets() });
        aggregations = renderAggregations(aggs, reduced, { typedKeys: request.typedKeys });
      }

      const total = reduceTotalHits(results, source.trackTotalHitsUpTo);
      const hitsBody: Record<string, unknown> = {};
      if (request.restTotalHitsAsInt) hitsBody['total'] = total ? total.value : -1;
      else if (total) hitsBody['total'] = total;
      hitsBody['max_score'] = source.size === 0 ? null : reduceMaxScore(results);
      hitsBody['hits'] = fetched;
      const body: Record<string, unknown> = {
        took: Number((this.clock.nanoTime() - start) / 1000000n),
        timed_out: results.some((r) => r.timedOut),
      };
      if (source.terminateAfter > 0) body['terminated_early'] = results.some((r) => r.terminatedEarly === true);
      const shards: Record<string, unknown> = { total: targets.length, successful: results.length - fetchFailedResults.size, skipped: 0, failed: failures.length };
      if (failures.length) shards['failures'] = failures.map(failureObject);
      body['_shards'] = shards;
      body['hits'] = hitsBody;
      if (aggregations) body['aggregations'] = aggregations;
      if (source.suggest && source.suggest.length > 0) {
        body['suggest'] = reduceSuggest(
          source.suggest,
          results.map((r) => r.suggest).filter((x): x is ShardSuggest => x !== undefined),
        );
      }
      if (source.profile) {
        body['profile'] = {
          shards: results.map((r) => ({
            id: `[${this.nodeId}][${r.index}][${r.shardId}]`,
            node_id: this.nodeId,
            shard_id: r.shardId,
            index: r.index,
            cluster: '(local)',
            ...(r.profile ?? { searches: [], aggregations: [] }),
          })),
        };
      }
      return { body, targets };
    } finally {
      for (const r of acquired) r.decRef();
    }
  }

  private shardRequest(request: SearchRequest, t: ShardTarget, shardIndex: number, numShards: number, nowMillis: number): ShardSearchRequest {
    const r: ShardSearchRequest = {
      index: t.index,
      shardId: t.shardId,
      shardIndex,
      numShards,
      source: request.source,
      scroll: request.scroll !== undefined,
      nowMillis,
      nowUsed: false,
      profile: request.source.profile,
    };
    if (request.rawBody !== undefined) r.rawBody = request.rawBody;
    if (request.requestCache !== undefined) r.requestCache = request.requestCache;
    if (t.aliasFilter !== undefined) r.aliasFilter = t.aliasFilter;
    if (request.source.searchAfter !== undefined) r.searchAfter = request.source.searchAfter;
    if (request.searchType !== 'query_then_fetch') r.searchType = request.searchType;
    return r;
  }
}

/** indices_boost: the first entry naming the index (or one of its aliases, or a matching pattern) */
function indexBoost(boosts: Array<Record<string, number>> | undefined, index: string, meta: IndexMetadata): number {
  if (!boosts) return 1;
  for (const entry of boosts) {
    for (const [name, b] of Object.entries(entry)) {
      const re = wildcardRegExp(name);
      if (re.test(index) || Object.keys(meta.aliases ?? {}).some((a) => re.test(a))) return Number(b);
    }
  }
  return 1;
}

function toShardError(e: unknown): EsError {
  const msg = e instanceof Error ? e.message : String(e);
  return new EsError('exception', 500, msg);
}

/** Elasticsearch's routing → shard id (murmur3 of the routing value, routing_num_shards) */
function shardIdForRouting(routing: string, meta: IndexMetadata): number {
  return shardIdForDoc(meta, routing);
}
