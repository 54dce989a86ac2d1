/**
 * Date math on an anchor (`now` or `<date>||`): `+1d`, `-2h`, `/d` rounding (UTC unless a fixed offset is given).
 * Rounding with roundUp goes to the last millisecond of the unit, as Elasticsearch does for gt/lte.
 */
import { Errors } from '@strata/core-common';

const UNITS = new Set(['y', 'M', 'w', 'd', 'h', 'H', 'm', 's']);

function addUnit(t: number, n: number, unit: string): number {
  const d = new Date(t);
  switch (unit) {
    case 'y':
      d.setUTCFullYear(d.getUTCFullYear() + n);
      return d.getTime();
    case 'M':
      d.setUTCMonth(d.getUTCMonth() + n);
      return d.getTime();
    case 'w':
      return t + n * 7 * 86400000;
    case 'd':
      return t + n * 86400000;
    case 'h':
    case 'H':
      return t + n * 3600000;
    case 'm':
      return t + n * 60000;
    default:
      return t + n * 1000;
  }
}

function roundDown(t: number, unit: string): number {
  const d = new Date(t);
  switch (unit) {
    case 'y':
      return Date.UTC(d.getUTCFullYear(), 0, 1);
    case 'M':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    case 'w': {
      const day = (d.getUTCDay() + 6) % 7; // Monday first
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - day);
    }
    case 'd':
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    case 'h':
    case 'H':
      return t - (((t % 3600000) + 3600000) % 3600000);
    case 'm':
      return t - (((t % 60000) + 60000) % 60000);
    default:
      return t - (((t % 1000) + 1000) % 1000);
  }
}

/** applies a math expression (the part after `now` or `||`) to t; offsetMs shifts rounding to a fixed zone */
export function applyDateMath(t: number, math: string, roundUp: boolean, offsetMs = 0): number {
  let i = 0;
  let v = t;
  while (i < math.length) {
    const op = math[i++]!;
    if (op === '/') {
      const unit = math[i++]!;
      if (!UNITS.has(unit)) throw Errors.illegalArgument(`rounding unit [${unit}] is not supported`);
      const local = v + offsetMs;
      let r = roundDown(local, unit);
      if (roundUp) r = addUnit(r, 1, unit) - 1;
      v = r - offsetMs;
    } else if (op === '+' || op === '-') {
      let num = '';
      while (i < math.length && /\d/.test(math[i]!)) num += math[i++]!;
      const unit = math[i++];
      if (!unit || !UNITS.has(unit)) throw Errors.illegalArgument(`unit [${unit ?? ''}] not supported for date math [${math}]`);
      const n = num === '' ? 1 : Number(num);
      v = addUnit(v, op === '+' ? n : -n, unit);
    } else {
      throw Errors.illegalArgument(`operator not supported for date math [${math}]`);
    }
  }
  return v;
}

/** splits `now-1d/d` or `2020-01-01||+1M` into anchor and math; null anchor means now */
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
