/**
 * EQL's built-in functions: signatures (checked by the analyzer with Elasticsearch's messages) and their
 * evaluation (null in → null out unless stated, as Elasticsearch's function processors do).
 */
import { cidrRange, encodeIp } from '@strata/core-engine';
import { isInteger, isNumeric, isString, type DataType } from '../analysis/schema.js';
import { lower, valueToString, type Value } from './values.js';

export type ArgKind = 'string' | 'numeric' | 'integer' | 'boolean' | 'ip' | 'any';

export interface FunctionDef {
  /** canonical name as Elasticsearch lists it (lower-cased for lookup) */
  name: string;
  /** has a `~` (case-insensitive) variant */
  insensitive: boolean;
  minArgs: number;
  maxArgs: number;
  /** the arity message of QL's function registry */
  arity: string;
  /** expected kind per argument (the last one repeats for varargs) */
  args: ArgKind[];
  returns(argTypes: DataType[]): DataType;
  /** evaluates with already evaluated arguments; `doubles[i]` tells whether argument i is floating point */
  eval(args: Value[], ci: boolean, doubles: boolean[]): Value;
}

const str = (v: Value): string | null => (v === null ? null : String(v));
const num = (v: Value): number | null => (typeof v === 'number' ? v : v === null ? null : Number(v));

function arithmetic(op: (a: number, b: number, ints: boolean) => number | null) {
  return (args: Value[], _ci: boolean, doubles: boolean[]): Value => {
    const a = num(args[0]!);
    const b = num(args[1]!);
    if (a === null || b === null) return null;
    const ints = !doubles[0] && !doubles[1] && Number.isInteger(a) && Number.isInteger(b);
    return op(a, b, ints);
  };
}

export function arithmeticResultType(a: DataType, b: DataType): DataType {
  if (isInteger(a) && isInteger(b)) return a === 'long' || b === 'long' ? 'long' : 'integer';
  if (a === 'null' || b === 'null') return isNumeric(a) ? a : isNumeric(b) ? b : 'null';
  return 'double';
}

export function applyArithmetic(op: '+' | '-' | '*' | '/' | '%', a: number, b: number, ints: boolean): number | null {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      if (ints) return b === 0 ? null : Math.trunc(a / b);
      return a / b;
    case '%':
      if (ints && b === 0) return null;
      return a % b;
  }
}

/** Python-style slicing, as EQL's substring() */
function substring(s: string, start: number, end: number | null): string {
  const n = s.length;
  let st = start < 0 ? Math.max(n + start, 0) : Math.min(start, n);
  let en = end === null ? n : end < 0 ? Math.max(n + end, 0) : Math.min(end, n);
  if (en < st) en = st;
  st = Math.max(st, 0);
  return s.substring(st, en);
}

function between(source: string, left: string, right: string, greedy: boolean, ci: boolean): string {
  const src = ci ? lower(source) : source;
  const l = ci ? lower(left) : left;
  const r = ci ? lower(right) : right;
  const li = src.indexOf(l);
  if (li < 0) return '';
  const start = li + l.length;
  const ri = greedy ? src.lastIndexOf(r) : src.indexOf(r, start);
  if (ri < start) return '';
  return source.substring(start, ri);
}

function parseNumber(s: string, base: number | null): number | null {
  let text = s.trim();
  const radix = base ?? 10;
  if (radix === 10 && base === null) {
    if (/^[+-]?\d+$/.test(text)) return Number(text);
    const d = Number(text);
    return text.length > 0 && Number.isFinite(d) ? d : null;
  }
  if (radix === 16) text = text.replace(/^([+-]?)0[xX]/, '$1');
  if (!(radix >= 2 && radix <= 36)) return null;
  const digits = '0123456789abcdefghijklmnopqrstuvwxyz'.substring(0, radix);
  const body = text.replace(/^[+-]/, '').toLowerCase();
  if (body.length === 0 || [...body].some((c) => !digits.includes(c))) return null;
  const v = parseInt(text, radix);
  return Number.isNaN(v) ? null : v;
}

function ipInCidr(ip: string, cidrs: string[]): boolean {
  let term: string;
  try {
    term = encodeIp(ip);
  } catch {
    return false;
  }
  for (const c of cidrs) {
    try {
      const [lo, hi] = cidrRange(c);
      if (term >= lo && term <= hi) return true;
    } catch {
      /* an invalid CIDR matches nothing */
    }
  }
  return false;
}

/** a two-string predicate (startsWith, endsWith, stringContains), null when either side is null */
function stringPredicate(name: string, test: (s: string, p: string) => boolean): FunctionDef {
  return {
    name,
    insensitive: true,
    minArgs: 2,
    maxArgs: 2,
    arity: 'expects exactly two arguments',
    args: ['string', 'string'],
    returns: () => 'boolean',
    eval: (a, ci) => {
      const s = str(a[0]!);
      const p = str(a[1]!);
      if (s === null || p === null) return null;
      return ci ? test(lower(s), lower(p)) : test(s, p);
    },
  };
}

/** a two-number operation (add, subtract, ...) */
function numericFunction(name: string, op: (a: number, b: number, ints: boolean) => number | null): FunctionDef {
  return {
    name,
    insensitive: false,
    minArgs: 2,
    maxArgs: 2,
    arity: 'expects exactly two arguments',
    args: ['numeric', 'numeric'],
    returns: (t) => arithmeticResultType(t[0]!, t[1]!),
    eval: arithmetic(op),
  };
}

