/**
 * The write/read path for the document APIs (index, create, delete, get, mget, update, bulk, refresh, flush):
 * interceptors → write-index resolution (+ auto-create) → mapping (+ dynamic updates) → routing → shard.
 */
import { checkIndexBlock } from '../../cluster/index-blocks.js';
import { inject, injectable, multiInject, optional } from 'inversify';
import { EsError, Errors, ExtensionPoints, RawJson, ScriptContexts, Tokens, currentIndicesAccess, materializeRawJson, mayHoldUnsafeInteger, parseJsonExact, parseSourceKeepingIntegers, stringifyJson, toEsError, type Clock, type IdGenerator, type Logger, type ScriptService } from '@strata/core-common';
import { indexingSlowLog, slowLogThresholds } from '../../slowlog/slow-log.js';
import { DEFAULT_SCRIPT_SERVICE } from '../../script/search-scripts.js';
import { toJsonValue } from '@strata/core-painless';

import type { IndexMetadata, MetadataStore } from '../../cluster/metadata.js';
import {
  EngineTokens,
  type IndexNameExpressionResolver,
  type MapperService,
  type MetadataIndexService,
} from '../../services.js';
import { INGEST_PIPELINE_RAN, type IndexRequest, type IndexRequestContext, type IndexRequestInterceptor } from '../../spi.js';
import type { IndexShardImpl, WriteResult } from '../../shard/index-shard.js';
import type { StorageIndicesService } from '../../shard/indices-service.js';
import { shardIdForDoc } from '../../shard/routing.js';
import { validateWriteConditions, type VersionType } from '../../shard/versioning.js';
import { autoCreateAllowed } from '../../shard/shard-settings.js';
import { TimeBasedIdGenerator } from './id-generator.js';
import { UPDATE_BODY_FIELDS, resolvePendingSource } from './bulk-parser.js';
import { checkImmenseTerms, MAX_TERM_LENGTH } from '../../index/immense-terms.js';
import { packedDocument } from '../../index/packed-documents.js';
import type { ParsedDocument } from '../../mapper/parsed-document.js';
import type { ParseTaskIndex, ParseTaskResult } from '../../mapper/parse-task.js';
import { BulkParseAhead, type ParsedAhead } from './bulk-parse-ahead.js';
import { filterSource, hasFilter, type SourceFilter } from './source-filter.js';
import type { IndexingPressure } from '../../threadpool/indexing-pressure.js';
import type { ThreadPool } from '../../threadpool/thread-pool.js';
import { nextWriteTurn, WRITE_SLICE_MS } from '../../util/write-turns.js';

/**
 * Item-level actions, as Elasticsearch authorizes each document of a write (TransportBulkAction#getAction):
 * `create_doc` allows `op_type=create` only.
 */
export const ItemActions = {
  INDEX: 'indices:data/write/index:op_type/index',
  CREATE: 'indices:data/write/index:op_type/create',
  DELETE: 'indices:data/write/delete',
  UPDATE: 'indices:data/write/update',
  MGET_SHARD: 'indices:data/read/mget[shard]',
} as const;

/** with security on, each item of a write or mget is authorized on its own (a denied item fails with 403) */
function authorizeItem(action: string, index: string | undefined): void {
  const access = currentIndicesAccess();
  if (access && index !== undefined && !access.allowedFor(action, index)) throw access.denied(action, [index]);
}

export type RefreshPolicy = 'true' | 'false' | 'wait_for';

export interface WriteOptions {
  refresh?: RefreshPolicy;
  /** the request body exactly as sent: stored as `_source` when no interceptor replaced the request */
  rawSource?: string | Uint8Array;
}

/** one document API result: HTTP status + ES body */
export interface DocResult {
  status: number;
  body: Record<string, unknown>;
}

export interface DeleteRequest {
  index: string;
  id: string;
  routing?: string;
  version?: number;
  versionType?: VersionType;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
}

export interface GetRequest {
  index: string;
  id: string;
  routing?: string;
  realtime?: boolean;
  refresh?: boolean;
  /** fetch _source (default true) */
  fetchSource?: boolean;
  sourceFilter?: SourceFilter;
  storedFields?: string[];
  version?: number;
  versionType?: VersionType;
  /** return an unfiltered `_source` as a RawJson (the stored text, for REST responses) instead of parsed */
  rawSource?: boolean;
}

export interface UpdateRequest {
  index: string;
  id: string;
  routing?: string;
  doc?: Record<string, unknown>;
  upsert?: Record<string, unknown>;
  docAsUpsert?: boolean;
  detectNoop?: boolean;
  script?: unknown;
  scriptedUpsert?: boolean;
  /** set by update(): the compiled `script` */
  compiledScript?: { run: { run(vars: Record<string, unknown>): unknown }; params: Record<string, unknown> };
  retryOnConflict?: number;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  requireAlias?: boolean;
  /** `_source` of the response's `get` */
  fetchSource?: boolean;
  sourceFilter?: SourceFilter;
  pipeline?: string;
}

export type BulkOp = 'index' | 'create' | 'delete' | 'update';

export interface BulkDefaults {
  index?: string;
  routing?: string;
  pipeline?: string;
  requireAlias?: boolean;
  fetchSource?: boolean;
  sourceFilter?: SourceFilter;
  /**
   * lines (index into the bulk's lines) whose bytes were not well-formed UTF-8 (RestRequest.invalidUtf8Lines):
   * a source line among them fails its item, an action or update line the request, as Jackson's parse does
   */
  invalidUtf8?: ReadonlyMap<number, { col: number; message: string }>;
}

export interface BulkItemRequest {
  op: BulkOp;
  index?: string;
  id?: string;
  routing?: string;
  pipeline?: string;
  version?: number;
  versionType?: VersionType;
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  requireAlias?: boolean;
  requireDataStream?: boolean;
  retryOnConflict?: number;
  /** index/create: the source; update: the update body */
  body?: Record<string, unknown>;
  /** a per-item failure found while parsing the request (reported in the item) */
  bodyError?: EsError;
  /** index/create: the source line as sent (stored verbatim when no interceptor replaced the request) */
  rawSource?: string;
  /** index/create: `rawSource` is not parsed yet (`body`/`bodyError` are set by `resolvePendingSource`) */
  sourcePending?: boolean;
  fetchSource?: boolean;
  sourceFilter?: SourceFilter;
}

/** time spent in interceptors for requests that ran an ingest pipeline (bulk `ingest_took`) */
interface IngestTiming {
  ran: boolean;
  nanos: bigint;
}

export interface BulkResponse {
  took: number;
  /** milliseconds spent in ingest pipelines; present only when some item went through one (ES BulkResponse) */
  ingest_took?: number;
  errors: boolean;
  items: Array<Record<string, Record<string, unknown>>>;
}

const textDecoder = new TextDecoder();

/** Serialises async sections per key (a FIFO chain of promises per key; the entry is dropped when idle). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key);
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev ? prev.then(() => mine) : mine;
    this.tails.set(key, tail);
    try {
      if (prev) await prev;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** number of keys with a running or queued section */
  get size(): number {
    return this.tails.size;
  }
}

