/**
 * Child process of the crash test: indexes batches into one shard with request durability and prints
 * `ACK <n>` after each batch is fsynced. The parent kill -9's it at an arbitrary point.
 */
import { IndexShardImpl } from '../index-shard.js';
import { simpleParse, parseBytes } from './simple-parser.js';

async function main(): Promise<void> {
  const dir = process.argv[2];
  const batch = Number(process.argv[3] ?? '50');
  const shard = new IndexShardImpl({
    index: 'crash',
    indexUuid: 'crash-uuid',
    shardId: 0,
    dir,
    parse: parseBytes,
    refreshIntervalMs: 50,
    refreshIntervalExplicit: true,
    flushThresholdBytes: 64 * 1024,
    durability: 'request',
  });
  let n = 0;
  for (;;) {
    for (let i = 0; i < batch; i++) {
      const id = String(n++);
      shard.indexDoc({ id, opType: 'index', doc: simpleParse({ msg: `message ${id}`, n: Number(id) }, id) });
      if (n % 7 === 0) shard.deleteDoc({ id: String(n - 3) });
    }
    await shard.sync();
    process.stdout.write(`ACK ${n}\n`);
    await new Promise<void>((r) => setImmediate(r));
  }
}

void main();
