import { DateFieldType } from './field-types.js';

const ft = (type: 'date' | 'date_nanos', format?: string) =>
  new DateFieldType({ name: 't', type, searchable: true, hasDocValues: true, params: {}, ...(format ? { format } : {}) });

describe('DateFieldType.formatSourceValue (fields API)', () => {
  it('date_nanos keeps every nanosecond (no round trip through a double)', () => {
    expect(ft('date_nanos').formatSourceValue('2024-01-01T00:00:00.123456789Z')).toBe('2024-01-01T00:00:00.123456789Z');
    expect(ft('date_nanos').formatSourceValue('2262-04-11T23:47:16.854775807Z')).toBe('2262-04-11T23:47:16.854775807Z');
    expect(ft('date_nanos').formatSourceValue('2024-01-01T00:00:00.123456789Z', "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSS")).toBe('2024-01-01T00:00:00.123456789');
  });

  it('date truncates to its millisecond resolution; epoch_millis numbers and other formats are parsed', () => {
    expect(ft('date').formatSourceValue('2024-01-01T00:00:00.123456789Z')).toBe('2024-01-01T00:00:00.123Z');
    expect(ft('date').formatSourceValue(1704067200123)).toBe('2024-01-01T00:00:00.123Z');
    expect(ft('date').formatSourceValue('2024-01-01', 'epoch_millis')).toBe('1704067200000');
    expect(() => ft('date').formatSourceValue('nope')).toThrow('failed to parse date field [nope]');
  });
});
