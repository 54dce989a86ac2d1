/**
 * The one date-time implementation of the service (java.time semantics, as Elasticsearch's date formats):
 * named formats (strict_date_optional_time, epoch_millis, basic_date, ...) and java.time-style patterns
 * (yyyy-MM-dd HH:mm:ss, dd/MMM/yyyy:HH:mm:ss Z, ...), combined with `||`, in any zone of ./zone.ts.
 * Parsing returns epoch millis (+ nanos of the milli for date_nanos); printing uses the first format.
 * Used by mappings (`format`), range queries and date math, aggregations (`format`, keys), the ingest
 * `date`/`date_index_name` processors and Painless' ZonedDateTime.
 */
import { EsError, Errors } from '../errors.js';
import { formatOffset, zoneOf, type ZoneRules } from './zone.js';

export interface DateParts {
  year?: number;
  month?: number;
  day?: number;
  dayOfYear?: number;
  hour?: number;
  hour12?: number;
  pm?: boolean;
  bc?: boolean;
  minute?: number;
  second?: number;
  nano?: number;
  /** offset in minutes when the text carried a zone */
  offsetMin?: number;
  zone?: ZoneRules;
}

export interface Instant {
  /** epoch milliseconds (floor) */
  millis: number;
  /** 0..999999 nanoseconds within the millisecond */
  nanoOfMilli: number;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** epoch millis of a proleptic-Gregorian local date-time treated as UTC. */
export function localToEpoch(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  if (y >= 100 || y < 0) return Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo - 1, d);
  dt.setUTCHours(h, mi, s, ms);
  return dt.getTime();
}

function floorDiv(a: number, b: number): number {
  return Math.floor(a / b);
}
function floorMod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

// ------------------------------------------------------------------ elements

type NumField = 'year' | 'year2' | 'month' | 'day' | 'doy' | 'hour' | 'hour24' | 'hour12' | 'hour011' | 'minute' | 'second' | 'frac' | 'nano' | 'week';
type El =
  | { t: 'lit'; s: string }
  | { t: 'opt'; els: El[] }
  | { t: 'num'; f: NumField; count: number; fixed: boolean }
  | { t: 'text'; f: 'month' | 'dow' | 'ampm' | 'era'; long: boolean }
  | { t: 'zone'; style: 'Z' | 'ZZ' | 'ZZZZ' | 'ZZZZZ' | 'X' | 'XX' | 'XXX' | 'x' | 'xx' | 'xxx' | 'id' };

function compilePattern(pattern: string): El[] {
  let i = 0;
  const parseSeq = (inOpt: boolean): El[] => {
    const els: El[] = [];
    while (i < pattern.length) {
      const c = pattern[i];
      if (c === ']') {
        if (!inOpt) throw new Error('Pattern invalid as it contains ] without previous [');
        i++;
        return els;
      }
      if (c === '[') {
        i++;
        els.push({ t: 'opt', els: parseSeq(true) });
        continue;
      }
      if (c === "'") {
        let j = i + 1;
        let s = '';
        if (pattern[j] === "'") {
          els.push({ t: 'lit', s: "'" });
          i = j + 1;
          continue;
        }
        for (;;) {
          if (j >= pattern.length) throw new Error(`Pattern ends with an incomplete string literal: ${pattern}`);
          if (pattern[j] === "'") {
            if (pattern[j + 1] === "'") {
              s += "'";
              j += 2;
              continue;
            }
            break;
          }
          s += pattern[j++];
        }
        els.push({ t: 'lit', s });
        i = j + 1;
        continue;
      }
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        let n = 1;
        while (pattern[i + n] === c) n++;
        i += n;
        els.push(letterElement(c, n));
        continue;
      }
      els.push({ t: 'lit', s: c });
      i++;
    }
    if (inOpt) throw new Error('Pattern invalid as it contains [ without matching ]');
    return els;
  };
  const els = parseSeq(false);
  markFixed(els);
  return els;
}

