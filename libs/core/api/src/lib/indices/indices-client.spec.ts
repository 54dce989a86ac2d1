import { Client, errors } from '@elastic/elasticsearch';
import { startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

describe('index admin APIs through the official JS client', () => {
  let api: ApiTestNode;
  let client: Client;

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-indices-client-' });
    client = new Client({ node: api.base });
  });

  afterAll(async () => {
    await client.close();
    await api.close();
  });

  it('create, exists, mappings, settings, aliases, analyze, delete', async () => {
    const created = await client.indices.create({
      index: 'books',
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      mappings: { properties: { title: { type: 'text' }, year: { type: 'integer' } } },
    });
    expect(created).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'books' });
    expect(await client.indices.exists({ index: 'books' })).toBe(true);
    expect(await client.indices.exists({ index: 'nope' })).toBe(false);

    await client.indices.putMapping({ index: 'books', properties: { isbn: { type: 'keyword' } } });
    const mapping = await client.indices.getMapping({ index: 'books' });
    expect(Object.keys(mapping.books.mappings.properties ?? {})).toEqual(['isbn', 'title', 'year']);

    await client.indices.putSettings({ index: 'books', settings: { index: { max_result_window: 100 } } });
    const settings = await client.indices.getSettings({ index: 'books', flat_settings: true });
    expect(settings.books.settings?.['index.max_result_window']).toBe('100');

    await client.indices.updateAliases({ actions: [{ add: { index: 'books', alias: 'library' } }] });
    expect(await client.indices.existsAlias({ name: 'library' })).toBe(true);
    expect(await client.indices.getAlias({ name: 'library' })).toEqual({ books: { aliases: { library: {} } } });

    const analyzed = await client.indices.analyze({ analyzer: 'standard', text: 'Dune, 1965' });
    expect(analyzed.tokens?.map((t) => t.token)).toEqual(['dune', '1965']);

    const fm = await client.indices.getFieldMapping({ index: 'books', fields: 'isbn' });
    expect(fm.books.mappings['isbn'].full_name).toBe('isbn');

    await expect(client.indices.create({ index: 'books' })).rejects.toBeInstanceOf(errors.ResponseError);
    try {
      await client.indices.create({ index: 'books' });
    } catch (e) {
      expect((e as errors.ResponseError).body).toMatchObject({ error: { type: 'resource_already_exists_exception' }, status: 400 });
    }
    expect(await client.indices.delete({ index: 'books' })).toEqual({ acknowledged: true });
    expect(await client.indices.exists({ index: 'books' })).toBe(false);
  });
});
