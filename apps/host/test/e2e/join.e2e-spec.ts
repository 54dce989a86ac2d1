/**
 * has_parent / has_child with the whole default feature list, through the official client: children routed
 * with their parent over two shards, and the request cache caching join clauses like any clause.
 */
import { Client } from '@elastic/elasticsearch';
import { startE2eHost, type E2eHost } from './helpers.js';

describe('join queries across features (official client)', () => {
  let host: E2eHost;
  let client: Client;
  beforeAll(async () => {
    host = await startE2eHost();
    client = new Client({ node: host.url });
    await client.indices.create({
      index: 'tickets',
      settings: { number_of_shards: 2 },
      mappings: {
        properties: {
          '@timestamp': { type: 'date' },
          event: { properties: { category: { type: 'keyword' } } },
          rel: { type: 'join', relations: { ticket: 'update' } },
          priority: { type: 'keyword' },
        },
      },
    });
    const ops = [
      { index: { _index: 'tickets', _id: 't1' } },
      { '@timestamp': '2024-01-01T00:00:00Z', event: { category: 'ticket' }, priority: 'high', rel: 'ticket' },
      { index: { _index: 'tickets', _id: 't2' } },
      { '@timestamp': '2024-01-01T00:01:00Z', event: { category: 'ticket' }, priority: 'low', rel: 'ticket' },
      { index: { _index: 'tickets', _id: 'u1', routing: 't1' } },
      { '@timestamp': '2024-01-01T00:02:00Z', event: { category: 'update' }, rel: { name: 'update', parent: 't1' } },
      { index: { _index: 'tickets', _id: 'u2', routing: 't1' } },
      { '@timestamp': '2024-01-01T00:03:00Z', event: { category: 'update' }, rel: { name: 'update', parent: 't1' } },
      { index: { _index: 'tickets', _id: 'u3', routing: 't2' } },
      { '@timestamp': '2024-01-01T00:04:00Z', event: { category: 'update' }, rel: { name: 'update', parent: 't2' } },
    ];
    const r = await client.bulk({ operations: ops, refresh: true });
    expect(r.errors).toBe(false);
  });
  afterAll(async () => {
    await client.close();
    await host.close();
  });

  it('children are routed with their parent; has_parent works across 2 shards', async () => {
    const r = await client.search({ index: 'tickets', query: { has_parent: { parent_type: 'ticket', query: { term: { priority: 'high' } } } }, sort: ['@timestamp'] });
    expect(r.hits.hits.map((h) => [h._id, h._routing])).toEqual([
      ['u1', 't1'],
      ['u2', 't1'],
    ]);
    const c = await client.search({ index: 'tickets', query: { has_child: { type: 'update', query: { match_all: {} }, min_children: 2 } } });
    expect(c.hits.hits.map((h) => h._id)).toEqual(['t1']);
  });

  it('the request cache caches has_child aggregations like any query', async () => {
    const body = { size: 0, query: { has_child: { type: 'update', query: { match_all: {} } } }, aggs: { p: { terms: { field: 'priority' } } } };
    const before = await client.indices.stats({ index: 'tickets', metric: 'request_cache' });
    const first = await client.search({ index: 'tickets', ...body });
    const second = await client.search({ index: 'tickets', ...body });
    expect(second.aggregations).toEqual(first.aggregations);
    expect((first.aggregations as any).p.buckets.map((b: any) => [b.key, b.doc_count])).toEqual([['high', 1], ['low', 1]]);
    const after = await client.indices.stats({ index: 'tickets', metric: 'request_cache' });
    const hits = (s: typeof after) => s._all.total?.request_cache?.hit_count ?? 0;
    expect(hits(after) - hits(before)).toBeGreaterThanOrEqual(1);
  });
});
