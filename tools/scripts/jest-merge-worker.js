// Jest global setup: builds the merge worker (libs/core/engine src/merge-worker.ts) from the sources into one
// CommonJS file, as the host build does beside main.cjs, so background merges in tests run in worker threads
// exactly as in the service. Worker threads load plain JavaScript: they cannot go through Jest's transform.
const { buildSync } = require('esbuild');
const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { repoRoot: root, nodeBundleOptions, withCheapNameHelper } = require('./esbuild-node.cjs');

const outfile = join(root, 'node_modules/.cache/strata/merge-worker.cjs');

module.exports = function buildMergeWorker() {
  mkdirSync(join(root, 'node_modules/.cache/strata'), { recursive: true });
  const tmp = `${outfile}.${process.pid}.tmp`;
  const built = buildSync({ ...nodeBundleOptions, entryPoints: [join(root, 'libs/core/engine/src/merge-worker.ts')], outfile: tmp, write: false });
  writeFileSync(tmp, withCheapNameHelper(built.outputFiles[0].text));
  // a concurrent Jest run (another project) never sees half a file
  renameSync(tmp, outfile);
  process.env.MERGE_WORKER_FILE = outfile;
};
module.exports.outfile = outfile;
