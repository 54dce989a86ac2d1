/**
 * Child process of the merged-fields crash test: runs the op sequence of `mergeFieldsOp` with request
 * durability, small flushes and a merge policy that merges often, and prints `ACK <ops>` after each fsynced
 * batch; the parent kill -9's it.
 */
import { IndexShardImpl } from '../index-shard.js';
import { mergeFieldsOp } from './merge-fields-model.js';
import { parseBytes, simpleParse } from './simple-parser.js';
import { runAckedOps } from './acked-ops.js';

async function main(): Promise<void> {
  const shard = new IndexShardImpl({
    index: 'merge-fields',
    indexUuid: 'merge-fields-uuid',
    shardId: 0,
    dir: process.argv[2]!,
    parse: parseBytes,
    refreshIntervalMs: 50,
    refreshIntervalExplicit: true,
    flushThresholdBytes: 32 * 1024,
    durability: 'request',
    mergePolicy: { segsPerTier: 3, floorSegmentDocs: 20 },
  });
  await runAckedOps(shard, (n) => {
    const op = mergeFieldsOp(n);
    return { id: op.id, doc: op.source ? simpleParse(op.source, op.id) : null };
  });
}

void main();
