/**
 * The join feature through the real node (createTestHost + joinQueriesFeature), black box over HTTP: the
 * join field and its indexing rules, has_child / has_parent / parent_id with exact scores, inner_hits,
 * children / parent aggregations, and sorting children by a parent field.
 */
import { createTestHost, type TestHost } from '@strata/core-testing';
import { joinQueriesFeature } from './join-queries.module.js';

const f = Math.fround;

describe('join field and join queries', () => {
  let host: TestHost;
  const req = (method: string, path: string, body?: unknown) => host.request(method, path, body);
  const search = async (body: unknown, index = 'qa') => {
    const r = await req('POST', `/${index}/_search`, body);
    if (r.status !== 200) throw new Error(`search failed: ${r.text}`);
    return r.body;
  };
  const hits = (b: any) => b.hits.hits.map((h: any) => [h._id, h._score]);
  const ids = (b: any) => b.hits.hits.map((h: any) => h._id);
  /** each document scores its own `votes` */
  const votes = { function_score: { query: { match_all: {} }, field_value_factor: { field: 'votes' }, boost_mode: 'replace' } };

  beforeAll(async () => {
    host = await createTestHost({ features: [joinQueriesFeature] });
    const mappings = {
      properties: {
        my_join: { type: 'join', relations: { question: ['answer', 'comment'], answer: 'vote' } },
        text: { type: 'text' },
        votes: { type: 'integer' },
        tag: { type: 'keyword' },
      },
    };
    expect((await req('PUT', '/qa', { settings: { number_of_shards: 1 }, mappings })).status).toBe(200);
    const docs: Array<[string, string | undefined, Record<string, unknown>]> = [
      ['q1', undefined, { text: 'how to index', votes: 10, tag: 'a', my_join: 'question' }],
      ['q2', undefined, { text: 'how to search', votes: 3, tag: 'b', my_join: { name: 'question' } }],
      ['a1', 'q1', { text: 'use bulk', votes: 5, my_join: { name: 'answer', parent: 'q1' } }],
      ['a2', 'q1', { text: 'use the index api', votes: 1, my_join: { name: 'answer', parent: 'q1' } }],
      ['a3', 'q2', { text: 'use the search api', votes: 7, my_join: { name: 'answer', parent: 'q2' } }],
      ['c1', 'q2', { text: 'good question', votes: 2, my_join: { name: 'comment', parent: 'q2' } }],
      ['v1', 'q1', { votes: 1, my_join: { name: 'vote', parent: 'a1' } }],
      ['v2', 'q1', { votes: 1, my_join: { name: 'vote', parent: 'a1' } }],
    ];
    const lines = docs.flatMap(([id, routing, d]) => [{ index: { _index: 'qa', _id: id, ...(routing ? { routing } : {}) } }, d]);
    const r = await req('POST', '/_bulk?refresh=true', lines);
    if (r.status !== 200 || r.body.errors) throw new Error('bulk failed: ' + r.text);
  });

  afterAll(() => host.close());

  describe('the join field', () => {
    it('GET _mapping shows the relations as ES does (one child as a string)', async () => {
      const r = await req('GET', '/qa/_mapping');
      expect(r.body.qa.mappings.properties.my_join).toEqual({ type: 'join', eager_global_ordinals: true, relations: { question: ['answer', 'comment'], answer: 'vote' } });
    });

    it('the relation and the <field>#<parent> sub-fields are searchable, aggregatable and retrievable with fields', async () => {
      expect(ids(await search({ query: { term: { my_join: 'answer' } }, sort: [{ votes: 'desc' }] }))).toEqual(['a3', 'a1', 'a2']);
      expect(ids(await search({ query: { term: { 'my_join#question': 'q1' } }, sort: [{ votes: 'desc' }] }))).toEqual(['q1', 'a1', 'a2']);
      const aggs = await search({ size: 0, aggs: { rel: { terms: { field: 'my_join' } }, parents: { terms: { field: 'my_join#question' } } } });
      expect(aggs.aggregations.rel.buckets.map((b: any) => [b.key, b.doc_count])).toEqual([['answer', 3], ['question', 2], ['vote', 2], ['comment', 1]]);
      expect(aggs.aggregations.parents.buckets.map((b: any) => [b.key, b.doc_count])).toEqual([['q1', 3], ['q2', 3]]);
      const f1 = await search({ query: { ids: { values: ['a1'] } }, _source: false, fields: ['my_join', 'my_join#question'] });
      expect(f1.hits.hits[0].fields).toEqual({ my_join: ['answer'], 'my_join#question': ['q1'] });
      const f2 = await search({ query: { ids: { values: ['a1'] } }, _source: false, fields: ['my_join*'] });
      expect(f2.hits.hits[0].fields).toEqual({ my_join: ['answer'], 'my_join#answer': ['a1'], 'my_join#question': ['q1'] });
    });

    it('mapping errors: a second join field, a join field inside an object, a child with two parents, unknown parameters', async () => {
      const two = await req('PUT', '/bad1', { mappings: { properties: { j1: { type: 'join', relations: { a: 'b' } }, j2: { type: 'join', relations: { c: 'd' } } } } });
      expect(two.status).toBe(400);
      expect(two.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'Only one [parent-join] field can be defined per index, got [j1, j2]' });
      await req('PUT', '/bad2', { mappings: { properties: { j1: { type: 'join', relations: { a: 'b' } } } } });
      const later = await req('PUT', '/bad2/_mapping', { properties: { j2: { type: 'join', relations: { c: 'd' } } } });
      expect(later.status).toBe(400);
      expect(later.body.error.reason).toBe('Only one [parent-join] field can be defined per index, got [j1, j2]');
      const inObj = await req('PUT', '/bad3', { mappings: { properties: { o: { properties: { j: { type: 'join', relations: { a: 'b' } } } } } } });
      expect(inObj.status).toBe(400);
      expect(JSON.stringify(inObj.body.error)).toContain('join field [o.j] cannot be added inside an object or in a multi-field');
      const multi = await req('PUT', '/bad4', { mappings: { properties: { j: { type: 'join', relations: { a: 'c', b: 'c' } } } } });
      expect(multi.status).toBe(400);
      expect(JSON.stringify(multi.body.error)).toContain('[c] cannot have multiple parents');
      const param = await req('PUT', '/bad5', { mappings: { properties: { j: { type: 'join', relations: { a: 'b' }, store: true } } } });
      expect(param.status).toBe(400);
      expect(param.body.error.root_cause[0]).toMatchObject({ type: 'mapper_parsing_exception', reason: 'unknown parameter [store] on mapper [j] of type [join]' });
      for (const i of ['bad1', 'bad3', 'bad4', 'bad5']) expect((await req('HEAD', `/${i}`)).status).toBe(404);
    });

    it('mapping updates may add children and roots, not remove, move or turn children into parents (ES Joiner#canMerge)', async () => {
      await req('PUT', '/upd', { mappings: { properties: { j: { type: 'join', relations: { a: 'b' } } } } });
      const ok = await req('PUT', '/upd/_mapping', { properties: { j: { type: 'join', relations: { a: ['b', 'c'], x: 'y' } } } });
      expect([ok.status, ok.body.error]).toEqual([200, undefined]);
      expect((await req('GET', '/upd/_mapping')).body.upd.mappings.properties.j.relations).toEqual({ a: ['b', 'c'], x: 'y' });
      const conflicts: Array<[unknown, string]> = [
        [{ a: 'c', x: 'y' }, 'Cannot remove child [b]'],
        [{ a: ['b', 'c'], x: 'y', b: 'z' }, 'Cannot create parent [b] from an existing child'],
        [{ a: 'c', x: ['y', 'b'] }, 'Cannot change parent of [b]'],
      ];
      for (const [relations, why] of conflicts) {
        const r = await req('PUT', '/upd/_mapping', { properties: { j: { type: 'join', relations } } });
        expect(r.status).toBe(400);
        expect(r.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: `Mapper for [j] conflicts with existing mapper:\n\t${why}` });
      }
    });

    it('indexing rules with the ES errors, nothing indexed half-way', async () => {
      const noRouting = await req('PUT', '/qa/_doc/x1', { my_join: { name: 'answer', parent: 'q1' } });
      expect(noRouting.status).toBe(400);
      expect(noRouting.body.error.type).toBe('document_parsing_exception');
      expect(noRouting.body.error.reason).toMatch(/^\[1:\d+\] \[routing\] is missing for join field \[my_join\]$/);
      expect(noRouting.body.error.caused_by).toMatchObject({ type: 'illegal_argument_exception', reason: '[routing] is missing for join field [my_join]' });
      const noParent = await req('PUT', '/qa/_doc/x2?routing=q1', { my_join: 'answer' });
      expect(noParent.body.error.reason).toMatch(/\[parent\] is missing for join field \[my_join\]$/);
      const unknown = await req('PUT', '/qa/_doc/x3', { my_join: 'nope' });
      expect(unknown.body.error.reason).toMatch(/unknown join name \[nope\] for field \[my_join\]$/);
      const badKey = await req('PUT', '/qa/_doc/x4?routing=q1', { my_join: { name: 'answer', mother: 'q1' } });
      expect(badKey.body.error.reason).toMatch(/unknown field name \[mother\] in join field \[my_join\]$/);
      for (const id of ['x1', 'x2', 'x3', 'x4']) expect((await req('GET', `/qa/_doc/${id}?routing=q1`)).status).toBe(404);
      // a numeric parent id is accepted, as a string
      expect((await req('PUT', '/qa/_doc/x5?routing=7&refresh=true', { my_join: { name: 'answer', parent: 7 } })).status).toBe(201);
      expect(ids(await search({ query: { parent_id: { type: 'answer', id: '7' } } }))).toEqual(['x5']);
      expect((await req('DELETE', '/qa/_doc/x5?routing=7&refresh=true')).status).toBe(200);
    });
  });

  describe('has_child', () => {
    const hasChild = (extra: Record<string, unknown>) => ({ has_child: { type: 'answer', query: votes, ...extra } });

    it('every score_mode (answers of q1 have votes 5 and 1, of q2 7)', async () => {
      expect(hits(await search({ query: hasChild({}) }))).toEqual([['q1', 1], ['q2', 1]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'none' }) }))).toEqual([['q1', 1], ['q2', 1]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'sum' }) }))).toEqual([['q2', 7], ['q1', 6]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'avg' }) }))).toEqual([['q2', 7], ['q1', 3]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'max' }) }))).toEqual([['q2', 7], ['q1', 5]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'min' }) }))).toEqual([['q2', 7], ['q1', 1]]);
      expect(hits(await search({ query: hasChild({ score_mode: 'sum', boost: 2 }) }))).toEqual([['q2', 14], ['q1', 12]]);
      expect(hits(await search({ query: hasChild({ boost: 2.5 }) }))).toEqual([['q1', 2.5], ['q2', 2.5]]);
    });

    it('avg keeps float precision like Lucene (votes 5 and 2 over three answers)', async () => {
      const q = { has_child: { type: 'answer', score_mode: 'avg', query: { function_score: { query: { match_all: {} }, functions: [{ weight: 0.1 }], boost_mode: 'replace' } } } };
      expect(hits(await search({ query: q }))).toEqual([['q1', f(f(f(0.1) + f(0.1)) / 2)], ['q2', f(0.1)]]);
    });

    it('min_children / max_children, and only children of the given type count', async () => {
      expect(ids(await search({ query: hasChild({ min_children: 2 }) }))).toEqual(['q1']);
      expect(ids(await search({ query: hasChild({ max_children: 1 }) }))).toEqual(['q2']);
      expect(ids(await search({ query: { has_child: { type: 'comment', query: { match_all: {} } } } }))).toEqual(['q2']);
      // answers are parents of votes: has_child goes one level down only
      expect(ids(await search({ query: { has_child: { type: 'vote', query: { match_all: {} } } } }))).toEqual(['a1']);
      const bad = await req('POST', '/qa/_search', { query: hasChild({ min_children: 3, max_children: 2 }) });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: "[has_child] 'max_children' is less than 'min_children'" });
    });

    it('inside bool, constant_score and function_score like any clause', async () => {
      const b = await search({ query: { bool: { must: [hasChild({ score_mode: 'max' })], filter: [{ term: { tag: 'a' } }] } } });
      expect(hits(b)).toEqual([['q1', 5]]);
      expect(hits(await search({ query: { constant_score: { filter: hasChild({ score_mode: 'sum' }), boost: 4 } } }))).toEqual([['q1', 4], ['q2', 4]]);
      const fs = await search({ query: { function_score: { query: hasChild({ score_mode: 'sum' }), functions: [{ weight: 3 }], boost_mode: 'multiply' } } });
      expect(hits(fs)).toEqual([['q2', 21], ['q1', 18]]);
    });
  });

  describe('has_parent', () => {
    it('score false: each child gets the query boost', async () => {
      const q = { has_parent: { parent_type: 'question', query: { term: { tag: 'a' } } } };
      expect(hits(await search({ query: q }))).toEqual([['a1', 1], ['a2', 1]]);
      expect(hits(await search({ query: { has_parent: { ...q.has_parent, boost: 3 } } }))).toEqual([['a1', 3], ['a2', 3]]);
    });

    it('score true carries the parent\'s score (times the boost)', async () => {
      const q = { has_parent: { parent_type: 'question', score: true, query: votes } };
      expect(hits(await search({ query: q }))).toEqual([['a1', 10], ['a2', 10], ['a3', 3], ['c1', 3]]);
      expect(hits(await search({ query: { has_parent: { ...q.has_parent, boost: 2 } } }))).toEqual([['a1', 20], ['a2', 20], ['a3', 6], ['c1', 6]]);
    });

    it('the next level: votes of answers', async () => {
      expect(ids(await search({ query: { has_parent: { parent_type: 'answer', query: { match: { text: 'bulk' } } } } }))).toEqual(['v1', 'v2']);
    });

    it('sorting children by a parent field: has_parent score:true around function_score script_score, sorted by _score', async () => {
      const q = {
        has_parent: {
          parent_type: 'question',
          score: true,
          query: { function_score: { script_score: { script: { source: "doc['votes'].value" } } } },
        },
      };
      const b = await search({ query: q, sort: ['_score'] });
      expect(b.hits.hits.map((h: any) => [h._id, h.sort[0]])).toEqual([['a1', 10], ['a2', 10], ['a3', 3], ['c1', 3]]);
      // a plain sort on a parent-only field: children have no value, so they all sort as missing (ES does the same)
      const plain = await search({ query: { has_parent: { parent_type: 'question', query: { match_all: {} } } }, sort: [{ tag: 'asc' }] });
      expect(plain.hits.hits.map((h: any) => h.sort)).toEqual([[null], [null], [null], [null]]);
    });
  });

  describe('parent_id', () => {
    it('finds the children of one parent (of the given child type only)', async () => {
      expect(ids(await search({ query: { parent_id: { type: 'answer', id: 'q1' } }, sort: [{ votes: 'desc' }] }))).toEqual(['a1', 'a2']);
      expect(ids(await search({ query: { parent_id: { type: 'comment', id: 'q2' } } }))).toEqual(['c1']);
      expect(ids(await search({ query: { parent_id: { type: 'vote', id: 'a1' } } }))).toEqual(['v1', 'v2']);
    });
  });

  describe('errors', () => {
    it('unknown types, no join field, ignore_unmapped', async () => {
      const cases: Array<[unknown, string]> = [
        [{ has_child: { type: 'nope', query: { match_all: {} } } }, "[has_child] join field [my_join] doesn't hold [nope] as a child"],
        [{ has_parent: { parent_type: 'nope', query: { match_all: {} } } }, "[has_parent] join field [my_join] doesn't hold [nope] as a parent"],
        [{ parent_id: { type: 'question', id: '1' } }, "[parent_id] join field [my_join] doesn't hold [question] as a child"],
      ];
      for (const [query, reason] of cases) {
        const r = await req('POST', '/qa/_search', { query });
        expect(r.status).toBe(400);
        expect(r.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason, index: 'qa' });
        const k = Object.keys(query as object)[0]!;
        const q2 = { [k]: { ...(query as Record<string, Record<string, unknown>>)[k], ignore_unmapped: true } };
        expect((await search({ query: q2 })).hits.total.value).toBe(0);
      }
      await req('PUT', '/plain', { mappings: { properties: { a: { type: 'keyword' } } } });
      const none = await req('POST', '/plain/_search', { query: { has_parent: { parent_type: 'question', query: { match_all: {} } } } });
      expect(none.status).toBe(400);
      expect(none.body.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception', reason: '[has_parent] no join field has been configured' });
      expect((await search({ query: { has_child: { type: 'x', query: { match_all: {} }, ignore_unmapped: true } } }, 'plain')).hits.total.value).toBe(0);
    });

    it('parse errors are request-level, as ES reports them', async () => {
      const r = await req('POST', '/qa/_search', { query: { has_child: { query: { match_all: {} } } } });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: "[has_child] requires 'type' field" });
      const r2 = await req('POST', '/qa/_search', { query: { has_parent: { parent_type: 'question', query: { match_all: {} }, nope: 1 } } });
      expect(r2.body.error.root_cause[0]).toMatchObject({ type: 'parsing_exception', reason: '[has_parent] query does not support [nope]' });
    });
  });

  describe('inner_hits', () => {
    it('has_child inner hits: the matching children of each parent, with _routing, scores and sort', async () => {
      const b = await search({ query: { has_child: { type: 'answer', score_mode: 'max', query: votes, inner_hits: {} } }, _source: false });
      expect(ids(b)).toEqual(['q2', 'q1']);
      expect(b.hits.hits[1].inner_hits).toEqual({
        answer: {
          hits: {
            total: { value: 2, relation: 'eq' },
            max_score: 5,
            hits: [
              { _index: 'qa', _id: 'a1', _score: 5, _routing: 'q1', _source: { text: 'use bulk', votes: 5, my_join: { name: 'answer', parent: 'q1' } } },
              { _index: 'qa', _id: 'a2', _score: 1, _routing: 'q1', _source: { text: 'use the index api', votes: 1, my_join: { name: 'answer', parent: 'q1' } } },
            ],
          },
        },
      });
      const named = await search({
        query: { has_child: { type: 'answer', query: { match_all: {} }, inner_hits: { name: 'best', size: 1, sort: [{ votes: 'asc' }], _source: ['text'] } } },
        _source: false,
      });
      expect(named.hits.hits.map((h: any) => [h._id, h.inner_hits.best.hits.total.value, h.inner_hits.best.hits.hits.map((x: any) => [x._id, x._source, x.sort])])).toEqual([
        ['q1', 2, [['a2', { text: 'use the index api' }, [1]]]],
        ['q2', 1, [['a3', { text: 'use the search api' }, [7]]]],
      ]);
    });

    it('has_parent inner hits: the parent of each child; inner hits of inner hits', async () => {
      const b = await search({ query: { has_parent: { parent_type: 'question', query: { term: { tag: 'b' } }, inner_hits: { _source: ['tag'] } } }, _source: false });
      expect(b.hits.hits.map((h: any) => [h._id, h.inner_hits.question.hits.hits.map((x: any) => [x._id, x._source])])).toEqual([
        ['a3', [['q2', { tag: 'b' }]]],
        ['c1', [['q2', { tag: 'b' }]]],
      ]);
      const deep = await search({
        query: { has_child: { type: 'answer', query: { has_child: { type: 'vote', query: { match_all: {} }, inner_hits: {} } }, inner_hits: {} } },
        _source: false,
      });
      expect(ids(deep)).toEqual(['q1']);
      const answers = deep.hits.hits[0].inner_hits.answer.hits.hits;
      expect(answers.map((a: any) => [a._id, a.inner_hits.vote.hits.hits.map((v: any) => v._id)])).toEqual([['a1', ['v1', 'v2']]]);
    });
  });

  describe('aggregations', () => {
    it('children: from the parents of each bucket to their children', async () => {
      const b = await search({
        size: 0,
        aggs: { tags: { terms: { field: 'tag' }, aggs: { answers: { children: { type: 'answer' }, aggs: { v: { sum: { field: 'votes' } } } } } } },
      });
      expect(b.aggregations.tags.buckets.map((x: any) => [x.key, x.doc_count, x.answers.doc_count, x.answers.v.value])).toEqual([
        ['a', 1, 2, 6],
        ['b', 1, 1, 7],
      ]);
      const votesOf = await search({ size: 0, query: { term: { my_join: 'answer' } }, aggs: { c: { children: { type: 'vote' } } } });
      expect(votesOf.aggregations.c).toEqual({ doc_count: 2 });
    });

    it('parent: from the children of each bucket to their (distinct) parents; typed_keys; unknown types', async () => {
      const r = await req('POST', '/qa/_search?typed_keys=true', {
        size: 0,
        query: { term: { my_join: 'answer' } },
        aggs: { p: { parent: { type: 'answer' }, aggs: { t: { terms: { field: 'tag' } } } } },
      });
      expect(r.body.aggregations).toEqual({
        'parent#p': { doc_count: 2, 'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'a', doc_count: 1 }, { key: 'b', doc_count: 1 }] } },
      });
      const unknown = await search({ size: 0, aggs: { c: { children: { type: 'nope' } }, p: { parent: { type: 'nope' } } } });
      expect(unknown.aggregations).toEqual({ c: { doc_count: 0 }, p: { doc_count: 0 } });
      const miss = await req('POST', '/qa/_search', { size: 0, aggs: { c: { children: {} } } });
      expect(miss.status).toBe(400);
      expect(miss.body.error.root_cause[0]).toMatchObject({ type: 'parsing_exception', reason: 'Missing [child_type] field for children aggregation [c]' });
    });
  });
});
