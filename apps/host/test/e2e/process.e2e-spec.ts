import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { bundlePath, buildHost, http, spawnHost, stopHost } from './helpers.js';

/** The built bundle as a user runs it: configuration precedence, start-up, graceful stop. */
describe('built host process', () => {
  let dir: string;
  beforeAll(() => {
    buildHost();
    dir = mkdtempSync(join(tmpdir(), 'strata-proc-'));
    mkdirSync(join(dir, 'conf'));
    writeFileSync(
      join(dir, 'conf', 'strata.yml'),
      'cluster.name: from-file\nnode:\n  name: file-node\nlogger.level: info\nhttp.port: 0\n',
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const env = (extra: Record<string, string>): NodeJS.ProcessEnv => {
    const e: NodeJS.ProcessEnv = { ...process.env, STRATA_PATH_CONF: join(dir, 'conf'), ...extra };
    for (const k of Object.keys(e)) if (k.startsWith('STRATA_') && !(k in extra) && k !== 'STRATA_PATH_CONF') delete e[k];
    return e;
  };

  it('applies -E over environment over config file over defaults', async () => {
    const p = await spawnHost(['-E', `path.data=${join(dir, 'data')}`, '-E', 'node.name=flag-node'], {
      env: env({ STRATA_CLUSTER_NAME: 'from-env', STRATA_NODE_NAME: 'env-node' }),
    });
    try {
      const r = await http(`${p.url}/`);
      expect(r.status).toBe(200);
      expect(r.json.cluster_name).toBe('from-env');
      expect(r.json.name).toBe('flag-node');
      expect(p.started['config_file']).toBe(join(dir, 'conf', 'strata.yml'));
      expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await stopHost(p, 'SIGKILL');
    }
    const q = await spawnHost(['-E', `path.data=${join(dir, 'data')}`], { env: env({}) });
    try {
      const r = await http(`${q.url}/`);
      expect(r.json.cluster_name).toBe('from-file');
      expect(r.json.name).toBe('file-node');
    } finally {
      await stopHost(q, 'SIGKILL');
    }
  });

  it('stops gracefully on SIGTERM with exit code 0', async () => {
    const p = await spawnHost(['-E', `path.data=${join(dir, 'data2')}`], { env: env({}) });
    expect((await http(`${p.url}/`)).status).toBe(200);
    expect(await stopHost(p, 'SIGTERM')).toBe(0);
  });

  it('refuses unknown settings with a clear message', async () => {
    await expect(spawnHost(['-E', `path.data=${join(dir, 'data3')}`, '-E', 'no.such.setting=1'], { env: env({}) })).rejects.toThrow(
      /unknown setting \[no\.such\.setting\]/,
    );
  });

  it('runs with logger.level=silent (no log lines, still answering)', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as { port: number }).port;
    await new Promise((r) => probe.close(r));
    const child = spawn(process.execPath, [bundlePath, '-E', `http.port=${port}`, '-E', `path.data=${join(dir, 'data5')}`, '-E', 'logger.level=silent', '-E', 'xpack.security.enabled=false'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env({}),
    });
    let out = '';
    child.stdout!.on('data', (d) => (out += String(d)));
    child.stderr!.on('data', (d) => (out += String(d)));
    try {
      let status = 0;
      for (let i = 0; i < 200 && status !== 200; i++) {
        status = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 50));
      }
      expect(status).toBe(200);
      expect(out).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('starts quickly', async () => {
    const t0 = performance.now();
    const p = await spawnHost(['-E', `path.data=${join(dir, 'data4')}`, '-E', 'http.port=0'], { env: env({}) });
    const r = await http(`${p.url}/`);
    const ms = performance.now() - t0;
    await stopHost(p, 'SIGKILL');
    expect(r.status).toBe(200);
    expect(ms).toBeLessThan(3000); // the goal is < 1 s; generous for a loaded CI machine
  });
});
