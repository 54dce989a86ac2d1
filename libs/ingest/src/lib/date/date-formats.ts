/**
 * Date parsing and formatting for the date and date_index_name processors: ISO8601, UNIX, UNIX_MS, TAI64N
 * and java.time-style patterns (compiled once to a RegExp plus field setters), with IANA time zones.
 */
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

export class DateParseError extends Error {}

// ------------------------------------------------------------------------------------ time zones

const dtfCache = new Map<string, Intl.DateTimeFormat>();

export function validateZone(zone: string): string {
  const z = normalizeZone(zone);
  if (fixedOffset(z) !== undefined) return z;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: z });
    return z;
  } catch {
    throw new DateParseError(`Unknown time-zone ID: ${zone}`);
  }
}

function normalizeZone(zone: string): string {
  if (zone === 'Z' || zone === 'UTC' || zone === 'GMT' || zone === 'utc') return 'UTC';
  return zone;
}

/** minutes east of UTC for `+02:00`, `-0500`, `UTC+1` style zones; undefined for region ids */
function fixedOffset(zone: string): number | undefined {
  if (zone === 'UTC') return 0;
  const m = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(zone);
  if (!m) return undefined;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** offset (ms east of UTC) of `zone` at the instant `utcMs` */
export function zoneOffsetMs(zone: string, utcMs: number): number {
  const fixed = fixedOffset(zone);
  if (fixed !== undefined) return fixed * 60000;
  let dtf = dtfCache.get(zone);
  if (!dtf) {
    dtf = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    dtfCache.set(zone, dtf);
  }
  const parts = dtf.formatToParts(new Date(utcMs));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** UTC instant of a local wall-clock time in `zone` */
function localToUtc(localAsUtcMs: number, zone: string): number {
  const fixed = fixedOffset(zone);
  if (fixed !== undefined) return localAsUtcMs - fixed * 60000;
  let guess = localAsUtcMs - zoneOffsetMs(zone, localAsUtcMs);
  const off2 = zoneOffsetMs(zone, guess);
  guess = localAsUtcMs - off2;
  return guess;
}

// ------------------------------------------------------------------------------------ parsing

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

interface Fields {
  year?: number;
  month?: number; // 1-12
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  nanos?: number;
  pm?: boolean;
  hour12?: number;
  offsetMin?: number;
  zone?: string;
}

export interface DateParser {
  readonly format: string;
  /** epoch millis; throws DateParseError */
  parse(text: string, zone: string, nowMs: number): number;
}

function toEpoch(f: Fields, zone: string, nowMs: number): number {
  let hour = f.hour ?? 0;
  if (f.hour12 !== undefined) hour = (f.hour12 % 12) + (f.pm ? 12 : 0);
  const year = f.year ?? new Date(nowMs + zoneOffsetMs(zone, nowMs)).getUTCFullYear();
  const month = f.month ?? 1;
  const day = f.day ?? 1;
  if (month < 1 || month > 12) throw new DateParseError(`Invalid value for MonthOfYear: ${month}`);
  const dim = month === 2 ? (isLeap(year) ? 29 : 28) : DAYS_IN_MONTH[month - 1];
  if (day < 1 || day > dim) throw new DateParseError(`Invalid date`);
  if (hour > 23 || (f.minute ?? 0) > 59 || (f.second ?? 0) > 59) throw new DateParseError('Invalid time');
  let local = Date.UTC(year, month - 1, day, hour, f.minute ?? 0, f.second ?? 0, Math.floor((f.nanos ?? 0) / 1e6));
  if (year >= 0 && year < 100) {
    const d = new Date(local);
    d.setUTCFullYear(year);
    local = d.getTime();
  }
  if (f.offsetMin !== undefined) return local - f.offsetMin * 60000;
  return localToUtc(local, f.zone ?? zone);
}

const ISO_RE =
  /^([+-]?\d{4,9})(?:-(\d{1,2})(?:-(\d{1,2}))?)?(?:[T ](\d{1,2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d{1,9}))?)?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseOffset(s: string): number {
  if (s === 'Z' || s === 'z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(s);
  if (!m) throw new DateParseError(`bad offset ${s}`);
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

export function parseIso8601(text: string, zone: string, nowMs: number): number {
  const m = ISO_RE.exec(text.trim());
  if (!m) throw new DateParseError(`failed to parse date field [${text}] with format [iso8601]`);
  const f: Fields = {
    year: Number(m[1]),
    month: m[2] ? Number(m[2]) : 1,
    day: m[3] ? Number(m[3]) : 1,
    hour: m[4] ? Number(m[4]) : 0,
    minute: m[5] ? Number(m[5]) : 0,
    second: m[6] ? Number(m[6]) : 0,
    nanos: m[7] ? Number(m[7].padEnd(9, '0')) : 0,
  };
  if (m[8]) f.offsetMin = parseOffset(m[8]);
  return toEpoch(f, zone, nowMs);
}

function compileJavaPattern(pattern: string): { re: RegExp; setters: Array<((f: Fields, v: string) => void) | null> } {
  let src = '';
  const setters: Array<((f: Fields, v: string) => void) | null> = [];
  let i = 0;
  const group = (re: string, set: ((f: Fields, v: string) => void) | null) => {
    src += `(${re})`;
    setters.push(set);
  };
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        src += "'";
        i += 2;
        continue;
      }
      if (end < 0) throw new DateParseError(`Pattern ends with an incomplete string literal: ${pattern}`);
      src += escapeRe(pattern.slice(i + 1, end));
      i = end + 1;
      continue;
    }
    if (c === '[' || c === ']') {
      // optional sections: treat as literal-free grouping
      src += c === '[' ? '(?:' : ')?';
      i++;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      src += escapeRe(c);
      i++;
      continue;
    }
    let j = i;
    while (j < pattern.length && pattern[j] === c) j++;
    const n = j - i;
    i = j;
    switch (c) {
      case 'y':
      case 'u':
      case 'Y':
        if (n === 2) group('\\d{2}', (f, v) => (f.year = 2000 + Number(v)));
        else if (n === 4) group('[+-]?\\d{4}', (f, v) => (f.year = Number(v)));
        else group('[+-]?\\d{1,9}', (f, v) => (f.year = Number(v)));
        break;
      case 'M':
      case 'L':
        if (n >= 4) group('[A-Za-z]+', (f, v) => (f.month = monthIndex(v, false)));
        else if (n === 3) group('[A-Za-z]{3,4}\\.?', (f, v) => (f.month = monthIndex(v, true)));
        else if (n === 2) group('\\d{2}', (f, v) => (f.month = Number(v)));
        else group('\\d{1,2}', (f, v) => (f.month = Number(v)));
        break;
      case 'd':
        group(n === 2 ? '\\d{2}' : '\\d{1,2}', (f, v) => (f.day = Number(v)));
        break;
      case 'D':
        group('\\d{1,3}', (f, v) => {
          f.month = 1;
          f.day = Number(v);
        });
        break;
      case 'H':
      case 'k':
        group(n === 2 ? '\\d{2}' : '\\d{1,2}', (f, v) => (f.hour = Number(v) % 24));
        break;
      case 'h':
      case 'K':
        group(n === 2 ? '\\d{2}' : '\\d{1,2}', (f, v) => (f.hour12 = Number(v)));
        break;
      case 'm':
        group(n === 2 ? '\\d{2}' : '\\d{1,2}', (f, v) => (f.minute = Number(v)));
        break;
      case 's':
        group(n === 2 ? '\\d{2}' : '\\d{1,2}', (f, v) => (f.second = Number(v)));
        break;
      case 'S':
        group(`\\d{${n}}`, (f, v) => (f.nanos = Number(v.padEnd(9, '0').slice(0, 9))));
        break;
      case 'n':
        group('\\d{1,9}', (f, v) => (f.nanos = Number(v)));
        break;
      case 'a':
        group('[AaPp][Mm]', (f, v) => (f.pm = v.toLowerCase() === 'pm'));
        break;
      case 'E':
      case 'e':
        group(n >= 4 ? '[A-Za-z]+' : '[A-Za-z]{2,3}', (_f, v) => {
          const l = v.toLowerCase();
          if (!DAYS.some((d) => d === l || d.slice(0, 3) === l)) throw new DateParseError(`bad day ${v}`);
        });
        break;
      case 'Z':
        group(n >= 4 ? '(?:GMT)?[+-]\\d{2}:?\\d{2}|Z' : '[+-]\\d{2}:?\\d{2}|Z', (f, v) => (f.offsetMin = parseOffset(v.replace('GMT', ''))));
        break;
      case 'X':
      case 'x':
        group('Z|[+-]\\d{2}(?::?\\d{2})?', (f, v) => (f.offsetMin = parseOffset(v)));
        break;
      case 'z':
      case 'V':
      case 'O':
        group('[A-Za-z][A-Za-z0-9/_+-]*(?:[+-]\\d{1,2}(?::?\\d{2})?)?', (f, v) => {
          if (/^(UTC|GMT|Z|UT)$/.test(v)) f.offsetMin = 0;
          else if (/^(?:UTC|GMT)[+-]/.test(v)) f.offsetMin = parseOffset(v.slice(3));
          else f.zone = validateZone(v);
        });
        break;
      case 'G':
        group('AD|BC', null);
        break;
      default:
        throw new DateParseError(`Unknown pattern letter: ${c}`);
    }
  }
  return { re: new RegExp(`^${src}$`), setters };
}

function monthIndex(v: string, short: boolean): number {
  const l = v.toLowerCase().replace(/\.$/, '');
  const i = MONTHS.findIndex((m) => (short ? m.slice(0, 3) === l || (l.length === 4 && m.slice(0, 4) === l) : m === l));
  if (i < 0) throw new DateParseError(`bad month ${v}`);
  return i + 1;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

const NAMED: Record<string, string> = {
  strict_date_optional_time: 'ISO8601',
  date_optional_time: 'ISO8601',
  strict_date_time: 'ISO8601',
  date_time: 'ISO8601',
  strict_date_time_no_millis: 'ISO8601',
  date_time_no_millis: 'ISO8601',
  epoch_millis: 'UNIX_MS',
  epoch_second: 'UNIX',
  strict_date: 'yyyy-MM-dd',
  date: 'yyyy-MM-dd',
  basic_date: 'yyyyMMdd',
  strict_date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
};

export function compileDateParser(format: string): DateParser {
  const f = NAMED[format] ?? format;
  switch (f) {
    case 'ISO8601':
      return { format, parse: (t, z, now) => parseIso8601(t, z, now) };
    case 'UNIX':
      return {
        format,
        parse: (t) => {
          const s = t.trim();
          if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) throw new DateParseError(`failed to parse [${t}] as UNIX`);
          return Math.round(Number(s) * 1000);
        },
      };
    case 'UNIX_MS':
      return {
        format,
        parse: (t) => {
          const s = t.trim();
          if (!/^[+-]?\d+$/.test(s)) throw new DateParseError(`failed to parse [${t}] as UNIX_MS`);
          return Number(s);
        },
      };
    case 'TAI64N':
      return {
        format,
        parse: (t) => {
          const s = t.startsWith('@') ? t.slice(1) : t;
          if (!/^[0-9a-fA-F]{24}$/.test(s)) throw new DateParseError(`failed to parse [${t}] as TAI64N`);
          const base = Number.parseInt(s.slice(1, 16), 16);
          const rest = Number.parseInt(s.slice(16, 24), 16);
          return base * 1000 - 10000 + Math.floor(rest / 1000000);
        },
      };
  }
  const alternatives = f.split('||').map((p) => compileJavaPattern(p));
  return {
    format,
    parse(text, zone, now) {
      for (const { re, setters } of alternatives) {
        const m = re.exec(text);
        if (!m) continue;
        const fields: Fields = {};
        for (let i = 0; i < setters.length; i++) {
          const s = setters[i];
          if (s && m[i + 1] !== undefined) s(fields, m[i + 1]);
        }
        return toEpoch(fields, zone, now);
      }
      throw new DateParseError(`failed to parse date field [${text}] with format [${format}]`);
    },
  };
}

// ------------------------------------------------------------------------------------ formatting

const SHORT_MONTHS = MONTHS.map((m) => m[0].toUpperCase() + m.slice(1, 3));
const LONG_MONTHS = MONTHS.map((m) => m[0].toUpperCase() + m.slice(1));
const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

function pad(n: number, w: number): string {
  const s = String(Math.abs(n)).padStart(w, '0');
  return n < 0 ? '-' + s : s;
}

function fmtOffset(offMin: number, letter: string, n: number): string {
  if (offMin === 0 && (letter === 'X' || (letter === 'Z' && n >= 4))) return 'Z';
  const sign = offMin < 0 ? '-' : '+';
  const a = Math.abs(offMin);
  const hh = pad(Math.floor(a / 60), 2);
  const mm = pad(a % 60, 2);
  if (letter === 'Z') return n >= 4 ? `GMT${sign}${hh}:${mm}` : `${sign}${hh}${mm}`;
  if (n === 1) return `${sign}${hh}${mm === '00' ? '' : mm}`;
  if (n === 2) return `${sign}${hh}${mm}`;
  return `${sign}${hh}:${mm}`;
}

export type DateFormatter = (epochMs: number, zone: string) => string;

export function compileDateFormatter(format: string): DateFormatter {
  const f = NAMED[format] ?? format;
  if (f === 'ISO8601' || f === "yyyy-MM-dd'T'HH:mm:ss.SSSXXX" || f === "uuuu-MM-dd'T'HH:mm:ss.SSSXXX") {
    // fast path for the date processor's default output format
    const slow = compilePatternFormatter("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
    return (ms, zone) => {
      const off = zone === 'UTC' ? 0 : zoneOffsetMs(zone, ms);
      const d = new Date(ms + off);
      const y = d.getUTCFullYear();
      if (y < 0 || y > 9999) return slow(ms, zone);
      const iso = d.toISOString();
      return off === 0 ? iso : iso.slice(0, -1) + fmtOffset(off / 60000, 'X', 3);
    };
  }
  return compilePatternFormatter(f);
}

function compilePatternFormatter(f: string): DateFormatter {
  if (f === 'UNIX_MS') return (ms) => String(ms);
  if (f === 'UNIX') return (ms) => String(Math.floor(ms / 1000));
  const ops: Array<(d: Date, off: number) => string> = [];
  let i = 0;
  while (i < f.length) {
    const c = f[i];
    if (c === "'") {
      const end = f.indexOf("'", i + 1);
      const lit = end === i + 1 ? "'" : f.slice(i + 1, end < 0 ? f.length : end);
      ops.push(() => lit);
      i = end < 0 ? f.length : end + 1;
      continue;
    }
    if (!/[A-Za-z]/.test(c)) {
      ops.push(() => c);
      i++;
      continue;
    }
    let j = i;
    while (j < f.length && f[j] === c) j++;
    const n = j - i;
    i = j;
    switch (c) {
      case 'y':
      case 'u':
      case 'Y':
        ops.push((d) => (n === 2 ? pad(d.getUTCFullYear() % 100, 2) : pad(d.getUTCFullYear(), n)));
        break;
      case 'M':
      case 'L':
        ops.push((d) => (n >= 4 ? LONG_MONTHS[d.getUTCMonth()] : n === 3 ? SHORT_MONTHS[d.getUTCMonth()] : pad(d.getUTCMonth() + 1, n)));
        break;
      case 'd':
        ops.push((d) => pad(d.getUTCDate(), n));
        break;
      case 'D':
        ops.push((d) => pad(Math.floor((d.getTime() - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86400000) + 1, n));
        break;
      case 'H':
      case 'k':
        ops.push((d) => pad(d.getUTCHours(), n));
        break;
      case 'h':
      case 'K':
        ops.push((d) => pad(d.getUTCHours() % 12 || 12, n));
        break;
      case 'm':
        ops.push((d) => pad(d.getUTCMinutes(), n));
        break;
      case 's':
        ops.push((d) => pad(d.getUTCSeconds(), n));
        break;
      case 'S':
        ops.push((d) => pad(d.getUTCMilliseconds(), 3).padEnd(n, '0').slice(0, n));
        break;
      case 'a':
        ops.push((d) => (d.getUTCHours() < 12 ? 'AM' : 'PM'));
        break;
      case 'E':
        ops.push((d) => (n >= 4 ? LONG_DAYS[d.getUTCDay()] : SHORT_DAYS[d.getUTCDay()]));
        break;
      case 'X':
      case 'x':
      case 'Z':
        ops.push((_d, off) => fmtOffset(off, c === 'x' ? 'X' : c, n));
        break;
      case 'z':
      case 'V':
        ops.push((_d, off) => (off === 0 ? 'UTC' : fmtOffset(off, 'X', 3)));
        break;
      case 'w':
        ops.push((d) => {
          const t = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
          const dayNum = t.getUTCDay() || 7;
          t.setUTCDate(t.getUTCDate() + 4 - dayNum);
          const yearStart = Date.UTC(t.getUTCFullYear(), 0, 1);
          return pad(Math.ceil(((t.getTime() - yearStart) / 86400000 + 1) / 7), n);
        });
        break;
      default:
        throw new DateParseError(`Unknown pattern letter: ${c}`);
    }
  }
  return (ms, zone) => {
    const off = zoneOffsetMs(zone, ms);
    const d = new Date(ms + off);
    let out = '';
    for (const op of ops) out += op(d, off / 60000);
    return out;
  };
}
