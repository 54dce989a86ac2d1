/**
 * One merge as a self-contained task over file names: what a merge worker thread runs. It opens the input
 * segments' immutable files itself (read-only, through a small block cache of its own), merges them with the
 * live-docs snapshots it was given (`MergedSource`, the same merge the event loop runs), writes the merged
 * segment's files under the new name, fsyncs them and the directory, and returns what the shard needs to open
 * and publish it. Publishing (swapping segments, carrying over deletes that arrived meanwhile, the commit)
 * stays with the shard.
 */
import { DiskSegment, writeSegment } from './disk-segment.js';
import { MergedSource } from './segment-merger.js';
import { MemorySegment, type SegmentData } from './segment.js';
import { buildSegmentData, type BufferSnapshot } from './segment-builder.js';
import { BlockCache } from '../store/block-cache.js';
import { fsyncDir } from '../store/directory.js';
import { runParseTask, type ParseTask, type ParseTaskOutput } from '../mapper/parse-task.js';
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { isMainThread } from 'node:worker_threads';

export interface MergeTask {
  /** the shard directory: inputs are read from it and the merged segment is written into it */
  dir: string;
  /** the merged segment's name */
  name: string;
  /** input segments (current format) and their live docs at the time the merge started */
  inputs: Array<{ name: string; liveDocs: Uint32Array | null }>;
  /** bytes of the task's own block cache (default 16mb) */
  cacheBytes?: number;
}

export interface MergeTaskResult {
  name: string;
  maxDoc: number;
  segBytes: number;
  srcBytes: number;
  /** per input: old doc → new doc, or -1 when dropped */
  docMaps: Int32Array[];
}

/**
 * A freshly refreshed segment's files, written off the event loop: the shard already searches the segment in
 * memory and hands its data (a structured clone) to a worker, which writes the files under the segment's name
 * and fsyncs them and the directory; the shard then swaps the in-memory core for the on-disk one (same docs).
 */
export interface WriteTask {
  kind: 'write';
  dir: string;
  data: SegmentData;
  formatVersion: number;
}

export interface WriteTaskResult {
  name: string;
  segBytes: number;
  srcBytes: number;
}

export function runWriteTask(task: WriteTask): WriteTaskResult {
  const written = writeSegment(task.dir, new MemorySegment(task.data, task.formatVersion), { fsync: true });
  fsyncDir(task.dir);
  return { name: task.data.name, segBytes: written.segBytes, srcBytes: written.srcBytes };
}

/**
 * A scheduled refresh's segment, built and written off the event loop: the shard hands over its indexing
 * buffer's contents (`SegmentBuilder.snapshot(true)`, a structured clone), the worker freezes them into the
 * segment (the same `buildSegmentData` a synchronous refresh runs), writes its files under `name` and fsyncs
 * them and the directory; the shard then opens the files and publishes the segment.
 */
export interface BuildTask {
  kind: 'build';
  dir: string;
  name: string;
  buffer: BufferSnapshot;
  formatVersion: number;
}

export interface BuildTaskResult extends WriteTaskResult {
  maxDoc: number;
}

export function runBuildTask(task: BuildTask): BuildTaskResult {
  const data = buildSegmentData(task.buffer, task.name);
  return { ...runWriteTask({ kind: 'write', dir: task.dir, data, formatVersion: task.formatVersion }), maxDoc: data.maxDoc };
}

/**
 * what a worker thread of the node's pools runs: a merge, a refreshed segment's write, a refresh's build or a
 * chunk of a bulk's documents to parse
 */
export function runWorkerTask(task: MergeTask | WriteTask | BuildTask | ParseTask): MergeTaskResult | WriteTaskResult | BuildTaskResult | ParseTaskOutput {
  if ('kind' in task && task.kind === 'parse') return runParseTask(task);
  yieldToEventLoop();
  if ('kind' in task && task.kind === 'write') return runWriteTask(task);
  if ('kind' in task && task.kind === 'build') return runBuildTask(task);
  return runMergeTask(task as MergeTask);
}

/** the nice value of a thread that merges, builds or writes segments (the event loop's is the process's) */
export const BACKGROUND_THREAD_NICE = 10;
let backgroundPriority = false;

/**
 * Lowers the priority of this worker thread, once, the first time it merges, builds or writes a segment: with
 * more runnable threads than cores (the event loop, a parse thread, a merge thread, a build thread on two
 * cores), the scheduler then gives the event loop, which answers searches and takes in bulks, its core
 * first, and the background work the rest; it never waits for a core the loop leaves idle. Linux keeps a
 * nice value per thread (setpriority on the thread's id); elsewhere, or when refused, the thread keeps the
 * process's priority. Parse threads keep it: the bulk waits for them.
 */
function yieldToEventLoop(): void {
  if (backgroundPriority || isMainThread) return;
  backgroundPriority = true;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    // only ever lower it: a process already run at a lower priority keeps its own
    if (Number.isInteger(tid) && tid > 0 && getPriority(tid) < BACKGROUND_THREAD_NICE) setPriority(tid, BACKGROUND_THREAD_NICE);
  } catch {
    // not Linux or not allowed: the process's priority
  }
}

export const MERGE_TASK_CACHE_BYTES = 16 * 1024 * 1024;

export function runMergeTask(task: MergeTask): MergeTaskResult {
  const cache = new BlockCache(task.cacheBytes ?? MERGE_TASK_CACHE_BYTES);
  const segs: DiskSegment[] = [];
  try {
    for (const inp of task.inputs) segs.push(new DiskSegment(task.dir, inp.name, { cache }));
    const src = new MergedSource(
      task.name,
      segs.map((data, i) => ({ data, liveDocs: task.inputs[i].liveDocs })),
    );
    const written = writeSegment(task.dir, src, { fsync: true });
    fsyncDir(task.dir);
    return { name: task.name, maxDoc: src.maxDoc, segBytes: written.segBytes, srcBytes: written.srcBytes, docMaps: src.docMaps };
  } finally {
    for (const s of segs) s.close();
    cache.clear();
  }
}
