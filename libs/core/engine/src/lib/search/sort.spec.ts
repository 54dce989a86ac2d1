import { EsError } from '@strata/core-common';
import { compileSort, parseSort } from './sort.js';
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
