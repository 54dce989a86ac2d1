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
import { emptySearchSource } from '../search/search-source.js';
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
  /** `slices`: how many slices run in parallel (`auto`: one per shard of the source, at most 20) */
  slices?: number | 'auto';
  /** `requests_per_second` (Infinity or absent: unthrottled), shared evenly by the slices */
  requestsPerSecond?: number;
}

/** Elasticsearch's ceiling of `slices=auto` (BulkByScrollParallelizationHelper) */
const AUTO_SLICE_CEILING = 20;

interface Worker {
  readonly status: ByQueryStatus;
  readonly throttle: ByQueryThrottle;
  readonly failures: Array<Record<string, unknown>>;
  readonly slice?: { id: number; max: number };
  readonly maxDocs?: number;
  /** the slice's child task (a sliced request with a task) */
  task?: Task;
}

/**
 * The child tasks of a sliced request: as in Elasticsearch each slice is a task whose parent is the request's
 * task (`parent_task_id`), with the slice's status; cancelling the parent cancels them.
 */
export interface SliceTasks {
  start(sliceId: number): Task;
  cancel(task: Task, reason: string): void;
  end(task: Task): void;
}

export interface ByQueryStatus {
  /** set on the status of one slice of a sliced request */
  slice_id?: number;
  total: number;
  updated: number;
  created: number;
  deleted: number;
  batches: number;
  version_conflicts: number;
  noops: number;
}

function emptyStatus(sliceId?: number): ByQueryStatus {
  return { ...(sliceId !== undefined ? { slice_id: sliceId } : {}), total: 0, updated: 0, created: 0, deleted: 0, batches: 0, version_conflicts: 0, noops: 0 };
}

/**
 * `requests_per_second` of one worker (a request or one slice): the batch after a batch of n documents starts
 * no earlier than n / rps seconds after that batch started (WorkerBulkByScrollTaskState); Infinity = unthrottled.
 * A rethrottle that speeds up wakes a waiting worker at once; one that slows down applies from the next batch.
 */
export class ByQueryThrottle {
  throttledMillis = 0;
  private wakeAt = 0;
  private wake: (() => void) | undefined;
  private lastStart = 0;
  private lastSize = 0;

  constructor(public rps: number) {}

  /** the task status `throttled_until_millis`: how long until the waiting batch starts */
  throttledUntilMillis(): number {
    return this.wake ? Math.max(0, Math.round(this.wakeAt - performance.now())) : 0;
  }

  /** waits as the throttle wants before the next batch of the worker (`waiting` once the wait is set); `cancelled` stops it */
  async beforeBatch(cancelled: () => boolean, waiting?: () => void): Promise<void> {
    const now = (): number => performance.now();
    for (;;) {
      const due = this.rps === Infinity || this.lastSize === 0 ? 0 : this.lastStart + (this.lastSize * 1000) / this.rps;
      const wait = due - now();
      if (wait <= 0 || cancelled()) break;
      const t0 = now();
      this.wakeAt = t0 + wait;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => resolve(), Math.min(wait, 2_147_483_647));
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
        waiting?.();
      });
      this.wake = undefined;
      this.throttledMillis += Math.max(0, now() - t0);
    }
    this.lastStart = now();
  }

  /** the batch that just started holds `size` documents */
  batchSize(size: number): void {
    this.lastSize = size;
  }

  rethrottle(rps: number): void {
    const faster = rps > this.rps;
    this.rps = rps;
    // a waiting worker recomputes its wait and starts sooner; a slower rate applies from the next batch on
    if (faster) this.wake?.();
  }

  /** wakes a waiting worker (cancellation) */
  interrupt(): void {
    this.wake?.();
  }
}

/** `requests_per_second` as Elasticsearch renders it: -1 when unthrottled */
function rpsJson(rps: number): number {
  return rps === Infinity ? -1 : rps;
}

