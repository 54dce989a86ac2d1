import type { IndexShard, IndicesService } from '@strata/core-engine';
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
      try {
        const s = indices.shard ? indices.shard(t.index, t.shardId) : indices.shards(t.index).find((x) => x.shardId === t.shardId);
        if (s) out.push(s);
      } catch {
        // the index was deleted or the shard is gone: nothing left to count on
      }
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
