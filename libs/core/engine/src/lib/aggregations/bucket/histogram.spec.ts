import { EsError } from '@strata/core-common';
import { run, runShards, type Mapping } from '../test-support.js';

const mapping: Mapping = { ts: 'date', n: 'double', tag: 'keyword', day: { type: 'date', format: 'yyyy-MM-dd' } };

function err(fn: () => unknown): EsError {
  try {
    fn();
  } catch (e) {
    return e as EsError;
  }
  throw new Error('expected an error');
}

const docs = [
  { n: 1, ts: '2024-03-01T10:15:00Z', tag: 'a' },
  { n: 4, ts: '2024-03-01T10:45:00Z', tag: 'b' },
  { n: 12, ts: '2024-03-01T13:05:00Z', tag: 'a' },
  { n: [13, 14], ts: '2024-03-03T00:00:00Z', tag: 'a' },
];

describe('histogram', () => {
  it('fills empty buckets between min and max (min_doc_count 0 default)', () => {
    expect(run({ h: { histogram: { field: 'n', interval: 5 } } }, docs, mapping, { typedKeys: true })).toEqual({
      'histogram#h': {
        buckets: [
          { key: 0, doc_count: 2 },
          { key: 5, doc_count: 0 },
          { key: 10, doc_count: 2 },
        ],
      },
    });
  });

  it('offset, min_doc_count, extended_bounds, keyed', () => {
    expect(run({ h: { histogram: { field: 'n', interval: 5, offset: 2, min_doc_count: 1 } } }, docs, mapping)).toEqual({
      h: {
        buckets: [
          { key: -3, doc_count: 1 },
          { key: 2, doc_count: 1 },
          { key: 12, doc_count: 2 },
        ],
      },
    });
    expect(
      run({ h: { histogram: { field: 'n', interval: 10, extended_bounds: { min: -10, max: 30 }, keyed: true } } }, docs, mapping),
    ).toEqual({
      h: {
        buckets: {
          '-10.0': { key: -10, doc_count: 0 },
          '0.0': { key: 0, doc_count: 2 },
          '10.0': { key: 10, doc_count: 2 },
          '20.0': { key: 20, doc_count: 0 },
          '30.0': { key: 30, doc_count: 0 },
        },
      },
    });
  });

  it('merges shards and sub-aggs; order by count', () => {
    const { rendered } = runShards(
      { h: { histogram: { field: 'n', interval: 10, order: { _count: 'desc' } }, aggs: { c: { value_count: { field: 'tag' } } } } },
      [[docs.slice(0, 2)], [docs.slice(2)]],
      mapping,
    );
    expect(rendered).toEqual({
      h: {
        buckets: [
          { key: 0, doc_count: 2, c: { value: 2 } },
          { key: 10, doc_count: 2, c: { value: 2 } },
        ],
      },
    });
  });

  it('hard_bounds drop buckets and cap extended_bounds', () => {
    const r = run(
      { h: { histogram: { field: 'n', interval: 5, hard_bounds: { min: 0, max: 10 }, extended_bounds: { min: -20, max: 30 } } } },
      docs,
      mapping,
    );
    expect(r).toEqual({
      h: {
        buckets: [
          { key: 0, doc_count: 2 },
          { key: 5, doc_count: 0 },
          { key: 10, doc_count: 2 },
        ],
      },
    });
    const r2 = run({ h: { histogram: { field: 'n', interval: 5, hard_bounds: { min: 5, max: 10 } } } }, docs, mapping);
    expect(r2).toEqual({ h: { buckets: [{ key: 10, doc_count: 2 }] } });
  });

  it('requires interval > 0', () => {
    const e = err(() => run({ h: { histogram: { field: 'n', interval: 0 } } }, docs, mapping));
    expect(e.type).toBe('x_content_parse_exception');
    expect((e.cause as EsError).reason).toBe('[interval] must be >0 for histogram aggregation [h]');
  });
});

