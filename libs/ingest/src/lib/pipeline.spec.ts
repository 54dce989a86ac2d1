import { doc, newService } from './testing/helpers.js';
import type { JsonObject } from './ingest-document.js';
import { unwrapFailure } from './pipeline.js';

async function setup(pipelines: Record<string, JsonObject>) {
  const { service, store } = newService();
  for (const [id, cfg] of Object.entries(pipelines)) await service.put(id, cfg);
  return { service, store };
}

function exec(service: Awaited<ReturnType<typeof setup>>['service'], id: string, source: JsonObject) {
  return service.requirePipeline(id).execute(doc(source), service.executionContext());
}

describe('pipeline execution', () => {
  it('runs processors in order', async () => {
    const { service } = await setup({
      p: { processors: [{ set: { field: 'a', value: 1 } }, { rename: { field: 'a', target_field: 'b' } }] },
    });
    expect(exec(service, 'p', {})!.source).toEqual({ b: 1 });
  });

  it('pipeline-level on_failure runs after a failure and skips the rest; failure metadata is available', async () => {
    const { service } = await setup({
      p: {
        processors: [
          { set: { field: 'a', value: 1 } },
          { rename: { field: 'missing', target_field: 'x', tag: 'r1' } },
          { set: { field: 'never', value: true } },
        ],
        on_failure: [
          {
            set: {
              field: 'err',
              value: '{{_ingest.on_failure_message}}|{{_ingest.on_failure_processor_type}}|{{_ingest.on_failure_processor_tag}}|{{_ingest.on_failure_pipeline}}',
            },
          },
        ],
      },
    });
    const d = exec(service, 'p', {})!;
    expect(d.source).toEqual({ a: 1, err: "field [missing] doesn't exist|rename|r1|p" });
    expect(d.ingest['on_failure_message']).toBeUndefined();
  });

  it('processor-level on_failure continues with the next processor', async () => {
    const { service } = await setup({
      p: {
        processors: [
          { rename: { field: 'missing', target_field: 'x', on_failure: [{ set: { field: 'handled', value: '{{_ingest.on_failure_processor_type}}' } }] } },
          { set: { field: 'after', value: true } },
        ],
        on_failure: [{ set: { field: 'pipeline_handler', value: true } }],
      },
    });
    expect(exec(service, 'p', {})!.source).toEqual({ handled: 'rename', after: true });
  });

  it('ignore_failure swallows the error', async () => {
    const { service } = await setup({
      p: { processors: [{ rename: { field: 'missing', target_field: 'x', ignore_failure: true } }, { set: { field: 'ok', value: 1 } }] },
    });
    expect(exec(service, 'p', {})!.source).toEqual({ ok: 1 });
  });

  it('an unhandled failure propagates with the original error', async () => {
    const { service } = await setup({ p: { processors: [{ convert: { field: 'a', type: 'integer' } }] } });
    let err: unknown;
    try {
      exec(service, 'p', { a: 'x' });
    } catch (e) {
      err = unwrapFailure(e);
    }
    expect(err).toMatchObject({ type: 'illegal_argument_exception', reason: 'unable to convert [x] to integer' });
    expect(service.requirePipeline('p').stats.failed).toBe(1);
    expect(service.requirePipeline('p').processors[0].stats.failed).toBe(1);
  });

  it('if conditions skip processors', async () => {
    const { service } = await setup({
      p: {
        processors: [
          { set: { field: 'a', value: 'yes', if: "ctx.kind == 'x'" } },
          { set: { field: 'b', value: 'yes', if: "ctx.kind?.startsWith('y') == true" } },
          { drop: { if: 'ctx.dropme == true' } },
        ],
      },
    });
    expect(exec(service, 'p', { kind: 'x' })!.source).toEqual({ kind: 'x', a: 'yes' });
    expect(exec(service, 'p', { kind: 'yz' })!.source).toEqual({ kind: 'yz', b: 'yes' });
    expect(exec(service, 'p', { dropme: true })).toBeNull();
  });

  it('conditions cannot modify the document and must be boolean', async () => {
    const { service } = await setup({
      p: { processors: [{ set: { field: 'a', value: 1, if: "ctx.b = 'x'" } }] },
      q: { processors: [{ set: { field: 'a', value: 1, if: 'ctx.n' } }] },
    });
    expect(() => exec(service, 'p', {})).toThrow();
    expect(() => exec(service, 'q', { n: 1 })).toThrow();
  });

  it('a bad condition is rejected at PUT time', async () => {
    const { service } = newService();
    await expect(service.put('p', { processors: [{ set: { field: 'a', value: 1, if: 'ctx.a ==' } }] })).rejects.toMatchObject({
      type: 'script_exception',
      reason: 'compile error',
      metadata: { processor_type: 'conditional', lang: 'painless' },
    });
  });

  it('nested pipelines, missing pipelines and cycles', async () => {
    const { service } = await setup({
      inner: { processors: [{ set: { field: 'inner', value: '{{_ingest.pipeline}}' } }] },
      outer: { processors: [{ pipeline: { name: 'inner' } }, { set: { field: 'outer', value: '{{_ingest.pipeline}}' } }] },
      a: { processors: [{ pipeline: { name: 'b' } }] },
      b: { processors: [{ pipeline: { name: 'a' } }] },
      m: { processors: [{ pipeline: { name: 'nope' } }] },
      mi: { processors: [{ pipeline: { name: 'nope', ignore_missing_pipeline: true } }] },
    });
    expect(exec(service, 'outer', {})!.source).toEqual({ inner: 'inner', outer: 'outer' });
    expect(() => exec(service, 'a', {})).toThrow();
    try {
      exec(service, 'a', {});
    } catch (e) {
      expect(unwrapFailure(e)).toMatchObject({ type: 'graph_structure_exception', reason: 'Cycle detected for pipeline: a' });
    }
    try {
      exec(service, 'm', {});
    } catch (e) {
      expect(unwrapFailure(e).reason).toBe('Pipeline processor configured for non-existent pipeline [nope]');
    }
    expect(exec(service, 'mi', { x: 1 })!.source).toEqual({ x: 1 });
  });

  it('a drop inside a nested pipeline drops the document', async () => {
    const { service } = await setup({
      inner: { processors: [{ drop: {} }] },
      outer: { processors: [{ pipeline: { name: 'inner' } }, { set: { field: 'x', value: 1 } }] },
    });
    expect(exec(service, 'outer', {})).toBeNull();
  });

  it('foreach over lists and maps', async () => {
    const { service } = await setup({
      p: { processors: [{ foreach: { field: 'l', processor: { uppercase: { field: '_ingest._value' } } } }] },
      m: { processors: [{ foreach: { field: 'm', processor: { set: { field: '_ingest._value', value: '{{_ingest._key}}!' } } } }] },
      o: { processors: [{ foreach: { field: 'l', processor: { set: { field: '_ingest._value.seen', value: true } } } }] },
    });
    expect(exec(service, 'p', { l: ['a', 'b'] })!.source).toEqual({ l: ['A', 'B'] });
    expect(exec(service, 'm', { m: { x: 1, y: 2 } })!.source).toEqual({ m: { x: 'x!', y: 'y!' } });
    expect(exec(service, 'o', { l: [{ a: 1 }, { a: 2 }] })!.source).toEqual({ l: [{ a: 1, seen: true }, { a: 2, seen: true }] });
    expect(() => exec(service, 'p', { l: 'x' })).toThrow();
  });

  it('script processor', async () => {
    const { service } = await setup({
      p: { processors: [{ script: { source: 'ctx.x = ctx.y * params.f', params: { f: 2 } } }] },
      s: { processors: [{ script: "ctx.z = 'q'" }] },
    });
    expect(exec(service, 'p', { y: 21 })!.source).toEqual({ y: 21, x: 42 });
    expect(exec(service, 's', {})!.source).toEqual({ z: 'q' });
  });

  it('a script building a self-referencing source fails instead of crashing serialisation', async () => {
    const { service } = await setup({ c: { processors: [{ script: 'ctx.a = ctx' }] }, l: { processors: [{ script: 'def m = [:]; m.self = m; ctx.m = m' }] } });
    for (const id of ['c', 'l']) {
      let err: unknown;
      try {
        exec(service, id, {});
      } catch (e) {
        err = unwrapFailure(e);
      }
      expect(err).toMatchObject({ type: 'illegal_argument_exception', reason: 'Iterable object is self-referencing itself (ingest script)' });
    }
  });

  it('reroute stops the pipeline and sets _index', async () => {
    const { service } = await setup({
      d: { processors: [{ reroute: { destination: 'other' } }, { set: { field: 'never', value: 1 } }] },
      ds: { processors: [{ reroute: { dataset: '{{service.name}}', namespace: 'prod' } }] },
    });
    const d = exec(service, 'd', {})!;
    expect(d.meta['_index']).toBe('other');
    expect(d.source).toEqual({});
    const r = service.requirePipeline('ds').execute(doc({ service: { name: 'My-App' } }, { _index: 'logs-generic-default', _id: '1' }), service.executionContext())!;
    expect(r.meta['_index']).toBe('logs-my_app-prod');
    expect(r.source['data_stream']).toEqual({ type: 'logs', dataset: 'my_app', namespace: 'prod' });
  });

  it('stats count executions per pipeline and processor', async () => {
    const { service } = await setup({ p: { processors: [{ set: { field: 'a', value: 1, tag: 't' } }, { set: { field: 'b', value: 1, if: 'false' } }] } });
    exec(service, 'p', {});
    exec(service, 'p', {});
    const stats = service.nodeStats() as { pipelines: Record<string, JsonObject> };
    expect(stats.pipelines['p']).toMatchObject({
      count: 2,
      failed: 0,
      current: 0,
      processors: [
        { 'set:t': { type: 'set', stats: { count: 2, failed: 0, current: 0 } } },
        { set: { type: 'set', stats: { count: 0, failed: 0, current: 0 } } },
      ],
    });
  });

  it('stats survive unrelated metadata changes; an updated pipeline keeps its pipeline-level counters', async () => {
    const { service, store } = await setup({ p: { processors: [{ set: { field: 'a', value: 1 } }] } });
    exec(service, 'p', {});
    await store.update((d) => {
      d.persistentSettings['x'] = 1;
    });
    await service.put('other', { processors: [] });
    expect(service.requirePipeline('p').processors[0].stats.count).toBe(1);
    await service.put('p', { processors: [{ set: { field: 'a', value: 2 } }] });
    expect(service.requirePipeline('p').stats.count).toBe(1);
    expect(exec(service, 'p', {})!.source).toEqual({ a: 2 });
  });

  it('an entry with several keys defines several processors, as in Elasticsearch', async () => {
    const { service } = await setup({ p: { processors: [{ set: { field: 'a', value: 1 }, lowercase: { field: 'b' } }] } });
    expect(service.requirePipeline('p').processors.map((x) => x.type)).toEqual(['set', 'lowercase']);
    expect(exec(service, 'p', { b: 'X' })!.source).toEqual({ b: 'x', a: 1 });
    await expect(service.put('q', { processors: [{ set: 'x' }] })).rejects.toMatchObject({
      type: 'parse_exception',
      reason: "property isn't a map, but of type [java.lang.String]",
      metadata: { processor_type: 'set' },
    });
  });
});
