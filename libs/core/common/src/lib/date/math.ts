/**
 * Elasticsearch date math: `now`, `now-1d/d`, `2020-01-01||+1M/d`, with rounding (roundUp semantics for
 * range upper bounds `lte`/`gt`) evaluated in a time zone.
 */
import { EsError } from '../errors.js';
import { DEFAULT_DATE_FORMAT, DateFormatter, localToEpoch, daysInMonth, epochNanos } from './format.js';
import { zoneOf, type ZoneRules } from './zone.js';

export interface DateMathOptions {
  /** epoch millis of `now` (or a supplier, called at most once) */
  now?: number | (() => number);
  /** round up (`lte`, `gt`): `/d` goes to the last millisecond of the day; missing date fields take their maximum */
  roundUp?: boolean;
  timeZone?: string | ZoneRules;
  /** format of the date before `||` (default strict_date_optional_time||epoch_millis) */
  format?: string | DateFormatter;
}

function parseEx(reason: string, cause?: Error): EsError {
  return new EsError('parse_exception', 400, reason, { cause });
}

interface Local {
  y: number;
  mo: number;
  d: number;
  h: number;
  mi: number;
  s: number;
  ms: number;
}

function toLocal(millis: number, zone: ZoneRules): Local {
  const d = new Date(millis + zone.offsetAt(millis));
  return {
    y: d.getUTCFullYear(),
    mo: d.getUTCMonth() + 1,
    d: d.getUTCDate(),
    h: d.getUTCHours(),
    mi: d.getUTCMinutes(),
    s: d.getUTCSeconds(),
    ms: d.getUTCMilliseconds(),
  };
}

function fromLocal(l: Local, zone: ZoneRules): number {
  return zone.toUtc(localToEpoch(l.y, l.mo, l.d, l.h, l.mi, l.s, l.ms));
}

function addMonths(l: Local, n: number): void {
  const total = l.y * 12 + (l.mo - 1) + n;
  l.y = Math.floor(total / 12);
  l.mo = total - l.y * 12 + 1;
  const dim = daysInMonth(l.y, l.mo);
  if (l.d > dim) l.d = dim;
}

/** Applies `+1d`, `-2h`, `/M`, ... to a base instant. */
export function evalDateMath(math: string, base: number, roundUp: boolean, zone: ZoneRules, full: string = math): number {
  let time = base;
  let i = 0;
  while (i < math.length) {
    const c = math[i++];
    let round = false;
    let sign = 1;
    if (c === '/') round = true;
    else if (c === '+') sign = 1;
    else if (c === '-') sign = -1;
    else throw parseEx(`operator not supported for date math [${full}]`);
    if (i >= math.length) throw parseEx(`truncated date math [${full}]`);
    let num = 1;
    if (!round) {
      const st = i;
      while (i < math.length && math.charCodeAt(i) >= 48 && math.charCodeAt(i) <= 57) i++;
      if (i > st) num = Number(math.slice(st, i));
      if (i >= math.length) throw parseEx(`truncated date math [${full}]`);
    } else if (math.charCodeAt(i) >= 48 && math.charCodeAt(i) <= 57) {
      throw parseEx(`rounding \`/\` can only be used on single unit types [${full}]`);
    }
    const unit = math[i++];
    const n = sign * num;
    if (round) {
      const l = toLocal(time, zone);
      switch (unit) {
        case 'y':
          l.mo = 1; l.d = 1; l.h = 0; l.mi = 0; l.s = 0; l.ms = 0;
          if (roundUp) l.y += 1;
          break;
        case 'M':
          l.d = 1; l.h = 0; l.mi = 0; l.s = 0; l.ms = 0;
          if (roundUp) addMonths(l, 1);
          break;
        case 'w': {
          const dow = (new Date(localToEpoch(l.y, l.mo, l.d, 0, 0, 0, 0)).getUTCDay() + 6) % 7;
          const start = new Date(localToEpoch(l.y, l.mo, l.d, 0, 0, 0, 0) - dow * 86400000 + (roundUp ? 7 * 86400000 : 0));
          l.y = start.getUTCFullYear(); l.mo = start.getUTCMonth() + 1; l.d = start.getUTCDate();
          l.h = 0; l.mi = 0; l.s = 0; l.ms = 0;
          break;
        }
        case 'd': {
          l.h = 0; l.mi = 0; l.s = 0; l.ms = 0;
          if (roundUp) {
            const next = new Date(localToEpoch(l.y, l.mo, l.d, 0, 0, 0, 0) + 86400000);
            l.y = next.getUTCFullYear(); l.mo = next.getUTCMonth() + 1; l.d = next.getUTCDate();
          }
          break;
        }
        case 'h':
        case 'H':
          time = Math.floor(time / 3600000) * 3600000 + (roundUp ? 3600000 - 1 : 0);
          if (!zone.fixed || zone.offsetAt(time) % 3600000 !== 0) {
            l.mi = 0; l.s = 0; l.ms = 0;
            time = fromLocal(l, zone) + (roundUp ? 3600000 - 1 : 0);
          }
          continue;
        case 'm':
          time = Math.floor(time / 60000) * 60000 + (roundUp ? 60000 - 1 : 0);
          continue;
        case 's':
          time = Math.floor(time / 1000) * 1000 + (roundUp ? 1000 - 1 : 0);
          continue;
        default:
          throw parseEx(`unit [${unit}] not supported for date math [${full}]`);
      }
      time = fromLocal(l, zone) - (roundUp ? 1 : 0);
      continue;
    }
    switch (unit) {
      case 'y': {
        const l = toLocal(time, zone);
        addMonths(l, 12 * n);
        time = fromLocal(l, zone);
        break;
      }
      case 'M': {
        const l = toLocal(time, zone);
        addMonths(l, n);
        time = fromLocal(l, zone);
        break;
      }
      case 'w':
      case 'd': {
        const days = unit === 'w' ? 7 * n : n;
        if (zone.fixed) time += days * 86400000;
        else {
          const l = toLocal(time, zone);
          const nd = new Date(localToEpoch(l.y, l.mo, l.d, 0, 0, 0, 0) + days * 86400000);
          l.y = nd.getUTCFullYear(); l.mo = nd.getUTCMonth() + 1; l.d = nd.getUTCDate();
          time = fromLocal(l, zone);
        }
        break;
      }
      case 'h':
      case 'H':
        time += n * 3600000;
        break;
      case 'm':
        time += n * 60000;
        break;
      case 's':
        time += n * 1000;
        break;
      default:
        throw parseEx(`unit [${unit}] not supported for date math [${full}]`);
    }
  }
  return time;
}

