/**
 * Child process of the nested crash test: runs the deterministic op sequence of `nestedCrashOp` (index/update
 * with nested objects, deletes) with request durability and prints `ACK <ops>` after each fsynced batch.
 */
import { IndexShardImpl } from '../index-shard.js';
import { nestedCrashOp, parseNested, parseNestedBytes } from './nested-model.js';

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
  let n = 0;
  for (;;) {
    for (let i = 0; i < 40; i++) {
      const op = nestedCrashOp(n++);
      if (op.source) shard.indexDoc({ id: op.id, opType: 'index', doc: parseNested(op.source, op.id) });
      else shard.deleteDoc({ id: op.id });
    }
    await shard.sync();
    process.stdout.write(`ACK ${n}\n`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

void main();
