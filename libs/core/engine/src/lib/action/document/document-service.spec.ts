import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Container, ContainerModule } from 'inversify';
import { EsError, ExtensionPoints, RawJson, Tokens } from '@strata/core-common';
import { InMemoryMetadataStore } from '../../cluster/metadata-store.js';
import { EngineTokens } from '../../services.js';
import type { IndexRequestInterceptor } from '../../spi.js';
import { storageModule } from '../../storage.module.js';
import { DocumentService, KeyedMutex } from './document-service.js';
import { IndicesServiceImpl } from '../../shard/indices-service.js';
import { parseBulkLines, parseBulkLinesSliced } from './bulk-parser.js';
import { FakeMapperService, FakeMetadataIndexService, FakeResolver, indexMetadata } from './testing/fakes.js';
import { filterSource, parseSourceParams } from './source-filter.js';
import { filterSourceByMapping } from '../../mapper/document-parser.js';
import { filterSource as topHitsFilterSource } from '../../aggregations/metrics/top-hits.js';
import { TimeBasedIdGenerator } from './id-generator.js';
import { shardIdForDoc } from '../../shard/routing.js';

let dir: string;
let container: Container;
let store: InMemoryMetadataStore;
let docs: DocumentService;
let indices: IndicesServiceImpl;
let mis: FakeMetadataIndexService;

async function setup(interceptors: IndexRequestInterceptor[] = []) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docsvc-'));
  store = new InMemoryMetadataStore();
  mis = new FakeMetadataIndexService(store);
  container = new Container({ defaultScope: 'Singleton' });
  await container.load(
    new ContainerModule(({ bind }) => {
      bind(Tokens.HostConfig).toConstantValue({ settings: { 'path.data': dir } });
      bind(EngineTokens.MetadataStore).toConstantValue(store);
      bind(EngineTokens.MapperService).toConstantValue(new FakeMapperService());
      bind(EngineTokens.IndexNameExpressionResolver).toConstantValue(new FakeResolver(store));
      bind(EngineTokens.MetadataIndexService).toConstantValue(mis);
      for (const i of interceptors) bind(ExtensionPoints.IndexRequestInterceptor).toConstantValue(i);
    }),
    storageModule,
  );
  docs = container.get<DocumentService>(EngineTokens.DocumentService);
  indices = container.get<IndicesServiceImpl>(EngineTokens.IndicesService);
}

