import { EsError } from '../errors.js';
import { DateFormatter, epochNanos, splitEpochNanos } from './format.js';
import { parseDateMath, parseDateMathNanos } from './math.js';

const D = (s: string) => Date.parse(s);

describe('DateFormatter parsing', () => {
  const def = DateFormatter.of('strict_date_optional_time||epoch_millis');
  it.each([
    ['2020-01-02', D('2020-01-02T00:00:00Z')],
    ['2020-01', D('2020-01-01T00:00:00Z')],
    ['2020', D('2020-01-01T00:00:00Z')],
    ['2020-01-02T03:04:05', D('2020-01-02T03:04:05Z')],
    ['2020-01-02T03:04:05.123Z', D('2020-01-02T03:04:05.123Z')],
    ['2020-01-02T03:04:05.123456789+01:00', D('2020-01-02T02:04:05.123Z')],
    ['2020-01-02T03:04', D('2020-01-02T03:04:00Z')],
    ['2020-01-02T03:04:05-0530', D('2020-01-02T08:34:05Z')],
    ['1577934245000', 1577934245000],
    ['-1000', -1000],
  ])('%s', (text, expected) => expect(def.parseMillis(text)).toBe(expected));

  it('rejects invalid values with ES errors', () => {
    for (const bad of ['2020-13-01', '2020-02-30', '20-01-01', 'abc', '2020-01-02T25:00', '2020-01-02 03:04:05']) {
      let err: EsError | undefined;
      try {
        def.parseMillis(bad);
      } catch (e) {
        err = e as EsError;
      }
      expect(err?.type).toBe('illegal_argument_exception');
      expect(err?.reason).toBe(`failed to parse date field [${bad}] with format [strict_date_optional_time||epoch_millis]`);
    }
  });

  it('non-strict date_optional_time accepts single digits', () => {
    expect(DateFormatter.of('date_optional_time').parseMillis('2020-1-2T3:4:5')).toBe(D('2020-01-02T03:04:05Z'));
    expect(() => DateFormatter.of('strict_date_optional_time').parseMillis('2020-1-2')).toThrow();
  });

  it('java patterns', () => {
    expect(DateFormatter.of('yyyy-MM-dd HH:mm:ss').parseMillis('2021-03-04 05:06:07')).toBe(D('2021-03-04T05:06:07Z'));
    expect(DateFormatter.of('dd/MMM/yyyy:HH:mm:ss Z').parseMillis('10/Oct/2000:13:55:36 -0700')).toBe(D('2000-10-10T20:55:36Z'));
    expect(DateFormatter.of('yyyy/MM/dd HH:mm:ss||yyyy/MM/dd').parseMillis('2015/01/01')).toBe(D('2015-01-01T00:00:00Z'));
    expect(DateFormatter.of('basic_date').parseMillis('20200102')).toBe(D('2020-01-02T00:00:00Z'));
    expect(DateFormatter.of('yyyyMMddHHmmss').parseMillis('20200102030405')).toBe(D('2020-01-02T03:04:05Z'));
    expect(DateFormatter.of("yyyy-MM-dd'T'HH:mm:ss.SSSZ").parseMillis('2020-01-02T03:04:05.120+0100')).toBe(D('2020-01-02T02:04:05.120Z'));
    expect(DateFormatter.of('MM/dd/yyyy hh:mm a').parseMillis('07/04/2021 01:30 PM')).toBe(D('2021-07-04T13:30:00Z'));
    expect(DateFormatter.of('yyyy-MM-dd[ HH:mm]').parseMillis('2021-07-04')).toBe(D('2021-07-04T00:00:00Z'));
    expect(DateFormatter.of('epoch_second').parseMillis('1600000000.5')).toBe(1600000000500);
    expect(DateFormatter.of('date_time').parseMillis('2020-01-02T03:04:05.1+02:00')).toBe(D('2020-01-02T01:04:05.100Z'));
  });

  it('invalid format', () => {
    expect(() => DateFormatter.of('yyyy-qq')).toThrow('Invalid format: [yyyy-qq]: Unknown pattern letter: q');
  });

  it('time zones: offsets and IANA ids including DST', () => {
    const f = DateFormatter.of('strict_date_optional_time');
    expect(f.parseMillis('2020-01-02T03:04:05', '+01:00')).toBe(D('2020-01-02T02:04:05Z'));
    expect(f.parseMillis('2020-07-01T12:00:00', 'Europe/Paris')).toBe(D('2020-07-01T10:00:00Z'));
    expect(f.parseMillis('2020-01-01T12:00:00', 'Europe/Paris')).toBe(D('2020-01-01T11:00:00Z'));
    expect(f.parseMillis('2020-07-01T12:00:00Z', 'Europe/Paris')).toBe(D('2020-07-01T12:00:00Z'));
    expect(() => f.parseMillis('2020-01-01', 'Mars/Olympus')).toThrow('Unknown time-zone ID: Mars/Olympus');
  });

  it('date_nanos precision', () => {
    const f = DateFormatter.of('strict_date_optional_time_nanos');
    expect(f.parseNanos('2020-01-02T03:04:05.123456789Z')).toBe(D('2020-01-02T03:04:05.123Z') * 1e6 + 456789);
  });
});