function letterElement(c: string, n: number): El {
  switch (c) {
    case 'y':
    case 'u':
    case 'Y':
      return n === 2 ? { t: 'num', f: 'year2', count: 2, fixed: true } : { t: 'num', f: 'year', count: n, fixed: false };
    case 'M':
    case 'L':
      if (n >= 3) return { t: 'text', f: 'month', long: n >= 4 };
      return { t: 'num', f: 'month', count: n, fixed: false };
    case 'd':
      return { t: 'num', f: 'day', count: n, fixed: false };
    case 'D':
      return { t: 'num', f: 'doy', count: n, fixed: false };
    case 'H':
      return { t: 'num', f: 'hour', count: n, fixed: false };
    case 'k':
      return { t: 'num', f: 'hour24', count: n, fixed: false };
    case 'h':
      return { t: 'num', f: 'hour12', count: n, fixed: false };
    case 'K':
      return { t: 'num', f: 'hour011', count: n, fixed: false };
    case 'n':
      return { t: 'num', f: 'nano', count: n, fixed: false };
    case 'w':
      return { t: 'num', f: 'week', count: n, fixed: false };
    case 'G':
      return { t: 'text', f: 'era', long: n >= 4 };
    case 'm':
      return { t: 'num', f: 'minute', count: n, fixed: false };
    case 's':
      return { t: 'num', f: 'second', count: n, fixed: false };
    case 'S':
      return { t: 'num', f: 'frac', count: n, fixed: false };
    case 'E':
    case 'e':
    case 'c':
      return { t: 'text', f: 'dow', long: n >= 4 };
    case 'a':
      return { t: 'text', f: 'ampm', long: false };
    case 'Z':
      return { t: 'zone', style: n <= 3 ? 'Z' : n === 4 ? 'ZZZZ' : 'ZZZZZ' };
    case 'X':
      return { t: 'zone', style: n === 1 ? 'X' : n === 2 ? 'XX' : 'XXX' };
    case 'x':
      return { t: 'zone', style: n === 1 ? 'x' : n === 2 ? 'xx' : 'xxx' };
    case 'z':
    case 'V':
    case 'O':
      return { t: 'zone', style: 'id' };
    default:
      throw new Error(`Unknown pattern letter: ${c}`);
  }
}

/** numeric fields followed directly by another numeric field parse with a fixed width (adjacent value parsing). */
function markFixed(els: El[]): void {
  for (let k = 0; k < els.length; k++) {
    const e = els[k];
    if (e.t === 'opt') markFixed(e.els);
    if (e.t !== 'num') continue;
    let next: El | undefined = els[k + 1];
    while (next && next.t === 'opt') next = next.els[0];
    if (next && next.t === 'num') e.fixed = true;
    else if (e.count >= 2 && e.f !== 'year' && e.f !== 'frac' && e.f !== 'nano') e.fixed = true;
  }
}

// ------------------------------------------------------------------ pattern parser

class PatternParser {
  constructor(readonly els: El[]) {}

  parse(s: string): DateParts | null {
    const p: DateParts = {};
    const end = this.seq(this.els, s, 0, p);
    return end === s.length ? p : null;
  }

  private seq(els: El[], s: string, pos: number, p: DateParts): number {
    for (const e of els) {
      if (e.t === 'opt') {
        const copy: DateParts = { ...p };
        const r = this.seq(e.els, s, pos, copy);
        if (r >= 0) {
          Object.assign(p, copy);
          pos = r;
        }
        continue;
      }
      pos = this.one(e, s, pos, p);
      if (pos < 0) return -1;
    }
    return pos;
  }

