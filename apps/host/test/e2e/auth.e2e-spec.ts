/**
 * Security on by default, black-box: the built host started as a user would (`npm start` runs the same
 * bundle), the generated elastic password printed once, ELASTIC_PASSWORD, and the official client.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { bundlePath, buildHost, http, spawnHost, startE2eHost, stopHost, ELASTIC_PASSWORD, type HostProcess } from './helpers.js';

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
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('STRATA_') || k === 'ELASTIC_PASSWORD') delete env[k];
    return { ...env, ...extra };
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

  it('the service-tokens tool writes file tokens the node accepts', async () => {
    const conf = join(dir, 'conf');
    const env = envWithout({ STRATA_PATH_CONF: conf });
    const tool = (...args: string[]) => execFileSync(process.execPath, [join(bundlePath, '..', 'strata.cjs'), 'service-tokens', ...args], { env, encoding: 'utf8' });
    const line = tool('create', 'elastic/fleet-server', 'cli-token').trim();
    const m = /^SERVICE_TOKEN elastic\/fleet-server\/cli-token = (\S+)$/.exec(line);
    expect(m).not.toBeNull();
    expect(readFileSync(join(conf, 'service_tokens'), 'utf8')).toMatch(/^elastic\/fleet-server\/cli-token:\{PBKDF2_STRETCH\}10000\$/);
    expect(readFileSync(join(conf, 'service_tokens'), 'utf8')).not.toContain(m![1]);
    expect(tool('list').trim()).toBe('elastic/fleet-server/cli-token');
    expect(() => tool('create', 'elastic/fleet-server', 'cli-token')).toThrow();
    expect(() => tool('create', 'elastic/nobody', 'x')).toThrow();

    const p = await spawnHost(['-E', `path.data=${join(dir, 'svc')}`, '-E', 'http.port=0', '-E', 'xpack.security.enabled=true'], {
      env: envWithout({ STRATA_PATH_CONF: conf, ELASTIC_PASSWORD: 'pw-for-svc' }),
    });
    procs.push(p);
    const client = new Client({ node: p.url, auth: { bearer: m![1] } });
    try {
      const me = await client.security.authenticate();
      expect(me.username).toBe('elastic/fleet-server');
      expect(me.token).toEqual({ name: 'cli-token', type: '_service_account_file' });
      const creds = await http(`${p.url}/_security/service/elastic/fleet-server/credential`, { headers: basic('elastic', 'pw-for-svc') });
      expect(creds.json.nodes_credentials.file_tokens).toEqual({ 'cli-token': { nodes: [expect.any(String)] } });
    } finally {
      await client.close();
      await stopHost(p, 'SIGKILL');
    }
    tool('delete', 'elastic/fleet-server', 'cli-token');
    expect(tool('list').trim()).toBe('');
  });

  it('the official client authenticates with each credential kind and gets 401 once it is invalidated', async () => {
    const host = await startE2eHost({ 'xpack.security.enabled': true });
    const admin = new Client({ node: host.url, auth: { username: 'elastic', password: ELASTIC_PASSWORD } });
    const clients: Client[] = [admin];
    try {
      await admin.indices.create({ index: 'events' });
      await admin.index({ index: 'events', id: '1', document: { msg: 'hello' }, refresh: true });
      await admin.security.putRole({ name: 'events_reader', cluster: ['monitor'], indices: [{ names: ['events*'], privileges: ['read'] }] });
      await admin.security.putUser({ username: 'reader', password: 'reader-pw', roles: ['events_reader'] });

      // basic
      const basicClient = new Client({ node: host.url, auth: { username: 'reader', password: 'reader-pw' } });
      clients.push(basicClient);
      expect((await basicClient.count({ index: 'events' })).count).toBe(1);

      // API key (as {id, api_key} and as the encoded string)
      const key = await admin.security.createApiKey({ name: 'client-key', role_descriptors: { r: { indices: [{ names: ['events'], privileges: ['read'] }] } } });
      const byId = new Client({ node: host.url, auth: { apiKey: { id: key.id, api_key: key.api_key } } });
      const byEncoded = new Client({ node: host.url, auth: { apiKey: key.encoded! } });
      clients.push(byId, byEncoded);
      expect((await byId.count({ index: 'events' })).count).toBe(1);
      expect((await byEncoded.search({ index: 'events' })).hits.hits).toHaveLength(1);

      // bearer: an access token
      const token = await admin.security.getToken({ grant_type: 'password', username: 'reader', password: 'reader-pw' });
      const byToken = new Client({ node: host.url, auth: { bearer: token.access_token } });
      clients.push(byToken);
      expect((await byToken.security.authenticate()).authentication_type).toBe('token');
      expect((await byToken.count({ index: 'events' })).count).toBe(1);

      // bearer: a service account token
      const svc = await admin.security.createServiceToken({ namespace: 'elastic', service: 'fleet-server', name: 'client-svc' });
      const bySvc = new Client({ node: host.url, auth: { bearer: svc.token.value } });
      clients.push(bySvc);
      expect((await bySvc.security.authenticate()).username).toBe('elastic/fleet-server');

      // invalidate / delete each: 401
      await admin.security.invalidateApiKey({ ids: [key.id] });
      await admin.security.invalidateToken({ token: token.access_token });
      await admin.security.deleteServiceToken({ namespace: 'elastic', service: 'fleet-server', name: 'client-svc' });
      await admin.security.changePassword({ username: 'reader', password: 'another-pw' });
      for (const c of [byId, byEncoded, byToken, bySvc, basicClient]) {
        await expect(c.info()).rejects.toMatchObject({ meta: { statusCode: 401 } });
      }
    } finally {
      for (const c of clients) await c.close();
      await host.close();
    }
  });
});
