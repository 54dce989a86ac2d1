/**
 * Runtime of the Painless engine: the Java-like values scripts see, and the whitelisted members, methods and
 * static classes they may use. Nothing here ever hands a script a JS function, prototype or global: member
 * reads only see own data of maps, lists are arrays, and every method is an explicit case below.
 */
import { UserRegex, type RegexMatch } from '@strata/core-common';
import {
  DateFormatter,
  evalDateMath,
  formatOffset,
  parseIsoDateOptionalTime,
  resolveParts,
  UTC,
  zonedFields,
  zoneOf,
  type ZonedFields,
  type ZoneRules,
} from '@strata/core-common';
import { PainlessRuntimeError as RuntimeError } from './errors.js';

/** A host map the engine reads and writes through (ingest/update `ctx`, `doc`, `params._source`). */
export abstract class HostMap {
  abstract get(key: string): unknown;
  abstract put(key: string, value: unknown): unknown;
  abstract containsKey(key: string): boolean;
  abstract remove(key: string): unknown;
  abstract keys(): string[];
}

/** `doc['field']`: the field's values for the current document (ScriptDocValues). */
export class ScriptDocValues {
  constructor(
    readonly field: string,
    public values: readonly unknown[],
  ) {}
  get value(): unknown {
    if (this.values.length === 0) {
      throw new RuntimeError(
        'illegal_state_exception',
        `A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!`,
      );
    }
    return this.values[0];
  }
}

/** java.time.ZonedDateTime as returned by `doc['date'].value`, `Instant.ofEpochMilli`, `ZonedDateTime.parse`:
 * an instant plus a zone, on the service's one date-time implementation (core-common). */
export class PainlessDateTime {
  readonly zone: ZoneRules;
  constructor(
    readonly millis: number,
    zone?: ZoneRules,
    readonly nanoOfMilli = 0,
  ) {
    this.zone = zone ?? UTC;
  }
  private fields(): ZonedFields {
    return zonedFields(this.millis, this.zone, this.nanoOfMilli);
  }
  /** local date-time arithmetic (plusDays, plusMonths, ...: DST-correct like java.time) via date math */
  private plusLocal(n: number, unit: string): PainlessDateTime {
    if (n === 0) return this;
    const math = `${n < 0 ? '-' : '+'}${Math.abs(n)}${unit}`;
    return new PainlessDateTime(evalDateMath(math, this.millis, false, this.zone), this.zone, this.nanoOfMilli);
  }
  private plusInstant(ms: number): PainlessDateTime {
    return new PainlessDateTime(this.millis + ms, this.zone, this.nanoOfMilli);
  }
  call(name: string, args: unknown[]): unknown {
    switch (name) {
      case 'getMillis':
      case 'toEpochMilli':
        return this.millis;
      case 'toInstant':
        return this.zone === UTC ? this : new PainlessDateTime(this.millis, UTC, this.nanoOfMilli);
      case 'getEpochSecond':
      case 'toEpochSecond':
        return Math.floor(this.millis / 1000);
      case 'getYear':
        return this.fields().year;
      case 'getMonthValue':
        return this.fields().month;
      case 'getMonth':
        return MONTHS[this.fields().month - 1];
      case 'getDayOfMonth':
        return this.fields().day;
      case 'getDayOfYear':
        return this.fields().doy;
      case 'getDayOfWeek':
      case 'getDayOfWeekEnum':
        return DAYS[this.fields().dow];
      case 'getHour':
        return this.fields().hour;
      case 'getMinute':
        return this.fields().minute;
      case 'getSecond':
        return this.fields().second;
      case 'getNano':
        return this.fields().nano;
      case 'getZone':
        return new PainlessZoneId(this.zone);
      case 'getOffset':
        return formatOffset(this.zone.offsetAt(this.millis), true);
      case 'withZoneSameInstant':
        return new PainlessDateTime(this.millis, zoneArg(args[0], name), this.nanoOfMilli);
      case 'atZone':
        return new PainlessDateTime(this.millis, zoneArg(args[0], name), this.nanoOfMilli);
      case 'plusNanos':
      case 'minusNanos': {
        const total = this.nanoOfMilli + (name === 'plusNanos' ? 1 : -1) * num(args[0], name);
        const ms = Math.floor(total / 1e6);
        return new PainlessDateTime(this.millis + ms, this.zone, total - ms * 1e6);
      }
      case 'plusMillis':
        return this.plusInstant(num(args[0], name));
      case 'minusMillis':
        return this.plusInstant(-num(args[0], name));
      case 'plusSeconds':
        return this.plusInstant(num(args[0], name) * 1000);
      case 'minusSeconds':
        return this.plusInstant(-num(args[0], name) * 1000);
      case 'plusMinutes':
        return this.plusInstant(num(args[0], name) * 60_000);
      case 'minusMinutes':
        return this.plusInstant(-num(args[0], name) * 60_000);
      case 'plusHours':
        return this.plusInstant(num(args[0], name) * 3_600_000);
      case 'minusHours':
        return this.plusInstant(-num(args[0], name) * 3_600_000);
      case 'plusDays':
        return this.plusLocal(num(args[0], name), 'd');
      case 'minusDays':
        return this.plusLocal(-num(args[0], name), 'd');
      case 'plusWeeks':
        return this.plusLocal(num(args[0], name), 'w');
      case 'minusWeeks':
        return this.plusLocal(-num(args[0], name), 'w');
      case 'plusMonths':
        return this.plusLocal(num(args[0], name), 'M');
      case 'minusMonths':
        return this.plusLocal(-num(args[0], name), 'M');
      case 'plusYears':
        return this.plusLocal(num(args[0], name), 'y');
      case 'minusYears':
        return this.plusLocal(-num(args[0], name), 'y');
      case 'isAfter':
        return this.millis > dateMillis(args[0]);
      case 'isBefore':
        return this.millis < dateMillis(args[0]);
      case 'isEqual':
        return this.millis === dateMillis(args[0]);
      case 'equals':
        return args[0] instanceof PainlessDateTime && args[0].millis === this.millis && args[0].nanoOfMilli === this.nanoOfMilli && args[0].zone.id === this.zone.id;
      case 'compareTo':
        return Math.sign(this.millis - dateMillis(args[0]));
      case 'toString':
        return this.toString();
      case 'format': {
        const f = args[0];
        if (!(f instanceof PainlessDateFormatter)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(f)} to java.time.format.DateTimeFormatter`);
        return f.format(this);
      }
    }
    throw noMethod(this, name, args.length);
  }
  /** java.time's toString: seconds and fraction only when non-zero, `Z` or the offset, then `[zone]` for region zones */
  toString(): string {
    const f = this.fields();
    let s = `${f.year > 9999 ? '+' + f.year : pad4(f.year)}-${pad2(f.month)}-${pad2(f.day)}T${pad2(f.hour)}:${pad2(f.minute)}`;
    if (f.second !== 0 || f.nano !== 0) {
      s += ':' + pad2(f.second);
      if (f.nano !== 0) {
        const n = String(f.nano).padStart(9, '0');
        s += '.' + (f.nano % 1_000_000 === 0 ? n.slice(0, 3) : f.nano % 1000 === 0 ? n.slice(0, 6) : n);
      }
    }
    s += formatOffset(f.offsetMs, true);
    return this.zone.fixed ? s : `${s}[${this.zone.id}]`;
  }
}

/** java.time.ZoneId (`ZoneId.of('Europe/Paris')`, `ZoneOffset.UTC`, `dt.getZone()`). */
export class PainlessZoneId {
  constructor(readonly rules: ZoneRules) {}
  call(name: string, args: unknown[]): unknown {
    switch (name) {
      case 'getId':
      case 'toString':
        return this.toString();
      case 'equals':
        return args[0] instanceof PainlessZoneId && args[0].rules.id === this.rules.id;
    }
    throw noMethod(this, name, args.length);
  }
  toString(): string {
    return this.rules.id;
  }
}

/** java.time.format.DateTimeFormatter (`DateTimeFormatter.ofPattern(...)`, `ISO_*` constants): the shared DateFormatter. */
export class PainlessDateFormatter {
  constructor(
    readonly formatter: DateFormatter,
    readonly zone?: ZoneRules,
  ) {}
  format(dt: PainlessDateTime): string {
    return this.formatter.format(dt.millis, this.zone ?? dt.zone, dt.nanoOfMilli);
  }
  call(name: string, args: unknown[]): unknown {
    switch (name) {
      case 'format': {
        if (!(args[0] instanceof PainlessDateTime)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(args[0])} to java.time.temporal.TemporalAccessor`);
        return this.format(args[0]);
      }
      case 'withZone':
        return new PainlessDateFormatter(this.formatter, zoneArg(args[0], name));
      case 'parse':
        return parseZoned(str(args[0]), this);
      case 'toString':
        return this.formatter.pattern;
    }
    throw noMethod(this, name, args.length);
  }
}

