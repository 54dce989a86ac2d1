import { localToUtc, resolveTimeZone } from './time-zone.js';

const local = (iso: string) => Date.parse(iso + 'Z');

describe('localToUtc', () => {
  const paris = resolveTimeZone('Europe/Paris');

  it('moves a local time inside a DST gap forward by the gap, as java.time does', () => {
    // 1990-03-25 02:30 does not exist in Paris (02:00 CET → 03:00 CEST): java.time gives 03:30+02:00 = 01:30Z
    expect(new Date(localToUtc(paris, local('1990-03-25T02:30:00'))).toISOString()).toBe('1990-03-25T01:30:00.000Z');
  });

  it('takes the earlier offset in an overlap', () => {
    // 2023-10-29 02:30 happens twice in Paris: 00:30Z (+02:00) and 01:30Z (+01:00)
    expect(new Date(localToUtc(paris, local('2023-10-29T02:30:00'))).toISOString()).toBe('2023-10-29T00:30:00.000Z');
  });

  it('uses the offset in force for ordinary times and fixed zones', () => {
    expect(new Date(localToUtc(paris, local('2024-07-01T12:00:00'))).toISOString()).toBe('2024-07-01T10:00:00.000Z');
    expect(new Date(localToUtc(paris, local('2024-01-01T12:00:00'))).toISOString()).toBe('2024-01-01T11:00:00.000Z');
    expect(new Date(localToUtc(resolveTimeZone('-05:00'), local('2024-01-01T12:00:00'))).toISOString()).toBe('2024-01-01T17:00:00.000Z');
  });
});
