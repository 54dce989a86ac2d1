/**
 * `_update_by_query`, `_delete_by_query` and `_reindex` (within this node): a point-in-time scan of the matching
 * documents (SearchService.scanDocs) written back in `_bulk` batches with `if_seq_no`/`if_primary_term`, an
 * optional Painless script (`ctx._source`, `ctx.op`, metadata), `conflicts: abort|proceed`, `max_docs`,
 * cancellation between batches, and Elasticsearch's BulkByScrollResponse.
 */
import { EsError, Errors, ScriptContexts, type CompiledScript, type ScriptService, type Task } from '@strata/core-common';
import { toJsonValue } from '@strata/core-painless';
import type { DocumentService } from './document-service.js';
import type { BulkItemRequest } from './document-service.js';
import type { ScannedDoc, SearchService } from '../search/search-service.js';
import type { IndicesOptions } from '../../spi.js';

export type ByQueryKind = 'update' | 'delete' | 'reindex';

export interface ByQueryRequest {
  indices?: string[];
  indicesOptions: IndicesOptions;
  query?: unknown;
  routing?: string[];
  script?: unknown;
  conflicts: 'abort' | 'proceed';
  maxDocs?: number;
  batchSize: number;
  refresh?: boolean;
  pipeline?: string;
  /** reindex: destination */
  dest?: { index: string; opType?: 'index' | 'create'; pipeline?: string; routing?: string; versionType?: 'internal' | 'external' | 'external_gte' };
  /** reindex: _source filtering of the source documents */
  sourceFields?: string[];
}

export interface ByQueryStatus {
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
}

function emptyStatus(): ByQueryStatus {
  return { total: 0, updated: 0, created: 0, deleted: 0, batches: 0, version_conflicts: 0, noops: 0 };
}

/** the task `status` of a running by-query task */
export function byQueryTaskStatus(s: ByQueryStatus, kind: ByQueryKind): Record<string, unknown> {
  return {
    total: s.total,
    updated: s.updated,
    created: s.created,
    deleted: s.deleted,
    batches: s.batches,
    version_conflicts: s.version_conflicts,
    noops: s.noops,
    retries: { bulk: 0, search: 0 },
    throttled_millis: 0,
    requests_per_second: -1,
    throttled_until_millis: 0,
    ...(kind === 'reindex' ? {} : {}),
  };
}

function pick(source: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.prototype.hasOwnProperty.call(source, f)) out[f] = source[f];
  return out;
}

export class ByQueryRunner {
  constructor(
    private readonly search: SearchService,
    private readonly docs: DocumentService,
    private readonly scripts: ScriptService,
    private readonly now: () => number,
  ) {}

