/**
 * Date rounding for date_histogram / composite date_histogram (ES Rounding): calendar units with
 * DST-correct local rounding, fixed intervals, offsets. Fixed-width arithmetic whenever the zone allows;
 * a one-entry memo of the last bucket range makes sorted or clustered timestamps cheap otherwise.
 */
import { Errors } from '@strata/core-common';
import { localToUtc, resolveTimeZone, type TimeZone } from './time-zone.js';

export type CalendarUnit = 'second' | 'minute' | 'hour' | 'day' | 'week' | 'month' | 'quarter' | 'year';

const CALENDAR: Record<string, CalendarUnit> = {
  second: 'second', '1s': 'second',
  minute: 'minute', '1m': 'minute',
  hour: 'hour', '1h': 'hour',
  day: 'day', '1d': 'day',
  week: 'week', '1w': 'week',
  month: 'month', '1M': 'month',
  quarter: 'quarter', '1q': 'quarter',
  year: 'year', '1y': 'year',
};

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseCalendarInterval(v: string): CalendarUnit {
  const u = CALENDAR[v];
  if (!u) throw Errors.illegalArgument(`The supplied interval [${v}] could not be parsed as a calendar interval.`);
  return u;
}

export function parseFixedInterval(v: string, setting = 'date_histogram.fixedInterval'): number {
  const m = /^(\d+)(ms|s|m|h|d)$/.exec(v.trim());
  if (!m) {
    throw Errors.illegalArgument(
      `failed to parse setting [${setting}] with value [${v}] as a time value: unit is missing or unrecognized`,
    );
  }
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  if (ms <= 0) throw Errors.illegalArgument(`Zero or negative time interval not supported`);
  return ms;
}

/** "+6h", "-1d", "30m", numbers (millis) */
export function parseOffset(v: unknown): number {
  if (v === undefined || v === null) return 0;
  if (typeof v === 'number') return v;
  const s = String(v).trim();
  const m = /^([+-]?)(\d+)(ms|s|m|h|d)$/.exec(s);
  if (!m) {
    throw Errors.illegalArgument(`failed to parse setting [date_histogram.offset] with value [${s}] as a time value: unit is missing or unrecognized`);
  }
  return (m[1] === '-' ? -1 : 1) * Number(m[2]) * UNIT_MS[m[3]!]!;
}

export interface Rounding {
  round(utcMillis: number): number;
  /** the key of the bucket after the one starting at key */
  next(key: number): number;
}

const FIXED_UNIT_MS: Partial<Record<CalendarUnit, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b) * b;
}

/** local wall-clock floor for calendar units >= day (local millis in, local millis out) */
function floorLocalCalendar(local: number, unit: CalendarUnit): number {
  const d = new Date(local);
  switch (unit) {
    case 'day':
      return floorDiv(local, 86_400_000);
    case 'week': {
      const day = floorDiv(local, 86_400_000);
      const dow = (new Date(day).getUTCDay() + 6) % 7; // Monday = 0
      return day - dow * 86_400_000;
    }
    case 'month':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'quarter':
      return Date.UTC(d.getUTCFullYear(), Math.floor(d.getUTCMonth() / 3) * 3, 1);
    case 'year': {
      const r = new Date(0);
      r.setUTCFullYear(d.getUTCFullYear(), 0, 1);
      return r.getTime();
    }
    default:
      return floorDiv(local, FIXED_UNIT_MS[unit]!);
  }
}

function addLocalCalendar(local: number, unit: CalendarUnit): number {
  const d = new Date(local);
  switch (unit) {
    case 'week': return local + 7 * 86_400_000;
    case 'month': d.setUTCMonth(d.getUTCMonth() + 1); return d.getTime();
    case 'quarter': d.setUTCMonth(d.getUTCMonth() + 3); return d.getTime();
    case 'year': d.setUTCFullYear(d.getUTCFullYear() + 1); return d.getTime();
    default: return local + FIXED_UNIT_MS[unit]!;
  }
}

