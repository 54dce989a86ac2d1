/**
 * The merge worker's entry point: a worker thread of the node's merge pool loads this file (built as its own
 * bundle beside the host's `main.cjs`, see tools/scripts/build-host.mjs) and runs one merge, one refreshed segment's write
 * or one scheduled refresh's segment build (and write) per task.
 */
import { runWorkerTask } from './lib/index/merge-task.js';

export default runWorkerTask;
