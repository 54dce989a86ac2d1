/**
 * Security on by default, black-box: the built host started as a user would (`npm start` runs the same
 * bundle), the generated elastic password printed once, ELASTIC_PASSWORD, and the official client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { buildHost, http, spawnHost, stopHost, type HostProcess } from './helpers.js';

const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });

describe('security on by default (built host)', () => {
  let dir: string;
  const procs: HostProcess[] = [];

  beforeAll(() => {
    buildHost();
    dir = mkdtempSync(join(tmpdir(), 'strata-auth-e2e-'));
  });
  afterAll(async () => {
    for (const p of procs) await stopHost(p, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function envWithout(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env = { ...process.env, ...extra };
    for (const k of Object.keys(env)) if (k.startsWith('STRATA_') || (k === 'ELASTIC_PASSWORD' && !extra[k])) delete env[k];
    return env;
  }

  it('generates the elastic password at the first start, prints it once and keeps it', async () => {
    const data = join(dir, 'gen');
    const args = ['-E', `path.data=${data}`, '-E', 'http.port=0', '-E', 'xpack.security.enabled=true'];
    const p = await spawnHost(args, { env: envWithout() });
    procs.push(p);
    const m = /Password for the elastic user[^\n]*\n[^\n]*\n {2}(\S+)\n/.exec(p.stderr());
    expect(m).not.toBeNull();
    const password = m![1];

    const anonymous = await http(`${p.url}/`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error.reason).toBe('missing authentication credentials for REST request [/]');
    const ok = await http(`${p.url}/`, { headers: basic('elastic', password) });
    expect(ok.status).toBe(200);
    expect(ok.json.tagline).toBe('You Know, for Search');
    await stopHost(p, 'SIGTERM');

    const q = await spawnHost(args, { env: envWithout() });
    procs.push(q);
    expect((await http(`${q.url}/`, { headers: basic('elastic', password) })).status).toBe(200);
    expect(q.stderr()).not.toContain('Password for the elastic user');
    await stopHost(q, 'SIGKILL');
  });

  it('takes the password from ELASTIC_PASSWORD, and the official client authenticates with it', async () => {
    const p = await spawnHost(['-E', `path.data=${join(dir, 'env')}`, '-E', 'http.port=0', '-E', 'xpack.security.enabled=true'], {
      env: envWithout({ ELASTIC_PASSWORD: 'from-the-env' }),
    });
    procs.push(p);
    const client = new Client({ node: p.url, auth: { username: 'elastic', password: 'from-the-env' } });
    try {
      const me = await client.security.authenticate();
      expect(me.username).toBe('elastic');
      expect(me.authentication_realm).toEqual({ name: 'reserved', type: 'reserved' });
      await client.index({ index: 'notes', id: '1', document: { text: 'hello' }, refresh: true });
      expect((await client.count({ index: 'notes' })).count).toBe(1);
      const wrong = new Client({ node: p.url, auth: { username: 'elastic', password: 'nope' } });
      await expect(wrong.info()).rejects.toMatchObject({ meta: { statusCode: 401 } });
      await wrong.close();
    } finally {
      await client.close();
      await stopHost(p, 'SIGKILL');
    }
  });
});
