/**
 * Compiles resolved EQL expressions into closures over an event's field values, with EQL's three-valued
 * logic (null = unknown: `not null` is null, a filter keeps only `true`). A field compared directly matches
 * when any of its values does (as a term query on a multi-valued field); inside functions and arithmetic a
 * field stands for its first value.
 */
import { DateFormatter } from '@strata/core-common';
import { encodeIp } from '@strata/core-engine';
import type { RExpr } from '../analysis/resolved.js';
import { isDate, isInteger, type DataType } from '../analysis/schema.js';
import { applyArithmetic, lookupFunction } from './functions.js';
import { compareValues, compareVersions, eqlWildcardMatcher, hasWildcard, lower, regexMatcher, type Value } from './values.js';

/** field values of one event (typed: strings, numbers, booleans; dates as epoch millis) */
export interface EventValues {
  values(path: string): readonly unknown[];
}

export type Compiled = (ev: EventValues) => Value;
type Multi = (ev: EventValues) => readonly Value[];

const DATE_PARSER = DateFormatter.of('strict_date_optional_time||epoch_millis');

function normalize(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

type Kind = 'plain' | 'date' | 'ip' | 'version';

function kindOf(a: RExpr, b: RExpr): Kind {
  const types: DataType[] = [a.type, b.type];
  if (types.some(isDate)) return 'date';
  if (types.includes('ip')) return 'ip';
  if (types.includes('version')) return 'version';
  return 'plain';
}

/** brings a value to the comparison domain of its kind (date strings → millis, ips → sortable terms) */
function coerce(kind: Kind, v: Value): Value {
  if (v === null) return null;
  switch (kind) {
    case 'date':
      if (typeof v === 'string') {
        const inst = DATE_PARSER.tryParse(v);
        return inst ? inst.millis : null;
      }
      return v;
    case 'ip':
      if (typeof v !== 'string') return null;
      try {
        return encodeIp(v);
      } catch {
        return null;
      }
    default:
      return v;
  }
}

function compareKind(kind: Kind, l: Value, r: Value): number | null {
  if (kind === 'version' && typeof l === 'string' && typeof r === 'string') return compareVersions(l, r);
  return compareValues(l, r);
}

function cmpResult(op: string, c: number | null): Value {
  if (c === null) return null;
  switch (op) {
    case '==':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    default:
      return c >= 0;
  }
}

/** any-pair semantics over two value lists: true if a pair is true; null if every pair is null (or a side is empty) */
function anyPair(ls: readonly Value[], rs: readonly Value[], f: (l: Value, r: Value) => Value): Value {
  if (ls.length === 0 || rs.length === 0) return null;
  let sawFalse = false;
  for (const l of ls) {
    for (const r of rs) {
      const v = f(l, r);
      if (v === true) return true;
      if (v === false) sawFalse = true;
    }
  }
  return sawFalse ? false : null;
}

function isDouble(e: RExpr): boolean {
  return e.type === 'double' || e.type === 'float' || e.type === 'half_float' || e.type === 'scaled_float';
}

export function compile(e: RExpr): Compiled {
  switch (e.k) {
    case 'lit': {
      const v = e.value;
      return () => v;
    }
    case 'field': {
      if (e.unmapped) return () => null;
      const path = e.exact;
      return (ev) => {
        const vs = ev.values(path);
        return vs.length === 0 ? null : normalize(vs[0]);
      };
    }
    case 'not': {
      const x = compile(e.e);
      return (ev) => {
        const v = x(ev);
        return v === null ? null : !v;
      };
    }
    case 'and': {
      const l = compile(e.l);
      const r = compile(e.r);
      return (ev) => {
        const a = l(ev);
        if (a === false) return false;
        const b = r(ev);
        if (b === false) return false;
        return a === null || b === null ? null : true;
      };
    }
    case 'or': {
      const l = compile(e.l);
      const r = compile(e.r);
      return (ev) => {
        const a = l(ev);
        if (a === true) return true;
        const b = r(ev);
        if (b === true) return true;
        return a === null || b === null ? null : false;
      };
    }
    case 'cmp': {
      if ((e.op === '==' || e.op === '!=') && (isNullLiteral(e.l) || isNullLiteral(e.r))) {
        // `x == null` is `x IS NULL` (QL's optimizer rewrites it so)
        const other = isNullLiteral(e.l) ? e.r : e.l;
        const isNull = nullCheck(other);
        return e.op === '==' ? isNull : (ev) => !isNull(ev);
      }
      const kind = kindOf(e.l, e.r);
      const l = multi(e.l, kind);
      const r = multi(e.r, kind);
      const op = e.op;
      if (op === '!=') {
        return (ev) => {
          const v = anyPair(l(ev), r(ev), (a, b) => cmpResult('==', compareKind(kind, a, b)));
          return v === null ? null : !v;
        };
      }
      return (ev) => anyPair(l(ev), r(ev), (a, b) => cmpResult(op, compareKind(kind, a, b)));
    }
    case 'arith': {
      const l = compile(e.l);
      const r = compile(e.r);
      const ints = isInteger(e.l.type) && isInteger(e.r.type);
      const op = e.op;
      return (ev) => {
        const a = l(ev);
        const b = r(ev);
        if (typeof a !== 'number' || typeof b !== 'number') return null;
        return applyArithmetic(op, a, b, ints || (e.l.type === 'dynamic' && Number.isInteger(a) && Number.isInteger(b) && e.r.type !== 'double'));
      };
    }
    case 'neg': {
      const x = compile(e.e);
      return (ev) => {
        const v = x(ev);
        return typeof v === 'number' ? -v : null;
      };
    }
    case 'in': {
      const kind = kindOf(e.value, e.list[0] ?? e.value);
      const value = multi(e.value, kind);
      const items = e.list.map((x) => compileCoerced(x, kind));
      const ci = e.ci;
      return (ev) => {
        const vs = value(ev);
        if (vs.length === 0) return null;
        const list = items.map((f) => f(ev));
        let sawNull = false;
        for (const v of vs) {
          if (v === null) {
            sawNull = true;
            continue;
          }
          for (const item of list) {
            if (item === null) {
              sawNull = true;
              continue;
            }
            if (ci && typeof v === 'string' && typeof item === 'string') {
              if (lower(v) === lower(item)) return true;
            } else if (compareKind(kind, v, item) === 0) return true;
          }
        }
        return sawNull ? null : false;
      };
    }
    case 'match': {
      const value = multi(e.value, 'plain');
      const ci = e.ci;
      const tests: Array<(s: string) => boolean> = e.patterns.map((p) => {
        if (e.op === 'regex') {
          const re = regexMatcher(p, ci);
          return (s) => re.test(s);
        }
        if (!hasWildcard(p)) {
          const lp = lower(p);
          return ci ? (s) => lower(s) === lp : (s) => s === p;
        }
        const re = eqlWildcardMatcher(p, ci);
        return (s) => re.test(s);
      });
      return (ev) => {
        const vs = value(ev);
        if (vs.length === 0) return null;
        let sawFalse = false;
        for (const v of vs) {
          if (v === null) continue;
          const s = typeof v === 'string' ? v : String(v);
          for (const t of tests) if (t(s)) return true;
          sawFalse = true;
        }
        return sawFalse ? false : null;
      };
    }
    case 'fn': {
      const def = lookupFunction(e.name);
      if (!def) return () => null;
      const args = e.args.map((a) => compile(a));
      const doubles = e.args.map(isDouble);
      const ci = e.ci;
      return (ev) => def.eval(args.map((a) => a(ev)), ci, doubles);
    }
  }
}

/** a null literal, or an optional field mapped nowhere (Elasticsearch replaces it with null) */
export function isNullLiteral(e: RExpr): boolean {
  return (e.k === 'lit' && e.value === null) || (e.k === 'field' && e.unmapped);
}

function nullCheck(e: RExpr): (ev: EventValues) => boolean {
  if (isNullLiteral(e)) return () => true;
  if (e.k === 'field') {
    const path = e.exact;
    return (ev) => ev.values(path).every((v) => v === null || v === undefined);
  }
  const f = compile(e);
  return (ev) => f(ev) === null;
}

function compileCoerced(e: RExpr, kind: Kind): Compiled {
  const f = compile(e);
  if (kind === 'plain' || kind === 'version') return f;
  return (ev) => coerce(kind, f(ev));
}

/** a field's every value (coerced), or the single value of any other expression */
function multi(e: RExpr, kind: Kind): Multi {
  if (e.k === 'field') {
    if (e.unmapped) return () => [null];
    const path = e.exact;
    if (kind === 'plain' || kind === 'version') return (ev) => ev.values(path).map(normalize);
    return (ev) => ev.values(path).map((v) => coerce(kind, normalize(v)));
  }
  const f = compileCoerced(e, kind);
  return (ev) => [f(ev)];
}

/** a compiled filter: keeps an event only when the condition is `true` */
export function compileFilter(e: RExpr): (ev: EventValues) => boolean {
  const f = compile(e);
  return (ev) => f(ev) === true;
}
