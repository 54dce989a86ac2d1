import { EsError } from '@strata/core-common';
import { aggregationsNeedScores, parseAggregations, reduceAggregations, renderAggregations } from './aggregation-phase.js';
import { run, runShards, type Mapping } from './test-support.js';

const mapping: Mapping = { tag: 'keyword', n: 'long' };

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('aggregation phase', () => {
  it('empty / absent aggs', () => {
    expect(parseAggregations(undefined).isEmpty).toBe(true);
    expect(parseAggregations({}).isEmpty).toBe(true);
    expect(parseAggregations({ a: { avg: { field: 'n' } } }).isEmpty).toBe(false);
  });

  it('zero shard results render every agg empty, in request order, with typed keys', () => {
    const f = parseAggregations({
      t: { terms: { field: 'tag' } },
      a: { avg: { field: 'n' } },
      h: { date_histogram: { field: 'ts', fixed_interval: '1h' } },
      c: { cardinality: { field: 'tag' } },
      p: { percentiles: { field: 'n', percents: [50] } },
      f: { filter: { match_all: {} }, aggs: { m: { max: { field: 'n' } } } },
      th: { top_hits: {} },
      co: { composite: { sources: [{ x: { terms: { field: 'tag' } } }] } },
    });
    const out = renderAggregations(f, reduceAggregations(f, []), { typedKeys: true });
    expect(out).toEqual({
      'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
      'avg#a': { value: null },
      'date_histogram#h': { buckets: [] },
      'cardinality#c': { value: 0 },
      'tdigest_percentiles#p': { values: { '50.0': null } },
      'filter#f': { doc_count: 0, 'max#m': { value: null } },
      'top_hits#th': { hits: { total: { value: 0, relation: 'eq' }, max_score: null, hits: [] } },
      'composite#co': { buckets: [] },
    });
    expect(Object.keys(out)).toEqual(['sterms#t', 'avg#a', 'date_histogram#h', 'cardinality#c', 'tdigest_percentiles#p', 'filter#f', 'top_hits#th', 'composite#co']);
  });

  it('shard results survive structuredClone (runShards clones them) and reduce is order-independent', () => {
    const docsA = [{ tag: 'a', n: 1 }, { tag: 'b', n: 2 }];
    const docsB = [{ tag: 'a', n: 3 }];
    const aggs = { t: { terms: { field: 'tag' }, aggs: { s: { stats: { field: 'n' } }, c: { cardinality: { field: 'n' } } } } };
    const one = runShards(aggs, [[docsA], [docsB]], mapping).rendered;
    const two = runShards(aggs, [[docsB], [docsA]], mapping).rendered;
    expect(one).toEqual(two);
    expect(one).toEqual({
      t: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'a', doc_count: 2, s: { count: 2, min: 1, max: 3, avg: 2, sum: 4 }, c: { value: 2 } },
          { key: 'b', doc_count: 1, s: { count: 1, min: 2, max: 2, avg: 2, sum: 2 }, c: { value: 1 } },
        ],
      },
    });
  });

  it('deleted docs are not collected (caller checks liveness) and segments merge', () => {
    const r = runShards({ t: { terms: { field: 'tag' } } }, [[[{ tag: 'a' }, { tag: 'b' }], [{ tag: 'a' }]]], mapping, { deleted: [[[1]]] });
    expect(r.rendered).toEqual({ t: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'a', doc_count: 2 }] } });
  });

  it('terms on _index', () => {
    expect(run({ i: { terms: { field: '_index' } } }, [{ n: 1 }, { n: 2 }], mapping)).toEqual({
      i: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'test', doc_count: 2 }] },
    });
  });

  it('needs scores only for score-based top_hits', () => {
    expect(aggregationsNeedScores(parseAggregations({ t: { terms: { field: 'tag' }, aggs: { a: { avg: { field: 'n' } } } } }))).toBe(false);
    expect(aggregationsNeedScores(parseAggregations({ t: { terms: { field: 'tag' }, aggs: { h: { top_hits: {} } } } }))).toBe(true);
    expect(aggregationsNeedScores(parseAggregations({ h: { top_hits: { sort: ['n'] } } }))).toBe(false);
  });

  it('parse errors', () => {
    expect(err(() => parseAggregations({ 'a>b': { avg: { field: 'n' } } })).reason).toBe(
      "Invalid aggregation name [a>b]. Aggregation names can contain any character except '[', ']', and '>'",
    );
    expect(err(() => parseAggregations({ a: { avg: { field: 'n' }, aggs: {}, aggregations: {} } })).reason).toBe(
      'Found two sub aggregation definitions under [a]',
    );
    const e = err(() => parseAggregations({ a: { avg: {} } }));
    expect(e.type).toBe('illegal_argument_exception');
    const unknown = err(() => parseAggregations({ a: { cardinalty: { field: 'n' } } }));
    expect(unknown.type).toBe('parsing_exception');
    expect(unknown.reason).toBe('Unknown aggregation type [cardinalty] did you mean [cardinality]?');
    expect(unknown.toBody().error['root_cause']).toEqual([
      { type: 'parsing_exception', reason: 'Unknown aggregation type [cardinalty] did you mean [cardinality]?', line: 1, col: 1 },
    ]);
    expect((unknown.toBody().error['caused_by'] as { type: string }).type).toBe('named_object_not_found_exception');
    let deep: Record<string, unknown> = { x: { avg: { field: 'n' } } };
    for (let i = 0; i < 25; i++) deep = { [`l${i}`]: { filter: { match_all: {} }, aggs: deep } };
    expect(err(() => parseAggregations(deep)).type).toBe('parsing_exception');
  });
});
