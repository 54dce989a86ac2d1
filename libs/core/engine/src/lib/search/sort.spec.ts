import { EsError, RawJson, stringifyJson } from '@strata/core-common';
import { compareKeys, compileSort, parseSort } from './sort.js';
import { fieldTypes } from './testing/fake-index.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';

const FIELDS: Record<string, MappedFieldType> = {
  tag: fieldTypes.keyword('tag'),
  ip: { ...fieldTypes.keyword('ip'), type: 'ip', kind: 'ip' },
  n: fieldTypes.long('n'),
};
const compile = (json: unknown) => compileSort(parseSort(json), (n) => FIELDS[n], 'idx');
const error = (f: () => unknown): EsError => {
  try {
    f();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
};

describe('sort mode on non-numeric fields (FieldSortBuilder)', () => {
  it.each(['avg', 'sum', 'median'])('mode %s on a keyword or ip field is a query_shard_exception', (mode) => {
    for (const field of ['tag', 'ip']) {
      const e = error(() => compile([{ [field]: { order: 'asc', mode } }]));
      expect(e).toBeInstanceOf(EsError);
      expect([e.type, e.status, e.reason]).toEqual(['query_shard_exception', 400, 'we only support AVG, MEDIAN and SUM on number based fields']);
    }
  });

  it('unmapped_type keyword gets the same check; min/max on keywords and avg on numbers compile', () => {
    expect(error(() => compile([{ nope: { mode: 'sum', unmapped_type: 'keyword' } }])).type).toBe('query_shard_exception');
    expect(compile([{ tag: { mode: 'min' } }, { tag: { mode: 'max' } }, { n: { mode: 'avg' } }, { n: { mode: 'median' } }])).toHaveLength(4);
  });
});

describe('long sort values beyond 2^53 are written exactly', () => {
  const display = (json: unknown, key: number) => stringifyJson([compile(json)[0]!.display(key)]);

  it('missing-value sentinels are Long.MAX_VALUE / Long.MIN_VALUE', () => {
    expect(display([{ n: 'asc' }], Infinity)).toBe('[9223372036854775807]');
    expect(display([{ n: 'desc' }], -Infinity)).toBe('[-9223372036854775808]');
    expect(display([{ nope: { order: 'asc', unmapped_type: 'long' } }], Infinity)).toBe('[9223372036854775807]');
  });

  it('values reaching 2^63 are clamped to the long range; other large integers stay plain numbers', () => {
    expect(display([{ n: 'asc' }], 2 ** 63)).toBe('[9223372036854775807]');
    expect(display([{ n: 'asc' }], -(2 ** 63))).toBe('[-9223372036854775808]');
    expect(compile([{ n: 'asc' }])[0]!.display(2 ** 60)).toBe(2 ** 60);
    expect(compile([{ n: 'asc' }])[0]!.display(42)).toBe(42);
  });

  it('unsigned_long: the missing values render as the shifted longs Elasticsearch sorts by (2^64-1 and 0), and come back', () => {
    const f = compile([{ nope: { order: 'asc', unmapped_type: 'unsigned_long' } }])[0]!;
    expect(stringifyJson([f.display(Infinity), f.display(-Infinity)])).toBe('[18446744073709551615,0]');
    expect(f.afterKey(new RawJson('18446744073709551615'))).toBe(Infinity);
    expect(f.afterKey(0)).toBe(-Infinity);
    expect(f.afterKey(new RawJson('18446744073709551614'))).toBe(18446744073709551614n);
    expect(f.afterKey(5)).toBe(5);
  });

  it('search_after accepts the rendered values back', () => {
    const f = compile([{ n: 'asc' }])[0]!;
    expect(f.afterKey(f.display(Infinity))).toBe(Infinity);
    expect(f.afterKey(f.display(-Infinity))).toBe(-Infinity);
    expect(f.afterKey(f.display(2 ** 60))).toBe(2 ** 60);
  });

  it('search_after: a long beyond 2^53 given exactly is an exact key; the range ends and beyond stay the missing keys', () => {
    const f = compile([{ n: 'asc' }])[0]!;
    expect(f.afterKey(new RawJson('9007199254740993'))).toBe(9007199254740993n);
    expect(f.afterKey('-9007199254740993')).toBe(-9007199254740993n);
    expect(stringifyJson([f.display(9007199254740993n)])).toBe('[9007199254740993]');
    // what a client that rounds to doubles sends back for Long.MAX_VALUE
    expect(f.afterKey(new RawJson('9223372036854776000'))).toBe(Infinity);
    expect(f.afterKey(new RawJson('9223372036854775807'))).toBe(Infinity);
    expect(f.afterKey(new RawJson('-9223372036854775808'))).toBe(-Infinity);
    // bigint keys compare with number keys as numbers
    expect(compareKeys(f, 9007199254740993n, 9007199254740992)).toBe(1);
    expect(compareKeys(f, 9007199254740992n, 9007199254740992)).toBe(0);
  });
});
