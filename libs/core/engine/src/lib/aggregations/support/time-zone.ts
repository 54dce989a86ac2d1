/**
 * Time zones of aggregations (date_histogram, composite, auto_date_histogram, date_range): the service's
 * zone rules (core-common `zoneOf`: offsets, IANA ids with java.time's gap/overlap rules) plus the fixed
 * offset, when there is one, for the fixed-width rounding fast path.
 */
import { Errors, zoneOf, type ZoneRules } from '@strata/core-common';

export interface TimeZone extends ZoneRules {
  /** fixed offset in ms when the zone has no transitions, else null */
  readonly fixedOffset: number | null;
}

const cache = new Map<string, TimeZone>();

export function resolveTimeZone(id: string | undefined | null): TimeZone {
  const key = id ?? 'UTC';
  const hit = cache.get(key);
  if (hit) return hit;
  // an empty id is not a zone here (zoneOf reads it as UTC)
  if (key === '') throw Errors.illegalArgument(`Unknown time-zone ID: ${key}`);
  const rules = zoneOf(key);
  const tz: TimeZone = {
    id: key,
    fixed: rules.fixed,
    fixedOffset: rules.fixed ? rules.offsetAt(0) : null,
    offsetAt: (utc) => rules.offsetAt(utc),
    toUtc: (local) => rules.toUtc(local),
  };
  cache.set(key, tz);
  return tz;
}

/**
 * local wall-clock millis -> UTC instant with java.time's rules: in an overlap the earlier offset wins, in a
 * gap the local time moves forward by the length of the gap (Paris 1990-03-25 02:30 → 01:30Z).
 */
export function localToUtc(tz: TimeZone, local: number): number {
  return tz.fixedOffset !== null ? local - tz.fixedOffset : tz.toUtc(local);
}