function zoneArg(v: unknown, method: string): ZoneRules {
  if (v instanceof PainlessZoneId) return v.rules;
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to java.time.ZoneId (in ${method})`);
}

function zoneOfScript(id: unknown): PainlessZoneId {
  try {
    return new PainlessZoneId(zoneOf(str(id)));
  } catch {
    throw new RuntimeError('date_time_exception', `Invalid ID for region-based ZoneId, invalid format: ${str(id)}`);
  }
}

/** ZonedDateTime.parse: ISO date-time with an offset and an optional `[zone]`; or with a DateTimeFormatter */
function parseZoned(text: string, f?: PainlessDateFormatter): PainlessDateTime {
  const fail = (): never => {
    throw new RuntimeError('date_time_parse_exception', `Text '${text}' could not be parsed at index 0`);
  };
  if (f) {
    const r = f.formatter.tryParse(text, f.zone ?? UTC);
    if (!r) fail();
    return new PainlessDateTime(r!.millis, f.zone ?? UTC, r!.nanoOfMilli);
  }
  const m = /^(.*?)(?:\[([^\]]+)\])?$/.exec(text)!;
  const p = parseIsoDateOptionalTime(m[1], true);
  if (!p || p.offsetMin === undefined || p.hour === undefined) fail();
  let zone: ZoneRules;
  try {
    zone = m[2] ? zoneOf(m[2]) : zoneOf(formatOffset(p!.offsetMin! * 60000, true));
  } catch {
    return fail();
  }
  const r = resolveParts(p!, zone, false);
  if (!r) fail();
  return new PainlessDateTime(r!.millis, zone, r!.nanoOfMilli);
}

function pad2(n: number): string {
  return n < 10 ? '0' + n : String(n);
}
function pad4(n: number): string {
  return n < 0 ? '-' + String(-n).padStart(4, '0') : String(n).padStart(4, '0');
}

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
const MONTHS = ['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY', 'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'];

function dateMillis(v: unknown): number {
  if (v instanceof PainlessDateTime) return v.millis;
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to java.time.ZonedDateTime`);
}

/** a compiled lambda (or method reference) passed to removeIf, sort, forEach, stream ops, ... */
export class PainlessLambda {
  constructor(
    readonly arity: number,
    readonly fn: (args: unknown[]) => unknown,
  ) {}
}

/**
 * A java.lang.Double whose value is integral (2.0): JS numbers cannot tell 2.0 from 2, and Painless divides
 * doubles and longs differently, so integral doubles from double doc values, double literals and double
 * arithmetic travel boxed until they are stored in a collection or leave the script.
 */
export class JDouble {
  constructor(readonly v: number) {}
}

/** boxes an integral double result */
export function dbl(v: number): number | JDouble {
  return Number.isInteger(v) ? new JDouble(v) : v;
}

/** the plain value of a script value (JDouble -> number) */
export function unbox(v: unknown): unknown {
  return v instanceof JDouble ? v.v : v;
}

/** Java's Double.toString for the values scripts print */
export function javaDouble(v: number): string {
  if (Number.isInteger(v) && Math.abs(v) < 1e7) return `${v}.0`;
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  const a = Math.abs(v);
  if (a >= 1e-3 && a < 1e7) return String(v);
  const [m, e] = v.toExponential().split('e');
  return `${m!.includes('.') ? m : `${m}.0`}E${Number(e)}`;
}

/** `Math`, `Integer`, ... used as a value (only to call its static methods) */
export class StaticRef {
  constructor(readonly cls: string) {}
}

/** a minimal java.util.stream.Stream over a materialised list */
export class PainlessStream {
  constructor(readonly items: unknown[]) {}
}

/** java.util.regex.Matcher */
export class PainlessMatcher {
  private m: RegexMatch | null = null;
  private from = 0;
  constructor(
    private readonly re: UserRegex,
    readonly input: string,
  ) {}
  call(name: string, args: unknown[]): unknown {
    switch (name) {
      case 'matches': {
        this.m = this.re.matches(this.input) ? this.re.exec(this.input, 0) : null;
        if (this.m && this.m.end !== this.input.length) this.m = { ...this.m, end: this.input.length };
        return this.m !== null;
      }
      case 'find':
        this.m = this.re.exec(this.input, this.from);
        if (this.m) this.from = this.m.end > this.m.index ? this.m.end : this.m.end + 1;
        return this.m !== null;
      case 'group': {
        if (!this.m) throw new RuntimeError('illegal_state_exception', 'No match found');
        const g = args.length === 0 ? 0 : args[0];
        const v = typeof g === 'string' ? this.m.named[g] : this.m.groups[num(g, 'group')];
        return v ?? null;
      }
      case 'start':
        if (!this.m) throw new RuntimeError('illegal_state_exception', 'No match available');
        return this.m.index;
      case 'end':
        if (!this.m) throw new RuntimeError('illegal_state_exception', 'No match available');
        return this.m.end;
      case 'groupCount':
        return this.re.groupNames.length;
      case 'replaceAll':
        return this.re.replace(this.input, String(args[0]));
    }
    throw noMethod(this, name, args.length);
  }
}

export type Java = unknown;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  // any realm's Object.prototype (or a null prototype): objects from JSON, structuredClone or another vm context
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype || (Object.getPrototypeOf(proto) === null && !(v instanceof HostMap));
}

export function isMap(v: unknown): v is Record<string, unknown> | HostMap | Map<unknown, unknown> {
  return isPlainObject(v) || v instanceof HostMap || v instanceof Map;
}

