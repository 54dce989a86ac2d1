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
});