afterEach(() => {
  indices?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function expectEsError(p: Promise<unknown>, type: string, status: number, reason?: string) {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(EsError);
    expect((e as EsError).type).toBe(type);
    expect((e as EsError).status).toBe(status);
    if (reason !== undefined) expect((e as EsError).reason).toBe(reason);
    return;
  }
  throw new Error(`expected ${type}`);
}

describe('DocumentService', () => {
  beforeEach(() => setup());

  it('indexes into an auto-created index with ES response shape and 201', async () => {
    const r = await docs.index({ index: 'logs', id: '1', opType: 'index', source: { msg: 'hello' }, attributes: {} });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      _index: 'logs',
      _id: '1',
      _version: 1,
      result: 'created',
      _shards: { total: 2, successful: 1, failed: 0 },
      _seq_no: 0,
      _primary_term: 1,
    });
    expect(mis.created).toEqual(['logs']);
    expect(store.current().indices['logs'].mappings).toEqual({ properties: { msg: { type: 'text' } } });
    const r2 = await docs.index({ index: 'logs', id: '1', opType: 'index', source: { msg: 'again' }, attributes: {} }, { refresh: 'true' });
    expect(r2.status).toBe(200);
    expect(r2.body).toMatchObject({ result: 'updated', _version: 2, _seq_no: 1, forced_refresh: true });
  });

  it('auto-generates 20-char ids', async () => {
    const r = await docs.index({ index: 'logs', opType: 'create', source: { a: 1 }, attributes: {} });
    expect(String(r.body['_id'])).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(r.body['result']).toBe('created');
  });

  it('validates versioning parameters like ES', async () => {
    await expectEsError(
      docs.index({ index: 'logs', id: '1', opType: 'index', source: {}, version: 2, attributes: {} }),
      'action_request_validation_exception',
      400,
      'Validation Failed: 1: internal versioning can not be used for optimistic concurrency control. Please use `if_seq_no` and `if_primary_term` instead;',
    );
    await expectEsError(
      docs.index({ index: 'logs', id: '1', opType: 'index', source: {}, ifSeqNo: 1, attributes: {} }),
      'action_request_validation_exception',
      400,
      'Validation Failed: 1: ifSeqNo is set, but primary term is [0];',
    );
  });

  it('create conflicts carry index, shard and index_uuid metadata', async () => {
    await docs.index({ index: 'logs', id: '1', opType: 'create', source: {}, attributes: {} });
    try {
      await docs.index({ index: 'logs', id: '1', opType: 'create', source: {}, attributes: {} });
      throw new Error('no conflict');
    } catch (e) {
      const err = e as EsError;
      expect(err.type).toBe('version_conflict_engine_exception');
      expect(err.reason).toBe('[1]: version conflict, document already exists (current version [1])');
      expect(err.metadata).toEqual({ index_uuid: store.current().indices['logs'].uuid, shard: '0', index: 'logs' });
    }
  });

  it('gets realtime with _source filtering, 404 when missing', async () => {
    await docs.index({ index: 'logs', id: '1', opType: 'index', routing: 'r1', source: { a: 1, b: { c: 2, d: 3 } }, attributes: {} });
    const g = await docs.get({ index: 'logs', id: '1', routing: 'r1' });
    expect(g.status).toBe(200);
    expect(g.body).toEqual({ _index: 'logs', _id: '1', _version: 1, _seq_no: 0, _primary_term: 1, _routing: 'r1', found: true, _source: { a: 1, b: { c: 2, d: 3 } } });
    const f = await docs.get({ index: 'logs', id: '1', routing: 'r1', sourceFilter: { includes: ['b.*'], excludes: ['b.d'] } });
    expect(f.body['_source']).toEqual({ b: { c: 2 } });
    const n = await docs.get({ index: 'logs', id: '1', routing: 'r1', fetchSource: false });
    expect(n.body['_source']).toBeUndefined();
    const m = await docs.get({ index: 'logs', id: 'nope' });
    expect(m).toEqual({ status: 404, body: { _index: 'logs', _id: 'nope', found: false } });
    await expectEsError(docs.get({ index: 'missing', id: '1' }), 'index_not_found_exception', 404, 'no such index [missing]');
  });

  it('deletes: 200 deleted then 404 not_found', async () => {
    await docs.index({ index: 'logs', id: '1', opType: 'index', source: {}, attributes: {} });
    const d = await docs.delete({ index: 'logs', id: '1' });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ result: 'deleted', _version: 2, _seq_no: 1 });
    const d2 = await docs.delete({ index: 'logs', id: '1' });
    expect(d2.status).toBe(404);
    expect(d2.body['result']).toBe('not_found');
    await expectEsError(docs.delete({ index: 'other', id: '1' }), 'index_not_found_exception', 404);
    // with external versioning a delete creates the index (and a tombstone)
    const ext = await docs.delete({ index: 'other', id: '1', version: 5, versionType: 'external' });
    expect(ext.status).toBe(404);
    expect(ext.body).toMatchObject({ _index: 'other', result: 'not_found', _version: 5 });
    await expectEsError(
      docs.index({ index: 'other', id: '1', opType: 'index', source: {}, version: 5, versionType: 'external', attributes: {} }),
      'version_conflict_engine_exception',
      409,
      '[1]: version conflict, current version [5] is higher or equal to the one provided [5]',
    );
  });

  it('updates with doc merge, detect_noop, doc_as_upsert, upsert and document_missing', async () => {
    await expectEsError(docs.update({ index: 'logs', id: '1', doc: { a: 1 } }), 'document_missing_exception', 404, '[1]: document missing');
    const u1 = await docs.update({ index: 'logs', id: '1', doc: { a: 1, o: { x: 1 } }, docAsUpsert: true });
    expect(u1.status).toBe(201);
    expect(u1.body['result']).toBe('created');
    const u2 = await docs.update({ index: 'logs', id: '1', doc: { o: { y: 2 } }, fetchSource: true });
    expect(u2.body).toMatchObject({ result: 'updated', _version: 2 });
    expect(u2.body['get']).toEqual({ _seq_no: 1, _primary_term: 1, found: true, _source: { a: 1, o: { x: 1, y: 2 } } });
    const u3 = await docs.update({ index: 'logs', id: '1', doc: { a: 1 } });
    expect(u3.status).toBe(200);
    expect(u3.body).toEqual({
      _index: 'logs',
      _id: '1',
      _version: 2,
      result: 'noop',
      _shards: { total: 0, successful: 0, failed: 0 },
      _seq_no: 1,
      _primary_term: 1,
    });
    const u4 = await docs.update({ index: 'logs', id: '2', doc: { a: 5 }, upsert: { a: 0 } });
    expect(u4.body['result']).toBe('created');
    expect((await docs.get({ index: 'logs', id: '2' })).body['_source']).toEqual({ a: 0 });
    // scripts run on the shared Painless engine: an unknown variable is a compile error
    await expectEsError(docs.update({ index: 'logs', id: '1', script: { source: 'x' } }), 'script_exception', 400, 'compile error');
    const scripted = await docs.update({ index: 'logs', id: '2', script: { source: 'ctx._source.a += params.d', params: { d: 3 } } });
    expect(scripted.body['result']).toBe('updated');
    expect((await docs.get({ index: 'logs', id: '2' })).body['_source']).toEqual({ a: 3 });
    await expectEsError(docs.update({ index: 'logs', id: '1' }), 'action_request_validation_exception', 400, 'Validation Failed: 1: script or doc is missing;');
  });

  it('mget by docs and ids with per-doc errors', async () => {
    await docs.index({ index: 'logs', id: '1', opType: 'index', source: { a: 1 }, attributes: {} });
    const r = await docs.mget({ docs: [{ _index: 'logs', _id: '1' }, { _index: 'logs', _id: '2' }, { _index: 'nope', _id: '1' }] }, {});
    expect(r.docs[0]).toMatchObject({ _index: 'logs', _id: '1', found: true, _source: { a: 1 } });
    expect(r.docs[1]).toEqual({ _index: 'logs', _id: '2', found: false });
    expect(r.docs[2]).toMatchObject({ _index: 'nope', _id: '1', error: { type: 'index_not_found_exception', reason: 'no such index [nope]' } });
    const r2 = await docs.mget({ ids: ['1'] }, { index: 'logs', fetchSource: false });
    expect(r2.docs[0]['_source']).toBeUndefined();
    await expectEsError(docs.mget({ ids: ['1'] }, {}), 'action_request_validation_exception', 400, 'Validation Failed: 1: index is missing for doc 0;');
  });

  it('bulk: per-item results, errors flag and statuses', async () => {
    const lines = [
      '{"index":{"_index":"b","_id":"1"}}',
      '{"f":"x"}',
      '{"create":{"_index":"b","_id":"1"}}',
      '{"f":"y"}',
      '{"index":{"_index":"b","pipeline":null},"attempts":0}',
      '{"f":"z"}',
      '{"update":{"_index":"b","_id":"1"}}',
      '{"doc":{"g":1}}',
      '{"delete":{"_index":"b","_id":"1"}}',
      '{"delete":{"_index":"b","_id":"1"}}',
      '{"index":{"_index":"b","_id":"2"}}',
      '{"f": 1',
    ];
    const res = await docs.bulk(parseBulkLines(lines), {});
    expect(res.errors).toBe(true);
    expect(typeof res.took).toBe('number');
    const uuid = store.current().indices['b'].uuid;
    expect(res.items[0]).toEqual({
      index: { _index: 'b', _id: '1', _version: 1, result: 'created', _shards: { total: 2, successful: 1, failed: 0 }, _seq_no: 0, _primary_term: 1, status: 201 },
    });
    expect(res.items[1]).toEqual({
      create: {
        _index: 'b',
        _id: '1',
        status: 409,
        error: {
          type: 'version_conflict_engine_exception',
          reason: '[1]: version conflict, document already exists (current version [1])',
          index_uuid: uuid,
          shard: '0',
          index: 'b',
        },
      },
    });
    expect(res.items[2]['index']['status']).toBe(201);
    expect(String(res.items[2]['index']['_id'])).toHaveLength(20);
    expect(res.items[3]['update']).toMatchObject({ result: 'updated', _version: 2, status: 200 });
    expect(res.items[4]['delete']).toMatchObject({ result: 'deleted', _version: 3, status: 200 });
    expect(res.items[5]['delete']).toMatchObject({ result: 'not_found', status: 404 });
    expect(res.items[6]['index']).toMatchObject({ _index: 'b', _id: '2', status: 400, error: { type: 'document_parsing_exception' } });
  });

  it('bulk parser: lenient lines, malformed lines rejected like ES', () => {
    expect(parseBulkLines(['{"index":{"_index": "x","routing":null}}', '{}'])[0]).toMatchObject({ op: 'index', index: 'x', routing: undefined });
    expect(() => parseBulkLines(['{"foo":{}}'])).toThrow('Malformed action/metadata line [1], expected field [create], [delete], [index] or [update] but found [foo]');
    expect(() => parseBulkLines(['{"index":{"_index":"x","bad":1}}', '{}'])).toThrow('Action/metadata line [1] contains an unknown parameter [bad]');
    expect(() => parseBulkLines(['"x"'])).toThrow('Malformed action/metadata line [1], expected START_OBJECT or END_OBJECT but found [VALUE_STRING]');
    try {
      parseBulkLines(['{"index":{}}', '{}']);
      throw new Error('expected');
    } catch (e) {
      expect((e as EsError).type).toBe('action_request_validation_exception');
      expect((e as EsError).reason).toBe('Validation Failed: 1: index is missing;');
    }
    expect(() => parseBulkLines([])).toThrow('Validation Failed: 1: no requests added;');
  });

  it('bulk parser in slices: the same items and the same whole-request errors, with the event loop turning between slices', async () => {
    const lines: string[] = [];
    for (let n = 0; n < 3000; n++) {
      if (n % 5 === 4) lines.push(`{"delete":{"_index":"x","_id":"${n}"}}`);
      else lines.push(`{"index":{"_index":"x","_id":"${n}","routing":"r${n % 3}"}}`, n % 97 === 0 ? '{"a":' : `{"n":${n},"s":"v${n}"}`);
    }
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    // sliceMs 0: a turn of the event loop every 16 items
    const sliced = await parseBulkLinesSliced(lines, { pipeline: 'p' }, 0);
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(10);
    const whole = parseBulkLines(lines, { pipeline: 'p' });
    expect(sliced.map(({ bodyError, ...rest }) => ({ ...rest, bodyError: bodyError?.message }))).toEqual(
      whole.map(({ bodyError, ...rest }) => ({ ...rest, bodyError: bodyError?.message })),
    );
    expect(sliced.filter((i) => i.bodyError)).toHaveLength(25);
    // a malformed action line late in the body fails the whole request, as unsliced
    const bad = [...lines, '{"foo":{}}'];
    await expect(parseBulkLinesSliced(bad, {}, 0)).rejects.toThrow(`Malformed action/metadata line [${bad.length}], expected field [create], [delete], [index] or [update] but found [foo]`);
    await expect(parseBulkLinesSliced([], {}, 0)).rejects.toThrow('Validation Failed: 1: no requests added;');
  });

  it('refresh makes docs visible to readers; flush persists across restart', async () => {
    await docs.bulk(parseBulkLines(['{"index":{"_index":"p","_id":"1"}}', '{"a":"x"}']), { refresh: 'true' });
    const shard = indices.shards('p')[0];
    const r = shard.acquireReader();
    expect(r.numDocs).toBe(1);
    r.decRef();
    await docs.index({ index: 'p', id: '2', opType: 'index', source: { a: 'y' }, attributes: {} });
    expect(docs.flush(['p'])).toEqual({ _shards: { total: 2, successful: 1, failed: 0 } });
    indices.close();
    // a new IndicesService over the same metadata and data path recovers the docs
    const again = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } });
    expect(again.indexStatsSummary('p').total.docsCount).toBe(2);
    expect(again.indexStats('p')['docs']).toEqual({ count: 2, deleted: 0 });
    again.close();
  });

  it('deleting an index removes its data directory', async () => {
    await docs.index({ index: 'gone', id: '1', opType: 'index', source: {}, attributes: {} });
    const uuid = store.current().indices['gone'].uuid;
    const d = path.join(dir, 'indices', uuid);
    expect(fs.existsSync(d)).toBe(true);
    await mis.deleteIndices(['gone']);
    expect(fs.existsSync(d)).toBe(false);
    await expectEsError(docs.get({ index: 'gone', id: '1' }), 'index_not_found_exception', 404);
  });

  it('routes by _routing over several shards and writes through a write alias', async () => {
    await store.update((d) => {
      d.indices['multi'] = indexMetadata('multi', { numberOfShards: 3, primaryTerms: [1, 1, 1], aliases: { w: { is_write_index: true } } });
    });
    for (let i = 0; i < 30; i++) await docs.index({ index: 'w', id: String(i), opType: 'index', source: { i }, attributes: {} });
    const counts = indices.shards('multi').map((s) => s.stats().maxSeqNo + 1);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(30);
    expect(counts.every((c) => c > 0)).toBe(true);
    const g = await docs.get({ index: 'multi', id: '7' });
    expect(g.body['found']).toBe(true);
  });

  it('bulk item failures name the concrete index and the generated id once the write reached them (as shard failures in ES)', async () => {
    await store.update((d) => {
      d.indices['conc'] = indexMetadata('conc', { aliases: { wa: { is_write_index: true } } });
      d.persistentSettings['action.auto_create_index'] = 'false';
    });
    await docs.index({ index: 'wa', id: 'x', opType: 'index', source: { n: 1 }, attributes: {} });
    const res = await docs.bulk(
      parseBulkLines([
        '{"index":{"_index":"wa"}}',
        '{"n":"not a number"}',
        '{"create":{"_index":"wa","_id":"x"}}',
        '{"n":2}',
        '{"index":{"_index":"missing"}}',
        '{"n":3}',
        '{"index":{"_index":"wa"}}',
        '{"n":4}',
      ]),
      {},
    );
    const [bad, conflict, missing, ok] = res.items.map((it) => Object.values(it)[0]!);
    // a mapping failure: written under the alias's write index and a generated id
    expect(bad).toMatchObject({ _index: 'conc', status: 400, error: { type: 'document_parsing_exception' } });
    expect(bad['_id']).toMatch(/^[A-Za-z0-9_-]{20}$/);
    expect(conflict).toMatchObject({ _index: 'conc', _id: 'x', status: 409, error: { type: 'version_conflict_engine_exception' } });
    // no index to write to: the target as given, no id yet
    expect(missing).toMatchObject({ _index: 'missing', _id: null, status: 404, error: { type: 'index_not_found_exception' } });
    expect(ok).toMatchObject({ _index: 'conc', result: 'created', status: 201 });
    expect(ok['_id']).not.toBe(bad['_id']);
  });

  it('applies an alias index_routing to writes and gets through the alias', async () => {
    await store.update((d) => {
      d.indices['ar'] = indexMetadata('ar', { numberOfShards: 4, primaryTerms: [1, 1, 1, 1], aliases: { ra: { index_routing: 'k1', is_write_index: true } } });
    });
    await docs.index({ index: 'ra', id: 'a', opType: 'index', source: { x: 1 }, attributes: {} });
    const target = shardIdForDoc(store.current().indices['ar'], 'a', 'k1');
    expect(indices.shards('ar')[target].stats().maxSeqNo).toBe(0);
    expect((await docs.get({ index: 'ra', id: 'a' })).body).toMatchObject({ found: true, _routing: 'k1' });
    await expectEsError(
      docs.index({ index: 'ra', id: 'b', routing: 'other', opType: 'index', source: {}, attributes: {} }),
      'illegal_argument_exception',
      400,
      'Alias [ra] has index routing associated with it [k1], and was provided with routing value [other], rejecting operation',
    );
  });
});

