import { EsError } from '@strata/core-common';
import { applyUrlParams, parseSearchSource, parseTrackTotalHits, validateSearchSource } from './search-source.js';
import { parseSortParam } from '../../search/sort.js';

const err = (fn: () => unknown): EsError => {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
};

describe('search source parsing', () => {
  it('defaults', () => {
    const s = parseSearchSource(undefined);
    expect(s).toMatchObject({ from: 0, size: 10, trackTotalHitsUpTo: 10000, sort: [], source: { fetch: true, includes: [], excludes: [] } });
  });

  it('unknown keys are parsing_exception with the token type', () => {
    expect(err(() => parseSearchSource({ foo: {} })).reason).toBe('Unknown key for a START_OBJECT in [foo].');
    expect(err(() => parseSearchSource({ foo: 'x' })).reason).toBe('Unknown key for a VALUE_STRING in [foo].');
    expect(err(() => parseSearchSource({ foo: 1 })).reason).toBe('Unknown key for a VALUE_NUMBER in [foo].');
    expect(err(() => parseSearchSource({ foo: [] })).reason).toBe('Unknown key for a START_ARRAY in [foo].');
    expect(err(() => parseSearchSource({ foo: true })).type).toBe('parsing_exception');
  });

  it('extensions parse their key', () => {
    const ext = new Map([['pit', { key: 'pit', parse: (j: unknown) => ({ parsed: j }) }]]);
    expect(parseSearchSource({ pit: { id: 'x' } }, ext).extensions).toEqual({ pit: { parsed: { id: 'x' } } });
  });

  it('size, from, track_total_hits, _source forms', () => {
    expect(err(() => parseSearchSource({ size: -1 })).reason).toBe('[size] parameter cannot be negative, found [-1]');
    expect(err(() => parseSearchSource({ from: -2 })).reason).toBe('[from] parameter cannot be negative, found [-2]');
    expect(parseTrackTotalHits(true)).toBe(2147483647);
    expect(parseTrackTotalHits(false)).toBe(-1);
    expect(parseTrackTotalHits(100)).toBe(100);
    expect(parseSearchSource({ _source: false }).source.fetch).toBe(false);
    expect(parseSearchSource({ _source: 'a.*' }).source.includes).toEqual(['a.*']);
    expect(parseSearchSource({ _source: { includes: ['a'], excludes: 'b' } }).source).toEqual({ fetch: true, includes: ['a'], excludes: ['b'] });
    expect(parseSearchSource({ aggregations: {} }).aggs).toEqual({});
  });

  it('sort forms', () => {
    expect(parseSearchSource({ sort: ['a', { b: 'desc' }, { c: { order: 'desc', missing: '_first', mode: 'max' } }, '_score'] }).sort).toEqual([
      { field: 'a', order: 'asc' },
      { field: 'b', order: 'desc' },
      { field: 'c', order: 'desc', missing: '_first', mode: 'max' },
      { field: '_score', order: 'desc' },
    ]);
    expect(parseSortParam('a:desc,b')).toEqual([
      { field: 'a', order: 'desc' },
      { field: 'b', order: 'asc' },
    ]);
    expect(err(() => parseSearchSource({ sort: { a: 'up' } })).reason).toBe('Unknown SortOrder [up]');
  });

  it('slice validation', () => {
    expect(err(() => parseSearchSource({ slice: { id: 2, max: 2 } })).reason).toBe('max must be greater than id');
    expect(err(() => parseSearchSource({ slice: { id: 0, max: 1 } })).reason).toBe('max must be greater than 1');
    const s = parseSearchSource({ slice: { id: 0, max: 2 } });
    expect(err(() => validateSearchSource(s, false)).reason).toBe(
      'Validation Failed: 1: [slice] can only be used with [scroll] or [point-in-time] requests;',
    );
    expect(() => validateSearchSource(s, true)).not.toThrow();
  });

  it('request validation', () => {
    const s = parseSearchSource({ from: 5, search_after: [1], sort: ['a'] });
    const e = err(() => validateSearchSource(s, false));
    expect(e.type).toBe('action_request_validation_exception');
    expect(e.reason).toBe('Validation Failed: 1: `from` parameter must be set to 0 when `search_after` is used;');
    expect(err(() => validateSearchSource(parseSearchSource({ size: 0 }), true)).reason).toBe('Validation Failed: 1: [size] cannot be [0] in a scroll context;');
  });

  it('URL params override the body', () => {
    const s = applyUrlParams(parseSearchSource({ size: 3, query: { match_all: {} } }), { size: 5, q: 'a:b', df: 'x', trackTotalHits: 2147483647 });
    expect(s.size).toBe(5);
    expect(s.query).toEqual({ query_string: { query: 'a:b', default_field: 'x' } });
    expect(s.trackTotalHitsUpTo).toBe(2147483647);
  });
});

describe('malformed search bodies', () => {
  const bad: unknown[] = [
    { sort: 5 },
    { sort: [5] },
    { sort: [{ a: 1 }] },
    { sort: [{ a: {}, b: {} }] },
    { sort: { a: { mode: 'x' } } },
    { sort: { a: { numeric_type: 'x' } } },
    { highlight: 5 },
    { _source: 5 },
    { fields: [5] },
    { docvalue_fields: [{}] },
    { size: 'x' },
    { from: 1.5 },
    { track_total_hits: 'x' },
    { track_total_hits: -5 },
    { search_after: 5 },
    { slice: 5 },
    { slice: { id: 'x', max: 2 } },
    { slice: { id: 0, max: 2, foo: 1 } },
    { query: 5 },
    { post_filter: [] },
    { min_score: 'x' },
    { terminate_after: -1 },
    { version: 'x' },
    5,
    [],
  ];
  it.each(bad.map((b) => [JSON.stringify(b), b]))('%s', (_s, json) => {
    let err: unknown;
    try {
      parseSearchSource(json);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).status).toBe(400);
  });
});
