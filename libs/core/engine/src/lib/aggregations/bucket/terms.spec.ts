import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = {
  tag: 'keyword',
  n: 'long',
  d: 'double',
  ts: 'date',
  ok: 'boolean',
  msg: 'text',
  price: 'double',
};

const docs = [
  { tag: 'a', n: 1, d: 1.5, ok: true, price: 10, ts: '2024-01-01T00:00:00Z' },
  { tag: ['a', 'b'], n: 2, d: 2.5, ok: false, price: 20, ts: '2024-01-02T00:00:00Z' },
  { tag: 'b', n: 2, ok: true, price: 30 },
  { tag: 'c', n: 3, price: 40 },
  { n: 3 },
];

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('terms aggregation', () => {
  it('counts keyword terms by count desc then key asc', () => {
    expect(run({ t: { terms: { field: 'tag' } } }, docs, mapping)).toEqual({
      t: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'a', doc_count: 2 },
          { key: 'b', doc_count: 2 },
          { key: 'c', doc_count: 1 },
        ],
      },
    });
  });

  it('size, sum_other_doc_count and typed keys', () => {
    const r = run({ t: { terms: { field: 'tag', size: 1 } } }, docs, mapping, { typedKeys: true });
    expect(r).toEqual({
      'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 3, buckets: [{ key: 'a', doc_count: 2 }] },
    });
  });

  it('numeric terms: lterms with number keys, dterms for doubles', () => {
    const r = run({ n: { terms: { field: 'n' } }, d: { terms: { field: 'd' } } }, docs, mapping, { typedKeys: true });
    expect(r['lterms#n']).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 2, doc_count: 2 },
        { key: 3, doc_count: 2 },
        { key: 1, doc_count: 1 },
      ],
    });
    expect(r['dterms#d']).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 1.5, doc_count: 1 },
        { key: 2.5, doc_count: 1 },
      ],
    });
  });

  it('boolean and date keys carry key_as_string', () => {
    const r = run({ b: { terms: { field: 'ok' } }, t: { terms: { field: 'ts', order: { _key: 'asc' } } } }, docs, mapping);
    expect(r['b']).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 1, key_as_string: 'true', doc_count: 2 },
        { key: 0, key_as_string: 'false', doc_count: 1 },
      ],
    });
    expect((r['t'] as { buckets: unknown[] }).buckets).toEqual([
      { key: 1704067200000, key_as_string: '2024-01-01T00:00:00.000Z', doc_count: 1 },
      { key: 1704153600000, key_as_string: '2024-01-02T00:00:00.000Z', doc_count: 1 },
    ]);
  });

  it('orders by key desc and by a sub-aggregation metric', () => {
    const byKey = run({ t: { terms: { field: 'tag', order: { _key: 'desc' } } } }, docs, mapping);
    expect((byKey['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['c', 'b', 'a']);
    const byAvg = run(
      { t: { terms: { field: 'tag', order: { p: 'desc' } }, aggs: { p: { avg: { field: 'price' } } } } },
      docs,
      mapping,
    );
    expect((byAvg['t'] as { buckets: unknown[] }).buckets).toEqual([
      { key: 'c', doc_count: 1, p: { value: 40 } },
      { key: 'b', doc_count: 2, p: { value: 25 } },
      { key: 'a', doc_count: 2, p: { value: 15 } },
    ]);
    const byStats = run(
      { t: { terms: { field: 'tag', order: [{ 's.max': 'asc' }] }, aggs: { s: { stats: { field: 'price' } } } } },
      docs,
      mapping,
    );
    expect((byStats['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['a', 'b', 'c']);
  });

  it('missing, include/exclude, min_doc_count', () => {
    const r = run({ t: { terms: { field: 'tag', missing: 'none' } } }, docs, mapping);
    expect((r['t'] as { buckets: unknown[] }).buckets).toContainEqual({ key: 'none', doc_count: 1 });
    const inc = run({ t: { terms: { field: 'tag', include: 'a|c' } } }, docs, mapping);
    expect((inc['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['a', 'c']);
    const exc = run({ t: { terms: { field: 'tag', exclude: ['a'] } } }, docs, mapping);
    expect((exc['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key)).toEqual(['b', 'c']);
    // the bucket under min_doc_count is dropped, not counted as "other" (ES AbstractInternalTerms.reduce)
    const mdc = run({ t: { terms: { field: 'tag', min_doc_count: 2 } } }, docs, mapping);
    expect(mdc['t']).toEqual({
      doc_count_error_upper_bound: 0,
      sum_other_doc_count: 0,
      buckets: [
        { key: 'a', doc_count: 2 },
        { key: 'b', doc_count: 2 },
      ],
    });
    const zero = run({ t: { terms: { field: 'tag', min_doc_count: 0 } } }, docs, mapping, { query: { term: { tag: 'c' } } });
    expect((zero['t'] as { buckets: unknown[] }).buckets).toEqual([
      { key: 'c', doc_count: 1 },
      { key: 'a', doc_count: 0 },
      { key: 'b', doc_count: 0 },
    ]);
  });

  it('text fields with fielddata: true are uninverted from the inverted index', () => {
    const m: Mapping = { body: { type: 'text', fielddata: true } };
    const r = run({ t: { terms: { field: 'body' } } }, [{ body: 'Quick brown fox' }, { body: 'quick dog' }, {}], m);
    expect(r).toEqual({
      t: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 'quick', doc_count: 2 },
          { key: 'brown', doc_count: 1 },
          { key: 'dog', doc_count: 1 },
          { key: 'fox', doc_count: 1 },
        ],
      },
    });
  });

  it('include/exclude use Lucene regexp syntax', () => {
    const d = [{ tag: 'a.b' }, { tag: 'axb' }, { tag: 'water_x' }, { tag: 'coke_cola' }];
    const keys = (body: Record<string, unknown>) =>
      ((run({ t: { terms: { field: 'tag', ...body } } }, d, mapping)['t'] as { buckets: { key: string }[] }).buckets.map((b) => b.key));
    expect(keys({ include: '"a.b"' })).toEqual(['a.b']);
    expect(keys({ include: 'a.b' })).toEqual(['a.b', 'axb']);
    expect(keys({ include: 'water_.*|.*_cola' })).toEqual(['coke_cola', 'water_x']);
    expect(keys({ include: 'a@', exclude: 'a\\.b' })).toEqual(['axb']);
    expect(keys({ include: { partition: 0, num_partitions: 1 } })).toEqual(['a.b', 'axb', 'coke_cola', 'water_x']);
  });

  it('ES yaml: partitions, date include values, regex on non-strings rejected', () => {
    const d = [{ tag: 'abc', n: 1234 }, { tag: 'abc', n: 5678 }, { tag: 'bcd', n: 1234 }];
    const keys = (field: string, include: unknown) =>
      ((run({ t: { terms: { field, include } } }, d, mapping)['t'] as { buckets: { key: unknown }[] }).buckets.map((b) => b.key));
    expect(keys('tag', { partition: 0, num_partitions: 2 })).toEqual(['bcd']);
    expect(keys('tag', { partition: 1, num_partitions: 2 })).toEqual(['abc']);
    expect(keys('n', { partition: 0, num_partitions: 2 })).toEqual([5678]);
    expect(keys('n', { partition: 1, num_partitions: 2 })).toEqual([1234]);
    const dates = [{ ts: '2016-05-03' }, { ts: '2014-09-01' }, { ts: '2016-05-03' }];
    const r = run({ t: { terms: { field: 'ts', include: ['2016-05-03'] } } }, dates, mapping);
    expect((r['t'] as { buckets: unknown[] }).buckets).toEqual([{ key: 1462233600000, key_as_string: '2016-05-03T00:00:00.000Z', doc_count: 2 }]);
    const e = err(() => run({ t: { terms: { field: 'n', exclude: '12.*' } } }, d, mapping));
    expect(e.type).toBe('illegal_argument_exception');
    expect(e.reason).toBe(
      'Aggregation [t] cannot support regular expression style include/exclude settings as they can only be applied to string fields. Use an array of values for include/exclude clauses',
    );
  });

  it('ES yaml: unmapped fields with value_type and missing', () => {
    const d = [{}];
    const b = (body: Record<string, unknown>) => run({ t: { terms: body } }, d, mapping, { typedKeys: true });
    expect(b({ field: 'u', value_type: 'string', missing: 'abc' })).toEqual({
      'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 'abc', doc_count: 1 }] },
    });
    expect(b({ field: 'u', value_type: 'boolean', missing: true })).toEqual({
      'lterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 1, key_as_string: 'true', doc_count: 1 }] },
    });
    expect(b({ field: 'u', value_type: 'date', missing: '2016-05-11' })).toEqual({
      'lterms#t': {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [{ key: 1462924800000, key_as_string: '2016-05-11T00:00:00.000Z', doc_count: 1 }],
      },
    });
    expect(b({ field: 'u', value_type: 'long', missing: 3 })).toEqual({
      'lterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 3, doc_count: 1 }] },
    });
    expect(b({ field: 'u', value_type: 'double', missing: 3.5 })).toEqual({
      'dterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [{ key: 3.5, doc_count: 1 }] },
    });
  });

  it('mixing long and double shards gives double terms', () => {
    const { rendered } = runShards(
      { t: { terms: { field: 'n' } } },
      [[[{ n: 100 }, { n: 10 }]], [[{ n: 100.0 }, { n: 10.0 }, { n: 14.6 }]]],
      mapping,
      { typedKeys: true, shardMappings: [{ n: 'long' }, { n: 'double' }] },
    );
    expect(rendered).toEqual({
      'dterms#t': {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 10, doc_count: 2 },
          { key: 100, doc_count: 2 },
          { key: 14.6, doc_count: 1 },
        ],
      },
    });
  });

  it('a field mapped as keyword in one index and long in another cannot be reduced', () => {
    const e = err(() =>
      runShards({ t: { terms: { field: 'n' } } }, [[[{ n: 1 }]], [[{ n: 'x' }]]], mapping, { shardMappings: [{ n: 'long' }, { n: 'keyword' }] }),
    );
    expect(e.type).toBe('aggregation_execution_exception');
    expect(e.reason).toBe(
      'Merging/Reducing the aggregations failed when computing the aggregation [t] because the field you gave in the aggregation query existed as two different types in two different indices',
    );
  });

  it('empty results and unmapped fields render like ES', () => {
    expect(run({ t: { terms: { field: 'nope' } } }, docs, mapping, { typedKeys: true })).toEqual({
      'sterms#t': { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
    });
    expect(run({ t: { terms: { field: 'tag' } } }, docs, mapping, { query: { match_none: {} } })).toEqual({
      t: { doc_count_error_upper_bound: 0, sum_other_doc_count: 0, buckets: [] },
    });
  });

  it('merges across shards and segments with doc_count_error_upper_bound', () => {
    // shard A: x:5 y:4 z:1 ; shard B: y:3 z:3 x:1 ; size 1 shard_size 2
    const rep = (tag: string, n: number) => Array.from({ length: n }, () => ({ tag }));
    const shardA = [[...rep('x', 5), ...rep('y', 2)], [...rep('y', 2), ...rep('z', 1)]];
    const shardB = [[...rep('y', 3), ...rep('z', 3), ...rep('x', 1)]];
    const { rendered } = runShards({ t: { terms: { field: 'tag', size: 1, shard_size: 2 } } }, [shardA, shardB], mapping);
    // A returns x5,y4 (other 1); B returns y3,z3 (other 1); 17 docs - 7. merged: y7, x5, z3 -> y
    expect(rendered).toEqual({
      t: { doc_count_error_upper_bound: 7, sum_other_doc_count: 10, buckets: [{ key: 'y', doc_count: 7 }] },
    });
  });

  it('sub-aggregations at depth', () => {
    const r = run({ t: { terms: { field: 'tag' }, aggs: { n: { terms: { field: 'n' }, aggs: { s: { sum: { field: 'price' } } } } } } }, docs, mapping);
    expect((r['t'] as { buckets: unknown[] }).buckets[0]).toEqual({
      key: 'a',
      doc_count: 2,
      n: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: 1, doc_count: 1, s: { value: 10 } },
          { key: 2, doc_count: 1, s: { value: 20 } },
        ],
      },
    });
  });

  it('meta is rendered first', () => {
    const r = run({ t: { terms: { field: 'tag', size: 1 }, meta: { color: 'blue' } } }, docs, mapping);
    expect(Object.keys(r['t'] as object)[0]).toBe('meta');
    expect((r['t'] as { meta: unknown }).meta).toEqual({ color: 'blue' });
  });

  it('errors: text field fielddata, unknown type, bad size, unknown param, two types', () => {
    const e1 = err(() => run({ t: { terms: { field: 'msg' } } }, docs, mapping));
    expect(e1.type).toBe('illegal_argument_exception');
    expect(e1.reason).toBe(
      'Fielddata is disabled on [msg] in [test]. Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [msg] in order to load field data by uninverting the inverted index. Note that this can use significant memory.',
    );
    const e2 = err(() => run({ t: { term: { field: 'tag' } } }, docs, mapping));
    expect(e2.type).toBe('parsing_exception');
    expect(e2.reason).toBe('Unknown aggregation type [term] did you mean [terms]?');
    const e2b = err(() => run({ t: { fooooo: {} } }, docs, mapping));
    expect(e2b.reason).toBe('Unknown aggregation type [fooooo]');
    const e3 = err(() => run({ t: { terms: { field: 'tag', size: 0 } } }, docs, mapping));
    expect(e3.type).toBe('x_content_parse_exception');
    expect(e3.reason).toBe('[1:1] [terms] failed to parse field [size]');
    expect((e3.cause as EsError).type).toBe('illegal_argument_exception');
    expect((e3.cause as EsError).reason).toBe('[size] must be greater than 0. Found [0] in [t]');
    expect(e3.toBody().error['root_cause']).toEqual([{ type: 'x_content_parse_exception', reason: '[1:1] [terms] failed to parse field [size]' }]);
    const e4 = err(() => run({ t: { terms: { field: 'tag', bogus: 1 } } }, docs, mapping));
    expect(e4.type).toBe('x_content_parse_exception');
    expect(e4.reason).toContain('[terms] unknown field [bogus]');
    const e5 = err(() => run({ t: { terms: { field: 'tag' }, avg: { field: 'n' } } }, docs, mapping));
    expect(e5.type).toBe('parsing_exception');
    expect(e5.reason).toBe('Found two aggregation type definitions in [t]: [terms] and [avg]');
    const e6 = err(() => run({ t: { aggs: {} } }, docs, mapping));
    expect(e6.reason).toBe('Missing definition for aggregation [t]');
    const e7 = err(() => run({ t: { avg: { field: 'n' }, aggs: { x: { max: { field: 'n' } } } } }, docs, mapping));
    expect(e7.type).toBe('aggregation_initialization_exception');
    const e8 = err(() => run({ t: { terms: { field: 'tag', order: { nope: 'asc' } } } }, docs, mapping));
    expect(e8.type).toBe('illegal_argument_exception');
    const e9 = err(() => run({ t: { terms: { field: 'tag', order: { sub: 'asc' } }, aggs: { sub: { terms: { field: 'n' } } } } }, docs, mapping));
    expect(e9.reason).toBe(
      'Invalid aggregation order path [sub]. Buckets can only be sorted on a sub-aggregator path that is built out of zero or more single-bucket aggregations within the path and a final single-bucket or a metrics aggregation at the path end.',
    );
  });

  it('too many buckets', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ tag: `t${i}` }));
    const e = err(() => run({ t: { terms: { field: 'tag', size: 20 } } }, many, mapping, { maxBuckets: 10 }));
    expect(e.type).toBe('too_many_buckets_exception');
    expect(e.reason).toBe(
      'Trying to create too many buckets. Must be less than or equal to: [10] but was [20]. This limit can be set by changing the [search.max_buckets] cluster level setting.',
    );
  });
});

