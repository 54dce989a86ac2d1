import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { FeatureModule } from '@strata/core-common';
import { startServer, type RunningServer } from '../../src/index.js';

export interface E2eHost {
  server: RunningServer;
  url: string;
  dataPath: string;
  close(): Promise<void>;
}

/** the elastic superuser's password of the test hosts (`bootstrap.password`) when a test turns security on */
export const ELASTIC_PASSWORD = 'e2e-elastic-password';
/** `Authorization` header of the elastic superuser for hosts started with security on */
export const ELASTIC_AUTH = { Authorization: 'Basic ' + Buffer.from(`elastic:${ELASTIC_PASSWORD}`).toString('base64') };

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/**
 * The full host (default features) on a free port with a temporary data path. Security is off unless
 * the test passes `'xpack.security.enabled': true` (then `ELASTIC_AUTH` holds the elastic credentials).
 */
export async function startE2eHost(
  settings: Record<string, unknown> = {},
  features?: readonly FeatureModule[],
  /** the node's config directory (file realm `users`, `users_roles`, `roles.yml`, …) */
  configDir?: string,
): Promise<E2eHost> {
  const dataPath = mkdtempSync(join(tmpdir(), 'strata-e2e-'));
  const secure = String(settings['xpack.security.enabled']) === 'true';
  const server = await startServer({
    port: 0,
    dataPath,
    settings: { 'xpack.security.enabled': false, ...(secure ? { 'bootstrap.password': ELASTIC_PASSWORD } : {}), ...settings },
    logger: silent,
    ...(features ? { features } : {}),
    ...(configDir ? { configDir } : {}),
  });
  return {
    server,
    url: server.url,
    dataPath,
    async close() {
      await server.close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function http(url: string, init: RequestInit = {}): Promise<Res> {
  const r = await fetch(url, init);
  const text = await r.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}

export const repoRoot = resolve(__dirname, '../../../..');
export const bundlePath = join(repoRoot, 'apps/host/dist/main.cjs');
export const cliPath = join(repoRoot, 'apps/host/dist/strata.cjs');

/** Builds apps/host/dist/main.cjs (esbuild, well under a second). */
export function buildHost(): void {
  execFileSync(process.execPath, [join(repoRoot, 'tools/scripts/build-host.mjs')], { stdio: 'ignore' });
}

/**
 * Runs one of the durability scripts (tools/durability/*.mjs) against the built host, its data on tmpfs when
 * there is one (fsync stays cheap; a kill -9 does not need the disk: the page cache outlives the process), and
 * returns the JSON summary it prints last. A failed run throws with the script's output.
 */
export function runDurabilityScript(script: string, args: readonly string[]): Record<string, number> {
  const argv = [join(repoRoot, 'tools/durability', script), ...args, '--no-build'];
  if (existsSync('/dev/shm')) argv.push('--data-root', '/dev/shm');
  let out: string;
  try {
    out = execFileSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, JEST_WORKER_ID: '' } });
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    throw new Error(`${script} failed:\n${err.stderr ?? ''}\n${err.stdout ?? ''}`, { cause: e });
  }
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, number>;
}

export interface HostProcess {
  child: ChildProcess;
  url: string;
  /** the parsed "started" log line */
  started: Record<string, unknown>;
  /** everything the process wrote to stderr so far */
  stderr(): string;
}

/** Spawns the built host and resolves once it logged "started" (with the bound URL). */
export function spawnHost(args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; script?: string } = {}): Promise<HostProcess> {
  // security is off unless the test sets xpack.security.enabled itself (flag or environment)
  const env0 = opts.env ?? process.env;
  if (!args.some((a) => a.includes('xpack.security.enabled')) && env0['STRATA_XPACK_SECURITY_ENABLED'] === undefined) {
    // appended: the first argument may be a command (`strata start`)
    args = [...args, '-E', 'xpack.security.enabled=false'];
  }
  return new Promise((resolvePromise, reject) => {
    // the child is a real server process, not a jest worker (jest's variables would silence its log)
    const env = { ...(opts.env ?? process.env) };
    delete env['JEST_WORKER_ID'];
    const child = spawn(process.execPath, [opts.script ?? bundlePath, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
      cwd: opts.cwd ?? repoRoot,
    });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += String(d)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`host did not start: ${stderr}`));
    }, 15_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      try {
        const o = JSON.parse(line) as Record<string, unknown>;
        if (typeof o['message'] === 'string' && o['message'].startsWith('started') && typeof o['url'] === 'string') {
          clearTimeout(timer);
          resolvePromise({ child, url: o['url'], started: o, stderr: () => stderr });
        }
      } catch {
        /* not a log line */
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code}: ${stderr}`));
    });
  });
}

/** Waits for the process to exit after a signal. */
export function stopHost(p: HostProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<number | null> {
  return new Promise((r) => {
    if (p.child.exitCode !== null || p.child.signalCode !== null) return r(p.child.exitCode);
    p.child.once('exit', (code) => r(code));
    p.child.kill(signal);
  });
}

/** A request through node:http (fetch refuses GET bodies, which Perl and elasticdump send). */
export function rawHttp(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Res> {
  return new Promise((resolvePromise, reject) => {
    const h0 = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = httpRequest(url, { method, headers: h0 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') h.set(k, v);
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolvePromise({ status: res.statusCode ?? 0, headers: h, text, json });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}
