require('reflect-metadata');
// background merges run in worker threads from the bundle jest-merge-worker.js builds (global setup)
process.env.MERGE_WORKER_FILE ??= require('./jest-merge-worker.js').outfile;
