/**
 * Dates of aggregations (key_as_string, value_as_string, extended_bounds, date_range from/to, missing) on the
 * service's one date-time implementation (core-common DateFormatter and date math), so keys print exactly like
 * `fields` and `sort` values.
 */
import { DateFormatter, Errors, parseDateMath as sharedParseDateMath } from '@strata/core-common';
import type { TimeZone } from './time-zone.js';

/** Formats epoch millis with a (named or java) date format in a time zone. */
export function formatDate(millis: number, format: string | undefined, tz?: string | TimeZone): string {
  return DateFormatter.of(format ?? 'strict_date_optional_time').format(millis, tz ?? 'UTC');
}

/**
 * Parses a date bound: epoch millis number, a date in `format`, `now`/`<date>||` with date math.
 * roundUp: rounding `/d` goes to the last millisecond (lt/lte semantics).
 */
export function parseDateMath(value: unknown, nowMillis: number, tzId?: string, roundUp = false, format?: string): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw Errors.illegalArgument(`failed to parse date field [${String(value)}]`);
  return sharedParseDateMath(value, { now: nowMillis, roundUp, timeZone: tzId, format: format ?? 'strict_date_optional_time||epoch_millis' });
}