describe('interceptors and auto-create settings', () => {
  it('runs interceptors in order; drop answers noop', async () => {
    const seen: string[] = [];
    await setup([
      { name: 'b', order: 200, intercept: async (r) => (seen.push('b'), { kind: 'continue', request: { ...r, source: { ...r.source, b: 1 } } }) },
      {
        name: 'a',
        order: 100,
        intercept: async (r) => (seen.push('a'), r.source['drop'] ? { kind: 'drop' } : { kind: 'continue', request: r }),
      },
    ]);
    const r = await docs.index({ index: 'i', id: '1', opType: 'index', source: { x: 1 }, attributes: {} });
    expect(seen).toEqual(['a', 'b']);
    expect((await docs.get({ index: 'i', id: '1' })).body['_source']).toEqual({ x: 1, b: 1 });
    expect(r.status).toBe(201);
    const d = await docs.index({ index: 'i', id: '2', opType: 'index', source: { drop: true }, attributes: {} });
    expect(d).toEqual({ status: 200, body: { _index: 'i', _id: '2', _version: -3, result: 'noop', _shards: { total: 0, successful: 0, failed: 0 } } });
  });

  it('honours action.auto_create_index=false', async () => {
    await setup();
    await store.update((d) => {
      d.persistentSettings['action.auto_create_index'] = 'false';
    });
    await expectEsError(
      docs.index({ index: 'nope', id: '1', opType: 'index', source: {}, attributes: {} }),
      'index_not_found_exception',
      404,
      'no such index [nope] and [action.auto_create_index] is [false]',
    );
  });
});