class MemoRounding implements Rounding {
  private lo = 1;
  private hi = 0;
  private key = 0;
  constructor(private readonly inner: Rounding) {}
  round(v: number): number {
    if (v >= this.lo && v < this.hi) return this.key;
    const k = this.inner.round(v);
    const n = this.inner.next(k);
    if (v >= k && v < n) {
      this.lo = k;
      this.hi = n;
      this.key = k;
    }
    return k;
  }
  next(key: number): number {
    return this.inner.next(key);
  }
}

/** Fixed-width rounding in a fixed-offset zone: pure arithmetic */
class FixedWidthRounding implements Rounding {
  constructor(private readonly width: number, private readonly shift: number) {}
  round(v: number): number {
    return Math.floor((v + this.shift) / this.width) * this.width - this.shift;
  }
  next(key: number): number {
    return key + this.width;
  }
}

class CalendarRounding implements Rounding {
  constructor(private readonly unit: CalendarUnit, private readonly tz: TimeZone) {}
  round(v: number): number {
    const off = this.tz.offsetAt(v);
    const local = v + off;
    const fl = floorLocalCalendar(local, this.unit);
    if (this.unit === 'second' || this.unit === 'minute' || this.unit === 'hour') {
      // sub-day units keep the document's own offset so the repeated hour of a DST overlap gets its own bucket
      return fl - off;
    }
    return localToUtc(this.tz, fl);
  }
  next(key: number): number {
    if (this.unit === 'second' || this.unit === 'minute' || this.unit === 'hour') {
      return key + FIXED_UNIT_MS[this.unit]!;
    }
    const local = key + this.tz.offsetAt(key);
    const n = localToUtc(this.tz, addLocalCalendar(local, this.unit));
    return n > key ? n : key + 86_400_000;
  }
}

class FixedIntervalTzRounding implements Rounding {
  constructor(private readonly width: number, private readonly tz: TimeZone) {}
  round(v: number): number {
    const local = v + this.tz.offsetAt(v);
    return localToUtc(this.tz, floorDiv(local, this.width));
  }
  next(key: number): number {
    const local = key + this.tz.offsetAt(key);
    const n = localToUtc(this.tz, floorDiv(local, this.width) + this.width);
    return n > key ? n : key + this.width;
  }
}

class OffsetRounding implements Rounding {
  constructor(private readonly inner: Rounding, private readonly offset: number) {}
  round(v: number): number {
    return this.inner.round(v - this.offset) + this.offset;
  }
  next(key: number): number {
    return this.inner.next(key - this.offset) + this.offset;
  }
}

export interface RoundingSpec {
  calendar?: CalendarUnit;
  fixedMs?: number;
  timeZone?: string;
  offset?: number;
}

export function buildRounding(spec: RoundingSpec): Rounding {
  const tz = resolveTimeZone(spec.timeZone);
  let r: Rounding;
  if (spec.calendar) {
    const fixed = FIXED_UNIT_MS[spec.calendar];
    if (fixed !== undefined && tz.fixedOffset !== null) r = new FixedWidthRounding(fixed, tz.fixedOffset);
    else if (spec.calendar === 'week' && tz.fixedOffset !== null) {
      // epoch (1970-01-01) was a Thursday: shift so weeks start on Monday
      r = new FixedWidthRounding(7 * 86_400_000, tz.fixedOffset + 3 * 86_400_000);
    } else r = new MemoRounding(new CalendarRounding(spec.calendar, tz));
  } else {
    const w = spec.fixedMs!;
    if (tz.fixedOffset !== null) r = new FixedWidthRounding(w, tz.fixedOffset);
    else r = new MemoRounding(new FixedIntervalTzRounding(w, tz));
  }
  if (spec.offset) r = new OffsetRounding(r, spec.offset);
  return r;
}
