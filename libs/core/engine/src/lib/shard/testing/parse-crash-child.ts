/**
 * Child process of the parse-thread crash test: indexes batches of documents parsed in a parse thread of the
 * node's pool (packed, as a large bulk's documents are) into one shard with request durability, and prints
 * `ACK <n>` after each batch is fsynced and `PARSING <n>` when it hands a chunk to the thread, so the parent can
 * kill -9 it while a chunk is being parsed and while packed documents are written.
 */
import 'reflect-metadata';
import { IndexShardImpl } from '../index-shard.js';
import { MergeWorkerPool, mergeWorkerFile } from '../merge-pool.js';
import { packedDocument } from '../../index/packed-documents.js';
import { PARSE_CRASH_TASK_INDEX, parseCrashBytes, parseCrashSource } from './parse-crash-model.js';

async function main(): Promise<void> {
  const dir = process.argv[2]!;
  const batch = Number(process.argv[3] ?? '200');
  const file = mergeWorkerFile();
  if (!file) throw new Error('no merge worker file');
  const pool = new MergeWorkerPool(1, file, 1);
  const shard = new IndexShardImpl({
    index: 'pcrash',
    indexUuid: 'pcrash-uuid',
    shardId: 0,
    dir,
    parse: parseCrashBytes,
    refreshIntervalMs: 50,
    refreshIntervalExplicit: true,
    flushThresholdBytes: 256 * 1024,
    durability: 'request',
    mergeExecutor: pool,
    mergePolicy: { segsPerTier: 3, maxMergeAtOnce: 3, floorSegmentDocs: 200 },
  });
  let n = 0;
  let chunks = 0;
  // the next batch is parsed while this one is written, as a bulk's chunks are
  const send = (from: number) => {
    process.stdout.write(`PARSING ${++chunks}\n`);
    return pool.parse({ kind: 'parse', index: PARSE_CRASH_TASK_INDEX, sources: Array.from({ length: batch }, (_, i) => parseCrashSource(from + i)) });
  };
  let next = send(0);
  for (;;) {
    const r = await next;
    next = send(n + batch);
    if (!r?.chunk) throw new Error('the parse thread took no chunk');
    for (let i = 0; i < batch; i++) {
      const id = String(n++);
      const doc = packedDocument(r.chunk, i, id, undefined);
      if (!doc) throw new Error(`doc ${id} not packed`);
      shard.indexDoc({ id, opType: 'index', doc, source: doc.source });
      if (n % 7 === 0) shard.deleteDoc({ id: String(n - 3) });
    }
    await shard.sync();
    process.stdout.write(`ACK ${n}\n`);
  }
}

void main();
