import type { DeferredSearchPhase, IndexShard, IndicesService } from '@strata/core-engine';
import type { ReaderContext, ReaderContextListener } from './context-registry.js';

/**
 * Reports the reader contexts to the shards they hold: `open_contexts`, `scroll_current`, `scroll_total` and
 * `scroll_time_in_millis` of `indices.search` (_stats per index, _nodes/stats summed) are the shards' numbers,
 * as Elasticsearch counts them per shard.
 */
export function shardContextStats(indices: IndicesService): ReaderContextListener {
  const shardsOf = (ctx: ReaderContext): IndexShard[] => {
    const out: IndexShard[] = [];
    for (const t of ctx.targets) {
      const s = shardToCount(indices, t.index, t.shardId);
      if (s) out.push(s);
    }
    return out;
  };
  // the shards a context was counted on: a shard reopened meanwhile (close/open) is a new object, never decremented
  const counted = new WeakMap<ReaderContext, IndexShard[]>();
  return {
    opened: (ctx) => {
      const shards = shardsOf(ctx);
      counted.set(ctx, shards);
      for (const s of shards) s.readerContextOpened?.(ctx.kind === 'scroll');
    },
    freed: (ctx, openMillis) => {
      for (const s of counted.get(ctx) ?? []) s.readerContextFreed?.(ctx.kind === 'scroll', openMillis);
      counted.delete(ctx);
    },
  };
}

/** the shard to count a context or a search phase on; undefined when the index was deleted or the shard is gone */
export function shardToCount(indices: IndicesService, index: string, shardId: number): IndexShard | undefined {
  try {
    return indices.shard ? indices.shard(index, shardId) : indices.shards(index).find((x) => x.shardId === shardId);
  } catch {
    return undefined;
  }
}

/** counts shard search phases that ran earlier (a scroll page computed ahead, counted when it is asked for) */
export function countDeferredPhases(indices: IndicesService, phases: readonly DeferredSearchPhase[]): void {
  for (const p of phases) {
    const shard = shardToCount(indices, p.index, p.shardId);
    shard?.searchPhaseStarted?.(p.phase);
    shard?.searchPhaseEnded?.(p.phase, p.nanos, p.completed);
  }
}
