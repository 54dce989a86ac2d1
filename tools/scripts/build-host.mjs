#!/usr/bin/env node
// Bundles apps/host/src/main.ts (and the libs, from source) into apps/host/dist/main.cjs with esbuild
// (the shared options and the word on decorators: esbuild-node.cjs).
import { build } from 'esbuild';
import esbuildNode from './esbuild-node.cjs';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = esbuildNode.repoRoot;
const outfile = join(root, 'apps/host/dist/main.cjs');
const t0 = performance.now();
mkdirSync(dirname(outfile), { recursive: true });
// the console's static files, inlined so the bundle serves them with nothing beside it (libs/console)
const consoleDir = join(root, 'libs/console/assets');
const consoleAssets = Object.fromEntries(readdirSync(consoleDir).map((f) => [f, readFileSync(join(consoleDir, f), 'utf8')]));
const common = {
  ...esbuildNode.nodeBundleOptions,
  define: { STRATA_CONSOLE_ASSETS: JSON.stringify(consoleAssets) },
  sourcemap: true,
  legalComments: 'none',
  metafile: true,
  write: false,
  // pino's optional transports are worker-thread entry points, not needed for JSON to stdout
  external: ['elastic-apm-node', 'pino-pretty', 'thread-stream', 'pino-abstract-transport', 'sonic-boom/worker'],
};
const result = await build({ ...common, entryPoints: [join(root, 'apps/host/src/main.ts')], outfile });
// the `strata` command (package.json bin): loads main.cjs beside it at run time for `strata start`
const cli = await build({
  ...common,
  entryPoints: [join(root, 'apps/host/src/cli/bin.ts')],
  outfile: join(root, 'apps/host/dist/strata.cjs'),
  banner: { js: '#!/usr/bin/env node' },
  sourcemap: false,
  metafile: false,
});
// the merge threads (libs/core/engine merge-pool.ts): piscina starts `worker.js` beside its own code (here the
// bundle), which loads `merge-worker.cjs`; a package.json beside them makes `worker.js` CommonJS
const workerOpts = { ...common, external: [...common.external, '@napi-rs/nice'], sourcemap: false, metafile: false };
const mergeWorker = await build({ ...workerOpts, entryPoints: [join(root, 'libs/core/engine/src/merge-worker.ts')], outfile: join(root, 'apps/host/dist/merge-worker.cjs') });
const poolWorker = await build({ ...workerOpts, entryPoints: [join(root, 'node_modules/piscina/dist/worker.js')], outfile: join(root, 'apps/host/dist/worker.js') });
const workers = { outputFiles: [...mergeWorker.outputFiles, ...poolWorker.outputFiles] };
writeFileSync(join(root, 'apps/host/dist/package.json'), '{ "type": "commonjs" }\n');
// write each output to a temp file and rename it: a host started concurrently never sees half a bundle
for (const f of [...result.outputFiles, ...cli.outputFiles, ...workers.outputFiles]) {
  const tmp = `${f.path}.${process.pid}.tmp`;
  const contents = f.path.endsWith('.map') ? f.contents : esbuildNode.withCheapNameHelper(f.text);
  writeFileSync(tmp, contents, { mode: f.path.endsWith('strata.cjs') ? 0o755 : 0o644 });
  renameSync(tmp, f.path);
}
writeFileSync(join(root, 'apps/host/dist/meta.json'), JSON.stringify(result.metafile));
const ms = Math.round(performance.now() - t0);
process.stdout.write(`built ${outfile.slice(root.length + 1)} in ${ms} ms\n`);
