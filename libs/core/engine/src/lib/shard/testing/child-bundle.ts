/**
 * The crash specs run a shard in a child process they kill -9: the child's entry (a `testing/*-child.ts`) is
 * bundled from the sources into one file in a temp dir. piscina stays out of the bundle (it starts its own
 * worker.js beside its code), so the child loads it from the repository's node_modules through `childEnv`.
 */
import { spawn } from 'node:child_process';
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

/**
 * Runs the crash child until `onLine` says kill: the child is kill -9'ed then and the promise resolves once it
 * is gone (an earlier exit fails the test).
 */
export function runChildUntilKilled(args: string[], onLine: (line: string) => boolean): Promise<void> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: childEnv });
  let buf = '';
  return new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited early: ${code} ${signal}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      buf += chunk.toString();
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (onLine(line) && !child.killed) {
          child.kill('SIGKILL');
          child.once('exit', () => resolve());
        }
      }
    });
  });
}
