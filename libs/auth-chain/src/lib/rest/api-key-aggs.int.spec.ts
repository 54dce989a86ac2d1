/**
 * `_security/_query/api_key` with aggregations: Elasticsearch's documented examples (keys of "june" and "king"
 * grouped by owner and expiry), every supported aggregation type, typed_keys, and the refusals.
 */
import { createTestHost, type TestHost } from '@strata/core-testing';
import { authChainFeature } from '../auth-chain.module.js';

const PASSWORD = 'elastic-test-pw';
const basic = (user: string, pw: string) => ({ Authorization: 'Basic ' + Buffer.from(`${user}:${pw}`).toString('base64') });
const ELASTIC = basic('elastic', PASSWORD);

describe('query API keys with aggregations', () => {
  let host: TestHost;
  const query = (body: unknown, auth = ELASTIC, params = '') => host.request('POST', `/_security/_query/api_key${params}`, body, auth);

  beforeAll(async () => {
    host = await createTestHost({
      features: [authChainFeature],
      settings: { 'xpack.security.enabled': true, 'bootstrap.password': PASSWORD, 'xpack.security.authc.password_hashing.algorithm': 'pbkdf2_1000' },
    });
    await host.request('PUT', '/_security/role/own_keys', { cluster: ['manage_own_api_key'] }, ELASTIC);
    for (const user of ['june', 'king']) {
      expect((await host.request('PUT', `/_security/user/${user}`, { password: 'security-test-password', roles: ['own_keys'] }, ELASTIC)).status).toBe(200);
      for (const [suffix, expiration] of [['no-expire', undefined], ['10', '10d'], ['100', '100d']] as const) {
        const g = await host.request(
          'POST',
          '/_security/api_key/grant',
          { grant_type: 'password', username: user, password: 'security-test-password', api_key: { name: `${user}-key-${suffix}`, ...(expiration ? { expiration } : {}), metadata: { tier: suffix === '10' ? 1 : 2 } } },
          ELASTIC,
        );
        expect(g.status).toBe(200);
      }
    }
    for (const name of ['king-key-no-expire', 'june-key-100']) {
      expect((await host.request('DELETE', '/_security/api_key', { name }, ELASTIC)).body.invalidated_api_keys).toHaveLength(1);
    }
  });
  afterAll(async () => {
    await host?.close();
  });

  it("answers Elasticsearch's documented examples exactly", async () => {
    const valid = await query({
      size: 0,
      query: {
        bool: {
          must: { term: { invalidated: false } },
          should: [{ range: { expiration: { gte: 'now' } } }, { bool: { must_not: { exists: { field: 'expiration' } } } }],
          minimum_should_match: 1,
        },
      },
      aggs: {
        keys_by_username: {
          composite: { sources: [{ usernames: { terms: { field: 'username' } } }] },
          aggs: { expires_soon: { filter: { range: { expiration: { lte: 'now+30d/d' } } }, aggs: { key_names: { terms: { field: 'name' } } } } },
        },
      },
    });
    expect(valid.status).toBe(200);
    const soon = (name: string) => ({ doc_count: 1, key_names: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: name, doc_count: 1 }] } });
    expect(valid.body).toEqual({
      total: 4,
      count: 0,
      api_keys: [],
      aggregations: {
        keys_by_username: {
          after_key: { usernames: 'king' },
          buckets: [
            { key: { usernames: 'june' }, doc_count: 2, expires_soon: soon('june-key-10') },
            { key: { usernames: 'king' }, doc_count: 2, expires_soon: soon('king-key-10') },
          ],
        },
      },
    });
    const invalidated = await query({
      size: 0,
      query: { bool: { filter: { term: { invalidated: true } } } },
      aggs: { invalidated_keys: { composite: { sources: [{ username: { terms: { field: 'username' } } }, { key_name: { terms: { field: 'name' } } }] } } },
    });
    expect(invalidated.body).toEqual({
      total: 2,
      count: 0,
      api_keys: [],
      aggregations: {
        invalidated_keys: {
          after_key: { username: 'king', key_name: 'king-key-no-expire' },
          buckets: [
            { key: { username: 'june', key_name: 'june-key-100' }, doc_count: 1 },
            { key: { username: 'king', key_name: 'king-key-no-expire' }, doc_count: 1 },
          ],
        },
      },
    });
  });

  it('terms, missing, value_count, cardinality, ranges, filters and global; typed_keys; paging does not change them', async () => {
    const day = 86_400_000;
    const r = await query(
      {
        size: 1,
        query: { prefix: { name: 'june' } },
        aggregations: {
          by_state: { terms: { field: 'invalidated' } },
          tiers: { terms: { field: 'metadata.tier', size: 1, order: { _key: 'desc' } } },
          no_expiry: { missing: { field: 'expiration' } },
          owners: { cardinality: { field: 'username' } },
          names: { value_count: { field: 'name' } },
          expiry: { date_range: { field: 'expiration', keyed: true, ranges: [{ key: 'soon', to: 'now+30d' }, { key: 'later', from: 'now+30d' }] } },
          all: { global: {}, aggs: { owners: { terms: { field: 'username' } } } },
          split: { filters: { filters: { ten: { term: { name: 'june-key-10' } } }, other_bucket_key: 'rest' } },
        },
      },
      ELASTIC,
      '?typed_keys',
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 3, count: 1 });
    expect(r.body.aggregations).toEqual({
      'lterms#by_state': {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 0, key_as_string: 'false', doc_count: 2 },
          { key: 1, key_as_string: 'true', doc_count: 1 },
        ],
      },
      'sterms#tiers': { doc_count_error_upper_bound: 0, sum_other_doc_count: 1, buckets: [{ key: '2', doc_count: 2 }] },
      'missing#no_expiry': { doc_count: 1 },
      'cardinality#owners': { value: 1 },
      'value_count#names': { value: 3 },
      'date_range#expiry': {
        buckets: {
          soon: { to: expect.any(Number), to_as_string: expect.stringMatching(/^\d+$/), doc_count: 1 },
          later: { from: expect.any(Number), from_as_string: expect.stringMatching(/^\d+$/), doc_count: 1 },
        },
      },
      'global#all': { doc_count: 6, 'sterms#owners': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'june', doc_count: 3 }, { key: 'king', doc_count: 3 }] } },
      'filters#split': { buckets: { ten: { doc_count: 1 }, rest: { doc_count: 2 } } },
    });
    // range over epoch millis, unkeyed: "from-to" keys, sorted by from
    const created = (await query({ size: 1, sort: [{ creation: 'asc' }] })).body.api_keys[0].creation as number;
    const ranges = await query({ size: 0, aggs: { made: { range: { field: 'creation', ranges: [{ from: created + day }, { to: created + day }] } } } });
    expect(ranges.body.aggregations.made.buckets).toEqual([
      { key: `*-${created + day}`, to: created + day, to_as_string: String(created + day), doc_count: 6 },
      { key: `${created + day}-*`, from: created + day, from_as_string: String(created + day), doc_count: 0 },
    ]);
    // manage_own_api_key: aggregations only see the caller's keys
    const own = await query({ size: 0, aggs: { owners: { terms: { field: 'username' } } } }, basic('june', 'security-test-password'));
    expect(own.body.aggregations.owners.buckets).toEqual([{ key: 'june', doc_count: 3 }]);
  });

  it('refuses what Elasticsearch refuses, with its messages', async () => {
    const reason = async (aggs: unknown) => {
      const r = await query({ aggs });
      expect(r.status).toBe(400);
      return [r.body.error.type, r.body.error.reason];
    };
    expect(await reason({ a: { avg: { field: 'creation' } } })).toEqual(['illegal_argument_exception', 'Unsupported API Keys agg [a] of type [avg]']);
    expect(await reason({ a: { terms: { field: 'name' }, aggs: { h: { date_histogram: { field: 'creation', fixed_interval: '1d' } } } } })).toEqual([
      'illegal_argument_exception',
      'Unsupported API Keys agg [h] of type [date_histogram]',
    ]);
    expect(await reason({ m: { max_bucket: { buckets_path: 'a>_count' } } })).toEqual(['illegal_argument_exception', 'Unsupported pipeline aggregation of type [max_bucket]']);
    expect(await reason({ s: { terms: { script: { source: 'doc.name' } } } })).toEqual(['illegal_argument_exception', 'Unsupported script value source for [s] agg']);
    expect(await reason({ c: { composite: { sources: [{ d: { date_histogram: { field: 'creation', calendar_interval: '1d' } } }] } } })).toEqual([
      'illegal_argument_exception',
      'Unsupported value source type for [d] of composite agg [c].Only [terms] value sources are allowed.',
    ]);
    expect(await reason({ r: { range: { field: 'name', ranges: [{ to: 1 }] } } })).toEqual([
      'illegal_argument_exception',
      'Field [name] of type [keyword] is not supported for aggregation [range]',
    ]);
    expect(await reason({ t: { terms: { field: 'api_key_hash' } } })).toEqual(['illegal_argument_exception', 'Field [api_key_hash] is not allowed for querying or aggregation']);
  });
});