  private one(e: El, s: string, pos: number, p: DateParts): number {
    switch (e.t) {
      case 'lit':
        if (s.startsWith(e.s, pos)) return pos + e.s.length;
        // lenient: a literal 'T' also accepts a space? no: exact like java.time
        return -1;
      case 'num': {
        let min: number;
        let max: number;
        if (e.f === 'frac') {
          min = e.fixed ? e.count : 1;
          max = e.fixed ? e.count : 9;
        } else if (e.f === 'year2') {
          min = max = 2;
        } else if (e.fixed) {
          min = max = e.f === 'year' ? Math.max(e.count, 4) : e.count;
        } else if (e.f === 'year') {
          min = e.count;
          max = 10;
        } else if (e.f === 'nano') {
          min = e.count;
          max = 9;
        } else {
          min = e.count;
          max = Math.max(e.count, e.f === 'doy' ? 3 : 2);
        }
        let neg = false;
        if (e.f === 'year' && (s[pos] === '-' || s[pos] === '+') && !e.fixed) {
          neg = s[pos] === '-';
          pos++;
        }
        let j = pos;
        let v = 0;
        while (j < s.length && j - pos < max && isDigit(s.charCodeAt(j))) {
          v = v * 10 + (s.charCodeAt(j) - 48);
          j++;
        }
        const len = j - pos;
        if (len < min) return -1;
        switch (e.f) {
          case 'year': p.year = neg ? -v : v; break;
          case 'year2': p.year = 2000 + v; break;
          case 'month': p.month = v; break;
          case 'day': p.day = v; break;
          case 'doy': p.dayOfYear = v; break;
          case 'hour': p.hour = v; break;
          case 'hour24': p.hour = v % 24; break;
          case 'hour12': p.hour12 = v; break;
          case 'hour011': p.hour12 = v; break;
          case 'nano': p.nano = v; break;
          case 'week': break; // week-of-year is printed; parsing it does not move the date (no week-based resolution)
          case 'minute': p.minute = v; break;
          case 'second': p.second = v; break;
          case 'frac': p.nano = v * 10 ** (9 - len); break;
        }
        return j;
      }
      case 'text': {
        if (e.f === 'era') {
          const t = s.substr(pos, 2).toUpperCase();
          if (t === 'AD' || t === 'BC') {
            p.bc = t === 'BC';
            return pos + 2;
          }
          return -1;
        }
        if (e.f === 'ampm') {
          const t = s.substr(pos, 2).toUpperCase();
          if (t === 'AM' || t === 'PM') {
            p.pm = t === 'PM';
            return pos + 2;
          }
          return -1;
        }
        const names = e.f === 'month' ? MONTHS : DAYS;
        const lower = s.slice(pos).toLowerCase();
        for (let k = 0; k < names.length; k++) {
          const full = names[k].toLowerCase();
          const cand = e.long ? [full, full.slice(0, 3)] : [full.slice(0, 3), full];
          for (const c of cand) {
            if (lower.startsWith(c)) {
              if (e.f === 'month') p.month = k + 1;
              return pos + c.length;
            }
          }
        }
        return -1;
      }
      case 'zone': {
        if (e.style === 'id') {
          const m = /^[A-Za-z][A-Za-z0-9_/+-]*/.exec(s.slice(pos));
          if (!m) return -1;
          try {
            p.zone = zoneOf(m[0]);
          } catch {
            return -1;
          }
          return pos + m[0].length;
        }
        if (e.style === 'ZZZZ' && s.startsWith('GMT', pos)) {
          pos += 3;
          if (pos === s.length || (s[pos] !== '+' && s[pos] !== '-')) {
            p.offsetMin = 0;
            return pos;
          }
        }
        const c = s[pos];
        if (c === 'Z' || c === 'z') {
          p.offsetMin = 0;
          return pos + 1;
        }
        if (c !== '+' && c !== '-') return -1;
        const m = /^[+-](\d{2})(?::?(\d{2}))?/.exec(s.slice(pos));
        if (!m) return -1;
        const h = Number(m[1]);
        const mi = m[2] ? Number(m[2]) : 0;
        if (h > 18 || mi > 59) return -1;
        p.offsetMin = (c === '-' ? -1 : 1) * (h * 60 + mi);
        return pos + m[0].length;
      }
      default:
        return -1;
    }
  }
}

// ------------------------------------------------------------------ ISO parser (strict_date_optional_time and friends)

/** result registers of readDigits (avoids an allocation per component on the hot indexing path) */
let rdValue = 0;
let rdEnd = 0;

function readDigits(s: string, pos: number, min: number, max: number): boolean {
  let v = 0;
  let j = pos;
  while (j < s.length && j - pos < max) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    j++;
  }
  if (j - pos < min) return false;
  rdValue = v;
  rdEnd = j;
  return true;
}

