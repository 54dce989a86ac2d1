/**
 * Minimal java.time-style date formatting and parsing for aggregation keys and bounds
 * (key_as_string, value_as_string, extended_bounds, date_range from/to, date math).
 */
import { Errors } from '@strata/core-common';
import { DateFormatter } from '../../util/date-format.js';
import { parseDateMath as sharedParseDateMath } from '../../util/date-math.js';
import { formatOffset, localToUtc, resolveTimeZone, type TimeZone } from './time-zone.js';

const ISO = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";
const NAMED: Record<string, string> = {
  strict_date_optional_time: ISO,
  date_optional_time: ISO,
  strict_date_optional_time_nanos: "yyyy-MM-dd'T'HH:mm:ss.SSSSSSSSSXXX",
  date_time: ISO,
  iso8601: ISO,
  strict_date_time: ISO,
  date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssXXX",
  strict_date_time_no_millis: "yyyy-MM-dd'T'HH:mm:ssXXX",
  date: 'yyyy-MM-dd',
  strict_date: 'yyyy-MM-dd',
  basic_date: 'yyyyMMdd',
  basic_date_time: "yyyyMMdd'T'HHmmss.SSSZ",
  basic_date_time_no_millis: "yyyyMMdd'T'HHmmssZ",
  date_hour: "yyyy-MM-dd'T'HH",
  strict_date_hour: "yyyy-MM-dd'T'HH",
  date_hour_minute: "yyyy-MM-dd'T'HH:mm",
  strict_date_hour_minute: "yyyy-MM-dd'T'HH:mm",
  date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  strict_date_hour_minute_second: "yyyy-MM-dd'T'HH:mm:ss",
  date_hour_minute_second_millis: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  strict_date_hour_minute_second_millis: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  date_hour_minute_second_fraction: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  strict_date_hour_minute_second_fraction: "yyyy-MM-dd'T'HH:mm:ss.SSS",
  hour_minute: 'HH:mm',
  strict_hour_minute: 'HH:mm',
  hour_minute_second: 'HH:mm:ss',
  strict_hour_minute_second: 'HH:mm:ss',
  year: 'yyyy',
  strict_year: 'yyyy',
  year_month: 'yyyy-MM',
  strict_year_month: 'yyyy-MM',
  year_month_day: 'yyyy-MM-dd',
  strict_year_month_day: 'yyyy-MM-dd',
  time: 'HH:mm:ss.SSSXXX',
  strict_time: 'HH:mm:ss.SSSXXX',
  time_no_millis: 'HH:mm:ssXXX',
  strict_time_no_millis: 'HH:mm:ssXXX',
};

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Token = { lit: string } | { ch: string; n: number };

const tokenCache = new Map<string, Token[]>();

function tokenize(pattern: string): Token[] {
  const hit = tokenCache.get(pattern);
  if (hit) return hit;
  const out: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === "'") {
      let j = i + 1;
      let lit = '';
      while (j < pattern.length) {
        if (pattern[j] === "'") {
          if (pattern[j + 1] === "'") { lit += "'"; j += 2; continue; }
          break;
        }
        lit += pattern[j];
        j++;
      }
      out.push({ lit: lit === '' && j === i + 1 ? "'" : lit });
      i = j + 1;
    } else if (/[A-Za-z]/.test(c)) {
      let j = i;
      while (pattern[j] === c) j++;
      out.push({ ch: c, n: j - i });
      i = j;
    } else if (c === '[' || c === ']') {
      i++; // optional sections: always printed
    } else {
      out.push({ lit: c });
      i++;
    }
  }
  tokenCache.set(pattern, out);
  return out;
}

function pad(v: number, n: number): string {
  const s = String(Math.abs(v));
  return (v < 0 ? '-' : '') + (s.length >= n ? s : '0'.repeat(n - s.length) + s);
}

/** The java pattern behind a format name or pattern (first of `a||b`). null for epoch formats. */
export function resolvePattern(format: string | undefined): string {
  const f = (format ?? 'strict_date_optional_time').split('||')[0]!.trim();
  return NAMED[f] ?? f;
}

/**
 * Formats epoch millis with a (named or java) date format in a time zone: the engine's shared DateFormatter
 * (util/date-format.ts) so keys print exactly like `fields` and `sort` values; a local printer as fallback.
 */
