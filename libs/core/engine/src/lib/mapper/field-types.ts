/**
 * MappedFieldType implementations (the search-time view of mapped fields) and value coercion shared
 * with the document parser.
 */
import { EsError, Errors } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import { DEFAULT_DATE_FORMAT, DEFAULT_DATE_NANOS_FORMAT, DateFormatter, epochNanos } from '@strata/core-common';
import { parseDateMath, parseDateMathNanos } from '@strata/core-common';
import type { FieldTypeName, MappedFieldType, ValueKind } from './mapped-field-type.js';
import { decodeIp, encodeIp } from './ip.js';

export const INTEGER_TYPES = new Set(['long', 'integer', 'short', 'byte', 'unsigned_long']);
export const FLOAT_TYPES = new Set(['double', 'float', 'half_float', 'scaled_float']);
export const NUMERIC_TYPES = new Set([...INTEGER_TYPES, ...FLOAT_TYPES]);

const RANGES: Record<string, [number, number, string]> = {
  long: [-(2 ** 63), 2 ** 63, 'a long'],
  integer: [-2147483648, 2147483647, 'an integer'],
  short: [-32768, 32767, 'a short'],
  byte: [-128, 127, 'a byte'],
  unsigned_long: [0, 2 ** 64, 'an unsigned_long'],
};

function numberFormatError(value: unknown): EsError {
  return new EsError('illegal_argument_exception', 400, `For input string: "${String(value)}"`);
}

/**
 * A string that is not a number. Elasticsearch parses it with Double.parseDouble (a NumberFormatException,
 * `number_format_exception`) except for long / unsigned_long in documents, whose precise parser reports an
 * IllegalArgumentException with the same text. Queries always go through Double.parseDouble first.
 */
function unparsableString(type: string, value: string, inQuery: boolean): EsError {
  const reason = `For input string: "${value}"`;
  if (!inQuery && (type === 'long' || type === 'unsigned_long')) return new EsError('illegal_argument_exception', 400, reason, { plain: true });
  return new EsError('number_format_exception', 400, reason, { plain: true });
}

/** Converts a float to the nearest IEEE half float value (as a double). */
export function toHalfFloat(v: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  const sign = v < 0 ? -1 : 1;
  const a = Math.abs(v);
  if (a >= 65520) return sign * Infinity;
  if (a < 2 ** -24) return sign * 0;
  const e = Math.max(Math.floor(Math.log2(a)), -14);
  const q = 2 ** (e - 10);
  return sign * Math.round(a / q) * q;
}

/**
 * Parses a numeric field value like Elasticsearch's NumberFieldMapper (coerce: strings and fractional
 * values for integer types are accepted and truncated). Throws number_format_exception / illegal_argument_exception.
 */
export function parseNumber(type: string, value: unknown, coerce = true, inQuery = false): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    if (!coerce) throw Errors.illegalArgument(`Cannot parse string [${value}] for field of type [${type}] (coerce is false)`);
    const s = value.trim();
    if (s === '' || !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) {
      if (/^[+-]?(Infinity|NaN)$/.test(s) && FLOAT_TYPES.has(type)) n = Number(s);
      else throw unparsableString(type, value, inQuery);
    } else n = Number(s);
  } else if (typeof value === 'boolean') {
    throw new EsError('illegal_argument_exception', 400, `Current token (${value ? 'VALUE_TRUE' : 'VALUE_FALSE'}) not numeric, can not use numeric value accessors`);
  } else throw numberFormatError(JSON.stringify(value));
  const range = RANGES[type];
  if (range) {
    if (!Number.isFinite(n)) throw numberFormatError(value);
    if (!Number.isInteger(n)) {
      if (!coerce) throw Errors.illegalArgument(`Value [${String(value)}] has a decimal part`);
      n = Math.trunc(n);
    }
    if (n < range[0] || n > range[1]) {
      throw Errors.illegalArgument(
        type === 'unsigned_long' ? `Value "${String(value)}" is out of range for an unsigned long` : `Value [${String(value)}] is out of range for ${range[2]}`,
      );
    }
    return n === 0 ? 0 : n;
  }
  switch (type) {
    case 'float':
      if (!Number.isFinite(n)) throw Errors.illegalArgument(`[float] supports only finite values, but got [${String(value)}]`);
      n = Math.fround(n);
      if (!Number.isFinite(n)) throw Errors.illegalArgument(`[float] supports only finite values, but got [${String(value)}]`);
      return n;
    case 'half_float':
      if (!Number.isFinite(n)) throw Errors.illegalArgument(`[half_float] supports only finite values, but got [${String(value)}]`);
      n = toHalfFloat(n);
      if (!Number.isFinite(n)) throw Errors.illegalArgument(`[half_float] supports only finite values, but got [${String(value)}]`);
      return n;
    default:
      if (!Number.isFinite(n)) throw Errors.illegalArgument(`[${type === 'scaled_float' ? 'double' : type}] supports only finite values, but got [${String(value)}]`);
      return n;
  }
}