function decodeSource(b: Uint8Array): Record<string, unknown> {
  return JSON.parse(textDecoder.decode(b)) as Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawJson);
}

/** ES XContentHelper.update: deep-merges `changes` into `source`; returns whether anything changed */
export /** script results as plain JSON (no engine objects) */
function toPlainJson(v: unknown): unknown {
  return toJsonValue(v);
}

function mergeDoc(source: Record<string, unknown>, changes: Record<string, unknown>, checkNoop: boolean): boolean {
  let modified = false;
  for (const [k, v] of Object.entries(changes)) {
    const old = source[k];
    if (isPlainObject(v) && isPlainObject(old)) {
      modified = mergeDoc(old, v, checkNoop) || modified;
      continue;
    }
    if (!(k in source)) modified = true;
    else if (!modified && checkNoop && !deepEqual(old, v)) modified = true;
    else if (!checkNoop) modified = true;
    source[k] = v;
  }
  return modified;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function routingMissing(index: string, id: string): EsError {
  return new EsError('routing_missing_exception', 400, `routing is required for [${index}]/[${id}]`, {
    metadata: { index_uuid: '_na_', index },
  });
}

/** per-request state: shards to sync/refresh at the end, resolution cache */
class WriteBatch {
  readonly shards = new Set<IndexShardImpl>();
  readonly writeIndexCache = new Map<string, string>();
}

@injectable()
export class DocumentService {
  private readonly interceptors: IndexRequestInterceptor[];
  private readonly ids: IdGenerator;
  private readonly updateLocks = new KeyedMutex();
  private readonly creating = new Map<string, Promise<void>>();

  private readonly scripts: ScriptService;
  private readonly now: () => number;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
    @inject(EngineTokens.MetadataIndexService) private readonly metadataIndex: MetadataIndexService,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @multiInject(ExtensionPoints.IndexRequestInterceptor) @optional() interceptors?: IndexRequestInterceptor[],
    @inject(Tokens.IdGenerator) @optional() ids?: IdGenerator,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
    @inject(Tokens.ScriptService) @optional() scripts?: ScriptService,
    @inject(Tokens.Clock) @optional() clock?: Clock,
    @inject(EngineTokens.ThreadPool) @optional() private readonly threadPool?: ThreadPool,
    @inject(EngineTokens.IndexingPressure) @optional() private readonly pressure?: IndexingPressure,
  ) {
    this.scripts = scripts ?? DEFAULT_SCRIPT_SERVICE;
    this.now = () => (clock ? clock.now() : Date.now());
    this.interceptors = [...(interceptors ?? [])].sort((a, b) => a.order - b.order);
    this.ids = ids ?? new TimeBasedIdGenerator();
  }

  // ------------------------------------------------------------------ helpers

  private meta(index: string): IndexMetadata {
    const m = this.store.current().indices[index];
    if (!m) throw Errors.indexNotFound(index);
    return m;
  }

  private readonly shardsHeaders = new Map<number, Readonly<{ total: number; successful: number; failed: number }>>();

  /** `_shards` of a write response (1 + replicas, one successful copy); shared frozen objects */
  private shardsTotal(meta: IndexMetadata): { total: number; successful: number; failed: number } {
    const total = 1 + (meta.numberOfReplicas ?? 0);
    let h = this.shardsHeaders.get(total);
    if (!h) {
      h = Object.freeze({ total, successful: 1, failed: 0 });
      this.shardsHeaders.set(total, h);
    }
    return h as { total: number; successful: number; failed: number };
  }

  private ctx: IndexRequestContext | null = null;

  /** the (stateless) context handed to interceptors; built once */
  private context(): IndexRequestContext {
    if (this.ctx) return this.ctx;
    return (this.ctx = {
      indexMetadata: (name) => this.store.current().indices[name],
      exists: (name) => {
        const md = this.store.current();
        if (md.indices[name]) return true;
        for (const m of Object.values(md.indices)) if (m.aliases?.[name]) return true;
        try {
          return this.resolver.writeIndex(name) !== undefined;
        } catch {
          return false;
        }
      },
    });
  }

  private isAlias(name: string): boolean {
    for (const m of Object.values(this.store.current().indices)) if (m.aliases?.[name]) return true;
    return false;
  }

  private autoCreateSetting(): unknown {
    const md = this.store.current();
    return md.transientSettings['action.auto_create_index'] ?? md.persistentSettings['action.auto_create_index'];
  }

  /** concrete index for a write; auto-creates a missing index when allowed */
  /** the concrete index a write to `target` went to earlier in the same batch, if it still exists */
  private cachedWriteIndex(target: string, batch: WriteBatch | null): string | undefined {
    const cached = batch?.writeIndexCache.get(target);
    return cached && this.store.current().indices[cached] ? cached : undefined;
  }

  private async writeIndexFor(target: string, batch: WriteBatch | null, requireAlias: boolean, cause: string): Promise<string> {
    const cached = this.cachedWriteIndex(target, batch);
    if (cached) return cached;
    if (requireAlias && !this.isAlias(target)) {
      throw new EsError('index_not_found_exception', 404, `no such index [${target}] and [require_alias] request flag is [true] and [${target}] is not an alias`, {
        metadata: { 'resource.type': 'index_or_alias', 'resource.id': target, index_uuid: '_na_', index: target },
      });
    }
    let concrete = this.resolver.writeIndex(target);
    if (concrete === undefined) {
      if (this.isAlias(target)) {
        throw Errors.illegalArgument(
          `no write index is defined for alias [${target}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`,
        );
      }
      if (!autoCreateAllowed(this.autoCreateSetting(), target)) {
        const setting = String(this.autoCreateSetting());
        const e = Errors.indexNotFound(target);
        throw new EsError(e.type, e.status, `no such index [${target}] and [action.auto_create_index] ${setting === 'false' ? 'is [false]' : `([${setting}]) doesn't match`}`, {
          metadata: e.metadata,
        });
      }
      await this.autoCreate(target, cause);
      concrete = this.resolver.writeIndex(target) ?? (this.store.current().indices[target] ? target : undefined);
      if (concrete === undefined) throw Errors.indexNotFound(target);
    }
    const meta = this.store.current().indices[concrete];
    if (meta && meta.state === 'close') throw Errors.indexClosed(concrete, meta.uuid);
    if (meta) checkIndexBlock(meta, 'write');
    batch?.writeIndexCache.set(target, concrete);
    return concrete;
  }

  private async autoCreate(name: string, cause: string): Promise<void> {
    let p = this.creating.get(name);
    if (!p) {
      p = (async () => {
        try {
          await this.metadataIndex.createIndex(name, {}, cause);
        } catch (err) {
          if (!(err instanceof EsError && err.type === 'resource_already_exists_exception')) throw err;
        }
      })().finally(() => this.creating.delete(name));
      this.creating.set(name, p);
    }
    await p;
  }

  /** concrete single index for reads (index or alias to exactly one index) */
  private readIndexFor(target: string): string {
    const md = this.store.current();
    if (md.indices[target]) {
      if (md.indices[target].state === 'close') throw Errors.indexClosed(target, md.indices[target].uuid);
      return target;
    }
    const names = this.resolver.concreteIndices(target, {
      ignoreUnavailable: false,
      allowNoIndices: false,
      expandWildcards: { open: true, closed: false, hidden: false },
    });
    if (names.length === 0) throw Errors.indexNotFound(target);
    if (names.length > 1) {
      throw Errors.illegalArgument(
        `alias [${target}] has more than one index associated with it [${names.join(', ')}], can't execute a single index op`,
      );
    }
    return names[0];
  }

  /** ES applies an alias' index_routing to writes through it (a different explicit routing is rejected) */
  private aliasRouting(target: string, meta: IndexMetadata, routing: string | undefined): string | undefined {
    if (target === meta.name) return routing;
    const r = meta.aliases?.[target]?.index_routing;
    if (r === undefined || r === null || r === '') return routing;
    if (routing !== undefined && routing !== r) {
      throw Errors.illegalArgument(
        `Alias [${target}] has index routing associated with it [${r}], and was provided with routing value [${routing}], rejecting operation`,
      );
    }
    return r;
  }

  private routingRequired(meta: IndexMetadata): boolean {
    const r = (meta.mappings as Record<string, unknown>)?.['_routing'];
    return isPlainObject(r) && (r['required'] === true || r['required'] === 'true');
  }

  private async finish(batch: WriteBatch, refresh: RefreshPolicy | undefined): Promise<void> {
    const shards = [...batch.shards];
    if (shards.length === 1) await shards[0].sync();
    else if (shards.length > 1) await Promise.all(shards.map((s) => s.sync()));
    if (refresh === 'true') for (const s of shards) await s.refresh('write');
    else if (refresh === 'wait_for') await Promise.all(shards.map((s) => s.waitForRefresh()));
  }

  private validateId(id: string | undefined): void {
    if (id === undefined) return;
    // IndexRouting.process: an IllegalArgumentException (a failed item in _bulk, not a request validation)
    if (id.length === 0) throw Errors.illegalArgument('if _id is specified it must not be empty');
    const bytes = Buffer.byteLength(id, 'utf8');
    if (bytes > 512) {
      throw Errors.actionRequestValidation([`id [${id}] is too long, must be no longer than 512 bytes but was: ${bytes}`]);
    }
  }

  // ------------------------------------------------------------------ index

  /** single-document index/create (REST `PUT /{index}/_doc/{id}` etc.) */
  async index(req: IndexRequest, opts: WriteOptions = {}): Promise<DocResult> {
    authorizeItem(req.opType === 'create' ? ItemActions.CREATE : ItemActions.INDEX, req.index);
    const batch = new WriteBatch();
    const bytes = writeBytes(req.id, opts.rawSource ?? req.source);
    const res = await this.coordinating(1, bytes, async () => {
      const r = await this.onWritePool(`index {[${req.index}][${req.id ?? '_na_'}]}`, bytes, () => this.indexOne(req, batch, opts.rawSource));
      await this.finish(batch, opts.refresh);
      return r;
    });
    if (opts.refresh === 'true' && res.status < 300 && res.body['result'] !== 'noop') res.body['forced_refresh'] = true;
    return res;
  }

  private async indexOne(
    reqIn: IndexRequest,
    batch: WriteBatch,
    rawSource?: string | Uint8Array,
    ingest?: IngestTiming,
    ahead?: ParsedAhead,
    /** `ahead`'s result when the caller waited for it already */
    aheadResult?: ParseTaskResult | null,
  ): Promise<DocResult> {
    const errors = validateWriteConditions(reqIn, reqIn.opType);
    if (errors.length) throw Errors.actionRequestValidation(errors);
    this.validateId(reqIn.id);
    let req = reqIn;
    if (this.interceptors.length > 0) {
      const ctx = this.context();
      const t0 = process.hrtime.bigint();
      try {
        for (const ic of this.interceptors) {
          const answer = ic.intercept(req, ctx);
          const r = answer instanceof Promise ? await answer : answer;
          if (r.kind === 'drop') {
            return {
              status: 200,
              body: {
                _index: req.index,
                _id: req.id ?? null,
                _version: -3,
                result: 'noop',
                _shards: { total: 0, successful: 0, failed: 0 },
              },
            };
          }
          if (r.kind === 'fail') throw r.error;
          req = r.request;
        }
      } finally {
        if (ingest && (reqIn.attributes[INGEST_PIPELINE_RAN] === true || req.attributes[INGEST_PIPELINE_RAN] === true)) {
          ingest.ran = true;
          ingest.nanos += process.hrtime.bigint() - t0;
        }
      }
    }
    const concrete = this.cachedWriteIndex(req.index, batch) ?? (await this.writeIndexFor(req.index, batch, !!req.requireAlias, 'auto(bulk api)'));
    let meta = this.meta(concrete);
    const autoId = req.id === undefined || req.id === null;
    const id = autoId ? this.ids.next() : (req.id as string);
    try {
      const routing = this.aliasRouting(req.index, meta, req.routing ?? undefined);
      if (routing === undefined && this.routingRequired(meta)) throw routingMissing(concrete, id);
      // the source as sent is stored verbatim (like ES) unless an interceptor replaced the request
      const raw = req === reqIn ? rawSource : undefined;
      // the indexing slow log times the parse and the shard write, only when the index sets a threshold
      const slow = slowLogThresholds(meta.settings, 'index') !== undefined;
      const t0 = slow ? process.hrtime.bigint() : 0n;
      // parsed ahead in a parse thread: used when the request is the one sent and the mapping the one parsed with
      if (ahead && raw !== undefined && req.attributes[INGEST_PIPELINE_RAN] !== true && (routing === undefined || routing.length <= MAX_ROUTING_CHARS_PACKED)) {
        const r = aheadResult !== undefined ? aheadResult : await ahead.result;
        // the index as it is now (the wait let other requests in)
        meta = this.meta(concrete);
        const packed = r?.chunk && sameMapping(ahead.index, meta) ? packedDocument(r.chunk, ahead.slot, id, routing) : null;
        if (packed) return this.indexParsed(req, concrete, meta, id, routing, autoId, packed, batch, slow, t0);
      }
      let parsed = this.mappers.documentMapper(meta).parse(req.source, id, routing, raw);
      if (parsed.dynamicMappingUpdate) {
        await this.metadataIndex.putMapping([concrete], parsed.dynamicMappingUpdate);
        const updated = this.meta(concrete);
        if (updated.mappingVersion !== meta.mappingVersion) {
          meta = updated;
          parsed = this.mappers.documentMapper(meta).parse(req.source, id, routing, raw);
        }
      }
      return this.indexParsed(req, concrete, meta, id, routing, autoId, parsed.doc, batch, slow, t0);
    } catch (err) {
      // a bulk item's failure names the concrete index and the id (generated or not) it was written under
      if (err !== null && typeof err === 'object') FAILED_WRITE_TARGET.set(err, { index: concrete, id });
      throw err;
    }
  }

  /** the shard write of a parsed document (the event loop's parse or a parse thread's) */
  private indexParsed(
    req: IndexRequest,
    concrete: string,
    meta: IndexMetadata,
    id: string,
    routing: string | undefined,
    autoId: boolean,
    doc: ParsedDocument,
    batch: WriteBatch,
    slow: boolean,
    t0: bigint,
  ): DocResult {
    const source = doc.source ?? Buffer.from(JSON.stringify(req.source), 'utf8');
    const shard = this.writeShard(concrete, meta, shardIdForDoc(meta, id, routing), 'index', id);
    let r: WriteResult;
    try {
      // a parse thread checked the terms it packed
      if (!doc.packed) checkImmenseTerms(doc);
      r = shard.indexDoc({
        id,
        routing,
        opType: req.opType,
        doc,
        source,
        autoGeneratedId: autoId,
        version: req.version,
        versionType: req.versionType,
        ifSeqNo: req.ifSeqNo,
        ifPrimaryTerm: req.ifPrimaryTerm,
      });
    } catch (err) {
      shard.noteIndexFailed();
      throw err;
    }
    batch.shards.add(shard);
    if (slow) {
      indexingSlowLog(this.logger, meta.settings, { index: concrete, uuid: meta.uuid, id, routing: routing ?? undefined, tookNanos: process.hrtime.bigint() - t0, source });
    }
    return {
      status: r.result === 'created' ? 201 : 200,
      body: this.writeBody(concrete, id, r, meta),
    };
  }

  private writeBody(index: string, id: string, r: WriteResult, meta: IndexMetadata): Record<string, unknown> {
    return {
      _index: index,
      _id: id,
      _version: r.version,
      result: r.result,
      _shards: this.shardsTotal(meta),
      _seq_no: r.seqNo,
      _primary_term: r.primaryTerm,
    };
  }

  // ------------------------------------------------------------------ delete

  async delete(req: DeleteRequest, opts: WriteOptions = {}): Promise<DocResult> {
    authorizeItem(ItemActions.DELETE, req.index);
    const batch = new WriteBatch();
    const bytes = writeBytes(req.id, undefined);
    const res = await this.coordinating(1, bytes, async () => {
      const r = await this.onWritePool(`delete {[${req.index}][${req.id}]}`, bytes, () => this.deleteOne(req, batch));
      await this.finish(batch, opts.refresh);
      return r;
    });
    if (opts.refresh === 'true') res.body['forced_refresh'] = true;
    return res;
  }

  /** a data stream takes only op_type create through its name; anything else addresses a backing index */
  private refuseDataStream(target: string): void {
    if (this.resolver.isDataStream?.(target)) throw Errors.illegalArgument('only write ops with an op_type of create are allowed in data streams');
  }

  private async deleteOne(req: DeleteRequest, batch: WriteBatch): Promise<DocResult> {
    const errors = validateWriteConditions(req, 'delete');
    if (errors.length) throw Errors.actionRequestValidation(errors);
    this.refuseDataStream(req.index);
    let concrete = batch.writeIndexCache.get(req.index);
    if (!concrete && req.versionType !== undefined && req.versionType !== 'internal') {
      // as ES: deletes only auto-create a missing index when external versioning is used
      concrete = await this.writeIndexFor(req.index, batch, false, 'auto(bulk api)');
    }
    if (!concrete) {
      concrete = this.resolver.writeIndex(req.index);
      if (concrete === undefined) {
        if (this.isAlias(req.index)) {
          throw Errors.illegalArgument(
            `no write index is defined for alias [${req.index}]. The write index may be explicitly disabled using is_write_index=false or the alias points to multiple indices without one being designated as a write index`,
          );
        }
        throw Errors.indexNotFound(req.index);
      }
      batch.writeIndexCache.set(req.index, concrete);
    }
    const meta = this.meta(concrete);
    if (meta.state === 'close') throw Errors.indexClosed(concrete, meta.uuid);
    checkIndexBlock(meta, 'write');
    const routing = this.aliasRouting(req.index, meta, req.routing);
    if (routing === undefined && this.routingRequired(meta)) throw routingMissing(concrete, req.id);
    const shard = this.writeShard(concrete, meta, shardIdForDoc(meta, req.id, routing), 'delete', req.id);
    const r = shard.deleteDoc({
      id: req.id,
      routing,
      version: req.version,
      versionType: req.versionType,
      ifSeqNo: req.ifSeqNo,
      ifPrimaryTerm: req.ifPrimaryTerm,
    });
    batch.shards.add(shard);
    return { status: r.result === 'deleted' ? 200 : 404, body: this.writeBody(concrete, req.id, r, meta) };
  }

  // ------------------------------------------------------------------ get / mget

  async get(req: GetRequest): Promise<DocResult> {
    const index = this.readIndexFor(req.index);
    const meta = this.meta(index);
    const routing = this.aliasRouting(req.index, meta, req.routing);
    if (routing === undefined && this.routingRequired(meta)) throw routingMissing(index, req.id);
    const shard = this.indices.shard(index, shardIdForDoc(meta, req.id, routing), () =>
      Errors.noShardAvailable(`No shard available for [get [${index}][${req.id}]: routing [${routing ?? 'null'}]]`),
    );
    if (req.refresh) await shard.refresh('get');
    const g = shard.get(req.id, req.realtime !== false);
    if (!g.found) return { status: 404, body: { _index: index, _id: req.id, found: false } };
    if (req.version !== undefined) {
      const vt = req.versionType ?? 'internal';
      const ok = vt === 'internal' ? g.version === req.version : vt === 'external' ? g.version === req.version : g.version === req.version;
      if (!ok) {
        throw Errors.versionConflict(index, req.id, `version conflict, current version [${g.version}] is different than the one provided [${req.version}]`, shard.shardId, meta.uuid);
      }
    }
    const body: Record<string, unknown> = {
      _index: index,
      _id: req.id,
      _version: g.version,
      _seq_no: g.seqNo,
      _primary_term: g.primaryTerm,
    };
    if (g.routing !== undefined) body['_routing'] = g.routing;
    if (g.ignored) body['_ignored'] = g.ignored;
    body['found'] = true;
    const wantSource = req.fetchSource ?? (req.storedFields === undefined || req.storedFields.includes('_source'));
    if (wantSource && g.source) {
      if (hasFilter(req.sourceFilter)) body['_source'] = filterSource(parseSourceKeepingIntegers(textDecoder.decode(g.source)) as Record<string, unknown>, req.sourceFilter);
      // unfiltered: the stored bytes go to the client verbatim (as ES), without a parse
      else body['_source'] = req.rawSource ? new RawJson(textDecoder.decode(g.source)) : decodeSource(g.source);
    }
    return { status: 200, body };
  }

  /** GET /_mget: docs[] or ids[] (with a default index) */
  async mget(body: Record<string, unknown>, defaults: { index?: string; routing?: string; realtime?: boolean; refresh?: boolean; fetchSource?: boolean; sourceFilter?: SourceFilter; storedFields?: string[]; rawSource?: boolean }): Promise<{ docs: Record<string, unknown>[] }> {
    const items: Array<{ index?: string; id?: unknown; routing?: string; fetchSource?: boolean; sourceFilter?: SourceFilter; storedFields?: string[] }> = [];
    const known = new Set(['docs', 'ids']);
    for (const k of Object.keys(body)) {
      if (!known.has(k)) throw Errors.parsing(`unknown key [${k}] for a ${Array.isArray(body[k]) ? 'START_ARRAY' : 'VALUE_STRING'}, expected [docs] or [ids]`);
    }
    if (Array.isArray(body['docs'])) {
      for (const d of body['docs'] as unknown[]) {
        if (!isPlainObject(d)) throw Errors.illegalArgument('docs array element should include an object');
        const it: (typeof items)[number] = {
          index: d['_index'] !== undefined ? String(d['_index']) : defaults.index,
          id: d['_id'],
          routing: d['routing'] !== undefined ? String(d['routing']) : d['_routing'] !== undefined ? String(d['_routing']) : defaults.routing,
          fetchSource: defaults.fetchSource,
          sourceFilter: defaults.sourceFilter,
          storedFields: Array.isArray(d['stored_fields']) ? (d['stored_fields'] as unknown[]).map(String) : defaults.storedFields,
        };
        const s = d['_source'];
        if (s !== undefined) {
          if (s === false) it.fetchSource = false;
          else if (s === true) it.fetchSource = true;
          else if (typeof s === 'string' || Array.isArray(s)) {
            it.fetchSource = true;
            it.sourceFilter = { includes: (Array.isArray(s) ? s : [s]).map(String), excludes: [] };
          } else if (isPlainObject(s)) {
            const inc = s['includes'] ?? s['include'];
            const exc = s['excludes'] ?? s['exclude'];
            it.fetchSource = true;
            it.sourceFilter = {
              includes: inc === undefined ? [] : (Array.isArray(inc) ? inc : [inc]).map(String),
              excludes: exc === undefined ? [] : (Array.isArray(exc) ? exc : [exc]).map(String),
            };
          }
        }
        items.push(it);
      }
    } else if (Array.isArray(body['ids'])) {
      for (const id of body['ids'] as unknown[]) {
        items.push({ index: defaults.index, id, routing: defaults.routing, fetchSource: defaults.fetchSource, sourceFilter: defaults.sourceFilter, storedFields: defaults.storedFields });
      }
    }
    const errs: string[] = [];
    items.forEach((it, i) => {
      if (it.index === undefined) errs.push(`index is missing for doc ${i}`);
      if (it.id === undefined || it.id === null) errs.push(`id is missing for doc ${i}`);
    });
    if (items.length === 0) errs.push('no documents to get');
    if (errs.length) throw Errors.actionRequestValidation(errs);
    const docs: Record<string, unknown>[] = [];
    for (const it of items) {
      const id = String(it.id);
      try {
        authorizeItem(ItemActions.MGET_SHARD, it.index);
        const r = await this.get({
          index: it.index as string,
          id,
          routing: it.routing,
          realtime: defaults.realtime,
          refresh: defaults.refresh,
          fetchSource: it.fetchSource,
          sourceFilter: it.sourceFilter,
          storedFields: it.storedFields,
          rawSource: defaults.rawSource,
        });
        docs.push(r.body);
      } catch (err) {
        const e = toEsError(err);
        docs.push({ _index: it.index, _id: id, error: { root_cause: e.guessRootCauses().map((c) => ({ type: c.type, reason: c.reason, ...c.metadata })), ...e.toObject() } });
      }
    }
    return { docs };
  }

  // ------------------------------------------------------------------ update

  async update(req: UpdateRequest, opts: WriteOptions = {}): Promise<DocResult> {
    authorizeItem(ItemActions.UPDATE, req.index);
    const batch = new WriteBatch();
    const bytes = writeBytes(req.id, { doc: req.doc, upsert: req.upsert, script: req.script });
    const res = await this.coordinating(1, bytes, async () => {
      const r = await this.onWritePool(`update {[${req.index}][${req.id}]}`, bytes, () => this.updateOne(req, batch));
      await this.finish(batch, opts.refresh);
      return r;
    });
    if (opts.refresh === 'true' && res.body['result'] !== 'noop') res.body['forced_refresh'] = true;
    return res;
  }

  private async updateOne(reqIn: UpdateRequest, batch: WriteBatch): Promise<DocResult> {
    let req = reqIn;
    const errs: string[] = [];
    if (req.script === undefined && req.doc === undefined) errs.push('script or doc is missing');
    if (req.script !== undefined && req.doc !== undefined) errs.push("can't provide both script and doc");
    if (req.docAsUpsert && req.upsert !== undefined) errs.push("can't provide both upsert request and doc_as_upsert");
    if (req.ifSeqNo !== undefined && req.retryOnConflict !== undefined && req.retryOnConflict > 0) {
      errs.push('compare and write operations can not be retried');
    }
    if (errs.length) throw Errors.actionRequestValidation(errs);
    this.refuseDataStream(req.index);
    if (req.script !== undefined) {
      // compile once before any attempt: a bad script is the request's error
      const ref = this.scripts.parse(req.script);
      req = { ...req, compiledScript: { run: this.scripts.compile(ref, ScriptContexts.UPDATE), params: ref.params } };
    }
    const retries = req.retryOnConflict ?? 0;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.updateAttempt(req, batch);
      } catch (err) {
        if (err instanceof EsError && err.type === 'version_conflict_engine_exception' && attempt < retries) continue;
        throw err;
      }
    }
  }

  /** the started primary a write goes to; a shard that failed to open answers 503 unavailable_shards_exception */
  private writeShard(index: string, meta: IndexMetadata, shardId: number, op: string, id: string): IndexShardImpl {
    return this.indices.shard(index, shardId, () =>
      Errors.unavailableShards(index, shardId, `BulkShardRequest [[${index}][${shardId}]] containing [${op} {[${index}][${id}]}]`, meta.uuid),
    );
  }

  private async updateAttempt(reqIn: UpdateRequest, batch: WriteBatch): Promise<DocResult> {
    let req = reqIn;
    const concrete = await this.writeIndexFor(req.index, batch, !!req.requireAlias, 'auto(update api)');
    const meta = this.meta(concrete);
    req = { ...req, routing: this.aliasRouting(req.index, meta, req.routing) };
    if (req.routing === undefined && this.routingRequired(meta)) throw routingMissing(concrete, req.id);
    const shardId = shardIdForDoc(meta, req.id, req.routing);
    // get-modify-write of one document runs alone: concurrent updates of the same id queue up instead of
    // failing each other with version conflicts (the window between get and write spans awaits)
    return this.updateLocks.run(`${meta.uuid}\u0000${shardId}\u0000${req.id}`, () => this.updateLocked(req, concrete, meta, shardId, batch));
  }

  private async updateLocked(req: UpdateRequest, concrete: string, meta: IndexMetadata, shardId: number, batch: WriteBatch): Promise<DocResult> {
    const shard = this.writeShard(concrete, meta, shardId, 'update', req.id);
    const g = shard.get(req.id, true);
    const getPart = (src: Record<string, unknown>, seqNo: number, term: number): Record<string, unknown> | undefined => {
      if (!req.fetchSource) return undefined;
      return {
        _seq_no: seqNo,
        _primary_term: term,
        found: true,
        _source: hasFilter(req.sourceFilter) ? filterSource(src, req.sourceFilter) : src,
      };
    };
    if (!g.found) {
      if (req.ifSeqNo !== undefined) {
        throw Errors.versionConflict(concrete, req.id, `version conflict, required seqNo [${req.ifSeqNo}], primary term [${req.ifPrimaryTerm ?? 0}] but no document was found`, shard.shardId, meta.uuid);
      }
      if (!req.docAsUpsert && req.upsert === undefined) throw Errors.documentMissing(concrete, req.id, shard.shardId, meta.uuid);
      let src = req.docAsUpsert ? (req.doc as Record<string, unknown>) : (req.upsert as Record<string, unknown>);
      if (req.compiledScript && req.scriptedUpsert) {
        const out = this.runUpdateScript(req, concrete, structuredClone(src), 'create', undefined, undefined);
        if (out.op === 'noop' || out.op === 'none') {
          return { status: 200, body: { _index: concrete, _id: req.id, _version: -1, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 } } };
        }
        if (out.op !== 'create') throw Errors.illegalArgument(`Invalid upsert operation [${out.op}] for script, only [create, none] are allowed`);
        src = out.source;
      }
      const res = await this.indexOne(
        { index: concrete, id: req.id, routing: req.routing, opType: 'create', source: src, pipeline: req.pipeline, attributes: {} },
        batch,
      );
      const gp = getPart(src, res.body['_seq_no'] as number, res.body['_primary_term'] as number);
      if (gp) res.body['get'] = gp;
      return res;
    }
    if (req.ifSeqNo !== undefined && (g.seqNo !== req.ifSeqNo || g.primaryTerm !== req.ifPrimaryTerm)) {
      throw Errors.versionConflict(
        concrete,
        req.id,
        `version conflict, required seqNo [${req.ifSeqNo}], primary term [${req.ifPrimaryTerm ?? 0}]. current document has seqNo [${g.seqNo}] and primary term [${g.primaryTerm}]`,
        shard.shardId,
        meta.uuid,
      );
    }
    // a partial document leaves the other fields as stored: integers beyond 2^53 among them keep every digit
    // (RawJson leaves, written back verbatim); a script sees JSON's numbers
    const storedText = g.source && !req.compiledScript ? textDecoder.decode(g.source) : undefined;
    const keepIntegers = storedText !== undefined && mayHoldUnsafeInteger(storedText);
    let current = keepIntegers ? (parseJsonExact(storedText) as Record<string, unknown>) : g.source ? decodeSource(g.source) : {};
    let changed: boolean;
    if (req.compiledScript) {
      const out = this.runUpdateScript(req, concrete, current, 'index', g.version, g.routing);
      current = out.source;
      if (out.op === 'delete') {
        const r = shard.deleteDoc({ id: req.id, routing: req.routing ?? g.routing, ifSeqNo: g.seqNo, ifPrimaryTerm: g.primaryTerm });
        batch.shards.add(shard);
        return { status: 200, body: this.writeBody(concrete, req.id, r, meta) };
      }
      if (out.op !== 'index' && out.op !== 'noop' && out.op !== 'none') {
        throw Errors.illegalArgument(`Operation type [${out.op}] not allowed, only [none, noop, index, delete] are allowed`);
      }
      changed = out.op === 'index';
    } else changed = mergeDoc(current, req.doc ?? {}, req.detectNoop !== false);
    if (!changed && (req.detectNoop !== false || req.compiledScript)) {
      shard.noteNoopUpdate();
      const body: Record<string, unknown> = {
        _index: concrete,
        _id: req.id,
        _version: g.version,
        result: 'noop',
        _shards: { total: 0, successful: 0, failed: 0 },
        _seq_no: g.seqNo,
        _primary_term: g.primaryTerm,
      };
      const gp = getPart(current, g.seqNo, g.primaryTerm);
      if (gp) body['get'] = gp;
      return { status: 200, body };
    }
    const exactText = keepIntegers ? stringifyJson(current) : undefined;
    const res = await this.indexOne(
      {
        index: concrete,
        id: req.id,
        routing: req.routing ?? g.routing,
        opType: 'index',
        source: exactText !== undefined ? (materializeRawJson(current) as Record<string, unknown>) : current,
        ifSeqNo: g.seqNo,
        ifPrimaryTerm: g.primaryTerm,
        pipeline: req.pipeline,
        attributes: {},
      },
      batch,
      exactText,
    );
    const gp = getPart(current, res.body['_seq_no'] as number, res.body['_primary_term'] as number);
    if (gp) res.body['get'] = gp;
    return res;
  }

  /** runs an update script with `ctx` (`_source`, `op`, `_now`, metadata); returns the op and the new source */
  private runUpdateScript(req: UpdateRequest, index: string, source: Record<string, unknown>, op: string, version: number | undefined, routing: string | undefined): { op: string; source: Record<string, unknown> } {
    const ctx: Record<string, unknown> = { _source: source, op, _now: this.now(), _index: index, _id: req.id, _type: '_doc', _routing: routing ?? req.routing ?? null };
    if (version !== undefined) ctx['_version'] = version;
    const sc = req.compiledScript!;
    sc.run.run({ ctx, params: sc.params });
    const newSource = ctx['_source'];
    if (newSource === null || typeof newSource !== 'object' || Array.isArray(newSource)) throw Errors.illegalArgument('[ctx._source] must be a map');
    return { op: String(ctx['op']), source: toPlainJson(newSource) as Record<string, unknown> };
  }

  // ------------------------------------------------------------------ bulk

  /**
   * runs a write request with its bytes counted as coordinating indexing pressure until it has answered;
   * past `indexing_pressure.memory.limit` it is rejected (429 es_rejected_execution_exception) before
   * anything of it is applied
   */
  private async coordinating<T>(ops: number, bytes: number, task: () => Promise<T>): Promise<T> {
    const release = this.pressure?.markCoordinatingOperationStarted(ops, bytes);
    try {
      return await task();
    } finally {
      release?.();
    }
  }

  /** the metadata of an index, alias or data stream's write index, if it exists (for parsing a bulk ahead) */
  private aheadMeta(name: string): IndexMetadata | undefined {
    const md = this.store.current();
    if (md.indices[name]) return this.mappers.parsableInThread?.(md.indices[name]) ? md.indices[name] : undefined;
    let m: IndexMetadata | undefined;
    try {
      const w = this.resolver.writeIndex(name);
      m = w === undefined ? undefined : md.indices[w];
    } catch {
      return undefined;
    }
    return m && this.mappers.parsableInThread?.(m) ? m : undefined;
  }

  /** runs a single-document write's primary operation in a write-pool slot, its bytes counted as primary */
  private async onWritePool<T>(describe: string, bytes: number, task: () => Promise<T>): Promise<T> {
    const pool = this.threadPool?.write;
    const primary = async (): Promise<T> => {
      const release = this.pressure?.markPrimaryOperationLocalToCoordinatingNodeStarted(1, bytes);
      try {
        return await task();
      } finally {
        release?.();
      }
    };
    return pool ? pool.execute(describe, primary) : primary();
  }

  async bulk(items: BulkItemRequest[], opts: WriteOptions = {}): Promise<BulkResponse> {
    let bytes = 0;
    if (this.pressure) for (const it of items) bytes += writeBytes(it.id, it.rawSource ?? it.body);
    return this.coordinating(items.length, bytes, () => this.bulkOnPool(items, opts, bytes));
  }

  private async bulkOnPool(items: BulkItemRequest[], opts: WriteOptions, bytes: number): Promise<BulkResponse> {
    const start = process.hrtime.bigint();
    const pool = this.threadPool?.write;
    if (pool) {
      try {
        await pool.acquire(() => `BulkShardRequest containing [${items.length}] requests`);
      } catch (e) {
        // the write pool's queue is full: every item fails with the rejection, as a rejected shard bulk does
        const reason = toEsError(e).toObject();
        return {
          took: Number((process.hrtime.bigint() - start) / 1_000_000n),
          errors: true,
          items: items.map((it) => ({ [it.op]: { _index: it.index ?? '', _id: it.id ?? null, status: 429, error: reason } })),
        };
      }
    }
    let held = pool !== undefined;
    // the items are applied on their (local) primaries: counted as primary bytes until applied
    const releasePrimary = this.pressure?.markPrimaryOperationLocalToCoordinatingNodeStarted(items.length, bytes);
    try {
      return await this.bulkItems(items, opts, start, () => {
        releasePrimary?.();
        if (held) pool!.release();
        held = false;
      });
    } finally {
      releasePrimary?.();
      if (held) pool!.release();
    }
  }

  private async bulkItems(items: BulkItemRequest[], opts: WriteOptions, start: bigint, applied: () => void): Promise<BulkResponse> {
    const batch = new WriteBatch();
    const out: Array<Record<string, Record<string, unknown>>> = [];
    const ingest: IngestTiming = { ran: false, nanos: 0n };
    let errors = false;
    let n = 0;
    let sliceStart = performance.now();
    const ahead = this.indices.parseDocuments
      ? BulkParseAhead.plan(items, (name) => this.aheadMeta(name), (task) => this.indices.parseDocuments!(task))
      : null;
    for (let ii = 0; ii < items.length; ii++) {
      const it = items[ii];
      // a long bulk lets other requests in (searches, other bulks taking their write slots) every millisecond
      // or so; running bulks take turns, a slice each per turn of the event loop, so a search waits for one
      if (++n % BULK_CHECK_EVERY === 0 && performance.now() - sliceStart >= WRITE_SLICE_MS) {
        await nextWriteTurn();
        sliceStart = performance.now();
      }
      let res: DocResult;
      let indexName = it.index ?? '';
      let id: string | null = it.id ?? null;
      const parsedAhead = ahead?.item(ii);
      // a source a parse thread packed is a valid JSON object: parsed here only if something reads it
      let lazy = false;
      let aheadResult: ParseTaskResult | null | undefined;
      if (it.sourcePending) {
        aheadResult = parsedAhead ? await parsedAhead.result : null;
        if (aheadResult?.chunk && aheadResult.chunk.docAt[parsedAhead!.slot] >= 0) lazy = true;
        else resolvePendingSource(it);
      }
      try {
        if (it.bodyError) throw it.bodyError;
        authorizeItem(it.op === 'create' ? ItemActions.CREATE : it.op === 'index' ? ItemActions.INDEX : it.op === 'delete' ? ItemActions.DELETE : ItemActions.UPDATE, it.index);
        switch (it.op) {
          case 'index':
          case 'create': {
            res = await this.indexOne(lazy ? lazySourceRequest(it, indexName) : bulkIndexRequest(it, indexName, it.body ?? {}), batch, it.rawSource, ingest, parsedAhead, aheadResult);
            break;
          }
          case 'delete':
            res = await this.deleteOne(
              {
                index: indexName,
                id: it.id as string,
                routing: it.routing,
                version: it.version,
                versionType: it.versionType,
                ifSeqNo: it.ifSeqNo,
                ifPrimaryTerm: it.ifPrimaryTerm,
              },
              batch,
            );
            break;
          case 'update':
            res = await this.updateOne(bulkUpdateRequest(it), batch);
            break;
        }
        indexName = String(res.body['_index'] ?? indexName);
        id = res.body['_id'] === undefined ? id : (res.body['_id'] as string | null);
        res.body['status'] = res.status;
        out.push({ [it.op]: res.body });
      } catch (err) {
        errors = true;
        const e = toEsError(err);
        const at = err !== null && typeof err === 'object' ? FAILED_WRITE_TARGET.get(err) : undefined;
        const idx = (e.metadata['index'] as string | undefined) ?? at?.index ?? indexName;
        out.push({ [it.op]: { _index: idx, _id: at?.id ?? id, status: e.status, error: e.toObject() } });
      }
    }
    // the write slot covers applying the items; the translog fsync is shared by whoever waits for it
    applied();
    await this.finish(batch, opts.refresh);
    if (opts.refresh === 'true') {
      for (const o of out) {
        const v = Object.values(o)[0];
        if (!v['error'] && v['result'] !== 'noop') v['forced_refresh'] = true;
      }
    }
    const took = Number((process.hrtime.bigint() - start) / 1_000_000n);
    if (ingest.ran) return { took, ingest_took: Number(ingest.nanos / 1_000_000n), errors, items: out };
    return { took, errors, items: out };
  }

  // ------------------------------------------------------------------ refresh / flush

  async refresh(indices: string[]): Promise<{ _shards: { total: number; successful: number; failed: number } }> {
    let total = 0;
    let successful = 0;
    for (const name of indices) {
      const r = await this.indices.refreshIndex(name);
      total += r.total;
      successful += r.successful;
    }
    return { _shards: { total, successful, failed: 0 } };
  }

  /** merges run in the node's merge threads: the event loop serves searches and bulks meanwhile */
  async forceMerge(
    indices: string[],
    opts: { maxNumSegments: number; onlyExpungeDeletes: boolean; flush: boolean },
  ): Promise<{ _shards: { total: number; successful: number; failed: number } }> {
    let total = 0;
    let successful = 0;
    for (const name of indices) {
      const r = await this.indices.forceMergeIndex(name, opts);
      total += r.total;
      successful += r.successful;
    }
    return { _shards: { total, successful, failed: 0 } };
  }

  flush(indices: string[]): { _shards: { total: number; successful: number; failed: number } } {
    let total = 0;
    let successful = 0;
    for (const name of indices) {
      const r = this.indices.flushIndex(name);
      total += r.total;
      successful += r.successful;
    }
    return { _shards: { total, successful, failed: 0 } };
  }
}