/** BulkByScrollTask.Status fields of one worker (or the sum of the slices, then with `slices`) */
function statusJson(kind: ByQueryKind, s: ByQueryStatus, throttle: { rps: number; throttledMillis: number; until: number }, extra: { canceled?: string; slices?: Array<Record<string, unknown>> } = {}): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  if (s.slice_id !== undefined) o['slice_id'] = s.slice_id;
  o['total'] = s.total;
  if (kind !== 'delete') o['updated'] = s.updated;
  if (kind === 'reindex') o['created'] = s.created;
  o['deleted'] = s.deleted;
  o['batches'] = s.batches;
  o['version_conflicts'] = s.version_conflicts;
  o['noops'] = s.noops;
  o['retries'] = { bulk: 0, search: 0 };
  o['throttled_millis'] = Math.round(throttle.throttledMillis);
  o['requests_per_second'] = rpsJson(throttle.rps);
  if (extra.canceled !== undefined) o['canceled'] = extra.canceled;
  o['throttled_until_millis'] = throttle.until;
  if (extra.slices) o['slices'] = extra.slices;
  return o;
}

function pick(source: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (Object.prototype.hasOwnProperty.call(source, f)) out[f] = source[f];
  return out;
}

export class ByQueryRunner {
  /** the running requests by task id, for `_rethrottle` */
  private readonly running = new Map<number, (rps: number) => void>();

  constructor(
    private readonly search: SearchService,
    private readonly docs: DocumentService,
    private readonly scripts: ScriptService,
    private readonly now: () => number,
  ) {}

  /** `POST /_{kind}/{task_id}/_rethrottle`: false when the task is not a running by-query request */
  rethrottle(taskId: number, requestsPerSecond: number): boolean {
    const r = this.running.get(taskId);
    if (!r) return false;
    r(requestsPerSecond);
    return true;
  }

  /** how many slices `slices` means for this request */
  private sliceCount(req: ByQueryRequest): number {
    if (req.slices === undefined) return 1;
    if (req.slices !== 'auto') return req.slices;
    const targets = this.search.resolveTargets({
      indices: req.indices, indicesOptions: req.indicesOptions, source: emptySearchSource(), searchType: 'query_then_fetch',
      typedKeys: false, restTotalHitsAsInt: false, allowPartialSearchResults: false, attributes: {},
    });
    const perIndex = new Map<string, number>();
    for (const t of targets) perIndex.set(t.index, (perIndex.get(t.index) ?? 0) + 1);
    return Math.max(1, Math.min(AUTO_SLICE_CEILING, ...perIndex.values()));
  }

  /**
   * Runs the request: one worker, or `slices` workers in parallel (each its slice of the documents, its share
   * of max_docs and of requests_per_second). The task (if any) sees progress in `status` (with `slices`) and
   * may be cancelled between batches.
   */
  async run(kind: ByQueryKind, req: ByQueryRequest, task?: Task, sliceTasks?: SliceTasks): Promise<Record<string, unknown>> {
    const start = process.hrtime.bigint();
    let script: { run: CompiledScript; params: Record<string, unknown> } | undefined;
    if (req.script !== undefined) {
      if (kind === 'delete') throw Errors.illegalArgument('[script] is not supported by delete by query');
      const ref = this.scripts.parse(req.script);
      script = { run: this.scripts.compile(ref, ScriptContexts.UPDATE), params: ref.params };
    }
    const n = this.sliceCount(req);
    const rps = req.requestsPerSecond ?? Infinity;
    const workers: Worker[] = Array.from({ length: n }, (_, i) => ({
      status: emptyStatus(n > 1 ? i : undefined),
      throttle: new ByQueryThrottle(rps / n),
      failures: [],
      ...(n > 1 ? { slice: { id: i, max: n } } : {}),
      ...(req.maxDocs !== undefined ? { maxDocs: Math.floor(req.maxDocs / n) + (i < req.maxDocs % n ? 1 : 0) } : {}),
    }));
    if (task && sliceTasks && n > 1) for (const w of workers) w.task = sliceTasks.start(w.slice!.id);
    const publish = (): void => {
      if (!task) return;
      task.status = this.statusOf(kind, workers, task);
      for (const w of workers) if (w.task) w.task.status = this.statusOf(kind, [w], w.task);
    };
    publish();
    if (task) {
      this.running.set(task.id, (r) => {
        for (const w of workers) w.throttle.rethrottle(r / n);
        publish();
      });
      task.onCancel((reason) => {
        for (const w of workers) {
          if (w.task && sliceTasks) sliceTasks.cancel(w.task, reason);
          w.throttle.interrupt();
        }
      });
      for (const w of workers) w.task?.onCancel(() => w.throttle.interrupt());
    }
    try {
      await Promise.all(workers.map((w) => this.runWorker(kind, req, script, w, publish, task)));
    } finally {
      if (task) this.running.delete(task.id);
      for (const w of workers) if (w.task && sliceTasks) sliceTasks.end(w.task);
    }
    const took = Number((process.hrtime.bigint() - start) / 1_000_000n);
    return { took, timed_out: false, ...this.statusOf(kind, workers, task), failures: workers.flatMap((w) => w.failures) };
  }