export function formatDate(millis: number, format: string | undefined, tzId?: string | TimeZone): string {
  const tzName = typeof tzId === 'object' ? tzId.id : tzId;
  try {
    return DateFormatter.of(format ?? 'strict_date_optional_time').format(millis, tzName ?? 'UTC');
  } catch {
    return localFormatDate(millis, format, tzId);
  }
}

export function localFormatDate(millis: number, format: string | undefined, tzId?: string | TimeZone): string {
  const pattern = resolvePattern(format);
  if (pattern === 'epoch_millis') return String(millis);
  if (pattern === 'epoch_second') return String(Math.floor(millis / 1000));
  const tz = typeof tzId === 'object' ? tzId : resolveTimeZone(tzId);
  const off = tz.offsetAt(millis);
  const d = new Date(millis + off);
  const Y = d.getUTCFullYear();
  const M = d.getUTCMonth();
  const D = d.getUTCDate();
  const h = d.getUTCHours();
  const m = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  const ms = d.getUTCMilliseconds();
  let out = '';
  for (const t of tokenize(pattern)) {
    if ('lit' in t) { out += t.lit; continue; }
    const n = t.n;
    switch (t.ch) {
      case 'y': case 'u': case 'Y':
        out += n === 2 ? pad(Y % 100, 2) : pad(Y, Math.max(n, 4));
        break;
      case 'M': case 'L':
        out += n >= 4 ? MONTHS[M] : n === 3 ? MONTHS[M]!.slice(0, 3) : pad(M + 1, n);
        break;
      case 'd': out += pad(D, n); break;
      case 'D': {
        const doy = Math.floor((Date.UTC(Y, M, D) - Date.UTC(Y, 0, 1)) / 86_400_000) + 1;
        out += pad(doy, n);
        break;
      }
      case 'H': out += pad(h, n); break;
      case 'k': out += pad(h === 0 ? 24 : h, n); break;
      case 'h': out += pad(h % 12 === 0 ? 12 : h % 12, n); break;
      case 'K': out += pad(h % 12, n); break;
      case 'm': out += pad(m, n); break;
      case 's': out += pad(s, n); break;
      case 'S': out += pad(ms, 3).padEnd(n, '0').slice(0, n); break;
      case 'n': out += String(ms * 1_000_000); break;
      case 'a': out += h < 12 ? 'AM' : 'PM'; break;
      case 'E': case 'e': {
        const dn = DAYS[d.getUTCDay()]!;
        out += n >= 4 ? dn : dn.slice(0, 3);
        break;
      }
      case 'X': out += n === 1 ? formatOffset(off, true, false).slice(0, off === 0 ? 1 : 3) : formatOffset(off, true, n >= 3); break;
      case 'x': out += formatOffset(off, false, n >= 3); break;
      case 'Z': out += n >= 5 ? formatOffset(off, true, true) : formatOffset(off, false, false); break;
      case 'z': case 'V': out += tz.id; break;
      case 'G': out += Y > 0 ? 'AD' : 'BC'; break;
      default: out += t.ch.repeat(n);
    }
  }
  return out;
}

// ------------------------------------------------------------------ parsing