/** yyyy[-MM[-dd['T'HH[:mm[:ss[.S{1,9}]]][zone]]]]; `spaceSeparator` also takes ' ' for 'T' (ingest's ISO8601) */
export function parseIsoDateOptionalTime(s: string, strict: boolean, spaceSeparator = false): DateParts | null {
  const p: DateParts = {};
  let pos = 0;
  let sign = 1;
  if (!strict && (s[0] === '-' || s[0] === '+')) {
    sign = s[0] === '-' ? -1 : 1;
    pos = 1;
  }
  if (!readDigits(s, pos, strict ? 4 : 1, strict ? 4 : 9)) return null;
  p.year = sign * rdValue;
  pos = rdEnd;
  if (pos === s.length) return p;
  if (s.charCodeAt(pos) !== 45) return zoneTail(s, pos, p);
  if (!readDigits(s, pos + 1, strict ? 2 : 1, 2)) return null;
  p.month = rdValue;
  pos = rdEnd;
  if (pos === s.length) return p;
  if (s.charCodeAt(pos) !== 45) return zoneTail(s, pos, p);
  if (!readDigits(s, pos + 1, strict ? 2 : 1, 2)) return null;
  p.day = rdValue;
  pos = rdEnd;
  if (pos === s.length) return p;
  if (s.charCodeAt(pos) !== 84 && !(spaceSeparator && s.charCodeAt(pos) === 32)) return zoneTail(s, pos, p); // 'T'
  if (!readDigits(s, pos + 1, strict ? 2 : 1, 2)) return null;
  p.hour = rdValue;
  pos = rdEnd;
  if (pos < s.length && s.charCodeAt(pos) === 58) {
    if (!readDigits(s, pos + 1, strict ? 2 : 1, 2)) return null;
    p.minute = rdValue;
    pos = rdEnd;
    if (pos < s.length && s.charCodeAt(pos) === 58) {
      if (!readDigits(s, pos + 1, strict ? 2 : 1, 2)) return null;
      p.second = rdValue;
      pos = rdEnd;
      const c = s.charCodeAt(pos);
      if (pos < s.length && (c === 46 || c === 44)) {
        if (!readDigits(s, pos + 1, 1, 9)) return null;
        p.nano = rdValue * 10 ** (9 - (rdEnd - pos - 1));
        pos = rdEnd;
      }
    }
  }
  return zoneTail(s, pos, p);
}

function zoneTail(s: string, pos: number, p: DateParts): DateParts | null {
  if (pos === s.length) return p;
  const c = s.charCodeAt(pos);
  if (c === 90 && pos + 1 === s.length) {
    p.offsetMin = 0;
    return p;
  }
  if (c !== 43 && c !== 45) return null;
  if (!readDigits(s, pos + 1, 2, 2)) return null;
  let h = rdValue;
  let m = 0;
  let j = rdEnd;
  if (j < s.length) {
    if (s.charCodeAt(j) === 58) j++;
    if (!readDigits(s, j, 2, 2)) return null;
    m = rdValue;
    j = rdEnd;
  }
  if (j !== s.length || h > 18 || m > 59) return null;
  if (c === 45) {
    h = -h;
    m = -m;
  }
  p.offsetMin = h * 60 + m;
  return p;
}

// ------------------------------------------------------------------ resolution

/**
 * Turns parsed fields into an instant. roundUp fills missing fields like ES's round-up parser
 * (JavaDateFormatter ROUND_UP_BASE_FIELDS): month and day default to 1 (not their maximum), the time of day to
 * 23:59:59.999999999 — so "2024-01" rounds up to 2024-01-01T23:59:59.999, "2024-01-05" to the end of that day.
 */
export function resolveParts(p: DateParts, zone: ZoneRules, roundUp: boolean, defaultYear = 1970): Instant | null {
  let year = p.year ?? defaultYear;
  if (p.bc) year = 1 - year;
  let month = p.month;
  let day = p.day;
  if (p.dayOfYear !== undefined) {
    const start = localToEpoch(year, 1, 1, 0, 0, 0, 0) + (p.dayOfYear - 1) * 86400000;
    const d = new Date(start);
    month = d.getUTCMonth() + 1;
    day = d.getUTCDate();
  }
  month = month ?? 1;
  if (month < 1 || month > 12) return null;
  const dim = daysInMonth(year, month);
  day = day ?? 1;
  if (day < 1 || day > dim) return null;
  let hour = p.hour;
  if (hour === undefined && p.hour12 !== undefined) {
    if (p.hour12 < 0 || p.hour12 > 12) return null;
    hour = (p.hour12 % 12) + (p.pm ? 12 : 0);
  } else if (hour !== undefined && p.pm !== undefined && hour < 12 && p.pm) hour += 12;
  hour = hour ?? (roundUp ? 23 : 0);
  const minute = p.minute ?? (roundUp ? 59 : 0);
  const second = p.second ?? (roundUp ? 59 : 0);
  const nano = p.nano ?? (roundUp ? 999_999_999 : 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = Math.floor(nano / 1e6);
  const local = localToEpoch(year, month, day, hour, minute, second, ms);
  let millis: number;
  if (p.offsetMin !== undefined) millis = local - p.offsetMin * 60000;
  else millis = (p.zone ?? zone).toUtc(local);
  return { millis, nanoOfMilli: nano % 1e6 };
}

// ------------------------------------------------------------------ printing

/** The local date-time fields of an instant in a zone (what a ZonedDateTime holds). */
export interface ZonedFields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nano: number;
  dow: number;
  doy: number;
  offsetMs: number;
}