describe('date_histogram', () => {
  it('hourly fixed interval with key_as_string and empty buckets', () => {
    const r = run({ h: { date_histogram: { field: 'ts', fixed_interval: '1h' } } }, docs.slice(0, 3), mapping, { typedKeys: true });
    expect(r).toEqual({
      'date_histogram#h': {
        buckets: [
          { key_as_string: '2024-03-01T10:00:00.000Z', key: Date.UTC(2024, 2, 1, 10), doc_count: 2 },
          { key_as_string: '2024-03-01T11:00:00.000Z', key: Date.UTC(2024, 2, 1, 11), doc_count: 0 },
          { key_as_string: '2024-03-01T12:00:00.000Z', key: Date.UTC(2024, 2, 1, 12), doc_count: 0 },
          { key_as_string: '2024-03-01T13:00:00.000Z', key: Date.UTC(2024, 2, 1, 13), doc_count: 1 },
        ],
      },
    });
  });

  it('calendar day with time zone and format; min_doc_count 1', () => {
    const r = run(
      { h: { date_histogram: { field: 'ts', calendar_interval: 'day', time_zone: '-05:00', format: 'yyyy-MM-dd', min_doc_count: 1 } } },
      docs,
      mapping,
    );
    expect(r).toEqual({
      h: {
        buckets: [
          { key_as_string: '2024-03-01', key: Date.UTC(2024, 2, 1, 5), doc_count: 3 },
          { key_as_string: '2024-03-02', key: Date.UTC(2024, 2, 2, 5), doc_count: 1 },
        ],
      },
    });
  });

  it('DST-correct calendar rounding in an IANA zone', () => {
    // Europe/Paris switches to summer time on 2024-03-31 at 02:00 local (01:00 UTC)
    const d = [{ ts: '2024-03-30T12:00:00Z' }, { ts: '2024-03-31T12:00:00Z' }, { ts: '2024-04-01T12:00:00Z' }];
    const r = run({ h: { date_histogram: { field: 'ts', calendar_interval: '1d', time_zone: 'Europe/Paris' } } }, d, mapping);
    expect(r).toEqual({
      h: {
        buckets: [
          { key_as_string: '2024-03-30T00:00:00.000+01:00', key: Date.UTC(2024, 2, 29, 23), doc_count: 1 },
          { key_as_string: '2024-03-31T00:00:00.000+01:00', key: Date.UTC(2024, 2, 30, 23), doc_count: 1 },
          { key_as_string: '2024-04-01T00:00:00.000+02:00', key: Date.UTC(2024, 2, 31, 22), doc_count: 1 },
        ],
      },
    });
  });

  it('month, quarter, year, week', () => {
    const d = [{ ts: '2024-01-31T23:00:00Z' }, { ts: '2024-02-01T00:00:00Z' }, { ts: '2024-05-15T00:00:00Z' }];
    const keys = (interval: string) =>
      ((run({ h: { date_histogram: { field: 'ts', calendar_interval: interval, min_doc_count: 1 } } }, d, mapping)['h'] as {
        buckets: { key_as_string: string; doc_count: number }[];
      }).buckets.map((b) => `${b.key_as_string}:${b.doc_count}`));
    expect(keys('month')).toEqual(['2024-01-01T00:00:00.000Z:1', '2024-02-01T00:00:00.000Z:1', '2024-05-01T00:00:00.000Z:1']);
    expect(keys('quarter')).toEqual(['2024-01-01T00:00:00.000Z:2', '2024-04-01T00:00:00.000Z:1']);
    expect(keys('1y')).toEqual(['2024-01-01T00:00:00.000Z:3']);
    // 2024-01-31 is a Wednesday -> week of Monday 2024-01-29; 2024-05-15 (Wed) -> 2024-05-13
    expect(keys('week')).toEqual(['2024-01-29T00:00:00.000Z:2', '2024-05-13T00:00:00.000Z:1']);
  });

  it('offset and extended_bounds with date math; keyed uses key_as_string', () => {
    const r = run(
      {
        h: {
          date_histogram: {
            field: 'ts',
            calendar_interval: 'day',
            offset: '+6h',
            keyed: true,
            extended_bounds: { min: '2024-02-29', max: '2024-03-01T12:00:00Z' },
          },
        },
      },
      docs.slice(0, 3),
      mapping,
    );
    expect(r).toEqual({
      h: {
        buckets: {
          '2024-02-29T06:00:00.000Z': { key_as_string: '2024-02-29T06:00:00.000Z', key: Date.UTC(2024, 1, 29, 6), doc_count: 0 },
          '2024-03-01T06:00:00.000Z': { key_as_string: '2024-03-01T06:00:00.000Z', key: Date.UTC(2024, 2, 1, 6), doc_count: 3 },
        },
      },
    });
  });

  it('extended_bounds with an offset (ES yaml: day interval, offset 1h)', () => {
    const r = run(
      { h: { date_histogram: { field: 'ts', calendar_interval: 'day', offset: '1h', extended_bounds: { min: '2016-01-01', max: '2016-01-04' } } } },
      [{ ts: '2016-01-02' }, { ts: '2016-01-03' }],
      mapping,
    );
    expect((r['h'] as { buckets: { key_as_string: string; doc_count: number }[] }).buckets.map((b) => `${b.key_as_string}:${b.doc_count}`)).toEqual([
      '2016-01-01T01:00:00.000Z:1',
      '2016-01-02T01:00:00.000Z:1',
      '2016-01-03T01:00:00.000Z:0',
      '2016-01-04T01:00:00.000Z:0',
    ]);
  });

  it('histogram format uses DecimalFormat with literals', () => {
    const r = run({ h: { histogram: { field: 'n', interval: 50, format: 'Value is ##0.0' } } }, [{ n: 1 }, { n: 51 }], mapping);
    expect(r).toEqual({
      h: {
        buckets: [
          { key_as_string: 'Value is 0.0', key: 0, doc_count: 1 },
          { key_as_string: 'Value is 50.0', key: 50, doc_count: 1 },
        ],
      },
    });
  });

  it('fixed 1ms interval in America/Phoenix (pre-epoch DST rules)', () => {
    const r = run({ h: { date_histogram: { field: 'ts', fixed_interval: '1ms', time_zone: 'America/Phoenix' } } }, [{ ts: '2016-01-01' }], mapping);
    expect((r['h'] as { buckets: { key_as_string: string }[] }).buckets.map((b) => b.key_as_string)).toEqual(['2015-12-31T17:00:00.000-07:00']);
  });

  it('tiny interval trips max buckets', () => {
    let e: { type?: string; reason?: string } = {};
    try {
      run({ h: { histogram: { field: 'n', interval: 5e-10 } } }, [{ n: 1 }, { n: 2 }], mapping);
    } catch (x) {
      e = x as typeof e;
    }
    expect(e.type).toBe('too_many_buckets_exception');
    expect(e.reason).toMatch(/^Trying to create too many buckets. Must be less than or equal to: \[65536\]/);
  });

  it("uses the field's mapping format", () => {
    const r = run({ h: { date_histogram: { field: 'day', calendar_interval: 'month' } } }, [{ day: '2024-03-05' }], mapping);
    expect(r).toEqual({ h: { buckets: [{ key_as_string: '2024-03-01', key: Date.UTC(2024, 2, 1), doc_count: 1 }] } });
  });

  it('Grafana-style: epoch_millis format and numeric extended_bounds', () => {
    const r = run(
      {
        h: {
          date_histogram: {
            field: 'ts',
            fixed_interval: '12h',
            format: 'epoch_millis',
            min_doc_count: 0,
            extended_bounds: { min: Date.UTC(2024, 2, 1), max: Date.UTC(2024, 2, 2) },
          },
        },
      },
      docs.slice(0, 3),
      mapping,
    );
    expect(r).toEqual({
      h: {
        buckets: [
          { key_as_string: String(Date.UTC(2024, 2, 1)), key: Date.UTC(2024, 2, 1), doc_count: 2 },
          { key_as_string: String(Date.UTC(2024, 2, 1, 12)), key: Date.UTC(2024, 2, 1, 12), doc_count: 1 },
          { key_as_string: String(Date.UTC(2024, 2, 2)), key: Date.UTC(2024, 2, 2), doc_count: 0 },
        ],
      },
    });
  });

  it('bad bounds are parse errors', () => {
    const e = err(() => run({ h: { date_histogram: { field: 'ts', fixed_interval: '1h', extended_bounds: { min: 'yesterday', max: 'now' } } } }, docs, mapping));
    expect(e.type).toBe('parse_exception');
  });

  it('interval errors', () => {
    const e1 = err(() => run({ h: { date_histogram: { field: 'ts', calendar_interval: '2d' } } }, docs, mapping));
    expect(e1.reason).toBe('[1:1] [date_histogram] failed to parse field [calendar_interval]');
    expect((e1.cause as EsError).reason).toBe('The supplied interval [2d] could not be parsed as a calendar interval.');
    const e2 = err(() => run({ h: { date_histogram: { field: 'ts', fixed_interval: '1M' } } }, docs, mapping));
    expect((e2.cause as EsError).reason).toBe(
      'failed to parse setting [date_histogram.fixedInterval] with value [1M] as a time value: unit is missing or unrecognized',
    );
    const e3 = err(() => run({ h: { date_histogram: { field: 'ts', interval: '1d' } } }, docs, mapping));
    expect(e3.type).toBe('x_content_parse_exception');
    expect(e3.reason).toContain('[date_histogram] unknown field [interval]');
    const e4 = err(() => run({ h: { date_histogram: { field: 'ts', fixed_interval: '1d', time_zone: 'Mars/Base' } } }, docs, mapping));
    expect(e4.type).toBe('x_content_parse_exception');
    expect((e4.cause as EsError).reason).toBe('Unknown time-zone ID: Mars/Base');
  });

  it('empty and unmapped render empty buckets', () => {
    expect(run({ h: { date_histogram: { field: 'nope', fixed_interval: '1h' } } }, docs, mapping)).toEqual({ h: { buckets: [] } });
    expect(run({ h: { date_histogram: { field: 'ts', fixed_interval: '1h' } } }, [], mapping)).toEqual({ h: { buckets: [] } });
  });
});