describe('DateFormatter printing', () => {
  const t = D('2020-01-02T03:04:05.123Z');
  it('named and java formats', () => {
    expect(DateFormatter.of('strict_date_optional_time||epoch_millis').format(t)).toBe('2020-01-02T03:04:05.123Z');
    expect(DateFormatter.of('strict_date_optional_time').format(t, '+01:00')).toBe('2020-01-02T04:04:05.123+01:00');
    expect(DateFormatter.of('strict_date_optional_time').format(t, 'America/New_York')).toBe('2020-01-01T22:04:05.123-05:00');
    expect(DateFormatter.of('epoch_millis').format(t)).toBe(String(t));
    expect(DateFormatter.of('epoch_second').format(t - 123)).toBe(String((t - 123) / 1000));
    expect(DateFormatter.of('yyyy-MM-dd').format(t)).toBe('2020-01-02');
    expect(DateFormatter.of('dd/MMM/yyyy:HH:mm:ss Z').format(t)).toBe('02/Jan/2020:03:04:05 +0000');
    expect(DateFormatter.of('date_time').format(t)).toBe('2020-01-02T03:04:05.123Z');
    expect(DateFormatter.of('basic_date_time').format(t)).toBe('20200102T030405.123Z');
    expect(DateFormatter.of('EEE, dd MMMM yyyy hh:mm a').format(t)).toBe('Thu, 02 January 2020 03:04 AM');
    expect(DateFormatter.of('strict_date_optional_time_nanos').formatNanos(D('1970-01-02T00:00:00.123Z') * 1e6 + 456000)).toBe('1970-01-02T00:00:00.123456Z');
    expect(DateFormatter.of('strict_date_optional_time_nanos').formatNanos(t * 1e6)).toBe('2020-01-02T03:04:05.123Z');
  });
});

describe('date math', () => {
  const now = D('2020-05-15T13:45:30.500Z');
  it('now arithmetic and rounding', () => {
    expect(parseDateMath('now', { now })).toBe(now);
    expect(parseDateMath('now-1d', { now })).toBe(D('2020-05-14T13:45:30.500Z'));
    expect(parseDateMath('now+2h', { now })).toBe(D('2020-05-15T15:45:30.500Z'));
    expect(parseDateMath('now/d', { now })).toBe(D('2020-05-15T00:00:00Z'));
    expect(parseDateMath('now/d', { now, roundUp: true })).toBe(D('2020-05-15T23:59:59.999Z'));
    expect(parseDateMath('now-1M/M', { now })).toBe(D('2020-04-01T00:00:00Z'));
    expect(parseDateMath('now/M', { now, roundUp: true })).toBe(D('2020-05-31T23:59:59.999Z'));
    expect(parseDateMath('now/y', { now })).toBe(D('2020-01-01T00:00:00Z'));
    expect(parseDateMath('now/w', { now })).toBe(D('2020-05-11T00:00:00Z'));
    expect(parseDateMath('now/h', { now })).toBe(D('2020-05-15T13:00:00Z'));
    expect(parseDateMath('now/m', { now, roundUp: true })).toBe(D('2020-05-15T13:45:59.999Z'));
    expect(parseDateMath('now-1y+3M-2w', { now })).toBe(D('2019-08-01T13:45:30.500Z'));
  });
  it('anchored dates, month ends, time zones', () => {
    expect(parseDateMath('2020-01-31||+1M')).toBe(D('2020-02-29T00:00:00Z'));
    expect(parseDateMath('2020-01-01||+1M/d')).toBe(D('2020-02-01T00:00:00Z'));
    expect(parseDateMath('2020-01-01', { roundUp: true })).toBe(D('2020-01-01T23:59:59.999Z'));
    // ES round-up defaults (JavaDateFormatter ROUND_UP_BASE_FIELDS): month 1, day 1, 23:59:59.999999999
    expect(parseDateMath('2020-01', { roundUp: true })).toBe(D('2020-01-01T23:59:59.999Z'));
    expect(parseDateMath('2020', { roundUp: true })).toBe(D('2020-01-01T23:59:59.999Z'));
    expect(parseDateMath('2020-03-04T10', { roundUp: true })).toBe(D('2020-03-04T10:59:59.999Z'));
    expect(parseDateMath('2020-03-04T10:15:00.5Z', { roundUp: true })).toBe(D('2020-03-04T10:15:00.500Z'));
    expect(parseDateMath('2020-01', { format: 'yyyy-MM', roundUp: true })).toBe(D('2020-01-01T23:59:59.999Z'));
    expect(parseDateMathNanos('2020-01-01', { format: 'strict_date_optional_time_nanos', roundUp: true })).toBe(D('2020-01-01T23:59:59.999Z') * 1e6 + 999_999);
    expect(parseDateMath('now/d', { now, timeZone: '+02:00' })).toBe(D('2020-05-14T22:00:00Z'));
    expect(parseDateMath('now/d', { now, timeZone: 'Europe/Paris' })).toBe(D('2020-05-14T22:00:00Z'));
    expect(parseDateMath('2020-03-28||+1d', { timeZone: 'Europe/Paris' })).toBe(D('2020-03-28T23:00:00Z'));
    expect(parseDateMath('1577836800000||+1d', { format: 'epoch_millis' })).toBe(1577836800000 + 86400000);
    expect(parseDateMathNanos('2020-01-01T00:00:00.000000001Z', { format: 'strict_date_optional_time_nanos' })).toBe(D('2020-01-01T00:00:00Z') * 1e6 + 1);
  });
  it('errors', () => {
    const e = (f: () => unknown) => {
      try {
        f();
      } catch (x) {
        return [(x as EsError).type, (x as EsError).reason];
      }
      return null;
    };
    expect(e(() => parseDateMath('now+1x', { now }))).toEqual(['parse_exception', 'unit [x] not supported for date math [now+1x]']);
    expect(e(() => parseDateMath('now*1d', { now }))).toEqual(['parse_exception', 'operator not supported for date math [now*1d]']);
    expect(e(() => parseDateMath('now+1', { now }))).toEqual(['parse_exception', 'truncated date math [now+1]']);
    expect(e(() => parseDateMath('abc'))).toEqual([
      'parse_exception',
      'failed to parse date field [abc] with format [strict_date_optional_time||epoch_millis]: [failed to parse date field [abc] with format [strict_date_optional_time||epoch_millis]]',
    ]);
  });
});

