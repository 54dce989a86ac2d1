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

/** java.text.DecimalFormat subset: literal prefix/suffix, grouping, min/max fraction and min integer digits */
function formatDecimal(v: number, pattern: string): string {
  const pos = pattern.split(';')[0]!;
  const m = /[#0,.]*[#0][#0,.]*/.exec(pos);
  if (!m) return javaDoubleString(v);
  const prefix = pos.slice(0, m.index).replace(/'/g, '');
  const suffix = pos.slice(m.index + m[0].length).replace(/'/g, '');
  const num = m[0];
  const dot = num.indexOf('.');
  const intPart = dot >= 0 ? num.slice(0, dot) : num;
  const frac = dot >= 0 ? num.slice(dot + 1).replace(/[^0#]/g, '') : '';
  const minFrac = (frac.match(/0/g) ?? []).length;
  const maxFrac = frac.length;
  const minInt = (intPart.match(/0/g) ?? []).length;
  let s = Math.abs(v).toFixed(maxFrac);
  let [ip = '', fp = ''] = s.split('.');
  while (fp.length > minFrac && fp.endsWith('0')) fp = fp.slice(0, -1);
  ip = ip.replace(/^0+/, '');
  if (ip.length < minInt) ip = ip.padStart(minInt, '0');
  if (intPart.includes(',')) {
    const lastComma = intPart.lastIndexOf(',');
    const size = intPart.length - lastComma - 1;
    if (size > 0) ip = ip.replace(new RegExp(`\\B(?=(\\d{${size}})+(?!\\d))`, 'g'), ',');
  }
  s = fp.length ? `${ip}.${fp}` : ip;
  if (s === '') s = '0';
  const neg = v < 0 && /[1-9]/.test(s);
  return `${neg ? '-' : ''}${prefix}${s}${suffix}`;
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
