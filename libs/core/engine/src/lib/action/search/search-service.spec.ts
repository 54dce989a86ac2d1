import { hostname } from 'node:os';
import { Errors, EsError, RequestContexts, TaskManager, type RequestContext } from '@strata/core-common';
import { BUILTIN_QUERY_PARSERS } from '../../query-dsl/builtin-parsers.js';
import { QueryParserRegistry } from '../../query-dsl/query-parser.js';
import type { IndexMetadata } from '../../cluster/metadata.js';
import type { DirectoryReader } from '../../index/leaf-reader.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import type { IndexNameExpressionResolver, IndicesService, IndexShard, MapperService } from '../../services.js';
import type { CoordinatorSearchInterceptor, SearchRequest, ShardSearchInterceptor } from '../../search/spi-search.js';
import { fakeIndexMetadata, fakeReader, fieldTypes, type FakeDoc } from '../../search/testing/fake-index.js';
import { locateKey } from '@strata/core-common';
import { SearchService } from './search-service.js';
import { parseSearchSource } from './search-source.js';

const FIELDS: Record<string, MappedFieldType> = { body: fieldTypes.text('body'), n: fieldTypes.long('n'), tag: fieldTypes.keyword('tag') };

function setup(opts: { shard?: ShardSearchInterceptor[]; coord?: CoordinatorSearchInterceptor[]; tasks?: TaskManager; onAcquire?: (key: string) => void } = {}) {
  const shardDocs: Record<string, FakeDoc[][]> = {
    'a#0': [[{ id: 'a1', text: { body: 'red fox' }, num: { n: 1 } }, { id: 'a2', text: { body: 'red' }, num: { n: 4 } }]],
    'a#1': [[{ id: 'a3', text: { body: 'blue fox' }, num: { n: 3 } }]],
    'b#0': [[{ id: 'b1', text: { body: 'red red red' }, num: { n: 2 }, keyword: { tag: 'x' } }]],
  };
  const acquired: string[] = [];
  const released: string[] = [];
  const metas: Record<string, IndexMetadata> = {
    a: { ...fakeIndexMetadata('a'), numberOfShards: 2 },
    b: fakeIndexMetadata('b', { 'index.max_result_window': 5 }),
  };
  const reader = (key: string): DirectoryReader => ({
    ...fakeReader(shardDocs[key]!, key),
    incRef: () => acquired.push(key),
    decRef: () => released.push(key),
  });
  const indices: IndicesService = {
    indexMetadata: (i) => {
      if (!metas[i]) throw Errors.indexNotFound(i);
      return metas[i];
    },
    shards: (i) =>
      Array.from({ length: metas[i]!.numberOfShards }, (_, s): IndexShard => ({
        index: i,
        indexUuid: i,
        shardId: s,
        acquireReader: () => {
          acquired.push(`acq:${i}#${s}`);
          opts.onAcquire?.(`${i}#${s}`);
          return reader(`${i}#${s}`);
        },
        refresh: async () => undefined,
      })),
  };
  const resolver: IndexNameExpressionResolver = {
    concreteIndices: (e) => {
      const list = e === undefined ? ['_all'] : Array.isArray(e) ? e : [e];
      return list.flatMap((x) => (x === '_all' || x === '*' ? ['a', 'b'] : metas[x] ? [x] : []));
    },
    writeIndex: () => undefined,
  };
  const mappers = {
    fieldType: (_i: IndexMetadata, n: string) => FIELDS[n],
    matchingFieldNames: () => Object.keys(FIELDS),
  } as unknown as MapperService;
  const service = new SearchService(
    indices,
    resolver,
    mappers,
    new QueryParserRegistry(BUILTIN_QUERY_PARSERS),
    undefined,
    undefined,
    opts.shard,
    opts.coord,
    undefined,
    { now: () => 1000, nanoTime: () => 0n },
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    opts.tasks,
  );
  const req = (body: unknown, extra: Partial<SearchRequest> = {}): SearchRequest => ({
    indicesOptions: { ignoreUnavailable: false, allowNoIndices: true, expandWildcards: { open: true, closed: false, hidden: false } },
    source: parseSearchSource(body),
    searchType: 'query_then_fetch',
    typedKeys: false,
    restTotalHitsAsInt: false,
    allowPartialSearchResults: true,
    attributes: {},
    ...extra,
  });
  return { service, req, acquired, released, reader, metas };
}

