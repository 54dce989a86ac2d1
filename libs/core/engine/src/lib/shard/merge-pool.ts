/**
 * The node's merge threads: background merges run in a pool of worker threads (piscina), so the event loop
 * that serves searches and bulks only snapshots live docs before a merge and publishes its result after.
 * The pool is sized by the node setting `thread_pool.merge.size` (default 1; 0 runs merges on the event loop
 * in small slices, as without workers), so memory follows configuration: each thread holds one merge's
 * buffers and a small block cache of its own. The files of refreshed segments are written by one more thread
 * (see `write`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Piscina } from 'piscina';
import type { BuildTask, BuildTaskResult, MergeTask, MergeTaskResult, WriteTask, WriteTaskResult } from '../index/merge-task.js';
import type { ParseTask, ParseTaskOutput, ParseTaskResult } from '../mapper/parse-task.js';
import { StringTableMirror } from '../index/packed-documents.js';
import { snapshotTransferList } from '../index/segment-builder.js';

/** runs merges (and the writes of refreshed segments) off the event loop (what a shard needs of the pool) */
export interface MergeExecutor {
  run(task: MergeTask): Promise<MergeTaskResult>;
  /** writes and fsyncs a refreshed segment's files; absent: the refresh writes them on the event loop */
  write?(task: WriteTask): Promise<WriteTaskResult>;
  /**
   * builds a scheduled refresh's segment from the buffer's contents, writes and fsyncs its files (in the same
   * thread as `write`); absent: scheduled refreshes build the segment on the event loop. The task's snapshot
   * may be moved to the thread (unusable by the caller afterwards).
   */
  build?(task: BuildTask): Promise<BuildTaskResult>;
}

/**
 * the env variable that names the worker entry file (tests point it at a bundle built from the sources); not
 * `STRATA_*`, which the host reads as settings
 */
export const MERGE_WORKER_ENV = 'MERGE_WORKER_FILE';

/**
 * The merge worker's file: `$MERGE_WORKER_FILE`, else `merge-worker.cjs` beside the running bundle; null when
 * there is none (running from sources without the bundle: merges stay on the event loop).
 */
export function mergeWorkerFile(): string | null {
  const env = process.env[MERGE_WORKER_ENV];
  if (env) return fs.existsSync(env) ? env : null;
  const f = path.join(__dirname, 'merge-worker.cjs');
  return fs.existsSync(f) ? f : null;
}

function ignorePoolError(): void {
  // see the constructor of MergeWorkerPool
}

/** chunks of bulk documents waiting for a parse thread, per thread; a chunk beyond is parsed on the event loop */
const PARSE_QUEUE_PER_THREAD = 32;

/**
 * Merges run in `size` threads; the writes of refreshed segments in one thread of their own (same worker
 * file), so a long merge never holds back a refreshed segment's files (short tasks, one after the other).
 * Bulk documents are parsed in `parseThreads` threads more (same file; none: bulks parse on the event loop).
 */
export class MergeWorkerPool implements MergeExecutor {
  private readonly pool: Piscina;
  private readonly writes: Piscina;
  private readonly parses: Piscina | null;
  private closed = false;
  /** documents the parse threads packed (for tests and stats) */
  parsedDocs = 0;
  /** the parse threads' string tables, as their chunks arrive */
  readonly parseStrings: StringTableMirror;

  constructor(
    readonly size: number,
    readonly filename: string,
    readonly parseThreads = 0,
  ) {
    this.pool = new Piscina({
      filename,
      minThreads: 0,
      maxThreads: size,
      // a thread lives on between the merges of a bulk load, and goes away when the node is idle
      idleTimeout: 30_000,
      // a queued merge waits for a thread: no merge is ever refused
      maxQueue: Infinity,
    });
    this.writes = new Piscina({ filename, minThreads: 0, maxThreads: 1, idleTimeout: 30_000, maxQueue: Infinity });
    // a pool reports on itself what belongs to no task: the answer of a task it already gave up (a write that
    // finished while the pool was being destroyed: "Unexpected message from Worker"), which, unheard, would
    // crash the process. Every task's own failure reaches its caller through its promise.
    this.pool.on('error', ignorePoolError);
    this.writes.on('error', ignorePoolError);
    this.parses =
      parseThreads > 0
        ? new Piscina({ filename, minThreads: 0, maxThreads: parseThreads, idleTimeout: 30_000, maxQueue: parseThreads * PARSE_QUEUE_PER_THREAD })
        : null;
    this.parses?.on('error', ignorePoolError);
    this.parseStrings = new StringTableMirror(Math.max(1, parseThreads));
  }

  /** whether bulk documents can be parsed in threads */
  get canParse(): boolean {
    return this.parses !== null && !this.closed;
  }

  /**
   * parses a chunk of bulk documents in a parse thread; null when there is none, it is closed or its queue is
   * full (the caller parses on the event loop)
   */
  parse(task: ParseTask): Promise<ParseTaskResult | null> {
    const parses = this.parses;
    if (this.closed || !parses || parses.queueSize >= this.parseThreads * PARSE_QUEUE_PER_THREAD) return Promise.resolve(null);
    const lost = this.parseStrings.lostThreads();
    const sent = lost.length ? { ...task, resetTables: lost } : task;
    // a thread's results arrive in the order it packed them: each chunk's new strings join the thread's table
    // here, whether its documents are applied or not
    return (parses.run(sent) as Promise<ParseTaskOutput>).then(
      (r): ParseTaskResult => {
        const chunk = r.chunk ? this.parseStrings.resolve(r.chunk) : null;
        if (chunk) for (const at of chunk.docAt) if (at >= 0) this.parsedDocs++;
        return { chunk };
      },
      () => null,
    );
  }

  write(task: WriteTask): Promise<WriteTaskResult> {
    if (this.closed) return Promise.reject(new Error('merge pool is closed'));
    return this.writes.run(task) as Promise<WriteTaskResult>;
  }

  /** the task's buffer snapshot (a detached one) is moved to the thread, not copied: unusable here afterwards */
  build(task: BuildTask): Promise<BuildTaskResult> {
    if (this.closed) return Promise.reject(new Error('merge pool is closed'));
    return this.writes.run(task, { transferList: snapshotTransferList(task.buffer) }) as Promise<BuildTaskResult>;
  }

  run(task: MergeTask): Promise<MergeTaskResult> {
    if (this.closed) return Promise.reject(new Error('merge pool is closed'));
    return this.pool.run(task) as Promise<MergeTaskResult>;
  }

  /** stops the threads; merges still running are abandoned (their shards are closed by then) */
  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    return Promise.all([this.pool.destroy(), this.writes.destroy(), this.parses?.destroy()]).then(() => undefined);
  }
}
