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

/**
 * keepNames makes esbuild wrap every function and class in `__name(fn, "name")`, which redefines `name` with
 * Object.defineProperty. Most of them already carry that name (the bundle is not minified), and functions made
 * per request (closures, async arrows) would pay a property definition each time and get a map of their own,
 * which makes the inline caches that see them megamorphic. The helper below skips the definition when the name
 * is already right, and for functions made anonymous that are no constructors (arrows, async functions,
 * methods: no `prototype`) — the closures made per request, `const f = __name(() => ..., "f")`, whose name
 * nothing reads (classes and constructor functions still get theirs: error types and DI use those). Measured on
 * a search request: 40-60 µs of CPU less (profiled), most of it in `set natives`. Everything else is as esbuild's.
 */
const ESBUILD_NAME_HELPER = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
const CHEAP_NAME_HELPER =
  'var __name = (target, value) => target.name === value || (target.name === "" && target.prototype === void 0) ? target : __defProp(target, "name", { value, configurable: true });';

/** `code` (a bundle made with nodeBundleOptions) with the cheap `__name` helper; a bundle without one is kept */
function withCheapNameHelper(code) {
  if (!code.includes('var __name = ')) return code;
  const at = code.indexOf(ESBUILD_NAME_HELPER);
  // a changed helper (an esbuild upgrade) must be looked at, not silently left expensive
  if (at < 0) throw new Error('esbuild-node.cjs: the bundle\'s __name helper is not the one withCheapNameHelper knows');
  return code.slice(0, at) + CHEAP_NAME_HELPER + code.slice(at + ESBUILD_NAME_HELPER.length);
}

module.exports = { repoRoot, nodeBundleOptions, withCheapNameHelper };
