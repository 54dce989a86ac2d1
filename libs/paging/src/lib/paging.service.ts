/**
 * Points in time and scrolls: reader contexts held across requests, the implicit `_shard_doc`
 * tiebreaker, and scroll pages as search_after continuations over the held readers, so the cost of a
 * page does not grow with its depth. A scroll's next page is computed while the client reads the current one.
 */
import { inject, injectable, optional } from 'inversify';
import {
  EsError,
  Errors,
  RawJson,
  RequestContexts,
  Tokens,
  formatTimeValue,
  nodeIdentityOf,
  parseTimeValue,
  sameOwner,
  stringifyJson,
  type Clock,
  type Principal,
  type HostConfig,
  type NodeIdentity,
  type SettingDef,
} from '@strata/core-common';
import {
  DEFAULT_TRACK_TOTAL_HITS,
  EngineTokens,
  TRACK_TOTAL_HITS_ACCURATE,
  TRACK_TOTAL_HITS_DISABLED,
  allShardsFailed,
  type DeferredSearchPhase,
  type DirectoryReader,
  type IndicesOptions,
  type IndicesService,
  type MetadataStore,
  type SearchOptions,
  type SearchRequest,
  type SearchResponse,
  type SearchService,
  type ShardTarget,
  type SortSpec,
} from '@strata/core-engine';
import { ContextRegistry, type ReaderContext, type ScrollAhead, type ScrollState } from './context-registry.js';
import { decodePitId, decodeScrollId, encodePitId, encodeScrollId } from './context-id.js';
import { DEFAULT_KEEP_ALIVE, MAX_KEEP_ALIVE, MAX_OPEN_SCROLL_CONTEXT } from './paging.settings.js';
import { countDeferredPhases } from './paging.stats.js';

export const PagingTokens = {
  ContextRegistry: Symbol.for('strata.paging.ContextRegistry'),
} as const;

/**
 * What the paging service needs of the core search. The REST handlers pass the SearchService itself;
 * the service does not inject it, because the SearchService injects the paging interceptor.
 */
export type CoreSearch = Pick<SearchService, 'resolveTargets' | 'execute' | 'acquireReaders'>;

/** the `pit` section of a search body, as parsed by the PIT SearchSourceExtension */
export interface PitSpec {
  id: string;
  keepAlive?: string;
}

const SHARD_DOC_ASC: SortSpec = { field: '_shard_doc', order: 'asc' };
const TWO_32 = 4294967296;

/**
 * Scroll pages computed ahead of their request hold at most this many characters of rendered hits, over all
 * scrolls (about 32-64 MB); a page that would go past it is not kept, and none is started while it is reached.
 */
export const AHEAD_BUDGET_CHARS = 32 * 1024 * 1024;
/** scroll pages being computed ahead at the same time, over all scrolls */
const MAX_AHEAD_IN_FLIGHT = 2;

/** a scroll page as computed: the response (sort values as the user asked) and where the next page starts */
interface ComputedPage {
  res: SearchResponse;
  /** sort values (with the internal tiebreaker) of its last hit, or the previous ones when it has none */
  after: unknown[] | undefined;
  count: number;
}

/** a scroll page computed ahead: its hits already rendered, its shard phases not counted yet */
interface AheadPage extends ComputedPage {
  phases: DeferredSearchPhase[];
  /** cluster metadata version it was computed under: a mapping or index change since means computing it again */
  metadataVersion: number;
}

function contextMissing(id: number): EsError {
  const missing = Errors.searchContextMissing(`No search context found for id [${id}]`);
  return allShardsFailed([{ shard: -1, index: null as unknown as string, node: '', reason: missing }]);
}

@injectable()
export class PagingService {
  private readonly node: string;
  /** characters of rendered hits held by pages computed ahead (AHEAD_BUDGET_CHARS) */
  private aheadChars = 0;
  private aheadInFlight = 0;

