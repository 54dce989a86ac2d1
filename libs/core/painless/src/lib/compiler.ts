/**
 * Compiles a Painless AST into a tree of JS closures (no eval, no Function): every local is resolved at compile
 * time to a slot of a frame array, context variables (`ctx`, `doc`, `params`, `_score`, ...) take the first
 * slots, and control flow is a completion code (0 normal, 1 break, 2 continue, 3 return), not exceptions.
 * Every loop iteration counts against the loop counter, like Painless's `max_loop_counter`.
 */
import { UserRegex } from '@strata/core-common';
import { compileError, PainlessRuntimeError as RuntimeError } from './errors.js';
import { type Node, Parser, PRIMITIVES, type Stmt } from './parser.js';
import {
  callMethod,
  cast,
  dbl,
  getIndex,
  JDouble,
  getMember,
  instanceOf,
  iterate,
  newObject,
  npe,
  num,
  painlessEquals,
  PainlessLambda,
  type RuntimeOptions,
  setIndex,
  setMember,
  STATIC_FIELDS,
  STATICS,
  str,
  truthy,
  typeName,
  unbox,
} from './runtime.js';

export interface Frame {
  s: unknown[];
  ret: unknown;
  loops: number;
  pos: number;
}

type E = (f: Frame) => unknown;
type S = (f: Frame) => number;
/** static type known at compile time: drives integer vs floating division and int stores */
type T = 'int' | 'double' | 'bool' | 'string' | 'any';

interface Compiled {
  e: E;
  t: T;
}

export interface CompileOptions {
  /** context variables, in slot order */
  globals: readonly string[];
  /** context functions callable by plain name (their JS implementations are passed as variables) */
  functions?: readonly string[];
  /** painless max_loop_counter (default 1,000,000) */
  maxLoopCounter?: number;
  /** script.painless.regex.enabled (default true, ES's `limited`) */
  regexEnabled?: boolean;
}

export interface Program {
  readonly slots: number;
  readonly globals: readonly string[];
  readonly maxLoops: number;
  readonly body: S;
}

const NORMAL = 0;
const BREAK = 1;
const CONTINUE = 2;
const RETURN = 3;

const MAX_STRING = 16 * 1024 * 1024;
const MAX_LIST = 4 * 1024 * 1024;

const KNOWN_CLASSES = new Set(['ArrayList', 'LinkedList', 'ArrayDeque', 'HashMap', 'LinkedHashMap', 'TreeMap', 'HashSet', 'LinkedHashSet', 'TreeSet', 'String', 'StringBuilder']);

const LOOP_LIMIT_MESSAGE = 'The maximum number of statements that can be executed in a loop has been reached.';

function typeOfDecl(type: string): T {
  switch (type) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
      return 'int';
    case 'double':
    case 'float':
      return 'double';
    case 'boolean':
      return 'bool';
    case 'String':
      return 'string';
  }
  return 'any';
}

interface Var {
  slot: number;
  type: T;
  readOnly: boolean;
}

class Scope {
  readonly vars = new Map<string, Var>();
  constructor(readonly parent: Scope | null) {}
  lookup(name: string): Var | undefined {
    return this.vars.get(name) ?? this.parent?.lookup(name);
  }
}

export class Compiler {
  private slots = 0;
  private readonly functions: Set<string>;
  private readonly rt: RuntimeOptions;
  private loopDepth = 0;

  constructor(
    private readonly src: string,
    private readonly opts: CompileOptions,
  ) {
    this.functions = new Set(opts.functions ?? []);
    this.rt = { regexEnabled: opts.regexEnabled !== false };
  }

  static compile(src: string, opts: CompileOptions): Program {
    const c = new Compiler(src, opts);
    const root = new Scope(null);
    for (const g of opts.globals) root.vars.set(g, { slot: c.slots++, type: g === '_score' ? 'double' : 'any', readOnly: true });
    for (const fn of opts.functions ?? []) if (!root.vars.has(fn)) root.vars.set(fn, { slot: c.slots++, type: 'any', readOnly: true });
    const stmts = Parser.parse(src);
    // the value of a final expression statement is the script's result, as in Painless
    const last = stmts[stmts.length - 1]!;
    if (last.s === 'expr') stmts[stmts.length - 1] = { s: 'return', e: last.e, pos: last.pos };
    const body = c.block(stmts, new Scope(root));
    return { slots: c.slots, globals: [...opts.globals, ...(opts.functions ?? []).filter((f) => !opts.globals.includes(f))], maxLoops: opts.maxLoopCounter ?? 1_000_000, body };
  }

