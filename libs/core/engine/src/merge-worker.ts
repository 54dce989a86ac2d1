/**
 * The merge worker's entry point: a worker thread of the node's merge pool loads this file (built as its own
 * bundle beside the host's `main.cjs`, see tools/scripts/build-host.mjs) and runs one merge, one refreshed segment's write
 * or one scheduled refresh's segment build (and write), or parses one chunk of a bulk's documents per task.
 */
// the parse task builds the index's analysis registry and mapper, injectable classes (their decorators read metadata)
import 'reflect-metadata';
import { runWorkerTask } from './lib/index/merge-task.js';

export default runWorkerTask;