  constructor(
    @inject(PagingTokens.ContextRegistry) readonly registry: ContextRegistry,
    @inject(EngineTokens.IndicesService) private readonly indices: IndicesService,
    @inject(EngineTokens.MetadataStore) private readonly metadata: MetadataStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.HostConfig) @optional() config?: HostConfig,
    @inject(Tokens.NodeIdentity) @optional() node?: NodeIdentity,
  ) {
    this.node = nodeIdentityOf(node, config).id;
  }

  // ------------------------------------------------------------------ settings

  /** the effective cluster setting (transient over persistent over default); stored values are strings */
  private clusterSetting(def: SettingDef<number>): number {
    const md = this.metadata.current();
    const v = md.transientSettings[def.key] ?? md.persistentSettings[def.key];
    return v === undefined || v === null ? def.defaultValue : def.parse(v);
  }

  /** parses and bounds a keep-alive (search.max_keep_alive) */
  keepAlive(value: string | undefined, name = 'keep_alive'): number {
    const ms = value === undefined ? this.clusterSetting(DEFAULT_KEEP_ALIVE) : parseTimeValue(value, name);
    const max = this.clusterSetting(MAX_KEEP_ALIVE);
    if (ms > max) {
      throw Errors.illegalArgument(
        `Keep alive for request (${formatTimeValue(ms)}) is too large. It must be less than (${formatTimeValue(max)}). ` +
          `This limit can be set by changing the [${MAX_KEEP_ALIVE.key}] cluster level setting.`,
      );
    }
    return ms;
  }

  // ------------------------------------------------------------------ readers



  private checkSlices(request: SearchRequest, targets: ShardTarget[]): void {
    const slice = request.source.slice;
    if (!slice) return;
    for (const t of targets) {
      const v = this.indices.indexMetadata(t.index).settings['index.max_slices_per_scroll'];
      const max = v === undefined || v === null ? 1024 : Number(v);
      if (slice.max > max) {
        throw Errors.illegalArgument(
          `The number of slices [${slice.max}] is too large. It must be less than [${max}]. ` +
            'This limit can be set by changing the [index.max_slices_per_scroll] index level setting.',
        );
      }
    }
  }

  // ------------------------------------------------------------------ point in time

  openPit(
    search: CoreSearch,
    indices: string[] | undefined,
    options: IndicesOptions,
    keepAlive: string | undefined,
    routing?: string[],
    principal?: Principal,
  ): Record<string, unknown> {
    if (keepAlive === undefined) throw Errors.actionRequestValidation(['[keep_alive] is not specified']);
    const keepAliveMs = this.keepAlive(keepAlive);
    const probe = { indices, indicesOptions: options, routing } as unknown as SearchRequest;
    const targets = search.resolveTargets(probe);
    const readers = search.acquireReaders(targets);
    const ctx = this.registry.create('pit', readers, targets, keepAliveMs, this.clock.now(), principal);
    return {
      id: encodePitId(ctx.id, this.node),
      _shards: { total: targets.length, successful: targets.length, skipped: 0, failed: 0 },
    };
  }

  /**
   * frees PITs by id. num_freed counts shard contexts (one per shard of the PIT), as ES does; succeeded is
   * false when some PIT was not found (already closed or expired).
   */
  closePit(ids: string[], principal?: Principal): { succeeded: boolean; numFreed: number } {
    let n = 0;
    let succeeded = true;
    const now = this.clock.now();
    for (const id of ids) {
      const d = decodePitId(id);
      const ctx = this.registry.get(d.contextId);
      const shards = ctx ? ctx.readers.size : 0;
      // another user's PIT counts as missing
      if (ctx && ctx.kind === 'pit' && sameOwner(ctx.ownedBy, principal) && this.registry.free(d.contextId, now)) n += shards;
      else succeeded = false;
    }
    return { succeeded, numFreed: n };
  }

  /**
   * A live context of `kind` that `principal` owns. Another user's context is reported as missing,
   * as Elasticsearch does (search_context_missing_exception), so ids cannot be probed.
   */
  private ownedContext(id: number, kind: 'pit' | 'scroll', principal: Principal | undefined, now: number): ReaderContext {
    const ctx = this.registry.live(id, now);
    if (!ctx || ctx.kind !== kind || !sameOwner(ctx.ownedBy, principal)) throw contextMissing(id);
    return ctx;
  }

  /** a search carrying `pit`: runs on the PIT's readers with the implicit tiebreaker */
  async searchWithPit(
    request: SearchRequest,
    pit: PitSpec,
    options: SearchOptions,
    next: (r: SearchRequest, o: SearchOptions) => Promise<SearchResponse>,
  ): Promise<SearchResponse> {
    const errors: string[] = [];
    if (request.indices && request.indices.length > 0) {
      errors.push('[indices] cannot be used with point in time. Do not specify any index with point in time.');
    }
    if (request.scroll !== undefined) errors.push('using [point in time] is not allowed in a scroll context');
    if (request.routing && request.routing.length > 0) errors.push('[routing] cannot be used with point in time. Do not specify any routing with point in time.');
    if (request.preference !== undefined) errors.push('[preference] cannot be used with point in time. Do not specify any preference with point in time.');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    const d = decodePitId(pit.id);
    const now = this.clock.now();
    const keepAliveMs = pit.keepAlive !== undefined ? this.keepAlive(pit.keepAlive, 'keep_alive') : undefined;
    const ctx = this.ownedContext(d.contextId, 'pit', request.principal, now);
    this.checkSlices(request, ctx.targets);
    if (keepAliveMs !== undefined) this.registry.extend(ctx, keepAliveMs, now);
    const sort = withTiebreaker(request.source.sort, request.source.searchAfter);
    const inner: SearchRequest = { ...request, indices: undefined, source: { ...request.source, sort } };
    ctx.inUse++;
    try {
      const res = await next(inner, { ...options, readers: ctx.readers, targets: ctx.targets });
      return { ...res, body: { pit_id: encodePitId(ctx.id, this.node), ...res.body } };
    } finally {
      ctx.inUse--;
      if (keepAliveMs !== undefined) this.registry.extend(ctx, keepAliveMs, this.clock.now());
    }
  }

  // ------------------------------------------------------------------ scroll

  private checkScrollLimit(): void {
    const max = this.clusterSetting(MAX_OPEN_SCROLL_CONTEXT);
    if (this.registry.count('scroll') >= max) {
      const cause = new EsError(
        'too_many_scroll_contexts_exception',
        429,
        `Trying to create too many scroll contexts. Must be less than or equal to: [${max}]. ` +
          `This limit can be set by changing the [${MAX_OPEN_SCROLL_CONTEXT.key}] setting.`,
      );
      throw allShardsFailed([{ shard: -1, index: null as unknown as string, node: '', reason: cause }]);
    }
  }

  /**
   * The first page of a scroll: runs through the rest of the chain and keeps the readers the core used
   * (retainReaders), so every later page sees the same snapshot.
   */
  async openScroll(
    request: SearchRequest,
    options: SearchOptions,
    next: (r: SearchRequest, o: SearchOptions) => Promise<SearchResponse>,
  ): Promise<SearchResponse> {
    const keepAliveMs = this.keepAlive(request.scroll, 'scroll');
    this.checkScrollLimit();
    const src = request.source;
    const unsorted = src.sort.length === 0;
    const state: ScrollState = {
      // `now` is the first page's for every page, as Elasticsearch keeps the parsed query of a scroll
      request: { ...request, scroll: undefined, indices: undefined, nowMillis: request.nowMillis ?? this.clock.now() },
      userSortLength: src.sort.length,
      unsorted,
      returned: 0,
      size: src.size,
      lastCount: 0,
    };
    let held: { readers: Map<string, DirectoryReader>; targets: ShardTarget[] } | undefined;
    const release = () => {
      if (held) for (const r of held.readers.values()) r.decRef();
      held = undefined;
    };
    try {
      const res = await this.firstPage(state, (r, o) => next(r, o), request, {
        ...options,
        retainReaders: (readers, targets) => {
          options.retainReaders?.(readers, targets);
          this.checkSlices(request, targets);
          for (const r of readers.values()) r.incRef();
          held = { readers: new Map(readers), targets: [...targets] };
        },
      });
      if (!held) throw Errors.illegalState('scroll search did not report its readers');
      const h = held as { readers: Map<string, DirectoryReader>; targets: ShardTarget[] };
      const ctx = this.registry.create('scroll', h.readers, h.targets, keepAliveMs, this.clock.now(), request.principal);
      held = undefined;
      ctx.scroll = state;
      return { ...res, body: { _scroll_id: encodeScrollId(ctx.id, this.node), ...res.body } };
    } catch (e) {
      release();
      throw e;
    }
  }

  /** the next page of a scroll; `scroll` absent frees the context after answering (the spec's rule) */
  async continueScroll(
    search: CoreSearch,
    scrollId: string,
    scroll: string | undefined,
    restTotalHitsAsInt: boolean,
    principal?: Principal,
  ): Promise<Record<string, unknown>> {
    const d = decodeScrollId(scrollId);
    const keepAliveMs = scroll !== undefined ? this.keepAlive(scroll, 'scroll') : undefined;
    const now = this.clock.now();
    const ctx = this.ownedContext(d.contextId, 'scroll', principal, now);
    if (!ctx.scroll) throw contextMissing(d.contextId);
    ctx.inUse++;
    try {
      if (keepAliveMs !== undefined) this.registry.extend(ctx, keepAliveMs, now);
      const state = ctx.scroll;
      state.request = { ...state.request, restTotalHitsAsInt };
      let page: ComputedPage | undefined = await this.takeAhead(state);
      if (!page) {
        page = await this.computePage(state, state.after, (r, o) => search.execute(r, o), false, undefined, {
          readers: ctx.readers,
          targets: ctx.targets,
        });
      }
      state.after = page.after;
      state.returned += page.count;
      state.lastCount = page.count;
      const body = page.res.body;
      const hits = body['hits'] as Record<string, unknown>;
      body['hits'] = repeatedTotal(state, restTotalHitsAsInt, hits['max_score'], hits['hits']);
      // the next page is computed once this response is out, while the client reads it
      if (keepAliveMs !== undefined) this.scheduleAhead(ctx, search);
      return { _scroll_id: encodeScrollId(ctx.id, this.node), ...body };
    } finally {
      ctx.inUse--;
      if (keepAliveMs === undefined) this.registry.free(ctx.id, this.clock.now());
      else this.registry.extend(ctx, keepAliveMs, this.clock.now());
    }
  }

  /**
   * frees scrolls by id (`_all`: every scroll of the caller, or every scroll with security off); another
   * user's scroll counts as missing. Returns how many shard contexts were freed (ES counts one per shard).
   */
  clearScroll(ids: string[], principal?: Principal): number {
    const now = this.clock.now();
    const decoded = ids.includes('_all') ? null : ids.map((id) => decodeScrollId(id));
    const contextIds = decoded ? decoded.map((d) => d.contextId) : this.registry.ids('scroll');
    let n = 0;
    for (const id of contextIds) {
      const ctx = this.registry.get(id);
      const shards = ctx ? ctx.readers.size : 0;
      if (ctx && ctx.kind === 'scroll' && sameOwner(ctx.ownedBy, principal) && this.registry.free(id, now)) n += shards;
    }
    return n;
  }

  /**
   * The first scroll page: the user's query and sort plus the `_shard_doc` tiebreaker. Only the first page
   * computes aggregations and the (exact) total; later pages repeat the first total and skip counting, so the
   * index-order fast path applies.
   */
  private async firstPage(
    state: ScrollState,
    next: (r: SearchRequest, o: SearchOptions) => Promise<SearchResponse>,
    original: SearchRequest,
    options: SearchOptions,
  ): Promise<SearchResponse> {
    const page = await this.computePage(state, undefined, next, true, original, options);
    state.total = (page.res.body['hits'] as { total?: unknown }).total;
    state.after = page.after;
    state.returned += page.count;
    state.lastCount = page.count;
    state.request = { ...state.request, source: { ...state.request.source, aggs: undefined } };
    return page.res;
  }

  /** one scroll page continuing after `after` (the sort values of the last hit returned); changes no state */
  private async computePage(
    state: ScrollState,
    after: unknown[] | undefined,
    next: (r: SearchRequest, o: SearchOptions) => Promise<SearchResponse>,
    first: boolean,
    original: SearchRequest | undefined,
    options: SearchOptions,
  ): Promise<ComputedPage> {
    const base = state.request.source;
    const sort = scrollSort(base.sort);
    const source = {
      ...base,
      sort,
      // the first page keeps `from` so the core rejects it as Elasticsearch does in a scroll context
      from: first ? base.from : 0,
      trackScores: base.trackScores || state.unsorted,
      // as Elasticsearch: a scroll's first page counts its total exactly unless told otherwise
      // (the default 10,000 does not apply in a scroll context); later pages skip counting
      ...(first
        ? base.trackTotalHitsUpTo === DEFAULT_TRACK_TOTAL_HITS
          ? { trackTotalHitsUpTo: TRACK_TOTAL_HITS_ACCURATE }
          : {}
        : { aggs: undefined, trackTotalHitsUpTo: TRACK_TOTAL_HITS_DISABLED }),
      ...(after !== undefined ? { searchAfter: after } : {}),
    };
    // the first page is validated by the core as a scroll request; later pages are plain continuations
    const req: SearchRequest = first
      ? { ...original!, nowMillis: state.request.nowMillis, source }
      : { ...state.request, source, scroll: undefined, requestCache: false };
    const res = await next(req, options);
    const list = (res.body['hits'] as { hits: Array<Record<string, unknown>> }).hits;
    const last = list.length > 0 ? (list[list.length - 1]!['sort'] as unknown[]) : after;
    for (const h of list) {
      const sv = h['sort'] as unknown[] | undefined;
      if (!sv) continue;
      if (state.unsorted) delete h['sort'];
      else h['sort'] = userSortValues(base.sort, sv);
    }
    return { res, after: last, count: list.length };
  }

  // ------------------------------------------------------------------ scroll pages computed ahead

  /**
   * Computes the next page of a full scroll page once its response is out (the pipeline's afterResponse),
   * while the client reads it; its request then only renders the top of the body. At most one page per
   * scroll, on readers it holds itself (so clear-scroll or expiry meanwhile frees nothing under it), counted
   * in the shards' search statistics only when it is asked for.
   */
  private scheduleAhead(ctx: ReaderContext, search: CoreSearch): void {
    const state = ctx.scroll;
    if (!state || state.ahead || state.size <= 0 || state.lastCount < state.size) return;
    const start = (): void => {
      try {
        this.computeAhead(ctx, search);
      } catch {
        // nothing computed ahead: the request computes its page itself
      }
    };
    const afterResponse = RequestContexts.current()?.afterResponse;
    if (afterResponse) afterResponse.push(start);
    else setImmediate(start);
  }

  private computeAhead(ctx: ReaderContext, search: CoreSearch): void {
    const state = ctx.scroll;
    if (!state || state.ahead || this.registry.get(ctx.id) !== ctx) return;
    if (this.aheadInFlight >= MAX_AHEAD_IN_FLIGHT || this.aheadChars >= AHEAD_BUDGET_CHARS) return;
    const readers = new Map(ctx.readers);
    for (const r of readers.values()) r.incRef();
    this.aheadInFlight++;
    const from = state.after;
    const metadataVersion = this.metadata.current().version;
    let held = 0;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.aheadChars -= held;
      held = 0;
    };
    const self: ScrollAhead = { from, page: Promise.resolve(undefined), release };
    state.ahead = self;
    self.page = (async (): Promise<AheadPage | undefined> => {
      try {
        const phases: DeferredSearchPhase[] = [];
        const out = await this.computePage(state, from, (r, o) => search.execute(r, o), false, undefined, {
          readers,
          targets: ctx.targets,
          deferPhaseStats: phases,
        });
        // a shard failure is left for the request itself to meet
        if ((out.res.body['_shards'] as { failed?: number } | undefined)?.failed) return undefined;
        const hits = out.res.body['hits'] as Record<string, unknown>;
        const rendered = new RawJson(stringifyJson(hits['hits']));
        const chars = rendered.json.length;
        if (released || state.ahead !== self || this.aheadChars + chars > AHEAD_BUDGET_CHARS) return undefined;
        held = chars;
        this.aheadChars += chars;
        hits['hits'] = rendered;
        return { ...out, phases, metadataVersion };
      } catch {
        return undefined; // the request computes the page itself and meets the error there
      } finally {
        this.aheadInFlight--;
        for (const r of readers.values()) r.decRef();
      }
    })();
  }

  /** the page computed ahead for this request, if it continues where the scroll is and nothing changed since */
  private async takeAhead(state: ScrollState): Promise<ComputedPage | undefined> {
    const ahead = state.ahead;
    if (!ahead) return undefined;
    state.ahead = undefined;
    const page = (await ahead.page) as AheadPage | undefined;
    ahead.release();
    if (!page || ahead.from !== state.after || page.metadataVersion !== this.metadata.current().version) return undefined;
    countDeferredPhases(this.indices, page.phases);
    return page;
  }
}

