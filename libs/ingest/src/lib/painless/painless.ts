/**
 * A small, sandboxed interpreter for the Painless subset used in ingest `if` conditions and one-line
 * `script` processors. Source is parsed once into an AST (at PUT time); evaluation walks the AST against a
 * whitelisted set of operations and methods. No eval, no new Function, no access to JS globals.
 *
 * Supported: literals (numbers, 'strings', "strings", true/false/null, [list], [k: v] maps), `ctx`, `params`,
 * local variables (`def x = ...`, typed declarations), member access `a.b`, null-safe `a?.b`, index `a['b']`,
 * method calls on strings/maps/lists/numbers, a few statics (Math, Integer, Long, Double, String, Boolean,
 * Objects), unary `! - +`, arithmetic, comparisons, `== != === !==`, `&& ||`, ternary, elvis `?:`,
 * `instanceof`, assignments (`= += -= *= /= %=`), `++`/`--`, `if/else`, `return`, `for (x : list)` and
 * `for (def x : list)`, blocks, `new ArrayList()`/`new HashMap()`.
 */
import { EsError } from '@strata/core-common';

// ------------------------------------------------------------------------------------------ lexer

type Tok =
  | { t: 'num'; v: number; pos: number; dbl?: boolean }
  | { t: 'str'; v: string; pos: number }
  | { t: 'id'; v: string; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 're'; v: RegExp; pos: number }
  | { t: 'eof'; pos: number };

const OPS = [
  '==~', '===', '!==', '?.', '?:', '=~', '==', '!=', '<=', '>=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=', '%=', '->',
  '+', '-', '*', '/', '%', '<', '>', '!', '=', '(', ')', '[', ']', '{', '}', '.', ',', ';', ':', '?',
];