/** The local fields of an instant in a zone (dow 0 = Monday, nano = nano-of-second). */
export function zonedFields(millis: number, zone: ZoneRules, nanoOfMilli = 0): ZonedFields {
  const off = zone.offsetAt(millis);
  const local = millis + off;
  const d = new Date(local);
  const y = d.getUTCFullYear();
  return {
    year: y,
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    nano: d.getUTCMilliseconds() * 1e6 + nanoOfMilli,
    dow: (d.getUTCDay() + 6) % 7,
    doy: floorDiv(local - localToEpoch(y, 1, 1, 0, 0, 0, 0), 86400000) + 1,
    offsetMs: off,
  };
}

/** ISO-8601 week of the week-based year (weeks start on Monday, week 1 holds the first Thursday). */
function isoWeek(f: ZonedFields): number {
  const thursday = localToEpoch(f.year, f.month, f.day, 0, 0, 0, 0) + (3 - f.dow) * 86400000;
  const y = new Date(thursday).getUTCFullYear();
  return Math.floor((thursday - localToEpoch(y, 1, 1, 0, 0, 0, 0)) / (7 * 86400000)) + 1;
}

function pad(n: number, w: number): string {
  const neg = n < 0;
  const s = String(Math.abs(n)).padStart(w, '0');
  return neg ? '-' + s : s;
}

function printEls(els: El[], f: ZonedFields, zone: ZoneRules, out: string[]): void {
  for (const e of els) {
    switch (e.t) {
      case 'lit':
        out.push(e.s);
        break;
      case 'opt':
        printEls(e.els, f, zone, out);
        break;
      case 'num':
        switch (e.f) {
          case 'year': out.push(e.count === 4 || e.count < 4 ? (f.year > 9999 ? '+' + f.year : pad(f.year, e.count)) : pad(f.year, e.count)); break;
          case 'year2': out.push(pad(floorMod(f.year, 100), 2)); break;
          case 'month': out.push(pad(f.month, e.count)); break;
          case 'day': out.push(pad(f.day, e.count)); break;
          case 'doy': out.push(pad(f.doy, e.count)); break;
          case 'hour': out.push(pad(f.hour, e.count)); break;
          case 'hour24': out.push(pad(f.hour === 0 ? 24 : f.hour, e.count)); break;
          case 'hour12': out.push(pad(f.hour % 12 === 0 ? 12 : f.hour % 12, e.count)); break;
          case 'hour011': out.push(pad(f.hour % 12, e.count)); break;
          case 'nano': out.push(pad(f.nano, e.count)); break;
          case 'week': out.push(pad(isoWeek(f), e.count)); break;
          case 'minute': out.push(pad(f.minute, e.count)); break;
          case 'second': out.push(pad(f.second, e.count)); break;
          case 'frac': out.push(String(f.nano).padStart(9, '0').slice(0, e.count)); break;
        }
        break;
      case 'text':
        if (e.f === 'ampm') out.push(f.hour < 12 ? 'AM' : 'PM');
        else if (e.f === 'era') out.push(f.year > 0 ? (e.long ? 'Anno Domini' : 'AD') : e.long ? 'Before Christ' : 'BC');
        else {
          const name = e.f === 'month' ? MONTHS[f.month - 1] : DAYS[f.dow];
          out.push(e.long ? name : name.slice(0, 3));
        }
        break;
      case 'zone':
        switch (e.style) {
          case 'Z': out.push(formatOffset(f.offsetMs, false, false)); break;
          case 'ZZZZ': out.push(f.offsetMs === 0 ? 'GMT' : 'GMT' + formatOffset(f.offsetMs, true)); break;
          case 'ZZ':
          case 'xxx': out.push(formatOffset(f.offsetMs, true, false)); break;
          case 'xx': out.push(formatOffset(f.offsetMs, false, false)); break;
          case 'x': out.push(formatOffset(f.offsetMs, false, false).slice(0, 3)); break;
          case 'X': out.push(f.offsetMs === 0 ? 'Z' : formatOffset(f.offsetMs, false).slice(0, 3)); break;
          case 'XX': out.push(formatOffset(f.offsetMs, false)); break;
          case 'XXX':
          case 'ZZZZZ': out.push(formatOffset(f.offsetMs, true)); break;
          case 'id': out.push(zone.fixed ? formatOffset(f.offsetMs, true) : zone.id); break;
        }
        break;
    }
  }
}

