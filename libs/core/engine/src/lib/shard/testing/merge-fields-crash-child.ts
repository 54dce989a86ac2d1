/**
 * Child process of the merged-fields crash test: runs the op sequence of `mergeFieldsOp` with request
 * durability, small flushes and a merge policy that merges often, and prints `ACK <ops>` after each fsynced
 * batch; the parent kill -9's it.
 */
import { IndexShardImpl } from '../index-shard.js';
import { mergeFieldsOp } from './merge-fields-model.js';
import { parseBytes, simpleParse } from './simple-parser.js';

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
  let n = 0;
  for (;;) {
    for (let i = 0; i < 40; i++) {
      const op = mergeFieldsOp(n++);
      if (op.source) shard.indexDoc({ id: op.id, opType: 'index', doc: simpleParse(op.source, op.id) });
      else shard.deleteDoc({ id: op.id });
    }
    await shard.sync();
    process.stdout.write(`ACK ${n}\n`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

void main();
