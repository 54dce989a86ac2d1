/**
 * Security on: Basic authentication through the reserved, file and native realms, the 401 answers, the
 * generated elastic password, and authorization by role for file-realm users.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContainerModule } from 'inversify';
import { createTestHost, type TestHost } from '@strata/core-testing';
import { authChainFeature } from '../auth-chain.module.js';
import { GENERATED_PASSWORD_SINK } from '../bootstrap/elastic-password.js';
import { hasher } from '../crypto/hasher.js';

const PASSWORD = 'elastic-test-pw';
const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });
const ELASTIC = basic('elastic', PASSWORD);
const CHALLENGES = ['Basic realm="security", charset="UTF-8"', 'Bearer realm="security"', 'ApiKey'];

function unauthorized(reason: string) {
  const err = { type: 'security_exception', reason, header: { 'WWW-Authenticate': CHALLENGES } };
  return { error: { root_cause: [err], ...err }, status: 401 };
}

describe('realms over HTTP (security on)', () => {
  let host: TestHost;
  let conf: string;

  beforeAll(async () => {
    conf = mkdtempSync(join(tmpdir(), 'strata-sec-conf-'));
    const fast = hasher('pbkdf2_1000');
    writeFileSync(join(conf, 'users'), `# file realm\nreader:${await fast.hash('reader-pw')}\nnobody:${await fast.hash('nobody-pw')}\nfls:${await fast.hash('fls-pw')}\nbroken line\n`);
    writeFileSync(join(conf, 'users_roles'), 'logs_reader:reader,fls\nno_such_role:nobody\nsecret_fields:fls\n');
    writeFileSync(
      join(conf, 'roles.yml'),
      'logs_reader:\n  cluster: [monitor]\n  indices:\n    - names: ["logs-*"]\n      privileges: [read, view_index_metadata]\n' +
        'secret_fields:\n  cluster: [all]\n  indices:\n    - names: ["secret"]\n      privileges: [read]\n      field_security: { grant: [msg] }\n',
    );
    host = await createTestHost({
      features: [authChainFeature],
      configDir: conf,
      settings: { 'xpack.security.enabled': true, 'bootstrap.password': PASSWORD },
    });
    for (const idx of ['logs-a', 'logs-b', 'secret']) {
      const r = await host.request('PUT', `/${idx}/_doc/1?refresh=true`, { msg: idx }, ELASTIC);
      expect(r.status).toBe(201);
    }
  });
  afterAll(async () => {
    await host?.close();
    rmSync(conf, { recursive: true, force: true });
  });

  it('answers 401 with the three challenges without credentials, on known and unknown paths', async () => {
    for (const path of ['/', '/logs-a/_search?pretty', '/_no_such/endpoint/x/y', '/_security/_authenticate']) {
      const r = await host.request('GET', path);
      expect(r.status).toBe(401);
      expect(r.body).toEqual(unauthorized(`missing authentication credentials for REST request [${path}]`));
      expect(r.headers['www-authenticate']).toBe(CHALLENGES.join(', '));
    }
    // an unknown scheme is no credential
    const digest = await host.request('GET', '/', undefined, { Authorization: 'Digest abc' });
    expect(digest.body).toEqual(unauthorized('missing authentication credentials for REST request [/]'));
  });

  it('gives the same 401 for a wrong password and for a user that does not exist', async () => {
    for (const user of ['elastic', 'reader', 'ghost']) {
      const r = await host.request('GET', '/', undefined, basic(user, 'wrong'));
      expect(r.status).toBe(401);
      expect(r.body).toEqual(unauthorized(`unable to authenticate user [${user}] for REST request [/]`));
    }
    const bad = await host.request('GET', '/', undefined, { Authorization: 'Basic bm9jb2xvbg==' });
    expect(bad.body).toEqual(unauthorized('invalid basic authentication header value'));
  });

  it('authenticates the elastic superuser with the bootstrap password', async () => {
    const r = await host.request('GET', '/_security/_authenticate', undefined, ELASTIC);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      username: 'elastic',
      roles: ['superuser'],
      full_name: null,
      email: null,
      metadata: { _reserved: true },
      enabled: true,
      authentication_realm: { name: 'reserved', type: 'reserved' },
      lookup_realm: { name: 'reserved', type: 'reserved' },
      authentication_type: 'realm',
    });
    const unknown = await host.request('GET', '/_no_such/endpoint/x/y', undefined, ELASTIC);
    expect([unknown.status, unknown.body]).toEqual([400, { error: 'no handler found for uri [/_no_such/endpoint/x/y] and method [GET]', status: 400 }]);
  });

  it('authenticates file realm users and authorizes them by their roles', async () => {
    const reader = basic('reader', 'reader-pw');
    const me = await host.request('GET', '/_security/_authenticate', undefined, reader);
    expect(me.body).toMatchObject({ username: 'reader', roles: ['logs_reader'], authentication_realm: { name: 'default_file', type: 'file' } });

    const ok = await host.request('GET', '/logs-a/_search', undefined, reader);
    expect(ok.status).toBe(200);
    expect(ok.body.hits.total.value).toBe(1);

    const denied = await host.request('GET', '/secret/_search', undefined, reader);
    expect(denied.status).toBe(403);
    const reason =
      'action [indices:data/read/search] is unauthorized for user [reader] with effective roles [logs_reader] on indices [secret], this action is granted by the index privileges [read,all]';
    expect(denied.body).toEqual({ error: { root_cause: [{ type: 'security_exception', reason }], type: 'security_exception', reason }, status: 403 });

    // wildcards and _all reach only the authorized indices
    const all = await host.request('POST', '/_search', { sort: ['msg.keyword'] }, reader);
    expect(all.status).toBe(200);
    expect(all.body.hits.hits.map((h: { _index: string }) => h._index)).toEqual(['logs-a', 'logs-b']);
    const star = await host.request('GET', '/*/_count', undefined, reader);
    expect(star.body.count).toBe(2);
    const resolved = await host.request('GET', '/_resolve/index/*', undefined, reader);
    expect(resolved.body.indices.map((i: { name: string }) => i.name)).toEqual(['logs-a', 'logs-b']);
    const mixed = await host.request('GET', '/logs-a,secret/_search', undefined, reader);
    expect(mixed.status).toBe(403);
    expect(mixed.body.error.reason).toContain('on indices [secret]');

    // cluster: monitor yes, settings update no
    expect((await host.request('GET', '/_cluster/health', undefined, reader)).status).toBe(200);
    const put = await host.request('PUT', '/_cluster/settings', { persistent: {} }, reader);
    expect(put.status).toBe(403);
    expect(put.body.error.reason).toBe(
      'action [cluster:admin/settings/update] is unauthorized for user [reader] with effective roles [logs_reader], this action is granted by the cluster privileges [manage,all]',
    );
    const write = await host.request('PUT', '/logs-a/_doc/2', { msg: 'x' }, reader);
    expect(write.status).toBe(403);
    expect(write.body.error.reason).toBe(
      'action [indices:data/write/index] is unauthorized for user [reader] with effective roles [logs_reader] on indices [logs-a], this action is granted by the index privileges [create_doc,create,index,write,all]',
    );
  });

  it('disables a file role that needs field or document level security: it grants nothing', async () => {
    const fls = basic('fls', 'fls-pw');
    expect((await host.request('GET', '/_security/_authenticate', undefined, fls)).body.roles).toEqual(['logs_reader', 'secret_fields']);
    const denied = await host.request('GET', '/secret/_search', undefined, fls);
    expect(denied.status).toBe(403);
    expect(denied.body.error.reason).toBe(
      'action [indices:data/read/search] is unauthorized for user [fls] with effective roles [logs_reader] on indices [secret], this action is granted by the index privileges [read,all]',
    );
    // nor its cluster privileges
    expect((await host.request('PUT', '/_cluster/settings', { persistent: {} }, fls)).status).toBe(403);
    expect((await host.request('GET', '/logs-a/_search', undefined, fls)).status).toBe(200);
  });

  it('names roles that do not exist', async () => {
    const r = await host.request('GET', '/', undefined, basic('nobody', 'nobody-pw'));
    expect(r.status).toBe(403);
    expect(r.body.error.reason).toBe(
      'action [cluster:monitor/main] is unauthorized for user [nobody] with effective roles [] (assigned roles [no_such_role] were not found), this action is granted by the cluster privileges [monitor,manage,all]',
    );
  });
});