describe('numeric metrics', () => {
  it('min/max/avg/sum/value_count/stats', () => {
    const r = run(
      {
        mi: { min: { field: 'price' } },
        ma: { max: { field: 'price' } },
        av: { avg: { field: 'price' } },
        su: { sum: { field: 'price' } },
        vc: { value_count: { field: 'tag' } },
        st: { stats: { field: 'n' } },
      },
      docs,
      mapping,
      { typedKeys: true },
    );
    expect(r).toEqual({
      'min#mi': { value: 10 },
      'max#ma': { value: 40 },
      'avg#av': { value: 25 },
      'sum#su': { value: 100 },
      'value_count#vc': { value: 5 },
      'stats#st': { count: 5, min: 1, max: 3, avg: 2.2, sum: 11 },
    });
  });

  it('no docs: null values', () => {
    const r = run(
      { mi: { min: { field: 'price' } }, av: { avg: { field: 'price' } }, su: { sum: { field: 'price' } }, st: { stats: { field: 'price' } } },
      docs,
      mapping,
      { query: { match_none: {} } },
    );
    expect(r).toEqual({
      mi: { value: null },
      av: { value: null },
      su: { value: 0 },
      st: { count: 0, min: null, max: null, avg: null, sum: 0 },
    });
  });

  it('date max has value_as_string', () => {
    const r = run({ m: { max: { field: 'ts' } } }, docs, mapping);
    expect(r).toEqual({ m: { value: 1704153600000, value_as_string: '2024-01-02T00:00:00.000Z' } });
  });

  it('extended_stats', () => {
    const r = run({ e: { extended_stats: { field: 'price' } } }, docs, mapping);
    const e = r['e'] as Record<string, unknown>;
    expect(e['count']).toBe(4);
    expect(e['sum_of_squares']).toBe(3000);
    expect(e['variance']).toBe(125);
    expect(e['variance_sampling']).toBeCloseTo(166.6666667, 5);
    expect(e['std_deviation']).toBeCloseTo(11.180339887, 8);
    expect(e['std_deviation_bounds']).toEqual({
      upper: 25 + 2 * Math.sqrt(125),
      lower: 25 - 2 * Math.sqrt(125),
      upper_population: 25 + 2 * Math.sqrt(125),
      lower_population: 25 - 2 * Math.sqrt(125),
      upper_sampling: 25 + 2 * Math.sqrt(500 / 3),
      lower_sampling: 25 - 2 * Math.sqrt(500 / 3),
    });
  });

  it('min on keyword is rejected, missing value is used', () => {
    const e = err(() => run({ m: { min: { field: 'tag' } } }, docs, mapping));
    expect(e.type).toBe('illegal_argument_exception');
    expect(e.reason).toBe('Field [tag] of type [keyword] is not supported for aggregation [min]');
    expect(run({ m: { avg: { field: 'price', missing: 0 } } }, docs, mapping)).toEqual({ m: { value: 20 } });
  });
});
