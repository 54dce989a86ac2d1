/**
 * A tiny expression language for bucket_script / bucket_selector scripts (the Painless subset that these
 * scripts use in practice): numbers, booleans, null, `params.x` / `params['x']` / `params.get('x')`,
 * arithmetic, comparisons, logic, ternaries and Math functions. Optional `return` and trailing `;`.
 */
import { EsError } from '@strata/core-common';

export type ScriptValue = number | boolean | null | string | number[];
export type CompiledScript = (params: Record<string, unknown>) => ScriptValue;

type Tok = { t: 'num'; v: number } | { t: 'str'; v: string } | { t: 'id'; v: string } | { t: 'op'; v: string };

function compileError(src: string, why: string): EsError {
  return new EsError('script_exception', 400, 'compile error', {
    extra: { script_stack: [src], script: src, lang: 'painless' },
    cause: new EsError('illegal_argument_exception', 400, why, { plain: true }),
  });
}

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const ops = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '+', '-', '*', '/', '%', '!', '?', ':', '(', ')', '[', ']', '.', ','];
  while (i < src.length) {
    const c = src[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[dDfFlL]?/.exec(src.slice(i))!;
      out.push({ t: 'num', v: Number(m[1]) });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][\w$]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      const j = src.indexOf(c, i + 1);
      if (j < 0) throw compileError(src, 'unterminated string');
      out.push({ t: 'str', v: src.slice(i + 1, j) });
      i = j + 1;
      continue;
    }
    const op = ops.find((o) => src.startsWith(o, i));
    if (!op) throw compileError(src, `unexpected character [${c}]`);
    out.push({ t: 'op', v: op });
    i += op.length;
  }
  return out;
}

type Node = (p: Record<string, unknown>) => ScriptValue;

const num = (v: ScriptValue): number =>
  typeof v === 'number' ? v : v === true ? 1 : v === false ? 0 : v === null || Array.isArray(v) ? NaN : Number(v);