// ------------------------------------------------------------------ epoch nanos as doubles

/**
 * Epoch nanos as the nearest double (date_nanos points and doc values are float64: from 2^53 ns on, i.e. after
 * 1970-04-15, a double holds the value to within 128 ns). Correctly rounded, so index time and query time map
 * the same instant to the same double, and the mapping is monotonic.
 */
export function epochNanos(millis: number, nanoOfMilli = 0): number {
  const approx = millis * 1e6 + nanoOfMilli;
  if (Math.abs(approx) < Number.MAX_SAFE_INTEGER) return approx;
  return Number(BigInt(millis) * 1_000_000n + BigInt(nanoOfMilli));
}

/**
 * Splits epoch nanos (a double holding an integer) into epoch millis and nano-of-milli. Above 2^53 the double
 * stands for every integer that rounds to it; the one with the shortest digits is taken (what JS prints, so an
 * instant indexed with millisecond or microsecond precision comes back exactly as it was written).
 */
export function splitEpochNanos(nanos: number): { millis: number; nanoOfMilli: number } {
  if (Math.abs(nanos) < Number.MAX_SAFE_INTEGER || !Number.isInteger(nanos) || Math.abs(nanos) >= 1e21) {
    const millis = Math.floor(nanos / 1e6);
    return { millis, nanoOfMilli: Math.round(nanos - millis * 1e6) };
  }
  const b = BigInt(String(nanos));
  let millis = b / 1_000_000n;
  let rest = b % 1_000_000n;
  if (rest < 0n) {
    rest += 1_000_000n;
    millis -= 1n;
  }
  return { millis: Number(millis), nanoOfMilli: Number(rest) };
}

// ------------------------------------------------------------------ formats

interface SingleFormat {
  name: string;
  parse(text: string, zone: ZoneRules, roundUp: boolean, defaultYear?: number): Instant | null;
  print(millis: number, nanoOfMilli: number, zone: ZoneRules): string;
}

function epochFormat(name: string, unitMs: number): SingleFormat {
  return {
    name,
    parse(text, _zone, roundUp) {
      if (!/^-?\d+(\.\d+)?$/.test(text)) {
        if (!/^-?\d+(\.\d+)?[eE][+-]?\d+$/.test(text)) return null;
      }
      const v = Number(text) * unitMs;
      if (!Number.isFinite(v)) return null;
      // ES EpochTime round-up parsers default the sub-unit fields: epoch_millis NANOS_OF_MILLI=999999,
      // epoch_second NANO_OF_SECOND=999999999 (only when the text has no fraction of its own)
      if (roundUp && Number.isInteger(v) && !text.includes('.')) {
        return { millis: v + (unitMs === 1 ? 0 : 999), nanoOfMilli: 999_999 };
      }
      const millis = Math.floor(v);
      const nano = Math.round((v - millis) * 1e6);
      return { millis, nanoOfMilli: nano >= 1e6 ? 0 : nano };
    },
    print(millis, nanoOfMilli) {
      if (unitMs === 1) {
        if (!nanoOfMilli) return String(millis);
        return `${millis}.${String(nanoOfMilli).padStart(6, '0').replace(/0+$/, '')}`;
      }
      const secs = millis / 1000;
      return Number.isInteger(secs) ? String(secs) : String(secs);
    },
  };
}

