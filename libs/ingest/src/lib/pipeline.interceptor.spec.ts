import type { IndexMetadata, IndexRequest, IndexRequestContext } from '@strata/core-engine';
import { PipelineIndexInterceptor } from './pipeline.interceptor.js';
import { newService } from './testing/helpers.js';
import type { JsonObject } from './ingest-document.js';

function meta(name: string, settings: Record<string, unknown>): IndexMetadata {
  return {
    name, uuid: 'u', settings, mappings: {}, mappingVersion: 1, settingsVersion: 1, aliasesVersion: 1, aliases: {},
    state: 'open', numberOfShards: 1, numberOfReplicas: 0, creationDate: 0, primaryTerms: [1],
  };
}

function ctx(indices: Record<string, Record<string, unknown>>): IndexRequestContext {
  return {
    indexMetadata: (n) => (indices[n] ? meta(n, indices[n]) : undefined),
    exists: (n) => n in indices,
  };
}

function req(index: string, source: JsonObject, extra: Partial<IndexRequest> = {}): IndexRequest {
  return { index, opType: 'index', source, attributes: {}, ...extra };
}

async function setup(pipelines: Record<string, JsonObject>) {
  const { service, store } = newService();
  for (const [id, cfg] of Object.entries(pipelines)) await service.put(id, cfg);
  return { service, store, interceptor: new PipelineIndexInterceptor(service) };
}

const setP = (field: string) => ({ processors: [{ set: { field, value: true } }] });

