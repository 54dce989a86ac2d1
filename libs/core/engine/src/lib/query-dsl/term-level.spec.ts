import { createParseContext } from './parse-context.js';
import { BUILTIN_QUERY_PARSERS } from './builtin-parsers.js';
import { QueryParserRegistry } from './query-parser.js';
import { DateFieldType } from '../mapper/field-types.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { PointInSetQuery, PointRangeQuery } from '../search/point-range-query.js';
import { ConstantScoreQuery } from '../search/basic-queries.js';
import { BooleanQuery } from '../search/boolean-query.js';
import { fakeIndexMetadata } from '../search/testing/fake-index.js';
import type { Query } from '../search/query.js';
import { EsError } from '@strata/core-common';

const date = (name: string, type: 'date' | 'date_nanos' = 'date', format?: string) =>
  new DateFieldType({ name, type, searchable: true, hasDocValues: true, params: {}, ...(format ? { format } : {}) });

const FIELDS: Record<string, MappedFieldType> = { d: date('d'), n: date('n', 'date_nanos'), ym: date('ym', 'date', 'yyyy-MM') };
const registry = new QueryParserRegistry(BUILTIN_QUERY_PARSERS);
const parse = (json: unknown, settings: Record<string, unknown> = {}): Query =>
  createParseContext({
    registry,
    index: fakeIndexMetadata('test', settings),
    fieldType: (_i, n) => FIELDS[n],
    matchingFieldNames: () => [],
    nowMillis: Date.parse('2024-03-10T12:34:56.789Z'),
  }).parseInnerQuery(json);

const D = (s: string) => Date.parse(s);
const bounds = (q: Query) => {
  expect(q).toBeInstanceOf(PointRangeQuery);
  const r = q as PointRangeQuery;
  return [r.lower, r.upper];
};

