// How Strata bundles TypeScript sources for Node with esbuild: the host build (build-host.mjs) and the Jest
// global setup that builds the merge worker (jest-merge-worker.js) share these options.
// Decorators: experimentalDecorators; every constructor parameter carries an explicit @inject, so the missing
// decorator metadata of esbuild does not matter.
const { join } = require('node:path');

const repoRoot = join(__dirname, '..', '..');

/** esbuild options for one CommonJS bundle of libs and apps read from their sources */
const nodeBundleOptions = {
  absWorkingDir: repoRoot,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  conditions: ['@strata/source'],
  mainFields: ['module', 'main'],
  tsconfigRaw: { compilerOptions: { experimentalDecorators: true, emitDecoratorMetadata: false, useDefineForClassFields: false, target: 'es2022' } },
  keepNames: true,
  logLevel: 'warning',
};

module.exports = { repoRoot, nodeBundleOptions };
