/**
 * EqlSearchService: runs an EQL search request on the node (targets, mappings → schema, analysis, execution
 * through the core SearchService on pinned readers) and wraps it in Elasticsearch's async behaviour
 * (wait_for_completion_timeout, keep_on_completion, keep_alive, get / status / delete).
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, Tokens, currentRequestOrigin, parseExpandWildcards, toEsError, type Clock, type HostConfig, type Principal } from '@strata/core-common';
import {
  EngineTokens,
  type IndexNameExpressionResolver,
  type IndicesOptions,
  type IndicesService,
  type MetadataStore,
  type SearchService,
} from '@strata/core-engine';
import { analyze } from '../analysis/analyzer.js';
import type { Plan } from '../analysis/resolved.js';
import { execute, type EqlResult } from '../execution/executor.js';
import { parseEql } from '../parser/parser.js';
import { AsyncSearchStore, ownerOf, type StoredSearch } from './async-store.js';
import { EqlBreakerService } from './breaker.js';
import type { EqlSearchRequest } from './eql-request.js';
import { MappingSchema } from './mapping-schema.js';
import { RemoteClusters } from './remote-clusters.js';
import { SearchEventSource } from './search-event-source.js';

export const EqlTokens = {
  AsyncStore: Symbol.for('strata.eql.AsyncSearchStore'),
} as const;

const DEFAULT_MAX_RESULT_WINDOW = 10000;
const KEYWORD_FAMILY = new Set(['keyword', 'constant_keyword', 'wildcard']);

export interface SearchOutcome {
  status: number;
  body: Record<string, unknown>;
}

type RequestOrigin = StoredSearch['origin'];

function requestOrigin(): RequestOrigin {
  const o = currentRequestOrigin();
  if (!o) return undefined;
  return { method: o.method, url: o.url, ...(o.opaqueId ? { opaqueId: o.opaqueId } : {}) };
}

/** what the search-context list shows of a stored search: its targets, keep-alive and originating request */
function storedContext(req: EqlSearchRequest, origin: RequestOrigin): Pick<StoredSearch, 'indices' | 'keepAliveMs' | 'origin'> {
  return { indices: req.indices, keepAliveMs: req.keepAliveMs, ...(origin ? { origin } : {}) };
}

function invalidArgument(reason: string): EsError {
  return new EsError('invalid_argument_exception', 400, reason);
}