  /** runs the request; the task (if any) sees progress in `status` and may be cancelled between batches */
  async run(kind: ByQueryKind, req: ByQueryRequest, task?: Task): Promise<Record<string, unknown>> {
    const start = process.hrtime.bigint();
    let script: { run: CompiledScript; params: Record<string, unknown> } | undefined;
    if (req.script !== undefined) {
      if (kind === 'delete') throw Errors.illegalArgument('[script] is not supported by delete by query');
      const ref = this.scripts.parse(req.script);
      script = { run: this.scripts.compile(ref, ScriptContexts.UPDATE), params: ref.params };
    }
    const status = emptyStatus();
    const failures: Array<Record<string, unknown>> = [];
    let processed = 0;
    let stop = false;
    const publish = () => {
      if (task) task.status = byQueryTaskStatus(status, kind);
    };
    publish();
    await this.search.scanDocs({ indices: req.indices, indicesOptions: req.indicesOptions, query: req.query, routing: req.routing }, async (batch) => {
      if (task?.isCancelled()) return false;
      let docs: ScannedDoc[] = batch;
      if (req.maxDocs !== undefined) docs = docs.slice(0, Math.max(0, req.maxDocs - processed));
      processed += docs.length;
      status.total += docs.length;
      const items: BulkItemRequest[] = [];
      for (const d of docs) {
        let source = req.sourceFields ? pick(d.source, req.sourceFields) : d.source;
        let op = kind === 'delete' ? 'delete' : 'index';
        let id = d.id;
        let routing = d.routing;
        let index = kind === 'reindex' ? req.dest!.index : d.index;
        if (script) {
          const ctx: Record<string, unknown> = { _source: source, op, _index: d.index, _id: d.id, _version: d.version, _routing: d.routing ?? null, _now: this.now() };
          script.run.run({ ctx, params: script.params });
          op = String(ctx['op']);
          const ns = ctx['_source'];
          if (ns === null || typeof ns !== 'object' || Array.isArray(ns)) throw Errors.illegalArgument('[ctx._source] must be a map');
          source = toJsonValue(ns) as Record<string, unknown>;
          if (kind === 'reindex') {
            id = ctx['_id'] === null || ctx['_id'] === undefined ? d.id : String(ctx['_id']);
            index = ctx['_index'] === d.index ? req.dest!.index : String(ctx['_index']);
            routing = ctx['_routing'] === null || ctx['_routing'] === undefined ? undefined : String(ctx['_routing']);
          }
        }
        if (op === 'noop' || op === 'none') {
          status.noops++;
          continue;
        }
        if (op !== 'index' && op !== 'delete') {
          throw Errors.illegalArgument(`Operation type [${op}] not allowed, only [noop, index, delete] are allowed`);
        }
        if (op === 'delete') {
          if (kind === 'reindex') {
            items.push({ op: 'delete', index, id, ...(routing !== undefined ? { routing } : {}) });
          } else {
            items.push({ op: 'delete', index: d.index, id: d.id, ...(d.routing !== undefined ? { routing: d.routing } : {}), ifSeqNo: d.seqNo, ifPrimaryTerm: d.primaryTerm });
          }
          continue;
        }
        if (kind === 'reindex') {
          const dest = req.dest!;
          const r = dest.routing === undefined || dest.routing === 'keep' ? routing : dest.routing === 'discard' ? undefined : dest.routing.replace(/^=/, '');
          items.push({
            op: dest.opType === 'create' ? 'create' : 'index',
            index,
            id,
            ...(r !== undefined ? { routing: r } : {}),
            ...(dest.pipeline !== undefined ? { pipeline: dest.pipeline } : {}),
            ...(dest.versionType === 'external' || dest.versionType === 'external_gte' ? { version: d.version, versionType: dest.versionType } : {}),
            body: source,
          });
        } else {
          items.push({
            op: 'index',
            index: d.index,
            id: d.id,
            ...(d.routing !== undefined ? { routing: d.routing } : {}),
            ...(req.pipeline !== undefined ? { pipeline: req.pipeline } : {}),
            ifSeqNo: d.seqNo,
            ifPrimaryTerm: d.primaryTerm,
            body: source,
          });
        }
      }
      status.batches++;
      if (items.length > 0) {
        const res = await this.docs.bulk(items, req.refresh ? { refresh: 'true' } : {});
        res.items.forEach((it) => {
          const [action, r] = Object.entries(it)[0]!;
          const err = r['error'] as Record<string, unknown> | undefined;
          if (err) {
            if (err['type'] === 'version_conflict_engine_exception') {
              status.version_conflicts++;
              if (req.conflicts === 'proceed') return;
            }
            failures.push({ index: r['_index'], id: r['_id'], cause: err, status: r['status'] });
            return;
          }
          if (action === 'delete') status.deleted++;
          else if (r['result'] === 'created') status.created++;
          else status.updated++;
        });
      }
      publish();
      if (failures.length > 0) stop = true;
      if (req.maxDocs !== undefined && processed >= req.maxDocs) stop = true;
      return !stop && !task?.isCancelled();
    }, req.batchSize);
    const took = Number((process.hrtime.bigint() - start) / 1_000_000n);
    const body: Record<string, unknown> = { took, timed_out: false, total: status.total };
    if (kind !== 'delete') body['updated'] = status.updated;
    if (kind === 'reindex') body['created'] = status.created;
    body['deleted'] = status.deleted;
    body['batches'] = status.batches;
    body['version_conflicts'] = status.version_conflicts;
    body['noops'] = status.noops;
    body['retries'] = { bulk: 0, search: 0 };
    body['throttled_millis'] = 0;
    body['requests_per_second'] = -1;
    body['throttled_until_millis'] = 0;
    if (task?.isCancelled()) body['canceled'] = task.cancelReason ?? 'by user request';
    body['failures'] = failures;
    return body;
  }
}

export function parseConflicts(v: unknown): 'abort' | 'proceed' {
  if (v === undefined || v === null) return 'abort';
  const s = String(v);
  if (s !== 'abort' && s !== 'proceed') throw new EsError('illegal_argument_exception', 400, `conflicts may only be "proceed" or "abort" but was [${s}]`);
  return s;
}

