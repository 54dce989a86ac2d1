/**
 * Child process of the large-merge crash test: opens a shard that already holds several committed segments
 * and force-merges them into one in a merge worker thread (the thread streams the inputs' postings from file
 * to file); prints `MERGING` when the merge is handed to the thread and `MERGED` when it returned. The parent
 * kill -9's it while the merged segment's files are being written.
 */
import { IndexShardImpl } from '../index-shard.js';
import { MergeWorkerPool, mergeWorkerFile } from '../merge-pool.js';
import { parseBytes } from './simple-parser.js';

async function main(): Promise<void> {
  const dir = process.argv[2];
  const file = mergeWorkerFile();
  if (!file) throw new Error('no merge worker file');
  const pool = new MergeWorkerPool(1, file);
  const shard = new IndexShardImpl({
    index: 'merge-crash',
    indexUuid: 'merge-crash-uuid',
    shardId: 0,
    dir,
    parse: parseBytes,
    manualScheduling: true,
    mergeExecutor: {
      run: async (task) => {
        process.stdout.write('MERGING\n');
        const r = await pool.run(task);
        process.stdout.write('MERGED\n');
        return r;
      },
    },
  });
  await shard.forceMergeAsync(1);
  shard.close();
  await pool.close();
  process.stdout.write('DONE\n');
}

void main();