/**
 * what a write operation weighs in indexing pressure (as Elasticsearch's IndexRequest#ramBytesUsed): a
 * fixed per-operation overhead, its id and its source as sent (a body that only exists parsed is measured
 * re-encoded)
 */
function writeBytes(id: string | undefined, source: string | Uint8Array | object | undefined): number {
  let n = WRITE_OP_OVERHEAD_BYTES + (id ? id.length : 0);
  if (typeof source === 'string') n += Buffer.byteLength(source);
  else if (source instanceof Uint8Array) n += source.byteLength;
  else if (source !== undefined && source !== null) n += Buffer.byteLength(JSON.stringify(source) ?? '');
  return n;
}

/** Elasticsearch's shallow size of an index request */
const WRITE_OP_OVERHEAD_BYTES = 72;

/** a bulk index/create item's request */
function bulkIndexRequest(it: BulkItemRequest, index: string, source: Record<string, unknown>): IndexRequest {
  return {
    index,
    id: it.id,
    routing: it.routing,
    opType: it.op === 'create' ? 'create' : 'index',
    source,
    pipeline: it.pipeline,
    version: it.version,
    versionType: it.versionType,
    ifSeqNo: it.ifSeqNo,
    ifPrimaryTerm: it.ifPrimaryTerm,
    requireAlias: it.requireAlias,
    requireDataStream: it.requireDataStream,
    attributes: {},
  };
}