export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JDouble) return 'java.lang.Double';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  if (v instanceof Set) return 'java.util.HashSet';
  if (v instanceof ScriptDocValues) return 'org.elasticsearch.index.fielddata.ScriptDocValues';
  if (v instanceof PainlessDateTime) return 'java.time.ZonedDateTime';
  if (v instanceof PainlessZoneId) return 'java.time.ZoneId';
  if (v instanceof PainlessDateFormatter) return 'java.time.format.DateTimeFormatter';
  if (v instanceof UserRegex) return 'java.util.regex.Pattern';
  if (v instanceof PainlessMatcher) return 'java.util.regex.Matcher';
  if (v instanceof PainlessStream) return 'java.util.stream.Stream';
  if (v instanceof PainlessLambda) return 'java.util.function.Function';
  return 'java.util.HashMap';
}

export function npe(what: string): RuntimeError {
  return new RuntimeError('null_pointer_exception', `Cannot invoke "${what}" because value is null`);
}

function noMethod(obj: unknown, name: string, arity: number): RuntimeError {
  return new RuntimeError('illegal_argument_exception', `dynamic method [${typeName(obj)}, ${name}/${arity}] not found`);
}

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

export function num(v: unknown, op: string): number {
  if (typeof v === 'number') return v;
  if (v instanceof JDouble) return v.v;
  if (v === null || v === undefined) throw npe(`Number.${op}`);
  if (typeof v === 'string' && v.length === 1 && op !== '+') return v.charCodeAt(0);
  throw new RuntimeError('class_cast_exception', `Cannot apply [${op}] operation to type [${typeName(v)}].`);
}

export function truthy(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === null || v === undefined) throw npe('Boolean.booleanValue()');
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to boolean`);
}

/** Java's String.valueOf / toString of a value (lists `[a, b]`, maps `{k=v}`) */
export function str(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (v instanceof JDouble) return javaDouble(v.v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return '[' + v.map(str).join(', ') + ']';
  if (v instanceof Set) return '[' + [...v].map(str).join(', ') + ']';
  if (v instanceof ScriptDocValues) return '[' + v.values.map(str).join(', ') + ']';
  if (v instanceof HostMap) return '{' + v.keys().map((k) => `${k}=${str(v.get(k))}`).join(', ') + '}';
  if (v instanceof Map) return '{' + [...v.entries()].map(([k, x]) => `${str(k)}=${str(x)}`).join(', ') + '}';
  if (v instanceof PainlessDateTime || v instanceof PainlessZoneId || v instanceof PainlessDateFormatter) return v.toString();
  if (v instanceof UserRegex) return v.source;
  if (isPlainObject(v)) return '{' + Object.entries(v).map(([k, x]) => `${k}=${str(x)}`).join(', ') + '}';
  return String(v);
}

export function painlessEquals(a: unknown, b: unknown): boolean {
  if (a instanceof JDouble) a = a.v;
  if (b instanceof JDouble) b = b.v;
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (a instanceof PainlessDateTime && b instanceof PainlessDateTime) return a.call('equals', [b]) as boolean;
  if (a instanceof PainlessZoneId && b instanceof PainlessZoneId) return a.rules.id === b.rules.id;
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => painlessEquals(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && painlessEquals(a[k], b[k]));
  }
  return false;
}

// ------------------------------------------------------------------------------------ maps

function mapGet(m: unknown, k: unknown): unknown {
  if (m instanceof HostMap) return m.get(String(k)) ?? null;
  if (m instanceof Map) return m.get(k) ?? null;
  const o = m as Record<string, unknown>;
  const key = String(k);
  return Object.prototype.hasOwnProperty.call(o, key) ? (o[key] ?? null) : null;
}
function mapHas(m: unknown, k: unknown): boolean {
  if (m instanceof HostMap) return m.containsKey(String(k));
  if (m instanceof Map) return m.has(k);
  return Object.prototype.hasOwnProperty.call(m, String(k));
}
function mapPut(m: unknown, k: unknown, v: unknown): unknown {
  if (v instanceof JDouble) v = v.v;
  if (k instanceof JDouble) k = k.v;
  const prev = mapGet(m, k);
  if (m instanceof HostMap) m.put(String(k), v);
  else if (m instanceof Map) m.set(k, v);
  else {
    const key = String(k);
    if (FORBIDDEN_KEYS.has(key)) throw new RuntimeError('illegal_argument_exception', `illegal key [${key}]`);
    (m as Record<string, unknown>)[key] = v;
  }
  return prev;
}
function mapRemove(m: unknown, k: unknown): unknown {
  const prev = mapGet(m, k);
  if (m instanceof HostMap) m.remove(String(k));
  else if (m instanceof Map) m.delete(k);
  else delete (m as Record<string, unknown>)[String(k)];
  return prev;
}
function mapKeys(m: unknown): unknown[] {
  if (m instanceof HostMap) return m.keys();
  if (m instanceof Map) return [...m.keys()];
  return Object.keys(m as object);
}

/** Map.Entry */
class Entry {
  constructor(
    readonly key: unknown,
    readonly val: unknown,
  ) {}
}

// ------------------------------------------------------------------------------------ members

export function getMember(obj: unknown, name: string): unknown {
  if (obj instanceof ScriptDocValues) {
    switch (name) {
      case 'value':
        return obj.value;
      case 'values':
        return [...obj.values];
      case 'empty':
        return obj.values.length === 0;
      case 'length':
        return obj.values.length;
    }
    if (name === 'lat' || name === 'lon') {
      const g = obj.value as Record<string, unknown>;
      return g[name];
    }
  } else if (isPlainObject(obj) || obj instanceof HostMap || obj instanceof Map) return mapGet(obj, name);
  else if (Array.isArray(obj)) {
    if (name === 'length') return obj.length;
    if (name === 'empty') return obj.length === 0;
    if (/^\d+$/.test(name)) return getIndex(obj, Number(name));
  } else if (typeof obj === 'string' && name === 'length') return obj.length;
  else if (obj instanceof PainlessDateTime) {
    if (name === 'millis') return obj.millis;
    const getter = 'get' + name[0]!.toUpperCase() + name.slice(1);
    return obj.call(getter, []);
  } else if (obj instanceof Entry) {
    if (name === 'key') return obj.key;
    if (name === 'value') return obj.val;
  }
  throw new RuntimeError('illegal_argument_exception', `dynamic getter [${typeName(obj)}, ${name}] not found`);
}

export function setMember(obj: unknown, name: string, value: unknown): void {
  if (isPlainObject(obj) || obj instanceof HostMap || obj instanceof Map) {
    mapPut(obj, name, value);
    return;
  }
  if (Array.isArray(obj) && /^\d+$/.test(name)) {
    setIndex(obj, Number(name), value);
    return;
  }
  throw new RuntimeError('illegal_argument_exception', `dynamic setter [${typeName(obj)}, ${name}] not found`);
}

export function getIndex(obj: unknown, idx: unknown): unknown {
  if (Array.isArray(obj) || obj instanceof ScriptDocValues) {
    const arr = Array.isArray(obj) ? obj : obj.values;
    if (typeof idx !== 'number') throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(idx)} to int`);
    const i = idx < 0 && Array.isArray(obj) ? arr.length + idx : idx;
    if (i < 0 || i >= arr.length || !Number.isInteger(i)) {
      throw new RuntimeError('index_out_of_bounds_exception', `Index ${idx} out of bounds for length ${arr.length}`);
    }
    return arr[i] ?? null;
  }
  if (isPlainObject(obj) || obj instanceof HostMap || obj instanceof Map) return mapGet(obj, idx);
  throw new RuntimeError('illegal_argument_exception', `Attempting to address a non-array-like type [${typeName(obj)}] as an array.`);
}

