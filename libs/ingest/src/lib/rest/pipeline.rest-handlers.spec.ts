import { EsError } from '@strata/core-common';
import { fakeRequest } from '../testing/fake-request.js';
import { InMemoryMetadataStore } from '@strata/core-engine';
import { fixedClock, newService } from '../testing/helpers.js';
import { IngestService } from '../ingest.service.js';
import { BUILTIN_PROCESSORS } from '../processors/index.js';
import {
  DeletePipelineRestHandler,
  GetPipelineRestHandler,
  GrokPatternsRestHandler,
  PutPipelineRestHandler,
  SimulatePipelineRestHandler,
} from './pipeline.rest-handlers.js';

function handlers() {
  const { service, store } = newService();
  return {
    service,
    store,
    put: new PutPipelineRestHandler(service),
    get: new GetPipelineRestHandler(service),
    del: new DeletePipelineRestHandler(service),
    sim: new SimulatePipelineRestHandler(service),
    grok: new GrokPatternsRestHandler(),
  };
}

async function error(p: Promise<unknown> | (() => unknown)): Promise<ReturnType<EsError['toBody']>> {
  try {
    if (typeof p === 'function') await p();
    else await p;
  } catch (e) {
    if (e instanceof EsError) return e.toBody();
    throw e;
  }
  throw new Error('expected an error');
}

const SET = { processors: [{ set: { field: 'foo', value: 'bar' } }] };

