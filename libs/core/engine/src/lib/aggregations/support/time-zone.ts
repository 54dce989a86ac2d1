/**
 * Time zones for aggregations: fixed offsets ("+01:00", "Z", "UTC") and IANA ids ("Europe/Paris"),
 * with DST-correct offsets through Intl (cached per zone and per hour).
 */
import { Errors } from '@strata/core-common';
import { zoneOf, type ZoneRules } from '../../util/date-time-zone.js';

export interface TimeZone {
  readonly id: string;
  /** fixed offset in ms when the zone has no transitions, else null */
  readonly fixedOffset: number | null;
  /** offset (local - utc) in ms at the given UTC instant */
  offsetAt(utcMillis: number): number;
  /** local wall-clock millis -> UTC instant, as java.time's ZonedDateTime.ofLocal (absent for fixed zones) */
  toUtc?(localMillis: number): number;
}

const HOUR = 3_600_000;
const cache = new Map<string, TimeZone>();

class FixedZone implements TimeZone {
  constructor(readonly id: string, readonly fixedOffset: number) {}
  offsetAt(): number {
    return this.fixedOffset;
  }
}

/** IANA zones: offsets come from the shared Intl-based zone rules of util/date-time-zone */
class IanaZone implements TimeZone {
  readonly fixedOffset = null;
  private readonly rules: ZoneRules;
  constructor(readonly id: string) {
    // an empty id is not a zone here (zoneOf would read it as UTC)
    if (id === '') throw Errors.illegalArgument(`Unknown time-zone ID: ${id}`);
    this.rules = zoneOf(id);
  }
  offsetAt(utcMillis: number): number {
    return this.rules.offsetAt(utcMillis);
  }
  toUtc(localMillis: number): number {
    return this.rules.toUtc(localMillis);
  }
}

function parseOffset(id: string): number | null {
  const u = id.toUpperCase();
  if (u === 'Z' || u === 'UTC' || u === 'GMT' || u === 'UT' || u === 'ETC/UTC' || u === 'ETC/GMT') return 0;
  const m = /^(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(id);
  if (!m) return null;
  const h = Number(m[2]);
  const mi = m[3] ? Number(m[3]) : 0;
  const s = m[4] ? Number(m[4]) : 0;
  if (h > 18 || mi > 59 || s > 59) return null;
  return (m[1] === '-' ? -1 : 1) * (h * HOUR + mi * 60_000 + s * 1000);
}

export function resolveTimeZone(id: string | undefined | null): TimeZone {
  const key = id ?? 'UTC';
  const hit = cache.get(key);
  if (hit) return hit;
  let tz: TimeZone;
  const fixed = parseOffset(key);
  if (fixed !== null) {
    tz = new FixedZone(key, fixed);
  } else {
    try {
      tz = new IanaZone(key);
      tz.offsetAt(0);
    } catch {
      throw Errors.illegalArgument(`Unknown time-zone ID: ${key}`);
    }
  }
  cache.set(key, tz);
  return tz;
}

export const UTC_ZONE: TimeZone = resolveTimeZone('UTC');

/**
 * local wall-clock millis -> UTC instant with java.time's rules: in an overlap the earlier offset wins, in a
 * gap the local time moves forward by the length of the gap (Paris 1990-03-25 02:30 → 01:30Z).
 */
export function localToUtc(tz: TimeZone, local: number): number {
  if (tz.fixedOffset !== null) return local - tz.fixedOffset;
  if (tz.toUtc) return tz.toUtc(local);
  return local - tz.offsetAt(local - tz.offsetAt(local));
}

/** formats an offset as "+01:00" / "Z" */
export function formatOffset(off: number, zForZero = true, colon = true): string {
  if (off === 0 && zForZero) return 'Z';
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  const h = Math.floor(a / HOUR);
  const m = Math.floor((a % HOUR) / 60_000);
  const hs = String(h).padStart(2, '0');
  const ms = String(m).padStart(2, '0');
  return colon ? `${sign}${hs}:${ms}` : `${sign}${hs}${ms}`;
}