function patternFormat(name: string, pattern: string, printPattern?: string): SingleFormat {
  const els = compilePattern(pattern);
  const printEl = printPattern ? compilePattern(printPattern) : els;
  const parser = new PatternParser(els);
  return {
    name,
    parse(text, zone, roundUp, defaultYear) {
      const p = parser.parse(text);
      return p ? resolveParts(p, zone, roundUp, defaultYear) : null;
    },
    print(millis, nanoOfMilli, zone) {
      const out: string[] = [];
      printEls(printEl, zonedFields(millis, zone, nanoOfMilli), zone, out);
      return out.join('');
    },
  };
}

function isoFormat(name: string, strict: boolean, nanos: boolean, spaceSeparator = false): SingleFormat {
  return {
    name,
    parse(text, zone, roundUp) {
      const p = parseIsoDateOptionalTime(text, strict, spaceSeparator);
      return p ? resolveParts(p, zone, roundUp) : null;
    },
    print(millis, nanoOfMilli, zone) {
      const f = zonedFields(millis, zone, nanoOfMilli);
      let frac: string;
      if (nanos) {
        frac = String(f.nano).padStart(9, '0');
        frac = frac.replace(/0+$/, '');
        if (frac.length < 3) frac = frac.padEnd(3, '0');
      } else frac = String(Math.floor(f.nano / 1e6)).padStart(3, '0');
      const y = f.year > 9999 ? '+' + f.year : pad(f.year, 4);
      return `${y}-${pad(f.month, 2)}-${pad(f.day, 2)}T${pad(f.hour, 2)}:${pad(f.minute, 2)}:${pad(f.second, 2)}.${frac}${formatOffset(f.offsetMs, true)}`;
    },
  };
}

const NAMED_PATTERNS: Record<string, string | [string, string]> = {
  basic_date: 'yyyyMMdd',
  basic_date_time: ["yyyyMMdd'T'HHmmss[.SSS]X", "yyyyMMdd'T'HHmmss.SSSXX"],
  basic_date_time_no_millis: ["yyyyMMdd'T'HHmmssX", "yyyyMMdd'T'HHmmssXX"],
  basic_ordinal_date: 'yyyyDDD',
  basic_ordinal_date_time: ["yyyyDDD'T'HHmmss.SSSX", "yyyyDDD'T'HHmmss.SSSXX"],
  basic_time: ['HHmmss.SSSX', 'HHmmss.SSSXX'],
  basic_time_no_millis: ['HHmmssX', 'HHmmssXX'],
  basic_t_time: ["'T'HHmmss.SSSX", "'T'HHmmss.SSSXX"],
  basic_t_time_no_millis: ["'T'HHmmssX", "'T'HHmmssXX"],
  date: 'yyyy-MM-dd',
  date_hour: "yyyy-MM-dd'T'HH",
  date_hour_minute: "yyyy-MM-dd'T'HH:mm",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second_fraction: ["yyyy-MM-dd'T'HH:mm:ss.S", "yyyy-MM-dd'T'HH:mm:ss.SSS"],
  date_hour_minute_second_millis: ["yyyy-MM-dd'T'HH:mm:ss.S", "yyyy-MM-dd'T'HH:mm:ss.SSS"],
  date_time: ["yyyy-MM-dd'T'HH:mm:ss.SX", "yyyy-MM-dd'T'HH:mm:ss.SSSXXX"],
  date_time_no_millis: ["yyyy-MM-dd'T'HH:mm:ssX", "yyyy-MM-dd'T'HH:mm:ssXXX"],
  hour: 'HH',
  hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  hour_minute_second_fraction: ['HH:mm:ss.S', 'HH:mm:ss.SSS'],
  hour_minute_second_millis: ['HH:mm:ss.S', 'HH:mm:ss.SSS'],
  ordinal_date: 'yyyy-DDD',
  ordinal_date_time: ["yyyy-DDD'T'HH:mm:ss.SX", "yyyy-DDD'T'HH:mm:ss.SSSXXX"],
  time: ['HH:mm:ss.SX', 'HH:mm:ss.SSSXXX'],
  time_no_millis: ['HH:mm:ssX', 'HH:mm:ssXXX'],
  t_time: ["'T'HH:mm:ss.SX", "'T'HH:mm:ss.SSSXXX"],
  t_time_no_millis: ["'T'HH:mm:ssX", "'T'HH:mm:ssXXX"],
  year: 'yyyy',
  year_month: 'yyyy-MM',
  year_month_day: 'yyyy-MM-dd',
};

