/**
 * `nested` fields as block joins, black box over HTTP: each nested object is a hidden document, the nested
 * query joins the matching objects to their parents with each score_mode, and hidden documents are never hits.
 */
import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

const f = Math.fround;
/** Long.MAX_VALUE as JSON.parse reads the missing-value sort key */
const LONG = 2 ** 63;

describe('nested fields (block join)', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);
  const search = async (body: unknown, index = 'blog') => {
    const r = await call('POST', `/${index}/_search`, body);
    if (r.status !== 200) throw new Error(`search failed: ${r.text}`);
    return r.body;
  };
  const hits = (body: any) => body.hits.hits.map((h: any) => [h._id, h._score]);
  const ids = (body: any) => body.hits.hits.map((h: any) => h._id);
  const stars = { function_score: { query: { match_all: {} }, field_value_factor: { field: 'comments.stars' }, boost_mode: 'replace' } };

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-nested-' });
    const mappings = {
      properties: {
        title: { type: 'keyword' },
        comments: {
          type: 'nested',
          properties: {
            author: { type: 'keyword' },
            stars: { type: 'integer' },
            replies: { type: 'nested', properties: { who: { type: 'keyword' }, likes: { type: 'integer' } } },
          },
        },
      },
    };
    expect((await call('PUT', '/blog', { mappings })).status).toBe(200);
    const docs: Array<[string, unknown]> = [
      ['1', { title: 'a', comments: [{ author: 'alice', stars: 1 }, { author: 'bob', stars: 5 }] }],
      ['2', { title: 'b', comments: [{ author: 'alice', stars: 5 }, { author: 'carol', stars: 4 }, { author: 'dave', stars: 2 }] }],
      ['3', { title: 'c' }],
      [
        '4',
        {
          title: 'd',
          comments: [
            { author: 'erin', stars: 3, replies: [{ who: 'alice', likes: 2 }, { who: 'bob', likes: 7 }] },
            { author: 'alice', stars: 2, replies: { who: 'carol', likes: 1 } },
          ],
        },
      ],
    ];
    const lines = docs.flatMap(([id, d]) => [JSON.stringify({ index: { _index: 'blog', _id: id } }), JSON.stringify(d)]).join('\n') + '\n';
    const r = await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error('bulk failed: ' + r.text);
  });

  afterAll(() => api.close());

  it('docs.count and docs.deleted of _stats and _cat/indices count top-level documents, across deletes and refreshes', async () => {
    const mappings = { properties: { c: { type: 'nested', properties: { k: { type: 'keyword' } } } } };
    expect((await call('PUT', '/blocks', { mappings, settings: { number_of_shards: 1 } })).status).toBe(200);
    const lines = ['a', 'b', 'c']
      .flatMap((id) => [JSON.stringify({ index: { _index: 'blocks', _id: id } }), JSON.stringify({ c: [{ k: '1' }, { k: '2' }, { k: '3' }] })])
      .join('\n') + '\n';
    expect((await call('POST', '/_bulk?refresh=true', lines, NDJSON)).body.errors).toBe(false);
    const docs = async () => (await call('GET', '/blocks/_stats/docs')).body._all.primaries.docs;
    expect(await docs()).toMatchObject({ count: 3, deleted: 0 });
    // deleted blocks count once each (3 hidden docs + the root were deleted) until a merge expunges them
    expect((await call('DELETE', '/blocks/_doc/b?refresh=true')).status).toBe(200);
    const afterDelete = await docs();
    expect(afterDelete.count).toBe(2);
    expect([0, 1]).toContain(afterDelete.deleted);
    expect((await call('PUT', '/blocks/_doc/a?refresh=true', { c: [{ k: '9' }] })).status).toBe(200);
    const afterUpdate = await docs();
    expect(afterUpdate.count).toBe(2);
    expect([0, 1, 2]).toContain(afterUpdate.deleted);
    const cat = (await call('GET', '/_cat/indices/blocks?h=docs.count,docs.deleted&format=json')).body;
    expect(cat).toEqual([{ 'docs.count': '2', 'docs.deleted': String(afterUpdate.deleted) }]);
  });

  it('conditions must hold inside one object: alice gave 1 star and bob 5 is no match for alice + 5', async () => {
    const q = { nested: { path: 'comments', query: { bool: { must: [{ term: { 'comments.author': 'alice' } }, { term: { 'comments.stars': 5 } }] } } } };
    const b = await search({ query: q });
    expect(b.hits.total).toEqual({ value: 1, relation: 'eq' });
    expect(ids(b)).toEqual(['2']);
    expect((await call('POST', '/blog/_count', { query: q })).body.count).toBe(1);
  });

  it('hidden documents are never hits: match_all, _count, plain queries on nested fields', async () => {
    const all = await search({ query: { match_all: {} }, size: 20 });
    expect(all.hits.total.value).toBe(4);
    expect(ids(all)).toEqual(['1', '2', '3', '4']);
    expect((await call('GET', '/blog/_count')).body.count).toBe(4);
    // _cat/count is a count search; docs.count of _cat/indices and _stats counts top-level documents only
    // (the segments hold 14: 4 roots, 7 comments, 3 replies), also after a delete of a whole block
    expect((await call('GET', '/_cat/count/blog?h=count&format=json')).body).toEqual([{ count: '4' }]);
    expect((await call('GET', '/_cat/count/blog,nope-*?h=count')).text).toBe('4\n');
    expect((await call('GET', '/_cat/indices/blog?h=docs.count,docs.deleted&format=json')).body).toEqual([{ 'docs.count': '4', 'docs.deleted': '0' }]);
    expect((await call('GET', '/blog/_stats/docs')).body._all.primaries.docs).toMatchObject({ count: 4, deleted: 0 });
    expect((await search({ query: { term: { 'comments.author': 'alice' } } })).hits.total.value).toBe(0);
    expect((await search({ query: { ids: { values: ['1', '4'] } } })).hits.total.value).toBe(2);
    expect((await search({ size: 0, aggs: { g: { global: {} } } })).aggregations.g.doc_count).toBe(4);
  });

  it('each score_mode combines the matching objects\' scores (stars 1,5 | 5,4,2 | 3,2)', async () => {
    const run = async (score_mode?: string) => hits(await search({ query: { nested: { path: 'comments', query: stars, ...(score_mode ? { score_mode } : {}) } } }));
    expect(await run()).toEqual([['2', f(11 / 3)], ['1', 3], ['4', 2.5]]);
    expect(await run('avg')).toEqual([['2', f(11 / 3)], ['1', 3], ['4', 2.5]]);
    expect(await run('sum')).toEqual([['2', 11], ['1', 6], ['4', 5]]);
    expect(await run('max')).toEqual([['1', 5], ['2', 5], ['4', 3]]);
    expect(await run('min')).toEqual([['2', 2], ['4', 2], ['1', 1]]);
    expect(await run('none')).toEqual([['1', 0], ['2', 0], ['4', 0]]);
    const boosted = await search({ query: { nested: { path: 'comments', query: stars, score_mode: 'sum', boost: 2 } } });
    expect(hits(boosted)).toEqual([['2', 22], ['1', 12], ['4', 10]]);
  });

  it('only the matching objects count: sum over alice\'s comments', async () => {
    const q = { nested: { path: 'comments', score_mode: 'sum', query: { bool: { must: [stars], filter: [{ term: { 'comments.author': 'alice' } }] } } } };
    expect(hits(await search({ query: q }))).toEqual([['2', 5], ['4', 2], ['1', 1]]);
  });

  it('nested inside nested, and a nested path queried from the top', async () => {
    const inner = { nested: { path: 'comments.replies', query: { term: { 'comments.replies.who': 'alice' } } } };
    expect(ids(await search({ query: { nested: { path: 'comments', query: inner } } }))).toEqual(['4']);
    expect(ids(await search({ query: inner }))).toEqual(['4']);
    // alice's own comment has only carol's reply; alice replied to erin: no single comment has both
    const both = { nested: { path: 'comments', query: { bool: { must: [{ term: { 'comments.author': 'alice' } }, inner] } } } };
    expect((await search({ query: both })).hits.total.value).toBe(0);
    const erin = { nested: { path: 'comments', query: { bool: { must: [{ term: { 'comments.author': 'erin' } }, inner] } } } };
    expect(ids(await search({ query: erin }))).toEqual(['4']);
    // sum of reply likes per comment, max over the comments: erin's replies 2 + 7
    const likes = { function_score: { query: { match_all: {} }, field_value_factor: { field: 'comments.replies.likes' }, boost_mode: 'replace' } };
    const deep = { nested: { path: 'comments', score_mode: 'max', query: { nested: { path: 'comments.replies', score_mode: 'sum', query: likes } } } };
    expect(hits(await search({ query: deep }))).toEqual([['4', 9]]);
  });

  it('exists on nested fields inside a nested query', async () => {
    const q = { nested: { path: 'comments.replies', query: { exists: { field: 'comments.replies.who' } } } };
    expect(ids(await search({ query: q }))).toEqual(['4']);
    const q2 = { bool: { must_not: [{ nested: { path: 'comments', query: { exists: { field: 'comments.author' } } } }] } };
    expect(ids(await search({ query: q2 }))).toEqual(['3']);
  });

  it('nested and reverse_nested aggregations with sub-aggregations', async () => {
    const b = await search({
      size: 0,
      aggs: {
        c: {
          nested: { path: 'comments' },
          aggs: {
            who: {
              terms: { field: 'comments.author' },
              aggs: { stars: { avg: { field: 'comments.stars' } }, back: { reverse_nested: {}, aggs: { t: { terms: { field: 'title' } } } } },
            },
          },
        },
      },
    });
    const c = b.aggregations.c;
    expect(c.doc_count).toBe(7);
    expect(c.who.buckets.map((x: any) => [x.key, x.doc_count, x.stars.value, x.back.doc_count])).toEqual([
      ['alice', 3, 8 / 3, 3],
      ['bob', 1, 5, 1],
      ['carol', 1, 4, 1],
      ['dave', 1, 2, 1],
      ['erin', 1, 3, 1],
    ]);
    expect(c.who.buckets[0].back.t.buckets.map((x: any) => [x.key, x.doc_count])).toEqual([['a', 1], ['b', 1], ['d', 1]]);
  });

  it('nested aggregations inside nested ones, reverse_nested to a nested path and to the root', async () => {
    const b = await search({
      size: 0,
      query: { term: { title: 'd' } },
      aggs: {
        c: {
          nested: { path: 'comments' },
          aggs: {
            r: {
              nested: { path: 'comments.replies' },
              aggs: {
                who: {
                  terms: { field: 'comments.replies.who' },
                  aggs: {
                    to_comment: { reverse_nested: { path: 'comments' }, aggs: { author: { terms: { field: 'comments.author' } } } },
                    to_root: { reverse_nested: {} },
                    likes: { sum: { field: 'comments.replies.likes' } },
                  },
                },
              },
            },
          },
        },
      },
    });
    const r = b.aggregations.c.r;
    expect(b.aggregations.c.doc_count).toBe(2);
    expect(r.doc_count).toBe(3);
    expect(r.who.buckets.map((x: any) => [x.key, x.doc_count, x.to_comment.doc_count, x.to_comment.author.buckets.map((a: any) => a.key), x.to_root.doc_count, x.likes.value])).toEqual([
      ['alice', 1, 1, ['erin'], 1, 2],
      ['bob', 1, 1, ['erin'], 1, 7],
      ['carol', 1, 1, ['alice'], 1, 1],
    ]);
  });

  it('top_hits under a nested aggregation returns the nested objects with _nested', async () => {
    const b = await search({
      size: 0,
      query: { term: { title: 'b' } },
      aggs: { c: { nested: { path: 'comments' }, aggs: { top: { top_hits: { size: 2, sort: [{ 'comments.stars': 'desc' }], _source: ['comments.author'] } } } } },
    });
    expect(b.aggregations.c.top.hits.hits).toEqual([
      { _index: 'blog', _id: '2', _nested: { field: 'comments', offset: 0 }, _score: null, _source: { author: 'alice' }, sort: [5] },
      { _index: 'blog', _id: '2', _nested: { field: 'comments', offset: 1 }, _score: null, _source: { author: 'carol' }, sort: [4] },
    ]);
  });

  it('nested aggregation: the query selects the parents; typed_keys; unmapped path; errors', async () => {
    const b = await call('POST', '/blog/_search?typed_keys=true', { size: 0, query: { term: { title: 'a' } }, aggs: { n: { nested: { path: 'comments' }, aggs: { m: { max: { field: 'comments.stars' } } } } } });
    expect(b.body.aggregations).toEqual({ 'nested#n': { doc_count: 2, 'max#m': { value: 5 } } });
    const u = await search({ size: 0, aggs: { n: { nested: { path: 'nope' } }, o: { nested: { path: 'title' } } } });
    expect(u.aggregations).toEqual({ n: { doc_count: 0 }, o: { doc_count: 0 } });
    const top = await call('POST', '/blog/_search', { size: 0, aggs: { r: { reverse_nested: {} } } });
    expect(top.status).toBe(400);
    expect(top.body.error.root_cause[0]).toMatchObject({ type: 'illegal_argument_exception', reason: 'Reverse nested aggregation [r] can only be used inside a [nested] aggregation' });
    const miss = await call('POST', '/blog/_search', { size: 0, aggs: { n: { nested: {} } } });
    expect(miss.status).toBe(400);
    expect(miss.body.error.root_cause[0]).toMatchObject({ type: 'parsing_exception', reason: 'Missing [path] field for nested aggregation [n]' });
  });

  it('sort by nested fields: mode, filter, max_children, nested in nested, keywords', async () => {
    const sorted = async (sort: unknown) => (await search({ sort: [sort, { title: 'asc' }], _source: false })).hits.hits.map((h: any) => [h._id, h.sort[0]]);
    const comments = { path: 'comments' };
    expect(await sorted({ 'comments.stars': { order: 'asc', nested: comments } })).toEqual([['1', 1], ['2', 2], ['4', 2], ['3', LONG]]);
    expect(await sorted({ 'comments.stars': { order: 'desc', nested: comments } })).toEqual([['1', 5], ['2', 5], ['4', 3], ['3', -LONG]]);
    expect(await sorted({ 'comments.stars': { order: 'asc', mode: 'sum', nested: comments } })).toEqual([['4', 5], ['1', 6], ['2', 11], ['3', LONG]]);
    // integer avg is rounded like ES MultiValueMode.AVG: 11/3 -> 4, 2.5 -> 3
    expect(await sorted({ 'comments.stars': { order: 'desc', mode: 'avg', nested: comments } })).toEqual([['2', 4], ['1', 3], ['4', 3], ['3', -LONG]]);
    const alice = { path: 'comments', filter: { term: { 'comments.author': 'alice' } } };
    expect(await sorted({ 'comments.stars': { order: 'asc', nested: alice } })).toEqual([['1', 1], ['4', 2], ['2', 5], ['3', LONG]]);
    const first = { path: 'comments', max_children: 1 };
    expect(await sorted({ 'comments.stars': { order: 'desc', nested: first } })).toEqual([['2', 5], ['4', 3], ['1', 1], ['3', -LONG]]);
    expect(await sorted({ 'comments.author': { order: 'desc', nested: comments } })).toEqual([['4', 'erin'], ['2', 'dave'], ['1', 'bob'], ['3', null]]);
    const deep = { path: 'comments', nested: { path: 'comments.replies' } };
    expect(await sorted({ 'comments.replies.likes': { order: 'desc', nested: deep } })).toEqual([
      ['4', 7],
      ['1', -LONG],
      ['2', -LONG],
      ['3', -LONG],
    ]);
    const erinOnly = { path: 'comments', filter: { term: { 'comments.author': 'erin' } }, nested: { path: 'comments.replies', filter: { range: { 'comments.replies.likes': { lt: 5 } } } } };
    expect((await sorted({ 'comments.replies.likes': { order: 'desc', nested: erinOnly } }))[0]).toEqual(['4', 2]);
    const bad = await call('POST', '/blog/_search', { sort: [{ 'comments.stars': 'asc' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: 'it is mandatory to set the [nested] context on the nested sort field: [comments.stars].' });
    const badPath = await call('POST', '/blog/_search', { sort: [{ 'comments.stars': { nested: { path: 'nope' } } }] });
    expect(badPath.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: '[nested] failed to find nested object under path [nope]' });
  });

  it('inner_hits: the matching objects with _nested offsets, scores and their own _source', async () => {
    const q = { nested: { path: 'comments', query: { range: { 'comments.stars': { gte: 4 } } }, inner_hits: {} } };
    const b = await search({ query: q, _source: false });
    expect(b.hits.hits.map((h: any) => h._id)).toEqual(['1', '2']);
    expect(b.hits.hits[0].inner_hits).toEqual({
      comments: {
        hits: {
          total: { value: 1, relation: 'eq' },
          max_score: 1,
          hits: [{ _index: 'blog', _id: '1', _nested: { field: 'comments', offset: 1 }, _score: 1, _source: { author: 'bob', stars: 5 } }],
        },
      },
    });
    expect(b.hits.hits[1].inner_hits.comments.hits.hits.map((h: any) => [h._nested.offset, h._source.author])).toEqual([
      [0, 'alice'],
      [1, 'carol'],
    ]);
  });

  it('inner_hits: name, from/size, sort, _source filtering, fields, docvalue_fields, highlight, version', async () => {
    const q = {
      nested: {
        path: 'comments',
        query: { match_all: {} },
        inner_hits: {
          name: 'best',
          from: 1,
          size: 1,
          sort: [{ 'comments.stars': 'desc' }],
          _source: ['comments.author'],
          fields: ['comments.stars'],
          docvalue_fields: ['comments.author'],
        },
      },
    };
    const b = await search({ query: { bool: { filter: [q, { term: { title: 'b' } }] } }, _source: false });
    const ih = b.hits.hits[0].inner_hits.best.hits;
    expect(ih.total).toEqual({ value: 3, relation: 'eq' });
    expect(ih.max_score).toBeNull();
    expect(ih.hits).toEqual([
      {
        _index: 'blog',
        _id: '2',
        _nested: { field: 'comments', offset: 1 },
        _score: null,
        _source: { author: 'carol' },
        fields: { 'comments.stars': [4], 'comments.author': ['carol'] },
        sort: [4],
      },
    ]);
    const hl = await search({
      query: { nested: { path: 'comments', query: { term: { 'comments.author': 'dave' } }, inner_hits: { highlight: { fields: { 'comments.author': {} } }, _source: false } } },
      _source: false,
    });
    expect(hl.hits.hits[0].inner_hits.comments.hits.hits[0]).toMatchObject({ _nested: { field: 'comments', offset: 2 }, highlight: { 'comments.author': ['<em>dave</em>'] } });
    expect(hl.hits.hits[0].inner_hits.comments.hits.hits[0]._source).toBeUndefined();
  });

  it('inner_hits of nested inside nested: hierarchical, with _nested chains', async () => {
    const q = {
      nested: {
        path: 'comments',
        query: { nested: { path: 'comments.replies', query: { term: { 'comments.replies.who': 'bob' } }, inner_hits: {} } },
        inner_hits: { _source: ['comments.author'] },
      },
    };
    const b = await search({ query: q, _source: false });
    expect(b.hits.hits.map((h: any) => h._id)).toEqual(['4']);
    const c = b.hits.hits[0].inner_hits.comments.hits;
    expect(c.hits.length).toBe(1);
    expect(c.hits[0]._nested).toEqual({ field: 'comments', offset: 0 });
    expect(c.hits[0]._source).toEqual({ author: 'erin' });
    expect(c.hits[0].inner_hits['comments.replies'].hits.hits).toEqual([
      {
        _index: 'blog',
        _id: '4',
        _nested: { field: 'comments', offset: 0, _nested: { field: 'replies', offset: 1 } },
        _score: expect.any(Number),
        _source: { who: 'bob', likes: 7 },
      },
    ]);
    // inner hits directly on the deeper path from the top
    const d = await search({ query: { nested: { path: 'comments.replies', query: { match_all: {} }, inner_hits: { size: 10 } } }, _source: false });
    expect(d.hits.hits[0].inner_hits['comments.replies'].hits.hits.map((h: any) => [h._nested, h._source.who])).toEqual([
      [{ field: 'comments', offset: 0, _nested: { field: 'replies', offset: 0 } }, 'alice'],
      [{ field: 'comments', offset: 0, _nested: { field: 'replies', offset: 1 } }, 'bob'],
      [{ field: 'comments', offset: 1, _nested: { field: 'replies', offset: 0 } }, 'carol'],
    ]);
  });

  it('inner_hits errors: duplicate names, too large a window, unknown keys', async () => {
    const ih = (inner_hits: unknown) => ({ nested: { path: 'comments', query: { match_all: {} }, inner_hits } });
    const dup = await call('POST', '/blog/_search', { query: { bool: { should: [ih({}), ih({})] } } });
    expect(dup.status).toBe(400);
    expect(JSON.stringify(dup.body.error)).toContain('[inner_hits] already contains an entry for key [comments]');
    const big = await call('POST', '/blog/_search', { query: ih({ size: 101 }) });
    expect(big.status).toBe(400);
    expect(JSON.stringify(big.body.error)).toContain(
      "Inner result window is too large, the inner hit definition's [comments]'s from + size must be less than or equal to: [100] but was [101]. This limit can be set by changing the [index.max_inner_result_window] index level setting.",
    );
    const bad = await call('POST', '/blog/_search', { query: ih({ nope: 1 }) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.root_cause[0]).toMatchObject({ type: 'x_content_parse_exception', reason: '[1:1] [inner_hits] unknown field [nope]' });
  });

  it('fields on nested fields come grouped per nested object, as ES returns them; highlighting nested fields', async () => {
    const b = await search({ query: { term: { title: 'd' } }, _source: false, fields: ['comments.author', 'comments.replies.who', 'title'] });
    expect(b.hits.hits[0].fields).toEqual({
      title: ['d'],
      comments: [
        { author: ['erin'], replies: [{ who: ['alice'] }, { who: ['bob'] }] },
        { author: ['alice'], replies: [{ who: ['carol'] }] },
      ],
    });
    const star = await search({ query: { term: { title: 'a' } }, _source: false, fields: ['comments.*'] });
    expect(star.hits.hits[0].fields).toEqual({ comments: [{ author: ['alice'], stars: [1] }, { author: ['bob'], stars: [5] }] });
    const hl = await search({
      query: { nested: { path: 'comments', query: { term: { 'comments.author': 'carol' } } } },
      _source: false,
      highlight: { fields: { 'comments.author': {} } },
    });
    expect(hl.hits.hits.map((h: any) => [h._id, h.highlight])).toEqual([['2', { 'comments.author': ['<em>carol</em>'] }]]);
  });

  it('unmapped or non-nested path: query_shard_exception; ignore_unmapped matches nothing', async () => {
    for (const path of ['nope', 'title']) {
      const r = await call('POST', '/blog/_search', { query: { nested: { path, query: { match_all: {} } } } });
      expect(r.status).toBe(400);
      expect(r.body.error.root_cause[0]).toMatchObject({
        type: 'query_shard_exception',
        reason: `failed to create query: [nested] failed to find nested object under path [${path}]`,
        index: 'blog',
      });
      expect(r.body.error.caused_by.caused_by).toMatchObject({ type: 'illegal_state_exception', reason: `[nested] failed to find nested object under path [${path}]` });
      expect((await search({ query: { nested: { path, ignore_unmapped: true, query: { match_all: {} } } } })).hits.total.value).toBe(0);
    }
    // a nested query on the path of the scope it is in: Lucene's block join refuses children that are parents
    const same = await call('POST', '/blog/_search', { query: { nested: { path: 'comments', query: { nested: { path: 'comments', query: { match_all: {} } } } } } });
    expect(same.status).toBe(500);
    expect(same.body.error.root_cause[0].type).toBe('illegal_state_exception');
    expect(same.body.error.root_cause[0].reason).toMatch(/^Child query must not match same docs with parent filter\. Combine them as must clauses \(\+\) to find a problem doc\. docId=\d+/);
    const bad = await call('POST', '/blog/_search', { query: { nested: { path: 'comments', score_mode: 'total', query: { match_all: {} } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'No score mode for child query [total] found' });
  });

  it('include_in_parent / include_in_root also index the objects flat in the parent / root document', async () => {
    const mappings = {
      properties: {
        a: { type: 'nested', include_in_parent: true, properties: { x: { type: 'keyword' }, b: { type: 'nested', include_in_root: true, properties: { y: { type: 'keyword' } } } } },
      },
    };
    expect((await call('PUT', '/inc', { mappings })).status).toBe(200);
    await call('PUT', '/inc/_doc/1?refresh=true', { a: [{ x: '1', b: [{ y: 'p' }] }, { x: '2', b: { y: 'q' } }] });
    // flat copies cross objects (like an object field), the nested query does not
    expect((await search({ query: { bool: { must: [{ term: { 'a.x': '1' } }, { term: { 'a.x': '2' } }] } } }, 'inc')).hits.total.value).toBe(1);
    expect((await search({ query: { term: { 'a.b.y': 'q' } } }, 'inc')).hits.total.value).toBe(1);
    const cross = { nested: { path: 'a', query: { bool: { must: [{ term: { 'a.x': '1' } }, { term: { 'a.x': '2' } }] } } } };
    expect((await search({ query: cross }, 'inc')).hits.total.value).toBe(0);
    expect((await call('GET', '/inc/_mapping')).body.inc.mappings.properties.a).toEqual({
      type: 'nested',
      include_in_parent: true,
      properties: { b: { type: 'nested', include_in_root: true, properties: { y: { type: 'keyword' } } }, x: { type: 'keyword' } },
    });
  });

  it('index.mapping.nested_fields.limit and index.mapping.nested_objects.limit with the ES errors', async () => {
    const r = await call('PUT', '/lim1', { settings: { 'index.mapping.nested_fields.limit': 1 }, mappings: { properties: { a: { type: 'nested' }, b: { type: 'nested' } } } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Limit of nested fields [1] has been exceeded' });
    expect((await call('HEAD', '/lim1')).status).toBe(404);
    expect((await call('PUT', '/lim2', { settings: { 'index.mapping.nested_objects.limit': 1 }, mappings: { properties: { items: { type: 'nested' } } } })).status).toBe(200);
    const d = await call('PUT', '/lim2/_doc/a', { items: [{ v: 1 }, { v: 2 }] });
    expect(d.status).toBe(400);
    expect(d.body.error.type).toBe('document_parsing_exception');
    expect(d.body.error.reason).toMatch(
      /^\[1:\d+\] The number of nested documents has exceeded the allowed limit of \[1\]\. This limit can be set by changing the \[index\.mapping\.nested_objects\.limit\] index level setting\.$/,
    );
    expect((await call('GET', '/lim2/_doc/a')).status).toBe(404);
    // a dynamic nested field past the limit is refused too, and nothing is indexed
    expect((await call('PUT', '/lim3', { settings: { 'index.mapping.nested_fields.limit': 1 }, mappings: { dynamic_templates: [{ n: { match: 'n*', mapping: { type: 'nested' } } }], properties: { n1: { type: 'nested' } } } })).status).toBe(200);
    const d3 = await call('PUT', '/lim3/_doc/1', { n2: [{ a: 1 }] });
    expect(d3.status).toBe(400);
    expect(d3.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Limit of nested fields [1] has been exceeded' });
    expect((await call('GET', '/lim3/_doc/1')).status).toBe(404);
  });

  it('dynamic mapping into nested fields (templates and new sub-fields)', async () => {
    await call('PUT', '/dyn', { mappings: { dynamic_templates: [{ n: { match: 'n*', match_mapping_type: 'object', mapping: { type: 'nested' } } }] } });
    await call('PUT', '/dyn/_doc/1?refresh=true', { nx: [{ k: 'a', v: 1 }, { k: 'b', v: 2 }] });
    expect((await call('GET', '/dyn/_mapping')).body.dyn.mappings.properties.nx.type).toBe('nested');
    const q = (k: string, v: number) => ({ nested: { path: 'nx', query: { bool: { must: [{ term: { 'nx.k.keyword': k } }, { term: { 'nx.v': v } }] } } } });
    expect((await search({ query: q('a', 1) }, 'dyn')).hits.total.value).toBe(1);
    expect((await search({ query: q('a', 2) }, 'dyn')).hits.total.value).toBe(0);
  });
});