/**
 * the concrete index and id of a write that failed once they were known (a mapping or parse error, a version
 * conflict): a `_bulk` item's failure names them, as Elasticsearch's shard-level failures do — the backing index of
 * a data stream, the id the node generated
 */
const FAILED_WRITE_TARGET = new WeakMap<object, { index: string; id: string }>();

/** the bulk item whose source line a lazy request's `source` parses (see `lazySourceRequest`) */
const LAZY_ITEM = Symbol('lazySourceItem');

/** turns a lazy request's `source` into a plain property holding `value` */
function settleSource(req: IndexRequest, value: Record<string, unknown>): void {
  Object.defineProperty(req, 'source', { value, writable: true, enumerable: true, configurable: true });
}

/**
 * `source` of every lazy request: one getter and setter shared by all (a literal with accessors of its own is
 * a dictionary-mode object of about 1 KB, made for each bulk document), enumerable, so a copy of the request
 * (`{ ...req }`) reads it
 */
const LAZY_SOURCE: PropertyDescriptor = {
  get(this: IndexRequest & { [LAZY_ITEM]: BulkItemRequest }): Record<string, unknown> {
    const it = this[LAZY_ITEM];
    resolvePendingSource(it);
    if (it.bodyError) throw it.bodyError;
    const value = it.body ?? {};
    settleSource(this, value);
    return value;
  },
  set(this: IndexRequest, value: Record<string, unknown>): void {
    settleSource(this, value);
  },
  enumerable: true,
  configurable: true,
};