describe('term-level queries on date fields (DateFieldType.termQuery = inclusive range, upper bound rounded up)', () => {
  it('a date-only term covers the whole day; a full timestamp is a single point', () => {
    expect(bounds(parse({ term: { d: '2024-01-05' } }))).toEqual([D('2024-01-05T00:00:00Z'), D('2024-01-05T23:59:59.999Z')]);
    expect(bounds(parse({ term: { d: '2024-01-05T10' } }))).toEqual([D('2024-01-05T10:00:00Z'), D('2024-01-05T10:59:59.999Z')]);
    expect(bounds(parse({ term: { d: '2024-01-05T10:00:00.000Z' } }))).toEqual([D('2024-01-05T10:00:00Z'), D('2024-01-05T10:00:00Z')]);
    expect(bounds(parse({ term: { d: 1704448800000 } }))).toEqual([1704448800000, 1704448800000]);
    // no fraction: the round-up parser fills NANO_OF_SECOND, so the term covers the whole second (as in ES)
    expect(bounds(parse({ term: { d: '2024-01-05T10:00:00Z' } }))).toEqual([D('2024-01-05T10:00:00Z'), D('2024-01-05T10:00:00.999Z')]);
  });

  it('partial dates round up with month 1 / day 1 like ES (not to the end of the month or year)', () => {
    expect(bounds(parse({ term: { d: '2024-01' } }))).toEqual([D('2024-01-01T00:00:00Z'), D('2024-01-01T23:59:59.999Z')]);
    expect(bounds(parse({ term: { ym: '2024-02' } }))).toEqual([D('2024-02-01T00:00:00Z'), D('2024-02-01T23:59:59.999Z')]);
  });

  it('date math: now/d as a term is the whole current day', () => {
    expect(bounds(parse({ term: { d: 'now/d' } }))).toEqual([D('2024-03-10T00:00:00Z'), D('2024-03-10T23:59:59.999Z')]);
  });

  it('match and query_string on a date field behave like term', () => {
    expect(bounds(parse({ match: { d: '2024-01-05' } }))).toEqual([D('2024-01-05T00:00:00Z'), D('2024-01-05T23:59:59.999Z')]);
    expect(bounds(parse({ query_string: { query: 'd:2024-01-05' } }))).toEqual([D('2024-01-05T00:00:00Z'), D('2024-01-05T23:59:59.999Z')]);
  });

  it('date_nanos: the round-up fills the nanoseconds; epoch_millis rounds up to the last nanosecond of the milli', () => {
    expect(bounds(parse({ term: { n: '2024-01-05' } }))).toEqual([D('2024-01-05T00:00:00Z') * 1e6, D('2024-01-05T23:59:59.999Z') * 1e6 + 999_999]);
    expect(bounds(parse({ term: { n: '1000000' } }))).toEqual([1e12, 1e12 + 999_999]);
    expect(bounds(parse({ term: { n: 1000000 } }))).toEqual([1e12, 1e12 + 999_999]);
  });

  it('terms: a point set when every value is a point, ranges when a value covers a span', () => {
    const pts = parse({ terms: { d: ['2024-01-05T10:00:00.000Z', 1704448800001] } });
    expect(pts).toBeInstanceOf(PointInSetQuery);
    expect((pts as PointInSetQuery).values).toEqual([1704448800000, 1704448800001]);
    const spans = parse({ terms: { d: ['2024-01-05', '2024-01-07T10:00:00.000Z'] } });
    expect(spans).toBeInstanceOf(ConstantScoreQuery);
    const inner = (spans as ConstantScoreQuery).inner as BooleanQuery;
    expect(inner).toBeInstanceOf(BooleanQuery);
    expect(inner.clauses.map((c) => bounds(c.query))).toEqual([
      [D('2024-01-05T00:00:00Z'), D('2024-01-05T23:59:59.999Z')],
      [D('2024-01-07T10:00:00Z'), D('2024-01-07T10:00:00Z')],
    ]);
  });

  it('range bounds with partial dates: lte/gt round up to day 1 23:59:59.999, gte/lt round down', () => {
    const r = (o: unknown) => parse({ range: { d: o } }) as PointRangeQuery;
    expect(r({ lte: '2024-01' }).upper).toBe(D('2024-01-01T23:59:59.999Z'));
    expect(r({ lte: '2024' }).upper).toBe(D('2024-01-01T23:59:59.999Z'));
    const lt = r({ lt: '2024-02' });
    expect([lt.upper, lt.includeUpper]).toEqual([D('2024-02-01T00:00:00Z'), false]);
    const gt = r({ gt: '2024-01' });
    expect([gt.lower, gt.includeLower]).toEqual([D('2024-01-01T23:59:59.999Z'), false]);
  });
});

describe('terms query: index.max_terms_count', () => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => i);
  const error = (f: () => unknown): EsError => {
    try {
      f();
    } catch (e) {
      return e as EsError;
    }
    throw new Error('expected an error');
  };

  it('more values than the default 65536 is an illegal_argument_exception with the ES message', () => {
    expect(() => parse({ terms: { d: values(65536) } })).not.toThrow();
    const e = error(() => parse({ terms: { d: values(65537) } }));
    expect(e).toBeInstanceOf(EsError);
    expect([e.type, e.status, e.reason]).toEqual([
      'illegal_argument_exception',
      400,
      'The number of terms [65537] used in the Terms Query request has exceeded the allowed maximum of [65536]. This maximum can be set by changing the [index.max_terms_count] index level setting.',
    ]);
  });

  it('the index setting changes the bound; unmapped fields match nothing without checking', () => {
    expect(() => parse({ terms: { d: values(3) } }, { 'index.max_terms_count': '3' })).not.toThrow();
    expect(error(() => parse({ terms: { d: values(4) } }, { 'index.max_terms_count': '3' })).message).toContain('[4] used in the Terms Query request has exceeded the allowed maximum of [3]');
    expect(() => parse({ terms: { nope: values(4) } }, { 'index.max_terms_count': 3 })).not.toThrow();
  });
});
