/**
 * API keys, OAuth2 tokens and service account tokens over HTTP: creation, authentication, limits,
 * expiry (manual clock), invalidation and the errors of each.
 */
import { createTestHost, ManualClock, type TestHost } from '@strata/core-testing';
import { authChainFeature } from '../auth-chain.module.js';

const PASSWORD = 'elastic-test-pw';
const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });
const ELASTIC = basic('elastic', PASSWORD);
const apiKey = (encoded: string) => ({ Authorization: `ApiKey ${encoded}` });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

describe('API keys, tokens and service accounts (security on)', () => {
  let host: TestHost;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  beforeAll(async () => {
    host = await createTestHost({
      features: [authChainFeature],
      clock,
      settings: { 'xpack.security.enabled': true, 'bootstrap.password': PASSWORD, 'xpack.security.authc.password_hashing.algorithm': 'pbkdf2_1000' },
    });
    for (const idx of ['app-1', 'app-2', 'other']) expect((await host.request('PUT', `/${idx}/_doc/1?refresh=true`, { v: idx }, ELASTIC)).status).toBe(201);
    await host.request('PUT', '/_security/role/app_rw', { cluster: ['manage_own_api_key', 'monitor'], indices: [{ names: ['app-*'], privileges: ['read', 'write'] }] }, ELASTIC);
    await host.request('PUT', '/_security/user/dev', { password: 'dev-password', roles: ['app_rw'], full_name: 'Dev' }, ELASTIC);
  });
  afterAll(async () => {
    await host?.close();
  });
  const DEV = basic('dev', 'dev-password');

  describe('API keys', () => {
    it('creates a key that authenticates as its owner and never exceeds the owner', async () => {
      const created = await host.request(
        'POST',
        '/_security/api_key',
        { name: 'k1', role_descriptors: { wide: { cluster: ['all'], indices: [{ names: ['*'], privileges: ['all'] }] } }, metadata: { app: 'x' } },
        DEV,
      );
      expect(created.status).toBe(200);
      expect(Object.keys(created.body)).toEqual(['id', 'name', 'api_key', 'encoded']);
      expect(created.body.name).toBe('k1');
      expect(Buffer.from(created.body.encoded, 'base64').toString()).toBe(`${created.body.id}:${created.body.api_key}`);
      const key = apiKey(created.body.encoded);

      const me = await host.request('GET', '/_security/_authenticate', undefined, key);
      expect(me.body).toEqual({
        username: 'dev',
        roles: [],
        full_name: 'Dev',
        email: null,
        metadata: {},
        enabled: true,
        authentication_realm: { name: '_es_api_key', type: '_es_api_key' },
        lookup_realm: { name: '_es_api_key', type: '_es_api_key' },
        authentication_type: 'api_key',
        api_key: { id: created.body.id, name: 'k1' },
      });
      // asked for everything, limited by the creator: app-* read/write, nothing else
      expect((await host.request('GET', '/app-1/_search', undefined, key)).status).toBe(200);
      const other = await host.request('GET', '/other/_search', undefined, key);
      expect(other.status).toBe(403);
      expect(other.body.error.reason).toBe(
        `action [indices:data/read/search] is unauthorized for API key id [${created.body.id}] of user [dev] on indices [other], this action is granted by the index privileges [read,all]`,
      );
      expect((await host.request('PUT', '/_cluster/settings', { persistent: {} }, key)).status).toBe(403);
      const star = await host.request('GET', '/*/_count', undefined, key);
      expect(star.body.count).toBe(2);
    });

    it('a key with its own narrower role descriptors is narrower than its owner', async () => {
      const c = await host.request('POST', '/_security/api_key', { name: 'ro', role_descriptors: { ro: { indices: [{ names: ['app-1'], privileges: ['read'] }] } } }, DEV);
      const key = apiKey(c.body.encoded);
      expect((await host.request('GET', '/app-1/_search', undefined, key)).status).toBe(200);
      expect((await host.request('GET', '/app-2/_search', undefined, key)).status).toBe(403);
      expect((await host.request('PUT', '/app-1/_doc/9', { v: 1 }, key)).status).toBe(403);
      // the derived-key rule: a key may only create keys with an explicit empty role descriptor
      const derived = await host.request('POST', '/_security/api_key', { name: 'child' }, key);
      expect(derived.status).toBe(403);
      const own = await host.request('POST', '/_security/api_key', { name: 'child' }, apiKey((await host.request('POST', '/_security/api_key', { name: 'parent' }, DEV)).body.encoded));
      expect([own.status, own.body.error.type, own.body.error.reason]).toEqual([
        400,
        'illegal_argument_exception',
        'creating derived api keys requires an explicit role descriptor that is empty (has no privileges)',
      ]);
    });

    it('expires keys with an expiration; refuses invalidated, unknown and forged keys with the same 401', async () => {
      const c = await host.request('POST', '/_security/api_key', { name: 'short', expiration: '1h' }, DEV);
      expect(c.body.expiration).toBe(clock.now() + 3_600_000);
      const key = apiKey(c.body.encoded);
      expect((await host.request('GET', '/', undefined, key)).status).toBe(200);
      clock.advance(3_600_001);
      const expired = await host.request('GET', '/', undefined, key);
      expect(expired.status).toBe(401);
      expect(expired.body.error.reason).toBe('unable to authenticate with provided credentials and anonymous access is not allowed for this request');
      expect(expired.body.error.additional_unsuccessful_credentials).toBe('API key: api key is expired');

      const forged = Buffer.from(`${c.body.id}:not-the-secret`).toString('base64');
      expect((await host.request('GET', '/', undefined, apiKey(forged))).body.error.additional_unsuccessful_credentials).toBe(`API key: invalid credentials for API key [${c.body.id}]`);
      expect((await host.request('GET', '/', undefined, apiKey('bm9jb2xvbg=='))).status).toBe(401);

      const k2 = await host.request('POST', '/_security/api_key', { name: 'gone' }, DEV);
      expect((await host.request('GET', '/', undefined, apiKey(k2.body.encoded))).status).toBe(200);
      const inv = await host.request('DELETE', '/_security/api_key', { ids: [k2.body.id], owner: true }, DEV);
      expect(inv.body).toEqual({ invalidated_api_keys: [k2.body.id], previously_invalidated_api_keys: [], error_count: 0 });
      const again = await host.request('DELETE', '/_security/api_key', { ids: [k2.body.id] }, ELASTIC);
      expect(again.body).toEqual({ invalidated_api_keys: [], previously_invalidated_api_keys: [k2.body.id], error_count: 0 });
      const after = await host.request('GET', '/', undefined, apiKey(k2.body.encoded));
      expect(after.status).toBe(401);
      expect(after.body.error.additional_unsuccessful_credentials).toBe(`API key: api key [${k2.body.id}] has been invalidated`);
    });

    it('gets, queries and updates keys; manage_own_api_key sees only its own', async () => {
      const mine = await host.request('GET', '/_security/api_key?owner=true', undefined, DEV);
      expect(mine.status).toBe(200);
      expect(mine.body.api_keys.length).toBeGreaterThanOrEqual(4);
      expect(mine.body.api_keys.every((k: { username: string }) => k.username === 'dev')).toBe(true);
      const k1 = mine.body.api_keys.find((k: { name: string }) => k.name === 'k1');
      expect(k1).toMatchObject({ type: 'rest', invalidated: false, username: 'dev', realm: 'default_native', realm_type: 'native', metadata: { app: 'x' } });
      expect(Object.keys(k1.role_descriptors)).toEqual(['wide']);
      expect(k1.limited_by).toBeUndefined();
      const withLimited = await host.request('GET', `/_security/api_key?id=${k1.id}&with_limited_by=true`, undefined, ELASTIC);
      expect(Object.keys(withLimited.body.api_keys[0].limited_by[0])).toEqual(['app_rw']);
      // without owner=true, manage_own_api_key is not enough
      expect((await host.request('GET', '/_security/api_key', undefined, DEV)).status).toBe(403);

      const elasticKey = await host.request('POST', '/_security/api_key', { name: 'admin-key', metadata: { team: 'ops' } }, ELASTIC);
      const q = await host.request('POST', '/_security/_query/api_key', { query: { bool: { filter: [{ term: { invalidated: false } }, { prefix: { name: 'k' } }] } }, sort: ['name'] }, ELASTIC);
      expect(q.body.api_keys.map((k: { name: string }) => k.name)).toEqual(['k1']);
      expect(q.body.api_keys[0]._sort).toEqual(['k1']);
      const byMeta = await host.request('POST', '/_security/_query/api_key', { query: { term: { 'metadata.team': 'ops' } } }, ELASTIC);
      expect(byMeta.body).toMatchObject({ total: 1, count: 1 });
      expect(byMeta.body.api_keys[0].id).toBe(elasticKey.body.id);
      // the owner-restricted query never shows someone else's keys
      const devQ = await host.request('POST', '/_security/_query/api_key', { query: { match_all: {} }, size: 100 }, DEV);
      expect(devQ.body.api_keys.some((k: { username: string }) => k.username !== 'dev')).toBe(false);
      const badField = await host.request('POST', '/_security/_query/api_key', { query: { term: { api_key_hash: 'x' } } }, ELASTIC);
      expect([badField.status, badField.body.error.reason]).toEqual([400, 'Field [api_key_hash] is not allowed for querying or aggregation']);

      const upd = await host.request('PUT', `/_security/api_key/${k1.id}`, { metadata: { app: 'y' } }, DEV);
      expect(upd.body).toEqual({ updated: true });
      expect((await host.request('PUT', `/_security/api_key/${k1.id}`, { metadata: { app: 'y' } }, DEV)).body).toEqual({ updated: false });
      const notMine = await host.request('PUT', `/_security/api_key/${elasticKey.body.id}`, { metadata: {} }, DEV);
      expect([notMine.status, notMine.body.error.type]).toEqual([404, 'resource_not_found_exception']);
    });

    it('grants a key for another user, limited by that user', async () => {
      const g = await host.request('POST', '/_security/api_key/grant', { grant_type: 'password', username: 'dev', password: 'dev-password', api_key: { name: 'granted' } }, ELASTIC);
      expect(g.status).toBe(200);
      const me = await host.request('GET', '/_security/_authenticate', undefined, apiKey(g.body.encoded));
      expect(me.body.username).toBe('dev');
      expect((await host.request('GET', '/other/_search', undefined, apiKey(g.body.encoded))).status).toBe(403);
      const bad = await host.request('POST', '/_security/api_key/grant', { grant_type: 'password', username: 'dev', password: 'nope', api_key: { name: 'x' } }, ELASTIC);
      expect(bad.status).toBe(401);
      const noPriv = await host.request('POST', '/_security/api_key/grant', { grant_type: 'password', username: 'dev', password: 'dev-password', api_key: { name: 'x' } }, DEV);
      expect(noPriv.status).toBe(403);
      const invalid = await host.request('POST', '/_security/api_key', { name: '_x', role_descriptors: { r: { cluster: ['fly'] } } }, DEV);
      expect(invalid.status).toBe(400);
    });
  });

  describe('tokens', () => {
    it('creates access and refresh tokens with the password grant; the access token authenticates as the user', async () => {
      const t = await host.request('POST', '/_security/oauth2/token', { grant_type: 'password', username: 'dev', password: 'dev-password' }, ELASTIC);
      expect(t.status).toBe(200);
      expect(t.body).toMatchObject({ type: 'Bearer', expires_in: 1200, scope: 'full' });
      expect(typeof t.body.access_token).toBe('string');
      expect(typeof t.body.refresh_token).toBe('string');
      expect(t.body.authentication).toMatchObject({ username: 'dev', authentication_type: 'token', authentication_realm: { name: 'default_native', type: 'native' } });
      const me = await host.request('GET', '/_security/_authenticate', undefined, bearer(t.body.access_token));
      expect(me.body).toMatchObject({ username: 'dev', roles: ['app_rw'], authentication_type: 'token' });
      expect((await host.request('GET', '/other/_search', undefined, bearer(t.body.access_token))).status).toBe(403);

      // 20 minutes later the access token has expired
      clock.advance(20 * 60_000 + 1);
      const expired = await host.request('GET', '/', undefined, bearer(t.body.access_token));
      expect(expired.status).toBe(401);
      expect(expired.body.error.reason).toBe('token expired');
      expect(expired.headers['www-authenticate']).toContain('error="invalid_token"');

      // the refresh token gives a new pair once; a repeat within 30 s gives the same pair, later it is refused
      const r1 = await host.request('POST', '/_security/oauth2/token', { grant_type: 'refresh_token', refresh_token: t.body.refresh_token }, ELASTIC);
      expect(r1.status).toBe(200);
      expect((await host.request('GET', '/', undefined, bearer(r1.body.access_token))).status).toBe(200);
      clock.advance(10_000);
      const r2 = await host.request('POST', '/_security/oauth2/token', { grant_type: 'refresh_token', refresh_token: t.body.refresh_token }, ELASTIC);
      expect([r2.body.access_token, r2.body.refresh_token]).toEqual([r1.body.access_token, r1.body.refresh_token]);
      clock.advance(30_000);
      const r3 = await host.request('POST', '/_security/oauth2/token', { grant_type: 'refresh_token', refresh_token: t.body.refresh_token }, ELASTIC);
      expect([r3.status, r3.body]).toEqual([400, { error: 'invalid_grant', error_description: 'token has already been refreshed more than 30 seconds in the past' }]);
      // only the creating client may refresh
      const wrongClient = await host.request('POST', '/_security/oauth2/token', { grant_type: 'refresh_token', refresh_token: r1.body.refresh_token }, DEV);
      expect(wrongClient.status).toBe(403);
    });

    it('invalidates by token, refresh token and user; rejects bad grants OAuth2-style', async () => {
      const t = await host.request('POST', '/_security/oauth2/token', { grant_type: 'client_credentials' }, ELASTIC);
      expect(t.body.refresh_token).toBeUndefined();
      expect((await host.request('GET', '/', undefined, bearer(t.body.access_token))).status).toBe(200);
      const inv = await host.request('DELETE', '/_security/oauth2/token', { token: t.body.access_token }, ELASTIC);
      expect(inv.body).toEqual({ invalidated_tokens: 1, previously_invalidated_tokens: 0, error_count: 0 });
      expect((await host.request('GET', '/', undefined, bearer(t.body.access_token))).status).toBe(401);

      const p = await host.request('POST', '/_security/oauth2/token', { grant_type: 'password', username: 'dev', password: 'dev-password' }, ELASTIC);
      const byUser = await host.request('DELETE', '/_security/oauth2/token', { username: 'dev' }, ELASTIC);
      expect(byUser.body.invalidated_tokens).toBeGreaterThanOrEqual(2);
      expect((await host.request('GET', '/', undefined, bearer(p.body.access_token))).status).toBe(401);
      const refreshAfter = await host.request('POST', '/_security/oauth2/token', { grant_type: 'refresh_token', refresh_token: p.body.refresh_token }, ELASTIC);
      expect(refreshAfter.body).toEqual({ error: 'invalid_grant', error_description: 'token has been invalidated' });

      expect((await host.request('POST', '/_security/oauth2/token', { grant_type: 'magic' }, ELASTIC)).body).toEqual({
        error: 'unsupported_grant_type',
        error_description: 'Validation Failed: 1: grant_type [magic] is not supported;',
      });
      expect((await host.request('POST', '/_security/oauth2/token', { grant_type: 'password', username: 'dev' }, ELASTIC)).body).toEqual({
        error: 'invalid_request',
        error_description: 'Validation Failed: 1: password is missing;',
      });
      const wrongPw = await host.request('POST', '/_security/oauth2/token', { grant_type: 'password', username: 'dev', password: 'x' }, ELASTIC);
      expect([wrongPw.status, wrongPw.body.error.type]).toEqual([401, 'security_exception']);
      const forged = await host.request('GET', '/', undefined, bearer('dGhpcyBpcyBub3QgYSB0b2tlbg=='));
      expect([forged.status, forged.body.error.reason]).toEqual([401, 'unable to authenticate with provided credentials and anonymous access is not allowed for this request']);
      expect((await host.request('DELETE', '/_security/oauth2/token', {}, ELASTIC)).status).toBe(400);
    });
  });

  describe('service accounts', () => {
    it('lists the accounts, creates tokens that authenticate with the fixed role, deletes them', async () => {
      const all = await host.request('GET', '/_security/service', undefined, ELASTIC);
      expect(Object.keys(all.body).sort()).toEqual(['elastic/enterprise-search-server', 'elastic/fleet-server', 'elastic/kibana']);
      expect(all.body['elastic/fleet-server'].role_descriptor.cluster).toContain('manage_own_api_key');

      const c = await host.request('POST', '/_security/service/elastic/fleet-server/credential/token/token1', undefined, ELASTIC);
      expect(c.status).toBe(200);
      expect(c.body.created).toBe(true);
      expect(c.body.token.name).toBe('token1');
      expect(Buffer.from(c.body.token.value, 'base64').subarray(0, 4)).toEqual(Buffer.from([0, 1, 0, 1]));
      const dup = await host.request('POST', '/_security/service/elastic/fleet-server/credential/token/token1', undefined, ELASTIC);
      expect([dup.status, dup.body.error.type]).toEqual([409, 'version_conflict_engine_exception']);
      const auto = await host.request('POST', '/_security/service/elastic/fleet-server/credential/token', undefined, ELASTIC);
      expect(auto.body.token.name).toMatch(/^token_/);

      const me = await host.request('GET', '/_security/_authenticate', undefined, bearer(c.body.token.value));
      expect(me.body).toEqual({
        username: 'elastic/fleet-server',
        roles: [],
        full_name: 'Service account - elastic/fleet-server',
        email: null,
        metadata: { _elastic_service_account: true },
        enabled: true,
        authentication_realm: { name: '_service_account', type: '_service_account' },
        lookup_realm: { name: '_service_account', type: '_service_account' },
        authentication_type: 'token',
        token: { name: 'token1', type: '_service_account_index' },
      });
      expect((await host.request('POST', '/logs-x/_doc', { v: 1 }, bearer(c.body.token.value))).status).toBe(201);
      expect((await host.request('GET', '/app-1/_search', undefined, bearer(c.body.token.value))).status).toBe(403);

      const creds = await host.request('GET', '/_security/service/elastic/fleet-server/credential', undefined, ELASTIC);
      expect(creds.body).toMatchObject({ service_account: 'elastic/fleet-server', count: 2, nodes_credentials: { file_tokens: {} } });
      expect(Object.keys(creds.body.tokens)).toContain('token1');

      expect((await host.request('DELETE', '/_security/service/elastic/fleet-server/credential/token/token1', undefined, ELASTIC)).body).toEqual({ found: true });
      const after = await host.request('GET', '/', undefined, bearer(c.body.token.value));
      expect(after.status).toBe(401);
      expect(after.body.error.additional_unsuccessful_credentials).toBe('Service account: failed to authenticate service account [elastic/fleet-server] with token name [token1]');
      expect((await host.request('DELETE', '/_security/service/elastic/fleet-server/credential/token/token1', undefined, ELASTIC)).status).toBe(404);
      const badName = await host.request('POST', '/_security/service/elastic/fleet-server/credential/token/_bad', undefined, ELASTIC);
      expect(badName.status).toBe(400);
      const noAccount = await host.request('POST', '/_security/service/elastic/nope/credential/token/t', undefined, ELASTIC);
      expect(noAccount.status).toBe(400);
    });
  });
});