/**
 * the same, its `source` parsed from the item's source line (valid: a parse thread packed it) when first read —
 * by an interceptor, or the event loop's parse after all; a write replaces it
 */
function lazySourceRequest(it: BulkItemRequest, index: string): IndexRequest {
  const req = {
    index,
    id: it.id,
    routing: it.routing,
    opType: it.op === 'create' ? 'create' : 'index',
    pipeline: it.pipeline,
    version: it.version,
    versionType: it.versionType,
    ifSeqNo: it.ifSeqNo,
    ifPrimaryTerm: it.ifPrimaryTerm,
    requireAlias: it.requireAlias,
    requireDataStream: it.requireDataStream,
    attributes: {},
    [LAZY_ITEM]: it,
  } as unknown as IndexRequest;
  Object.defineProperty(req, 'source', LAZY_SOURCE);
  return req;
}

/** whether a chunk was parsed with the index's current mapping and settings */
function sameMapping(ix: ParseTaskIndex, meta: IndexMetadata): boolean {
  return (
    ix.uuid === meta.uuid &&
    ix.mappingVersion === meta.mappingVersion &&
    ix.settingsVersion === meta.settingsVersion &&
    ix.mappings === meta.mappings &&
    ix.settings === meta.settings
  );
}

/** a routing longer than this (UTF-16 units) could be an immense term: its document is parsed on the event loop */
const MAX_ROUTING_CHARS_PACKED = Math.floor(MAX_TERM_LENGTH / 3);