function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e < 0 ? src.length : e + 2;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0x[0-9a-fA-F]+|\d*\.?\d+(?:[eE][+-]?\d+)?)[lLfFdD]?/.exec(src.slice(i))!;
      let txt = m[0];
      if (/[lLfFdD]$/.test(txt) && !txt.startsWith('0x')) txt = txt.slice(0, -1);
      out.push({ t: 'num', v: Number(txt), pos: i, dbl: /[.eE]/.test(txt) && !txt.startsWith('0x') || /[fFdD]$/.test(m[0]) });
      i += m[0].length;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== c) {
        if (src[j] === '\\') {
          const n = src[j + 1];
          s += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : n;
          j += 2;
        } else s += src[j++];
      }
      if (j >= src.length) throw compileError(src, i, 'unterminated string');
      out.push({ t: 'str', v: s, pos: i });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i))!;
      out.push({ t: 'id', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    if (c === '/') {
      const prev = out[out.length - 1];
      if (prev && prev.t === 'op' && (prev.v === '=~' || prev.v === '==~' || prev.v === '(' || prev.v === ',')) {
        let j = i + 1;
        let body = '';
        while (j < src.length && src[j] !== '/') {
          if (src[j] === '\\') {
            body += src[j] + (src[j + 1] ?? '');
            j += 2;
          } else body += src[j++];
        }
        if (j >= src.length) throw compileError(src, i, 'unterminated regex');
        j++;
        let flags = '';
        while (j < src.length && /[cilmsuxU]/.test(src[j])) flags += src[j++];
        let re: RegExp;
        try {
          const jsFlags = (flags.includes('i') ? 'i' : '') + (flags.includes('m') ? 'm' : '') + (flags.includes('s') ? 's' : '');
          re = new RegExp(body, jsFlags);
        } catch (e) {
          throw compileError(src, i, `invalid regex: ${(e as Error).message}`);
        }
        out.push({ t: 're', v: re, pos: i });
        i = j;
        continue;
      }
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw compileError(src, i, `unexpected character [${c}]`);
    out.push({ t: 'op', v: op, pos: i });
    i += op.length;
  }
  out.push({ t: 'eof', pos: src.length });
  return out;
}

// ------------------------------------------------------------------------------------------ AST

type Node =
  | { k: 'lit'; v: unknown; dbl?: boolean }
  | { k: 'var'; name: string; pos: number }
  | { k: 'member'; obj: Node; name: string; safe: boolean; pos: number }
  | { k: 'index'; obj: Node; idx: Node; safe: boolean; pos: number }
  | { k: 'call'; obj: Node | null; name: string; args: Node[]; safe: boolean; pos: number }
  | { k: 'unary'; op: string; arg: Node; pos: number }
  | { k: 'bin'; op: string; l: Node; r: Node; pos: number }
  | { k: 'cond'; test: Node; then: Node; else: Node }
  | { k: 'elvis'; l: Node; r: Node }
  | { k: 'assign'; op: string; target: Node; value: Node; pos: number }
  | { k: 'update'; op: string; prefix: boolean; target: Node; pos: number }
  | { k: 'list'; items: Node[] }
  | { k: 'map'; entries: Array<[Node, Node]> }
  | { k: 'new'; cls: string; args: Node[]; pos: number }
  | { k: 'instanceof'; l: Node; cls: string };

type Stmt =
  | { s: 'expr'; e: Node }
  | { s: 'decl'; name: string; init?: Node }
  | { s: 'if'; test: Node; then: Stmt; else?: Stmt }
  | { s: 'return'; e?: Node }
  | { s: 'block'; body: Stmt[] }
  | { s: 'foreach'; name: string; iter: Node; body: Stmt }
  | { s: 'for'; init?: Stmt; test?: Node; update?: Node; body: Stmt }
  | { s: 'while'; test: Node; body: Stmt }
  | { s: 'break' }
  | { s: 'continue' };

const TYPES = new Set([
  'def', 'var', 'String', 'int', 'long', 'double', 'float', 'boolean', 'short', 'byte', 'char', 'Map', 'List',
  'Object', 'Integer', 'Long', 'Double', 'Float', 'Boolean', 'HashMap', 'ArrayList', 'Number',
]);

class Parser {
  private i = 0;
  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
  ) {}

  private peek(o = 0): Tok {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)];
  }
  private isOp(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'op' && t.v === v;
  }
  private isId(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'id' && t.v === v;
  }
  private eat(v: string): Tok {
    const t = this.peek();
    if (t.t !== 'op' || t.v !== v) throw compileError(this.src, t.pos, `expected [${v}] but found [${tokText(t)}]`);
    this.i++;
    return t;
  }
  private ident(): string {
    const t = this.peek();
    if (t.t !== 'id') throw compileError(this.src, t.pos, `expected an identifier but found [${tokText(t)}]`);
    this.i++;
    return t.v;
  }

  program(): Stmt[] {
    const out: Stmt[] = [];
    while (this.peek().t !== 'eof') {
      if (this.isOp(';')) {
        this.i++;
        continue;
      }
      out.push(this.statement());
    }
    return out;
  }

  private statement(): Stmt {
    if (this.isOp('{')) {
      this.i++;
      const body: Stmt[] = [];
      while (!this.isOp('}')) {
        if (this.peek().t === 'eof') throw compileError(this.src, this.peek().pos, 'unexpected end of script');
        if (this.isOp(';')) {
          this.i++;
          continue;
        }
        body.push(this.statement());
      }
      this.i++;
      return { s: 'block', body };
    }
    if (this.isId('if')) {
      this.i++;
      this.eat('(');
      const test = this.expr();
      this.eat(')');
      const then = this.statement();
      let els: Stmt | undefined;
      if (this.isId('else')) {
        this.i++;
        els = this.statement();
      }
      return { s: 'if', test, then, else: els };
    }
    if (this.isId('for')) {
      this.i++;
      this.eat('(');
      const save = this.i;
      if (this.peek().t === 'id' && TYPES.has((this.peek() as { v: string }).v) && this.peek(1).t === 'id') this.i++;
      if (this.peek().t === 'id' && this.isOp(':', 1)) {
        const name = this.ident();
        this.i++;
        const iter = this.expr();
        this.eat(')');
        const body = this.statement();
        return { s: 'foreach', name, iter, body };
      }
      this.i = save;
      let init: Stmt | undefined;
      if (!this.isOp(';')) init = this.statement();
      else this.i++;
      const test = this.isOp(';') ? undefined : this.expr();
      this.eat(';');
      const update = this.isOp(')') ? undefined : this.expr();
      this.eat(')');
      const body = this.statement();
      return { s: 'for', init, test, update, body };
    }
    if (this.isId('while')) {
      this.i++;
      this.eat('(');
      const test = this.expr();
      this.eat(')');
      return { s: 'while', test, body: this.statement() };
    }
    if (this.isId('break') || this.isId('continue')) {
      const kind = (this.peek() as { v: string }).v as 'break' | 'continue';
      this.i++;
      this.semi();
      return { s: kind };
    }
    if (this.isId('return')) {
      this.i++;
      if (this.isOp(';') || this.isOp('}') || this.peek().t === 'eof') {
        this.semi();
        return { s: 'return' };
      }
      const e = this.expr();
      this.semi();
      return { s: 'return', e };
    }
    const t = this.peek();
    if (t.t === 'id' && TYPES.has(t.v)) {
      // declaration: Type [<generics>] name [= expr]
      let j = 1;
      if (this.isOp('<', 1)) {
        let depth = 0;
        for (;;) {
          const x = this.peek(j);
          if (x.t === 'eof') break;
          if (x.t === 'op' && x.v === '<') depth++;
          if (x.t === 'op' && x.v === '>') depth--;
          j++;
          if (depth === 0) break;
        }
      }
      if (this.peek(j).t === 'id') {
        this.i += j;
        const name = this.ident();
        let init: Node | undefined;
        if (this.isOp('=')) {
          this.i++;
          init = this.expr();
        }
        this.semi();
        return { s: 'decl', name, init };
      }
    }
    const e = this.expr();
    this.semi();
    return { s: 'expr', e };
  }

  private semi(): void {
    if (this.isOp(';')) this.i++;
    else if (!this.isOp('}') && this.peek().t !== 'eof') {
      throw compileError(this.src, this.peek().pos, `unexpected token [${tokText(this.peek())}]`);
    }
  }

  expr(): Node {
    return this.assignment();
  }

  private assignment(): Node {
    const left = this.ternary();
    const t = this.peek();
    if (t.t === 'op' && ['=', '+=', '-=', '*=', '/=', '%='].includes(t.v)) {
      if (left.k !== 'var' && left.k !== 'member' && left.k !== 'index') {
        throw compileError(this.src, t.pos, 'invalid assignment target');
      }
      this.i++;
      const value = this.assignment();
      return { k: 'assign', op: t.v, target: left, value, pos: t.pos };
    }
    return left;
  }

  private ternary(): Node {
    const test = this.binary(0);
    if (this.isOp('?:')) {
      this.i++;
      const r = this.ternary();
      return { k: 'elvis', l: test, r };
    }
    if (this.isOp('?')) {
      this.i++;
      const then = this.ternary();
      this.eat(':');
      const els = this.ternary();
      return { k: 'cond', test, then, else: els };
    }
    return test;
  }

  private static readonly PREC: Record<string, number> = {
    '||': 1, '&&': 2, '==': 3, '!=': 3, '===': 3, '!==': 3, '=~': 3, '==~': 3, '<': 4, '>': 4, '<=': 4, '>=': 4, instanceof: 4,
    '+': 5, '-': 5, '*': 6, '/': 6, '%': 6,
  };

  private binary(minPrec: number): Node {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const op = t.t === 'op' ? t.v : t.t === 'id' && t.v === 'instanceof' ? 'instanceof' : undefined;
      const prec = op !== undefined ? Parser.PREC[op] : undefined;
      if (op === undefined || prec === undefined || prec < minPrec) break;
      this.i++;
      if (op === 'instanceof') {
        const cls = this.ident();
        left = { k: 'instanceof', l: left, cls };
        continue;
      }
      const right = this.binary(prec + 1);
      left = { k: 'bin', op, l: left, r: right, pos: t.pos };
    }
    return left;
  }

  private unary(): Node {
    const t = this.peek();
    if (t.t === 'op' && (t.v === '!' || t.v === '-' || t.v === '+')) {
      this.i++;
      return { k: 'unary', op: t.v, arg: this.unary(), pos: t.pos };
    }
    if (t.t === 'op' && (t.v === '++' || t.v === '--')) {
      this.i++;
      const target = this.unary();
      return { k: 'update', op: t.v, prefix: true, target, pos: t.pos };
    }
    // cast: (Type) expr
    if (t.t === 'op' && t.v === '(' && this.peek(1).t === 'id' && TYPES.has((this.peek(1) as { v: string }).v) && this.isOp(')', 2)) {
      this.i += 3;
      const cls = (this.toks[this.i - 2] as { v: string }).v;
      const arg = this.unary();
      return { k: 'call', obj: null, name: `__cast_${cls}`, args: [arg], safe: false, pos: t.pos };
    }
    return this.postfix(this.primary());
  }

  private postfix(node: Node): Node {
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op') return node;
      if (t.v === '.' || t.v === '?.') {
        this.i++;
        const name = this.ident();
        const safe = t.v === '?.';
        if (this.isOp('(')) {
          node = { k: 'call', obj: node, name, args: this.args(), safe, pos: t.pos };
        } else {
          node = { k: 'member', obj: node, name, safe, pos: t.pos };
        }
      } else if (t.v === '[') {
        this.i++;
        const idx = this.expr();
        this.eat(']');
        node = { k: 'index', obj: node, idx, safe: false, pos: t.pos };
      } else if (t.v === '++' || t.v === '--') {
        this.i++;
        node = { k: 'update', op: t.v, prefix: false, target: node, pos: t.pos };
      } else return node;
    }
  }

  private args(): Node[] {
    this.eat('(');
    const out: Node[] = [];
    while (!this.isOp(')')) {
      out.push(this.expr());
      if (!this.isOp(')')) this.eat(',');
    }
    this.i++;
    return out;
  }

  private primary(): Node {
    const t = this.peek();
    if (t.t === 'num') {
      this.i++;
      return { k: 'lit', v: t.v, dbl: t.dbl };
    }
    if (t.t === 'str') {
      this.i++;
      return { k: 'lit', v: t.v };
    }
    if (t.t === 're') {
      this.i++;
      return { k: 'lit', v: t.v };
    }
    if (t.t === 'op' && t.v === '(') {
      this.i++;
      const e = this.expr();
      this.eat(')');
      return e;
    }
    if (t.t === 'op' && t.v === '[') {
      this.i++;
      if (this.isOp(':')) {
        this.i++;
        this.eat(']');
        return { k: 'map', entries: [] };
      }
      if (this.isOp(']')) {
        this.i++;
        return { k: 'list', items: [] };
      }
      const first = this.expr();
      if (this.isOp(':')) {
        this.i++;
        const entries: Array<[Node, Node]> = [[first, this.expr()]];
        while (this.isOp(',')) {
          this.i++;
          const k = this.expr();
          this.eat(':');
          entries.push([k, this.expr()]);
        }
        this.eat(']');
        return { k: 'map', entries };
      }
      const items = [first];
      while (this.isOp(',')) {
        this.i++;
        items.push(this.expr());
      }
      this.eat(']');
      return { k: 'list', items };
    }
    if (t.t === 'id') {
      this.i++;
      if (t.v === 'true') return { k: 'lit', v: true };
      if (t.v === 'false') return { k: 'lit', v: false };
      if (t.v === 'null') return { k: 'lit', v: null };
      if (t.v === 'new') {
        const cls = this.ident();
        if (this.isOp('<')) {
          while (!this.isOp('>') && this.peek().t !== 'eof') this.i++;
          this.eat('>');
        }
        return { k: 'new', cls, args: this.args(), pos: t.pos };
      }
      if (this.isOp('(')) {
        return { k: 'call', obj: null, name: t.v, args: this.args(), safe: false, pos: t.pos };
      }
      return { k: 'var', name: t.v, pos: t.pos };
    }
    throw compileError(this.src, t.pos, `unexpected token [${tokText(t)}]`);
  }
}