/** Shortest decimal that round-trips through a float32 (Java's Float.toString semantics, roughly). */
export function floatForDisplay(v: number): number {
  if (!Number.isFinite(v) || Number.isInteger(v)) return v;
  const f = Math.fround(v);
  for (let p = 1; p <= 9; p++) {
    const c = Number(f.toPrecision(p));
    if (Math.fround(c) === f) return c;
  }
  return f;
}

export function halfFloatForDisplay(v: number): number {
  if (!Number.isFinite(v) || Number.isInteger(v)) return v;
  for (let p = 1; p <= 6; p++) {
    const c = Number(v.toPrecision(p));
    if (toHalfFloat(c) === v) return c;
  }
  return v;
}

export function parseBoolean(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false' || value === '') return false;
  throw Errors.illegalArgument(`Failed to parse value [${typeof value === 'object' ? JSON.stringify(value) : String(value)}] as only [true] or [false] are allowed.`);
}

export interface FieldTypeInit {
  name: string;
  type: FieldTypeName;
  kind: ValueKind;
  searchable: boolean;
  hasDocValues: boolean;
  hasNorms?: boolean;
  isInteger?: boolean;
  indexAnalyzer?: Analyzer;
  searchAnalyzer?: Analyzer;
  format?: string;
  scalingFactor?: number;
  params: Record<string, unknown>;
}

export abstract class BaseFieldType implements MappedFieldType {
  readonly name: string;
  readonly type: FieldTypeName;
  readonly kind: ValueKind;
  readonly searchable: boolean;
  readonly hasDocValues: boolean;
  readonly hasNorms: boolean;
  readonly isInteger: boolean;
  readonly indexAnalyzer?: Analyzer;
  readonly searchAnalyzer?: Analyzer;
  readonly format?: string;
  readonly scalingFactor?: number;
  readonly params: Readonly<Record<string, unknown>>;
  constructor(i: FieldTypeInit) {
    this.name = i.name;
    this.type = i.type;
    this.kind = i.kind;
    this.searchable = i.searchable;
    this.hasDocValues = i.hasDocValues;
    this.hasNorms = i.hasNorms ?? false;
    this.isInteger = i.isInteger ?? false;
    this.indexAnalyzer = i.indexAnalyzer;
    this.searchAnalyzer = i.searchAnalyzer;
    this.format = i.format;
    this.scalingFactor = i.scalingFactor;
    this.params = Object.freeze({ ...i.params });
  }
  abstract termValue(value: unknown): string | number;
  valueForDisplay(docValue: string | number): unknown {
    return docValue;
  }
  formatValue(docValue: string | number, format?: string): string {
    void format;
    const v = this.valueForDisplay(docValue);
    return typeof v === 'string' ? v : String(v);
  }
}

function stringOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) throw Errors.illegalArgument('value cannot be null');
  return JSON.stringify(value);
}

export class KeywordFieldType extends BaseFieldType {
  private readonly normalizer?: Analyzer;
  constructor(init: Omit<FieldTypeInit, 'kind'> & { normalizer?: Analyzer }) {
    super({ ...init, kind: 'keyword' });
    this.normalizer = init.normalizer;
  }
  /** the indexed form of a value (normalizer applied) */
  normalize(s: string): string {
    if (!this.normalizer) return s;
    const t = this.normalizer.analyze(s);
    return t.length ? t[0].term : '';
  }
  termValue(value: unknown): string {
    return this.normalize(stringOf(value));
  }
}

export class TextFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind'>) {
    super({ ...init, kind: 'text' });
  }
  termValue(value: unknown): string {
    return stringOf(value);
  }
}

export class NumberFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind' | 'isInteger'>) {
    super({ ...init, kind: 'numeric', isInteger: INTEGER_TYPES.has(init.type) });
  }
  termValue(value: unknown): number {
    if (this.type === 'scaled_float') {
      const v = parseNumber('double', value, true, true);
      return Math.round(v * (this.scalingFactor ?? 1));
    }
    if (INTEGER_TYPES.has(this.type) && typeof value === 'number' && !Number.isInteger(value)) return value;
    if (INTEGER_TYPES.has(this.type) && typeof value === 'string' && /^\s*-?\d*\.\d+\s*$/.test(value)) return Number(value);
    return parseNumber(this.type, value, true, true);
  }
  override valueForDisplay(docValue: string | number): unknown {
    const v = Number(docValue);
    switch (this.type) {
      case 'float':
        return floatForDisplay(v);
      case 'half_float':
        return halfFloatForDisplay(v);
      case 'scaled_float':
        return v / (this.scalingFactor ?? 1);
      default:
        return v;
    }
  }
  parseValue(value: unknown): number {
    return this.termValue(value);
  }
}

