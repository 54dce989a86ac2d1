import { compileDateFormatter, compileDateParser, zoneOffsetMs } from './date-formats.js';

const utc = (s: string) => Date.parse(s);

describe('date parsing', () => {
  it.each([
    ['ISO8601', '2021-03-04', 'UTC', '2021-03-04T00:00:00.000Z'],
    ['ISO8601', '2021-03-04T05:06:07', 'Europe/Paris', '2021-03-04T04:06:07.000Z'],
    ['ISO8601', '2021-03-04T05:06:07.123456789-05:30', 'UTC', '2021-03-04T10:36:07.123Z'],
    ['ISO8601', '2021-03-04 05:06:07Z', 'UTC', '2021-03-04T05:06:07.000Z'],
    ['yyyy-MM-dd HH:mm:ss,SSS', '2021-03-04 05:06:07,089', 'UTC', '2021-03-04T05:06:07.089Z'],
    ['dd/MMM/yyyy:HH:mm:ss Z', '04/Mar/2021:05:06:07 +0100', 'UTC', '2021-03-04T04:06:07.000Z'],
    ['EEE MMM dd HH:mm:ss yyyy', 'Thu Mar 04 05:06:07 2021', 'UTC', '2021-03-04T05:06:07.000Z'],
    ['MM/dd/yyyy hh:mm:ss a', '03/04/2021 01:06:07 PM', 'UTC', '2021-03-04T13:06:07.000Z'],
    ['yyyy-MM-dd', '2021-07-01', 'America/New_York', '2021-07-01T04:00:00.000Z'],
    ['strict_date_optional_time', '2021-03-04T05:06:07Z', 'UTC', '2021-03-04T05:06:07.000Z'],
    ['epoch_millis', '1614834367000', 'UTC', '2021-03-04T05:06:07.000Z'],
    ['yyyy-MM-dd HH:mm:ss z', '2021-03-04 05:06:07 UTC', 'Europe/Paris', '2021-03-04T05:06:07.000Z'],
  ])('%s %s (%s)', (format, text, zone, expected) => {
    expect(compileDateParser(format).parse(text, zone, 0)).toBe(utc(expected));
  });
  it('rejects invalid dates and unknown letters', () => {
    expect(() => compileDateParser('yyyy-MM-dd').parse('2021-02-30', 'UTC', 0)).toThrow();
    expect(() => compileDateParser('yyyy-MM-dd').parse('21-02-03', 'UTC', 0)).toThrow();
    expect(() => compileDateParser('yyyy-qq')).toThrow('Unknown pattern letter: q');
  });
});

describe('date formatting', () => {
  const ms = utc('2021-03-04T05:06:07.089Z');
  it.each([
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", 'UTC', '2021-03-04T05:06:07.089Z'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSXXX", 'Asia/Kolkata', '2021-03-04T10:36:07.089+05:30'],
    ['yyyy.MM.dd', 'UTC', '2021.03.04'],
    ['dd MMM yyyy EEE', 'UTC', '04 Mar 2021 Thu'],
    ['yyyyMMdd HHmmss Z', 'America/New_York', '20210304 000607 -0500'],
    ['hh a', 'UTC', '05 AM'],
  ])('%s in %s', (format, zone, expected) => {
    expect(compileDateFormatter(format)(ms, zone)).toBe(expected);
  });
  it('zone offsets follow DST', () => {
    expect(zoneOffsetMs('Europe/Paris', utc('2021-01-01T00:00:00Z'))).toBe(3600000);
    expect(zoneOffsetMs('Europe/Paris', utc('2021-07-01T00:00:00Z'))).toBe(7200000);
    expect(zoneOffsetMs('+02:00', 0)).toBe(7200000);
  });
});
