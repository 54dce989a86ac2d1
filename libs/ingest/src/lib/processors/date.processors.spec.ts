import { resolveDateMathIndexName } from './date.processors.js';
import { FIXED_NOW, create, run, thrown } from '../testing/helpers.js';

describe('date', () => {
  it('ISO8601, UNIX, UNIX_MS and TAI64N into @timestamp', () => {
    expect(run({ date: { field: 'd', formats: ['ISO8601'] } }, { d: '2016-06-12T17:12:34.5+02:00' })!.source['@timestamp']).toBe(
      '2016-06-12T15:12:34.500Z',
    );
    expect(run({ date: { field: 'd', formats: ['UNIX'] } }, { d: '1465751554.123' })!.source['@timestamp']).toBe('2016-06-12T17:12:34.123Z');
    expect(run({ date: { field: 'd', formats: ['UNIX_MS'] } }, { d: 1465751554123 })!.source['@timestamp']).toBe('2016-06-12T17:12:34.123Z');
    expect(run({ date: { field: 'd', formats: ['TAI64N'] } }, { d: '4000000050d506482dbdf024' })!.source['@timestamp']).toBe(
      '2012-12-22T01:00:46.767Z',
    );
  });
  it('java patterns, timezone, target_field, output_format', () => {
    expect(
      run({ date: { field: 'd', formats: ['dd/MMM/yyyy:HH:mm:ss Z'], target_field: 't' } }, { d: '10/Oct/2000:13:55:36 -0700' })!.source['t'],
    ).toBe('2000-10-10T20:55:36.000Z');
    expect(
      run({ date: { field: 'd', formats: ['yyyy-MM-dd HH:mm:ss'], timezone: 'Europe/Amsterdam' } }, { d: '2020-07-01 12:00:00' })!.source[
        '@timestamp'
      ],
    ).toBe('2020-07-01T12:00:00.000+02:00');
    expect(run({ date: { field: 'd', formats: ['yyyyMMdd'], output_format: 'yyyy/MM/dd' } }, { d: '20200102' })!.source['@timestamp']).toBe(
      '2020/01/02',
    );
    // formats are tried in order
    expect(run({ date: { field: 'd', formats: ['UNIX_MS', 'dd.MM.yyyy'] } }, { d: '03.02.2021' })!.source['@timestamp']).toBe(
      '2021-02-03T00:00:00.000Z',
    );
    // no year: the current year
    expect(run({ date: { field: 'd', formats: ['MMM d HH:mm:ss'] } }, { d: 'Jan 5 01:02:03' })!.source['@timestamp']).toBe(
      `${new Date(FIXED_NOW).getUTCFullYear()}-01-05T01:02:03.000Z`,
    );
  });
  it('errors', () => {
    expect(thrown(() => run({ date: { field: 'd', formats: ['ISO8601'] } }, { d: 'nope' })).reason).toBe('unable to parse date [nope]');
    expect(thrown(() => run({ date: { field: 'd', formats: ['ISO8601'] } }, { d: null })).reason).toBe('unable to parse date [null]');
    expect(thrown(() => run({ date: { field: 'd', formats: ['ISO8601'] } }, {})).reason).toBe('field [d] not present as part of path [d]');
    expect(thrown(() => create({ date: { field: 'd' } })).reason).toBe('[formats] required property is missing');
    expect(thrown(() => create({ date: { field: 'd', formats: ['ISO8601'], timezone: 'Mars/Base' } })).type).toBe('parse_exception');
  });
});

describe('date_index_name', () => {
  it('writes a date-math index name', () => {
    const d = run({ date_index_name: { field: 'd', index_name_prefix: 'my-index-', date_rounding: 'M' } }, { d: '2016-04-25T12:24:17.000Z' })!;
    expect(d.meta['_index']).toBe('<my-index-{2016-04-25T12:24:17.000Z||/M{yyyy-MM-dd|UTC}}>');
    expect(resolveDateMathIndexName(String(d.meta['_index']), FIXED_NOW)).toBe('my-index-2016-04-01');
  });
  it('rejects unknown rounding', () => {
    expect(thrown(() => create({ date_index_name: { field: 'd', date_rounding: 'q' } })).reason).toBe('[date_rounding] date rounding [q] not supported');
  });
});
