// Jest global setup: builds the merge worker (libs/core/engine src/merge-worker.ts) from the sources into one
// CommonJS file, as the host build does beside main.cjs, so background merges in tests run in worker threads
// exactly as in the service. Worker threads load plain JavaScript: they cannot go through Jest's transform.
const { buildSync } = require('esbuild');
const { mkdirSync, renameSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const outfile = join(root, 'node_modules/.cache/strata/merge-worker.cjs');

module.exports = function buildMergeWorker() {
  mkdirSync(join(root, 'node_modules/.cache/strata'), { recursive: true });
  const tmp = `${outfile}.${process.pid}.tmp`;
  buildSync({
    absWorkingDir: root,
    entryPoints: [join(root, 'libs/core/engine/src/merge-worker.ts')],
    outfile: tmp,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    conditions: ['@strata/source'],
    mainFields: ['module', 'main'],
    tsconfigRaw: { compilerOptions: { experimentalDecorators: true, useDefineForClassFields: false, target: 'es2022' } },
    keepNames: true,
    logLevel: 'warning',
  });
  // a concurrent Jest run (another project) never sees half a file
  renameSync(tmp, outfile);
  process.env.MERGE_WORKER_FILE = outfile;
};
module.exports.outfile = outfile;
