/**
 * Time zones: fixed offsets ("+01:00", "-0530", "Z", "UTC") and IANA ids via Intl.
 */
import { Errors } from '../errors.js';

export interface ZoneRules {
  readonly id: string;
  /** offset in ms (local = utc + offset) at the UTC instant */
  offsetAt(utcMillis: number): number;
  /** UTC instant of a local wall-clock time (in ms since epoch as if local were UTC) */
  toUtc(localMillis: number): number;
  readonly fixed: boolean;
}

export const UTC: ZoneRules = {
  id: 'Z',
  fixed: true,
  offsetAt: () => 0,
  toUtc: (l) => l,
};

function fixedZone(id: string, offsetMs: number): ZoneRules {
  if (offsetMs === 0) return { ...UTC, id };
  return { id, fixed: true, offsetAt: () => offsetMs, toUtc: (l) => l - offsetMs };
}

/** Parses "+01:00", "+0100", "+01", "-05:30", "Z"; returns offset minutes or undefined. */
export function parseOffset(s: string): number | undefined {
  if (s === 'Z' || s === 'z') return 0;
  const m = /^([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?$/.exec(s);
  if (!m) return undefined;
  const h = Number(m[2]);
  const mi = m[3] ? Number(m[3]) : 0;
  if (h > 18 || mi > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + mi);
}

const zoneCache = new Map<string, ZoneRules>();

function ianaZone(id: string): ZoneRules {
  const dtf = new Intl.DateTimeFormat('en-US', {
    timeZone: id,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  const canonical = dtf.resolvedOptions().timeZone;
  // offsets are cached per 15-minute slot of UTC time (zone transitions fall on such boundaries)
  const cache = new Map<number, number>();
  const offsetAt = (utc: number): number => {
    const slot = Math.floor(utc / 900000);
    const hit = cache.get(slot);
    if (hit !== undefined) return hit;
    const o = computeOffset(slot * 900000);
    if (cache.size > 50000) cache.clear();
    cache.set(slot, o);
    return o;
  };
  const computeOffset = (utc: number): number => {
    const parts = dtf.formatToParts(new Date(utc));
    let y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, bc = false;
    for (const p of parts) {
      switch (p.type) {
        case 'year': y = Number(p.value); break;
        case 'month': mo = Number(p.value); break;
        case 'day': d = Number(p.value); break;
        case 'hour': h = Number(p.value); break;
        case 'minute': mi = Number(p.value); break;
        case 'second': s = Number(p.value); break;
        case 'era': bc = p.value === 'BC' || p.value === 'B'; break;
      }
    }
    if (bc) y = 1 - y;
    const dt = new Date(0);
    dt.setUTCFullYear(y, mo - 1, d);
    dt.setUTCHours(h, mi, s, 0);
    const local = dt.getTime();
    return local - (utc - (((utc % 1000) + 1000) % 1000));
  };
  return {
    id: canonical === 'UTC' && id !== 'UTC' ? id : canonical,
    fixed: false,
    offsetAt,
    toUtc(local: number): number {
      // like java.time ZonedDateTime.ofLocal: in an overlap the earlier offset wins; in a gap the local time
      // is shifted forward by the length of the gap (i.e. the offset before the transition is used)
      const oa = offsetAt(local - 86400000);
      const ob = offsetAt(local + 86400000);
      if (oa === ob) {
        const o = offsetAt(local - oa);
        return local - o;
      }
      const ca = local - oa;
      const cb = local - ob;
      const va = offsetAt(ca) === oa;
      const vb = offsetAt(cb) === ob;
      if (va && vb) return Math.min(ca, cb);
      if (va) return ca;
      if (vb) return cb;
      return ca;
    },
  };
}

/** Resolves a time_zone parameter (offset or IANA id). Throws illegal_argument_exception for unknown ids. */
export function zoneOf(tz: string | undefined | null): ZoneRules {
  if (tz === undefined || tz === null || tz === '' || tz === 'Z' || tz === 'UTC' || tz === 'Etc/UTC' || tz === 'GMT') return UTC;
  const cached = zoneCache.get(tz);
  if (cached) return cached;
  let z: ZoneRules;
  const off = parseOffset(tz);
  if (off !== undefined) {
    z = fixedZone(formatOffset(off * 60000, true), off * 60000);
  } else if (/^(UTC|GMT|UT)[+-]/.test(tz)) {
    const o = parseOffset(tz.replace(/^(UTC|GMT|UT)/, ''));
    if (o === undefined) throw Errors.illegalArgument(`Invalid ID for region-based ZoneId, invalid format: ${tz}`);
    z = fixedZone(tz, o * 60000);
  } else {
    try {
      z = ianaZone(tz);
    } catch {
      throw Errors.illegalArgument(`Unknown time-zone ID: ${tz}`);
    }
  }
  zoneCache.set(tz, z);
  return z;
}

/** "+01:00" (colon) or "+0100"; "Z" for zero when zWhenZero. */
export function formatOffset(offsetMs: number, colon: boolean, zWhenZero = true): string {
  if (offsetMs === 0 && zWhenZero) return 'Z';
  const sign = offsetMs < 0 ? '-' : '+';
  const abs = Math.abs(Math.round(offsetMs / 60000));
  const h = String(Math.floor(abs / 60)).padStart(2, '0');
  const m = String(abs % 60).padStart(2, '0');
  return colon ? `${sign}${h}:${m}` : `${sign}${h}${m}`;
}