describe('the generated elastic password', () => {
  it('is printed once at the first start, stored only as a hash and kept across restarts', async () => {
    const printed: string[] = [];
    const sink = new ContainerModule(({ bind }) => void bind(GENERATED_PASSWORD_SINK).toConstantValue((t: string) => printed.push(t)));
    const data = mkdtempSync(join(tmpdir(), 'strata-sec-gen-'));
    try {
      const first = await createTestHost({ features: [authChainFeature], settings: { 'xpack.security.enabled': true, 'path.data': data, 'http.port': '9311' }, overrides: [sink], keepData: true });
      expect(printed).toHaveLength(1);
      expect(printed[0]).toContain('Example: curl -u elastic:<password> http://127.0.0.1:9311/\n');
      const password = /Password for the elastic user[^\n]*\n[^\n]*\n {2}(\S+)\n/.exec(printed[0])![1];
      expect(password).toMatch(/^[A-Za-z0-9_\-*+=]{20}$/);
      expect((await first.request('GET', '/', undefined, basic('elastic', password))).status).toBe(200);
      await first.close();
      const stored = readFileSync(join(data, '_state', 'metadata.json'), 'utf8');
      expect(stored).not.toContain(password);
      expect(stored).toMatch(/"password_hash":"\$2a\$10\$/);

      const second = await createTestHost({ features: [authChainFeature], settings: { 'xpack.security.enabled': true, 'path.data': data }, overrides: [sink], keepData: true });
      expect(printed).toHaveLength(1);
      expect((await second.request('GET', '/', undefined, basic('elastic', password))).status).toBe(200);
      expect((await second.request('GET', '/', undefined, basic('elastic', 'other'))).status).toBe(401);
      await second.close();
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('is not needed with security off: requests pass and the security APIs say security is disabled', async () => {
    const host = await createTestHost({ features: [authChainFeature] });
    try {
      expect((await host.request('GET', '/')).status).toBe(200);
      const r = await host.request('GET', '/_security/_authenticate');
      expect(r.status).toBe(500);
      expect(r.body.error.type).toBe('exception');
      expect(r.body.error.reason).toMatch(/^Security must be explicitly enabled/);
    } finally {
      await host.close();
    }
  });
});

describe('anonymous access (xpack.security.authc.anonymous.*)', () => {
  it('lets requests without credentials act as the anonymous user with its roles', async () => {
    const conf = mkdtempSync(join(tmpdir(), 'strata-sec-anon-'));
    writeFileSync(join(conf, 'roles.yml'), 'public_reader:\n  cluster: [monitor]\n  indices:\n    - names: ["public-*"]\n      privileges: [read]\n');
    const start = (authz: boolean) =>
      createTestHost({
        features: [authChainFeature],
        configDir: conf,
        settings: {
          'xpack.security.enabled': true,
          'bootstrap.password': PASSWORD,
          'xpack.security.authc.anonymous.roles': 'public_reader',
          'xpack.security.authc.anonymous.authz_exception': authz,
        },
      });
    const host = await start(true);
    try {
      await host.request('PUT', '/public-1/_doc/1?refresh=true', { v: 1 }, ELASTIC);
      await host.request('PUT', '/private/_doc/1?refresh=true', { v: 1 }, ELASTIC);
      const me = await host.request('GET', '/_security/_authenticate');
      expect(me.body).toMatchObject({ username: '_anonymous', roles: ['public_reader'], authentication_realm: { name: '__anonymous', type: '__anonymous' }, authentication_type: 'anonymous' });
      expect((await host.request('GET', '/public-1/_search')).status).toBe(200);
      const denied = await host.request('GET', '/private/_search');
      expect(denied.status).toBe(403);
      expect(denied.body.error.reason).toContain('is unauthorized for user [_anonymous] with effective roles [public_reader] on indices [private]');
      // wrong credentials are still refused, not treated as anonymous
      expect((await host.request('GET', '/', undefined, basic('elastic', 'wrong'))).status).toBe(401);
    } finally {
      await host.close();
    }
    const challenging = await start(false);
    try {
      const denied = await challenging.request('GET', '/private/_search');
      expect(denied.status).toBe(401);
      expect(denied.body.error.reason).toBe('missing authentication credentials for REST request [/private/_search]');
    } finally {
      await challenging.close();
      rmSync(conf, { recursive: true, force: true });
    }
  });

  it('refuses a token timeout above one hour at start', async () => {
    await expect(createTestHost({ features: [authChainFeature], settings: { 'xpack.security.enabled': true, 'xpack.security.authc.token.timeout': '2h' } })).rejects.toThrow(
      'failed to parse value [2h] for setting [xpack.security.authc.token.timeout], must be <= [1h]',
    );
  });
});
