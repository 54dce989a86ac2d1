import { coreModules } from '../node.js';
import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';
import { searchApiModule } from './index.js';

describe('search REST API (black box)', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);

  beforeAll(async () => {
    const features = coreModules().includes(searchApiModule) ? [] : [{ name: 'search-api', module: searchApiModule }];
    api = await startApiTestNode({ prefix: 'strata-search-', settings: { 'node.name': 'n1' }, features });
    const docs = [
      { id: '1', body: { title: 'The quick brown fox', tag: 'a', price: 10, ts: '2024-01-01T00:00:00Z' } },
      { id: '2', body: { title: 'quick quick dog', tag: 'b', price: 20, ts: '2024-01-02T00:00:00Z' } },
      { id: '3', body: { title: 'lazy brown dog', tag: 'c', price: 30, ts: '2024-01-03T00:00:00Z' } },
      { id: '4', body: { title: 'fox', tag: 'a', price: 5, ts: '2024-01-04T00:00:00Z' } },
    ];
    const lines = docs.flatMap((d) => [JSON.stringify({ index: { _index: 'test', _id: d.id } }), JSON.stringify(d.body)]).join('\n') + '\n';
    const r = await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error('bulk failed: ' + r.text);
  });

  afterAll(() => api.close());

  it('match query: ES response shape', async () => {
    const r = await call('POST', '/test/_search', { query: { match: { title: 'quick' } } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['took', 'timed_out', '_shards', 'hits']);
    expect(r.body._shards).toEqual({ total: 1, successful: 1, skipped: 0, failed: 0 });
    expect(r.body.hits.total).toEqual({ value: 2, relation: 'eq' });
    expect(r.body.hits.hits.map((h: any) => h._id)).toEqual(['2', '1']);
    expect(r.body.hits.max_score).toBe(r.body.hits.hits[0]._score);
    expect(r.body.hits.hits[0]).toMatchObject({ _index: 'test', _id: '2', _source: { title: 'quick quick dog', tag: 'b' } });
  });

  it('sort by a numeric field, from/size, _source filtering', async () => {
    const r = await call('POST', '/test/_search', { sort: [{ price: 'desc' }], from: 1, size: 2, _source: ['tag'] });
    expect(r.body.hits.max_score).toBeNull();
    expect(r.body.hits.hits.map((h: any) => [h._id, h._score, h.sort, h._source])).toEqual([
      ['2', null, [20], { tag: 'b' }],
      ['1', null, [10], { tag: 'a' }],
    ]);
  });

  it('URL params: q, sort, size, track_total_hits, rest_total_hits_as_int', async () => {
    const r = await call('GET', '/test/_search?q=tag:a&sort=price:asc&size=1');
    expect(r.body.hits.total.value).toBe(2);
    expect(r.body.hits.hits.map((h: any) => h._id)).toEqual(['4']);
    const r2 = await call('GET', '/test/_search?track_total_hits=false');
    expect(r2.body.hits.total).toBeUndefined();
    const r3 = await call('GET', '/test/_search?rest_total_hits_as_int=true&size=0');
    expect(r3.body.hits.total).toBe(4);
  });

  it('date sort values are epoch millis; range with date math', async () => {
    const r = await call('POST', '/test/_search', { query: { range: { ts: { gte: '2024-01-02', lt: '2024-01-03||+1d' } } }, sort: ['ts'] });
    expect(r.body.hits.hits.map((h: any) => [h._id, h.sort])).toEqual([
      ['2', [Date.UTC(2024, 0, 2)]],
      ['3', [Date.UTC(2024, 0, 3)]],
    ]);
  });

  it('search_after pages through a sort', async () => {
    const p1 = await call('POST', '/test/_search', { size: 2, sort: [{ price: 'asc' }] });
    const last = p1.body.hits.hits[1].sort;
    const p2 = await call('POST', '/test/_search', { size: 2, sort: [{ price: 'asc' }], search_after: last });
    expect([...p1.body.hits.hits, ...p2.body.hits.hits].map((h: any) => h._id)).toEqual(['4', '1', '2', '3']);
    const bad = await call('POST', '/test/_search', { from: 2, sort: [{ price: 'asc' }], search_after: last });
    expect(bad.status).toBe(400);
    expect(bad.body.error.type).toBe('action_request_validation_exception');
  });

  it('_count with query in body and q=', async () => {
    expect((await call('POST', '/test/_count', { query: { term: { tag: 'a' } } })).body).toEqual({
      count: 2,
      _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
    });
    expect((await call('GET', '/test/_count?q=title:dog')).body.count).toBe(2);
    expect((await call('GET', '/_count')).body.count).toBe(4);
  });

  it('aggregations are reduced and rendered', async () => {
    const r = await call('POST', '/test/_search', { size: 0, aggs: { m: { max: { field: 'price' } } } });
    expect(r.body.aggregations).toEqual({ m: { value: 30 } });
  });

  it('errors: unknown query, unknown key, result window, all shards failed', async () => {
    const u = await call('POST', '/test/_search', { query: { foo: {} } });
    expect(u.status).toBe(400);
    expect(u.body.error.type).toBe('parsing_exception');
    expect(u.body.error.reason).toBe('unknown query [foo]');
    const k = await call('POST', '/test/_search', { foo: {} });
    expect(k.body.error.reason).toBe('Unknown key for a START_OBJECT in [foo].');
    const w = await call('POST', '/test/_search', { from: 10000, size: 1 });
    expect(w.status).toBe(400);
    expect(w.body.error.type).toBe('search_phase_execution_exception');
    expect(w.body.error.root_cause[0].type).toBe('illegal_argument_exception');
    expect(w.body.error.root_cause[0].reason).toBe(
      'Result window is too large, from + size must be less than or equal to: [10000] but was [10001]. See the scroll api for a more efficient way to request large data sets. This limit can be set by changing the [index.max_result_window] index level setting.',
    );
    const n = await call('POST', '/test/_search', { query: { term: { price: 'abc' } } });
    expect(n.status).toBe(400);
    expect(n.body.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query', grouped: true });
    expect(n.body.error.failed_shards[0]).toMatchObject({ shard: 0, index: 'test', reason: { type: 'query_shard_exception' } });
    expect(n.body.error.root_cause[0].type).toBe('query_shard_exception');
    const missing = await call('GET', '/nope/_search');
    expect(missing.status).toBe(404);
    expect(missing.body.error.type).toBe('index_not_found_exception');
    const scroll = await call('GET', '/test/_search?scroll=1m');
    expect(scroll.status).toBe(400);
  });

  it('_msearch with per-item errors', async () => {
    const lines = [{ index: 'test' }, { query: { term: { tag: 'a' } }, size: 0 }, { index: 'nope' }, { query: { match_all: {} } }, {}, { size: 1 }]
      .map((x) => JSON.stringify(x))
      .join('\n') + '\n';
    const r = await call('POST', '/_msearch', lines, NDJSON);
    expect(r.status).toBe(200);
    expect(r.body.responses).toHaveLength(3);
    expect(r.body.responses[0].hits.total.value).toBe(2);
    expect(r.body.responses[0].status).toBe(200);
    expect(r.body.responses[1].status).toBe(404);
    expect(r.body.responses[1].error.type).toBe('index_not_found_exception');
    expect(r.body.responses[2].hits.hits).toHaveLength(1);
  });

  it('_field_caps', async () => {
    const r = await call('GET', '/test/_field_caps?fields=price,tag,title');
    expect(r.status).toBe(200);
    expect(r.body.indices).toEqual(['test']);
    expect(r.body.fields.price.long).toEqual({ type: 'long', metadata_field: false, searchable: true, aggregatable: true });
    expect(r.body.fields.title.text).toEqual({ type: 'text', metadata_field: false, searchable: true, aggregatable: false });
    const e = await call('GET', '/test/_field_caps');
    expect(e.status).toBe(400);
  });
  it('ids, exists, highlight, fields with date format, docvalue_fields', async () => {
    expect((await call('POST', '/test/_search', { query: { ids: { values: ['3', '1', 'x'] } } })).body.hits.hits.map((h: any) => h._id).sort()).toEqual(['1', '3']);
    expect((await call('POST', '/test/_count', { query: { exists: { field: 'tag' } } })).body.count).toBe(4);
    const h = await call('POST', '/test/_search', { query: { match: { title: 'fox' } }, highlight: { fields: { title: {} } }, _source: false });
    expect(h.body.hits.hits.map((x: any) => x.highlight.title[0]).sort()).toEqual(['<em>fox</em>', 'The quick brown <em>fox</em>']);
    expect(h.body.hits.hits[0]._source).toBeUndefined();
    const f = await call('POST', '/test/_search', {
      query: { ids: { values: ['1'] } },
      fields: [{ field: 'ts', format: 'yyyy-MM-dd' }, 'price'],
      docvalue_fields: ['tag.keyword'],
      _source: false,
    });
    expect(f.body.hits.hits[0].fields).toEqual({ ts: ['2024-01-01'], price: [10], 'tag.keyword': ['a'] });
  });

  it('filtered aliases, indices_boost and multi-index search', async () => {
    const c = await call('PUT', '/other', {
      mappings: { properties: { title: { type: 'text' }, tag: { type: 'keyword' } } },
      aliases: { only_b: { filter: { term: { tag: 'b' } } } },
    });
    expect(c.status).toBe(200);
    const lines = [
      { index: { _index: 'other', _id: 'o1' } },
      { title: 'quick fox', tag: 'b' },
      { index: { _index: 'other', _id: 'o2' } },
      { title: 'quick cat', tag: 'z' },
    ]
      .map((x) => JSON.stringify(x))
      .join('\n') + '\n';
    expect((await call('POST', '/_bulk?refresh=true', lines, NDJSON)).body.errors).toBe(false);
    const a = await call('POST', '/only_b/_search', {});
    expect(a.body.hits.hits.map((x: any) => x._id)).toEqual(['o1']);
    const both = await call('POST', '/test,other/_search', { query: { match: { title: 'quick' } }, size: 10 });
    expect(both.body._shards.total).toBe(2);
    expect(both.body.hits.total.value).toBe(4);
    const boosted = await call('POST', '/test,other/_search', { query: { match: { title: 'quick' } }, indices_boost: [{ other: 10 }] });
    expect(boosted.body.hits.hits.slice(0, 2).map((x: any) => x._index)).toEqual(['other', 'other']);
    const wild = await call('POST', '/oth*/_search', { size: 0 });
    expect(wild.body.hits.total.value).toBe(2);
    const ign = await call('POST', '/test,nope/_search?ignore_unavailable=true', { size: 0 });
    expect(ign.body.hits.total.value).toBe(4);
  });
  it('deletes and updates across segments are reflected after refresh', async () => {
    await call('PUT', '/seg', { mappings: { properties: { n: { type: 'long' }, t: { type: 'keyword' } } } });
    for (let i = 0; i < 3; i++) {
      const lines = [0, 1, 2, 3].map((j) => [JSON.stringify({ index: { _index: 'seg', _id: `${i}-${j}` } }), JSON.stringify({ n: i * 10 + j, t: `v${j}` })].join('\n')).join('\n') + '\n';
      await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    }
    await call('DELETE', '/seg/_doc/0-1?refresh=true');
    await call('PUT', '/seg/_doc/1-2?refresh=true', { n: 1000, t: 'updated' });
    const r = await call('POST', '/seg/_search', { size: 20, sort: [{ n: 'desc' }], track_total_hits: true });
    expect(r.body.hits.total).toEqual({ value: 11, relation: 'eq' });
    const ids = r.body.hits.hits.map((h: any) => h._id);
    expect(ids[0]).toBe('1-2');
    expect(ids).not.toContain('0-1');
    expect(new Set(ids).size).toBe(11);
    const range = await call('POST', '/seg/_search', { query: { range: { n: { gte: 10, lt: 30 } } }, sort: ['n'], size: 3 });
    expect(range.body.hits.hits.map((h: any) => h.sort[0])).toEqual([10, 11, 13]);
    expect(range.body.hits.total.value).toBe(7);
    const kw = await call('POST', '/seg/_search', { query: { terms: { t: ['v1', 'updated'] } }, sort: [{ t: 'desc' }, { n: 'asc' }] });
    expect(kw.body.hits.hits.map((h: any) => h.sort)).toEqual([
      ['v1', 11],
      ['v1', 21],
      ['updated', 1000],
    ]);
  });
  it('named queries give matched_queries', async () => {
    const r = await call('POST', '/test/_search', {
      query: {
        bool: {
          should: [
            { match: { title: { query: 'fox', _name: 'fox' } } },
            { term: { price: { value: 20, _name: 'twenty' } } },
            { range: { price: { lte: 10, _name: 'cheap' } } },
          ],
        },
      },
    });
    const byId = Object.fromEntries(r.body.hits.hits.map((h: any) => [h._id, h.matched_queries]));
    expect(byId).toEqual({ '1': ['cheap', 'fox'], '2': ['twenty'], '4': ['cheap', 'fox'] });
  });
  it('terms lookup fetches the values from a document', async () => {
    await call('PUT', '/lookup/_doc/u1?refresh=true', { wanted: { tags: ['a', 'c'] } });
    const r = await call('POST', '/test/_search', { query: { terms: { 'tag.keyword': { index: 'lookup', id: 'u1', path: 'wanted.tags' } } } });
    expect(r.status).toBe(200);
    expect(r.body.hits.hits.map((h: any) => h._id).sort()).toEqual(['1', '3', '4']);
    const none = await call('POST', '/test/_search', { query: { terms: { 'tag.keyword': { index: 'lookup', id: 'nope', path: 'wanted.tags' } } } });
    expect(none.body.hits.total.value).toBe(0);
  });
  it('collapse returns one hit per value with the value in fields', async () => {
    const r = await call('POST', '/test/_search', { collapse: { field: 'tag.keyword' }, sort: [{ price: 'asc' }], _source: false });
    expect(r.body.hits.total.value).toBe(4);
    expect(r.body.hits.hits.map((h: any) => [h._id, h.fields['tag.keyword']])).toEqual([
      ['4', ['a']],
      ['2', ['b']],
      ['3', ['c']],
    ]);
  });
  it('ip fields: term, CIDR, range and sort', async () => {
    await call('PUT', '/ips', { mappings: { properties: { ip: { type: 'ip' } } } });
    const lines = ['10.0.0.1', '10.0.1.7', '192.168.1.1', '9.255.255.255']
      .map((ip, i) => JSON.stringify({ index: { _index: 'ips', _id: String(i) } }) + '\n' + JSON.stringify({ ip }))
      .join('\n') + '\n';
    await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    const ids = async (q: unknown) => (await call('POST', '/ips/_search', { query: q, sort: ['ip'] })).body.hits.hits.map((h: any) => h._id);
    expect(await ids({ term: { ip: '10.0.1.7' } })).toEqual(['1']);
    expect(await ids({ term: { ip: '10.0.0.0/16' } })).toEqual(['0', '1']);
    expect(await ids({ range: { ip: { gte: '10.0.0.0', lte: '10.255.255.255' } } })).toEqual(['0', '1']);
    const sorted = await call('POST', '/ips/_search', { sort: [{ ip: 'desc' }] });
    expect(sorted.body.hits.hits.map((h: any) => h.sort[0])).toEqual(['192.168.1.1', '10.0.1.7', '10.0.0.1', '9.255.255.255']);
  });
  it('more_like_this with a liked document', async () => {
    const r = await call('POST', '/test/_search', {
      query: { more_like_this: { fields: ['title'], like: [{ _id: '2' }], min_term_freq: 1, min_doc_freq: 1 } },
    });
    expect(r.status).toBe(200);
    expect(r.body.hits.hits.map((h: any) => h._id).sort()).toEqual(['1', '3']);
  });
  it('_explain', async () => {
    const r = await call('POST', '/test/_explain/2', { query: { match: { title: 'quick' } } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ _index: 'test', _id: '2', matched: true });
    const s = await call('POST', '/test/_search', { query: { ids: { values: ['2'] } }, size: 1 });
    const scored = await call('POST', '/test/_search', { query: { bool: { must: { match: { title: 'quick' } }, filter: { ids: { values: ['2'] } } } } });
    expect(r.body.explanation.value).toBe(scored.body.hits.hits[0]._score);
    expect(s.status).toBe(200);
    const n = await call('POST', '/test/_explain/3', { query: { match: { title: 'quick' } } });
    expect(n.body.matched).toBe(false);
    const m = await call('POST', '/test/_explain/nope', { query: { match_all: {} } });
    expect(m.status).toBe(404);
    expect(m.body).toEqual({ _index: 'test', _id: 'nope', matched: false });
  });
  it('term suggester', async () => {
    const r = await call('POST', '/test/_search', { size: 0, suggest: { fix: { text: 'quikc brwn fox', term: { field: 'title' } } } });
    expect(r.status).toBe(200);
    expect(r.body.suggest.fix.map((e: any) => [e.text, e.offset, e.length, e.options.map((o: any) => o.text)])).toEqual([
      ['quikc', 0, 5, ['quick']],
      ['brwn', 6, 4, ['brown']],
      ['fox', 11, 3, []],
    ]);
    expect(r.body.suggest.fix[0].options[0]).toEqual({ text: 'quick', score: 0.800000011920929, freq: 2 });
  });
  it('date and date_nanos sorted together with numeric_type and format', async () => {
    await call('PUT', '/ms', { mappings: { properties: { '@timestamp': { type: 'date' } } } });
    await call('PUT', '/ns', { mappings: { properties: { '@timestamp': { type: 'date_nanos' } } } });
    await call('PUT', '/ms/_doc/m1?refresh=true', { '@timestamp': '2024-01-01T00:00:00.002Z' });
    await call('PUT', '/ns/_doc/n1?refresh=true', { '@timestamp': '2024-01-01T00:00:00.001000001Z' });
    const r = await call('POST', '/ms,ns/_search', {
      sort: [{ '@timestamp': { order: 'asc', format: 'strict_date_optional_time_nanos', numeric_type: 'date_nanos' } }],
    });
    expect(r.status).toBe(200);
    // epoch nanos above 2^53 lose precision (accepted by the storage contract): check order and the millis doc
    expect(r.body.hits.hits.map((h: any) => h._id)).toEqual(['n1', 'm1']);
    expect(r.body.hits.hits[1].sort).toEqual(['2024-01-01T00:00:00.002Z']);
    expect(r.body.hits.hits[0].sort[0]).toMatch(/^2024-01-01T00:00:00\.001/);
    const raw = await call('POST', '/ms,ns/_search', { sort: [{ '@timestamp': { order: 'desc', numeric_type: 'date_nanos' } }] });
    expect(raw.body.hits.hits.map((h: any) => h._id)).toEqual(['m1', 'n1']);
    expect(raw.body.hits.hits[0].sort[0]).toBe(1704067200002 * 1e6);
    const ms = await call('POST', '/ms,ns/_search', { sort: [{ '@timestamp': { order: 'asc', numeric_type: 'date' } }] });
    expect(ms.body.hits.hits.map((h: any) => h.sort[0])).toEqual([1704067200001, 1704067200002]);
  });

  it('search.max_buckets is a dynamic cluster setting enforced with too_many_buckets_exception', async () => {
    const set = await call('PUT', '/_cluster/settings', { transient: { 'search.max_buckets': 2 } });
    expect(set.status).toBe(200);
    const r = await call('POST', '/test/_search', { size: 0, aggs: { t: { terms: { field: 'tag.keyword' } } } });
    expect(r.status).toBe(400);
    expect(r.body.error.root_cause[0].type).toBe('too_many_buckets_exception');
    expect(r.body.error.root_cause[0].reason).toBe(
      'Trying to create too many buckets. Must be less than or equal to: [2] but was [3]. This limit can be set by changing the [search.max_buckets] cluster level setting.',
    );
    await call('PUT', '/_cluster/settings', { transient: { 'search.max_buckets': null } });
    const ok = await call('POST', '/test/_search', { size: 0, aggs: { t: { terms: { field: 'tag.keyword' } } } });
    expect(ok.body.aggregations.t.buckets).toHaveLength(3);
  });
});
