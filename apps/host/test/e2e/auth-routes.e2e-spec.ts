/**
 * Walks every registered route of the full host (every feature) with security on:
 * - no route answers without valid credentials (none, a wrong password, a forged API key, a forged bearer
 *   token): each one is a 401 security_exception; only the console's static page is public;
 * - an API key never exceeds its creator: a key created by a user with little privilege, asking for
 *   everything, is refused (403) on every route its creator is refused on.
 */
import { RouteRegistry, type RegisteredRoute } from '@strata/core-http';
import { ELASTIC_AUTH, rawHttp, startE2eHost, type E2eHost } from './helpers.js';

const SAMPLE_PARAMS: Record<string, string> = {
  index: 'walk-idx',
  id: '1',
  name: 'walkname',
  username: 'walkuser',
  namespace: 'elastic',
  service: 'fleet-server',
  scroll_id: 'c2Nyb2xs',
  task_id: 'node:1',
};

function samplePath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, p: string) => SAMPLE_PARAMS[p] ?? 'x');
}

function label(r: RegisteredRoute): string {
  return `${r.spec.method} ${r.spec.path} (${r.spec.action})`;
}

describe('every route requires valid credentials; an API key never exceeds its creator', () => {
  let host: E2eHost;
  let routes: readonly RegisteredRoute[];
  let keyAuth: Record<string, string>;
  const walker = { Authorization: 'Basic ' + Buffer.from('walker:walker-password').toString('base64') };

  beforeAll(async () => {
    host = await startE2eHost({ 'xpack.security.enabled': true });
    routes = host.server.node.container.get(RouteRegistry).all();
    const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
      rawHttp(`${host.url}${path}`, method, { 'Content-Type': 'application/json', ...headers }, JSON.stringify(body));
    expect((await send('PUT', '/walk-idx/_doc/1?refresh=true', { v: 1 }, ELASTIC_AUTH)).status).toBe(201);
    expect((await send('PUT', '/_security/role/walker', { cluster: ['monitor', 'manage_own_api_key'], indices: [{ names: ['walk-*'], privileges: ['read'] }] }, ELASTIC_AUTH)).status).toBe(200);
    expect((await send('PUT', '/_security/user/walker', { password: 'walker-password', roles: ['walker'] }, ELASTIC_AUTH)).status).toBe(200);
    const key = await send('POST', '/_security/api_key', { name: 'greedy', role_descriptors: { everything: { cluster: ['all'], indices: [{ names: ['*'], privileges: ['all'] }], run_as: ['*'] } } }, walker);
    expect(key.status).toBe(200);
    keyAuth = { Authorization: `ApiKey ${key.json.encoded}` };
  });
  afterAll(async () => {
    await host?.close();
  });

  it('walks more than a hundred routes', () => {
    expect(routes.length).toBeGreaterThan(100);
  });

  it('answers 401 on every non-public route without valid credentials', async () => {
    const forgedKey = Buffer.from('no-such-id:no-such-key').toString('base64');
    const attempts: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['wrong password', { Authorization: 'Basic ' + Buffer.from('elastic:wrong').toString('base64') }],
      ['unknown user', { Authorization: 'Basic ' + Buffer.from('nobody:whatever').toString('base64') }],
      ['forged API key', { Authorization: `ApiKey ${forgedKey}` }],
      ['forged bearer token', { Authorization: 'Bearer dGhpcyBpcyBub3QgYSB0b2tlbg==' }],
      ['forged service token', { Authorization: `Bearer ${Buffer.concat([Buffer.from([0, 1, 0, 1]), Buffer.from('elastic/fleet-server/t:x')]).toString('base64')}` }],
    ];
    const reachable: string[] = [];
    const publicRoutes: string[] = [];
    for (const r of routes) {
      if (r.spec.public) {
        publicRoutes.push(`${r.spec.method} ${r.spec.path}`);
        continue;
      }
      const path = samplePath(r.spec.path);
      for (const [what, headers] of attempts) {
        const res = await rawHttp(`${host.url}${path}`, r.spec.method, { 'Content-Type': 'application/json', ...headers }, r.spec.method === 'GET' || r.spec.method === 'HEAD' ? undefined : '{}');
        const ok = res.status === 401 && (r.spec.method === 'HEAD' || res.json?.error?.type === 'security_exception');
        if (!ok) reachable.push(`${label(r)} with ${what}: HTTP ${res.status}`);
      }
    }
    expect(reachable).toEqual([]);
    // the only public content is the console's own static files
    expect(publicRoutes.every((p) => /^(GET|HEAD) \/_console/.test(p))).toBe(true);
  });

  it('refuses the greedy API key on every route its creator is refused on', async () => {
    const exceeded: string[] = [];
    let compared = 0;
    let refusedToCreator = 0;
    for (const r of routes) {
      if (r.spec.public) continue;
      const path = samplePath(r.spec.path);
      const body = r.spec.method === 'GET' || r.spec.method === 'HEAD' ? undefined : '{}';
      const asCreator = await rawHttp(`${host.url}${path}`, r.spec.method, { 'Content-Type': 'application/json', ...walker }, body);
      if (asCreator.status !== 403) continue;
      refusedToCreator++;
      const asKey = await rawHttp(`${host.url}${path}`, r.spec.method, { 'Content-Type': 'application/json', ...keyAuth }, body);
      compared++;
      if (asKey.status !== 403) exceeded.push(`${label(r)}: creator 403, key HTTP ${asKey.status}`);
    }
    expect(exceeded).toEqual([]);
    // most routes are beyond `monitor` + read on walk-*
    expect(refusedToCreator).toBeGreaterThan(50);
    expect(compared).toBe(refusedToCreator);
  });
});