const stringReturns = (): DataType => 'keyword';
const boolReturns = (): DataType => 'boolean';
const intReturns = (): DataType => 'integer';

export const FUNCTIONS: FunctionDef[] = [
  numericFunction('add', (a, b) => a + b),

  {
    name: 'between',
    insensitive: true,
    minArgs: 3,
    maxArgs: 4,
    arity: 'expects three or four arguments',
    args: ['string', 'string', 'string', 'boolean'],
    returns: stringReturns,
    eval: (a, ci) => {
      const s = str(a[0]!);
      const l = str(a[1]!);
      const r = str(a[2]!);
      if (s === null || l === null || r === null) return null;
      return between(s, l, r, a[3] === true, ci);
    },
  },
  {
    name: 'cidrMatch',
    insensitive: false,
    minArgs: 2,
    maxArgs: Infinity,
    arity: 'expects at least two arguments',
    args: ['ip', 'string'],
    returns: boolReturns,
    eval: (a) => {
      const ip = str(a[0]!);
      if (ip === null) return null;
      return ipInCidr(ip, a.slice(1).filter((x): x is string => typeof x === 'string'));
    },
  },
  {
    name: 'concat',
    insensitive: false,
    minArgs: 0,
    maxArgs: Infinity,
    arity: 'expects at least one argument',
    args: ['any'],
    returns: stringReturns,
    eval: (a, _ci, doubles) => {
      let out = '';
      for (let i = 0; i < a.length; i++) {
        const s = valueToString(a[i]!, doubles[i]);
        if (s === null) return null;
        out += s;
      }
      return out;
    },
  },
  numericFunction('divide', (a, b, ints) => applyArithmetic('/', a, b, ints)),

  stringPredicate('endsWith', (s, p) => s.endsWith(p)),

  {
    name: 'indexOf',
    insensitive: true,
    minArgs: 2,
    maxArgs: 3,
    arity: 'expects two or three arguments',
    args: ['string', 'string', 'integer'],
    returns: intReturns,
    eval: (a, ci) => {
      const s = str(a[0]!);
      const p = str(a[1]!);
      if (s === null || p === null) return null;
      const startV = a.length > 2 ? num(a[2]!) : 0;
      const start = startV === null ? 0 : Math.max(0, Math.trunc(startV));
      if (start > s.length) return null;
      const i = ci ? lower(s).indexOf(lower(p), start) : s.indexOf(p, start);
      return i < 0 ? null : i;
    },
  },
  {
    name: 'length',
    insensitive: false,
    minArgs: 1,
    maxArgs: 1,
    arity: 'expects exactly one argument',
    args: ['string'],
    returns: intReturns,
    eval: (a) => {
      const s = str(a[0]!);
      return s === null ? null : s.length;
    },
  },
  numericFunction('modulo', (a, b, ints) => applyArithmetic('%', a, b, ints)),

  numericFunction('multiply', (a, b) => a * b),

  {
    name: 'number',
    insensitive: false,
    minArgs: 1,
    maxArgs: 2,
    arity: 'expects one or two arguments',
    args: ['string', 'integer'],
    returns: () => 'double',
    eval: (a) => {
      const s = str(a[0]!);
      if (s === null) return null;
      const base = a.length > 1 ? num(a[1]!) : null;
      return parseNumber(s, base);
    },
  },
  stringPredicate('startsWith', (s, p) => s.startsWith(p)),

  {
    name: 'string',
    insensitive: false,
    minArgs: 1,
    maxArgs: 1,
    arity: 'expects exactly one argument',
    args: ['any'],
    returns: stringReturns,
    eval: (a, _ci, doubles) => valueToString(a[0]!, doubles[0]),
  },
  stringPredicate('stringContains', (s, p) => s.includes(p)),

  {
    name: 'substring',
    insensitive: false,
    minArgs: 2,
    maxArgs: 3,
    arity: 'expects two or three arguments',
    args: ['string', 'integer', 'integer'],
    returns: stringReturns,
    eval: (a) => {
      const s = str(a[0]!);
      if (s === null) return null;
      const st = num(a[1]!);
      const en = a.length > 2 ? num(a[2]!) : null;
      return substring(s, st === null ? 0 : Math.trunc(st), en === null ? null : Math.trunc(en));
    },
  },
  numericFunction('subtract', (a, b) => a - b),

];

const BY_NAME = new Map(FUNCTIONS.map((f) => [f.name.toLowerCase(), f]));

export function lookupFunction(name: string): FunctionDef | undefined {
  return BY_NAME.get(name.toLowerCase());
}

export function functionNames(): string[] {
  return FUNCTIONS.map((f) => f.name.toLowerCase());
}

/** whether a data type satisfies an argument kind */
export function acceptsKind(kind: ArgKind, t: DataType): boolean {
  if (t === 'null' || t === 'dynamic' || kind === 'any') return true;
  switch (kind) {
    case 'string':
      return isString(t);
    case 'numeric':
      return isNumeric(t);
    case 'integer':
      return isInteger(t);
    case 'boolean':
      return t === 'boolean';
    case 'ip':
      return t === 'ip';
  }
}