export function setIndex(obj: unknown, idx: unknown, value: unknown): void {
  if (value instanceof JDouble) value = value.v;
  if (Array.isArray(obj)) {
    const n = Number(idx);
    const i = n < 0 ? obj.length + n : n;
    if (!Number.isInteger(i) || i < 0 || i >= obj.length) {
      throw new RuntimeError('index_out_of_bounds_exception', `Index ${String(idx)} out of bounds for length ${obj.length}`);
    }
    obj[i] = value;
    return;
  }
  if (isPlainObject(obj) || obj instanceof HostMap || obj instanceof Map) {
    mapPut(obj, idx, value);
    return;
  }
  throw new RuntimeError('illegal_argument_exception', `Attempting to address a non-array-like type [${typeName(obj)}] as an array.`);
}

/** iteration order of a for-each over a value */
export function iterate(v: unknown): unknown[] {
  if (Array.isArray(v)) return v.slice();
  if (v instanceof ScriptDocValues) return v.values.slice();
  if (v instanceof Set) return [...v];
  if (v === null || v === undefined) throw npe('Iterable.iterator()');
  if (isMap(v)) return mapKeys(v);
  throw new RuntimeError('illegal_argument_exception', `Cannot iterate over [${typeName(v)}]`);
}

function callLambda(fn: unknown, args: unknown[]): unknown {
  if (!(fn instanceof PainlessLambda)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(fn)} to a functional interface`);
  return fn.fn(args);
}

export function compareValues(a: unknown, b: unknown): number {
  if (a instanceof JDouble) a = a.v;
  if (b instanceof JDouble) b = b.v;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof PainlessDateTime && b instanceof PainlessDateTime) return Math.sign(a.millis - b.millis);
  if (a === null || a === undefined || b === null || b === undefined) throw npe('Comparable.compareTo(Object)');
  throw new RuntimeError('class_cast_exception', `${typeName(a)} cannot be cast to java.lang.Comparable`);
}

function comparator(fn: unknown): (a: unknown, b: unknown) => number {
  if (fn === null || fn === undefined) return compareValues;
  return (a, b) => num(callLambda(fn, [a, b]), 'compare');
}

function checkIndex(i: unknown, len: number, inclusive = false): number {
  const n = num(i, 'index');
  if (!Number.isInteger(n) || n < 0 || n > len || (!inclusive && n === len)) {
    throw new RuntimeError('index_out_of_bounds_exception', `Index ${n} out of bounds for length ${len}`);
  }
  return n;
}

// ------------------------------------------------------------------------------------ methods

export interface RuntimeOptions {
  /** script.painless.regex.enabled: regexes may be built from strings (String.matches/replaceAll/Pattern.compile) */
  regexEnabled: boolean;
}

export function callMethod(obj: unknown, name: string, args: unknown[], opts: RuntimeOptions): unknown {
  if (obj instanceof JDouble) obj = obj.v;
  for (let i = 0; i < args.length; i++) if (args[i] instanceof JDouble) args[i] = (args[i] as JDouble).v;
  const a0 = args[0];
  if (typeof obj === 'string') return stringMethod(obj, name, args, opts);
  if (obj instanceof ScriptDocValues) {
    switch (name) {
      case 'getValue':
        return obj.value;
      case 'size':
      case 'getLength':
        return obj.values.length;
      case 'isEmpty':
        return obj.values.length === 0;
      case 'get':
        return getIndex(obj, a0);
      case 'contains':
        return obj.values.some((x) => painlessEquals(x, a0));
      case 'getValues':
        return [...obj.values];
      case 'getLat':
      case 'getLon':
        return (obj.value as Record<string, unknown>)[name === 'getLat' ? 'lat' : 'lon'];
      case 'stream':
        return new PainlessStream([...obj.values]);
    }
    return listMethod([...obj.values], name, args, opts, true);
  }
  if (Array.isArray(obj)) return listMethod(obj, name, args, opts, false);
  if (obj instanceof Set) {
    switch (name) {
      case 'add': {
        const had = [...obj].some((x) => painlessEquals(x, a0));
        if (!had) obj.add(a0);
        return !had;
      }
      case 'contains':
        return [...obj].some((x) => painlessEquals(x, a0));
      case 'remove':
        for (const x of obj) if (painlessEquals(x, a0)) return obj.delete(x);
        return false;
      case 'size':
        return obj.size;
      case 'isEmpty':
        return obj.size === 0;
      case 'addAll':
        for (const x of iterate(a0)) callMethod(obj, 'add', [x], opts);
        return true;
      case 'clear':
        obj.clear();
        return null;
      case 'stream':
        return new PainlessStream([...obj]);
      case 'toString':
        return str(obj);
    }
    throw noMethod(obj, name, args.length);
  }
  if (isMap(obj)) return mapMethod(obj, name, args, opts);
  if (typeof obj === 'number') {
    switch (name) {
      case 'intValue':
      case 'longValue':
      case 'shortValue':
      case 'byteValue':
        return Math.trunc(obj);
      case 'doubleValue':
      case 'floatValue':
        return obj;
      case 'toString':
        return String(obj);
      case 'equals':
        return obj === a0;
      case 'compareTo':
        return compareValues(obj, a0);
      case 'isNaN':
        return Number.isNaN(obj);
      case 'isInfinite':
        return obj === Infinity || obj === -Infinity;
    }
  } else if (typeof obj === 'boolean') {
    if (name === 'toString') return String(obj);
    if (name === 'equals') return obj === a0;
    if (name === 'booleanValue') return obj;
    if (name === 'compareTo') return compareValues(obj, a0);
  } else if (obj instanceof PainlessDateTime || obj instanceof PainlessMatcher || obj instanceof PainlessZoneId || obj instanceof PainlessDateFormatter) {
    return obj.call(name, args);
  } else if (obj instanceof UserRegex) {
    if (name === 'matcher') return new PainlessMatcher(obj, str(a0));
    if (name === 'pattern' || name === 'toString') return obj.source;
    if (name === 'split') return javaSplit(str(a0), obj);
  } else if (obj instanceof Entry) {
    if (name === 'getKey') return obj.key;
    if (name === 'getValue') return obj.val;
  } else if (obj instanceof PainlessStream) return streamMethod(obj, name, args);
  else if (obj instanceof PainlessLambda) {
    if (['apply', 'accept', 'test', 'compare', 'applyAsLong', 'applyAsDouble', 'applyAsInt', 'get'].includes(name)) return obj.fn(args);
  }
  throw noMethod(obj, name, args.length);
}

function javaSplit(s: string, re: UserRegex): string[] {
  return re.split(s);
}

function regexFromString(pattern: string, opts: RuntimeOptions): UserRegex {
  if (!opts.regexEnabled) {
    throw new RuntimeError('illegal_state_exception', 'Regexes are disabled. Set [script.painless.regex.enabled] to [true] in elasticsearch.yaml to allow them. Be careful though, regexes break out of Painless\'s protection against deep recursion and long loops.');
  }
  try {
    return UserRegex.java(pattern);
  } catch (e) {
    throw new RuntimeError('pattern_syntax_exception', (e as Error).message);
  }
}

/** Java's String.trim: strips code points <= U+0020 */
function javaTrim(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && s.charCodeAt(a) <= 32) a++;
  while (b > a && s.charCodeAt(b - 1) <= 32) b--;
  return s.slice(a, b);
}

function stringMethod(s: string, name: string, args: unknown[], opts: RuntimeOptions): unknown {
  const a0 = args[0];
  switch (name) {
    case 'startsWith':
      return s.startsWith(str(a0), args.length > 1 ? num(args[1], name) : 0);
    case 'endsWith':
      return s.endsWith(str(a0));
    case 'contains':
      return s.includes(str(a0));
    case 'toLowerCase':
      return s.toLowerCase();
    case 'toUpperCase':
      return s.toUpperCase();
    case 'trim':
      return javaTrim(s);
    case 'strip':
      return s.trim();
    case 'length':
      return s.length;
    case 'isEmpty':
      return s.length === 0;
    case 'isBlank':
      return s.trim().length === 0;
    case 'substring': {
      const b = num(a0, name);
      const e = args.length > 1 ? num(args[1], name) : s.length;
      if (b < 0 || e > s.length || b > e) throw new RuntimeError('string_index_out_of_bounds_exception', `begin ${b}, end ${e}, length ${s.length}`);
      return s.substring(b, e);
    }
    case 'indexOf':
      return s.indexOf(str(a0), args.length > 1 ? num(args[1], name) : 0);
    case 'lastIndexOf':
      return s.lastIndexOf(str(a0));
    case 'equals':
      return s === a0;
    case 'equalsIgnoreCase':
      return typeof a0 === 'string' && s.toLowerCase() === a0.toLowerCase();
    case 'replace':
      return s.split(str(a0)).join(str(args[1]));
    case 'replaceAll':
      return regexFromString(str(a0), opts).replace(s, str(args[1]));
    case 'matches':
      return regexFromString(str(a0), opts).matches(s);
    case 'charAt': {
      const i = num(a0, name);
      if (i < 0 || i >= s.length) throw new RuntimeError('string_index_out_of_bounds_exception', `index ${i}, length ${s.length}`);
      return s.charAt(i);
    }
    case 'chars':
      return new PainlessStream([...s].map((c) => c.charCodeAt(0)));
    case 'toCharArray':
      return [...s];
    case 'concat':
      return s + str(a0);
    case 'compareTo':
      return compareValues(s, a0);
    case 'compareToIgnoreCase':
      return compareValues(s.toLowerCase(), str(a0).toLowerCase());
    case 'splitOnToken': {
      const parts = s.split(str(a0));
      if (args.length > 1) {
        const limit = num(args[1], name);
        if (limit > 0 && parts.length > limit) return [...parts.slice(0, limit - 1), parts.slice(limit - 1).join(str(a0))];
      }
      return parts;
    }
    case 'split':
      return javaSplit(s, regexFromString(str(a0), opts));
    case 'toString':
    case 'intern':
      return s;
    case 'hashCode': {
      let h = 0;
      for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
      return h;
    }
    case 'repeat':
      return s.repeat(Math.max(0, num(a0, name)));
    case 'encodeBase64':
      return Buffer.from(s, 'utf8').toString('base64');
    case 'decodeBase64':
      return Buffer.from(s, 'base64').toString('utf8');
  }
  throw noMethod(s, name, args.length);
}

function listMethod(l: unknown[], name: string, args: unknown[], opts: RuntimeOptions, readOnly: boolean): unknown {
  const a0 = args[0];
  const ro = () => {
    if (readOnly) throw new RuntimeError('unsupported_operation_exception', 'doc values are unmodifiable');
  };
  switch (name) {
    case 'contains':
      return l.some((x) => painlessEquals(x, a0));
    case 'size':
    case 'getLength':
      return l.length;
    case 'isEmpty':
      return l.length === 0;
    case 'get':
      return getIndex(l, a0);
    case 'add':
      ro();
      if (args.length === 2) l.splice(checkIndex(a0, l.length, true), 0, args[1]);
      else l.push(a0);
      return args.length === 2 ? null : true;
    case 'addAll':
      ro();
      l.push(...iterate(a0));
      return true;
    case 'set': {
      ro();
      const prev = getIndex(l, a0);
      setIndex(l, a0, args[1]);
      return prev;
    }
    case 'remove':
      ro();
      if (typeof a0 === 'number' && Number.isInteger(a0)) return l.splice(checkIndex(a0, l.length), 1)[0] ?? null;
      {
        const i = l.findIndex((x) => painlessEquals(x, a0));
        if (i >= 0) l.splice(i, 1);
        return i >= 0;
      }
    case 'removeIf': {
      ro();
      let removed = false;
      for (let i = l.length - 1; i >= 0; i--) {
        if (truthy(callLambda(a0, [l[i]]))) {
          l.splice(i, 1);
          removed = true;
        }
      }
      return removed;
    }
    case 'indexOf':
      return l.findIndex((x) => painlessEquals(x, a0));
    case 'lastIndexOf': {
      for (let i = l.length - 1; i >= 0; i--) if (painlessEquals(l[i], a0)) return i;
      return -1;
    }
    case 'clear':
      ro();
      l.length = 0;
      return null;
    case 'join':
      return l.map(str).join(str(a0));
    case 'toString':
      return str(l);
    case 'equals':
      return painlessEquals(l, a0);
    case 'sort':
      ro();
      l.sort(comparator(a0));
      return null;
    case 'forEach':
      for (const x of l.slice()) callLambda(a0, [x]);
      return null;
    case 'subList':
      return l.slice(checkIndex(a0, l.length, true), checkIndex(args[1], l.length, true));
    case 'stream':
      return new PainlessStream(l.slice());
    case 'getFirst':
      if (l.length === 0) throw new RuntimeError('no_such_element_exception', 'No value present');
      return l[0];
    case 'getLast':
      if (l.length === 0) throw new RuntimeError('no_such_element_exception', 'No value present');
      return l[l.length - 1];
    case 'sum':
      return l.reduce((s: number, x) => s + num(x, 'sum'), 0);
    case 'max':
    case 'min':
      if (l.length === 0) throw new RuntimeError('no_such_element_exception', 'No value present');
      return l.reduce((m, x) => ((name === 'max' ? compareValues(x, m) > 0 : compareValues(x, m) < 0) ? x : m));
  }
  void opts;
  throw noMethod(l, name, args.length);
}

function mapMethod(m: Record<string, unknown> | HostMap | Map<unknown, unknown>, name: string, args: unknown[], opts: RuntimeOptions): unknown {
  const a0 = args[0];
  switch (name) {
    case 'containsKey':
      return mapHas(m, a0);
    case 'get':
      return mapGet(m, a0);
    case 'getOrDefault':
      return mapHas(m, a0) ? mapGet(m, a0) : (args[1] ?? null);
    case 'put':
      return mapPut(m, a0, args[1]);
    case 'putIfAbsent': {
      const prev = mapGet(m, a0);
      if (prev === null) mapPut(m, a0, args[1]);
      return prev;
    }
    case 'computeIfAbsent': {
      const prev = mapGet(m, a0);
      if (prev !== null) return prev;
      const v = callLambda(args[1], [a0]);
      if (v !== null && v !== undefined) mapPut(m, a0, v);
      return v ?? null;
    }
    case 'compute': {
      const v = callLambda(args[1], [a0, mapGet(m, a0)]);
      if (v === null || v === undefined) mapRemove(m, a0);
      else mapPut(m, a0, v);
      return v ?? null;
    }
    case 'merge': {
      const prev = mapGet(m, a0);
      const v = prev === null ? args[1] : callLambda(args[2], [prev, args[1]]);
      if (v === null || v === undefined) mapRemove(m, a0);
      else mapPut(m, a0, v);
      return v ?? null;
    }
    case 'putAll':
      if (isMap(a0)) for (const k of mapKeys(a0)) mapPut(m, k, mapGet(a0, k));
      return null;
    case 'remove':
      return mapRemove(m, a0);
    case 'isEmpty':
      return mapKeys(m).length === 0;
    case 'size':
      return mapKeys(m).length;
    case 'keySet':
      return mapKeys(m);
    case 'values':
      return mapKeys(m).map((k) => mapGet(m, k));
    case 'entrySet':
      return mapKeys(m).map((k) => new Entry(k, mapGet(m, k)));
    case 'containsValue':
      return mapKeys(m).some((k) => painlessEquals(mapGet(m, k), a0));
    case 'forEach':
      for (const k of mapKeys(m)) callLambda(a0, [k, mapGet(m, k)]);
      return null;
    case 'clear':
      for (const k of mapKeys(m)) mapRemove(m, k);
      return null;
    case 'toString':
      return str(m);
    case 'equals':
      return painlessEquals(m, a0);
  }
  void opts;
  throw noMethod(m, name, args.length);
}

function streamMethod(s: PainlessStream, name: string, args: unknown[]): unknown {
  const f = args[0];
  const items = s.items;
  switch (name) {
    case 'filter':
      return new PainlessStream(items.filter((x) => truthy(callLambda(f, [x]))));
    case 'map':
    case 'mapToInt':
    case 'mapToLong':
    case 'mapToDouble':
    case 'mapToObj':
      return new PainlessStream(items.map((x) => callLambda(f, [x])));
    case 'forEach':
      for (const x of items) callLambda(f, [x]);
      return null;
    case 'collect':
      return f === SET_COLLECTOR ? new Set(items) : items.slice();
    case 'toList':
      return items.slice();
    case 'count':
      return items.length;
    case 'sum':
      return items.reduce((a: number, x) => a + num(x, 'sum'), 0);
    case 'average':
      return items.length === 0 ? null : items.reduce((a: number, x) => a + num(x, 'average'), 0) / items.length;
    case 'anyMatch':
      return items.some((x) => truthy(callLambda(f, [x])));
    case 'allMatch':
      return items.every((x) => truthy(callLambda(f, [x])));
    case 'noneMatch':
      return !items.some((x) => truthy(callLambda(f, [x])));
    case 'distinct':
      return new PainlessStream(items.filter((x, i) => items.findIndex((y) => painlessEquals(x, y)) === i));
    case 'sorted':
      return new PainlessStream(items.slice().sort(comparator(f)));
    case 'limit':
      return new PainlessStream(items.slice(0, num(f, 'limit')));
    case 'skip':
      return new PainlessStream(items.slice(num(f, 'skip')));
    case 'max':
    case 'min':
    case 'findFirst':
    case 'getAsDouble':
    case 'getAsLong':
      if (items.length === 0) return null;
      if (name === 'findFirst') return items[0];
      return items.reduce((m, x) => ((name === 'max' ? comparator(f)(x, m) > 0 : comparator(f)(x, m) < 0) ? x : m));
    case 'boxed':
    case 'asDoubleStream':
    case 'asLongStream':
      return s;
  }
  throw noMethod(s, name, args.length);
}

const LIST_COLLECTOR = Symbol('toList');
const SET_COLLECTOR = Symbol('toSet');

// ------------------------------------------------------------------------------------ statics

function parseNumber(s: unknown, integer: boolean): number {
  if (s === null || s === undefined) throw new RuntimeError('number_format_exception', integer ? 'Cannot parse null string: null' : 'null');
  const t = integer ? str(s) : str(s).trim();
  if (integer ? !/^[+-]?\d+$/.test(t) : !/^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?)$/.test(t)) {
    throw new RuntimeError('number_format_exception', `For input string: "${str(s)}"`);
  }
  return Number(t.replace(/[dDfF]$/, ''));
}

const javaRound = (x: number) => Math.floor(x + 0.5);

export const STATICS: Record<string, Record<string, (...a: unknown[]) => unknown>> = {
  Math: {
    max: (a, b) => Math.max(num(a, 'max'), num(b, 'max')),
    min: (a, b) => Math.min(num(a, 'min'), num(b, 'min')),
    abs: (a) => Math.abs(num(a, 'abs')),
    round: (a) => javaRound(num(a, 'round')),
    rint: (a) => {
      const x = num(a, 'rint');
      const r = Math.round(x);
      return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
    },
    floor: (a) => Math.floor(num(a, 'floor')),
    ceil: (a) => Math.ceil(num(a, 'ceil')),
    sqrt: (a) => Math.sqrt(num(a, 'sqrt')),
    cbrt: (a) => Math.cbrt(num(a, 'cbrt')),
    pow: (a, b) => Math.pow(num(a, 'pow'), num(b, 'pow')),
    log: (a) => Math.log(num(a, 'log')),
    log10: (a) => Math.log10(num(a, 'log10')),
    log1p: (a) => Math.log1p(num(a, 'log1p')),
    exp: (a) => Math.exp(num(a, 'exp')),
    expm1: (a) => Math.expm1(num(a, 'expm1')),
    signum: (a) => Math.sign(num(a, 'signum')),
    sin: (a) => Math.sin(num(a, 'sin')),
    cos: (a) => Math.cos(num(a, 'cos')),
    tan: (a) => Math.tan(num(a, 'tan')),
    asin: (a) => Math.asin(num(a, 'asin')),
    acos: (a) => Math.acos(num(a, 'acos')),
    atan: (a) => Math.atan(num(a, 'atan')),
    atan2: (a, b) => Math.atan2(num(a, 'atan2'), num(b, 'atan2')),
    sinh: (a) => Math.sinh(num(a, 'sinh')),
    cosh: (a) => Math.cosh(num(a, 'cosh')),
    tanh: (a) => Math.tanh(num(a, 'tanh')),
    hypot: (a, b) => Math.hypot(num(a, 'hypot'), num(b, 'hypot')),
    toRadians: (a) => (num(a, 'toRadians') * Math.PI) / 180,
    toDegrees: (a) => (num(a, 'toDegrees') * 180) / Math.PI,
    floorDiv: (a, b) => {
      if (num(b, 'floorDiv') === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
      return Math.floor(num(a, 'floorDiv') / num(b, 'floorDiv'));
    },
    floorMod: (a, b) => {
      const x = num(a, 'floorMod');
      const y = num(b, 'floorMod');
      if (y === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
      return ((x % y) + y) % y;
    },
    random: () => Math.random(),
  },
  Integer: {
    parseInt: (s: unknown) => parseNumber(s, true),
    valueOf: (s: unknown) => (typeof s === 'number' ? Math.trunc(s) : parseNumber(s, true)),
    toString: (n: unknown) => str(n),
    compare: (a: unknown, b: unknown) => compareValues(a, b),
    max: (a: unknown, b: unknown) => Math.max(num(a, 'max'), num(b, 'max')),
    min: (a: unknown, b: unknown) => Math.min(num(a, 'min'), num(b, 'min')),
    sum: (a: unknown, b: unknown) => num(a, 'sum') + num(b, 'sum'),
  },
  Long: {
    parseLong: (s: unknown) => parseNumber(s, true),
    valueOf: (s: unknown) => (typeof s === 'number' ? Math.trunc(s) : parseNumber(s, true)),
    toString: (n: unknown) => str(n),
    compare: (a: unknown, b: unknown) => compareValues(a, b),
    max: (a: unknown, b: unknown) => Math.max(num(a, 'max'), num(b, 'max')),
    min: (a: unknown, b: unknown) => Math.min(num(a, 'min'), num(b, 'min')),
    sum: (a: unknown, b: unknown) => num(a, 'sum') + num(b, 'sum'),
  },
  Double: {
    parseDouble: (s: unknown) => parseNumber(s, false),
    valueOf: (s: unknown) => (typeof s === "number" ? s : parseNumber(s, false)),
    toString: (n: unknown) => str(n),
    compare: (a: unknown, b: unknown) => compareValues(a, b),
    isNaN: (a) => Number.isNaN(num(a, 'isNaN')),
    isInfinite: (a) => Math.abs(num(a, 'isInfinite')) === Infinity,
    sum: (a: unknown, b: unknown) => num(a, 'sum') + num(b, 'sum'),
    max: (a: unknown, b: unknown) => Math.max(num(a, 'max'), num(b, 'max')),
    min: (a: unknown, b: unknown) => Math.min(num(a, 'min'), num(b, 'min')),
  },
  Float: { parseFloat: (s: unknown) => parseNumber(s, false), valueOf: (s: unknown) => (typeof s === "number" ? s : parseNumber(s, false)) },
  Boolean: {
    parseBoolean: (s: unknown) => typeof s === 'string' && s.toLowerCase() === 'true',
    valueOf: (s: unknown) => s === true || (typeof s === 'string' && s.toLowerCase() === 'true'),
    toString: (b: unknown) => str(b),
  },
  String: {
    valueOf: (v: unknown) => str(v),
    join: (sep, list) => iterate(list).map(str).join(str(sep)),
    format: (fmt, ...rest) => {
      let i = 0;
      return str(fmt).replace(/%(?:\.(\d+))?([sdf%])/g, (_m, prec: string | undefined, c: string) => {
        if (c === '%') return '%';
        const v = rest[i++];
        if (c === 'f') return num(v, 'format').toFixed(prec === undefined ? 6 : Number(prec));
        if (c === 'd') return String(Math.trunc(num(v, 'format')));
        return str(v);
      });
    },
  },
  Objects: {
    isNull: (v: unknown) => v === null || v === undefined,
    nonNull: (v: unknown) => v !== null && v !== undefined,
    equals: (a: unknown, b: unknown) => painlessEquals(a, b),
    requireNonNull: (a) => {
      if (a === null || a === undefined) throw new RuntimeError('null_pointer_exception', 'null');
      return a;
    },
    requireNonNullElse: (a: unknown, b: unknown) => a ?? b,
    toString: (a: unknown, b: unknown) => (a === null || a === undefined ? (b === undefined ? 'null' : str(b)) : str(a)),
    hash: (...a) => a.length,
  },
  Collections: {
    emptyList: () => [],
    emptyMap: () => ({}),
    singletonList: (a) => [a],
    sort: (l, c) => {
      if (!Array.isArray(l)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(l)} to java.util.List`);
      l.sort(comparator(c));
      return null;
    },
    reverse: (l) => {
      if (Array.isArray(l)) l.reverse();
      return null;
    },
    max: (l) => listMethod(iterate(l), 'max', [], { regexEnabled: false }, true),
    min: (l) => listMethod(iterate(l), 'min', [], { regexEnabled: false }, true),
  },
  Arrays: { asList: (...a) => (a.length === 1 && Array.isArray(a[0]) ? a[0].slice() : a) },
  List: { of: (...a) => a },
  Map: {
    of: (...a) => {
      const o: Record<string, unknown> = {};
      for (let i = 0; i + 1 < a.length; i += 2) mapPut(o, a[i], a[i + 1]);
      return o;
    },
  },
  Collectors: { toList: () => LIST_COLLECTOR, toSet: () => SET_COLLECTOR },
  Instant: {
    ofEpochMilli: (m) => new PainlessDateTime(num(m, 'ofEpochMilli')),
    ofEpochSecond: (s: unknown) => new PainlessDateTime(num(s, 'ofEpochSecond') * 1000),
    parse: (s: unknown) => {
      const t = str(s);
      if (!t.endsWith('Z')) throw new RuntimeError('date_time_parse_exception', `Text '${t}' could not be parsed at index ${t.length}`);
      return parseZoned(t).call('toInstant', []);
    },
  },
  ZonedDateTime: {
    parse: (s: unknown, f?: unknown) => {
      if (f !== undefined && !(f instanceof PainlessDateFormatter)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(f)} to java.time.format.DateTimeFormatter`);
      return parseZoned(str(s), f);
    },
    ofInstant: (i: unknown, z: unknown) => new PainlessDateTime(dateMillis(i), zoneArg(z, 'ofInstant'), (i as PainlessDateTime).nanoOfMilli),
    of: (...a: unknown[]) => {
      if (a.length !== 8) throw new RuntimeError('illegal_argument_exception', `Unknown call [of] with [${a.length}] arguments on type [ZonedDateTime].`);
      const zone = zoneArg(a[7], 'of');
      const nano = num(a[6], 'of');
      const r = resolveParts({ year: num(a[0], 'of'), month: num(a[1], 'of'), day: num(a[2], 'of'), hour: num(a[3], 'of'), minute: num(a[4], 'of'), second: num(a[5], 'of'), nano }, zone, false);
      if (!r || nano < 0 || nano > 999_999_999) throw new RuntimeError('date_time_exception', `Invalid date: ${a.slice(0, 7).map(str).join(', ')}`);
      return new PainlessDateTime(r.millis, zone, r.nanoOfMilli);
    },
  },
  ZoneId: { of: (id: unknown) => zoneOfScript(id) },
  ZoneOffset: { of: (id: unknown) => zoneOfScript(id), ofHours: (h: unknown) => zoneOfScript(formatOffset(num(h, 'ofHours') * 3_600_000, true)) },
  DateTimeFormatter: {
    ofPattern: (p: unknown) => {
      try {
        return new PainlessDateFormatter(DateFormatter.of(str(p)));
      } catch (e) {
        throw new RuntimeError('illegal_argument_exception', (e as Error).message);
      }
    },
  },
  Pattern: {
    compile: () => {
      throw new RuntimeError('illegal_argument_exception', 'Pattern.compile is not allowed: use a /regex/ literal');
    },
  },
};

type ScriptValue = unknown;
const movingNum = (v: unknown): number => (typeof v === 'number' ? v : v instanceof JDouble ? v.v : v === null || v === undefined ? NaN : Number(v));
const finite = (v: unknown): number[] => (Array.isArray(v) ? v.map(movingNum).filter((x) => Number.isFinite(x)) : []);
const num0 = movingNum;

/** Elasticsearch MovingFunctions (moving_fn scripts); NaN for empty windows like ES */
const MOVING: Record<string, (args: ScriptValue[]) => number> = {
  max: ([v]) => {
    const a = finite(v ?? null);
    return a.length ? Math.max(...a) : NaN;
  },
  min: ([v]) => {
    const a = finite(v ?? null);
    return a.length ? Math.min(...a) : NaN;
  },
  sum: ([v]) => finite(v ?? null).reduce((s, x) => s + x, 0),
  unweightedAvg: ([v]) => {
    const a = finite(v ?? null);
    return a.length ? a.reduce((s, x) => s + x, 0) / a.length : NaN;
  },
  linearWeightedAvg: ([v]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    let avg = 0;
    let totalWeight = 1;
    let current = 1;
    for (const x of a) {
      avg += x * current;
      totalWeight += current;
      current += 1;
    }
    return avg / totalWeight;
  },
  ewma: ([v, alpha]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    const al = num0(alpha ?? null);
    let avg = NaN;
    for (const x of a) avg = Number.isNaN(avg) ? x : x * al + avg * (1 - al);
    return avg;
  },
  stdDev: ([v, avg]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    const m = num0(avg ?? null);
    let sq = 0;
    for (const x of a) sq += (x - m) * (x - m);
    return Math.sqrt(sq / a.length);
  },
  holt: ([v, alpha, beta]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    const al = num0(alpha ?? null);
    const be = num0(beta ?? null);
    let s = 0, b = 0, lastS = 0, lastB = 0;
    let count = 0;
    for (const x of a) {
      if (count === 0) {
        s = x;
        b = 0;
      } else {
        s = al * x + (1 - al) * (lastS + lastB);
        b = be * (s - lastS) + (1 - be) * lastB;
      }
      count++;
      lastS = s;
      lastB = b;
    }
    return s + b;
  },
};

STATICS['MovingFunctions'] = Object.fromEntries(Object.entries(MOVING).map(([k, f]) => [k, (...a: unknown[]) => f(a)]));

export const STATIC_FIELDS: Record<string, Record<string, unknown>> = {
  Math: { PI: Math.PI, E: Math.E },
  ZoneOffset: { UTC: new PainlessZoneId(UTC) },
  DateTimeFormatter: { ISO_LOCAL_DATE: new PainlessDateFormatter(DateFormatter.of('yyyy-MM-dd')) },
  Integer: { MAX_VALUE: 2147483647, MIN_VALUE: -2147483648 },
  Long: { MAX_VALUE: Number.MAX_SAFE_INTEGER, MIN_VALUE: Number.MIN_SAFE_INTEGER },
  Double: { MAX_VALUE: Number.MAX_VALUE, MIN_VALUE: Number.MIN_VALUE, POSITIVE_INFINITY: Infinity, NEGATIVE_INFINITY: -Infinity, NaN: NaN },
};

export function instanceOf(v: unknown, cls: string): boolean {
  if (v instanceof JDouble) return ['Double', 'double', 'Number', 'Object', 'def'].includes(cls);
  switch (cls) {
    case 'String':
    case 'CharSequence':
      return typeof v === 'string';
    case 'Map':
    case 'HashMap':
    case 'LinkedHashMap':
      return isMap(v);
    case 'List':
    case 'ArrayList':
      return Array.isArray(v);
    case 'Collection':
    case 'Iterable':
      return Array.isArray(v) || v instanceof Set || v instanceof ScriptDocValues;
    case 'Set':
    case 'HashSet':
      return v instanceof Set;
    case 'Number':
      return typeof v === 'number';
    case 'Integer':
    case 'Long':
    case 'int':
    case 'long':
      return typeof v === 'number' && Number.isInteger(v);
    case 'Double':
    case 'Float':
    case 'double':
    case 'float':
      return typeof v === 'number' && !Number.isInteger(v);
    case 'Boolean':
    case 'boolean':
      return typeof v === 'boolean';
    case 'ZonedDateTime':
    case 'Instant':
      return v instanceof PainlessDateTime;
    case 'ZoneId':
      return v instanceof PainlessZoneId;
    case 'DateTimeFormatter':
      return v instanceof PainlessDateFormatter;
    case 'Object':
    case 'def':
      return v !== null && v !== undefined;
  }
  return false;
}

export function cast(cls: string, v: unknown): unknown {
  if (v instanceof JDouble) {
    if (cls === 'double' || cls === 'float' || cls === 'Double' || cls === 'Float' || cls === 'Number' || cls === 'def' || cls === 'Object') return v;
    v = v.v;
  }
  switch (cls) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
      if (typeof v === 'number') return Number.isFinite(v) ? Math.trunc(v) : 0;
      if (typeof v === 'string' && v.length === 1) return v.charCodeAt(0);
      break;
    case 'Integer':
    case 'Long':
      if (v === null || (typeof v === 'number' && Number.isInteger(v))) return v;
      break;
    case 'char':
      if (typeof v === 'string' && v.length === 1) return v;
      if (typeof v === 'number') return String.fromCharCode(v);
      break;
    case 'double':
    case 'float':
    case 'Double':
    case 'Float':
    case 'Number':
      if (typeof v === 'number') return v;
      if (cls !== 'double' && cls !== 'float' && v === null) return v;
      break;
    case 'String':
      if (typeof v === 'string' || v === null) return v;
      break;
    case 'boolean':
    case 'Boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'Map':
    case 'HashMap':
      if (v === null || isMap(v)) return v;
      break;
    case 'List':
    case 'ArrayList':
    case 'Collection':
      if (v === null || Array.isArray(v)) return v;
      break;
    default:
      return v;
  }
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to ${cls}`);
}

