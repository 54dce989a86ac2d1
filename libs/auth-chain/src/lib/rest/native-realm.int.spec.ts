/**
 * Native users, roles and role mappings over HTTP; authorization of composite requests item by item;
 * `_has_privileges` and `user/_privileges`; data stream backing indices authorized through their stream.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints } from '@strata/core-common';
import type { IndexNameResolver } from '@strata/core-engine';
import { createTestHost, type TestHost } from '@strata/core-testing';
import { authChainFeature } from '../auth-chain.module.js';

const PASSWORD = 'elastic-test-pw';
const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });
const ELASTIC = basic('elastic', PASSWORD);

/** a stand-in data stream `logs-app` over the backing index `.ds-logs-app-000001` (the real one is another feature's) */
const fakeStreams: IndexNameResolver = {
  order: 200,
  names: () => ['logs-app'],
  resolve: (name: string) => {
    if (name === 'logs-app' || (name.includes('*') && new RegExp('^' + name.replace(/\*/g, '.*') + '$').test('logs-app'))) return ['.ds-logs-app-000001'];
    return undefined;
  },
};

describe('native realm, roles and authorization (security on)', () => {
  let host: TestHost;
  const as = (user: string) => basic(user, `${user}-password`);

  beforeAll(async () => {
    host = await createTestHost({
      features: [authChainFeature],
      settings: { 'xpack.security.enabled': true, 'bootstrap.password': PASSWORD, 'xpack.security.authc.password_hashing.algorithm': 'pbkdf2_1000' },
      overrides: [new ContainerModule(({ bind }) => void bind(ExtensionPoints.IndexNameResolver).toConstantValue(fakeStreams))],
    });
    for (const idx of ['sales-1', 'sales-2', 'hr', '.ds-logs-app-000001']) {
      expect((await host.request('PUT', `/${idx}/_doc/1?refresh=true`, { v: idx }, ELASTIC)).status).toBe(201);
    }
  });
  afterAll(async () => {
    await host?.close();
  });

  it('creates, reads, updates and deletes roles; reserved roles are read-only', async () => {
    const body = { cluster: ['monitor'], indices: [{ names: ['sales-*'], privileges: ['read', 'create_doc'] }], metadata: { team: 'sales' } };
    expect(await host.request('PUT', '/_security/role/sales_reader', body, ELASTIC)).toMatchObject({ status: 200, body: { role: { created: true } } });
    expect((await host.request('PUT', '/_security/role/sales_reader', body, ELASTIC)).body).toEqual({ role: { created: false } });
    const got = await host.request('GET', '/_security/role/sales_reader', undefined, ELASTIC);
    expect(got.body).toEqual({
      sales_reader: {
        cluster: ['monitor'],
        indices: [{ names: ['sales-*'], privileges: ['read', 'create_doc'], allow_restricted_indices: false }],
        applications: [],
        run_as: [],
        metadata: { team: 'sales' },
        transient_metadata: { enabled: true },
      },
    });
    expect((await host.request('GET', '/_security/role/superuser', undefined, ELASTIC)).body.superuser.metadata).toEqual({ _reserved: true });
    expect(await host.request('GET', '/_security/role/nope', undefined, ELASTIC)).toMatchObject({ status: 404, body: {} });

    const reserved = await host.request('PUT', '/_security/role/superuser', body, ELASTIC);
    expect([reserved.status, reserved.body.error.reason]).toEqual([400, 'Validation Failed: 1: Role [superuser] is reserved and may not be used.;']);
    const badPriv = await host.request('PUT', '/_security/role/x', { cluster: ['fly'] }, ELASTIC);
    expect(badPriv.status).toBe(400);
    expect(badPriv.body.error.type).toBe('action_request_validation_exception');
    expect(badPriv.body.error.reason).toMatch(/^Validation Failed: 1: unknown cluster privilege \[fly\]\. a privilege must be either one of the predefined cluster privilege names \[/);
    const badField = await host.request('PUT', '/_security/role/x', { cluster: [], colour: 'red' }, ELASTIC);
    expect([badField.status, badField.body.error.type, badField.body.error.reason]).toEqual([400, 'parse_exception', 'failed to parse role [x]. unexpected field [colour]']);
    const badIdx = await host.request('PUT', '/_security/role/x', { indices: [{ privileges: ['read'] }] }, ELASTIC);
    expect(badIdx.body.error.reason).toBe('failed to parse indices privileges for role [x]. missing required [names] field');

    expect((await host.request('PUT', '/_security/role/temp', { cluster: [] }, ELASTIC)).status).toBe(200);
    expect(await host.request('DELETE', '/_security/role/temp', undefined, ELASTIC)).toMatchObject({ status: 200, body: { found: true } });
    expect(await host.request('DELETE', '/_security/role/temp', undefined, ELASTIC)).toMatchObject({ status: 404, body: { found: false } });
    const delReserved = await host.request('DELETE', '/_security/role/superuser', undefined, ELASTIC);
    expect([delReserved.status, delReserved.body.error.type]).toEqual([400, 'illegal_argument_exception']);
  });

  it('refuses roles with field or document level security as ES does under the basic license', async () => {
    const reason = 'current license is non-compliant for [field and document level security]';
    const err = { type: 'security_exception', reason, 'license.expired.feature': 'field and document level security' };
    const fls = await host.request('PUT', '/_security/role/fls', { indices: [{ names: ['hr'], privileges: ['read'], field_security: { grant: ['v'] } }] }, ELASTIC);
    expect(fls).toMatchObject({ status: 403, body: { error: { root_cause: [err], ...err }, status: 403 } });
    const dls = await host.request('PUT', '/_security/role/dls', { indices: [{ names: ['hr'], privileges: ['read'], query: { term: { v: 'x' } } }] }, ELASTIC);
    expect(dls).toMatchObject({ status: 403, body: { error: err } });
    expect((await host.request('GET', '/_security/role/fls,dls', undefined, ELASTIC)).status).toBe(404);
  });

  it('an API key index group with field or document level security grants nothing', async () => {
    const key = await host.request(
      'POST',
      '/_security/api_key',
      {
        name: 'fls-key',
        role_descriptors: {
          r: { indices: [{ names: ['hr'], privileges: ['read'], field_security: { grant: ['v'] } }, { names: ['sales-*'], privileges: ['read'] }] },
        },
      },
      ELASTIC,
    );
    expect(key.status).toBe(200);
    const auth = { Authorization: `ApiKey ${key.body.encoded}` };
    expect((await host.request('GET', '/sales-1/_search', undefined, auth)).status).toBe(200);
    const hr = await host.request('GET', '/hr/_search', undefined, auth);
    expect(hr.status).toBe(403);
    expect(hr.body.error.reason).toMatch(/^action \[indices:data\/read\/search\] is unauthorized for API key id \[[^\]]+\] of user \[elastic\] on indices \[hr\]/);
  });

  it('runs as another user (es-security-runas-user) only when a role names it in run_as', async () => {
    expect((await host.request('PUT', '/_security/role/ra_target', { indices: [{ names: ['hr'], privileges: ['read'] }] }, ELASTIC)).status).toBe(200);
    expect((await host.request('PUT', '/_security/role/ra_runner', { run_as: ['ra_t*'] }, ELASTIC)).status).toBe(200);
    expect((await host.request('PUT', '/_security/user/ra_t', { password: 'ra_t-password', roles: ['ra_target'] }, ELASTIC)).status).toBe(200);
    expect((await host.request('PUT', '/_security/user/ra_r', { password: 'ra_r-password', roles: ['ra_runner'] }, ELASTIC)).status).toBe(200);
    const runAs = (user: string) => ({ ...as('ra_r'), 'es-security-runas-user': user });
    const native = { name: 'default_native', type: 'native' };

    const me = await host.request('GET', '/_security/_authenticate', undefined, runAs('ra_t'));
    expect(me.body).toMatchObject({ username: 'ra_t', roles: ['ra_target'], authentication_realm: native, lookup_realm: native, authentication_type: 'realm' });
    expect((await host.request('GET', '/hr/_search', undefined, runAs('ra_t'))).body.hits.total.value).toBe(1);
    // the runner's own roles do not read hr
    expect((await host.request('GET', '/hr/_search', undefined, as('ra_r'))).status).toBe(403);
    const other = await host.request('GET', '/sales-1/_search', undefined, runAs('ra_t'));
    expect([other.status, other.body.error.reason]).toEqual([
      403,
      'action [indices:data/read/search] is unauthorized for user [ra_r] run as [ra_t] with effective roles [ra_target] on indices [sales-1], this action is granted by the index privileges [read,all]',
    ]);
    const notAllowed = await host.request('GET', '/hr/_search', undefined, runAs('elastic'));
    expect([notAllowed.status, notAllowed.body.error.type, notAllowed.body.error.reason]).toEqual([
      403,
      'security_exception',
      'action [indices:data/read/search] is unauthorized for user [ra_r] with effective roles [ra_runner], because user [ra_r] is unauthorized to run as [elastic]',
    ]);
    // a user that does not exist is denied the same way, even to a superuser
    const unknown = await host.request('GET', '/hr/_search', undefined, { ...ELASTIC, 'es-security-runas-user': 'ra_nobody' });
    expect([unknown.status, unknown.body.error.reason]).toEqual([
      403,
      'action [indices:data/read/search] is unauthorized for user [elastic] with effective roles [superuser], because user [elastic] is unauthorized to run as [ra_nobody]',
    ]);
    expect((await host.request('GET', '/hr/_search', undefined, runAs(''))).status).toBe(401);
    // API keys do not run as anyone: the header is ignored
    const key = await host.request('POST', '/_security/api_key', { name: 'ra-key' }, ELASTIC);
    const viaKey = await host.request('GET', '/_security/_authenticate', undefined, { Authorization: `ApiKey ${key.body.encoded}`, 'es-security-runas-user': 'ra_t' });
    expect(viaKey.body).toMatchObject({ username: 'elastic', authentication_type: 'api_key' });
  });

  it('creates native users that authenticate, changes their password, disables and deletes them', async () => {
    const created = await host.request('PUT', '/_security/user/sam', { password: 'sam-password', roles: ['sales_reader'], full_name: 'Sam S', email: 'sam@example.com' }, ELASTIC);
    expect(created).toMatchObject({ status: 200, body: { created: true } });
    const me = await host.request('GET', '/_security/_authenticate', undefined, as('sam'));
    expect(me.body).toEqual({
      username: 'sam',
      roles: ['sales_reader'],
      full_name: 'Sam S',
      email: 'sam@example.com',
      metadata: {},
      enabled: true,
      authentication_realm: { name: 'default_native', type: 'native' },
      lookup_realm: { name: 'default_native', type: 'native' },
      authentication_type: 'realm',
    });
    expect((await host.request('GET', '/_security/user/sam', undefined, ELASTIC)).body).toEqual({
      sam: { username: 'sam', roles: ['sales_reader'], full_name: 'Sam S', email: 'sam@example.com', metadata: {}, enabled: true },
    });
    expect((await host.request('GET', '/_security/user', undefined, ELASTIC)).body.elastic).toMatchObject({ roles: ['superuser'], metadata: { _reserved: true } });

    // validation
    const short = await host.request('PUT', '/_security/user/x', { password: '123', roles: [] }, ELASTIC);
    expect(short.body.error.reason).toBe('Validation Failed: 1: passwords must be at least [6] characters long;');
    const reserved = await host.request('PUT', '/_security/user/elastic', { password: '123456', roles: [] }, ELASTIC);
    expect(reserved.body.error.reason).toBe('Validation Failed: 1: Username [elastic] is reserved and may not be used.;');
    const noPw = await host.request('PUT', '/_security/user/newbie', { roles: [] }, ELASTIC);
    expect(noPw.body.error.reason).toBe('Validation Failed: 1: password must be specified unless you are updating an existing user;');

    // a user changes their own password, but not somebody else's
    expect((await host.request('POST', '/_security/user/_password', { password: 'sam-new-pw' }, as('sam'))).status).toBe(200);
    expect((await host.request('GET', '/', undefined, as('sam'))).status).toBe(401);
    const samNew = basic('sam', 'sam-new-pw');
    expect((await host.request('GET', '/', undefined, samNew)).status).toBe(200);
    const other = await host.request('POST', '/_security/user/elastic/_password', { password: 'hijacked' }, samNew);
    expect(other.status).toBe(403);
    expect(other.body.error.reason).toBe(
      'action [cluster:admin/xpack/security/user/change_password] is unauthorized for user [sam] with effective roles [sales_reader], this action is granted by the cluster privileges [manage_security,all]',
    );

    // disabled users cannot authenticate; nobody may disable themselves
    expect((await host.request('PUT', '/_security/user/sam/_disable', undefined, ELASTIC)).status).toBe(200);
    expect((await host.request('GET', '/', undefined, samNew)).status).toBe(401);
    expect((await host.request('PUT', '/_security/user/sam/_enable', undefined, ELASTIC)).status).toBe(200);
    expect((await host.request('GET', '/', undefined, samNew)).status).toBe(200);
    expect((await host.request('PUT', '/_security/user/elastic/_disable', undefined, ELASTIC)).status).toBe(400);

    expect(await host.request('DELETE', '/_security/user/sam', undefined, ELASTIC)).toMatchObject({ status: 200, body: { found: true } });
    expect((await host.request('GET', '/', undefined, samNew)).status).toBe(401);
    expect(await host.request('DELETE', '/_security/user/sam', undefined, ELASTIC)).toMatchObject({ status: 404, body: { found: false } });
  });

  it('authorizes each item of _bulk, _mget and _msearch, and op_type create only for create_doc', async () => {
    await host.request('PUT', '/_security/user/bob', { password: 'bob-password', roles: ['sales_reader'] }, ELASTIC);
    const bulk = await host.request(
      'POST',
      '/_bulk',
      [
        { create: { _index: 'sales-1', _id: 'b1' } },
        { v: 1 },
        { index: { _index: 'sales-1', _id: 'b2' } },
        { v: 2 },
        { create: { _index: 'hr', _id: 'b3' } },
        { v: 3 },
      ],
      as('bob'),
    );
    expect(bulk.status).toBe(200);
    expect(bulk.body.errors).toBe(true);
    expect(bulk.body.items.map((i: Record<string, { status: number }>) => Object.values(i)[0].status)).toEqual([201, 403, 403]);
    expect(bulk.body.items[1].index.error).toEqual({
      type: 'security_exception',
      reason:
        'action [indices:data/write/index:op_type/index] is unauthorized for user [bob] with effective roles [sales_reader] on indices [sales-1], this action is granted by the index privileges [create,index,write,all]',
    });
    expect(bulk.body.items[2].create.error.reason).toContain('on indices [hr]');

    const put = await host.request('PUT', '/sales-1/_doc/b9', { v: 9 }, as('bob'));
    expect(put.status).toBe(403);
    expect((await host.request('PUT', '/sales-1/_create/b9', { v: 9 }, as('bob'))).status).toBe(201);

    const mget = await host.request('POST', '/_mget', { docs: [{ _index: 'sales-2', _id: '1' }, { _index: 'hr', _id: '1' }] }, as('bob'));
    expect(mget.status).toBe(200);
    expect(mget.body.docs[0].found).toBe(true);
    expect(mget.body.docs[1].error.type).toBe('security_exception');

    const ms = await host.request('POST', '/_msearch', [{ index: 'sales-2' }, { query: { match_all: {} } }, { index: 'hr' }, { query: { match_all: {} } }, { index: 'sal*,hr*' }, {}], as('bob'));
    expect(ms.status).toBe(200);
    expect(ms.body.responses.map((r: { status: number }) => r.status)).toEqual([200, 403, 200]);
    // only the authorized indices (b1 and b9 may already be searchable if a periodic refresh ran)
    expect([...new Set(ms.body.responses[2].hits.hits.map((h: { _index: string }) => h._index))].sort()).toEqual(['sales-1', 'sales-2']);
  });

  it('authorizes data stream backing indices through the stream', async () => {
    await host.request('PUT', '/_security/role/logs_reader', { indices: [{ names: ['logs-*'], privileges: ['read'] }] }, ELASTIC);
    await host.request('PUT', '/_security/user/lea', { password: 'lea-password', roles: ['logs_reader'] }, ELASTIC);
    expect((await host.request('GET', '/logs-app/_search', undefined, as('lea'))).body.hits.total.value).toBe(1);
    expect((await host.request('GET', '/.ds-logs-app-000001/_search', undefined, as('lea'))).status).toBe(200);
    expect((await host.request('GET', '/logs-*/_count', undefined, as('lea'))).body.count).toBe(1);
    expect((await host.request('GET', '/hr/_search', undefined, as('lea'))).status).toBe(403);
  });

  it('answers _has_privileges and user/_privileges', async () => {
    await host.request('PUT', '/_security/user/hal', { password: 'hal-password', roles: ['sales_reader'] }, ELASTIC);
    const r = await host.request(
      'POST',
      '/_security/user/_has_privileges',
      { cluster: ['monitor', 'manage'], index: [{ names: ['sales-1', 'sales-*', 'hr'], privileges: ['read', 'write'] }] },
      as('hal'),
    );
    expect(r.body).toEqual({
      username: 'hal',
      has_all_requested: false,
      cluster: { monitor: true, manage: false },
      index: { 'sales-1': { read: true, write: false }, 'sales-*': { read: true, write: false }, hr: { read: false, write: false } },
      application: {},
    });
    const su = await host.request('POST', '/_security/user/_has_privileges', { cluster: ['all'], index: [{ names: ['*'], privileges: ['all'] }] }, ELASTIC);
    expect(su.body.has_all_requested).toBe(true);

    const privs = await host.request('GET', '/_security/user/_privileges', undefined, as('hal'));
    expect(privs.body).toEqual({
      cluster: ['monitor'],
      global: [],
      indices: [{ names: ['sales-*'], privileges: ['create_doc', 'read'], allow_restricted_indices: false }],
      applications: [],
      run_as: [],
    });
    const builtin = await host.request('GET', '/_security/privilege/_builtin', undefined, ELASTIC);
    expect(builtin.body.cluster).toContain('manage_own_api_key');
    expect(builtin.body.index).toEqual(expect.arrayContaining(['all', 'read', 'create_doc', 'delete_index', 'view_index_metadata']));
  });

  it('stores role mappings', async () => {
    const body = { enabled: true, roles: ['sales_reader'], rules: { field: { username: '*' } }, metadata: { v: 1 } };
    expect((await host.request('PUT', '/_security/role_mapping/m1', body, ELASTIC)).body).toEqual({ role_mapping: { created: true } });
    expect((await host.request('GET', '/_security/role_mapping/m1', undefined, ELASTIC)).body).toEqual({ m1: body });
    const bad = await host.request('PUT', '/_security/role_mapping/m2', { enabled: true, rules: { field: { username: '*' } } }, ELASTIC);
    expect(bad.body.error.reason).toBe('Validation Failed: 1: a role mapping must specify exactly one of [roles] or [role_templates];');
    expect((await host.request('DELETE', '/_security/role_mapping/m1', undefined, ELASTIC)).body).toEqual({ found: true });
  });
});
