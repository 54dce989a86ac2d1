/**
 * The crash specs run a shard in a child process they kill -9: the child's entry (a `testing/*-child.ts`) is
 * bundled from the sources into one file in a temp dir. piscina stays out of the bundle (it starts its own
 * worker.js beside its code), so the child loads it from the repository's node_modules through `childEnv`.
 */
import * as path from 'node:path';
import { buildSync } from 'esbuild';

/** the environment of a crash child: NODE_PATH to the repository's node_modules (for piscina) */
export const childEnv = { ...process.env, NODE_PATH: path.resolve(__dirname, '../../../../../../../node_modules') };

/** bundles `testing/<entry>` into `<outDir>/child.cjs` and returns that path */
export function bundleCrashChild(entry: string, outDir: string): string {
  const outfile = path.join(outDir, 'child.cjs');
  buildSync({
    entryPoints: [path.join(__dirname, entry)],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    conditions: ['@strata/source'],
    external: ['piscina'],
    logLevel: 'silent',
  });
  return outfile;
}