@injectable()
export class EqlSearchService {
  constructor(
    @inject(EngineTokens.SearchService) private readonly search: SearchService,
    @inject(EngineTokens.IndicesService) private readonly indices: IndicesService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EqlTokens.AsyncStore) private readonly store: AsyncSearchStore,
    @inject(EqlBreakerService) private readonly breakers: EqlBreakerService,
    @inject(RemoteClusters) private readonly remotes: RemoteClusters,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(EngineTokens.MetadataStore) @optional() private readonly metadata?: MetadataStore,
    @inject(Tokens.HostConfig) @optional() private readonly hostConfig?: HostConfig,
  ) {
    void this.metadata;
    void this.hostConfig;
  }

  // ------------------------------------------------------------------ submit

  async submit(req: EqlSearchRequest, principal: Principal | undefined): Promise<SearchOutcome> {
    const started = this.clock.nanoTime();
    const startMs = this.clock.now();
    // the request that started the search, for the search-context list (captured before any await)
    const origin = requestOrigin();
    const controller = new AbortController();
    const run = this.run(req, controller.signal, started, principal);
    const storeIt = req.keepOnCompletion;
    if (req.waitForCompletionTimeoutMs === undefined) {
      const body = await run;
      return { status: 200, body: storeIt ? this.storeCompleted(body, req, principal, startMs, origin) : body };
    }
    const timeout = req.waitForCompletionTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const raced = await Promise.race([
      run.then(
        (body) => ({ done: true as const, body }),
        (error: unknown) => ({ done: true as const, error }),
      ),
      new Promise<{ done: false }>((resolve) => {
        timer = setTimeout(() => resolve({ done: false }), Math.max(0, timeout));
      }),
    ]);
    if (timer) clearTimeout(timer);
    if (raced.done) {
      if ('error' in raced) throw raced.error;
      return { status: 200, body: storeIt ? this.storeCompleted(raced.body, req, principal, startMs, origin) : raced.body };
    }
    // becomes an async search
    const id = this.store.newId();
    const entry: StoredSearch = {
      id,
      owner: ownerOf(principal),
      startTime: startMs,
      expirationTime: startMs + req.keepAliveMs,
      running: true,
      partial: true,
      ...storedContext(req, origin),
    };
    this.store.create(entry, controller);
    const done = run.then(
      (body) => this.store.complete(id, { response: stripFlags(body), partial: body['is_partial'] === true }),
      (error: unknown) => {
        const e = toEsError(error);
        this.store.complete(id, { error: { status: e.status, body: e.toBody() as unknown as Record<string, unknown> }, partial: true });
      },
    );
    this.store.setDone(id, done);
    return {
      status: 200,
      body: {
        id,
        is_partial: true,
        is_running: true,
        took: Number((this.clock.nanoTime() - started) / 1000000n),
        timed_out: false,
        hits: {},
      },
    };
  }

  private storeCompleted(body: Record<string, unknown>, req: EqlSearchRequest, principal: Principal | undefined, startMs: number, origin: RequestOrigin): Record<string, unknown> {
    const id = this.store.newId();
    this.store.create({
      id,
      owner: ownerOf(principal),
      startTime: startMs,
      expirationTime: this.clock.now() + req.keepAliveMs,
      running: false,
      partial: body['is_partial'] === true,
      response: stripFlags(body),
      completionStatus: 200,
      ...storedContext(req, origin),
    });
    return { id, ...body };
  }

  // ------------------------------------------------------------------ get / status / delete

  async get(id: string, principal: Principal | undefined, waitMs: number | undefined, keepAliveMs: number | undefined): Promise<SearchOutcome> {
    let live = this.store.get(id, principal);
    if (keepAliveMs !== undefined) this.store.extend(id, keepAliveMs);
    if (live.entry.running && waitMs !== undefined && waitMs > 0 && live.done) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([live.done, new Promise<void>((r) => (timer = setTimeout(r, waitMs)))]);
      if (timer) clearTimeout(timer);
      live = this.store.get(id, principal);
    }
    const e = live.entry;
    if (e.running) {
      return {
        status: 200,
        body: { id, is_partial: true, is_running: true, took: Math.max(0, this.clock.now() - e.startTime), timed_out: false, hits: {} },
      };
    }
    if (e.error) return { status: e.error.status, body: e.error.body };
    return { status: 200, body: { id, is_partial: e.partial, is_running: false, ...(e.response ?? {}) } };
  }

  status(id: string, principal: Principal | undefined): Record<string, unknown> {
    const e = this.store.get(id, principal).entry;
    const out: Record<string, unknown> = { id, is_running: e.running, is_partial: e.running ? true : e.partial };
    if (e.running) out['start_time_in_millis'] = e.startTime;
    out['expiration_time_in_millis'] = e.expirationTime;
    if (!e.running) out['completion_status'] = e.completionStatus ?? 200;
    return out;
  }

  delete(id: string, principal: Principal | undefined): void {
    this.store.delete(id, principal);
  }

  // ------------------------------------------------------------------ the search itself

  private indicesOptions(req: EqlSearchRequest): IndicesOptions {
    return { ignoreUnavailable: req.ignoreUnavailable, allowNoIndices: req.allowNoIndices, expandWildcards: parseExpandWildcards(req.expandWildcards) };
  }

  /** runs the search and renders the response body (`is_partial`, `is_running`, `took`, `timed_out`, `hits`) */
  async run(req: EqlSearchRequest, signal: AbortSignal, started = this.clock.nanoTime(), principal?: Principal): Promise<Record<string, unknown>> {
    const { local, remote } = this.remotes.split(req.indices);
    if (remote.size > 0) {
      if (local.length > 0 || remote.size > 1) {
        throw Errors.illegalArgument(
          `EQL searches across the local cluster and remote clusters, or across several remote clusters, are not supported; target one remote cluster at a time`,
        );
      }
      const [[alias, targets]] = [...remote.entries()];
      return this.remotes.forward(alias!, targets!, req, signal);
    }
    // 1. targets
    const options = this.indicesOptions(req);
    const concrete = this.resolver.concreteIndices(req.indices, options, 'read');
    if (concrete.length === 0) throw Errors.indexNotFound(req.indices.join(','));
    const metas = [...new Set(concrete)].sort().map((i) => this.indices.indexMetadata(i));
    // 2. schema and checks of the special fields
    const schema = new MappingSchema(metas, req.runtimeMappings);
    const ts = schema.field(req.timestampField);
    if (ts && ts.type === 'date_nanos') {
      throw invalidArgument(`Timestamp field [${req.timestampField}] of type [date_nanos] is not supported; it must be mapped as [date]`);
    }
    const cat = schema.field(req.eventCategoryField);
    if (cat && !cat.conflict && !KEYWORD_FAMILY.has(cat.type) && !(cat.type === 'text' && cat.exactField)) {
      throw invalidArgument(`Event category field [${req.eventCategoryField}] of type [${cat.type}] is not supported; it must be of the keyword family`);
    }
    for (const m of metas) {
      const win = Number(m.settings['index.max_result_window'] ?? DEFAULT_MAX_RESULT_WINDOW);
      if (req.fetchSize > win) {
        throw Errors.actionRequestValidation([`fetch size [${req.fetchSize}] must be less than or equal to [index.max_result_window] [${win}] of index [${m.name}]`]);
      }
    }
    // 3. the query
    const plan: Plan = analyze(parseEql(req.query), schema, {
      eventCategoryField: req.eventCategoryField,
      timestampField: req.timestampField,
      tiebreakerField: req.tiebreakerField,
    });
    // 4. pinned readers over the shard targets
    const targets = this.search.resolveTargets({
      indices: req.indices,
      indicesOptions: options,
      source: this.search.parseSource({}),
      searchType: 'query_then_fetch',
      typedKeys: false,
      restTotalHitsAsInt: false,
      allowPartialSearchResults: true,
      attributes: {},
      ...(principal ? { principal } : {}),
    });
    const readers = this.search.acquireReaders(targets);
    const shardFailures: unknown[] = [];
    const breaker = this.breakers.child();
    try {
      const source = new SearchEventSource({
        search: this.search,
        targets,
        readers,
        schema,
        timestampField: req.timestampField,
        tiebreakerField: req.tiebreakerField,
        eventCategoryField: req.eventCategoryField,
        filter: req.filter,
        fields: req.fields,
        runtimeMappings: req.runtimeMappings,
        fetchSize: req.fetchSize,
        planFields: plan.fields,
        allowPartialSearchResults: req.allowPartialSearchResults,
        onShardFailures: (f) => shardFailures.push(...f),
        ...(principal ? { principal } : {}),
      });
      let result: EqlResult = await execute(plan, source, {
        size: req.size,
        resultPosition: req.resultPosition,
        maxSamplesPerKey: req.maxSamplesPerKey,
        breaker,
        signal,
      });
      const partial = shardFailures.length > 0;
      if (partial && result.kind === 'sequences' && plan.type === 'sequence' && !req.allowPartialSequenceResults) {
        result = { kind: 'sequences', total: { value: 0, relation: 'eq' }, sequences: [] };
      }
      const body: Record<string, unknown> = {
        is_partial: partial,
        is_running: false,
        took: Number((this.clock.nanoTime() - started) / 1000000n),
        timed_out: false,
        hits: result.kind === 'events' ? { total: result.total, events: result.events } : { total: result.total, sequences: result.sequences },
      };
      if (partial) body['shard_failures'] = dedupeFailures(shardFailures);
      return body;
    } finally {
      breaker.release();
      for (const r of readers.values()) r.decRef();
    }
  }


}

function stripFlags(body: Record<string, unknown>): Record<string, unknown> {
  const rest = { ...body };
  delete rest['id'];
  delete rest['is_partial'];
  delete rest['is_running'];
  return rest;
}

function dedupeFailures(failures: unknown[]): unknown[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const k = JSON.stringify(f);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
