/**
 * Indexing pressure, as Elasticsearch's `IndexingPressure`: the bytes of write requests in flight on this
 * node are counted while they are coordinated (the whole request, from its arrival until its response) and
 * applied on their primary shards; a write whose coordinating bytes would take the in-flight total past
 * `indexing_pressure.memory.limit` (node setting, default 10% of the heap) is rejected with 429
 * `es_rejected_execution_exception` before anything of it is applied, so memory follows the limit, not the
 * load. Primaries are local to the coordinating node here (one node): their bytes are counted, not limited
 * (ES' `markPrimaryOperationLocalToCoordinatingNodeStarted`). There are no replicas: replica bytes stay 0.
 * Reported in `GET /_nodes/stats/indexing_pressure`.
 */
import { inject, injectable } from 'inversify';
import {
  EsError,
  formatByteSize,
  heapLimitBytes,
  memorySizeSetting,
  parseMemorySize,
  type NodeStatsContributor,
  type SettingDef,
} from '@strata/core-common';
import { EngineTokens } from '../services.js';

export const INDEXING_PRESSURE_LIMIT = memorySizeSetting('indexing_pressure.memory.limit', '10%', { scope: 'node', dynamic: false });

export const INDEXING_PRESSURE_SETTINGS: readonly SettingDef[] = [INDEXING_PRESSURE_LIMIT as SettingDef];

/** releases what a mark counted (idempotent) */
export type Releasable = () => void;

export class IndexingPressure {
  readonly limit: number;
  private currentCombined = 0;
  private currentCoordinating = 0;
  private currentPrimary = 0;
  private currentCoordinatingOps = 0;
  private currentPrimaryOps = 0;
  private totalCombined = 0;
  private totalCoordinating = 0;
  private totalPrimary = 0;
  private totalCoordinatingOps = 0;
  private totalPrimaryOps = 0;
  private coordinatingRejections = 0;

  constructor(settings: Record<string, unknown> = {}, heap = heapLimitBytes()) {
    const raw = settings[INDEXING_PRESSURE_LIMIT.key] ?? INDEXING_PRESSURE_LIMIT.defaultValue;
    this.limit = parseMemorySize(raw, INDEXING_PRESSURE_LIMIT.key, heap);
  }

  /**
   * counts a write request's bytes while it is coordinated; throws 429 es_rejected_execution_exception
   * (and counts a coordinating rejection) when the bytes in flight would pass the limit
   */
  markCoordinatingOperationStarted(operations: number, bytes: number): Releasable {
    const combined = this.currentCombined + bytes;
    if (this.limit >= 0 && combined > this.limit) {
      this.coordinatingRejections++;
      throw new EsError(
        'es_rejected_execution_exception',
        429,
        `rejected execution of coordinating operation [coordinating_and_primary_bytes=${this.currentCombined}, replica_bytes=0, ` +
          `all_bytes=${this.currentCombined}, coordinating_operation_bytes=${bytes}, max_coordinating_and_primary_bytes=${this.limit}]`,
      );
    }
    this.currentCombined = combined;
    this.currentCoordinating += bytes;
    this.currentCoordinatingOps += operations;
    this.totalCombined += bytes;
    this.totalCoordinating += bytes;
    this.totalCoordinatingOps += operations;
    return this.once(() => {
      this.currentCombined -= bytes;
      this.currentCoordinating -= bytes;
      this.currentCoordinatingOps -= operations;
    });
  }

  /** counts the bytes being applied on local primaries (already counted and limited as coordinating) */
  markPrimaryOperationLocalToCoordinatingNodeStarted(operations: number, bytes: number): Releasable {
    this.currentPrimary += bytes;
    this.currentPrimaryOps += operations;
    this.totalPrimary += bytes;
    this.totalPrimaryOps += operations;
    return this.once(() => {
      this.currentPrimary -= bytes;
      this.currentPrimaryOps -= operations;
    });
  }

  private once(fn: () => void): Releasable {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      fn();
    };
  }

  /** the `indexing_pressure` section of `_nodes/stats` (Elasticsearch 8's shape) */
  stats(human = false): Record<string, unknown> {
    const sized = (o: Record<string, unknown>, name: string, n: number): void => {
      if (human) o[name] = formatByteSize(Math.max(0, n));
      o[`${name}_in_bytes`] = n;
    };
    const current: Record<string, unknown> = {};
    sized(current, 'combined_coordinating_and_primary', this.currentCombined);
    sized(current, 'coordinating', this.currentCoordinating);
    sized(current, 'primary', this.currentPrimary);
    sized(current, 'replica', 0);
    sized(current, 'all', this.currentCombined);
    const total: Record<string, unknown> = {};
    sized(total, 'combined_coordinating_and_primary', this.totalCombined);
    sized(total, 'coordinating', this.totalCoordinating);
    sized(total, 'primary', this.totalPrimary);
    sized(total, 'replica', 0);
    sized(total, 'all', this.totalCombined);
    total['coordinating_rejections'] = this.coordinatingRejections;
    total['primary_rejections'] = 0;
    total['replica_rejections'] = 0;
    const memory: Record<string, unknown> = { current, total };
    sized(memory, 'limit', this.limit);
    return { memory };
  }

  /** operations in flight (tests, diagnostics) */
  get inFlight(): { coordinatingOps: number; primaryOps: number; combinedBytes: number } {
    return { coordinatingOps: this.currentCoordinatingOps, primaryOps: this.currentPrimaryOps, combinedBytes: this.currentCombined };
  }

  /** totals of operations (tests, diagnostics) */
  get totals(): { coordinatingOps: number; primaryOps: number } {
    return { coordinatingOps: this.totalCoordinatingOps, primaryOps: this.totalPrimaryOps };
  }
}

/** `indexing_pressure` in GET /_nodes/stats */
@injectable()
export class IndexingPressureNodeStats implements NodeStatsContributor {
  readonly section = 'indexing_pressure';
  constructor(@inject(EngineTokens.IndexingPressure) private readonly pressure: IndexingPressure) {}
  stats(opts: { human: boolean }): Record<string, unknown> {
    return this.pressure.stats(opts.human);
  }
}
