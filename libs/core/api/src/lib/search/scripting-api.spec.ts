import { coreModules } from '../node.js';
import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';
import { searchApiModule } from './index.js';

/** scripts in searches (script, script_score, function_score, script_fields, _script sort) and runtime fields */
describe('scripting and runtime fields (black box)', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);
  const ids = (r: { body: any }) => r.body.hits.hits.map((h: any) => h._id);
  const search = (body: unknown, index = 'shop') => call('POST', `/${index}/_search`, body);

  beforeAll(async () => {
    const features = coreModules().includes(searchApiModule) ? [] : [{ name: 'search-api', module: searchApiModule }];
    api = await startApiTestNode({ prefix: 'strata-scripting-', settings: { 'node.name': 'n1' }, features });
    const created = await call('PUT', '/shop', {
      mappings: {
        runtime: {
          day: { type: 'keyword', script: { source: "emit(doc['ts'].value.getDayOfWeek().toString())" } },
          total: { type: 'double', script: { source: "emit(doc['price'].value * doc['qty'].value)" } },
        },
        properties: {
          name: { type: 'keyword' },
          price: { type: 'double' },
          qty: { type: 'long' },
          ts: { type: 'date' },
          ip: { type: 'ip' },
          tags: { type: 'keyword' },
          loc: { type: 'keyword' },
        },
      },
    });
    if (created.status !== 200) throw new Error(created.text);
    const docs = [
      { name: 'apple', price: 1.5, qty: 10, ts: '2024-01-01T10:00:00Z', ip: '10.0.0.1', tags: ['fruit', 'red'], loc: '52.37,4.89', raw: 'x1' },
      { name: 'banana', price: 0.5, qty: 3, ts: '2024-01-02T10:00:00Z', ip: '10.0.0.2', tags: ['fruit'], loc: '48.85,2.35', raw: 'x2' },
      { name: 'carrot', price: 2, qty: 7, ts: '2024-01-06T10:00:00Z', tags: ['veg'], raw: 'x3' },
      { name: 'durian', price: 12, qty: 1, ts: '2024-01-08T10:00:00Z', ip: '192.168.1.9', raw: 'x4' },
    ];
    const lines = docs.flatMap((d, i) => [JSON.stringify({ index: { _id: String(i + 1) } }), JSON.stringify(d)]).join('\n') + '\n';
    const r = await call('POST', '/shop/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error('bulk failed: ' + r.text);
  });

  afterAll(() => api.close());

  it('script query: params, doc values, _source is not visible to filters', async () => {
    const r = await search({ query: { script: { script: { source: "doc['price'].value * doc['qty'].value > params.min", params: { min: 10 } } } }, _source: false });
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(['1', '3', '4']);
    expect(r.body.hits.hits.map((h: any) => h._score)).toEqual([1, 1, 1]);
    const both = await search({ query: { bool: { filter: [{ script: { script: "doc['tags'].size() > 1 || doc['ip'].empty" } }] } }, _source: false });
    expect(ids(both)).toEqual(['1', '3']);
  });

  it('script_score query: _score, saturation, decay functions, min_score', async () => {
    const r = await search({
      query: { script_score: { query: { terms: { tags: ['fruit', 'veg'] } }, script: { source: "saturation(doc['qty'].value, params.k) + _score", params: { k: 10 } } } },
      _source: false,
    });
    expect(r.body.hits.hits.map((h: any) => [h._id, h._score])).toEqual([
      ['1', 1.5],
      ['3', Math.fround(7 / 17 + 1)],
      ['2', Math.fround(3 / 13 + 1)],
    ]);
    const g = await search({ query: { script_score: { query: { match_all: {} }, script: "decayNumericGauss(10, 5, 0, 0.5, doc['qty'].value)", min_score: 0.6 } }, _source: false });
    expect(g.body.hits.hits.map((h: any) => [h._id, h._score])).toEqual([
      ['1', 1],
      ['3', Math.fround(Math.pow(0.5, 9 / 25))],
    ]);
    const d = await search({ query: { script_score: { query: { match_all: {} }, script: "decayDateLinear('2024-01-01T10:00:00Z', '10d', '0d', 0.5, doc['ts'].value)" } }, _source: false, size: 1 });
    expect(d.body.hits.hits[0]).toEqual({ _index: 'shop', _id: '1', _score: 1 });
  });

  it('script_score: a negative score fails the search like Elasticsearch', async () => {
    const r = await search({ query: { script_score: { query: { match_all: {} }, script: '0 - 1' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('search_phase_execution_exception');
    expect(r.body.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason: 'script_score script returned an invalid score [-1.0] for doc [0]. Must be a non-negative score!' }]);
  });

  it('function_score with script_score reads fields and combines with boost_mode', async () => {
    const r = await search({ query: { function_score: { query: { match_all: {} }, script_score: { script: { source: "doc['total'].value / params.d", params: { d: 5 } } }, boost_mode: 'replace' } }, _source: false });
    expect(r.body.hits.hits.map((h: any) => [h._id, h._score])).toEqual([
      ['1', 3],
      ['3', Math.fround(2.8)],
      ['4', Math.fround(2.4)],
      ['2', Math.fround(0.3)],
    ]);
    const neg = await search({ query: { function_score: { query: { match_all: {} }, script_score: { script: '-2' } } } });
    expect(neg.body.error.root_cause[0]).toEqual({ type: 'illegal_argument_exception', reason: 'script score function must not produce negative scores, but got: [-2.0]' });
  });

  it('script_fields: doc values, params._source, dates and lists', async () => {
    const r = await search({
      query: { ids: { values: ['1'] } },
      script_fields: {
        label: { script: { source: "params._source.name.toUpperCase() + '-' + params.sfx", params: { sfx: 'z' } } },
        when: { script: "doc['ts'].value" },
        tags: { script: "doc['tags']" },
        plus: { script: "doc['qty'].value + 1" },
      },
    });
    expect(r.body.hits.hits[0]).toEqual({ _index: 'shop', _id: '1', _score: 1, fields: { label: ['APPLE-z'], when: ['2024-01-01T10:00Z'], tags: ['fruit', 'red'], plus: [11] } });
  });

  it('_script sort: number and string', async () => {
    const n = await search({ sort: [{ _script: { type: 'number', script: { source: "doc['qty'].value % params.m", params: { m: 4 } }, order: 'desc' } }], _source: false });
    expect(n.body.hits.hits.map((h: any) => [h._id, h.sort])).toEqual([
      ['2', [3]],
      ['3', [3]],
      ['1', [2]],
      ['4', [1]],
    ]);
    const s = await search({ sort: [{ _script: { type: 'string', script: "params._source.name.substring(1)" } }], _source: false });
    expect(s.body.hits.hits.map((h: any) => [h._id, h.sort])).toEqual([
      ['2', ['anana']],
      ['3', ['arrot']],
      ['1', ['pple']],
      ['4', ['urian']],
    ]);
  });

  it('runtime fields from the mapping: query, sort, aggregate, fetch', async () => {
    const q = await search({ query: { term: { day: 'MONDAY' } }, fields: ['day', 'total'], _source: false, sort: [{ total: 'desc' }] });
    expect(q.body.hits.hits).toEqual([
      { _index: 'shop', _id: '1', _score: null, fields: { day: ['MONDAY'], total: [15] }, sort: [15] },
      { _index: 'shop', _id: '4', _score: null, fields: { day: ['MONDAY'], total: [12] }, sort: [12] },
    ]);
    const aggs = await search({ size: 0, aggs: { days: { terms: { field: 'day' } }, sum: { sum: { field: 'total' } } } });
    expect(aggs.body.aggregations).toEqual({
      days: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'MONDAY', doc_count: 2 }, { key: 'SATURDAY', doc_count: 1 }, { key: 'TUESDAY', doc_count: 1 }] },
      sum: { value: 42.5 },
    });
    const range = await search({ query: { range: { total: { gte: 12, lt: 15 } } }, _source: false });
    expect(ids(range)).toEqual(['3', '4']);
    const m = await call('GET', '/shop/_mapping');
    expect(m.body.shop.mappings.runtime).toEqual({
      day: { type: 'keyword', script: { source: "emit(doc['ts'].value.getDayOfWeek().toString())", lang: 'painless' } },
      total: { type: 'double', script: { source: "emit(doc['price'].value * doc['qty'].value)", lang: 'painless' } },
    });
  });

  it('runtime_mappings in the search body: every type, emit, _source fallback, shadowing', async () => {
    const r = await search({
      runtime_mappings: {
        qty2: { type: 'long', script: "emit(doc['qty'].value * 2)" },
        cheap: { type: 'boolean', script: "emit(doc['price'].value < 1)" },
        later: { type: 'date', format: 'yyyy-MM-dd', script: "emit(doc['ts'].value.toInstant().toEpochMilli() + 86400000L)" },
        net: { type: 'ip', script: "if (!doc['ip'].empty) { String[] p = doc['ip'].value.splitOnToken('.'); emit(p[0] + '.' + p[1] + '.0.0') }" },
        words: { type: 'keyword', script: "for (String t : doc['tags']) { emit(t); emit(t.substring(0, 1)) }" },
        pos: { type: 'geo_point', script: "if (params._source.loc != null) { String[] p = params._source.loc.splitOnToken(','); emit(Double.parseDouble(p[0]), Double.parseDouble(p[1])) }" },
        raw: { type: 'keyword' },
        name: { type: 'keyword', script: "emit(params._source.name.substring(0, 2))" },
        parts: { type: 'composite', script: "emit(['first': params._source.name.substring(0, 1), 'len': params._source.name.length()])", fields: { first: { type: 'keyword' }, len: { type: 'long' } } },
      },
      query: { bool: { filter: [{ term: { cheap: false } }, { range: { qty2: { gte: 10 } } }] } },
      fields: ['qty2', 'cheap', 'later', 'net', 'words', 'pos', 'raw', 'name', 'parts.*'],
      _source: false,
      sort: ['qty2'],
    });
    expect(r.status).toBe(200);
    expect(r.body.hits.hits.map((h: any) => [h._id, h.fields])).toEqual([
      ['3', { qty2: [14], cheap: [false], later: ['2024-01-07'], words: ['veg', 'v'], raw: ['x3'], name: ['ca'], 'parts.first': ['c'], 'parts.len': [6] }],
      ['1', { qty2: [20], cheap: [false], later: ['2024-01-02'], net: ['10.0.0.0'], words: ['fruit', 'f', 'red', 'r'], pos: [{ type: 'Point', coordinates: [4.89, 52.37] }], raw: ['x1'], name: ['ap'], 'parts.first': ['a'], 'parts.len': [5] }],
    ]);
    const agg = await search({ size: 0, runtime_mappings: { first: { type: 'keyword', script: "emit(params._source.name.substring(0, 1))" } }, aggs: { f: { terms: { field: 'first', order: { _key: 'desc' } } } } });
    expect(agg.body.aggregations.f.buckets).toEqual([
      { key: 'd', doc_count: 1 },
      { key: 'c', doc_count: 1 },
      { key: 'b', doc_count: 1 },
      { key: 'a', doc_count: 1 },
    ]);
    const shadow = await search({ runtime_mappings: { name: { type: 'keyword', script: "emit('x' + params._source.name)" } }, query: { term: { name: 'xbanana' } }, _source: false });
    expect(ids(shadow)).toEqual(['2']);
  });

  it('range, prefix, wildcard, regexp and fuzzy queries on a runtime keyword scan its values', async () => {
    // (words: apple → [fruit, f, red, r], banana → [fruit, f], carrot → [veg, v], durian → none)
    const runtime_mappings = { words: { type: 'keyword', script: "for (String t : doc['tags']) { emit(t); emit(t.substring(0, 1)) }" } };
    const q = async (query: unknown) => ids(await search({ runtime_mappings, query, _source: false, sort: ['_doc'] }));
    expect(await q({ range: { words: {} } })).toEqual(['1', '2', '3']);
    expect(await q({ range: { words: { gt: 'fruit', lte: 'red' } } })).toEqual(['1']);
    expect(await q({ range: { words: { gte: 'g' } } })).toEqual(['1', '3']);
    expect(await q({ prefix: { words: 'fr' } })).toEqual(['1', '2']);
    expect(await q({ wildcard: { words: '?e?' } })).toEqual(['1', '3']);
    expect(await q({ regexp: { words: 'v.*' } })).toEqual(['3']);
    expect(await q({ fuzzy: { words: { value: 'reg', fuzziness: 1 } } })).toEqual(['1', '3']);
  });

  it('runtime field errors: emit type, too many values, cycles, bad definitions', async () => {
    const wrongType = await search({ runtime_mappings: { r: { type: 'long', script: "emit('x')" } }, query: { exists: { field: 'name' } }, fields: ['r'] });
    expect(wrongType.status).toBe(400);
    expect(JSON.stringify(wrongType.body)).toContain('"caused_by":{"type":"class_cast_exception","reason":"Cannot cast from [java.lang.String] to [long]."}');
    const many = await search({ runtime_mappings: { r: { type: 'long', script: 'for (int i = 0; i < 101; i++) { emit(i) }' } }, aggs: { m: { max: { field: 'r' } } }, size: 0 });
    expect(many.status).toBe(400);
    expect(many.body.error.root_cause[0]).toMatchObject({ type: 'script_exception', reason: 'runtime error' });
    expect(many.body.error.caused_by.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'Runtime field [r] is emitting [101] values while the maximum number of values allowed is [100]' });
    const cycle = await search({ runtime_mappings: { a: { type: 'long', script: "emit(doc['b'].value)" }, b: { type: 'long', script: "emit(doc['a'].value)" } }, size: 0, aggs: { m: { max: { field: 'a' } } } });
    expect(JSON.stringify(cycle.body)).toContain('Cyclic dependency detected while resolving runtime fields: a -> b -> a');
    const badType = await search({ runtime_mappings: { r: { type: 'text' } } });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatchObject({ type: 'mapper_parsing_exception', reason: 'No handler for type [text] declared on runtime field [r]' });
    const badParam = await search({ runtime_mappings: { r: { type: 'long', foo: 1 } } });
    expect(badParam.body.error.reason).toBe('unknown parameter [foo] on runtime field [r] of type [long]');
    const badScript = await call('PUT', '/shop/_mapping', { runtime: { bad: { type: 'long', script: 'emit(' } } });
    expect(badScript.status).toBe(400);
    expect(badScript.body.error).toMatchObject({ type: 'mapper_parsing_exception', reason: 'compile error', caused_by: { type: 'script_exception', reason: 'compile error' } });
  });

  it('aggregation scripts: terms, value scripts, metrics, histogram', async () => {
    const r = await search({
      size: 0,
      aggs: {
        first: { terms: { script: { source: "params._source.name.substring(0, params.n)", params: { n: 1 } }, order: { _key: 'asc' } } },
        doubled: { terms: { field: 'qty', script: '_value * 2', order: { _key: 'asc' } } },
        avg_total: { avg: { script: "doc['price'].value * doc['qty'].value" } },
        max_plus: { max: { field: 'price', script: { source: '_value + params.d', params: { d: 100 } } } },
        h: { histogram: { script: "doc['qty'].value", interval: 5 } },
        kinds: { terms: { script: "doc['tags']", size: 10 } },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.aggregations).toEqual({
      first: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: ['a', 'b', 'c', 'd'].map((key) => ({ key, doc_count: 1 })) },
      doubled: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [2, 6, 14, 20].map((key) => ({ key, doc_count: 1 })) },
      avg_total: { value: 42.5 / 4 },
      max_plus: { value: 112 },
      h: { buckets: [{ key: 0, doc_count: 2 }, { key: 5, doc_count: 1 }, { key: 10, doc_count: 1 }] },
      kinds: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'fruit', doc_count: 2 }, { key: 'red', doc_count: 1 }, { key: 'veg', doc_count: 1 }] },
    });
  });

  it('bucket_script, bucket_selector and scripted_metric', async () => {
    const r = await search({
      size: 0,
      aggs: {
        by_day: {
          terms: { field: 'day', order: { _key: 'asc' } },
          aggs: {
            revenue: { sum: { field: 'total' } },
            items: { sum: { field: 'qty' } },
            per_item: { bucket_script: { buckets_path: { r: 'revenue', n: 'items' }, script: 'params.r / params.n' } },
            big: { bucket_selector: { buckets_path: { r: 'revenue' }, script: { source: 'params.r > params.min', params: { min: 5 } } } },
          },
        },
        profit: {
          scripted_metric: {
            init_script: 'state.totals = []',
            map_script: "state.totals.add(doc['price'].value * doc['qty'].value)",
            combine_script: 'double t = 0; for (x in state.totals) { t += x } return t',
            reduce_script: 'double t = 0; for (s in states) { t += s } return t',
          },
        },
        counts: {
          scripted_metric: {
            params: { unit: 2 },
            map_script: "state.n = (state.n ?: 0) + params.unit",
            combine_script: 'return state.n',
            reduce_script: "def out = [:]; out.total = 0; for (s in states) { out.total += s } return out",
          },
        },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.aggregations.by_day.buckets).toEqual([
      { key: 'MONDAY', doc_count: 2, revenue: { value: 27 }, items: { value: 11 }, per_item: { value: 27 / 11 } },
      { key: 'SATURDAY', doc_count: 1, revenue: { value: 14 }, items: { value: 7 }, per_item: { value: 2 } },
    ]);
    expect(r.body.aggregations.profit).toEqual({ value: 42.5 });
    expect(r.body.aggregations.counts).toEqual({ value: { total: 8 } });
    const bad = await search({ size: 0, aggs: { m: { scripted_metric: { map_script: 'state.x = 1', reduce_script: 'states' } } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.root_cause[0]).toEqual({ type: 'illegal_argument_exception', reason: '[combine_script] must not be null: [m]' });
  });

  it('a runaway script is stopped by the loop counter, the node keeps serving', async () => {
    const r = await search({ query: { script: { script: 'int i = 0; while (true) { i++ } return true;' } } });
    expect(r.status).toBe(400);
    expect(r.body.error.failed_shards[0].reason.caused_by).toEqual({ type: 'painless_error', reason: 'The maximum number of statements that can be executed in a loop has been reached.' });
    expect(r.body.error.root_cause[0]).toMatchObject({ type: 'script_exception', reason: 'runtime error', lang: 'painless', script_stack: ['while (true)', '^---- HERE'] });
    const ok = await search({ query: { match_all: {} }, size: 0 });
    expect(ok.body.hits.total).toEqual({ value: 4, relation: 'eq' });
  });

  it('compile errors name the script position', async () => {
    const r = await search({ query: { script: { script: "doc['price'].value >" } } });
    expect(r.status).toBe(400);
    expect(r.body.error.root_cause).toEqual([{ type: 'query_shard_exception', reason: 'failed to create query: compile error', index_uuid: expect.any(String), index: 'shop' }]);
    expect(r.body.error.failed_shards[0].reason.caused_by).toEqual({
      type: 'script_exception',
      reason: 'compile error',
      script_stack: ["doc['price'].value >", '                    ^---- HERE'],
      script: "doc['price'].value >",
      lang: 'painless',
      position: { offset: 20, start: 0, end: 20 },
      caused_by: { type: 'illegal_argument_exception', reason: 'unexpected end of script.' },
    });
  });

  it('a terms aggregation over a script without value_type has keyword keys, the Java toString of the values (ES)', async () => {
    const r = await search({
      size: 0,
      aggs: {
        prices: { terms: { script: "doc['price'].value", order: { _key: 'asc' } } },
        qty: { terms: { script: "doc['qty'].value", order: { _key: 'asc' } } },
        typed: { terms: { script: "doc['qty'].value", value_type: 'long', order: { _key: 'asc' } } },
      },
    });
    expect(r.status).toBe(200);
    // a double field's 2 is the Double 2.0: key "2.0", as Elasticsearch's ScriptBytesValues (Object#toString)
    expect(r.body.aggregations.prices.buckets.map((b: any) => b.key)).toEqual(['0.5', '1.5', '12.0', '2.0']);
    expect(r.body.aggregations.qty.buckets.map((b: any) => b.key)).toEqual(['1', '10', '3', '7']);
    expect(r.body.aggregations.typed.buckets.map((b: any) => b.key)).toEqual([1, 3, 7, 10]);
  });

  it('a script failing in the fetch phase fails the shard: search_phase_execution_exception, the script error as root cause', async () => {
    const r = await search({ query: { match_all: {} }, script_fields: { x: { script: "doc['nope'].value" } } });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ type: 'search_phase_execution_exception', reason: 'all shards failed', phase: 'query', grouped: true });
    expect(r.body.error.root_cause[0]).toMatchObject({ type: 'script_exception', reason: 'runtime error', script: "doc['nope'].value" });
    expect(r.body.error.failed_shards[0]).toMatchObject({ shard: 0, index: 'shop', node: expect.any(String), reason: { type: 'script_exception', caused_by: { type: 'illegal_argument_exception', reason: 'No field found for [nope] in mapping' } } });
    // ignore_failure keeps the hit
    const ok = await search({ query: { ids: { values: ['1'] } }, script_fields: { x: { script: "doc['nope'].value", ignore_failure: true } } });
    expect(ok.body.hits.hits.map((h: any) => h._id)).toEqual(['1']);
  });
});