describe('PUT/GET/DELETE _ingest/pipeline', () => {
  it('routes and action names', () => {
    const h = handlers();
    expect(h.put.routes).toEqual([{ method: 'PUT', path: '/_ingest/pipeline/{id}', action: 'cluster:admin/ingest/pipeline/put' }]);
    expect(h.get.routes.map((r) => r.path)).toEqual(['/_ingest/pipeline', '/_ingest/pipeline/{id}']);
    expect(h.del.routes[0].action).toBe('cluster:admin/ingest/pipeline/delete');
    expect(h.sim.routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /_ingest/pipeline/_simulate',
      'POST /_ingest/pipeline/_simulate',
      'GET /_ingest/pipeline/{id}/_simulate',
      'POST /_ingest/pipeline/{id}/_simulate',
    ]);
    expect(h.grok.routes[0].action).toBe('cluster:admin/ingest/processor/grok/get');
  });

  it('creates, reads back (with _meta), replaces without _meta, deletes', async () => {
    const h = handlers();
    const body = { description: 'd', version: 3, _meta: { owner: 'me' }, ...SET };
    expect(await h.put.handle(fakeRequest({ method: 'PUT', pathParams: { id: 'p1' }, body }))).toEqual({ status: 200, body: { acknowledged: true } });
    expect(h.get.handle(fakeRequest({ pathParams: { id: 'p1' } }))).toEqual({ status: 200, body: { p1: body } });
    await h.put.handle(fakeRequest({ method: 'PUT', pathParams: { id: 'p1' }, body: SET }));
    expect(h.get.handle(fakeRequest({ pathParams: { id: 'p1' } })).body).toEqual({ p1: SET });
    expect(h.store.current().custom['ingest']).toEqual({ pipelines: { p1: SET } });
    expect(await h.del.handle(fakeRequest({ method: 'DELETE', pathParams: { id: 'p1' } }))).toEqual({ status: 200, body: { acknowledged: true } });
    expect(h.get.handle(fakeRequest({ pathParams: { id: 'p1' } }))).toEqual({ status: 404, body: {} });
  });

  it('GET lists, comma lists and wildcards; 404 {} when nothing matches', async () => {
    const h = handlers();
    for (const id of ['a1', 'a2', 'b1']) await h.service.put(id, SET);
    expect(Object.keys(h.get.handle(fakeRequest({})).body as object).sort()).toEqual(['a1', 'a2', 'b1']);
    expect(Object.keys(h.get.handle(fakeRequest({ pathParams: { id: 'a*' } })).body as object).sort()).toEqual(['a1', 'a2']);
    expect(Object.keys(h.get.handle(fakeRequest({ pathParams: { id: 'b1,a2' } })).body as object).sort()).toEqual(['a2', 'b1']);
    expect(h.get.handle(fakeRequest({ pathParams: { id: 'zz*' } }))).toEqual({ status: 404, body: {} });
    expect(h.get.handle(fakeRequest({ pathParams: { id: 'a1' }, params: { summary: 'true' } })).body).toEqual({ a1: {} });
  });

  it('validation at PUT time', async () => {
    const h = handlers();
    const put = (body: unknown) => h.put.handle(fakeRequest({ method: 'PUT', pathParams: { id: 'x' }, body }));
    expect(await error(put({ processors: [{ foo: {} }] }))).toEqual({
      error: {
        root_cause: [{ type: 'parse_exception', reason: 'No processor type exists with name [foo]', processor_type: 'foo' }],
        type: 'parse_exception',
        reason: 'No processor type exists with name [foo]',
        processor_type: 'foo',
      },
      status: 400,
    });
    expect((await error(put({ processors: [{ set: { value: 1 } }] }))).error).toMatchObject({
      type: 'parse_exception',
      reason: '[field] required property is missing',
      processor_type: 'set',
      property_name: 'field',
    });
    expect((await error(put({ description: 'x' }))).error).toMatchObject({ type: 'parse_exception', reason: '[processors] required property is missing' });
    expect((await error(put({ processors: [{ grok: { field: 'm', patterns: ['%{BAD}'] } }] }))).error).toMatchObject({
      type: 'parse_exception',
      processor_type: 'grok',
      property_name: 'patterns',
    });
    expect((await error(put(undefined))).error).toMatchObject({ type: 'parse_exception' });
    expect((await error(put({ processors: 'x' }))).error).toMatchObject({
      type: 'parse_exception',
      reason: "[processors] property isn't a list, but of type [java.lang.String]",
      property_name: 'processors',
    });
    expect((await error(put({ processors: [], version: 'abc' }))).error).toMatchObject({
      reason: '[version] property cannot be converted to an int [abc]',
    });
    expect((await error(put({ processors: [], _meta: 'm' }))).error).toMatchObject({
      reason: "[_meta] property isn't a map, but of type [java.lang.String]",
    });
    expect((await error(put({ processors: [], on_failure: [] }))).error).toEqual({
      root_cause: [{ type: 'parse_exception', reason: 'pipeline [x] cannot have an empty on_failure option defined' }],
      type: 'parse_exception',
      reason: 'pipeline [x] cannot have an empty on_failure option defined',
    });
    expect((await error(put({ processors: [{ set: { field: 'a', value: 1, on_failure: [] } }] }))).error).toMatchObject({
      reason: '[on_failure] processors list cannot be empty',
      processor_type: 'set',
      property_name: 'on_failure',
    });
    expect(h.store.current().custom['ingest']).toBeUndefined();
  });

  it('if_version: conflicts and version increments', async () => {
    const h = handlers();
    const put = (body: unknown, ifVersion?: string) =>
      h.put.handle(fakeRequest({ method: 'PUT', pathParams: { id: 'v' }, body, params: ifVersion ? { if_version: ifVersion } : {} }));
    expect((await error(put(SET, '1'))).error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'version conflict, required version [1] for pipeline [v] but no pipeline was found',
    });
    await put(SET);
    expect((await error(put(SET, '1'))).error).toMatchObject({
      reason: 'version conflict, required version [1] for pipeline [v] but current version is [null]',
    });
    await put({ ...SET, version: 1 });
    await put(SET, '1');
    expect(h.service.get('v')['v']['version']).toBe(2);
    expect((await error(put({ ...SET, version: 2 }, '2'))).error).toMatchObject({
      reason: 'cannot update pipeline [v] with the same version [2]',
    });
    await put({ ...SET, version: 10 }, '2');
    expect(h.service.get('v')['v']['version']).toBe(10);
    expect((await error(put(SET, '3'))).status).toBe(400);
  });

  it('DELETE: missing, wildcards, in use by an index', async () => {
    const h = handlers();
    expect(await error(h.del.handle(fakeRequest({ pathParams: { id: 'nope' } })))).toEqual({
      error: {
        root_cause: [{ type: 'resource_not_found_exception', reason: 'pipeline [nope] is missing' }],
        type: 'resource_not_found_exception',
        reason: 'pipeline [nope] is missing',
      },
      status: 404,
    });
    for (const id of ['a1', 'a2', 'b']) await h.service.put(id, SET);
    await h.del.handle(fakeRequest({ pathParams: { id: 'a*' } }));
    expect(Object.keys(h.service.get())).toEqual(['b']);
    expect((await error(h.del.handle(fakeRequest({ pathParams: { id: 'zz*' } })))).error).toMatchObject({ reason: 'pipeline [zz*] is missing' });
    await h.del.handle(fakeRequest({ pathParams: { id: '*' } }));
    await h.service.put('b', SET);
    await h.store.update((d) => {
      d.indices['logs'] = {
        name: 'logs', uuid: 'u', settings: { 'index.default_pipeline': 'b' }, mappings: {}, mappingVersion: 1, settingsVersion: 1,
        aliasesVersion: 1, aliases: {}, state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1],
      };
    });
    expect((await error(h.del.handle(fakeRequest({ pathParams: { id: 'b' } })))).error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'pipeline [b] cannot be deleted because it is the default pipeline for 1 index(es) including [logs]',
    });
  });

  it('takes effect immediately (compiled cache invalidated on change)', async () => {
    const h = handlers();
    await h.service.put('p', SET);
    expect(h.service.requirePipeline('p').processors[0].type).toBe('set');
    await h.service.put('p', { processors: [{ lowercase: { field: 'a' } }] });
    expect(h.service.requirePipeline('p').processors[0].type).toBe('lowercase');
  });
});

describe('master_timeout', () => {
  it('a metadata update slower than master_timeout fails with process_cluster_event_timeout_exception', async () => {
    const store = new InMemoryMetadataStore();
    const slow = {
      current: () => store.current(),
      onChange: (l: Parameters<typeof store.onChange>[0]) => store.onChange(l),
      update: (fn: Parameters<typeof store.update>[0]) => new Promise<ReturnType<typeof store.current>>((r) => setTimeout(() => r(store.update(fn)), 200)),
    };
    const service = new IngestService(slow, [...BUILTIN_PROCESSORS], fixedClock);
    await expect(service.put('p', SET, undefined, 20)).rejects.toMatchObject({
      type: 'process_cluster_event_timeout_exception',
      status: 503,
      reason: 'failed to process cluster event (put-pipeline-p) within 20ms',
    });
    await new Promise((r) => setTimeout(r, 250));
  });
});

describe('GET _ingest/processor/grok', () => {
  it('returns the pattern library, sorted with s=true', () => {
    const h = handlers();
    const body = h.grok.handle(fakeRequest({ params: { s: 'true' } })).body as { patterns: Record<string, string> };
    expect(body.patterns['IP']).toBe('(?:%{IPV6}|%{IPV4})');
    const keys = Object.keys(body.patterns);
    expect(keys).toEqual([...keys].sort());
    expect(keys.length).toBeGreaterThan(80);
  });
});
