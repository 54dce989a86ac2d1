import { Client } from '@elastic/elasticsearch';
import { startE2eHost, type E2eHost } from './helpers.js';

describe('official client @elastic/elasticsearch 8.x', () => {
  let host: E2eHost;
  let client: Client;
  beforeAll(async () => {
    host = await startE2eHost();
    client = new Client({ node: host.url });
  });
  afterAll(async () => {
    await client.close();
    await host.close();
  });

  it('info', async () => {
    const info = await client.info();
    expect(info.tagline).toBe('You Know, for Search');
    expect(info.version.number).toMatch(/^8\./);
    expect(info.cluster_name).toBe('strata');
  });

  it('ping and cluster.health', async () => {
    expect(await client.ping()).toBe(true);
    const h = await client.cluster.health();
    expect(['green', 'yellow']).toContain(h.status);
  });

  const docs = Array.from({ length: 250 }, (_, i) => ({
    id: `d${i}`,
    status: i % 2 ? 200 : 404,
    path: `/p/${i % 7}`,
    msg: `hello number ${i}`,
  }));

  it('helpers.bulk (index auto-created), get, count, search', async () => {
    const result = await client.helpers.bulk({
      datasource: docs,
      onDocument: (doc) => ({ index: { _index: 'auto', _id: doc.id } }),
      refreshOnCompletion: true,
    });
    expect(result.total).toBe(250);
    expect(result.successful).toBe(250);
    expect(result.failed).toBe(0);

    const got = await client.get<{ status: number; path: string }>({ index: 'auto', id: 'd7' });
    expect(got.found).toBe(true);
    expect(got._id).toBe('d7');
    expect(got._source).toEqual({ id: 'd7', status: 200, path: '/p/0', msg: 'hello number 7' });

    expect((await client.count({ index: 'auto' })).count).toBe(250);
    expect((await client.count({ index: 'auto', query: { term: { status: 404 } } })).count).toBe(125);

    const missing = await client.get({ index: 'auto', id: 'zzz' }, { ignore: [404] });
    expect(missing.found).toBe(false);
    await expect(client.get({ index: 'nope', id: '1' })).rejects.toMatchObject({ meta: { statusCode: 404 } });

    const r = await client.search({ index: 'auto', query: { match: { msg: 'hello' } }, size: 3 });
    expect(r.hits.hits).toHaveLength(3);
    expect(r.hits.total).toEqual({ value: 250, relation: 'eq' });
  });

  it('indices.create, exists, helpers.bulk, get, count on an explicit mapping', async () => {
    const created = await client.indices.create({
      index: 'web',
      settings: { number_of_shards: 2, number_of_replicas: 0 },
      mappings: { properties: { status: { type: 'integer' }, path: { type: 'keyword' }, msg: { type: 'text' } } },
    });
    expect(created).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'web' });
    expect(await client.indices.exists({ index: 'web' })).toBe(true);
    expect(await client.indices.exists({ index: 'nope' })).toBe(false);
    await expect(client.indices.create({ index: 'web' })).rejects.toMatchObject({
      meta: { statusCode: 400, body: { error: { type: 'resource_already_exists_exception' } } },
    });

    const result = await client.helpers.bulk({
      datasource: docs,
      onDocument: (doc) => ({ index: { _index: 'web', _id: doc.id } }),
      refreshOnCompletion: 'web',
    });
    expect(result.successful).toBe(250);
    const got = await client.get<{ status: number }>({ index: 'web', id: 'd8' });
    expect(got._source?.status).toBe(404);
    expect((await client.count({ index: 'web', query: { term: { path: '/p/1' } } })).count).toBe(36);
    const health = await client.cluster.health({ index: 'web' });
    expect(health.status).toBe('green');
    const cat = await client.cat.indices({ index: 'web', format: 'json', bytes: 'b' });
    expect(cat[0]).toMatchObject({ health: 'green', status: 'open', index: 'web', pri: '2', rep: '0', 'docs.count': '250' });
  });
});