/**
 * Parses a date-math expression to epoch millis. Errors are parse_exception like Elasticsearch
 * ("failed to parse date field [x] with format [f]: [...]").
 */
export function parseDateMath(text: string, opts: DateMathOptions = {}): number {
  const zone = typeof opts.timeZone === 'object' ? opts.timeZone : zoneOf(opts.timeZone);
  const roundUp = opts.roundUp ?? false;
  if (text.startsWith('now')) {
    const now = typeof opts.now === 'function' ? opts.now() : (opts.now ?? Date.now());
    return evalDateMath(text.slice(3), now, roundUp, zone, text);
  }
  const fmt = opts.format instanceof DateFormatter ? opts.format : DateFormatter.of(opts.format ?? DEFAULT_DATE_FORMAT);
  const idx = text.indexOf('||');
  const datePart = idx === -1 ? text : text.slice(0, idx);
  const inst = fmt.tryParse(datePart, zone, idx === -1 ? roundUp : false);
  if (!inst) {
    const r = `failed to parse date field [${datePart}] with format [${fmt.pattern}]`;
    throw parseEx(`${r}: [${r}]`, fmt.parseError(datePart));
  }
  if (idx === -1) return inst.millis;
  return evalDateMath(text.slice(idx + 2), inst.millis, roundUp, zone, text);
}

/** Same as parseDateMath, in epoch nanos (date_nanos). */
export function parseDateMathNanos(text: string, opts: DateMathOptions = {}): number {
  if (text.startsWith('now') || text.includes('||')) return epochNanos(parseDateMath(text, opts), opts.roundUp && text.includes('/') ? 999_999 : 0);
  const zone = typeof opts.timeZone === 'object' ? opts.timeZone : zoneOf(opts.timeZone);
  const fmt = opts.format instanceof DateFormatter ? opts.format : DateFormatter.of(opts.format ?? DEFAULT_DATE_FORMAT);
  const inst = fmt.tryParse(text, zone, opts.roundUp ?? false);
  if (!inst) {
    const r = `failed to parse date field [${text}] with format [${fmt.pattern}]`;
    throw parseEx(`${r}: [${r}]`, fmt.parseError(text));
  }
  return epochNanos(inst.millis, inst.nanoOfMilli);
}

/** splits `now-1d/d` or `2020-01-01||+1M` into anchor and math; null anchor means now; null when no math */
export function splitDateMath(s: string): { anchor: string | null; math: string } | null {
  if (s.startsWith('now')) return { anchor: null, math: s.substring(3) };
  const i = s.indexOf('||');
  if (i >= 0) return { anchor: s.substring(0, i), math: s.substring(i + 2) };
  return null;
}

/** true when the expression uses `now` without rounding (results depend on the exact time) */
export function usesUnroundedNow(s: string): boolean {
  return s.startsWith('now') && !s.includes('/');
}
