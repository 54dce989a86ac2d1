import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { tag: 'keyword', n: 'long', ts: 'date', ok: 'boolean' };
const docs = [
  { tag: 'a', n: 1, ts: '2024-01-01', ok: true },
  { tag: 'a', n: 1, ts: '2024-01-01', ok: true },
  { tag: 'a', n: 2, ts: '2024-01-02', ok: false },
  { tag: ['b', 'c'], n: 1, ts: '2024-01-01', ok: true },
  { tag: 'd' },
];

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

describe('multi_terms', () => {
  it('tuple keys with key_as_string, count desc then key asc', () => {
    const r = run({ m: { multi_terms: { terms: [{ field: 'tag' }, { field: 'n' }] } } }, docs, mapping, { typedKeys: true });
    expect(r).toEqual({
      'multi_terms#m': {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: ['a', 1], key_as_string: 'a|1', doc_count: 2 },
          { key: ['a', 2], key_as_string: 'a|2', doc_count: 1 },
          { key: ['b', 1], key_as_string: 'b|1', doc_count: 1 },
          { key: ['c', 1], key_as_string: 'c|1', doc_count: 1 },
        ],
      },
    });
  });
  it('formats dates and booleans, missing, size, shards, sub-aggs', () => {
    const { rendered } = runShards(
      { m: { multi_terms: { size: 2, terms: [{ field: 'ts' }, { field: 'ok', missing: false }] }, aggs: { x: { max: { field: 'n' } } } } },
      [[docs.slice(0, 2)], [docs.slice(2)]],
      mapping,
    );
    expect(rendered).toEqual({
      m: {
        doc_count_error_upper_bound: 0,
        sum_other_doc_count: 0,
        buckets: [
          { key: ['2024-01-01T00:00:00.000Z', true], key_as_string: '2024-01-01T00:00:00.000Z|true', doc_count: 3, x: { value: 1 } },
          { key: ['2024-01-02T00:00:00.000Z', false], key_as_string: '2024-01-02T00:00:00.000Z|false', doc_count: 1, x: { value: 2 } },
        ],
      },
    });
  });
  it('orders ip positions by address (IPv4 mapped into IPv6), on each shard and in the reduce', () => {
    const ipMapping: Mapping = { ip: 'ip', tag: 'keyword' };
    const ipDocs = ['10.0.0.2', '9.0.0.1', '::1', '2001:db8::1', '192.168.1.1'].map((ip) => ({ ip, tag: 'a' }));
    const agg = { m: { multi_terms: { terms: [{ field: 'ip' }, { field: 'tag' }], order: { _key: 'asc' } } } };
    const expected = ['::1', '9.0.0.1', '10.0.0.2', '192.168.1.1', '2001:db8::1'];
    const one = run(agg, ipDocs, ipMapping) as { m: { buckets: { key: unknown[] }[] } };
    expect(one.m.buckets.map((b) => b.key[0])).toEqual(expected);
    const { rendered } = runShards({ m: { ...agg.m, multi_terms: { ...agg.m.multi_terms, size: 3 } } }, [[ipDocs.slice(0, 3)], [ipDocs.slice(3)]], ipMapping);
    expect((rendered as { m: { buckets: { key: unknown[] }[] } }).m.buckets.map((b) => b.key[0])).toEqual(expected.slice(0, 3));
  });
  it('needs two terms', () => {
    expect(err(() => run({ m: { multi_terms: { terms: [{ field: 'tag' }] } } }, docs, mapping)).reason).toBe(
      'The [terms] parameter in the aggregation [m] must be present and have at least 2 fields or scripts.',
    );
  });
});

describe('rare_terms', () => {
  it('keeps terms at most max_doc_count, even across shards', () => {
    const { rendered } = runShards(
      { r: { rare_terms: { field: 'tag' } } },
      [[docs.slice(0, 1)], [docs.slice(1)]],
      mapping,
      { typedKeys: true },
    );
    expect(rendered).toEqual({
      'srareterms#r': { buckets: [{ key: 'b', doc_count: 1 }, { key: 'c', doc_count: 1 }, { key: 'd', doc_count: 1 }] },
    });
    const two = run({ r: { rare_terms: { field: 'n', max_doc_count: 3, exclude: ['2'] } } }, docs, mapping, { typedKeys: true });
    expect(two).toEqual({ 'lrareterms#r': { buckets: [{ key: 1, doc_count: 3 }] } });
  });
});