function tokText(t: Tok): string {
  return t.t === 'eof' ? '<EOF>' : String(t.v);
}

function toRegExp(v: unknown): RegExp {
  if (v instanceof RegExp) return v;
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to java.util.regex.Pattern`);
}

function compileError(src: string, pos: number, msg: string): EsError {
  return new EsError('script_exception', 400, 'compile error', {
    metadata: {
      script_stack: [src.slice(Math.max(0, pos - 25), pos + 25), ' '.repeat(Math.min(25, pos)) + '^---- HERE'],
      script: src,
      lang: 'painless',
      position: { offset: pos, start: Math.max(0, pos - 25), end: Math.min(src.length, pos + 25) },
    },
    cause: new EsError('illegal_argument_exception', 400, msg, { plain: true }),
  });
}

// ------------------------------------------------------------------------------------------ runtime

/** A host map the interpreter can read and write (ctx). */
export interface HostMap {
  get(key: string): unknown;
  put(key: string, value: unknown): unknown;
  containsKey(key: string): boolean;
  remove(key: string): unknown;
  keys(): string[];
}

export function isHostMap(v: unknown): v is HostMap {
  return v instanceof HostMapBase;
}

export abstract class HostMapBase implements HostMap {
  abstract get(key: string): unknown;
  abstract put(key: string, value: unknown): unknown;
  abstract containsKey(key: string): boolean;
  abstract remove(key: string): unknown;
  abstract keys(): string[];
}

class RuntimeError extends Error {
  constructor(
    readonly javaType: string,
    message: string,
  ) {
    super(message);
  }
}

class ReturnSignal {
  constructor(readonly value: unknown) {}
}

class LoopSignal {
  constructor(readonly kind: 'break' | 'continue') {}
}

type Scope = Map<string, unknown>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isHostMap(v);
}

function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  return 'java.util.HashMap';
}

function npe(what: string): RuntimeError {
  return new RuntimeError('null_pointer_exception', `Cannot invoke "${what}" because value is null`);
}

function getMember(obj: unknown, name: string): unknown {
  if (isHostMap(obj)) return obj.get(name) ?? null;
  if (isPlainObject(obj)) return Object.prototype.hasOwnProperty.call(obj, name) ? (obj[name] ?? null) : null;
  if (Array.isArray(obj)) {
    if (name === 'length') return obj.length;
    if (/^\d+$/.test(name)) return obj[Number(name)] ?? null;
  }
  if (typeof obj === 'string' && name === 'length') return obj.length;
  throw new RuntimeError('illegal_argument_exception', `dynamic getter [${typeName(obj)}, ${name}] not found`);
}

function setMember(obj: unknown, name: string, value: unknown): void {
  if (isHostMap(obj)) {
    obj.put(name, value);
    return;
  }
  if (isPlainObject(obj)) {
    if (name === '__proto__' || name === 'constructor' || name === 'prototype') {
      throw new RuntimeError('illegal_argument_exception', `illegal key [${name}]`);
    }
    obj[name] = value;
    return;
  }
  if (Array.isArray(obj) && /^\d+$/.test(name)) {
    setIndex(obj, Number(name), value);
    return;
  }
  throw new RuntimeError('illegal_argument_exception', `dynamic setter [${typeName(obj)}, ${name}] not found`);
}

function getIndex(obj: unknown, idx: unknown): unknown {
  if (Array.isArray(obj)) {
    if (typeof idx !== 'number') throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(idx)} to int`);
    const i = idx < 0 ? obj.length + idx : idx;
    if (i < 0 || i >= obj.length) {
      throw new RuntimeError('index_out_of_bounds_exception', `Index ${idx} out of bounds for length ${obj.length}`);
    }
    return obj[i];
  }
  return getMember(obj, String(idx));
}