describe('source filtering and ids', () => {
  it('filters like ES', () => {
    const src = { a: 1, obj: { x: 1, y: { z: 2 } }, arr: [{ k: 1, j: 2 }], t: 'v' };
    expect(filterSource(src, { includes: ['obj'], excludes: [] })).toEqual({ obj: { x: 1, y: { z: 2 } } });
    expect(filterSource(src, { includes: ['obj.y.z', 'a'], excludes: [] })).toEqual({ a: 1, obj: { y: { z: 2 } } });
    expect(filterSource(src, { includes: [], excludes: ['obj.*'] })).toEqual({ a: 1, obj: {}, arr: [{ k: 1, j: 2 }], t: 'v' });
    expect(filterSource(src, { includes: ['arr.k'], excludes: [] })).toEqual({ arr: [{ k: 1 }] });
    // the mapping's _source includes/excludes and top_hits' _source filter are the same filtering (one copy):
    // arrays of objects are filtered element by element, not dropped
    expect(filterSourceByMapping(src, ['arr.k'], [])).toEqual({ arr: [{ k: 1 }] });
    expect(filterSourceByMapping(src, [], ['arr.j', 'obj.y'])).toEqual({ a: 1, obj: { x: 1 }, arr: [{ k: 1 }], t: 'v' });
    expect(topHitsFilterSource(src, { enabled: true, includes: ['*.k', 'a'], excludes: [] })).toEqual({ a: 1, arr: [{ k: 1 }] });
    expect(filterSource(src, { includes: ['*'], excludes: ['t'] })).toEqual({ a: 1, obj: { x: 1, y: { z: 2 } }, arr: [{ k: 1, j: 2 }] });
    expect(parseSourceParams('false', undefined, undefined)).toEqual({ fetch: false, filter: undefined });
    expect(parseSourceParams('a,b', undefined, ['c'])).toEqual({ fetch: true, filter: { includes: ['a', 'b'], excludes: ['c'] } });
  });

  it('generates unique 20-char ids', () => {
    const g = new TimeBasedIdGenerator();
    const set = new Set<string>();
    for (let i = 0; i < 10000; i++) set.add(g.next());
    expect(set.size).toBe(10000);
    for (const id of set) expect(id).toHaveLength(20);
  });
});

