/**
 * A small subset of Painless expressions for scoring scripts (script_score query and function):
 * numbers, + - * / %, comparisons, && || !, ?:, parentheses, `_score`, `params.x` / `params['x']`,
 * `doc['f'].value`, `doc['f'].size()`, `doc['f'].empty`, `doc['f'].isEmpty()`, `doc['f'][i]`,
 * Math.{log, log10, sqrt, abs, pow, max, min, exp, floor, ceil, round, signum, E, PI},
 * and the ES script-score functions saturation, sigmoid, decayNumericLinear/Exp/Gauss.
 * Optional `return` and trailing `;`. Anything else is a script_exception compile error.
 */
import { EsError } from '@strata/core-common';

export interface ScriptDocAccess {
  /** values of a field for the current doc (numeric doc values; dates as epoch millis) */
  values(field: string): number[];
}

export interface ScriptEnv {
  score: number;
  doc: ScriptDocAccess;
}

export type CompiledScript = (env: ScriptEnv) => number;

type Node = (env: ScriptEnv) => number | boolean;

function compileError(source: string, msg: string): EsError {
  return new EsError('script_exception', 400, 'compile error', {
    metadata: { script_stack: [source], script: source, lang: 'painless' },
    cause: new EsError('illegal_argument_exception', 400, msg, { plain: true }),
  });
}

export function compileScoreScript(source: string, params: Record<string, unknown> = {}): { fn: CompiledScript; fields: string[] } {
  const tokens = tokenize(source);
  let i = 0;
  const fields = new Set<string>();
  const peek = () => tokens[i];
  const next = () => tokens[i++];
  const expect = (t: string) => {
    if (tokens[i] !== t) throw compileError(source, `unexpected token [${tokens[i] ?? 'EOF'}], expected [${t}]`);
    i++;
  };
  const num = (v: number | boolean): number => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

  const primary = (): Node => {
    const t = next();
    if (t === undefined) throw compileError(source, 'unexpected end of script');
    if (/^\d/.test(t) || /^\.\d/.test(t)) {
      const v = Number(t.replace(/[lLfFdD]$/, ''));
      return () => v;
    }
    if (t === '(') {
      const e = ternary();
      expect(')');
      return e;
    }
    if (t === '-') {
      const e = unary();
      return (env) => -num(e(env));
    }
    if (t === '!') {
      const e = unary();
      return (env) => !e(env);
    }
    if (t === 'true' || t === 'false') {
      const v = t === 'true';
      return () => v;
    }
    if (t === '_score') return (env) => env.score;
    if (t === 'params') {
      let name: string;
      if (peek() === '.') {
        next();
        name = next()!;
      } else {
        expect('[');
        name = unquote(next()!);
        expect(']');
      }
      const v = params[name];
      if (typeof v !== 'number' && typeof v !== 'boolean') {
        if (v === undefined) throw compileError(source, `params.${name} is not defined`);
        const n = Number(v);
        if (Number.isNaN(n)) throw compileError(source, `params.${name} is not a number`);
        return () => n;
      }
      return () => v;
    }
    if (t === 'doc') {
      let field: string;
      if (peek() === '[') {
        next();
        field = unquote(next()!);
        expect(']');
      } else {
        expect('.');
        field = next()!;
      }
      fields.add(field);
      if (peek() === '[') {
        next();
        const idx = ternary();
        expect(']');
        return (env) => {
          const vals = env.doc.values(field);
          const k = num(idx(env));
          if (k < 0 || k >= vals.length) throw new EsError('script_exception', 400, 'runtime error', { cause: new EsError('index_out_of_bounds_exception', 400, `index ${k} out of bounds for length ${vals.length}`, { plain: true }) });
          return vals[k]!;
        };
      }
      expect('.');
      const member = next();
      if (member === 'value') {
        return (env) => {
          const vals = env.doc.values(field);
          if (vals.length === 0) {
            throw new EsError('script_exception', 400, 'runtime error', {
              cause: new EsError('illegal_state_exception', 400, `A document doesn't have a value for a field! Use doc[<field>].size()==0 to check if a document is missing a field!`, { plain: true }),
            });
          }
          return vals[0]!;
        };
      }
      if (member === 'size' || member === 'length') {
        if (peek() === '(') {
          next();
          expect(')');
        }
        return (env) => env.doc.values(field).length;
      }
      if (member === 'empty' || member === 'isEmpty') {
        if (peek() === '(') {
          next();
          expect(')');
        }
        return (env) => env.doc.values(field).length === 0;
      }
      throw compileError(source, `unknown member [${member ?? ''}] of doc['${field}']`);
    }
    if (t === 'Math') {
      expect('.');
      const fn = next()!;
      if (fn === 'E') return () => Math.E;
      if (fn === 'PI') return () => Math.PI;
      const args = callArgs();
      const f = MATH[fn];
      if (!f) throw compileError(source, `unknown method [Math.${fn}]`);
      return (env) => f(...args.map((a) => num(a(env))));
    }
    const fnImpl = FUNCTIONS[t];
    if (fnImpl) {
      const args = callArgs();
      return (env) => fnImpl(...args.map((a) => num(a(env))));
    }
    throw compileError(source, `cannot resolve symbol [${t}]`);
  };
  const callArgs = (): Node[] => {
    expect('(');
    const args: Node[] = [];
    if (peek() !== ')') {
      args.push(ternary());
      while (peek() === ',') {
        next();
        args.push(ternary());
      }
    }
    expect(')');
    return args;
  };
  const unary = (): Node => primary();
  const binary = (sub: () => Node, ops: string[]): (() => Node) => () => {
    let left = sub();
    while (ops.includes(peek() ?? '')) {
      const op = next()!;
      const l = left;
      const r = sub();
      left = (env) => {
        const a = l(env);
        const b = r(env);
        switch (op) {
          case '*':
            return num(a) * num(b);
          case '/':
            return num(a) / num(b);
          case '%':
            return num(a) % num(b);
          case '+':
            return num(a) + num(b);
          case '-':
            return num(a) - num(b);
          case '<':
            return num(a) < num(b);
          case '<=':
            return num(a) <= num(b);
          case '>':
            return num(a) > num(b);
          case '>=':
            return num(a) >= num(b);
          case '==':
            return num(a) === num(b);
          case '!=':
            return num(a) !== num(b);
          case '&&':
            return Boolean(a) && Boolean(b);
          default:
            return Boolean(a) || Boolean(b);
        }
      };
    }
    return left;
  };
  const mul = binary(unary, ['*', '/', '%']);
  const add = binary(mul, ['+', '-']);
  const cmp = binary(add, ['<', '<=', '>', '>=']);
  const eq = binary(cmp, ['==', '!=']);
  const and = binary(eq, ['&&']);
  const or = binary(and, ['||']);
  const ternary = (): Node => {
    const c = or();
    if (peek() !== '?') return c;
    next();
    const a = ternary();
    expect(':');
    const b = ternary();
    return (env) => (c(env) ? a(env) : b(env));
  };
  if (peek() === 'return') next();
  const root = ternary();
  while (peek() === ';') next();
  if (i < tokens.length) throw compileError(source, `unexpected token [${tokens[i]}]`);
  return { fn: (env) => num(root(env)), fields: [...fields] };
}

