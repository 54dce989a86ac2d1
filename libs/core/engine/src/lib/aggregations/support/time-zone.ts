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

/** local wall-clock millis -> UTC instant (earlier offset on overlaps, shifted forward in gaps) */
export function localToUtc(tz: TimeZone, local: number): number {
  if (tz.fixedOffset !== null) return local - tz.fixedOffset;
  const o1 = tz.offsetAt(local - tz.offsetAt(local));
  const guess = local - o1;
  const o2 = tz.offsetAt(guess);
  if (o2 === o1) {
    // overlap: prefer the earlier instant when it maps to the same wall clock
    const earlier = local - Math.max(o1, tz.offsetAt(guess - HOUR));
    if (earlier + tz.offsetAt(earlier) === local) return earlier;
    return guess;
  }
  // gap: the wall-clock time does not exist; move to the transition
  return local - o2;
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
