import { startConformanceHost, type Conformance } from './harness.js';

/**
 * The wrong answers of issue 21, each reproduced exactly as reported and answered as Elasticsearch 8.x does
 * (facts from ES's REST API spec, YAML REST tests and sources named in each test).
 */
describe('conformance: issue 21 reproductions', () => {
  let es: Conformance;
  beforeAll(async () => {
    es = await startConformanceHost();
    await es.req('PUT', '/t', { mappings: { properties: { txt: { type: 'text' }, kw: { type: 'keyword' }, ip: { type: 'ip' } } } });
    const b = await es.bulk('/t/_bulk?refresh=true', [
      { index: { _id: '1' } },
      { txt: 'quick fox', kw: 'a', ip: '10.0.0.1' },
      { index: { _id: '2' } },
      { kw: 'a', ip: '::1' },
      { index: { _id: '3' } },
      { kw: 'b', ip: '2001:db8::1' },
    ]);
    expect(b.json.errors).toBe(false);
  });
  afterAll(() => es.close());

  const hitIds = (r: { json: { hits: { hits: { _id: string }[] } } }): string[] => r.json.hits.hits.map((h) => h._id);

  describe('1. minimum_should_match above the optional clause count matches nothing (Lucene rewrites to match-none)', () => {
    it('bool with one should clause and minimum_should_match 2', async () => {
      const r = await es.req('GET', '/t/_search', { query: { bool: { should: [{ term: { txt: 'fox' } }], minimum_should_match: 2 } } });
      expect(r.status).toBe(200);
      expect(r.json.hits.total).toEqual({ value: 0, relation: 'eq' });
      expect(r.json.hits.hits).toEqual([]);
    });
    it('match with two terms and minimum_should_match 3 (and "150%")', async () => {
      for (const msm of [3, '150%']) {
        const r = await es.req('GET', '/t/_search', { query: { match: { txt: { query: 'quick fox', minimum_should_match: msm } } } });
        expect(r.json.hits.total).toEqual({ value: 0, relation: 'eq' });
      }
      // exactly the clause count still matches
      const two = await es.req('GET', '/t/_search', { query: { match: { txt: { query: 'quick fox', minimum_should_match: 2 } } } });
      expect(hitIds(two)).toEqual(['1']);
    });
    it('percentages are truncated in float arithmetic as Java does ("100%" of 7 clauses is 7)', async () => {
      const words = ['quick', 'fox', 'a1', 'a2', 'a3', 'a4', 'a5'];
      const r = await es.req('GET', '/t/_search', { query: { match: { txt: { query: words.join(' '), minimum_should_match: '100%' } } } });
      expect(r.json.hits.total.value).toBe(0);
      const r2 = await es.req('GET', '/t/_search', { query: { match: { txt: { query: words.join(' '), minimum_should_match: '28%' } } } });
      expect(hitIds(r2)).toEqual(['1']); // 7 * 28% = 1.96 -> 1
    });
  });

  it('2. sum_other_doc_count does not count buckets dropped by min_doc_count', async () => {
    const r = await es.req('GET', '/t/_search', { size: 0, aggs: { t: { terms: { field: 'kw', min_doc_count: 2 } } } });
    expect(r.json.aggregations.t).toEqual({ doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'a', doc_count: 2 }] });
    // buckets pushed out of the top `size` still count
    const top1 = await es.req('GET', '/t/_search', { size: 0, aggs: { t: { terms: { field: 'kw', size: 1 } } } });
    expect(top1.json.aggregations.t).toEqual({ doc_count_error_upper_bound: 0, sum_other_doc_count: 1, buckets: [{ key: 'a', doc_count: 2 }] });
  });

  it('3. terms on an ip field orders _key by address (IPv4 mapped into IPv6), like the sort on ip', async () => {
    const desc = await es.req('GET', '/t/_search', { size: 0, aggs: { t: { terms: { field: 'ip', order: { _key: 'desc' } } } } });
    expect(desc.json.aggregations.t.buckets.map((b: { key: string }) => b.key)).toEqual(['2001:db8::1', '10.0.0.1', '::1']);
    const asc = await es.req('GET', '/t/_search', { size: 0, aggs: { t: { terms: { field: 'ip', order: { _key: 'asc' } } } } });
    expect(asc.json.aggregations.t.buckets.map((b: { key: string }) => b.key)).toEqual(['::1', '10.0.0.1', '2001:db8::1']);
    // equal counts tie-break on the key in address order too
    const byCount = await es.req('GET', '/t/_search', { size: 0, aggs: { t: { terms: { field: 'ip' } } } });
    expect(byCount.json.aggregations.t.buckets.map((b: { key: string }) => b.key)).toEqual(['::1', '10.0.0.1', '2001:db8::1']);
    const sorted = await es.req('GET', '/t/_search', { sort: [{ ip: 'desc' }], _source: false });
    expect(hitIds(sorted)).toEqual(['3', '1', '2']);
  });

  it('4. terms query with CIDR blocks on an ip field matches their ranges (v4 and v6)', async () => {
    const r = await es.req('GET', '/t/_search', { query: { terms: { ip: ['10.0.0.0/8'] } } });
    expect(r.status).toBe(200);
    expect(hitIds(r)).toEqual(['1']);
    expect(r.json.hits.hits[0]._score).toBe(1);
    const mixed = await es.req('GET', '/t/_search', { query: { terms: { ip: ['2001:db8::/32', '::1'] } }, sort: ['_doc'] });
    expect(hitIds(mixed).sort()).toEqual(['2', '3']);
    const term = await es.req('GET', '/t/_search', { query: { term: { ip: '2001:db8::/32' } } });
    expect(hitIds(term)).toEqual(['3']);
    const bad = await es.req('GET', '/t/_search', { query: { terms: { ip: ['10.0.0.0/33'] } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.root_cause[0]).toMatchObject({ type: 'query_shard_exception' });
    expect(bad.json.error.caused_by.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'Expected [ip/prefix] but was [10.0.0.0/33]' });
  });

  describe('5. _forcemerge', () => {
    it('POST /{index}/_forcemerge?max_num_segments=1 merges every shard to one segment', async () => {
      await es.req('PUT', '/fm', { settings: { number_of_shards: 2, number_of_replicas: 0 } });
      for (let i = 0; i < 6; i++) await es.req('PUT', `/fm/_doc/${i}?refresh=true`, { n: i });
      await es.req('DELETE', '/fm/_doc/0?refresh=true');
      const r = await es.req('POST', '/fm/_forcemerge?max_num_segments=1');
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ _shards: { total: 2, successful: 2, failed: 0 } });
      const stats = await es.req('GET', '/fm/_stats/segments');
      expect(stats.json._all.primaries.segments.count).toBe(2);
      const c = await es.req('GET', '/fm/_count');
      expect(c.json.count).toBe(5);
    });
    it('POST /_forcemerge (all indices), default max_num_segments, replica shards counted in total', async () => {
      const r = await es.req('POST', '/t/_forcemerge');
      expect(r.json).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
      const all = await es.req('POST', '/_forcemerge?flush=false');
      expect(all.status).toBe(200);
      expect(all.json._shards.failed).toBe(0);
    });
    it('only_expunge_deletes with max_num_segments is an action_request_validation_exception (ES YAML indices.forcemerge/10_basic)', async () => {
      const r = await es.req('POST', '/t/_forcemerge?max_num_segments=10&only_expunge_deletes=true');
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: cannot set only_expunge_deletes and max_num_segments at the same time, those two parameters are mutually exclusive;',
      });
    });
    it('wait_for_completion=false answers a task id', async () => {
      const r = await es.req('POST', '/_forcemerge?max_num_segments=1&wait_for_completion=false');
      expect(r.status).toBe(200);
      expect(Object.keys(r.json)).toEqual(['task']);
      expect(r.json.task).toMatch(/^[\w-]+:\d+$/);
      // the task's result is stored: GET /_tasks/{id} answers completed with the force merge's response
      let t = await es.req('GET', `/_tasks/${r.json.task}`);
      for (let i = 0; i < 50 && t.json.completed !== true; i++) {
        await new Promise((res) => setTimeout(res, 20));
        t = await es.req('GET', `/_tasks/${r.json.task}?wait_for_completion=true`);
      }
      expect(t.status).toBe(200);
      expect(t.json.completed).toBe(true);
      expect(t.json.task.action).toBe('indices:admin/forcemerge');
      expect(t.json.response._shards.failed).toBe(0);
    });
    it('a missing index and a bad parameter are Elasticsearch errors', async () => {
      const missing = await es.req('POST', '/nope/_forcemerge');
      expect(missing.status).toBe(404);
      expect(missing.json.error.type).toBe('index_not_found_exception');
      const bad = await es.req('POST', '/t/_forcemerge?max_num_segments=x');
      expect(bad.status).toBe(400);
      expect(bad.json.error.reason).toBe('Failed to parse int parameter [max_num_segments] with value [x]');
      const unknown = await es.req('POST', '/t/_forcemerge?foo=1');
      expect(unknown.status).toBe(400);
      expect(unknown.json.error.type).toBe('illegal_argument_exception');
    });
  });

  describe('settings and root endpoint', () => {
    it('refresh_interval -1 as a JSON number, at creation and through _settings', async () => {
      const c = await es.req('PUT', '/ri1', { settings: { refresh_interval: -1 } });
      expect(c.json).toEqual({ acknowledged: true, shards_acknowledged: true, index: 'ri1' });
      const g = await es.req('GET', '/ri1/_settings/index.refresh_interval');
      expect(g.json).toEqual({ ri1: { settings: { index: { refresh_interval: '-1' } } } });
      await es.req('PUT', '/ri2');
      const u = await es.req('PUT', '/ri2/_settings', { index: { refresh_interval: -1 } });
      expect(u.json).toEqual({ acknowledged: true });
      // a number is its text, as in ES Settings: 1000 has no unit
      const n = await es.req('PUT', '/ri2/_settings', { index: { refresh_interval: 1000 } });
      expect(n.status).toBe(400);
      expect(n.json.error.reason).toBe('failed to parse setting [index.refresh_interval] with value [1000] as a time value: unit is missing or unrecognized');
    });
    it('GET / is pretty-printed unless pretty=false', async () => {
      const r = await es.req('GET', '/');
      expect(r.text.startsWith('{\n  "name" : ')).toBe(true);
      expect(r.text.endsWith('}\n')).toBe(true);
      const flat = await es.req('GET', '/?pretty=false');
      expect(flat.text.startsWith('{"name":')).toBe(true);
      expect(JSON.parse(flat.text)).toEqual(r.json);
    });
  });

  describe('paging', () => {
    beforeAll(async () => {
      await es.req('PUT', '/pg3', {
        settings: { number_of_shards: 3 },
        mappings: { properties: { n: { type: 'long' }, k: { type: 'keyword' }, nd: { type: 'long', doc_values: false } } },
      });
      await es.req('PUT', '/pg1', {
        settings: { number_of_shards: 1 },
        mappings: { properties: { n: { type: 'long' }, k: { type: 'keyword' }, nd: { type: 'long', doc_values: false } } },
      });
      const lines: unknown[] = [];
      for (let i = 1; i <= 6; i++) lines.push({ index: { _id: String(i) } }, { n: i, k: `k${i}`, nd: i });
      await es.bulk('/pg3/_bulk?refresh=true', lines);
      await es.bulk('/pg1/_bulk?refresh=true', lines);
    });

    it('sorting on _shard_doc without a PIT is a 400 action_request_validation_exception', async () => {
      const r = await es.req('GET', '/pg3/_search', { sort: ['_shard_doc'] });
      expect(r.status).toBe(400);
      expect(r.json.error).toEqual({
        root_cause: [{ type: 'action_request_validation_exception', reason: 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];' }],
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: [_shard_doc] sort field cannot be used without [point in time];',
      });
    });

    it('a PIT search_after with only the explicit sort values is accepted (ES YAML search/350_point_in_time)', async () => {
      const pit = (await es.req('POST', '/pg3/_pit?keep_alive=1m')).json.id;
      const r = await es.req('GET', '/_search', { size: 2, pit: { id: pit }, sort: [{ n: 'asc' }], search_after: [2] });
      expect(r.status).toBe(200);
      expect(hitIds(r)).toEqual(['3', '4']);
      expect(r.json.hits.hits.map((h: { sort: unknown[] }) => h.sort)).toEqual([[3], [4]]);
      // with the tiebreaker value the tiebreaker is added as usual
      const full = await es.req('GET', '/_search', { size: 1, pit: { id: pit }, sort: [{ n: 'asc' }] });
      expect(full.json.hits.hits[0].sort).toHaveLength(2);
      const next = await es.req('GET', '/_search', { size: 1, pit: { id: pit }, sort: [{ n: 'asc' }], search_after: full.json.hits.hits[0].sort });
      expect(hitIds(next)).toEqual(['2']);
      await es.req('DELETE', '/_pit', { id: pit });
    });

    it('DELETE /_pit for an already-closed PIT is 404 {"succeeded":false,"num_freed":0}; a close frees one context per shard', async () => {
      const pit = (await es.req('POST', '/pg3/_pit?keep_alive=1m')).json.id;
      const first = await es.req('DELETE', '/_pit', { id: pit });
      expect(first.status).toBe(200);
      expect(first.json).toEqual({ succeeded: true, num_freed: 3 });
      const again = await es.req('DELETE', '/_pit', { id: pit });
      expect(again.status).toBe(404);
      expect(again.json).toEqual({ succeeded: false, num_freed: 0 });
    });

    it('clearing a scroll over several shards reports one freed context per shard', async () => {
      const sid = (await es.req('POST', '/pg3/_search?scroll=1m', { size: 1 })).json._scroll_id;
      const r = await es.req('DELETE', '/_search/scroll', { scroll_id: sid });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ succeeded: true, num_freed: 3 });
      const again = await es.req('DELETE', '/_search/scroll', { scroll_id: sid });
      expect(again.status).toBe(404);
      expect(again.json).toEqual({ succeeded: true, num_freed: 0 });
    });

    it('request_cache=true on a scroll is a 400', async () => {
      const r = await es.req('POST', '/pg3/_search?scroll=1m&request_cache=true', { size: 1 });
      expect(r.status).toBe(400);
      expect(r.json.error).toMatchObject({
        type: 'action_request_validation_exception',
        reason: 'Validation Failed: 1: [request_cache] cannot be used in a scroll context;',
      });
    });

    it('slicing on a keyword field, a numeric field without doc_values or a missing field is refused (SliceBuilder)', async () => {
      for (const [field, reason] of [
        ['k', 'cannot load numeric doc values on k'],
        ['nd', 'cannot load numeric doc values on nd'],
        ['nope', 'field nope not found'],
      ]) {
        const r = await es.req('POST', '/pg1/_search?scroll=1m', { size: 1, slice: { id: 0, max: 2, field } });
        expect(r.status).toBe(400);
        expect(r.json.error.type).toBe('search_phase_execution_exception');
        expect(r.json.error.root_cause).toEqual([{ type: 'illegal_argument_exception', reason }]);
      }
      const ok = await es.req('POST', '/pg1/_search?scroll=1m', { size: 10, slice: { id: 0, max: 2, field: 'n' } });
      expect(ok.status).toBe(200);
    });
  });

  describe('ingest', () => {
    it('an empty pipeline-level on_failure names the option on_failure', async () => {
      const r = await es.req('PUT', '/_ingest/pipeline/p1', { processors: [{ set: { field: 'a', value: 1 } }], on_failure: [] });
      expect(r.status).toBe(400);
      expect(r.json.error).toEqual({
        root_cause: [{ type: 'parse_exception', reason: 'pipeline [p1] cannot have an empty on_failure option defined' }],
        type: 'parse_exception',
        reason: 'pipeline [p1] cannot have an empty on_failure option defined',
      });
    });

    it('set with copy_from copies objects, arrays and scalars with their types; ignore_empty_value skips a missing source', async () => {
      const r = await es.req('POST', '/_ingest/pipeline/_simulate', {
        pipeline: {
          processors: [
            { set: { field: 'o2', copy_from: 'o' } },
            { set: { field: 'a2', copy_from: 'a' } },
            { set: { field: 'n2', copy_from: 'n' } },
            { set: { field: 'b2', copy_from: 'b' } },
            { set: { field: 'z2', copy_from: 'z' } },
            { set: { field: 'm2', copy_from: 'missing', ignore_empty_value: true } },
            { set: { field: 'o.y', value: 2 } },
          ],
        },
        docs: [{ _source: { o: { x: 1 }, a: [1, '2', { c: true }], n: 1.5, b: false, z: null } }],
      });
      expect(r.json.docs[0].doc._source).toEqual({
        o: { x: 1, y: 2 },
        a: [1, '2', { c: true }],
        n: 1.5,
        b: false,
        z: null,
        o2: { x: 1 },
        a2: [1, '2', { c: true }],
        n2: 1.5,
        b2: false,
        z2: null,
      });
      const missing = await es.req('POST', '/_ingest/pipeline/_simulate', {
        pipeline: { processors: [{ set: { field: 'm2', copy_from: 'missing' } }] },
        docs: [{ _source: {} }],
      });
      expect(missing.json.docs[0].error).toMatchObject({ type: 'illegal_argument_exception', reason: 'field [missing] not present as part of path [missing]' });
    });

    it('a pipeline processor naming a missing pipeline fails at run time with illegal_state_exception', async () => {
      expect((await es.req('PUT', '/_ingest/pipeline/outer', { processors: [{ pipeline: { name: 'nope' } }] })).json).toEqual({ acknowledged: true });
      const sim = await es.req('POST', '/_ingest/pipeline/outer/_simulate', { docs: [{ _source: {} }] });
      expect(sim.json.docs[0].error).toMatchObject({
        type: 'illegal_state_exception',
        reason: 'Pipeline processor configured for non-existent pipeline [nope]',
      });
      const idx = await es.req('PUT', '/ing/_doc/1?pipeline=outer', { x: 1 });
      expect(idx.status).toBe(500);
      expect(idx.json.error.type).toBe('illegal_state_exception');
    });

    it('_bulk reports ingest_took when pipelines ran (and not otherwise)', async () => {
      await es.req('PUT', '/_ingest/pipeline/okp', { processors: [{ set: { field: 'y', value: 2 } }] });
      const withPipeline = await es.bulk('/ing/_bulk?pipeline=okp', [{ index: { _id: '2' } }, { x: 1 }]);
      expect(Object.keys(withPipeline.json)).toEqual(['took', 'ingest_took', 'errors', 'items']);
      expect(typeof withPipeline.json.ingest_took).toBe('number');
      const failing = await es.bulk('/ing/_bulk?pipeline=outer', [{ index: { _id: '3' } }, { x: 1 }]);
      expect(failing.json.errors).toBe(true);
      expect(typeof failing.json.ingest_took).toBe('number');
      const without = await es.bulk('/ing/_bulk', [{ index: { _id: '4' } }, { x: 1 }]);
      expect(Object.keys(without.json)).toEqual(['took', 'errors', 'items']);
    });
  });

  it('keyword sort, terms _key order and range compare UTF-8 bytes, not UTF-16 code units (found by the oracle)', async () => {
    await es.req('PUT', '/u8', { settings: { number_of_shards: 2 }, mappings: { properties: { k: { type: 'keyword' } } } });
    await es.bulk('/u8/_bulk?refresh=true', [{ index: { _id: '1' } }, { k: '😀' }, { index: { _id: '2' } }, { k: ['ｚ', 'a'] }, { index: { _id: '3' } }, { k: 'b' }]);
    const asc = await es.req('POST', '/u8/_search', { sort: [{ k: { order: 'asc', mode: 'max' } }] });
    expect(hitIds(asc)).toEqual(['3', '2', '1']);
    const after = await es.req('POST', '/u8/_search', { sort: [{ k: { order: 'asc', mode: 'max' } }], search_after: ['ｚ'] });
    expect(hitIds(after)).toEqual(['1']);
    const agg = await es.req('POST', '/u8/_search', { size: 0, aggs: { t: { terms: { field: 'k', order: { _key: 'asc' } } } } });
    expect(agg.json.aggregations.t.buckets.map((b: { key: string }) => b.key)).toEqual(['a', 'b', 'ｚ', '😀']);
    const range = await es.req('POST', '/u8/_search', { query: { range: { k: { lt: 'ｚ' } } } });
    expect(hitIds(range).sort()).toEqual(['2', '3']);
    await es.req('PUT', '/u8/_doc/4?refresh=true', { k: ['😀', 'ｚ', 'a'] });
    const dv = await es.req('POST', '/u8/_search', { query: { ids: { values: ['4'] } }, docvalue_fields: ['k'], _source: false });
    expect(dv.json.hits.hits[0].fields).toEqual({ k: ['a', 'ｚ', '😀'] });
  });

  describe('mappings and documents', () => {
    it('dynamic date detection does not turn numeric strings into dates', async () => {
      await es.req('PUT', '/dd/_doc/1?refresh=true', { s: '2024', t: '1234567890', f: '1.5', u: '2024-01-01' });
      const m = await es.req('GET', '/dd/_mapping');
      const text = { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } };
      expect(m.json.dd.mappings.properties).toEqual({ s: text, t: text, f: text, u: { type: 'date' } });
      // with numeric_detection they become numbers instead
      await es.req('PUT', '/dn', { mappings: { numeric_detection: true } });
      await es.req('PUT', '/dn/_doc/1', { s: '2024', f: '1.5' });
      expect((await es.req('GET', '/dn/_mapping')).json.dn.mappings.properties).toEqual({ s: { type: 'long' }, f: { type: 'float' } });
    });

    it('a mapping with an empty field name: mapper_parsing_exception caused by illegal_argument_exception', async () => {
      const r = await es.req('PUT', '/em', { mappings: { properties: { '': { type: 'keyword' } } } });
      expect(r.status).toBe(400);
      expect(r.json.error).toEqual({
        root_cause: [{ type: 'illegal_argument_exception', reason: 'field name cannot be an empty string' }],
        type: 'mapper_parsing_exception',
        reason: 'Failed to parse mapping: field name cannot be an empty string',
        caused_by: { type: 'illegal_argument_exception', reason: 'field name cannot be an empty string' },
      });
      const blank = await es.req('PUT', '/em', { mappings: { properties: { ' ': { type: 'keyword' } } } });
      expect(blank.json.error.caused_by).toEqual({ type: 'illegal_argument_exception', reason: 'field name cannot contain only whitespaces' });
    });

    it('an _update body with an unknown field: x_content_parse_exception at the key', async () => {
      await es.req('PUT', '/ud/_doc/1', { a: 1 });
      const r = await es.req('POST', '/ud/_update/1', '{"doc":{"a":2},"foo":1}');
      expect(r.status).toBe(400);
      expect(r.json.error).toEqual({
        root_cause: [{ type: 'x_content_parse_exception', reason: '[1:16] [UpdateRequest] unknown field [foo]' }],
        type: 'x_content_parse_exception',
        reason: '[1:16] [UpdateRequest] unknown field [foo]',
      });
      const docNumber = await es.req('POST', '/ud/_update/1', '{"doc":1}');
      expect(docNumber.json.error.reason).toBe("[1:8] [UpdateRequest] doc doesn't support values of type: VALUE_NUMBER");
      // in _bulk the update body is parsed with the request: the whole bulk fails
      const bulk = await es.bulk('/_bulk', ['{"update":{"_index":"ud","_id":"1"}}', '{"doc":{"a":3},"zz":2}']);
      expect(bulk.status).toBe(400);
      expect(bulk.json.error).toMatchObject({ type: 'x_content_parse_exception', reason: '[1:16] [UpdateRequest] unknown field [zz]' });
    });

    it('a _bulk item with an empty _id fails alone with illegal_argument_exception; empty ids of update/delete fail the request', async () => {
      const r = await es.bulk('/_bulk', [{ index: { _index: 'ud', _id: '' } }, { x: 1 }, { index: { _index: 'ud', _id: 'x' } }, { x: 2 }]);
      expect(r.status).toBe(200);
      expect(r.json.errors).toBe(true);
      expect(r.json.items[0]).toEqual({
        index: { _index: 'ud', _id: '', status: 400, error: { type: 'illegal_argument_exception', reason: 'if _id is specified it must not be empty' } },
      });
      expect(r.json.items[1].index.result).toBe('created');
      const del = await es.bulk('/_bulk', [{ delete: { _index: 'ud', _id: '' } }]);
      expect(del.status).toBe(400);
      expect(del.json.error).toMatchObject({ type: 'action_request_validation_exception', reason: 'Validation Failed: 1: id is missing;' });
    });

    it('a _bulk item with an id over 512 bytes fails the whole request (BulkRequest.validate), every item listed', async () => {
      const long = 'x'.repeat(513);
      const r = await es.bulk('/_bulk', [{ index: { _index: 'ud', _id: 'ok' } }, { a: 1 }, { index: { _index: 'ud', _id: long } }, { a: 1 }, { delete: { _index: 'ud', _id: long + 'y' } }]);
      expect(r.status).toBe(400);
      expect(r.json.error.type).toBe('action_request_validation_exception');
      expect(r.json.error.reason).toBe(
        `Validation Failed: 1: id [${long}] is too long, must be no longer than 512 bytes but was: 513;2: id [${long}y] is too long, must be no longer than 512 bytes but was: 514;`,
      );
      expect((await es.req('GET', '/ud/_doc/ok')).status).toBe(404);
    });
  });
});