  private fail(pos: number, msg: string): never {
    throw compileError(this.src, pos, msg);
  }

  // ---------------------------------------------------------------------------------- statements

  private block(stmts: Stmt[], scope: Scope): S {
    const parts = stmts.map((s) => this.stmt(s, scope));
    if (parts.length === 1) return parts[0]!;
    return (f) => {
      for (let i = 0; i < parts.length; i++) {
        const c = parts[i]!(f);
        if (c !== NORMAL) return c;
      }
      return NORMAL;
    };
  }

  private tick(pos: number): (f: Frame) => void {
    const max = this.opts.maxLoopCounter ?? 1_000_000;
    return (f) => {
      if (++f.loops > max) {
        f.pos = pos;
        throw new RuntimeError('painless_error', LOOP_LIMIT_MESSAGE);
      }
    };
  }

  private stmt(st: Stmt, scope: Scope): S {
    const pos = st.pos;
    switch (st.s) {
      case 'expr': {
        const e = this.expr(st.e, scope).e;
        return (f) => {
          f.pos = pos;
          e(f);
          return NORMAL;
        };
      }
      case 'decl': {
        const type = typeOfDecl(st.type);
        const inits: Array<[number, E | null, number]> = [];
        for (const v of st.vars) {
          if (scope.vars.has(v.name)) this.fail(v.pos, `variable [${v.name}] is already defined`);
          const init = v.init ? this.store(this.expr(v.init, scope), type) : null;
          const slot = this.slots++;
          scope.vars.set(v.name, { slot, type, readOnly: false });
          inits.push([slot, init, v.pos]);
        }
        const dflt = type === 'int' || type === 'double' ? 0 : type === 'bool' ? false : null;
        return (f) => {
          for (let i = 0; i < inits.length; i++) {
            const [slot, init, p] = inits[i]!;
            f.pos = p;
            f.s[slot] = init ? init(f) : dflt;
          }
          return NORMAL;
        };
      }
      case 'if': {
        const test = this.cond(st.test, scope);
        const then = this.stmt(st.then, new Scope(scope));
        const els = st.else ? this.stmt(st.else, new Scope(scope)) : null;
        return (f) => {
          f.pos = pos;
          if (test(f)) return then(f);
          return els ? els(f) : NORMAL;
        };
      }
      case 'return': {
        const e = st.e ? this.expr(st.e, scope).e : null;
        return (f) => {
          f.pos = pos;
          f.ret = e ? e(f) : null;
          return RETURN;
        };
      }
      case 'throw': {
        const e = this.expr(st.e, scope).e;
        return (f) => {
          f.pos = pos;
          throw new RuntimeError('exception', str(e(f)));
        };
      }
      case 'block':
        if (st.body.length === 0) return () => NORMAL;
        return this.block(st.body, new Scope(scope));
      case 'break':
      case 'continue':
        if (this.loopDepth === 0) this.fail(pos, `invalid ${st.s} statement: not inside a loop`);
        return st.s === 'break' ? () => BREAK : () => CONTINUE;
      case 'foreach': {
        const inner = new Scope(scope);
        const iter = this.expr(st.iter, scope).e;
        const slot = this.slots++;
        inner.vars.set(st.name, { slot, type: typeOfDecl(st.type), readOnly: false });
        this.loopDepth++;
        const body = this.stmt(st.body, inner);
        this.loopDepth--;
        const tick = this.tick(pos);
        return (f) => {
          f.pos = pos;
          const items = iterate(iter(f));
          for (let i = 0; i < items.length; i++) {
            tick(f);
            f.s[slot] = items[i];
            const c = body(f);
            if (c === BREAK) break;
            if (c === RETURN) return c;
          }
          return NORMAL;
        };
      }
      case 'for': {
        const inner = new Scope(scope);
        const init = st.init ? this.stmt(st.init, inner) : null;
        const test = st.test ? this.cond(st.test, inner) : null;
        const update = st.update.map((u) => this.expr(u, inner).e);
        this.loopDepth++;
        const body = this.stmt(st.body, new Scope(inner));
        this.loopDepth--;
        const tick = this.tick(pos);
        return (f) => {
          if (init) init(f);
          for (;;) {
            f.pos = pos;
            if (test && !test(f)) break;
            tick(f);
            const c = body(f);
            if (c === BREAK) break;
            if (c === RETURN) return c;
            for (let i = 0; i < update.length; i++) update[i]!(f);
          }
          return NORMAL;
        };
      }
      case 'while':
      case 'do': {
        const test = this.cond(st.test, scope);
        this.loopDepth++;
        const body = this.stmt(st.body, new Scope(scope));
        this.loopDepth--;
        const tick = this.tick(pos);
        const isDo = st.s === 'do';
        return (f) => {
          let first = isDo;
          for (;;) {
            f.pos = pos;
            if (!first && !test(f)) break;
            first = false;
            tick(f);
            const c = body(f);
            if (c === BREAK) break;
            if (c === RETURN) return c;
          }
          return NORMAL;
        };
      }
    }
  }