export function newObject(cls: string, args: unknown[]): unknown {
  switch (cls) {
    case 'ArrayList':
    case 'LinkedList':
    case 'ArrayDeque':
      return args.length > 0 && typeof args[0] !== 'number' ? iterate(args[0]) : [];
    case 'HashMap':
    case 'LinkedHashMap':
    case 'TreeMap': {
      const o: Record<string, unknown> = {};
      if (args.length > 0 && isMap(args[0])) for (const k of mapKeys(args[0])) mapPut(o, k, mapGet(args[0], k));
      return o;
    }
    case 'HashSet':
    case 'LinkedHashSet':
    case 'TreeSet':
      return new Set(args.length > 0 && typeof args[0] !== 'number' ? iterate(args[0]) : []);
    case 'String':
      return args.length > 0 ? str(args[0]) : '';
    case 'StringBuilder':
      throw new RuntimeError('illegal_argument_exception', 'StringBuilder is not supported: use String concatenation');
  }
  throw new RuntimeError('illegal_argument_exception', `Not a type [${cls}].`);
}

/** a script result as JSON (dates as ISO strings, doc values and sets as lists, host maps as objects) */
export function toJsonValue(v: unknown, depth = 0): unknown {
  if (depth > 100) throw new RuntimeError('illegal_argument_exception', 'Iterable object is self-referencing itself');
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v;
  if (v instanceof JDouble) return v.v;
  if (v instanceof PainlessDateTime) return v.toString();
  if (Array.isArray(v)) return v.map((x) => toJsonValue(x, depth + 1));
  if (v instanceof ScriptDocValues) return v.values.map((x) => toJsonValue(x, depth + 1));
  if (v instanceof Set) return [...v].map((x) => toJsonValue(x, depth + 1));
  if (v instanceof HostMap || v instanceof Map || isPlainObject(v)) {
    const o: Record<string, unknown> = {};
    for (const k of mapKeys(v)) o[String(k)] = toJsonValue(mapGet(v, k), depth + 1);
    return o;
  }
  return str(v);
}
