import { Client } from '@elastic/elasticsearch';
import { ELASTIC_AUTH, http, startE2eHost, type E2eHost } from './helpers.js';

const ATTRIBUTES = { 'Lucene90StoredFieldsFormat.mode': 'BEST_SPEED' };

/** a segment of `_segments` as Elasticsearch 8.17 lists it (its size checked apart) */
function seg(generation: number, numDocs: number, deletedDocs: number, committed: boolean, search: boolean) {
  return {
    generation,
    num_docs: numDocs,
    deleted_docs: deletedDocs,
    size_in_bytes: expect.any(Number),
    committed,
    search,
    version: '9.12.0',
    compound: false,
    attributes: ATTRIBUTES,
  };
}

/**
 * `GET [/{index}]/_segments` and `GET /_cat/segments[/{index}]`: the segments of each shard's reader and last
 * commit through refreshes, deletes, a flush and a force merge. The refreshed segments are written on the event
 * loop here (`thread_pool.merge.size: 0`), so their names follow the refreshes exactly.
 */
describe('segments APIs', () => {
  let host: E2eHost;
  let nodeId: string;
  let ip: string;
  const call = (path: string, init?: RequestInit) => http(host.url + path, init);
  const json = (method: string, path: string, body?: unknown) =>
    call(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const bulk = async (index: string, docs: Array<[string, unknown]>) => {
    const lines = docs.map(([id, d]) => `{"index":{"_id":"${id}"}}\n${JSON.stringify(d)}\n`).join('');
    const r = await call(`/${index}/_bulk?refresh=true`, { method: 'POST', body: lines, headers: { 'content-type': 'application/x-ndjson' } });
    if (r.status !== 200 || r.json.errors) throw new Error(r.text);
  };
  const shard0 = async () => {
    const r = await call('/seg/_segments');
    expect(r.status).toBe(200);
    return r.json.indices.seg.shards['0'][0];
  };

  beforeAll(async () => {
    host = await startE2eHost({ 'node.name': 'seg-1', 'thread_pool.merge.size': 0 });
    nodeId = Object.keys((await call('/_nodes')).json.nodes)[0];
    ip = (await call('/_cat/nodes?h=ip')).text.trim();
    const created = await json('PUT', '/seg', {
      settings: { number_of_shards: 1, number_of_replicas: 0, refresh_interval: -1 },
      mappings: { properties: { n: { type: 'long' }, t: { type: 'text' }, parts: { type: 'nested', properties: { a: { type: 'keyword' } } } } },
    });
    expect(created.status).toBe(200);
    // _0: 5 docs; _1: 6 docs, one with 2 nested documents (8 Lucene docs); _2: 4 docs
    await bulk('seg', Array.from({ length: 5 }, (_, i) => [`a${i}`, { n: i, t: `first ${i}` }]));
    await bulk('seg', [...Array.from({ length: 5 }, (_, i): [string, unknown] => [`b${i}`, { n: 10 + i, t: `second ${i}` }]), ['nested', { n: 99, parts: [{ a: 'x' }, { a: 'y' }] }]]);
    await bulk('seg', Array.from({ length: 4 }, (_, i) => [`c${i}`, { n: 20 + i, t: `third ${i}` }]));
    expect((await call('/seg/_doc/a1?refresh=true', { method: 'DELETE' })).status).toBe(200);
  });
  afterAll(() => host.close());

  it('lists the searched segments of a shard, with nested documents and deletes counted at Lucene level', async () => {
    const r = await call('/seg/_segments');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      _shards: { total: 1, successful: 1, failed: 0 },
      indices: {
        seg: {
          shards: {
            '0': [
              {
                routing: { state: 'STARTED', primary: true, node: nodeId },
                num_committed_segments: 0,
                num_search_segments: 3,
                segments: { _0: seg(0, 4, 1, false, true), _1: seg(1, 8, 0, false, true), _2: seg(2, 4, 0, false, true) },
              },
            ],
          },
        },
      },
    });
    const segments = r.json.indices.seg.shards['0'][0].segments;
    expect(Object.keys(segments._0)).toEqual(['generation', 'num_docs', 'deleted_docs', 'size_in_bytes', 'committed', 'search', 'version', 'compound', 'attributes']);
    for (const s of Object.values(segments) as Array<{ size_in_bytes: number }>) expect(s.size_in_bytes).toBeGreaterThan(100);
    // ?human adds the size before size_in_bytes
    const human = (await call('/seg/_segments?human=true')).json.indices.seg.shards['0'][0].segments._0;
    expect(Object.keys(human).slice(3, 5)).toEqual(['size', 'size_in_bytes']);
    expect(human.size).toMatch(/^\d+(\.\d+)?(b|kb)$/);
  });

  it('_cat/segments: default columns, h, s, bytes, json, help', async () => {
    const size0 = (await shard0()).segments._0.size_in_bytes;
    const v = await call('/_cat/segments/seg?v&bytes=b');
    expect(v.status).toBe(200);
    const lines = v.text.trimEnd().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['index', 'shard', 'prirep', 'ip', 'segment', 'generation', 'docs.count', 'docs.deleted', 'size', 'size.memory', 'committed', 'searchable', 'version', 'compound']);
    expect(lines.slice(1).map((l) => l.split(/\s+/))).toEqual([
      ['seg', '0', 'p', ip, '_0', '0', '4', '1', String(size0), '0', 'false', 'true', '9.12.0', 'false'],
      ['seg', '0', 'p', ip, '_1', '1', '8', '0', expect.stringMatching(/^\d+$/), '0', 'false', 'true', '9.12.0', 'false'],
      ['seg', '0', 'p', ip, '_2', '2', '4', '0', expect.stringMatching(/^\d+$/), '0', 'false', 'true', '9.12.0', 'false'],
    ]);
    // without bytes= the size is human-readable
    expect((await call('/_cat/segments/seg?h=size')).text.split('\n')[0].trim()).toMatch(/^\d+(\.\d+)?(b|kb)$/);
    // aliases, sort, text alignment
    const sorted = await call('/_cat/segments/seg?h=seg,g,dc,dd,ic,is&s=dc:desc,seg');
    expect(sorted.text).toBe(['_1 1 8 0 false true', '_0 0 4 1 false true', '_2 2 4 0 false true', ''].join('\n'));
    const withId = await call('/_cat/segments/seg?h=i,s,p,id,seg,ico,v&format=json');
    expect(withId.json).toEqual(['_0', '_1', '_2'].map((segment) => ({ index: 'seg', shard: '0', prirep: 'p', id: nodeId, segment, compound: 'false', version: '9.12.0' })));
    const j = await call('/_cat/segments?format=json&h=index,segment,docs.count,docs.deleted,size,size.memory,committed,searchable&bytes=b');
    expect(j.json[0]).toEqual({ index: 'seg', segment: '_0', 'docs.count': '4', 'docs.deleted': '1', size: String(size0), 'size.memory': '0', committed: 'false', searchable: 'true' });
    expect(j.json).toHaveLength(3);
    const help = await call('/_cat/segments?help');
    expect(help.text.trimEnd().split('\n').map((l) => l.split('|')[0].trim())).toEqual([
      'index', 'shard', 'prirep', 'ip', 'id', 'segment', 'generation', 'docs.count', 'docs.deleted', 'size', 'size.memory', 'committed', 'searchable', 'version', 'compound',
    ]);
    expect(help.text).toMatch(/^size\.memory +\| sm,sizeMemory +\| segment memory in bytes$/m);
    expect((await call('/_cat')).text.split('\n')).toEqual(expect.arrayContaining(['/_cat/segments', '/_cat/segments/{index}']));
  });

  it('a flush commits every searched segment; later deletes show in the reader, the segment stays committed', async () => {
    expect((await json('POST', '/seg/_flush')).status).toBe(200);
    let s = await shard0();
    expect([s.num_committed_segments, s.num_search_segments]).toEqual([3, 3]);
    expect(s.segments).toEqual({ _0: seg(0, 4, 1, true, true), _1: seg(1, 8, 0, true, true), _2: seg(2, 4, 0, true, true) });
    expect((await call('/seg/_doc/c2?refresh=true', { method: 'DELETE' })).status).toBe(200);
    s = await shard0();
    expect(s.segments._2).toEqual(seg(2, 3, 1, true, true));
    expect((await call('/_cat/segments/seg?h=seg,dc,dd,ic,is')).text).toBe(['_0 4 1 true true', '_1 8 0 true true', '_2 3 1 true true', ''].join('\n'));
  });

  it('a force merge to one segment (with its flush) leaves one committed, searched segment', async () => {
    const fm = await json('POST', '/seg/_forcemerge?max_num_segments=1');
    expect(fm.status).toBe(200);
    const s = await shard0();
    expect(s).toEqual({
      routing: { state: 'STARTED', primary: true, node: nodeId },
      num_committed_segments: 1,
      num_search_segments: 1,
      segments: { _3: seg(3, 15, 0, true, true) },
    });
    expect((await call('/_cat/segments/seg?h=index,shard,segment,generation,docs.count,docs.deleted,committed,searchable')).text).toBe('seg 0 _3 3 15 0 true true\n');
    // the documents are all there
    expect((await json('POST', '/seg/_count', { query: { match_all: {} } })).json.count).toBe(13);
  });

  it('lists every open index; _shards counts unassigned replicas; an empty shard lists no segment', async () => {
    expect((await json('PUT', '/seg2', { settings: { number_of_shards: 2, number_of_replicas: 1, 'index.codec': 'best_compression' } })).status).toBe(200);
    await bulk('seg2', [['x', { n: 1 }]]);
    const r = await call('/_segments');
    expect(r.status).toBe(200);
    expect(r.json._shards).toEqual({ total: 5, successful: 3, failed: 0 });
    expect(Object.keys(r.json.indices).sort()).toEqual(['seg', 'seg2']);
    const shards = r.json.indices.seg2.shards;
    expect(Object.keys(shards)).toEqual(['0', '1']);
    const counts = ['0', '1'].map((k) => Object.values(shards[k][0].segments).reduce((n: number, g: any) => n + g.num_docs, 0));
    expect(counts.sort()).toEqual([0, 1]);
    const empty = ['0', '1'].map((k) => shards[k][0]).find((x) => Object.keys(x.segments).length === 0);
    expect(empty).toEqual({ routing: { state: 'STARTED', primary: true, node: nodeId }, num_committed_segments: 0, num_search_segments: 0, segments: {} });
    // the codec's stored fields mode
    const full = ['0', '1'].map((k) => shards[k][0]).find((x) => Object.keys(x.segments).length === 1);
    expect((Object.values(full.segments)[0] as { attributes: unknown }).attributes).toEqual({ 'Zstd814StoredFieldsFormat.mode': 'BEST_COMPRESSION' });
    // wildcards and comma lists
    expect(Object.keys((await call('/seg*/_segments')).json.indices).sort()).toEqual(['seg', 'seg2']);
    expect(Object.keys((await call('/seg2,seg/_segments')).json.indices).sort()).toEqual(['seg', 'seg2']);
    expect((await call('/_cat/segments/seg2?h=index,docs.count')).text).toBe('seg2 1\n');
    expect((await json('DELETE', '/seg2')).status).toBe(200);
  });

  it('errors: missing and closed indices, options, bad parameters', async () => {
    const missing = await call('/nope/_segments');
    expect(missing.status).toBe(404);
    expect(missing.json.error.type).toBe('index_not_found_exception');
    expect(missing.json.error.reason).toBe('no such index [nope]');
    expect((await call('/nope/_segments?ignore_unavailable=true')).json).toEqual({ _shards: { total: 0, successful: 0, failed: 0 }, indices: {} });
    expect((await call('/nope*/_segments')).json).toEqual({ _shards: { total: 0, successful: 0, failed: 0 }, indices: {} });
    const none = await call('/nope*/_segments?allow_no_indices=false');
    expect([none.status, none.json.error.type]).toEqual([404, 'index_not_found_exception']);
    expect((await call('/_cat/segments/nope')).status).toBe(404);

    expect((await json('PUT', '/shut', { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status).toBe(200);
    await bulk('shut', [['1', { n: 1 }]]);
    expect((await json('POST', '/shut/_close')).status).toBe(200);
    const closed = await call('/shut/_segments');
    expect(closed.status).toBe(400);
    expect(closed.json.error.type).toBe('index_closed_exception');
    expect(closed.json.error.index).toBe('shut');
    expect((await call('/shut/_segments?ignore_unavailable=true')).json).toEqual({ _shards: { total: 0, successful: 0, failed: 0 }, indices: {} });
    // a wildcard expands to open indices only, unless told to take closed ones: then they are forbidden
    expect(Object.keys((await call('/sh*,seg/_segments')).json.indices)).toEqual(['seg']);
    expect((await call('/sh*/_segments?expand_wildcards=all')).status).toBe(400);
    const cat = await call('/_cat/segments/shut');
    expect([cat.status, cat.json.error.type]).toEqual([400, 'index_closed_exception']);
    // the whole node: the closed index is not expanded to
    expect(Object.keys((await call('/_segments')).json.indices)).toEqual(['seg']);

    expect((await call('/_segments?verbose=true')).status).toBe(200);
    const verbose = await call('/_segments?verbose=maybe');
    expect([verbose.status, verbose.json.error.type]).toEqual([400, 'illegal_argument_exception']);
    const unknown = await call('/_segments?level=shards');
    expect([unknown.status, unknown.json.error.type]).toEqual([400, 'illegal_argument_exception']);
    expect(unknown.json.error.reason).toMatch(/unrecognized parameter: \[level\]/);
    const bytes = await call('/_cat/segments?bytes=zz');
    expect([bytes.status, bytes.json.error.type]).toEqual([400, 'illegal_argument_exception']);
    const wildcards = await call('/_segments?expand_wildcards=sometimes');
    expect([wildcards.status, wildcards.json.error.type]).toEqual([400, 'illegal_argument_exception']);
    // nothing changed
    expect((await shard0()).segments).toEqual({ _3: seg(3, 15, 0, true, true) });
    expect((await json('DELETE', '/shut')).status).toBe(200);
  });
});

/** the client types a shard's entry as one copy or a list of copies: the first copy */
function firstCopy(shards: Record<string, unknown>, id: string): { num_committed_segments: number; num_search_segments: number; segments: Record<string, { generation: number; num_docs: number; deleted_docs: number; size_in_bytes: number; committed: boolean; search: boolean }> } {
  const copies = shards[id];
  return (Array.isArray(copies) ? copies[0] : copies) as ReturnType<typeof firstCopy>;
}

/** The default node (segments written by the write thread) through the official client. */
describe('segments APIs through @elastic/elasticsearch', () => {
  let host: E2eHost;
  let client: Client;
  beforeAll(async () => {
    host = await startE2eHost({ 'node.name': 'seg-client' });
    client = new Client({ node: host.url });
  });
  afterAll(async () => {
    await client.close();
    await host.close();
  });

  it('indices.segments and cat.segments before and after a flush and a force merge', async () => {
    await client.indices.create({ index: 'logs', settings: { number_of_shards: 1, number_of_replicas: 0 } });
    for (let round = 0; round < 3; round++) {
      await client.bulk({ index: 'logs', refresh: true, operations: Array.from({ length: 10 }, (_, i) => [{ index: { _id: `${round}-${i}` } }, { round, i }]).flat() });
    }
    await client.delete({ index: 'logs', id: '1-3', refresh: true });
    const before = await client.indices.segments({ index: 'logs' });
    expect(before._shards).toEqual({ total: 1, successful: 1, failed: 0 });
    const shard = firstCopy(before.indices['logs'].shards, '0');
    const segs = Object.values(shard.segments);
    expect(shard.num_search_segments).toBe(3);
    expect(segs.map((s) => [s.num_docs, s.deleted_docs, s.search])).toEqual([
      [10, 0, true],
      [9, 1, true],
      [10, 0, true],
    ]);

    await client.indices.flush({ index: 'logs' });
    const flushed = firstCopy((await client.indices.segments({ index: 'logs' })).indices['logs'].shards, '0');
    expect([flushed.num_committed_segments, flushed.num_search_segments]).toEqual([3, 3]);
    expect(Object.values(flushed.segments).every((s) => s.committed && s.search)).toBe(true);

    await client.indices.forcemerge({ index: 'logs', max_num_segments: 1 });
    const merged = firstCopy((await client.indices.segments({ index: 'logs' })).indices['logs'].shards, '0');
    const [name, only] = Object.entries(merged.segments)[0];
    expect(Object.keys(merged.segments)).toHaveLength(1);
    expect(only).toMatchObject({ num_docs: 29, deleted_docs: 0, committed: true, search: true, version: '9.12.0', compound: false });
    expect(only.generation).toBe(parseInt(name.slice(1), 36));

    const cat = await client.cat.segments({ index: 'logs', format: 'json', bytes: 'b' });
    expect(cat).toEqual([
      expect.objectContaining({ index: 'logs', shard: '0', prirep: 'p', segment: name, 'docs.count': '29', 'docs.deleted': '0', size: String(only.size_in_bytes), committed: 'true', searchable: 'true' }),
    ]);
    const text = await client.cat.segments({ index: 'logs', h: 'segment,docs.count' });
    expect(text).toBe(`${name} 29\n`);
    await expect(client.indices.segments({ index: 'missing' })).rejects.toMatchObject({ meta: { statusCode: 404 } });
  });
});

/** With security on: the `monitor` index privilege, and only on the indices the caller may see. */
describe('segments APIs with security', () => {
  let host: E2eHost;
  const watcher = { Authorization: 'Basic ' + Buffer.from('watcher:watcher-password').toString('base64') };
  const call = (path: string, headers: Record<string, string>, method = 'GET', body?: unknown) =>
    http(host.url + path, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  beforeAll(async () => {
    host = await startE2eHost({ 'xpack.security.enabled': true });
    for (const index of ['mine', 'theirs']) {
      expect((await call(`/${index}`, ELASTIC_AUTH, 'PUT', { settings: { number_of_shards: 1, number_of_replicas: 0 } })).status).toBe(200);
      expect((await call(`/${index}/_doc/1?refresh=true`, ELASTIC_AUTH, 'PUT', { v: 1 })).status).toBe(201);
    }
    expect((await call('/_security/role/watcher', ELASTIC_AUTH, 'PUT', { indices: [{ names: ['mine'], privileges: ['monitor'] }] })).status).toBe(200);
    expect((await call('/_security/user/watcher', ELASTIC_AUTH, 'PUT', { password: 'watcher-password', roles: ['watcher'] })).status).toBe(200);
  });
  afterAll(() => host.close());

  it('lists the indices the caller may monitor and refuses the others', async () => {
    expect(Object.keys((await call('/mine/_segments', watcher)).json.indices)).toEqual(['mine']);
    const denied = await call('/theirs/_segments', watcher);
    expect([denied.status, denied.json.error.type]).toEqual([403, 'security_exception']);
    expect(Object.keys((await call('/_segments', watcher)).json.indices)).toEqual(['mine']);
    expect((await call('/_cat/segments?h=index', watcher)).text).toBe('mine\n');
    expect((await call('/_cat/segments/theirs', watcher)).status).toBe(403);
    expect(Object.keys((await call('/_segments', ELASTIC_AUTH)).json.indices).sort()).toEqual(['mine', 'theirs']);
    expect((await call('/_segments', {})).status).toBe(401);
  });
});
