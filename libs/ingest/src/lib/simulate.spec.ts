import { EsError } from '@strata/core-common';
import { newService } from './testing/helpers.js';
import { simulate } from './simulate.js';

const TS = '2024-05-17T10:11:12.345Z';

function err(fn: () => unknown): Record<string, unknown> {
  try {
    fn();
  } catch (e) {
    if (e instanceof EsError) return e.toBody().error;
    throw e;
  }
  throw new Error('expected an error');
}

describe('simulate', () => {
  it('inline pipeline, non-verbose: doc with metadata and _ingest.timestamp', () => {
    const { service } = newService();
    const out = simulate(
      service,
      {
        pipeline: { processors: [{ set: { field: 'field2', value: '_value' } }] },
        docs: [{ _index: 'index', _id: 'id', _source: { foo: 'bar' } }, { _source: { foo: 'rab' } }],
      },
      undefined,
      false,
    );
    expect(out).toEqual({
      docs: [
        { doc: { _index: 'index', _id: 'id', _version: '-3', _source: { foo: 'bar', field2: '_value' }, _ingest: { timestamp: TS } } },
        { doc: { _index: '_index', _id: '_id', _version: '-3', _source: { foo: 'rab', field2: '_value' }, _ingest: { timestamp: TS } } },
      ],
    });
  });

  it('verbose: processor_results with status, tag, description, if and _simulate_pipeline', () => {
    const { service } = newService();
    const out = simulate(
      service,
      {
        pipeline: {
          processors: [
            { set: { field: 'a', value: 1, tag: 't1', description: 'first' } },
            { set: { field: 'b', value: 2, if: 'ctx.a == 2' } },
            { set: { field: 'c', value: 3, if: 'ctx.a == 1' } },
            { rename: { field: 'nope', target_field: 'x', ignore_failure: true } },
          ],
        },
        docs: [{ _source: {} }],
      },
      undefined,
      true,
    );
    const results = (out['docs'] as Array<{ processor_results: Array<Record<string, unknown>> }>)[0].processor_results;
    expect(results).toHaveLength(4);
    expect(results[0]).toEqual({
      processor_type: 'set',
      status: 'success',
      tag: 't1',
      description: 'first',
      doc: { _index: '_index', _id: '_id', _version: '-3', _source: { a: 1 }, _ingest: { pipeline: '_simulate_pipeline', timestamp: TS } },
    });
    expect(results[1]).toEqual({ processor_type: 'set', status: 'skipped', if: { condition: 'ctx.a == 2', result: false } });
    expect(results[2]).toMatchObject({ processor_type: 'set', status: 'success', if: { condition: 'ctx.a == 1', result: true } });
    expect(results[3]).toMatchObject({
      processor_type: 'rename',
      status: 'error_ignored',
      ignored_error: { error: { type: 'illegal_argument_exception', reason: "field [nope] doesn't exist" } },
    });
  });

  it('verbose: errors, on_failure handlers and drops', () => {
    const { service } = newService();
    const out = simulate(
      service,
      {
        pipeline: {
          processors: [{ rename: { field: 'nope', target_field: 'x' } }],
          on_failure: [{ set: { field: 'error', value: '{{_ingest.on_failure_message}}' } }, { drop: {} }],
        },
        docs: [{ _source: {} }],
      },
      undefined,
      true,
    );
    const results = (out['docs'] as Array<{ processor_results: Array<Record<string, unknown>> }>)[0].processor_results;
    expect(results.map((r) => `${r['processor_type']}:${r['status']}`)).toEqual(['rename:error', 'set:success', 'drop:dropped']);
    expect(results[0]['error']).toEqual({
      root_cause: [{ type: 'illegal_argument_exception', reason: "field [nope] doesn't exist" }],
      type: 'illegal_argument_exception',
      reason: "field [nope] doesn't exist",
    });
    expect((results[1]['doc'] as { _source: unknown })._source).toEqual({ error: "field [nope] doesn't exist" });
  });

  it('non-verbose: per-document errors and dropped documents', () => {
    const { service } = newService();
    const out = simulate(
      service,
      {
        pipeline: { processors: [{ convert: { field: 'n', type: 'integer' } }, { drop: { if: 'ctx.n == 0' } }] },
        docs: [{ _source: { n: 'x' } }, { _source: { n: '0' } }, { _source: { n: '5' } }],
      },
      undefined,
      false,
    );
    const docs = out['docs'] as unknown[];
    expect(docs[0]).toEqual({
      error: {
        root_cause: [{ type: 'illegal_argument_exception', reason: 'unable to convert [x] to integer' }],
        type: 'illegal_argument_exception',
        reason: 'unable to convert [x] to integer',
      },
    });
    expect(docs[1]).toBeNull();
    expect((docs[2] as { doc: { _source: unknown } }).doc._source).toEqual({ n: 5 });
  });

  it('path pipeline wins over the body pipeline; metadata readable and writable', async () => {
    const { service } = newService();
    await service.put('stored', { processors: [{ set: { field: '_routing', value: '{{_id}}-r' } }, { set: { field: 'idx', value: '{{_index}}' } }] });
    const out = simulate(
      service,
      { pipeline: { processors: [{ set: { field: 'body', value: 1 } }] }, docs: [{ _index: 'i', _id: '7', _source: {} }] },
      'stored',
      false,
    );
    expect(out).toEqual({
      docs: [{ doc: { _index: 'i', _id: '7', _routing: '7-r', _version: '-3', _source: { idx: 'i' }, _ingest: { timestamp: TS } } }],
    });
    const v = simulate(service, { docs: [{ _source: {} }] }, 'stored', true);
    const r = (v['docs'] as Array<{ processor_results: Array<{ doc: { _ingest: unknown } }> }>)[0].processor_results[0];
    expect(r.doc._ingest).toEqual({ pipeline: 'stored', timestamp: TS });
  });

  it('request validation', () => {
    const { service } = newService();
    expect(err(() => simulate(service, { docs: [{ _source: {} }] }, undefined, false))).toMatchObject({
      type: 'parse_exception',
      reason: '[pipeline] required property is missing',
    });
    expect(err(() => simulate(service, { pipeline: { description: 'x' }, docs: [{ _source: {} }] }, undefined, false))).toMatchObject({
      type: 'parse_exception',
      reason: '[processors] required property is missing',
    });
    expect(err(() => simulate(service, { pipeline: { processors: [] } }, undefined, false))).toMatchObject({
      type: 'parse_exception',
      reason: '[docs] required property is missing',
    });
    expect(err(() => simulate(service, { pipeline: { processors: [] }, docs: [] }, undefined, false))).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'must specify at least one document in [docs]',
    });
    expect(err(() => simulate(service, { pipeline: { processors: [] }, docs: [{ _id: 'x' }] }, undefined, false))).toMatchObject({
      type: 'parse_exception',
      reason: '[_source] required property is missing',
    });
    expect(err(() => simulate(service, { pipeline: { processors: [] }, docs: ['x'] }, undefined, false))).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'malformed [docs] section, should include an inner object',
    });
    expect(err(() => simulate(service, { pipeline: { processors: [] }, docs: [{ _source: {}, _version: null }] }, undefined, false))).toMatchObject({
      reason: '[_version] cannot be null',
    });
    expect(err(() => simulate(service, { docs: [{ _source: {} }] }, 'missing', false))).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'pipeline [missing] does not exist',
    });
  });

  it('verbose: nested pipelines list the pipeline processor before the nested results; missing pipelines', async () => {
    const { service } = newService();
    await service.put('inner', { processors: [{ set: { field: 'in', value: '{{_ingest.pipeline}}' } }] });
    const out = simulate(
      service,
      {
        pipeline: {
          processors: [
            { pipeline: { name: 'inner', tag: 'call', if: 'true' } },
            { pipeline: { name: 'nope', ignore_missing_pipeline: true } },
            { set: { field: 'after', value: 1 } },
          ],
        },
        docs: [{ _source: {} }],
      },
      undefined,
      true,
    );
    const results = (out['docs'] as Array<{ processor_results: Array<Record<string, any>> }>)[0].processor_results;
    expect(results.map((r) => `${r['processor_type']}:${r['status']}`)).toEqual([
      'pipeline:success',
      'set:success',
      'pipeline:error_ignored',
      'set:success',
    ]);
    expect(results[0]).toEqual({ processor_type: 'pipeline', status: 'success', tag: 'call', if: { condition: 'true', result: true } });
    expect(results[1]['doc']['_source']).toEqual({ in: 'inner' });
    expect(results[1]['doc']['_ingest']['pipeline']).toBe('inner');
    expect(results[2]['ignored_error']['error']['reason']).toBe('Pipeline processor configured for non-existent pipeline [nope]');
    const missing = simulate(service, { pipeline: { processors: [{ pipeline: { name: 'nope' } }] }, docs: [{ _source: {} }] }, undefined, true);
    const r2 = (missing['docs'] as Array<{ processor_results: Array<Record<string, any>> }>)[0].processor_results;
    expect(r2).toHaveLength(1);
    expect(r2[0]).toMatchObject({ processor_type: 'pipeline', status: 'error', error: { type: 'illegal_state_exception' } });
  });

  it('document metadata in, as strings out', () => {
    const { service } = newService();
    const out = simulate(
      service,
      { pipeline: { processors: [] }, docs: [{ _index: 5, _id: 7, _routing: 'r', _version: '3', _version_type: 'external', _if_seq_no: 1, _if_primary_term: 2, _source: {} }] },
      undefined,
      false,
    );
    expect((out['docs'] as Array<{ doc: unknown }>)[0].doc).toEqual({
      _index: '5',
      _id: '7',
      _routing: 'r',
      _version: '3',
      _version_type: 'external',
      _if_seq_no: '1',
      _if_primary_term: '2',
      _source: {},
      _ingest: { timestamp: TS },
    });
  });
});