export class DateFieldType extends BaseFieldType {
  readonly formatter: DateFormatter;
  readonly nanos: boolean;
  constructor(init: Omit<FieldTypeInit, 'kind' | 'isInteger'>) {
    const nanos = init.type === 'date_nanos';
    const format = init.format ?? (nanos ? DEFAULT_DATE_NANOS_FORMAT : DEFAULT_DATE_FORMAT);
    super({ ...init, format, kind: 'date', isInteger: true });
    this.nanos = nanos;
    this.formatter = DateFormatter.of(format);
  }
  /** index-time parse (no date math): epoch millis, or epoch nanos for date_nanos */
  parseIndexValue(value: unknown): number {
    const s = typeof value === 'number' ? numberToPlain(value) : stringOf(value);
    const inst = this.formatter.tryParse(s);
    if (!inst) throw this.formatter.parseError(s);
    if (this.nanos) {
      if (inst.millis < 0) throw Errors.illegalArgument(`date[${s}] is before the epoch in 1970 and cannot be stored in nanosecond resolution`);
      if (inst.millis > 9223372036854) throw Errors.illegalArgument(`date[${s}] is after 2262-04-11T23:47:16.854775807 and cannot be stored in nanosecond resolution`);
      return epochNanos(inst.millis, inst.nanoOfMilli);
    }
    return inst.millis;
  }
  termValue(value: unknown): number {
    return this.parseValue(value);
  }
  /**
   * A source value as the `fields` API shows it: parsed with the mapping format and printed without going
   * through a double (date_nanos keeps every nanosecond; date truncates to the millisecond like its resolution).
   */
  formatSourceValue(value: unknown, format?: string): string {
    const s = typeof value === 'number' ? numberToPlain(value) : stringOf(value);
    const inst = this.formatter.tryParse(s);
    if (!inst) throw this.formatter.parseError(s);
    const fmt = format ? DateFormatter.of(format) : this.formatter;
    return fmt.format(inst.millis, undefined, this.nanos ? inst.nanoOfMilli : 0);
  }
  parseValue(value: unknown, format?: string, roundUp = false, timeZone?: string): number {
    const fmt = format ? DateFormatter.of(format) : this.formatter;
    if (typeof value === 'number') {
      if (this.nanos) return fmt.parseNanos(numberToPlain(value), timeZone, roundUp);
      return fmt.parseMillis(numberToPlain(value), timeZone, roundUp);
    }
    const s = stringOf(value);
    const opts = { format: fmt, roundUp, timeZone };
    return this.nanos ? parseDateMathNanos(s, opts) : parseDateMath(s, opts);
  }
  override valueForDisplay(docValue: string | number): unknown {
    return this.formatValue(docValue);
  }
  override formatValue(docValue: string | number, format?: string): string {
    const fmt = format ? DateFormatter.of(format) : this.formatter;
    const v = Number(docValue);
    return this.nanos ? fmt.formatNanos(v) : fmt.format(v);
  }
}

function numberToPlain(n: number): string {
  return Number.isInteger(n) ? n.toFixed(0) : String(n);
}

export class BooleanFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind' | 'isInteger'>) {
    super({ ...init, kind: 'boolean', isInteger: true });
  }
  /** 1 for true, 0 for false (the point / doc value) */
  termValue(value: unknown): number {
    if (value === 1 || value === 'T') return 1;
    if (value === 0 || value === 'F') return 0;
    try {
      return parseBoolean(value) ? 1 : 0;
    } catch {
      throw Errors.illegalArgument(`Can't parse boolean value [${String(value)}], expected [true] or [false]`);
    }
  }
  override valueForDisplay(docValue: string | number): unknown {
    return docValue === 1 || docValue === 'T' || docValue === '1' || docValue === 'true';
  }
}

export class IpFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind'>) {
    super({ ...init, kind: 'ip' });
  }
  termValue(value: unknown): string {
    return encodeIp(stringOf(value));
  }
  override valueForDisplay(docValue: string | number): unknown {
    return decodeIp(String(docValue));
  }
}

/** object, nested, geo_point, binary, ...: nothing to query by value */
export class OpaqueFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind'>) {
    super({ ...init, kind: 'none' });
  }
  termValue(value: unknown): string {
    void value;
    throw Errors.illegalArgument(`Field [${this.name}] of type [${this.type}] does not support term queries`);
  }
}

/** constant_keyword: every document has the mapped value */
export class ConstantKeywordFieldType extends BaseFieldType {
  constructor(init: Omit<FieldTypeInit, 'kind'>) {
    super({ ...init, kind: 'keyword' });
  }
  termValue(value: unknown): string {
    return stringOf(value);
  }
}