describe('DST gaps and overlaps (java.time semantics)', () => {
  it('gap shifts forward, overlap takes the earlier offset', () => {
    const f = DateFormatter.of('strict_date_optional_time');
    expect(f.parseMillis('2020-03-29T02:30:00', 'Europe/Paris')).toBe(D('2020-03-29T01:30:00Z'));
    expect(f.parseMillis('2020-10-25T02:30:00', 'Europe/Paris')).toBe(D('2020-10-25T00:30:00Z'));
    expect(f.parseMillis('2020-10-25T03:30:00', 'Europe/Paris')).toBe(D('2020-10-25T02:30:00Z'));
    expect(f.parseMillis('2020-03-29T01:59:59', 'Europe/Paris')).toBe(D('2020-03-29T00:59:59Z'));
    expect(parseDateMath('2020-10-25T12:00:00Z||/d', { timeZone: 'Europe/Paris' })).toBe(D('2020-10-24T22:00:00Z'));
    expect(parseDateMath('2020-10-25T12:00:00Z||/d', { timeZone: 'Europe/Paris', roundUp: true })).toBe(D('2020-10-25T22:59:59.999Z'));
  });
});

describe('epoch nanos in doubles', () => {
  it('epochNanos is the correctly rounded double of the exact instant (same at index and query time)', () => {
    expect(epochNanos(1704067200123, 456789)).toBe(Number(1704067200123456789n));
    expect(epochNanos(1704067200123, 456788)).toBe(Number(1704067200123456788n));
    expect(epochNanos(1000, 999_999)).toBe(1000999999);
    for (let n = 0; n < 1000; n += 7) expect(epochNanos(1704067200123, n)).toBe(Number(1704067200123000000n + BigInt(n)));
  });

  it('splitEpochNanos / formatNanos: the shortest integer the double stands for, without arithmetic rounding errors', () => {
    const d = Number(1704067200123456789n); // holds 1704067200123456768, prints as 1704067200123456800
    expect(splitEpochNanos(d)).toEqual({ millis: 1704067200123, nanoOfMilli: 456800 });
    expect(splitEpochNanos(1000999999)).toEqual({ millis: 1000, nanoOfMilli: 999999 });
    expect(splitEpochNanos(epochNanos(1577934245123, 0))).toEqual({ millis: 1577934245123, nanoOfMilli: 0 });
    expect(splitEpochNanos(epochNanos(1577934245123, 456000))).toEqual({ millis: 1577934245123, nanoOfMilli: 456000 });
    const iso = DateFormatter.of('strict_date_optional_time_nanos');
    expect(iso.formatNanos(d)).toBe('2024-01-01T00:00:00.1234568Z');
    expect(iso.formatNanos(epochNanos(Date.parse('2024-01-01T00:00:00.123Z'), 456000))).toBe('2024-01-01T00:00:00.123456Z');
    expect(DateFormatter.of('strict_date_optional_time_nanos').parseNanos('2024-01-01T00:00:00.123456789Z')).toBe(d);
  });
});