function namedFormat(name: string): SingleFormat | undefined {
  switch (name) {
    case 'strict_date_optional_time':
      return isoFormat(name, true, false);
    case 'date_optional_time':
    case 'iso8601':
      return isoFormat(name, false, false);
    case 'strict_date_optional_time_nanos':
      return isoFormat(name, true, true);
    case 'epoch_millis':
      return epochFormat(name, 1);
    case 'epoch_second':
      return epochFormat(name, 1000);
  }
  const base = name.startsWith('strict_') ? name.slice('strict_'.length) : name;
  const p = NAMED_PATTERNS[base];
  if (p === undefined) return undefined;
  return typeof p === 'string' ? patternFormat(name, p) : patternFormat(name, p[0], p[1]);
}

const CACHE = new Map<string, DateFormatter>();

export const DEFAULT_DATE_FORMAT = 'strict_date_optional_time||epoch_millis';
export const DEFAULT_DATE_NANOS_FORMAT = 'strict_date_optional_time_nanos||epoch_millis';

export class DateFormatter {
  private constructor(
    readonly pattern: string,
    private readonly formats: SingleFormat[],
  ) {}

  /** A formatter for a format string (cached). Throws illegal_argument_exception "Invalid format: [x]: reason". */
  static of(pattern: string): DateFormatter {
    const hit = CACHE.get(pattern);
    if (hit) return hit;
    if (typeof pattern !== 'string' || pattern.trim() === '') {
      throw Errors.illegalArgument(`Invalid format: [${String(pattern)}]: format must not be empty`);
    }
    const formats: SingleFormat[] = [];
    for (const part of pattern.split('||')) {
      const name = part.trim();
      let f = namedFormat(name);
      if (!f) {
        try {
          f = patternFormat(name, name);
        } catch (e) {
          throw Errors.illegalArgument(`Invalid format: [${pattern}]: ${(e as Error).message}`);
        }
      }
      formats.push(f);
    }
    const df = new DateFormatter(pattern, formats);
    if (CACHE.size > 1000) CACHE.clear();
    CACHE.set(pattern, df);
    return df;
  }

  /** Parses to an instant, trying each `||` alternative; null when none matches. */
  tryParse(text: string, timeZone?: string | ZoneRules, roundUp = false, defaultYear?: number): Instant | null {
    const zone = typeof timeZone === 'object' ? timeZone : zoneOf(timeZone);
    for (const f of this.formats) {
      const r = f.parse(text, zone, roundUp, defaultYear);
      if (r) return r;
    }
    return null;
  }

  /** Parses to epoch millis; throws illegal_argument_exception "failed to parse date field [x] with format [f]". */
  parseMillis(text: string, timeZone?: string | ZoneRules, roundUp = false): number {
    const r = this.tryParse(text, timeZone, roundUp);
    if (!r) throw this.parseError(text);
    return r.millis;
  }

  /** Parses to epoch nanos (as a double: precision loss above 2^53 accepted). */
  parseNanos(text: string, timeZone?: string | ZoneRules, roundUp = false): number {
    const r = this.tryParse(text, timeZone, roundUp);
    if (!r) throw this.parseError(text);
    return epochNanos(r.millis, r.nanoOfMilli);
  }

  parseError(text: string): EsError {
    return Errors.illegalArgument(`failed to parse date field [${text}] with format [${this.pattern}]`, new EsError('date_time_parse_exception', 400, `Failed to parse with all enclosed parsers`));
  }

  /** Formats epoch millis with the first format. */
  format(millis: number, timeZone?: string | ZoneRules, nanoOfMilli = 0): string {
    const zone = typeof timeZone === 'object' ? timeZone : zoneOf(timeZone);
    return this.formats[0].print(millis, nanoOfMilli, zone);
  }

  formatNanos(nanos: number, timeZone?: string | ZoneRules): string {
    const { millis, nanoOfMilli } = splitEpochNanos(nanos);
    return this.format(millis, timeZone, nanoOfMilli);
  }

  /** true when the first format prints epoch values (used by DocValueFormat semantics) */
  get isEpoch(): boolean {
    return this.formats[0].name === 'epoch_millis' || this.formats[0].name === 'epoch_second';
  }
}