describe('PipelineIndexInterceptor', () => {
  it('has order 100 and passes requests without pipelines through untouched', async () => {
    const { interceptor } = await setup({});
    expect(interceptor.order).toBe(100);
    const r = req('i', { a: 1 });
    expect(await interceptor.intercept(r, ctx({ i: {} }))).toEqual({ kind: 'continue', request: r });
  });

  it('runs ?pipeline and rewrites metadata (_id, _routing, _index)', async () => {
    const { interceptor } = await setup({
      p: { processors: [{ set: { field: '_id', value: 'new-{{a}}' } }, { set: { field: '_routing', value: 'r' } }, { set: { field: 'b', value: 2 } }] },
    });
    const out = await interceptor.intercept(req('i', { a: 1 }, { pipeline: 'p', id: 'x' }), ctx({ i: {} }));
    expect(out).toMatchObject({ kind: 'continue', request: { index: 'i', id: 'new-1', routing: 'r', source: { a: 1, b: 2 }, pipeline: undefined } });
    if (out.kind === 'continue') expect(out.request.attributes['ingest.executed']).toBe(true);
  });

  it('default pipeline, request pipeline overrides it, _none disables it; final pipeline always runs', async () => {
    const { interceptor } = await setup({ def: setP('d'), fin: setP('f'), req: setP('r') });
    const c = ctx({ i: { 'index.default_pipeline': 'def', 'index.final_pipeline': 'fin' } });
    expect(await interceptor.intercept(req('i', {}), c)).toMatchObject({ request: { source: { d: true, f: true } } });
    expect(await interceptor.intercept(req('i', {}, { pipeline: 'req' }), c)).toMatchObject({ request: { source: { r: true, f: true } } });
    // a null pipeline (winston sends `"pipeline": null`) means "not given"
    expect(await interceptor.intercept(req('i', {}, { pipeline: null as unknown as string }), c)).toMatchObject({ request: { source: { d: true, f: true } } });
    const none = await interceptor.intercept(req('i', {}, { pipeline: '_none' }), c);
    expect(none).toMatchObject({ request: { source: { f: true } } });
  });

  it('drop → drop; failures → fail with the ES error; missing pipeline', async () => {
    const { interceptor, service } = await setup({ d: { processors: [{ drop: {} }] }, f: { processors: [{ fail: { message: 'no {{a}}' } }] } });
    expect(await interceptor.intercept(req('i', {}, { pipeline: 'd' }), ctx({}))).toEqual({ kind: 'drop' });
    const f = await interceptor.intercept(req('i', { a: 'way' }, { pipeline: 'f' }), ctx({}));
    expect(f).toMatchObject({ kind: 'fail', error: { type: 'fail_processor_exception', reason: 'no way' } });
    const m = await interceptor.intercept(req('i', {}, { pipeline: 'missing' }), ctx({}));
    expect(m).toMatchObject({ kind: 'fail', error: { type: 'illegal_argument_exception', reason: 'pipeline with id [missing] does not exist' } });
    expect(service.total.toJson()).toMatchObject({ count: 3, failed: 2, current: 0 });
  });

  it('reroute runs the new index default and final pipelines; a plain _index change only its final pipeline', async () => {
    const { interceptor } = await setup({
      move: { processors: [{ set: { field: '_index', value: 'b' } }] },
      reroute: { processors: [{ reroute: { destination: 'b' } }] },
      bdef: setP('b_default'),
      bfin: setP('b_final'),
      afin: setP('a_final'),
    });
    const c = ctx({ a: { 'index.final_pipeline': 'afin' }, b: { 'index.default_pipeline': 'bdef', 'index.final_pipeline': 'bfin' } });
    expect(await interceptor.intercept(req('a', {}, { pipeline: 'move' }), c)).toMatchObject({
      kind: 'continue',
      request: { index: 'b', source: { b_final: true } },
    });
    const out = await interceptor.intercept(req('a', {}, { pipeline: 'reroute' }), c);
    expect(out).toMatchObject({ kind: 'continue', request: { index: 'b', source: { b_default: true, b_final: true } } });
    if (out.kind === 'continue') expect(out.request.source['a_final']).toBeUndefined();
  });

  it('index cycles fail as ES', async () => {
    const { interceptor } = await setup({ toB: { processors: [{ reroute: { destination: 'b' } }] }, toA: { processors: [{ reroute: { destination: 'a' } }] } });
    const c = ctx({ a: { 'index.default_pipeline': 'toB' }, b: { 'index.default_pipeline': 'toA' } });
    const out = await interceptor.intercept(req('a', {}, { id: '1' }), c);
    expect(out).toMatchObject({
      kind: 'fail',
      error: { type: 'illegal_state_exception', reason: 'index cycle detected while processing pipeline [toA] for document [1]: [a, b, a]' },
    });
  });

  it('a final pipeline may not change the index', async () => {
    const { interceptor } = await setup({ fin: { processors: [{ set: { field: '_index', value: 'zz' } }] } });
    const out = await interceptor.intercept(req('a', {}), ctx({ a: { 'index.final_pipeline': 'fin' } }));
    expect(out).toMatchObject({ kind: 'fail', error: { type: 'illegal_state_exception' } });
    if (out.kind === 'fail') expect(out.error.reason).toBe("final pipeline [fin] can't change the target index (from [a] to [zz]) for document [null]");
  });

  it('reroute skips the rest and resolves date-math names from date_index_name', async () => {
    const { interceptor } = await setup({
      r: { processors: [{ reroute: { destination: 'elsewhere' } }, { set: { field: 'never', value: 1 } }] },
      din: { processors: [{ date_index_name: { field: 'ts', index_name_prefix: 'logs-', date_rounding: 'd' } }] },
    });
    expect(await interceptor.intercept(req('a', {}, { pipeline: 'r' }), ctx({}))).toMatchObject({ request: { index: 'elsewhere', source: {} } });
    expect(await interceptor.intercept(req('a', { ts: '2021-03-04T05:06:07Z' }, { pipeline: 'din' }), ctx({}))).toMatchObject({
      request: { index: 'logs-2021-03-04' },
    });
  });

  it('does not run twice for the same request', async () => {
    const { interceptor } = await setup({ p: { processors: [{ append: { field: 'n', value: 1 } }] } });
    const first = await interceptor.intercept(req('i', {}, { pipeline: 'p' }), ctx({}));
    if (first.kind !== 'continue') throw new Error('expected continue');
    const second = await interceptor.intercept(first.request, ctx({}));
    expect(second).toMatchObject({ request: { source: { n: [1] } } });
  });

  it('resolves settings through an alias write index and through matching index templates', async () => {
    const { interceptor, store } = await setup({ def: setP('d'), tdef: setP('from_template'), comp: setP('from_component') });
    await store.update((d) => {
      const m = meta('real', { 'index.default_pipeline': 'def' });
      m.aliases = { al: { is_write_index: true } };
      d.indices['real'] = m;
      d.custom['index_template'] = {
        low: { index_patterns: ['logs-*'], priority: 1, template: { settings: { index: { default_pipeline: 'comp' } } } },
        high: { index_patterns: ['logs-app*'], priority: 10, template: { settings: { 'index.default_pipeline': 'tdef' } } },
      };
    });
    expect(await interceptor.intercept(req('al', {}), ctx({}))).toMatchObject({ request: { source: { d: true } } });
    expect(await interceptor.intercept(req('logs-app-1', {}), ctx({}))).toMatchObject({ request: { source: { from_template: true } } });
    expect(await interceptor.intercept(req('logs-other', {}), ctx({}))).toMatchObject({ request: { source: { from_component: true } } });
    expect(await interceptor.intercept(req('nomatch', { a: 1 }), ctx({}))).toMatchObject({ request: { source: { a: 1 } } });
  });

  it('resolves data streams through the engine resolver (write index settings)', async () => {
    const { service, store } = await setup({ dsdef: setP('from_stream') });
    await store.update((d) => {
      d.indices['.ds-logs-x-000001'] = meta('.ds-logs-x-000001', { 'index.default_pipeline': 'dsdef' });
    });
    const resolver = {
      writeIndex: (n: string) => (n === 'logs-x' ? '.ds-logs-x-000001' : undefined),
      concreteIndices: () => [],
    };
    const interceptor = new PipelineIndexInterceptor(service, resolver);
    expect(await interceptor.intercept(req('logs-x', {}), ctx({}))).toMatchObject({ request: { source: { from_stream: true } } });
  });

  it('counts bytes ingested/produced for the first pipeline', async () => {
    const { interceptor, service } = await setup({ p: { processors: [{ set: { field: 'b', value: 'xy' } }] } });
    for (let i = 0; i < 16; i++) await interceptor.intercept(req('i', { a: 1 }, { pipeline: 'p' }), ctx({}));
    const stats = service.nodeStats() as { pipelines: Record<string, Record<string, unknown>> };
    // sampled estimate: exact here since every document has the same size
    expect(stats.pipelines['p']).toMatchObject({
      ingested_as_first_pipeline_in_bytes: 16 * JSON.stringify({ a: 1 }).length,
      produced_as_first_pipeline_in_bytes: 16 * JSON.stringify({ a: 1, b: 'xy' }).length,
    });
  });
});