describe('SearchService', () => {
  it('runs as a task: listed while it runs, cancelled between shards with task_cancelled_exception', async () => {
    const tasks = new TaskManager();
    const { service, req, released } = setup({ tasks });
    const running = service.search(req({ query: { match_all: {} } }, { indices: ['a'], rawBody: '{"query":{"match_all":{}}}' }));
    const listed = tasks.list();
    expect(listed.map((t) => [t.action, t.description, t.cancellable])).toEqual([
      ['indices:data/read/search', 'indices[a], search_type[QUERY_THEN_FETCH], source[{"query":{"match_all":{}}}]', true],
    ]);
    tasks.cancel(listed[0]!.id);
    await expect(running).rejects.toMatchObject({ type: 'task_cancelled_exception', status: 400, reason: 'task cancelled [by user request]' });
    // the first shard ran, the second never started; the task is gone and the reader released
    expect(released).toEqual(['a#0']);
    expect(tasks.list()).toEqual([]);
    const ok = await service.search(req({}, { indices: ['a'] }));
    expect(ok.body['_shards']).toEqual({ total: 2, successful: 2, skipped: 0, failed: 0 });
    expect(tasks.list()).toEqual([]);
  });

  it('goes through a quick search without a turn of the event loop (other work waits), cancellable all the same', async () => {
    const tasks = new TaskManager();
    const { service, req } = setup({ tasks });
    await service.search(req({ query: { match_all: {} } }, { indices: ['a'] }));
    let turned = false;
    // the clock the search reads stands still (a loaded machine can make this tiny search take 5 ms of wall
    // time); the event loop's own timers stay real
    jest.useFakeTimers({ doNotFake: ['Date', 'hrtime', 'nextTick', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    let res;
    try {
      setImmediate(() => (turned = true));
      res = await service.search(req({ query: { match_all: {} } }, { indices: ['a'] }));
    } finally {
      jest.useRealTimers();
    }
    expect(res.body['_shards']).toEqual({ total: 2, successful: 2, skipped: 0, failed: 0 });
    // both shards and the fetch ran before the immediate set before the search
    expect(turned).toBe(false);
    expect(tasks.list()).toEqual([]);
  });

  it('stops at the next shard once the HTTP client has gone (task_cancelled_exception), releasing readers', async () => {
    const aborter = new AbortController();
    // the client disconnects while the first shard is searched
    const tasks = new TaskManager();
    const { service, req, acquired, released } = setup({ tasks, onAcquire: () => aborter.abort() });
    const rc: RequestContext = { id: 't', method: 'POST', url: '/_search', startedAt: 0, warnings: [], signal: aborter.signal };
    const err = await RequestContexts.run(rc, () => service.search(req({ query: { match_all: {} } }))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).type).toBe('task_cancelled_exception');
    expect((err as EsError).reason).toBe('task cancelled [http channel closed]');
    expect(acquired).toEqual(['acq:a#0']);
    expect(released).toEqual(['a#0']);
    // the same search with its client still there runs every shard
    const ok = setup({ tasks });
    const rc2: RequestContext = { ...rc, signal: new AbortController().signal };
    const res = await RequestContexts.run(rc2, () => ok.service.search(ok.req({ query: { match_all: {} }, size: 2 })));
    expect(res.body['_shards']).toMatchObject({ total: 3, successful: 3 });
    expect(tasks.list()).toEqual([]);
  });

  it('fans out to every shard, merges globally and releases readers', async () => {
    const { service, req, acquired, released } = setup();
    const res = await service.search(req({ query: { match: { body: 'red' } } }, { indices: ['a'] }));
    expect(res.body['_shards']).toEqual({ total: 2, successful: 2, skipped: 0, failed: 0 });
    const hits = (res.body['hits'] as { hits: Array<{ _id: string; _index: string }> }).hits;
    expect(hits.map((h) => h._id)).toEqual(['a2', 'a1']);
    expect(acquired.sort()).toEqual(['acq:a#0', 'acq:a#1']);
    expect(released.sort()).toEqual(['a#0', 'a#1']);
    expect(res.targets.map((t) => `${t.index}#${t.shardId}`)).toEqual(['a#0', 'a#1']);
  });

  it('sorts across indices and shards by field', async () => {
    const { service, req } = setup();
    const res = await service.search(req({ sort: [{ n: 'desc' }], size: 4 }));
    const hits = (res.body['hits'] as { hits: Array<{ _id: string; sort: unknown[] }> }).hits;
    expect(hits.map((h) => [h._id, h.sort])).toEqual([
      ['a2', [4]],
      ['a3', [3]],
      ['b1', [2]],
      ['a1', [1]],
    ]);
  });

  it('a failing index becomes shard failures; all failing is search_phase_execution_exception', async () => {
    const { service, req } = setup();
    const res = await service.search(req({ from: 4, size: 2 }));
    const shards = res.body['_shards'] as { failed: number; failures: Array<{ index: string; reason: { type: string } }> };
    expect(shards.failed).toBe(1);
    expect(shards.failures[0]).toMatchObject({ index: 'b', shard: 0, reason: { type: 'illegal_argument_exception' } });
    let err: EsError | undefined;
    try {
      await service.search(req({ query: { term: { n: 'x' } } }));
    } catch (e) {
      err = e as EsError;
    }
    expect(err!.type).toBe('search_phase_execution_exception');
    expect(err!.status).toBe(400);
    expect(err!.extra['failed_shards']).toHaveLength(2); // grouped per index
    expect(err!.toBody().error['root_cause']).toEqual([
      { type: 'query_shard_exception', reason: 'failed to create query: For input string: "x"', index_uuid: 'a-uuid', index: 'a' },
      { type: 'query_shard_exception', reason: 'failed to create query: For input string: "x"', index_uuid: 'b-uuid', index: 'b' },
    ]);
  });

  it('query-phase shard failures carry the index uuid (sort on an unmapped field)', async () => {
    const { service, req } = setup();
    const err = await service.search(req({ sort: [{ nope: 'asc' }], size: 2 }, { indices: ['b'] })).catch((x: EsError) => x);
    expect((err as EsError).toBody().error['root_cause']).toEqual([
      { type: 'query_shard_exception', reason: 'No mapping found for [nope] in order to sort on', index_uuid: 'b-uuid', index: 'b' },
    ]);
  });

  it('syntax errors are request-level, with the position in the raw body', async () => {
    const { service, req } = setup();
    await expect(service.search(req({ query: { nope: {} } }))).rejects.toMatchObject({ type: 'parsing_exception' });
    const raw = '{\n  "query": {\n    "nope": {}\n  }\n}';
    const e = await service.search(req(JSON.parse(raw), { rawBody: raw })).catch((x: EsError) => x);
    expect((e as EsError).metadata).toEqual({ line: 3, col: 13 });
    expect(((e as EsError).cause as EsError).reason).toBe('[3:13] unknown field [nope]');
    expect(locateKey('{"query":{"foo":{}}}', 'foo', 'value')).toEqual({ line: 1, col: 17 });
  });

  it('aggregation parse errors carry their position in the raw body (key of an unknown field, value of a bad one)', async () => {
    const { service, req } = setup();
    const at = async (raw: string) => {
      const e = (await service.search(req(JSON.parse(raw), { rawBody: raw })).catch((x: EsError) => x)) as EsError;
      return [e.type, e.reason];
    };
    expect(await at('{"aggs":{"a":{"terms":{"field":"tag","sizes":1}}}}')).toEqual(['x_content_parse_exception', '[1:38] [terms] unknown field [sizes]']);
    expect(await at('{"size":0,"aggs":{"a":{"terms":{"field":"tag","size":"x"}}}}')).toEqual([
      'x_content_parse_exception',
      '[1:54] [terms] failed to parse field [size]',
    ]);
    const nested = '{\n "aggregations": {\n  "a": {\n   "terms": {"field": "tag"},\n   "aggs": {"b": {"max": {"field": "n", "nope": 1}}}\n  }\n }\n}';
    expect(await at(nested)).toEqual(['x_content_parse_exception', '[5:41] [max] unknown field [nope]']);
    // without the raw body the position stays unknown
    const e = (await service.search(req({ aggs: { a: { terms: { field: 'tag', sizes: 1 } } } })).catch((x: EsError) => x)) as EsError;
    expect(e.reason).toBe('[1:1] [terms] unknown field [sizes]');
  });

  it('shard interceptors wrap the query phase in order and see nowUsed', async () => {
    const calls: string[] = [];
    const mk = (name: string, order: number): ShardSearchInterceptor => ({
      name,
      order,
      async intercept(r, shard, next) {
        calls.push(`${name}>${shard.index}#${shard.shardId}:${r.nowUsed}:${shard.reader.cacheKey}`);
        const out = await next();
        calls.push(`${name}<`);
        return out;
      },
    });
    const { service, req } = setup({ shard: [mk('outer', 1), mk('inner', 2)] });
    await service.search(req({ query: { range: { n: { gte: 0 } } }, size: 2 }, { indices: ['b'] }));
    expect(calls).toEqual(['outer>b#0:false:b#0', 'inner>b#0:false:b#0', 'inner<', 'outer<']);
  });

  it('coordinator interceptors supply held readers, retain them and post-process', async () => {
    const { service, req } = setup();
    const holder: { s2?: ReturnType<typeof setup> } = {};
    const interceptor: CoordinatorSearchInterceptor = {
      name: 'paging',
      order: 1,
      handles: ['scroll'],
      async intercept(r, options, next) {
        const res = await next(r, {
          ...options,
          readers: new Map([['a#1', holder.s2!.reader('a#1')]]),
          targets: [{ index: 'a', shardId: 1 }],
          retainReaders: (readers) => {
            for (const rd of readers.values()) rd.incRef();
          },
        });
        res.body['_scroll_id'] = 'abc';
        return res;
      },
    };
    const s2 = (holder.s2 = setup({ coord: [interceptor] }));
    const res = await s2.service.search(s2.req({ size: 1 }, { scroll: '1m' }));
    expect(res.body['_scroll_id']).toBe('abc');
    expect((res.body['hits'] as { hits: Array<{ _id: string }> }).hits.map((h) => h._id)).toEqual(['a3']);
    expect(s2.acquired).toEqual(['a#1']); // retained by the interceptor, nothing acquired
    expect(s2.released).toEqual([]);
    // without an interceptor handling scroll the parameter is rejected
    await expect(service.search(req({}, { scroll: '1m' }))).rejects.toMatchObject({ type: 'illegal_argument_exception' });
  });

  it('pinned readers of an index deleted since: its shards fail with index_not_found_exception (EQL, PIT)', async () => {
    const { service, req, metas } = setup();
    const targets = service.resolveTargets(req({}));
    const readers = service.acquireReaders(targets);
    delete metas['b'];
    const res = await service.search(req({ query: { match: { body: 'red' } } }), { targets, readers });
    expect(res.body['_shards']).toMatchObject({ total: 3, successful: 2, failed: 1 });
    expect((res.body['_shards'] as { failures: unknown[] }).failures).toEqual([
      { shard: 0, index: 'b', node: expect.any(String), reason: expect.objectContaining({ type: 'index_not_found_exception', reason: 'no such index [b]' }) },
    ]);
    expect((res.body['hits'] as { hits: Array<{ _id: string }> }).hits.map((h) => h._id).sort()).toEqual(['a1', 'a2']);
    // partial results not allowed: ES's "Partial shards failure" (status of the shard failure: 404)
    const err = await service.search(req({}, { allowPartialSearchResults: false }), { targets, readers }).catch((e: unknown) => e);
    expect(err).toMatchObject({ type: 'search_phase_execution_exception', reason: 'Partial shards failure', status: 404 });
  });

  it('preference=_shards and routing limit the target shards', async () => {
    const { service, req } = setup();
    const res = await service.search(req({}, { indices: ['a'], preference: '_shards:1' }));
    expect(res.targets).toEqual([{ index: 'a', shardId: 1 }]);
    expect((res.body['_shards'] as { total: number }).total).toBe(1);
  });

  it('profile: one entry per shard', async () => {
    const { service, req } = setup();
    const res = await service.search(req({ profile: true, query: { match: { body: 'red' } } }, { indices: ['a'] }));
    const p = res.body['profile'] as { shards: Array<{ id: string; shard_id: number; searches: Array<{ query: Array<{ type: string }> }> }> };
    // no node identity bound: the node is named after the host (Elasticsearch's default node.name)
    expect(p.shards.map((x) => x.id)).toEqual([`[${hostname()}][a][0]`, `[${hostname()}][a][1]`]);
    expect(p.shards[0]!.searches[0]!.query[0]!.type).toBe('TermQuery');
    expect(Object.keys(res.body)).toEqual(['took', 'timed_out', '_shards', 'hits', 'profile']);
  });

  it('_count', async () => {
    const { service, req } = setup();
    expect(await service.count(req({ query: { match: { body: 'fox' } } }))).toEqual({
      count: 2,
      _shards: { total: 3, successful: 3, skipped: 0, failed: 0 },
    });
  });

  it('stored_fields drops _source unless _source is requested explicitly (elasticdump sends both)', async () => {
    const { service, req } = setup();
    const src = async (body: unknown) =>
      ((await service.search(req({ size: 1, ...(body as object) }, { indices: ['b'] }))).body['hits'] as { hits: Array<Record<string, unknown>> }).hits[0]!['_source'];
    expect(await src({ stored_fields: ['*'] })).toBeUndefined();
    expect(JSON.parse(JSON.stringify(await src({ stored_fields: ['*'], _source: true })))).toEqual({ body: 'red red red', tag: 'x', n: 2 });
    expect(JSON.parse(JSON.stringify(await src({ stored_fields: ['*'], _source: ['tag'] })))).toEqual({ tag: 'x' });
    expect(await src({ stored_fields: ['*'], _source: false })).toBeUndefined();
  });
});

describe('dfs_query_then_fetch', () => {
  it('scores with statistics of all shards, as a single shard would', async () => {
    const { service, req } = setup();
    const dfs = await service.search(req({ query: { match: { body: 'fox red' } } }, { indices: ['a'], searchType: 'dfs_query_then_fetch' }));
    const qtf = await service.search(req({ query: { match: { body: 'fox red' } } }, { indices: ['a'] }));
    const scores = (r: typeof dfs) => Object.fromEntries((r.body['hits'] as { hits: Array<{ _id: string; _score: number }> }).hits.map((h) => [h._id, h._score]));
    // the same docs in one shard
    const single = new SearchService(
      {
        indexMetadata: () => fakeIndexMetadata('a'),
        shards: () => [
          {
            index: 'a',
            indexUuid: 'a',
            shardId: 0,
            acquireReader: () =>
              fakeReader([
                [
                  { id: 'a1', text: { body: 'red fox' }, num: { n: 1 } },
                  { id: 'a2', text: { body: 'red' }, num: { n: 4 } },
                ],
                [{ id: 'a3', text: { body: 'blue fox' }, num: { n: 3 } }],
              ]),
            refresh: async () => undefined,
          },
        ],
      },
      { concreteIndices: () => ['a'], writeIndex: () => undefined },
      { fieldType: (_i: IndexMetadata, n: string) => FIELDS[n], matchingFieldNames: () => [] } as unknown as MapperService,
      new QueryParserRegistry(BUILTIN_QUERY_PARSERS),
    );
    const ref = await single.search(req({ query: { match: { body: 'fox red' } } }, { indices: ['a'] }));
    expect(scores(dfs)).toEqual(scores(ref));
    expect(scores(qtf)).not.toEqual(scores(ref));
  });
});
