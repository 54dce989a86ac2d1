/**
 * Plain, serializable DocValueFormat: how a key/value is rendered as `key_as_string` / `value_as_string`.
 */
import { formatDate } from './date-format.js';

export type ValueFormat =
  | { readonly t: 'raw' }
  | { readonly t: 'date'; readonly format: string; readonly tz: string }
  | { readonly t: 'bool' }
  | { readonly t: 'ip' }
  | { readonly t: 'decimal'; readonly pattern: string };

export const RAW: ValueFormat = { t: 'raw' };

export function isRaw(f: ValueFormat): boolean {
  return f.t === 'raw';
}

function formatDecimal(v: number, pattern: string): string {
  const dot = pattern.indexOf('.');
  const frac = dot >= 0 ? pattern.slice(dot + 1).replace(/[^0#]/g, '') : '';
  const minFrac = (frac.match(/0/g) ?? []).length;
  const maxFrac = frac.length;
  let s = v.toFixed(maxFrac);
  if (maxFrac > minFrac && s.includes('.')) {
    const [ip, fp = ''] = s.split('.');
    let f = fp;
    while (f.length > minFrac && f.endsWith('0')) f = f.slice(0, -1);
    s = f.length ? `${ip}.${f}` : ip!;
  }
  if (pattern.includes(',')) {
    const [ip, fp] = s.split('.');
    const neg = ip!.startsWith('-');
    const digits = neg ? ip!.slice(1) : ip!;
    const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    s = (neg ? '-' : '') + grouped + (fp !== undefined ? `.${fp}` : '');
  }
  return s;
}

/** Renders a value as ES DocValueFormat.format(...) does. Raw numbers print like Java's Double.toString / Long.toString. */
export function formatValue(f: ValueFormat, v: number | string): string {
  switch (f.t) {
    case 'date':
      return formatDate(Number(v), f.format, f.tz);
    case 'bool':
      return Number(v) !== 0 ? 'true' : 'false';
    case 'ip':
      return String(v);
    case 'decimal':
      return formatDecimal(Number(v), f.pattern);
    default:
      return typeof v === 'number' ? javaDoubleString(v) : v;
  }
}

/** Java's Double.toString for the common cases ("1.0", "1.5E10", "NaN", "Infinity"). */
export function javaDoubleString(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return `${v}.0`;
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) return String(v);
  const [mant, exp] = v.toExponential().split('e');
  const m = mant!.includes('.') ? mant! : `${mant}.0`;
  return `${m}E${Number(exp)}`;
}

/** Long.toString for integer-valued keys, Double.toString otherwise */
export function numberKeyString(v: number, integer: boolean): string {
  return integer ? String(v) : javaDoubleString(v);
}