function unquote(t: string): string {
  if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) return t.slice(1, -1);
  return t;
}

function tokenize(s: string): string[] {
  const out: string[] = [];
  const re = /\s*(\d+\.?\d*(?:[eE][-+]?\d+)?[lLfFdD]?|\.\d+|'[^']*'|"[^"]*"|[A-Za-z_$][\w$]*|<=|>=|==|!=|&&|\|\||[-+*/%()[\].,;?:<>!])/y;
  let m: RegExpExecArray | null;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    m = re.exec(s);
    if (!m) {
      if (/^\s*$/.test(s.substring(pos))) break;
      throw compileError(s, `unexpected character [${s.substring(pos).trim()[0]}]`);
    }
    out.push(m[1]!);
    pos = re.lastIndex;
  }
  return out;
}

const MATH: Record<string, (...a: number[]) => number> = {
  log: Math.log,
  log10: Math.log10,
  log1p: Math.log1p,
  sqrt: Math.sqrt,
  abs: Math.abs,
  pow: Math.pow,
  max: Math.max,
  min: Math.min,
  exp: Math.exp,
  floor: Math.floor,
  ceil: Math.ceil,
  round: Math.round,
  signum: Math.sign,
};

const FUNCTIONS: Record<string, (...a: number[]) => number> = {
  saturation: (v, k) => v / (k! + v),
  sigmoid: (v, k, a) => Math.pow(v, a!) / (Math.pow(k!, a!) + Math.pow(v, a!)),
  decayNumericLinear: (origin, scale, offset, decay, value) => {
    const s = scale! / (1 - decay!);
    const d = Math.max(0, Math.abs(value! - origin!) - offset!);
    return Math.max(0, (s - d) / s);
  },
  decayNumericExp: (origin, scale, offset, decay, value) => {
    const d = Math.max(0, Math.abs(value! - origin!) - offset!);
    return Math.exp((Math.log(decay!) / scale!) * d);
  },
  decayNumericGauss: (origin, scale, offset, decay, value) => {
    const d = Math.max(0, Math.abs(value! - origin!) - offset!);
    const s = (0.5 * scale! * scale!) / Math.log(decay!);
    return Math.exp((0.5 * d * d) / s);
  },
};

/** parses a script object (`{source, params, lang}`, or the string shorthand) */
export function parseScript(json: unknown): { source: string; params: Record<string, unknown> } {
  if (typeof json === 'string') return { source: json, params: {} };
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new EsError('parsing_exception', 400, '[script] expected a script object', { metadata: { line: 1, col: 1 } });
  const o = json as Record<string, unknown>;
  if (o['id'] !== undefined) throw new EsError('resource_not_found_exception', 404, `unable to find script [${String(o['id'])}] in cluster state`);
  const lang = o['lang'] === undefined ? 'painless' : String(o['lang']);
  if (lang !== 'painless' && lang !== 'expression') throw new EsError('illegal_argument_exception', 400, `script_lang not supported [${lang}]`);
  const source = o['source'] ?? o['inline'];
  if (typeof source !== 'string') throw new EsError('parsing_exception', 400, 'must specify either [source] for an inline script or [id] for a stored script', { metadata: { line: 1, col: 1 } });
  const params = o['params'];
  return { source, params: params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : {} };
}