const finite = (v: ScriptValue): number[] => (Array.isArray(v) ? v.filter((x) => Number.isFinite(x)) : []);

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
    const al = num(alpha ?? null);
    let avg = NaN;
    for (const x of a) avg = Number.isNaN(avg) ? x : x * al + avg * (1 - al);
    return avg;
  },
  stdDev: ([v, avg]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    const m = num(avg ?? null);
    let sq = 0;
    for (const x of a) sq += (x - m) * (x - m);
    return Math.sqrt(sq / a.length);
  },
  holt: ([v, alpha, beta]) => {
    const a = finite(v ?? null);
    if (!a.length) return NaN;
    const al = num(alpha ?? null);
    const be = num(beta ?? null);
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

const MATH: Record<string, (...a: number[]) => number> = {
  abs: Math.abs, max: Math.max, min: Math.min, pow: Math.pow, sqrt: Math.sqrt, log: Math.log, log10: Math.log10,
  exp: Math.exp, floor: Math.floor, ceil: Math.ceil, round: Math.round, signum: Math.sign, cbrt: Math.cbrt,
};

export function compileScript(source: string): CompiledScript {
  let src = source.trim();
  if (src.startsWith('return ')) src = src.slice(7);
  while (src.endsWith(';')) src = src.slice(0, -1).trim();
  const toks = lex(src);
  let pos = 0;
  const peek = () => toks[pos];
  const isOp = (v: string) => {
    const t = toks[pos];
    return t !== undefined && t.t === 'op' && t.v === v;
  };
  const expect = (v: string) => {
    if (!isOp(v)) throw compileError(source, `expected [${v}]`);
    pos++;
  };

  /** `( expr, expr, ... )` */
  const argumentList = (): Node[] => {
    expect('(');
    const args: Node[] = [];
    if (!isOp(')')) {
      args.push(ternary());
      while (isOp(',')) {
        pos++;
        args.push(ternary());
      }
    }
    expect(')');
    return args;
  };

  const primary = (): Node => {
    const t = peek();
    if (!t) throw compileError(source, 'unexpected end of script');
    pos++;
    if (t.t === 'num') return () => t.v;
    if (t.t === 'str') return () => t.v;
    if (t.t === 'op' && t.v === '(') {
      const e = ternary();
      expect(')');
      return e;
    }
    if (t.t === 'id') {
      if (t.v === 'true') return () => true;
      if (t.v === 'false') return () => false;
      if (t.v === 'null') return () => null;
      if (t.v === 'params') {
        let name: string;
        if (isOp('.')) {
          pos++;
          const n = peek();
          if (!n || n.t !== 'id') throw compileError(source, 'expected a parameter name');
          pos++;
          name = n.v;
          if (name === 'get' && isOp('(')) {
            pos++;
            const a = peek();
            if (!a || a.t !== 'str') throw compileError(source, 'expected a string');
            pos++;
            expect(')');
            name = a.v;
          }
        } else if (isOp('[')) {
          pos++;
          const a = peek();
          if (!a || a.t !== 'str') throw compileError(source, 'expected a string');
          pos++;
          expect(']');
          name = a.v;
        } else throw compileError(source, 'unexpected [params]');
        const key = name;
        return (p) => {
          const v = p[key];
          return v === undefined ? null : (v as ScriptValue);
        };
      }
      if (t.v === 'values') return (p) => (Array.isArray(p['values']) ? (p['values'] as number[]) : null);
      if (t.v === 'MovingFunctions' && isOp('.')) {
        pos++;
        const fn = peek();
        if (!fn || fn.t !== 'id' || !MOVING[fn.v]) throw compileError(source, 'unknown MovingFunctions function');
        pos++;
        const f = MOVING[fn.v]!;
        const args = argumentList();
        return (p) => f(args.map((a) => a(p)));
      }
      if (t.v === 'Math' && isOp('.')) {
        pos++;
        const fn = peek();
        if (!fn || fn.t !== 'id' || !MATH[fn.v]) throw compileError(source, 'unknown Math function');
        pos++;
        const f = MATH[fn.v]!;
        const args = argumentList();
        return (p) => f(...args.map((a) => num(a(p))));
      }
    }
    throw compileError(source, `unexpected token [${String(t.v)}]`);
  };
  const unary = (): Node => {
    if (isOp('!')) {
      pos++;
      const e = unary();
      return (p) => !e(p);
    }
    if (isOp('-')) {
      pos++;
      const e = unary();
      return (p) => -num(e(p));
    }
    if (isOp('+')) {
      pos++;
      return unary();
    }
    return primary();
  };
  const binary = (next: () => Node, ops: string[], apply: (op: string, a: ScriptValue, b: ScriptValue) => ScriptValue) => (): Node => {
    let left = next();
    for (;;) {
      const t = peek();
      if (!t || t.t !== 'op' || !ops.includes(t.v)) return left;
      pos++;
      const right = next();
      const l = left;
      const op = t.v;
      left = (p) => apply(op, l(p), right(p));
    }
  };
  const mul = binary(unary, ['*', '/', '%'], (op, a, b) => (op === '*' ? num(a) * num(b) : op === '/' ? num(a) / num(b) : num(a) % num(b)));
  const add = binary(mul, ['+', '-'], (op, a, b) =>
    op === '+' ? (typeof a === 'string' || typeof b === 'string' ? `${a}${b}` : num(a) + num(b)) : num(a) - num(b),
  );
  const rel = binary(add, ['<', '<=', '>', '>='], (op, a, b) => {
    const x = num(a);
    const y = num(b);
    return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
  });
  const eq = binary(rel, ['==', '!=', '===', '!=='], (op, a, b) => {
    const same = typeof a === 'number' || typeof b === 'number' ? num(a) === num(b) : a === b;
    return op === '==' || op === '===' ? same : !same;
  });
  const and = binary(eq, ['&&'], (_op, a, b) => Boolean(a) && Boolean(b));
  const or = binary(and, ['||'], (_op, a, b) => Boolean(a) || Boolean(b));
  const ternary = (): Node => {
    const c = or();
    if (!isOp('?')) return c;
    pos++;
    const a = ternary();
    expect(':');
    const b = ternary();
    return (p) => (c(p) ? a(p) : b(p));
  };
  const root = ternary();
  if (pos !== toks.length) throw compileError(source, `unexpected token [${String(toks[pos]!.v)}]`);
  return root;
}
