import { inject, injectable, optional } from 'inversify';
import { DEFAULT_INDICES_OPTIONS, Errors, wildcardRegExp } from '@strata/core-common';
import type { IndexMetadata, IndexNameExpressionResolver, IndicesOptions, IndicesService, MetadataStore, ShardFailureInfo, ShardSegments } from '@strata/core-engine';
import { EngineTokens } from '@strata/core-engine';

export type Health = 'green' | 'yellow' | 'red';

/** Per-index numbers the storage engine reports (any section may be missing). */
export interface EngineIndexStats {
  docs?: { count: number; deleted: number };
  store?: { size_in_bytes: number; [k: string]: number };
  indexing?: Record<string, number | boolean>;
  get?: Record<string, number>;
  search?: Record<string, number>;
  refresh?: Record<string, number>;
  flush?: Record<string, number>;
  merges?: Record<string, number>;
  segments?: Record<string, number>;
  translog?: Record<string, number>;
  [section: string]: unknown;
}

export interface IndexHealth {
  name: string;
  meta: IndexMetadata;
  status: Health;
  shards: number;
  replicas: number;
  activePrimary: number;
  active: number;
  unassigned: number;
  /** primaries that failed to open (unassigned, ALLOCATION_FAILED): the index is red */
  unassignedPrimary: number;
  /** the failed primaries by shard id */
  failures: Map<number, ShardFailureInfo>;
}

const HEALTH_ORDER: Record<Health, number> = { green: 0, yellow: 1, red: 2 };

export function worse(a: Health, b: Health): Health {
  return HEALTH_ORDER[a] >= HEALTH_ORDER[b] ? a : b;
}

export function healthAtLeast(actual: Health, wanted: Health): boolean {
  return HEALTH_ORDER[actual] <= HEALTH_ORDER[wanted];
}

/** Read-only view of the cluster for the monitoring endpoints. */
@injectable()
export class ClusterView {
  constructor(
    @inject(EngineTokens.MetadataStore) @optional() private readonly store: MetadataStore | undefined,
    @inject(EngineTokens.IndicesService) @optional() private readonly indices: IndicesService | undefined,
    @inject(EngineTokens.IndexNameExpressionResolver) @optional()
    private readonly resolver: IndexNameExpressionResolver | undefined,
  ) {}

  /**
   * Concrete index names of an expression (comma list, wildcards, `_all`, aliases) through the engine's
   * resolver; a simple wildcard match over index names when no resolver is bound.
   */
  resolve(expression: string | undefined, options: Partial<IndicesOptions> & { allowClosed?: boolean } = {}): string[] {
    const opts: IndicesOptions = {
      ignoreUnavailable: options.ignoreUnavailable ?? DEFAULT_INDICES_OPTIONS.ignoreUnavailable,
      allowNoIndices: options.allowNoIndices ?? DEFAULT_INDICES_OPTIONS.allowNoIndices,
      expandWildcards: options.expandWildcards ?? DEFAULT_INDICES_OPTIONS.expandWildcards,
    };
    const names = this.allIndices().map((m) => m.name);
    const r = this.resolver as (IndexNameExpressionResolver & { resolve?(e: string, o: IndicesOptions, p: 'read', x: { allowClosed?: boolean }): string[] }) | undefined;
    // explicitly named closed indices are listed (not refused) where the monitoring APIs show them
    if (r?.resolve && options.allowClosed) return r.resolve(expression ?? '_all', opts, 'read', { allowClosed: true });
    if (r) return r.concreteIndices(expression ?? '_all', opts, 'read');
    if (!expression || expression === '_all' || expression === '*') return names;
    const out = new Set<string>();
    for (const part of expression.split(',')) {
      if (part.includes('*')) {
        const re = wildcardRegExp(part);
        for (const n of names) if (re.test(n)) out.add(n);
      } else if (names.includes(part)) out.add(part);
      else if (!opts.ignoreUnavailable) throw Errors.indexNotFound(part);
    }
    return [...out];
  }

  indexMetadata(name: string): IndexMetadata | undefined {
    return this.store?.current().indices[name];
  }

  clusterUuid(): string {
    return this.store?.current().clusterUuid ?? '_na_';
  }

  metadataStore(): MetadataStore | undefined {
    return this.store;
  }

  allIndices(): IndexMetadata[] {
    const m = this.store?.current();
    if (!m) return [];
    return Object.values(m.indices).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** the replicas a single node can never assign (auto_expand_replicas `0-x` expands to 0 here) */
  effectiveReplicas(meta: IndexMetadata): number {
    const auto = meta.settings['index.auto_expand_replicas'];
    if (typeof auto === 'string' && auto !== 'false' && auto.startsWith('0-')) return 0;
    return meta.numberOfReplicas;
  }

  /** shards of open indices that failed to open, by index (empty when the engine reports none) */
  shardFailures(index?: string): ShardFailureInfo[] {
    try {
      return this.indices?.shardFailures?.(index) ?? [];
    } catch {
      return [];
    }
  }

  indexHealth(meta: IndexMetadata): IndexHealth {
    const shards = meta.numberOfShards;
    const replicas = this.effectiveReplicas(meta);
    const open = meta.state === 'open';
    const failures = new Map<number, ShardFailureInfo>();
    if (open) for (const f of this.shardFailures(meta.name)) failures.set(f.shardId, f);
    const failed = failures.size;
    const unassigned = open ? shards * replicas + failed : 0;
    return {
      name: meta.name,
      meta,
      status: !open ? 'green' : failed > 0 ? 'red' : replicas > 0 ? 'yellow' : 'green',
      shards,
      replicas: meta.numberOfReplicas,
      activePrimary: open ? shards - failed : 0,
      active: open ? shards - failed : 0,
      unassigned,
      unassignedPrimary: failed,
      failures,
    };
  }

  /** the segments of each started shard of an open index, or undefined if the engine does not list them */
  indexSegments(name: string): ShardSegments[] | undefined {
    return this.indices?.indexSegments?.(name);
  }

  /** engine statistics of an index, or undefined if the engine does not report them */
  indexStats(name: string): EngineIndexStats | undefined {
    const svc = this.indices as unknown as Record<string, unknown> | undefined;
    if (!svc) return undefined;
    for (const m of ['indexStats', 'stats']) {
      const fn: unknown = svc[m];
      if (typeof fn === 'function') {
        try {
          const r = (fn as (n: string) => unknown).call(svc, name);
          if (r && typeof r === 'object') return r as EngineIndexStats;
        } catch {
          return undefined;
        }
      }
    }
    return undefined;
  }
}
