import { applyFilterPath, parseFilterPath } from './filter-path.js';

const f = (body: unknown, expr: string): unknown => applyFilterPath(body, parseFilterPath(expr));

describe('filter_path', () => {
  const search = {
    took: 3,
    _scroll_id: 'abc',
    _shards: { total: 1, successful: 1, failed: 0 },
    hits: { total: { value: 2, relation: 'eq' }, hits: [{ _id: '1', _source: { a: 1 } }, { _id: '2', _source: { a: 2 } }] },
  };

  it('keeps the listed paths through arrays, and _scroll_id', () => {
    expect(f(search, 'hits.hits._source,_scroll_id')).toEqual({
      _scroll_id: 'abc',
      hits: { hits: [{ _source: { a: 1 } }, { _source: { a: 2 } }] },
    });
  });

  it('decodes a percent-encoded comma list the same way (Koa gives the decoded value)', () => {
    expect(f(search, 'took,hits.total.value')).toEqual({ took: 3, hits: { total: { value: 2 } } });
  });

  it('supports * inside a field name', () => {
    expect(f(search, '_shards.*ful')).toEqual({ _shards: { successful: 1 } });
    expect(f({ nodes: { n1: { name: 'a', x: 1 }, n2: { name: 'b' } } }, 'nodes.*.name')).toEqual({
      nodes: { n1: { name: 'a' }, n2: { name: 'b' } },
    });
  });

  it('supports ** at any depth', () => {
    expect(f(search, '**._id')).toEqual({ hits: { hits: [{ _id: '1' }, { _id: '2' }] } });
    expect(f({ a: { b: { c: { d: 1, e: 2 } } } }, 'a.**.e')).toEqual({ a: { b: { c: { e: 2 } } } });
  });

  it('answers {} when nothing matches', () => {
    expect(f(search, 'nope')).toEqual({});
  });

  it('drops empty containers left by partial matches', () => {
    expect(f({ hits: { hits: [] }, took: 1 }, 'hits.hits._source,took')).toEqual({ took: 1 });
  });

  it('excludes with a leading -', () => {
    expect(f(search, '-hits,-_shards')).toEqual({ took: 3, _scroll_id: 'abc' });
    expect(f(search, '-hits.hits._source')).toEqual({
      took: 3,
      _scroll_id: 'abc',
      _shards: { total: 1, successful: 1, failed: 0 },
      hits: { total: { value: 2, relation: 'eq' }, hits: [{ _id: '1' }, { _id: '2' }] },
    });
  });

  it('combines inclusions and exclusions', () => {
    expect(f(search, '_shards,-_shards.failed')).toEqual({ _shards: { total: 1, successful: 1 } });
  });

  it('returns the body untouched without a filter', () => {
    expect(applyFilterPath(search, parseFilterPath(undefined))).toBe(search);
    expect(applyFilterPath(search, parseFilterPath(''))).toBe(search);
  });
});