  /** a boolean condition */
  private cond(n: Node, scope: Scope): (f: Frame) => boolean {
    const c = this.expr(n, scope);
    if (c.t === 'bool') return c.e as (f: Frame) => boolean;
    const e = c.e;
    return (f) => truthy(e(f));
  }

  /** converts a value for a store into a typed local (int locals truncate, typed casts check) */
  private store(c: Compiled, t: T): E {
    const e = c.e;
    if (t === 'double') {
      return (f) => {
        const v = e(f);
        if (typeof v === 'number') return dbl(v);
        if (v instanceof JDouble) return v;
        if (v === null || v === undefined) throw new RuntimeError('null_pointer_exception', 'Cannot unbox a null value to a primitive double');
        throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to double`);
      };
    }
    if (t === 'int' && c.t !== 'int') {
      return (f) => {
        const v = e(f);
        if (typeof v === 'number') return Math.trunc(v);
        if (v === null || v === undefined) throw new RuntimeError('null_pointer_exception', 'Cannot unbox a null value to a primitive int');
        throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to int`);
      };
    }
    return e;
  }

  // ---------------------------------------------------------------------------------- expressions

  private expr(n: Node, scope: Scope): Compiled {
    const rt = this.rt;
    const pos = n.pos;
    switch (n.k) {
      case 'lit': {
        const v = n.dbl && typeof n.v === 'number' && Number.isInteger(n.v) ? new JDouble(n.v) : n.v;
        const t: T = typeof n.v === 'number' ? (n.dbl ? 'double' : 'int') : typeof v === 'boolean' ? 'bool' : typeof v === 'string' ? 'string' : 'any';
        return { e: () => v, t };
      }
      case 'regex': {
        if (!rt.regexEnabled) {
          this.fail(pos, "Regexes are disabled. Set [script.painless.regex.enabled] to [true] in elasticsearch.yaml to allow them. Be careful though, regexes break out of Painless's protection against deep recursion and long loops.");
        }
        let re: UserRegex;
        try {
          // core's one regex implementation (linear-time automaton; guarded backtracking for lookaheads)
          re = UserRegex.java(n.src, { flags: n.flags });
        } catch (e) {
          this.fail(pos, `invalid regular expression: ${(e as Error).message}`);
        }
        return { e: () => re, t: 'any' };
      }
      case 'var': {
        const v = scope.lookup(n.name);
        if (v) {
          const slot = v.slot;
          return { e: (f) => f.s[slot], t: v.type };
        }
        if (STATICS[n.name] || STATIC_FIELDS[n.name]) this.fail(pos, `cannot use a type [${n.name}] as a value`);
        this.fail(pos, `cannot resolve symbol [${n.name}]`);
      }
      // eslint-disable-next-line no-fallthrough
      case 'member': {
        if (n.obj.k === 'var' && !scope.lookup(n.obj.name) && STATIC_FIELDS[n.obj.name]) {
          const fields = STATIC_FIELDS[n.obj.name]!;
          if (!(n.name in fields)) this.fail(pos, `Unknown field [${n.name}] for type [${n.obj.name}].`);
          const v = fields[n.name];
          return { e: () => v, t: typeof v === 'number' ? (Number.isInteger(v) && n.obj.name !== 'Double' && n.obj.name !== 'Math' ? 'int' : 'double') : 'any' };
        }
        const obj = this.expr(n.obj, scope).e;
        const name = n.name;
        const safe = n.safe;
        return {
          e: (f) => {
            const o = obj(f);
            if (o === null || o === undefined) {
              if (safe) return null;
              f.pos = pos;
              throw npe(`Object.get("${name}")`);
            }
            f.pos = pos;
            return getMember(o, name);
          },
          t: 'any',
        };
      }
      case 'index': {
        const obj = this.expr(n.obj, scope).e;
        const idx = this.expr(n.idx, scope).e;
        return {
          e: (f) => {
            const o = obj(f);
            const i = idx(f);
            f.pos = pos;
            if (o === null || o === undefined) throw npe('Object.get(Object)');
            return getIndex(o, i);
          },
          t: 'any',
        };
      }
      case 'call':
        return this.call(n, scope);
      case 'fcall': {
        if (!this.functions.has(n.name)) this.fail(pos, `Unknown call [${n.name}] with [${n.args.length}] arguments.`);
        const slot = scope.lookup(n.name)!.slot;
        const args = n.args.map((a) => this.expr(a, scope).e);
        const name = n.name;
        return {
          e: (f) => {
            const vals = args.map((a) => unbox(a(f)));
            const fn = f.s[slot];
            f.pos = pos;
            if (typeof fn !== 'function') throw new RuntimeError('illegal_argument_exception', `Unknown call [${name}] with [${vals.length}] arguments.`);
            return (fn as (...a: unknown[]) => unknown)(...vals);
          },
          t: 'any',
        };
      }
      case 'unary': {
        const a = this.expr(n.arg, scope);
        const e = a.e;
        if (n.op === '!') return { e: (f) => !truthy(e(f)), t: 'bool' };
        if (n.op === '-') {
          return {
            e: (f) => {
              f.pos = pos;
              const v = e(f);
              return v instanceof JDouble ? new JDouble(-v.v) : -num(v, '-');
            },
            t: a.t,
          };
        }
        if (n.op === '~') return { e: (f) => (f.pos = pos, ~num(e(f), '~')), t: 'int' };
        return { e: (f) => (f.pos = pos, e(f) instanceof JDouble ? e(f) : num(e(f), '+')), t: a.t };
      }
      case 'bin':
        return this.binary(n.op, this.expr(n.l, scope), this.expr(n.r, scope), pos);
      case 'cond': {
        const test = this.cond(n.test, scope);
        const a = this.expr(n.then, scope);
        const b = this.expr(n.else, scope);
        const ae = a.e;
        const be = b.e;
        return { e: (f) => (test(f) ? ae(f) : be(f)), t: a.t === b.t ? a.t : a.t === 'double' || b.t === 'double' ? 'double' : 'any' };
      }
      case 'elvis': {
        const l = this.expr(n.l, scope).e;
        const r = this.expr(n.r, scope).e;
        return {
          e: (f) => {
            const v = l(f);
            return v === null || v === undefined ? r(f) : v;
          },
          t: 'any',
        };
      }
      case 'assign':
        return this.assign(n.op, n.target, this.expr(n.value, scope), scope, pos);
      case 'update': {
        const one: Compiled = { e: () => 1, t: 'int' };
        const get = this.expr(n.target, scope).e;
        const set = this.assign(n.op === '++' ? '+=' : '-=', n.target, one, scope, pos).e;
        if (n.prefix) return { e: set, t: 'any' };
        return {
          e: (f) => {
            const old = get(f);
            set(f);
            return old;
          },
          t: 'any',
        };
      }
      case 'list': {
        const items = n.items.map((x) => this.expr(x, scope).e);
        return { e: (f) => items.map((x) => unbox(x(f))), t: 'any' };
      }
      case 'map': {
        const entries = n.entries.map(([k, v]) => [this.expr(k, scope).e, this.expr(v, scope).e] as const);
        return {
          e: (f) => {
            const o: Record<string, unknown> = {};
            for (const [k, v] of entries) setMember(o, str(k(f)), v(f));
            return o;
          },
          t: 'any',
        };
      }
      case 'new': {
        if (!KNOWN_CLASSES.has(n.cls)) this.fail(pos, `Not a type [${n.cls}].`);
        const args = n.args.map((a) => this.expr(a, scope).e);
        const cls = n.cls;
        return { e: (f) => (f.pos = pos, newObject(cls, args.map((a) => a(f)))), t: cls === 'String' ? 'string' : 'any' };
      }
      case 'newarray': {
        const fill = PRIMITIVES.has(n.cls) && n.cls !== 'def' ? (n.cls === 'boolean' ? false : 0) : null;
        if (n.items) {
          const items = n.items.map((x) => this.expr(x, scope).e);
          return { e: (f) => items.map((x) => x(f)), t: 'any' };
        }
        const size = this.expr(n.size!, scope).e;
        return {
          e: (f) => {
            const len = num(size(f), 'new');
            f.pos = pos;
            if (len < 0) throw new RuntimeError('negative_array_size_exception', String(len));
            if (len > MAX_LIST) throw new RuntimeError('circuit_breaking_exception', `array of [${len}] elements is too large`);
            return new Array(len).fill(fill);
          },
          t: 'any',
        };
      }
      case 'cast': {
        const a = this.expr(n.arg, scope).e;
        const cls = n.cls;
        return { e: (f) => (f.pos = pos, cast(cls, a(f))), t: typeOfDecl(cls) };
      }
      case 'instanceof': {
        const a = this.expr(n.l, scope).e;
        const cls = n.cls;
        return { e: (f) => instanceOf(a(f), cls), t: 'bool' };
      }
      case 'lambda': {
        const inner = new Scope(scope);
        const slots = n.params.map((p) => {
          const slot = this.slots++;
          inner.vars.set(p, { slot, type: 'any', readOnly: false });
          return slot;
        });
        const saveDepth = this.loopDepth;
        this.loopDepth = 0;
        let run: (f: Frame) => unknown;
        if (n.expr) {
          const e = this.expr(n.expr, inner).e;
          run = e;
        } else {
          const body = this.block(n.body.length > 0 ? n.body : [{ s: 'block', body: [], pos }], inner);
          run = (f) => {
            const c = body(f);
            const r = c === RETURN ? f.ret : null;
            f.ret = null;
            return r;
          };
        }
        this.loopDepth = saveDepth;
        const arity = slots.length;
        return {
          e: (f) =>
            new PainlessLambda(arity, (args) => {
              for (let i = 0; i < arity; i++) f.s[slots[i]!] = args[i] ?? null;
              return run(f);
            }),
          t: 'any',
        };
      }
      case 'mref': {
        const cls = n.cls;
        const name = n.name;
        const v = scope.lookup(cls);
        if (v) {
          const slot = v.slot;
          return { e: (f) => new PainlessLambda(-1, (args) => callMethod(f.s[slot], name, args, rt)), t: 'any' };
        }
        const statics = STATICS[cls];
        if (statics && statics[name]) {
          const fn = statics[name]!;
          return { e: () => new PainlessLambda(-1, (args) => fn(...args)), t: 'any' };
        }
        if (name === 'new' && KNOWN_CLASSES.has(cls)) return { e: () => new PainlessLambda(-1, (args) => newObject(cls, args)), t: 'any' };
        // Type::instanceMethod, e.g. String::length
        return { e: () => new PainlessLambda(-1, (args) => callMethod(args[0], name, args.slice(1), rt)), t: 'any' };
      }
    }
  }

  private call(n: Extract<Node, { k: 'call' }>, scope: Scope): Compiled {
    const rt = this.rt;
    const pos = n.pos;
    const args = n.args.map((a) => this.expr(a, scope));
    const argE = args.map((a) => a.e);
    const name = n.name;
    if (n.obj.k === 'var' && !scope.lookup(n.obj.name) && (STATICS[n.obj.name] || STATIC_FIELDS[n.obj.name])) {
      const cls = n.obj.name;
      const fn = STATICS[cls]?.[name];
      if (!fn) this.fail(pos, `Unknown call [${name}] with [${n.args.length}] arguments on type [${cls}].`);
      const t: T = cls === 'Math' && !['max', 'min', 'abs', 'round', 'floorDiv', 'floorMod'].includes(name) ? 'double' : cls === 'Integer' || cls === 'Long' ? 'int' : cls === 'Double' ? 'double' : cls === 'String' ? 'string' : 'any';
      const box = t === 'double' ? (v: unknown) => (typeof v === 'number' ? dbl(v) : v) : (v: unknown) => v;
      if (argE.length === 1) {
        const a0 = argE[0]!;
        return { e: (f) => (f.pos = pos, box(fn(unbox(a0(f))))), t };
      }
      if (argE.length === 2) {
        const a0 = argE[0]!;
        const a1 = argE[1]!;
        return { e: (f) => (f.pos = pos, box(fn(unbox(a0(f)), unbox(a1(f))))), t };
      }
      return { e: (f) => (f.pos = pos, box(fn(...argE.map((a) => unbox(a(f)))))), t };
    }
    const obj = this.expr(n.obj, scope).e;
    const safe = n.safe;
    const t: T = name === 'size' || name === 'length' || name === 'indexOf' || name === 'intValue' || name === 'longValue' ? 'int' : name === 'doubleValue' ? 'double' : name === 'toString' || name === 'substring' || name === 'toLowerCase' || name === 'toUpperCase' || name === 'trim' ? 'string' : name === 'isEmpty' || name === 'contains' || name === 'containsKey' || name === 'startsWith' || name === 'endsWith' || name === 'equals' ? 'bool' : 'any';
    return {
      e: (f) => {
        const o = obj(f);
        if (o === null || o === undefined) {
          if (safe) return null;
          f.pos = pos;
          throw npe(`Object.${name}()`);
        }
        const vals = argE.length === 0 ? [] : argE.map((a) => a(f));
        f.pos = pos;
        const r = callMethod(o, name, vals, rt);
        if (Array.isArray(r) && r.length > MAX_LIST) throw new RuntimeError('circuit_breaking_exception', `list of [${r.length}] elements is too large`);
        if (Array.isArray(o) && o.length > MAX_LIST) throw new RuntimeError('circuit_breaking_exception', `list of [${o.length}] elements is too large`);
        if (typeof r === 'string' && r.length > MAX_STRING) throw new RuntimeError('circuit_breaking_exception', `string of [${r.length}] characters is too large`);
        return r;
      },
      t,
    };
  }

  private binary(op: string, lc: Compiled, rc: Compiled, pos: number): Compiled {
    const l = lc.e;
    const r = rc.e;
    switch (op) {
      case '&&':
        return { e: (f) => truthy(l(f)) && truthy(r(f)), t: 'bool' };
      case '||':
        return { e: (f) => truthy(l(f)) || truthy(r(f)), t: 'bool' };
      case '==':
        return { e: (f) => painlessEquals(l(f), r(f)), t: 'bool' };
      case '!=':
        return { e: (f) => !painlessEquals(l(f), r(f)), t: 'bool' };
      case '===':
        return { e: (f) => (unbox(l(f)) ?? null) === (unbox(r(f)) ?? null), t: 'bool' };
      case '!==':
        return { e: (f) => (unbox(l(f)) ?? null) !== (unbox(r(f)) ?? null), t: 'bool' };
      case '=~':
      case '==~': {
        const full = op === '==~';
        return {
          e: (f) => {
            const a = l(f);
            const b = r(f);
            f.pos = pos;
            if (a === null || a === undefined) throw npe('Pattern.matcher(CharSequence)');
            if (!(b instanceof UserRegex)) throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(b)} to java.util.regex.Pattern`);
            const s = str(a);
            return full ? b.matches(s) : b.test(s);
          },
          t: 'bool',
        };
      }
      case '<':
      case '>':
      case '<=':
      case '>=':
        return {
          e: (f) => {
            const a = l(f);
            const b = r(f);
            f.pos = pos;
            const x = num(a, op);
            const y = num(b, op);
            return op === '<' ? x < y : op === '>' ? x > y : op === '<=' ? x <= y : x >= y;
          },
          t: 'bool',
        };
    }
    return this.arith(op, lc, rc, pos);
  }

  private arith(op: string, lc: Compiled, rc: Compiled, pos: number): Compiled {
    const l = lc.e;
    const r = rc.e;
    const dblStatic = lc.t === 'double' || rc.t === 'double';
    const bothInt = lc.t === 'int' && rc.t === 'int';
    const t: T = dblStatic ? 'double' : bothInt ? 'int' : 'any';
    if (op === '+' && (lc.t === 'string' || rc.t === 'string')) {
      return { e: (f) => concat(str(l(f)), str(r(f)), f, pos), t: 'string' };
    }
    if (op === '&' || op === '|' || op === '^') {
      return {
        e: (f) => {
          const a = l(f);
          const b = r(f);
          if (typeof a === 'boolean' && typeof b === 'boolean') return op === '&' ? a && b : op === '|' ? a || b : a !== b;
          f.pos = pos;
          const x = num(a, op);
          const y = num(b, op);
          return op === '&' ? x & y : op === '|' ? x | y : x ^ y;
        },
        t: lc.t === 'bool' ? 'bool' : 'int',
      };
    }
    if (op === '<<' || op === '>>' || op === '>>>') {
      return {
        e: (f) => {
          f.pos = pos;
          const x = num(l(f), op);
          const y = num(r(f), op);
          return op === '<<' ? x << y : op === '>>' ? x >> y : x >>> y;
        },
        t: 'int',
      };
    }
    const calc = (x: number, y: number, isDbl: boolean): unknown => {
      switch (op) {
        case '+':
          return isDbl ? dbl(x + y) : x + y;
        case '-':
          return isDbl ? dbl(x - y) : x - y;
        case '*':
          return isDbl ? dbl(x * y) : x * y;
        case '/':
          if (isDbl) return dbl(x / y);
          if (Number.isInteger(x) && Number.isInteger(y)) {
            if (y === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
            return Math.trunc(x / y);
          }
          return x / y;
        case '%':
          if (isDbl) return dbl(x % y);
          if (Number.isInteger(x) && Number.isInteger(y) && y === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
          return x % y;
      }
      throw new RuntimeError('illegal_argument_exception', `unexpected operator [${op}]`);
    };
    if (!['+', '-', '*', '/', '%'].includes(op)) this.fail(pos, `unexpected operator [${op}]`);
    return {
      e: (f) => {
        const a = l(f);
        const b = r(f);
        if (typeof a === 'number' && typeof b === 'number') {
          // a fractional operand is a double: 2.5 * 2 is 5.0, and 5.0 / 4 is 1.25
          const fractional = !Number.isInteger(a) || !Number.isInteger(b);
          if (!dblStatic && !fractional && (op === '+' || op === '-' || op === '*')) return op === '+' ? a + b : op === '-' ? a - b : a * b;
          f.pos = pos;
          return calc(a, b, dblStatic || fractional);
        }
        f.pos = pos;
        if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return concat(str(a), str(b), f, pos);
        const x = num(a, op);
        const y = num(b, op);
        return calc(x, y, dblStatic || a instanceof JDouble || b instanceof JDouble || !Number.isInteger(x) || !Number.isInteger(y));
      },
      t,
    };
  }

  private assign(op: string, target: Node, value: Compiled, scope: Scope, pos: number): Compiled {
    let val = value;
    if (op !== '=') {
      const cur = this.expr(target, scope);
      val = this.arith(op.slice(0, -1), cur, value, pos);
    }
    if (target.k === 'var') {
      const v = scope.lookup(target.name);
      if (!v) this.fail(target.pos, `cannot resolve symbol [${target.name}]`);
      if (v.readOnly) this.fail(target.pos, `invalid assignment: cannot assign a value to read-only variable [${target.name}]`);
      const slot = v.slot;
      const e = this.store(val, v.type);
      return { e: (f) => (f.s[slot] = e(f)), t: v.type };
    }
    const e = val.e;
    if (target.k === 'member') {
      const obj = this.expr(target.obj, scope).e;
      const name = target.name;
      return {
        e: (f) => {
          const o = obj(f);
          const v = e(f);
          f.pos = pos;
          if (o === null || o === undefined) throw npe(`Object.put("${name}")`);
          setMember(o, name, v);
          return v;
        },
        t: val.t,
      };
    }
    if (target.k === 'index') {
      const obj = this.expr(target.obj, scope).e;
      const idx = this.expr(target.idx, scope).e;
      return {
        e: (f) => {
          const o = obj(f);
          const i = idx(f);
          const v = e(f);
          f.pos = pos;
          if (o === null || o === undefined) throw npe('Object.put(Object, Object)');
          setIndex(o, i, v);
          return v;
        },
        t: val.t,
      };
    }
    this.fail(pos, 'invalid assignment: cannot assign a value to a non-variable');
  }
}

function concat(a: string, b: string, f: Frame, pos: number): string {
  if (a.length + b.length > MAX_STRING) {
    f.pos = pos;
    throw new RuntimeError('circuit_breaking_exception', `string of [${a.length + b.length}] characters is too large`);
  }
  return a + b;
}