/** `hits` of a later scroll page: the first page's total (as asked by this request), max_score, hits */
function repeatedTotal(state: ScrollState, restTotalHitsAsInt: boolean, maxScore: unknown, hits: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (state.total !== undefined) out['total'] = restTotalHitsAsInt ? totalAsInt(state.total) : state.total;
  else if (restTotalHitsAsInt) out['total'] = -1;
  out['max_score'] = maxScore;
  out['hits'] = hits;
  return out;
}

function totalAsInt(total: unknown): unknown {
  if (total && typeof total === 'object' && 'value' in (total as Record<string, unknown>)) return (total as { value: number }).value;
  return total;
}

/**
 * the PIT sort: the user's sort plus `_shard_doc` asc unless given; no sort means `_score` then `_shard_doc`.
 * A `search_after` holding only the user's sort values (no tiebreaker value) keeps the user's sort, as ES
 * adds the tiebreaker only when search_after is absent or has one value more than the sort.
 */
export function withTiebreaker(sort: SortSpec[], searchAfter?: readonly unknown[]): SortSpec[] {
  if (sort.some((s) => s.field === '_shard_doc')) return sort;
  if (searchAfter !== undefined && sort.length > 0 && searchAfter.length !== sort.length + 1) return sort;
  if (sort.length === 0) return [{ field: '_score', order: 'desc' }, SHARD_DOC_ASC];
  return [...sort, SHARD_DOC_ASC];
}

/** the internal scroll sort: `_doc` (index order) becomes `_shard_doc`; a tiebreaker is always last */
function scrollSort(sort: SortSpec[]): SortSpec[] {
  if (sort.length === 1 && sort[0]!.field === '_doc' && sort[0]!.order === 'asc') return [SHARD_DOC_ASC];
  return withTiebreaker(sort);
}

/** the sort values the user asked for, from the internal ones */
function userSortValues(userSort: SortSpec[], values: unknown[]): unknown[] {
  if (userSort.length === 1 && userSort[0]!.field === '_doc' && userSort[0]!.order === 'asc') {
    const v = Number(values[0]);
    return [v - Math.floor(v / TWO_32) * TWO_32];
  }
  if (userSort.some((s) => s.field === '_shard_doc')) return values;
  return values.slice(0, userSort.length);
}
