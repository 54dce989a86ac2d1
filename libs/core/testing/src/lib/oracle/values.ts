/** The small value pools the generators draw from: few distinct values, so ties and shared terms are common. */
import fc from 'fast-check';
import { IP_VALUES, type OracleFieldType } from './model.js';

/**
 * ASCII, case, a space, and characters whose UTF-16 order differs from their UTF-8 byte order. Pools stay
 * under 10 distinct values so a shard never has more terms than the smallest shard_size (11): terms
 * aggregations are then exact on every shard count, as the evaluators assume.
 */
export const KEYWORDS = ['a', 'b', 'ab', 'abc', 'B', 'x y', 'é', 'ｚ', '😀'] as const;
export const WORDS = ['quick', 'brown', 'fox', 'dog', 'lazy', 'the'] as const;
export const DATES = [
  '2023-12-31T23:00:00Z',
  '2024-01-01T00:00:00Z',
  '2024-01-01T10:30:00Z',
  '2024-01-02T05:00:00Z',
  '2024-02-29T12:00:00Z',
  '2024-03-10T08:15:00Z',
  '2025-01-01T00:00:00Z',
] as const;
/** date-only forms: a range bound rounds them (lte/gt to the end of the day) */
export const DAYS = ['2024-01-01', '2024-01-02', '2024-02-29', '2024-03-10'] as const;

export function scalarValue(type: OracleFieldType): fc.Arbitrary<unknown> {
  switch (type) {
    case 'keyword':
      return fc.constantFrom(...KEYWORDS);
    case 'text':
      return fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }).map((w) => w.join(' '));
    case 'long':
    case 'integer':
      return fc.integer({ min: -2, max: 6 });
    case 'double':
    case 'float':
      return fc.integer({ min: -8, max: 40 }).map((k) => k / 4);
    case 'date':
      return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...DATES) }, { weight: 1, arbitrary: fc.constantFrom(...DATES).map((d) => Date.parse(d)) });
    case 'ip':
      return fc.constantFrom(...IP_VALUES.map((v) => v.text));
    case 'boolean':
      return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, { weight: 1, arbitrary: fc.constantFrom('true', 'false') });
  }
}

/** a field value in a document: mostly one value, sometimes several, an empty array or null */
export function fieldValue(type: OracleFieldType): fc.Arbitrary<unknown> {
  const one = scalarValue(type);
  return fc.oneof(
    { weight: 12, arbitrary: one },
    { weight: 3, arbitrary: fc.array(one, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constant([]) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}
