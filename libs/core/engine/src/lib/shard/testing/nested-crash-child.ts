/**
 * Child process of the nested crash test: runs the deterministic op sequence of `nestedCrashOp` (index/update
 * with nested objects, deletes) with request durability and prints `ACK <ops>` after each fsynced batch.
 */
import { IndexShardImpl } from '../index-shard.js';
import { nestedCrashOp, parseNested, parseNestedBytes } from './nested-model.js';
import { runAckedOps } from './acked-ops.js';

async function main(): Promise<void> {
  const shard = new IndexShardImpl({
    index: 'nested',
    indexUuid: 'nested-uuid',
    shardId: 0,
    dir: process.argv[2]!,
    parse: parseNestedBytes,
    refreshIntervalMs: 50,
    refreshIntervalExplicit: true,
    flushThresholdBytes: 64 * 1024,
    durability: 'request',
    mergePolicy: { segsPerTier: 3, floorSegmentDocs: 20 },
  });
  await runAckedOps(shard, (n) => {
    const op = nestedCrashOp(n);
    return { id: op.id, doc: op.source ? parseNested(op.source, op.id) : null };
  });
}

void main();
