/**
 * Credentials survive restarts, graceful and kill -9: users, roles, API keys (and their invalidation),
 * tokens and service tokens written through the API are all there after the process is killed and started
 * again on the same path.data, and nothing on disk holds a secret in clear.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHost, rawHttp, spawnHost, stopHost, type HostProcess } from './helpers.js';

const PASSWORD = 'durable-elastic-pw';
const basic = (u: string, p: string) => ({ Authorization: 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64') });
const ELASTIC = basic('elastic', PASSWORD);

function allFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

describe('credentials survive restarts (graceful and kill -9)', () => {
  let dir: string;
  let proc: HostProcess | undefined;

  beforeAll(() => {
    buildHost();
    dir = mkdtempSync(join(tmpdir(), 'strata-auth-durable-'));
  });
  afterAll(async () => {
    if (proc) await stopHost(proc, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, ELASTIC_PASSWORD: PASSWORD };
    for (const k of Object.keys(env)) if (k.startsWith('STRATA_')) delete env[k];
    proc = await spawnHost(['-E', `path.data=${join(dir, 'data')}`, '-E', 'http.port=0', '-E', 'xpack.security.enabled=true'], { env });
    return proc;
  };
  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    rawHttp(`${proc!.url}${path}`, method, { 'Content-Type': 'application/json', ...headers }, body === undefined ? undefined : JSON.stringify(body));

  it('keeps every credential written before a kill -9 and a graceful stop', async () => {
    await start();
    expect((await call('PUT', '/_security/role/keeper', ELASTIC, { cluster: ['monitor'], indices: [{ names: ['kept-*'], privileges: ['read'] }] })).status).toBe(200);
    expect((await call('PUT', '/_security/user/keeper', ELASTIC, { password: 'keeper-password', roles: ['keeper'] })).status).toBe(200);
    const key = (await call('POST', '/_security/api_key', ELASTIC, { name: 'kept' })).json;
    const gone = (await call('POST', '/_security/api_key', ELASTIC, { name: 'gone' })).json;
    expect((await call('DELETE', '/_security/api_key', ELASTIC, { ids: [gone.id] })).json.invalidated_api_keys).toEqual([gone.id]);
    const token = (await call('POST', '/_security/oauth2/token', ELASTIC, { grant_type: 'password', username: 'keeper', password: 'keeper-password' })).json;
    const svc = (await call('POST', '/_security/service/elastic/fleet-server/credential/token/kept', ELASTIC)).json;
    expect((await call('POST', '/_security/user/elastic/_password', ELASTIC, { password: 'changed-password' })).status).toBe(200);
    const elastic2 = basic('elastic', 'changed-password');

    const check = async () => {
      expect((await call('GET', '/_security/_authenticate', basic('keeper', 'keeper-password'))).json.roles).toEqual(['keeper']);
      expect((await call('GET', '/_security/_authenticate', { Authorization: `ApiKey ${key.encoded}` })).json.api_key).toEqual({ id: key.id, name: 'kept' });
      expect((await call('GET', '/', { Authorization: `ApiKey ${gone.encoded}` })).status).toBe(401);
      expect((await call('GET', '/_security/_authenticate', { Authorization: `Bearer ${token.access_token}` })).json.username).toBe('keeper');
      expect((await call('GET', '/_security/_authenticate', { Authorization: `Bearer ${svc.token.value}` })).json.username).toBe('elastic/fleet-server');
      // the changed password wins over ELASTIC_PASSWORD
      expect((await call('GET', '/', elastic2)).status).toBe(200);
      expect((await call('GET', '/', ELASTIC)).status).toBe(401);
    };
    await check();
    await stopHost(proc!, 'SIGKILL');
    await start();
    await check();
    await stopHost(proc!, 'SIGTERM');
    await start();
    await check();
    await stopHost(proc!, 'SIGTERM');
    proc = undefined;

    // secrets are stored only as hashes
    const secrets = ['keeper-password', 'changed-password', key.api_key, gone.api_key, token.access_token, token.refresh_token, svc.token.value];
    for (const f of allFiles(join(dir, 'data'))) {
      const text = readFileSync(f).toString('latin1');
      for (const s of secrets) expect(text.includes(s)).toBe(false);
    }
  });
});