function setIndex(obj: unknown, idx: unknown, value: unknown): void {
  if (Array.isArray(obj)) {
    const i = Number(idx);
    if (!Number.isInteger(i) || i < 0 || i >= obj.length) {
      throw new RuntimeError('index_out_of_bounds_exception', `Index ${String(idx)} out of bounds for length ${obj.length}`);
    }
    obj[i] = value;
    return;
  }
  setMember(obj, String(idx), value);
}

export function painlessEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => painlessEquals(x, b[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => painlessEquals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

function num(v: unknown, op: string): number {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined) throw npe(`Number.${op}`);
  throw new RuntimeError('class_cast_exception', `Cannot apply [${op}] operation to type [${typeName(v)}]`);
}

function arith(op: string, a: unknown, b: unknown): unknown {
  if (op === '+' && (typeof a === 'string' || typeof b === 'string')) return str(a) + str(b);
  const x = num(a, op);
  const y = num(b, op);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      if (Number.isInteger(x) && Number.isInteger(y)) {
        if (y === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
        return Math.trunc(x / y);
      }
      return x / y;
    case '%':
      if (Number.isInteger(x) && Number.isInteger(y) && y === 0) throw new RuntimeError('arithmetic_exception', '/ by zero');
      return x % y;
  }
  throw new RuntimeError('illegal_argument_exception', `unknown operator ${op}`);
}

function str(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return '[' + v.map(str).join(', ') + ']';
  if (isHostMap(v)) return '{' + v.keys().map((k) => `${k}=${str(v.get(k))}`).join(', ') + '}';
  if (typeof v === 'object') return '{' + Object.entries(v).map(([k, x]) => `${k}=${str(x)}`).join(', ') + '}';
  return String(v);
}

function truthy(v: unknown, what: string): boolean {
  if (typeof v === 'boolean') return v;
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to boolean in ${what}`);
}

function callMethod(obj: unknown, name: string, args: unknown[]): unknown {
  if (obj === null || obj === undefined) throw npe(`Object.${name}()`);
  const a0 = args[0];
  if (typeof obj === 'string') {
    switch (name) {
      case 'startsWith':
        return obj.startsWith(String(a0));
      case 'endsWith':
        return obj.endsWith(String(a0));
      case 'contains':
        return obj.includes(String(a0));
      case 'toLowerCase':
        return obj.toLowerCase();
      case 'toUpperCase':
        return obj.toUpperCase();
      case 'trim':
      case 'strip':
        return obj.trim();
      case 'length':
        return obj.length;
      case 'isEmpty':
        return obj.length === 0;
      case 'isBlank':
        return obj.trim().length === 0;
      case 'substring':
        if (num(a0, 'substring') < 0 || num(a0, 'substring') > obj.length || (args.length > 1 && num(args[1], 'substring') > obj.length)) {
          throw new RuntimeError('string_index_out_of_bounds_exception', `begin ${String(a0)}, end ${String(args[1] ?? obj.length)}, length ${obj.length}`);
        }
        return args.length > 1 ? obj.substring(num(a0, 'substring'), num(args[1], 'substring')) : obj.substring(num(a0, 'substring'));
      case 'indexOf':
        return obj.indexOf(String(a0), args.length > 1 ? num(args[1], 'indexOf') : 0);
      case 'lastIndexOf':
        return obj.lastIndexOf(String(a0));
      case 'equals':
        return obj === a0;
      case 'equalsIgnoreCase':
        return typeof a0 === 'string' && obj.toLowerCase() === a0.toLowerCase();
      case 'replace':
        return obj.split(String(a0)).join(String(args[1]));
      case 'charAt':
        return obj.charAt(num(a0, 'charAt'));
      case 'concat':
        return obj + String(a0);
      case 'compareTo':
        return obj < String(a0) ? -1 : obj > String(a0) ? 1 : 0;
      case 'splitOnToken':
        return obj.split(String(a0));
      case 'split':
        return obj.split(new RegExp(String(a0))).filter((x, i, arr) => !(x === '' && i === arr.length - 1));
      case 'toString':
        return obj;
      case 'hashCode': {
        let h = 0;
        for (let i = 0; i < obj.length; i++) h = (Math.imul(31, h) + obj.charCodeAt(i)) | 0;
        return h;
      }
    }
  } else if (Array.isArray(obj)) {
    switch (name) {
      case 'contains':
        return obj.some((x) => painlessEquals(x, a0));
      case 'size':
        return obj.length;
      case 'isEmpty':
        return obj.length === 0;
      case 'get':
        return getIndex(obj, a0);
      case 'add':
        if (args.length === 2) obj.splice(num(a0, 'add'), 0, args[1]);
        else obj.push(a0);
        return true;
      case 'addAll':
        if (Array.isArray(a0)) obj.push(...a0);
        return true;
      case 'set': {
        const prev = getIndex(obj, a0);
        setIndex(obj, a0, args[1]);
        return prev;
      }
      case 'remove':
        if (typeof a0 === 'number') return obj.splice(a0, 1)[0];
        {
          const i = obj.findIndex((x) => painlessEquals(x, a0));
          if (i >= 0) obj.splice(i, 1);
          return i >= 0;
        }
      case 'indexOf':
        return obj.findIndex((x) => painlessEquals(x, a0));
      case 'clear':
        obj.length = 0;
        return null;
      case 'join':
        return obj.map(str).join(String(a0));
      case 'toString':
        return str(obj);
      case 'equals':
        return painlessEquals(obj, a0);
    }
  } else if (isHostMap(obj) || isPlainObject(obj)) {
    const m = obj;
    const get = (k: string) => (isHostMap(m) ? m.get(k) : m[k]);
    const has = (k: string) => (isHostMap(m) ? m.containsKey(k) : Object.prototype.hasOwnProperty.call(m, k));
    const keys = () => (isHostMap(m) ? m.keys() : Object.keys(m));
    switch (name) {
      case 'containsKey':
        return has(String(a0));
      case 'get':
        return has(String(a0)) ? (get(String(a0)) ?? null) : null;
      case 'getOrDefault':
        return has(String(a0)) ? (get(String(a0)) ?? null) : args[1];
      case 'put': {
        const prev = has(String(a0)) ? get(String(a0)) : null;
        setMember(m, String(a0), args[1]);
        return prev ?? null;
      }
      case 'putAll':
        if (isPlainObject(a0)) for (const [k, v] of Object.entries(a0)) setMember(m, k, v);
        return null;
      case 'remove': {
        const k = String(a0);
        if (!has(k)) return null;
        const prev = get(k);
        if (isHostMap(m)) m.remove(k);
        else delete m[k];
        return prev ?? null;
      }
      case 'isEmpty':
        return keys().length === 0;
      case 'size':
        return keys().length;
      case 'keySet':
        return keys();
      case 'values':
        return keys().map(get);
      case 'containsValue':
        return keys().some((k) => painlessEquals(get(k), a0));
      case 'toString':
        return str(m);
      case 'equals':
        return painlessEquals(m, a0);
    }
  } else if (typeof obj === 'number') {
    switch (name) {
      case 'intValue':
      case 'longValue':
        return Math.trunc(obj);
      case 'doubleValue':
      case 'floatValue':
        return obj;
      case 'toString':
        return String(obj);
      case 'equals':
        return obj === a0;
      case 'compareTo':
        return obj < num(a0, 'compareTo') ? -1 : obj > (a0 as number) ? 1 : 0;
    }
  } else if (typeof obj === 'boolean') {
    if (name === 'toString') return String(obj);
    if (name === 'equals') return obj === a0;
    if (name === 'booleanValue') return obj;
  }
  throw new RuntimeError(
    'illegal_argument_exception',
    `dynamic method [${typeName(obj)}, ${name}/${args.length}] not found`,
  );
}

function parseNumber(s: unknown, integer: boolean): number {
  const t = String(s).trim();
  if (integer ? !/^[+-]?\d+$/.test(t) : !/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) {
    throw new RuntimeError('number_format_exception', `For input string: "${String(s)}"`);
  }
  return Number(t);
}

function callStatic(name: string, args: unknown[]): unknown {
  throw new RuntimeError('illegal_argument_exception', `Unknown call [${name}] with [${args.length}] arguments.`);
}

const STATICS: Record<string, Record<string, (...a: unknown[]) => unknown>> = {
  Math: {
    max: (a, b) => Math.max(num(a, 'max'), num(b, 'max')),
    min: (a, b) => Math.min(num(a, 'min'), num(b, 'min')),
    abs: (a) => Math.abs(num(a, 'abs')),
    round: (a) => Math.round(num(a, 'round')),
    floor: (a) => Math.floor(num(a, 'floor')),
    ceil: (a) => Math.ceil(num(a, 'ceil')),
    sqrt: (a) => Math.sqrt(num(a, 'sqrt')),
    pow: (a, b) => Math.pow(num(a, 'pow'), num(b, 'pow')),
    log: (a) => Math.log(num(a, 'log')),
    log10: (a) => Math.log10(num(a, 'log10')),
  },
  Integer: { parseInt: (s: unknown) => parseNumber(s, true), valueOf: (s: unknown) => (typeof s === 'number' ? s : parseNumber(s, true)), toString: (n: unknown) => String(n) },
  Long: { parseLong: (s: unknown) => parseNumber(s, true), valueOf: (s: unknown) => (typeof s === 'number' ? s : parseNumber(s, true)), toString: (n: unknown) => String(n) },
  Double: { parseDouble: (s: unknown) => parseNumber(s, false), valueOf: (s: unknown) => (typeof s === 'number' ? s : parseNumber(s, false)), toString: (n: unknown) => String(n) },
  Float: { parseFloat: (s: unknown) => parseNumber(s, false) },
  Boolean: { parseBoolean: (s: unknown) => String(s).toLowerCase() === 'true', valueOf: (s: unknown) => s === true || String(s).toLowerCase() === 'true' },
  String: {
    valueOf: (v: unknown) => str(v),
    join: (sep, list) => (Array.isArray(list) ? list.map(str).join(String(sep)) : ''),
    format: (fmt, ...rest) => {
      let i = 0;
      return String(fmt).replace(/%[sd]/g, () => str(rest[i++]));
    },
  },
  Objects: {
    isNull: (v) => v === null || v === undefined,
    nonNull: (v) => v !== null && v !== undefined,
    equals: (a, b) => painlessEquals(a, b),
    requireNonNullElse: (a, b) => a ?? b,
  },
};

function instanceOf(v: unknown, cls: string): boolean {
  switch (cls) {
    case 'String':
    case 'CharSequence':
      return typeof v === 'string';
    case 'Map':
    case 'HashMap':
      return isPlainObject(v) || isHostMap(v);
    case 'List':
    case 'ArrayList':
    case 'Collection':
      return Array.isArray(v);
    case 'Number':
      return typeof v === 'number';
    case 'Integer':
    case 'Long':
      return typeof v === 'number' && Number.isInteger(v);
    case 'Double':
    case 'Float':
      return typeof v === 'number';
    case 'Boolean':
      return typeof v === 'boolean';
    case 'Object':
    case 'def':
      return v !== null && v !== undefined;
  }
  return false;
}

function cast(cls: string, v: unknown): unknown {
  switch (cls) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte':
    case 'Integer':
    case 'Long':
      if (typeof v === 'number') return Math.trunc(v);
      break;
    case 'double':
    case 'float':
    case 'Double':
    case 'Float':
      if (typeof v === 'number') return v;
      break;
    case 'String':
      if (typeof v === 'string' || v === null) return v;
      break;
    case 'boolean':
    case 'Boolean':
      if (typeof v === 'boolean') return v;
      break;
    default:
      return v;
  }
  throw new RuntimeError('class_cast_exception', `Cannot cast ${typeName(v)} to ${cls}`);
}

class Interpreter {
  private steps = 0;
  constructor(private readonly maxSteps: number) {}

  run(stmts: Stmt[], scope: Scope): unknown {
    let last: unknown = null;
    try {
      for (const s of stmts) last = this.exec(s, scope);
    } catch (e) {
      if (e instanceof ReturnSignal) return e.value;
      throw e;
    }
    return last;
  }

  private tick(): void {
    if (++this.steps > this.maxSteps) {
      throw new RuntimeError('painless_error', 'The maximum number of statements that can be executed in a loop has been reached.');
    }
  }

  /** runs a loop body; true when the loop must stop (break) */
  private loopBody(body: Stmt, scope: Scope): boolean {
    try {
      this.exec(body, scope);
    } catch (e) {
      if (e instanceof LoopSignal) return e.kind === 'break';
      throw e;
    }
    return false;
  }

  private exec(s: Stmt, scope: Scope): unknown {
    this.tick();
    switch (s.s) {
      case 'expr':
        return this.eval(s.e, scope);
      case 'decl':
        scope.set(s.name, s.init ? this.eval(s.init, scope) : null);
        return null;
      case 'if':
        if (truthy(this.eval(s.test, scope), 'if')) this.exec(s.then, scope);
        else if (s.else) this.exec(s.else, scope);
        return null;
      case 'return':
        throw new ReturnSignal(s.e ? this.eval(s.e, scope) : null);
      case 'block': {
        let last: unknown = null;
        for (const x of s.body) last = this.exec(x, scope);
        return last;
      }
      case 'foreach': {
        const it = this.eval(s.iter, scope);
        const list = Array.isArray(it)
          ? [...it]
          : isHostMap(it)
            ? it.keys()
            : isPlainObject(it)
              ? Object.keys(it)
              : it === null
                ? (() => {
                    throw npe('Iterable.iterator()');
                  })()
                : [];
        for (const v of list) {
          scope.set(s.name, v);
          if (this.loopBody(s.body, scope)) break;
        }
        return null;
      }
      case 'for': {
        if (s.init) this.exec(s.init, scope);
        while (s.test === undefined || truthy(this.eval(s.test, scope), 'for')) {
          this.tick();
          if (this.loopBody(s.body, scope)) break;
          if (s.update) this.eval(s.update, scope);
        }
        return null;
      }
      case 'while':
        while (truthy(this.eval(s.test, scope), 'while')) {
          this.tick();
          if (this.loopBody(s.body, scope)) break;
        }
        return null;
      case 'break':
      case 'continue':
        throw new LoopSignal(s.s);
    }
  }

  eval(n: Node, scope: Scope): unknown {
    switch (n.k) {
      case 'lit':
        return n.v;
      case 'var':
        if (scope.has(n.name)) return scope.get(n.name);
        if (STATICS[n.name]) return { __static: n.name };
        throw new RuntimeError('illegal_argument_exception', `cannot resolve symbol [${n.name}]`);
      case 'member': {
        const o = this.eval(n.obj, scope);
        if (o === null || o === undefined) {
          if (n.safe) return null;
          throw npe(`Object.get("${n.name}")`);
        }
        return getMember(o, n.name);
      }
      case 'index': {
        const o = this.eval(n.obj, scope);
        if (o === null || o === undefined) throw npe('Object.get()');
        return getIndex(o, this.eval(n.idx, scope));
      }
      case 'call': {
        const args = n.args.map((a) => this.eval(a, scope));
        if (n.obj === null) {
          if (n.name.startsWith('__cast_')) return cast(n.name.slice(7), args[0]);
          return callStatic(n.name, args);
        }
        const o = this.eval(n.obj, scope);
        if (o !== null && typeof o === 'object' && '__static' in (o as object)) {
          const cls = STATICS[(o as { __static: string }).__static];
          const fn = cls[n.name];
          if (!fn) throw new RuntimeError('illegal_argument_exception', `unknown static method [${n.name}]`);
          return fn(...args);
        }
        if (o === null || o === undefined) {
          if (n.safe) return null;
          throw npe(`Object.${n.name}()`);
        }
        return callMethod(o, n.name, args);
      }
      case 'unary': {
        const v = this.eval(n.arg, scope);
        if (n.op === '!') return !truthy(v, '!');
        if (n.op === '-') return -num(v, '-');
        return num(v, '+');
      }
      case 'bin': {
        if (n.op === '&&') return truthy(this.eval(n.l, scope), '&&') && truthy(this.eval(n.r, scope), '&&');
        if (n.op === '||') return truthy(this.eval(n.l, scope), '||') || truthy(this.eval(n.r, scope), '||');
        const a = this.eval(n.l, scope);
        const b = this.eval(n.r, scope);
        switch (n.op) {
          case '=~': {
            if (a === null || a === undefined) throw npe('Pattern.matcher()');
            const re = toRegExp(b);
            re.lastIndex = 0;
            return re.test(String(a));
          }
          case '==~': {
            if (a === null || a === undefined) throw npe('Pattern.matcher()');
            const re = toRegExp(b);
            const m = new RegExp(`^(?:${re.source})$`, re.flags).exec(String(a));
            return m !== null;
          }
          case '==':
            return painlessEquals(a, b);
          case '!=':
            return !painlessEquals(a, b);
          case '===':
            return a === b || ((a ?? null) === null && (b ?? null) === null);
          case '!==':
            return !(a === b || ((a ?? null) === null && (b ?? null) === null));
          case '<':
          case '>':
          case '<=':
          case '>=': {
            let x: number | string;
            let y: number | string;
            if (typeof a === 'string' && typeof b === 'string') {
              throw new RuntimeError('class_cast_exception', `Cannot apply [${n.op}] operation to types [java.lang.String] and [java.lang.String].`);
            } else {
              x = num(a, n.op);
              y = num(b, n.op);
            }
            return n.op === '<' ? x < y : n.op === '>' ? x > y : n.op === '<=' ? x <= y : x >= y;
          }
          default:
            if (n.op === '/' && ((n.l.k === 'lit' && n.l.dbl) || (n.r.k === 'lit' && n.r.dbl))) return num(a, '/') / num(b, '/');
            return arith(n.op, a, b);
        }
      }
      case 'cond':
        return truthy(this.eval(n.test, scope), '?') ? this.eval(n.then, scope) : this.eval(n.else, scope);
      case 'elvis': {
        const l = this.eval(n.l, scope);
        return l === null || l === undefined ? this.eval(n.r, scope) : l;
      }
      case 'assign': {
        let v = this.eval(n.value, scope);
        if (n.op !== '=') v = arith(n.op[0], this.eval(n.target, scope), v);
        this.store(n.target, v, scope);
        return v;
      }
      case 'update': {
        const old = num(this.eval(n.target, scope), n.op);
        const nv = n.op === '++' ? old + 1 : old - 1;
        this.store(n.target, nv, scope);
        return n.prefix ? nv : old;
      }
      case 'list':
        return n.items.map((x) => this.eval(x, scope));
      case 'map': {
        const o: Record<string, unknown> = {};
        for (const [k, v] of n.entries) setMember(o, str(this.eval(k, scope)), this.eval(v, scope));
        return o;
      }
      case 'new':
        switch (n.cls) {
          case 'ArrayList':
          case 'LinkedList':
            return n.args.length > 0 && Array.isArray(this.eval(n.args[0], scope)) ? [...(this.eval(n.args[0], scope) as unknown[])] : [];
          case 'HashMap':
          case 'LinkedHashMap':
          case 'TreeMap':
            return {};
          case 'HashSet':
            return [];
        }
        throw new RuntimeError('illegal_argument_exception', `Not a type [${n.cls}].`);
      case 'instanceof':
        return instanceOf(this.eval(n.l, scope), n.cls);
    }
  }

  private store(target: Node, v: unknown, scope: Scope): void {
    if (target.k === 'var') {
      if (target.name === 'ctx' || target.name === 'params') {
        throw new RuntimeError('illegal_argument_exception', `cannot assign a value to read-only variable [${target.name}]`);
      }
      scope.set(target.name, v);
    } else if (target.k === 'member') {
      const o = this.eval(target.obj, scope);
      if (o === null || o === undefined) throw npe(`Object.put("${target.name}")`);
      setMember(o, target.name, v);
    } else if (target.k === 'index') {
      const o = this.eval(target.obj, scope);
      if (o === null || o === undefined) throw npe('Object.put()');
      setIndex(o, this.eval(target.idx, scope), v);
    } else {
      throw new RuntimeError('illegal_argument_exception', 'invalid assignment target');
    }
  }
}

export interface CompiledScript {
  readonly source: string;
  /** runs with the given variables (ctx, params, ...); throws script_exception on runtime errors */
  run(vars: Record<string, unknown>): unknown;
}

/** Compiles once; throws script_exception "compile error" with the parser's reason as cause. */
export function compilePainless(source: string, maxSteps = 1_000_000): CompiledScript {
  const stmts = new Parser(source, lex(source)).program();
  return {
    source,
    run(vars) {
      const scope: Scope = new Map(Object.entries(vars));
      try {
        return new Interpreter(maxSteps).run(stmts, scope);
      } catch (e) {
        if (e instanceof RuntimeError) {
          throw new EsError('script_exception', 400, 'runtime error', {
            metadata: { script_stack: [], script: source, lang: 'painless', position: { offset: 0, start: 0, end: source.length } },
            cause: new EsError(e.javaType, 400, e.message, { plain: true }),
          });
        }
        throw e;
      }
    },
  };
}