describe('F1 fixes: raw _source, bulk validation, update serialisation', () => {
  it('get/mget with rawSource return the stored text as a RawJson; a filtered source is parsed', async () => {
    await setup();
    await docs.index({ index: 'r', id: '1', opType: 'index', source: { a: 1, b: { c: 2 } }, attributes: {} });
    const g = await docs.get({ index: 'r', id: '1', rawSource: true });
    expect(g.body['_source']).toBeInstanceOf(RawJson);
    expect((g.body['_source'] as RawJson).json).toBe('{"a":1,"b":{"c":2}}');
    const f = await docs.get({ index: 'r', id: '1', rawSource: true, sourceFilter: { includes: ['b'], excludes: [] } });
    expect(f.body['_source']).toEqual({ b: { c: 2 } });
    expect((await docs.get({ index: 'r', id: '1' })).body['_source']).toEqual({ a: 1, b: { c: 2 } });
    const m = await docs.mget({ ids: ['1'] }, { index: 'r', rawSource: true });
    expect(m.docs[0]!['_source']).toBeInstanceOf(RawJson);
  });

  it('bulk parser: update with version / version_type fails the whole request; duplicate keys fail the item', () => {
    const msg = 'Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead';
    expect(() => parseBulkLines(['{"update":{"_index":"x","_id":"1","version":2}}', '{"doc":{}}'])).toThrow(msg);
    expect(() => parseBulkLines(['{"update":{"_index":"x","_id":"1","version_type":"external"}}', '{"doc":{}}'])).toThrow(msg);
    expect(parseBulkLines(['{"index":{"_index":"x","_id":"1","version":2,"version_type":"external"}}', '{}'])[0]).toMatchObject({ version: 2 });
    const [bad, good] = parseBulkLines(['{"index":{"_index":"x"}}', '{"a":1,"o":{"b":1,"b":2}}', '{"index":{"_index":"x"}}', '{"b":"1:2","o":{"b":1}}']);
    expect(bad!.bodyError?.type).toBe('document_parsing_exception');
    expect(bad!.bodyError?.reason).toBe("[1:22] failed to parse: Duplicate field 'b'");
    expect(bad!.bodyError?.guessRootCauses().map((e) => e.type)).toEqual(['document_parsing_exception']);
    expect(good!.bodyError).toBeUndefined();
    expect(() => parseBulkLines(['{"update":{"_index":"x","_id":"1"}}', '{"doc":{},"doc":{}}'])).toThrow("[2:16] Duplicate field 'doc'");
    expect(() => parseBulkLines(['{"index":{"_index":"x","_index":"y"}}', '{}'])).toThrow("[1:32] Duplicate field '_index'");
  });

  it('a term longer than 32766 UTF-8 bytes fails the write before anything is stored', async () => {
    await setup();
    await expectEsError(
      docs.index({ index: 'imm', id: '1', opType: 'index', source: { k: 'x'.repeat(32767) }, attributes: {} }),
      'illegal_argument_exception',
      400,
    );
    expect((await docs.get({ index: 'imm', id: '1' })).status).toBe(404);
    expect((await docs.index({ index: 'imm', id: '2', opType: 'index', source: { k: 'x'.repeat(32766) }, attributes: {} })).status).toBe(201);
  });

  it('parallel updates of one document queue up instead of conflicting (async interceptor widens the window)', async () => {
    await setup([{ name: 'slow', order: 1, intercept: async (r) => (await new Promise((res) => setTimeout(res, 1)), { kind: 'continue', request: r }) }]);
    await docs.index({ index: 'u', id: '1', opType: 'index', source: { n: 0 }, attributes: {} });
    const rs = await Promise.all(Array.from({ length: 20 }, (_, i) => docs.update({ index: 'u', id: '1', doc: { [`f${i}`]: i } })));
    expect(rs.map((r) => r.status)).toEqual(Array(20).fill(200));
    const g = await docs.get({ index: 'u', id: '1' });
    expect(g.body['_version']).toBe(21);
    expect(Object.keys(g.body['_source'] as object)).toHaveLength(21);
    // different documents do not wait for each other, and the lock table empties
    const other = await Promise.all([docs.update({ index: 'u', id: '1', doc: { z: 1 } }), docs.index({ index: 'u', id: '2', opType: 'index', source: { n: 0 }, attributes: {} })]);
    expect(other.map((r) => r.status)).toEqual([200, 201]);
  });

  it('KeyedMutex runs sections of one key in order, other keys concurrently, and forgets idle keys', async () => {
    const m = new KeyedMutex();
    const log: string[] = [];
    const section = (key: string, tag: string, ms: number) =>
      m.run(key, async () => {
        log.push(`${tag}+`);
        await new Promise((r) => setTimeout(r, ms));
        log.push(`${tag}-`);
        return tag;
      });
    const failing = m.run('a', async () => {
      throw new Error('x');
    });
    const all = Promise.all([section('a', 'a1', 5), section('a', 'a2', 1), section('b', 'b1', 1)]);
    await expect(failing).rejects.toThrow('x');
    expect(await all).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('a1-')).toBeLessThan(log.indexOf('a2+'));
    expect(log.indexOf('b1+')).toBeLessThan(log.indexOf('a1-'));
    expect(m.size).toBe(0);
  });
});