/** items applied between two looks at the clock */
const BULK_CHECK_EVERY = 8;

function bulkUpdateRequest(it: BulkItemRequest): UpdateRequest {
  const b = it.body ?? {};
  for (const k of Object.keys(b)) {
    if (!UPDATE_BODY_FIELDS.has(k)) throw Errors.xContentParse(`[UpdateRequest] unknown field [${k}]`, 1, 2);
  }
  let fetchSource = it.fetchSource;
  let sourceFilter = it.sourceFilter;
  const s = b['_source'];
  if (s !== undefined) {
    if (s === false) fetchSource = false;
    else if (s === true) fetchSource = true;
    else if (typeof s === 'string' || Array.isArray(s)) {
      fetchSource = true;
      sourceFilter = { includes: (Array.isArray(s) ? s : [s]).map(String), excludes: [] };
    } else if (isPlainObject(s)) {
      fetchSource = true;
      const inc = s['includes'] ?? s['include'];
      const exc = s['excludes'] ?? s['exclude'];
      sourceFilter = {
        includes: inc === undefined ? [] : (Array.isArray(inc) ? inc : [inc]).map(String),
        excludes: exc === undefined ? [] : (Array.isArray(exc) ? exc : [exc]).map(String),
      };
    }
  }
  return {
    index: it.index ?? '',
    id: it.id as string,
    routing: it.routing,
    doc: isPlainObject(b['doc']) ? b['doc'] : undefined,
    upsert: isPlainObject(b['upsert']) ? b['upsert'] : undefined,
    docAsUpsert: b['doc_as_upsert'] === true,
    detectNoop: b['detect_noop'] !== false,
    script: b['script'],
    scriptedUpsert: b['scripted_upsert'] === true,
    retryOnConflict: it.retryOnConflict,
    ifSeqNo: it.ifSeqNo,
    ifPrimaryTerm: it.ifPrimaryTerm,
    requireAlias: it.requireAlias,
    fetchSource,
    sourceFilter,
    pipeline: it.pipeline,
  };
}