const ISO_RE = /^([+-]?\d{4,9})(?:-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

function parseIso(s: string, tz: TimeZone): number | null {
  const m = ISO_RE.exec(s);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = m[2] ? Number(m[2]) - 1 : 0;
  const d = m[3] ? Number(m[3]) : 1;
  const h = m[4] ? Number(m[4]) : 0;
  const mi = m[5] ? Number(m[5]) : 0;
  const se = m[6] ? Number(m[6]) : 0;
  const ms = m[7] ? Number(m[7].padEnd(3, '0').slice(0, 3)) : 0;
  if (mo > 11 || d > 31 || h > 23 || mi > 59 || se > 59) return null;
  const dt = new Date(0);
  dt.setUTCFullYear(y, mo, d);
  dt.setUTCHours(h, mi, se, ms);
  const local = dt.getTime();
  if (m[8]) {
    const off = resolveTimeZone(m[8]).fixedOffset ?? 0;
    return local - off;
  }
  return localToUtc(tz, local);
}

const UNIT_ADD: Record<string, (d: Date, n: number) => void> = {
  y: (d, n) => d.setUTCFullYear(d.getUTCFullYear() + n),
  M: (d, n) => d.setUTCMonth(d.getUTCMonth() + n),
  w: (d, n) => d.setUTCDate(d.getUTCDate() + 7 * n),
  d: (d, n) => d.setUTCDate(d.getUTCDate() + n),
  h: (d, n) => d.setUTCHours(d.getUTCHours() + n),
  H: (d, n) => d.setUTCHours(d.getUTCHours() + n),
  m: (d, n) => d.setUTCMinutes(d.getUTCMinutes() + n),
  s: (d, n) => d.setUTCSeconds(d.getUTCSeconds() + n),
};

function roundLocal(d: Date, unit: string, up: boolean): void {
  const y = d.getUTCFullYear();
  switch (unit) {
    case 'y': d.setUTCFullYear(y, 0, 1); d.setUTCHours(0, 0, 0, 0); break;
    case 'M': d.setUTCDate(1); d.setUTCHours(0, 0, 0, 0); break;
    case 'w': {
      const dow = (d.getUTCDay() + 6) % 7;
      d.setUTCDate(d.getUTCDate() - dow);
      d.setUTCHours(0, 0, 0, 0);
      break;
    }
    case 'd': d.setUTCHours(0, 0, 0, 0); break;
    case 'h': case 'H': d.setUTCMinutes(0, 0, 0); break;
    case 'm': d.setUTCSeconds(0, 0); break;
    case 's': d.setUTCMilliseconds(0); break;
    default: throw Errors.illegalArgument(`unit [${unit}] not supported for date math`);
  }
  if (up) {
    UNIT_ADD[unit]!(d, 1);
    d.setTime(d.getTime() - 1);
  }
}

/**
 * Parses a date bound: epoch millis number, ISO date string, `now`/`<date>||` with date math.
 * roundUp: rounding `/d` goes to the last millisecond (lt/lte semantics).
 */
export function parseDateMath(value: unknown, nowMillis: number, tzId?: string, roundUp = false, format?: string): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw Errors.illegalArgument(`failed to parse date field [${String(value)}]`);
  return sharedParseDateMath(value, { now: nowMillis, roundUp, timeZone: tzId, format: format ?? 'strict_date_optional_time||epoch_millis' });
}

/** the local parser (kept for reference and as a fallback in tests) */
export function localParseDateMath(value: unknown, nowMillis: number, tzId?: string, roundUp = false, format?: string): number {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') throw Errors.illegalArgument(`failed to parse date field [${String(value)}]`);
  const tz = resolveTimeZone(tzId);
  let base: number;
  let math: string;
  if (value.startsWith('now')) {
    base = nowMillis;
    math = value.slice(3);
  } else {
    const idx = value.indexOf('||');
    const text = idx >= 0 ? value.slice(0, idx) : value;
    math = idx >= 0 ? value.slice(idx + 2) : '';
    const pattern = resolvePattern(format);
    let parsed: number | null = null;
    if (/^-?\d+$/.test(text) && (pattern === 'epoch_millis' || (format ?? '').includes('epoch_millis') || text.length > 8 || !format)) {
      parsed = pattern === 'epoch_second' ? Number(text) * 1000 : Number(text);
    }
    if (parsed === null) parsed = parseIso(text, tz);
    if (parsed === null) {
      throw Errors.illegalArgument(
        `failed to parse date field [${text}] with format [${format ?? 'strict_date_optional_time||epoch_millis'}]`,
      );
    }
    base = parsed;
  }
  if (!math) return base;
  const off = tz.offsetAt(base);
  const d = new Date(base + off);
  let i = 0;
  while (i < math.length) {
    const op = math[i]!;
    if (op === '/') {
      const unit = math[i + 1];
      if (!unit) throw Errors.illegalArgument(`truncated date math [${math}]`);
      roundLocal(d, unit, roundUp);
      i += 2;
    } else if (op === '+' || op === '-') {
      let j = i + 1;
      while (j < math.length && /\d/.test(math[j]!)) j++;
      const n = j > i + 1 ? Number(math.slice(i + 1, j)) : 1;
      const unit = math[j];
      const add = unit ? UNIT_ADD[unit] : undefined;
      if (!add) throw Errors.illegalArgument(`unit [${unit ?? ''}] not supported for date math [${math}]`);
      add(d, op === '-' ? -n : n);
      i = j + 1;
    } else {
      throw Errors.illegalArgument(`operator not supported for date math [${math}]`);
    }
  }
  return localToUtc(tz, d.getTime());
}
