/**
 * Child process of the crash test: indexes batches into one shard with request durability and prints
 * `ACK <n>` after each batch is fsynced. The parent kill -9's it at an arbitrary point.
 * With `merge-worker` as third argument, background merges run in a worker thread (a small merge policy so
 * they run often) and the child prints `MERGING <n>` when it hands a merge to the worker and `MERGED <n>` when
 * the worker returned, so the parent can kill it while a worker writes a merged segment; likewise
 * `WRITING <n>` / `WRITTEN <n>` around the worker write of each refreshed segment. With `build` as fourth
 * argument as well, scheduled refreshes have the worker build their segment (`BUILDING <n>` / `BUILT <n>`).
 */
import { IndexShardImpl } from '../index-shard.js';
import { MergeWorkerPool, mergeWorkerFile, type MergeExecutor } from '../merge-pool.js';
import { simpleParse, parseBytes } from './simple-parser.js';

async function main(): Promise<void> {
  const dir = process.argv[2];
  const batch = Number(process.argv[3] ?? '50');
  let mergeExecutor: MergeExecutor | undefined;
  if (process.argv[4] === 'merge-worker') {
    const file = mergeWorkerFile();
    if (!file) throw new Error('no merge worker file');
    const pool = new MergeWorkerPool(1, file);
    let started = 0;
    let done = 0;
    let writing = 0;
    let written = 0;
    let building = 0;
    let built = 0;
    mergeExecutor = {
      run: async (task) => {
        process.stdout.write(`MERGING ${++started}\n`);
        const r = await pool.run(task);
        process.stdout.write(`MERGED ${++done}\n`);
        return r;
      },
      write: async (task) => {
        process.stdout.write(`WRITING ${++writing}\n`);
        const r = await pool.write(task);
        process.stdout.write(`WRITTEN ${++written}\n`);
        return r;
      },
    };
    if (process.argv[5] === 'build') {
      mergeExecutor.build = async (task) => {
        process.stdout.write(`BUILDING ${++building}\n`);
        const r = await pool.build(task);
        process.stdout.write(`BUILT ${++built}\n`);
        return r;
      };
    }
  }
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
    mergeExecutor,
    backgroundBuildMinBytes: 0,
    mergePolicy: mergeExecutor ? { segsPerTier: 3, maxMergeAtOnce: 3, floorSegmentDocs: 200 } : undefined,
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