  /** the status of the request: the one worker's, or the sum of the slices with each slice's status */
  private statusOf(kind: ByQueryKind, workers: Worker[], task?: Task): Record<string, unknown> {
    const canceled = task?.isCancelled() ? (task.cancelReason ?? 'by user request') : undefined;
    const throttleOf = (w: Worker) => ({ rps: w.throttle.rps, throttledMillis: w.throttle.throttledMillis, until: w.throttle.throttledUntilMillis() });
    if (workers.length === 1) return statusJson(kind, workers[0]!.status, throttleOf(workers[0]!), canceled !== undefined ? { canceled } : {});
    const sum = emptyStatus();
    for (const w of workers) {
      for (const k of ['total', 'updated', 'created', 'deleted', 'batches', 'version_conflicts', 'noops'] as const) sum[k] += w.status[k];
    }
    const throttle = {
      rps: workers.reduce((a, w) => a + w.throttle.rps, 0),
      throttledMillis: workers.reduce((a, w) => a + w.throttle.throttledMillis, 0),
      until: Math.min(...workers.map((w) => w.throttle.throttledUntilMillis())),
    };
    const slices = workers.map((w) => statusJson(kind, w.status, throttleOf(w), canceled !== undefined ? { canceled } : {}));
    return statusJson(kind, sum, throttle, { ...(canceled !== undefined ? { canceled } : {}), slices });
  }

  private async runWorker(
    kind: ByQueryKind,
    req: ByQueryRequest,
    script: { run: CompiledScript; params: Record<string, unknown> } | undefined,
    w: Worker,
    publish: () => void,
    task?: Task,
  ): Promise<void> {
    const { status, failures } = w;
    let processed = 0;
    let stop = false;
    const cancelled = (): boolean => (task?.isCancelled() ?? false) || (w.task?.isCancelled() ?? false);
    await this.search.scanDocs({ indices: req.indices, indicesOptions: req.indicesOptions, query: req.query, routing: req.routing, ...(w.slice ? { slice: w.slice } : {}) }, async (batch) => {
      if (cancelled()) return false;
      await w.throttle.beforeBatch(cancelled, publish);
      if (cancelled()) return false;
      let docs: ScannedDoc[] = batch;
      if (w.maxDocs !== undefined) docs = docs.slice(0, Math.max(0, w.maxDocs - processed));
      w.throttle.batchSize(docs.length);
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
      if (w.maxDocs !== undefined && processed >= w.maxDocs) stop = true;
      return !stop && !cancelled();
    }, req.batchSize);
  }
}

export function parseConflicts(v: unknown): 'abort' | 'proceed' {
  if (v === undefined || v === null) return 'abort';
  const s = String(v);
  if (s !== 'abort' && s !== 'proceed') throw new EsError('illegal_argument_exception', 400, `conflicts may only be "proceed" or "abort" but was [${s}]`);
  return s;
}

