/**
 * Scroll and PIT contexts belong to the principal that opened them (RestRequest.principal, passed down as
 * SearchRequest.principal). A test authenticator contributed through the core's Authenticator extension
 * point stands in for the security library: `X-Test-User: name[@realm][#apikey]`.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints, type Authenticator, type AuthResult, type Principal, type RestRequest } from '@strata/core-common';
import { createTestHost, type TestHost } from '@strata/core-testing';
import { pagingFeature } from './paging.module.js';

const testAuthenticator: Authenticator = {
  name: 'test-user-header',
  order: 10,
  extractCredentials(req: RestRequest) {
    return req.headers['x-test-user'];
  },
  async authenticate(cred: unknown): Promise<AuthResult> {
    const m = /^([^@#]+)(?:@([^#]+))?(?:#(.+))?$/.exec(String(cred))!;
    const realm = m[2] ?? 'default_native';
    const principal: Principal = {
      username: m[1],
      roles: [],
      realm: m[3] ? { name: '_es_api_key', type: '_es_api_key' } : { name: realm, type: realm === 'reserved' ? 'reserved' : 'native' },
      authenticationType: m[3] ? 'api_key' : 'realm',
    };
    if (m[3]) principal.apiKey = { id: m[3], name: null };
    return { kind: 'success', principal };
  },
};

const as = (user: string) => ({ 'X-Test-User': user });

describe('paging contexts belong to their owner', () => {
  let host: TestHost;

  beforeAll(async () => {
    host = await createTestHost({
      features: [pagingFeature],
      overrides: [new ContainerModule(({ bind }) => void bind(ExtensionPoints.Authenticator).toConstantValue(testAuthenticator))],
    });
    const lines: object[] = [];
    for (let i = 0; i < 6; i++) lines.push({ index: { _index: 'owned', _id: `d${i}` } }, { n: i });
    expect((await host.request('POST', '/_bulk?refresh=true', lines, as('alice'))).body.errors).toBe(false);
  });
  afterAll(async () => {
    await host?.close();
  });


  it('a scroll is continued and cleared only by the user who opened it', async () => {
    const first = await host.request('POST', '/owned/_search?scroll=1m', { size: 2, sort: ['_doc'] }, as('alice'));
    expect(first.status).toBe(200);
    const scrollId = first.body._scroll_id as string;

    for (const other of ['bob', 'alice@file1', 'alice#key-1']) {
      const r = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: scrollId }, as(other));
      expect(r.status).toBe(404);
      expect(r.body.error.type).toBe('search_phase_execution_exception');
      expect(r.body.error.root_cause).toEqual([{ type: 'search_context_missing_exception', reason: expect.stringMatching(/^No search context found for id \[\d+\]$/) }]);
      const c = await host.request('DELETE', '/_search/scroll', { scroll_id: scrollId }, as(other));
      expect([c.status, c.body]).toEqual([404, { succeeded: true, num_freed: 0 }]);
    }
    // _all of another user frees nothing of alice's
    const all = await host.request('DELETE', '/_search/scroll/_all', undefined, as('bob'));
    expect([all.status, all.body]).toEqual([404, { succeeded: true, num_freed: 0 }]);

    const next = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: scrollId }, as('alice'));
    expect(next.status).toBe(200);
    expect(next.body.hits.hits.map((h: { _id: string }) => h._id)).toEqual(['d2', 'd3']);
    const clear = await host.request('DELETE', '/_search/scroll', { scroll_id: scrollId }, as('alice'));
    expect([clear.status, clear.body]).toEqual([200, { succeeded: true, num_freed: 1 }]);
  });

  it('a point in time is searched and closed only by its owner; an API key owns its own contexts', async () => {
    const open = await host.request('POST', '/owned/_pit?keep_alive=1m', undefined, as('carol#k1'));
    expect(open.status).toBe(200);
    const pit = open.body.id as string;
    const search = (user: string) => host.request('POST', '/_search', { size: 1, pit: { id: pit } }, as(user));

    const carol = await search('carol');
    expect(carol.status).toBe(404);
    expect(carol.body.error.root_cause[0].type).toBe('search_context_missing_exception');
    expect((await search('carol#k2')).status).toBe(404);
    expect((await search('carol#k1')).status).toBe(200);

    // another user's PIT is closed as if it did not exist
    const wrongClose = await host.request('DELETE', '/_pit', { id: pit }, as('carol'));
    expect([wrongClose.status, wrongClose.body]).toEqual([404, { succeeded: false, num_freed: 0 }]);
    const close = await host.request('DELETE', '/_pit', { id: pit }, as('carol#k1'));
    expect([close.status, close.body]).toEqual([200, { succeeded: true, num_freed: 1 }]);
  });

  it('contexts opened without a principal (security off) stay usable by anyone', async () => {
    const first = await host.request('POST', '/owned/_search?scroll=1m', { size: 3, sort: ['_doc'] });
    expect(first.status).toBe(200);
    const next = await host.request('POST', '/_search/scroll', { scroll: '1m', scroll_id: first.body._scroll_id }, as('dave'));
    expect(next.status).toBe(200);
    expect(next.body.hits.hits).toHaveLength(3);
  });
});
