/**
 * Painless lexer and parser: source text -> AST (statements and expressions with source offsets).
 * The grammar is the part of Painless users write in Elasticsearch scripts: typed and `def` locals, if/else,
 * for / for-each / while / do-while, break/continue/return, ternary, `?.`, `?:`, casts, `instanceof`, `new`,
 * list `[a, b]` and map `[k: v]` initializers, lambdas (`x -> ...`, `(a, b) -> {...}`), `/regex/flags`
 * with `=~` / `==~`, and the Java operators (arithmetic, bitwise, shifts, comparisons, compound assignment).
 */
import { compileError } from './errors.js';

export type Tok =
  | { t: 'num'; v: number; pos: number; dbl: boolean }
  | { t: 'str'; v: string; pos: number }
  | { t: 'id'; v: string; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 're'; v: string; flags: string; pos: number }
  | { t: 'eof'; pos: number };

const OPS = [
  '>>>=', '==~', '===', '!==', '>>>', '<<=', '>>=', '?.', '?:', '=~', '==', '!=', '<=', '>=', '&&', '||', '++', '--', '+=', '-=', '*=', '/=',
  '%=', '&=', '|=', '^=', '->', '::', '<<', '>>', '+', '-', '*', '/', '%', '<', '>', '!', '~', '&', '|', '^', '=', '(', ')', '[', ']', '{', '}',
  '.', ',', ';', ':', '?',
];

/** tokens after which a `/` starts a regex literal rather than a division */
const REGEX_AFTER = new Set(['=~', '==~', '(', ',', '=', '[', '{', ';', '?', ':', '!', '&&', '||', 'return']);

export function lex(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    const ch = src[i]!;
    if (ch === '/' && src[i + 1] === '/') {
      while (i < n && src[i] !== '\n') i++;
      continue;
    }
    if (ch === '/' && src[i + 1] === '*') {
      const e = src.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      continue;
    }
    if ((c >= 48 && c <= 57) || (ch === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(?:0[xX][0-9a-fA-F]+|\d*\.?\d+(?:[eE][+-]?\d+)?|\d+\.)[lLfFdD]?/.exec(src.slice(i, i + 64))!;
      let txt = m[0];
      const hex = /^0[xX]/.test(txt);
      const suffix = !hex && /[lLfFdD]$/.test(txt) ? txt[txt.length - 1]!.toLowerCase() : '';
      if (suffix) txt = txt.slice(0, -1);
      const dbl = suffix === 'f' || suffix === 'd' || (!hex && /[.eE]/.test(txt));
      out.push({ t: 'num', v: Number(txt), pos: i, dbl });
      i += m[0].length;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let j = i + 1;
      let s = '';
      while (j < n && src[j] !== ch) {
        if (src[j] === '\\') {
          const e = src[j + 1];
          s += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e === 'b' ? '\b' : e === 'f' ? '\f' : (e ?? '');
          j += 2;
        } else s += src[j++];
      }
      if (j >= n) throw compileError(src, i, 'unterminated string');
      out.push({ t: 'str', v: s, pos: i });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_$]/.test(ch)) {
      const m = /^[A-Za-z_$][A-Za-z0-9_$]*/.exec(src.slice(i, i + 256))!;
      out.push({ t: 'id', v: m[0], pos: i });
      i += m[0].length;
      continue;
    }
    if (ch === '/') {
      const prev = out[out.length - 1];
      if (prev === undefined || (prev.t === 'op' && REGEX_AFTER.has(prev.v)) || (prev.t === 'id' && prev.v === 'return')) {
        let j = i + 1;
        let body = '';
        while (j < n && src[j] !== '/') {
          if (src[j] === '\\' && src[j + 1] === '/') {
            body += '/';
            j += 2;
          } else if (src[j] === '\\') {
            body += src[j]! + (src[j + 1] ?? '');
            j += 2;
          } else body += src[j++];
        }
        if (j >= n) throw compileError(src, i, 'unterminated regex');
        j++;
        let flags = '';
        while (j < n && /[cilmsuxU]/.test(src[j]!)) flags += src[j++];
        out.push({ t: 're', v: body, flags, pos: i });
        i = j;
        continue;
      }
    }
    const op = OPS.find((o) => src.startsWith(o, i));
    if (!op) throw compileError(src, i, `unexpected character [${ch}].`);
    out.push({ t: 'op', v: op, pos: i });
    i += op.length;
  }
  out.push({ t: 'eof', pos: n });
  return out;
}

// ------------------------------------------------------------------------------------------ AST

export type Node =
  | { k: 'lit'; v: unknown; dbl?: boolean; pos: number }
  | { k: 'regex'; src: string; flags: string; pos: number }
  | { k: 'var'; name: string; pos: number }
  | { k: 'member'; obj: Node; name: string; safe: boolean; pos: number }
  | { k: 'index'; obj: Node; idx: Node; pos: number }
  | { k: 'call'; obj: Node; name: string; args: Node[]; safe: boolean; pos: number }
  | { k: 'fcall'; name: string; args: Node[]; pos: number }
  | { k: 'unary'; op: string; arg: Node; pos: number }
  | { k: 'bin'; op: string; l: Node; r: Node; pos: number }
  | { k: 'cond'; test: Node; then: Node; else: Node; pos: number }
  | { k: 'elvis'; l: Node; r: Node; pos: number }
  | { k: 'assign'; op: string; target: Node; value: Node; pos: number }
  | { k: 'update'; op: string; prefix: boolean; target: Node; pos: number }
  | { k: 'list'; items: Node[]; pos: number }
  | { k: 'map'; entries: Array<[Node, Node]>; pos: number }
  | { k: 'new'; cls: string; args: Node[]; pos: number }
  | { k: 'newarray'; cls: string; size?: Node; items?: Node[]; pos: number }
  | { k: 'cast'; cls: string; arg: Node; pos: number }
  | { k: 'instanceof'; l: Node; cls: string; pos: number }
  | { k: 'lambda'; params: string[]; body: Stmt[]; expr?: Node; pos: number }
  | { k: 'mref'; cls: string; name: string; pos: number };

export type Stmt =
  | { s: 'expr'; e: Node; pos: number }
  | { s: 'decl'; type: string; vars: Array<{ name: string; init?: Node; pos: number }>; pos: number }
  | { s: 'if'; test: Node; then: Stmt; else?: Stmt; pos: number }
  | { s: 'return'; e?: Node; pos: number }
  | { s: 'block'; body: Stmt[]; pos: number }
  | { s: 'foreach'; type: string; name: string; iter: Node; body: Stmt; pos: number }
  | { s: 'for'; init?: Stmt; test?: Node; update: Node[]; body: Stmt; pos: number }
  | { s: 'while'; test: Node; body: Stmt; pos: number }
  | { s: 'do'; test: Node; body: Stmt; pos: number }
  | { s: 'break'; pos: number }
  | { s: 'continue'; pos: number }
  | { s: 'throw'; e: Node; pos: number };

/** primitive and well-known type names (a declaration may also use any capitalised class name) */
export const PRIMITIVES = new Set(['def', 'var', 'int', 'long', 'double', 'float', 'boolean', 'short', 'byte', 'char', 'void']);

const KEYWORDS = new Set(['if', 'else', 'for', 'while', 'do', 'return', 'break', 'continue', 'new', 'instanceof', 'true', 'false', 'null', 'throw', 'try', 'catch', 'in']);

const PREC: Record<string, number> = {
  '||': 1, '&&': 2, '|': 3, '^': 4, '&': 5,
  '==': 6, '!=': 6, '===': 6, '!==': 6, '=~': 6, '==~': 6,
  '<': 7, '>': 7, '<=': 7, '>=': 7, instanceof: 7,
  '<<': 8, '>>': 8, '>>>': 8,
  '+': 9, '-': 9, '*': 10, '/': 10, '%': 10,
};

const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '>>>=']);

/**
 * Statements and expressions nest at most this deep (parser, compiler and evaluator all recurse over the
 * tree): counted in parser productions (a parenthesised or nested statement level is two) and in tree levels.
 */
export const MAX_NESTING = 1000;

/**
 * Left-leaning chains (`a + b + c ...`, `x.y.z ...`) are parsed in loops but still make a deep tree: the
 * tree's depth is checked once, iteratively, before anything walks it recursively.
 */
function checkTreeDepth(src: string, roots: readonly Stmt[]): void {
  const stack: Array<[object, number]> = roots.map((r) => [r, 1]);
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > MAX_NESTING) {
      const pos = (node as { pos?: number }).pos ?? 0;
      throw compileError(src, pos, `too many nested statements or expressions (more than ${MAX_NESTING}).`);
    }
    for (const child of Object.values(node)) {
      if (Array.isArray(child)) {
        for (const c of child) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
      } else if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
}

export class Parser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly src: string,
    private readonly toks: Tok[],
  ) {}

  static parse(src: string): Stmt[] {
    const program = new Parser(src, lex(src)).program();
    checkTreeDepth(src, program);
    return program;
  }

  private peek(o = 0): Tok {
    return this.toks[Math.min(this.i + o, this.toks.length - 1)]!;
  }
  private isOp(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'op' && t.v === v;
  }
  private isId(v: string, o = 0): boolean {
    const t = this.peek(o);
    return t.t === 'id' && t.v === v;
  }
  private fail(t: Tok, msg: string): never {
    throw compileError(this.src, t.pos, msg);
  }
  private eat(v: string): Tok {
    const t = this.peek();
    if (t.t !== 'op' || t.v !== v) this.fail(t, t.t === 'eof' ? `unexpected end of script.` : `extraneous input [${tokText(t)}] expecting [${v}]`);
    this.i++;
    return t;
  }
  private ident(): string {
    const t = this.peek();
    if (t.t !== 'id' || KEYWORDS.has(t.v)) this.fail(t, t.t === 'eof' ? 'unexpected end of script.' : `invalid sequence of tokens near [${tokText(t)}].`);
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
    if (out.length === 0) this.fail(this.peek(), 'Cannot generate an empty script.');
    return out;
  }

  /** length in tokens of a type at offset o (`Map`, `List<String>`, `int[]`, `Map<String, List<def>>[]`), or 0 */
  private typeLength(o: number): number {
    const t = this.peek(o);
    if (t.t !== 'id' || KEYWORDS.has(t.v)) return 0;
    if (!PRIMITIVES.has(t.v) && !/^[A-Z]/.test(t.v)) return 0;
    let j = o + 1;
    if (this.isOp('<', j)) {
      let depth = 0;
      for (;;) {
        const x = this.peek(j);
        if (x.t === 'eof') return 0;
        if (x.t === 'op' && x.v === '<') depth++;
        else if (x.t === 'op' && x.v === '>') depth--;
        else if (x.t === 'op' && x.v === '>>') depth -= 2;
        else if (x.t !== 'id' && !(x.t === 'op' && (x.v === ',' || x.v === '.' || x.v === '[' || x.v === ']' || x.v === '?'))) return 0;
        j++;
        if (depth <= 0) break;
      }
    }
    while (this.isOp('[', j) && this.isOp(']', j + 1)) j += 2;
    return j - o;
  }

  private typeName(len: number): string {
    const name = (this.peek() as { v: string }).v;
    let arr = '';
    for (let k = 0; k < len; k++) {
      const x = this.peek(k);
      if (x.t === 'op' && x.v === '[') arr += '[]';
    }
    this.i += len;
    return name + arr;
  }

  /** enters one nested production, refusing scripts nested past MAX_NESTING (no closure: stack frames are the budget) */
  private enter(): void {
    if (++this.depth > MAX_NESTING) this.fail(this.peek(), `too many nested statements or expressions (more than ${MAX_NESTING}).`);
  }

  private statement(): Stmt {
    this.enter();
    try {
      return this.statementAt();
    } finally {
      this.depth--;
    }
  }

  private statementAt(): Stmt {
    const t = this.peek();
    const pos = t.pos;
    if (this.isOp('{')) return this.block();
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
      return { s: 'if', test, then, else: els, pos };
    }
    if (this.isId('for')) {
      this.i++;
      this.eat('(');
      const tl = this.typeLength(0);
      if (tl > 0 && this.peek(tl).t === 'id' && (this.isOp(':', tl + 1) || this.isId('in', tl + 1))) {
        const type = this.typeName(tl);
        const name = this.ident();
        this.i++;
        const iter = this.expr();
        this.eat(')');
        return { s: 'foreach', type, name, iter, body: this.statement(), pos };
      }
      if (this.peek().t === 'id' && this.isId('in', 1)) {
        const name = this.ident();
        this.i++;
        const iter = this.expr();
        this.eat(')');
        return { s: 'foreach', type: 'def', name, iter, body: this.statement(), pos };
      }
      let init: Stmt | undefined;
      if (!this.isOp(';')) init = this.simpleStatement();
      this.eat(';');
      const test = this.isOp(';') ? undefined : this.expr();
      this.eat(';');
      const update: Node[] = [];
      while (!this.isOp(')')) {
        update.push(this.expr());
        if (!this.isOp(')')) this.eat(',');
      }
      this.eat(')');
      return { s: 'for', init, test, update, body: this.statement(), pos };
    }
    if (this.isId('while')) {
      this.i++;
      this.eat('(');
      const test = this.expr();
      this.eat(')');
      if (this.isOp(';')) {
        this.i++;
        return { s: 'while', test, body: { s: 'block', body: [], pos }, pos };
      }
      return { s: 'while', test, body: this.statement(), pos };
    }
    if (this.isId('do')) {
      this.i++;
      const body = this.statement();
      if (!this.isId('while')) this.fail(this.peek(), `extraneous input [${tokText(this.peek())}] expecting [while]`);
      this.i++;
      this.eat('(');
      const test = this.expr();
      this.eat(')');
      this.semi();
      return { s: 'do', test, body, pos };
    }
    if (this.isId('break') || this.isId('continue')) {
      const kind = (t as { v: string }).v as 'break' | 'continue';
      this.i++;
      this.semi();
      return { s: kind, pos };
    }
    if (this.isId('return')) {
      this.i++;
      if (this.isOp(';') || this.isOp('}') || this.peek().t === 'eof') {
        this.semi();
        return { s: 'return', pos };
      }
      const e = this.expr();
      this.semi();
      return { s: 'return', e, pos };
    }
    if (this.isId('throw')) {
      this.i++;
      const e = this.expr();
      this.semi();
      return { s: 'throw', e, pos };
    }
    const st = this.simpleStatement();
    this.semi();
    return st;
  }

  private block(): Stmt {
    const pos = this.eat('{').pos;
    const body: Stmt[] = [];
    while (!this.isOp('}')) {
      if (this.peek().t === 'eof') this.fail(this.peek(), 'unexpected end of script.');
      if (this.isOp(';')) {
        this.i++;
        continue;
      }
      body.push(this.statement());
    }
    this.i++;
    return { s: 'block', body, pos };
  }

  /** a declaration or an expression statement (no trailing `;`) */
  private simpleStatement(): Stmt {
    const pos = this.peek().pos;
    const tl = this.typeLength(0);
    if (tl > 0 && this.peek(tl).t === 'id' && !KEYWORDS.has((this.peek(tl) as { v: string }).v) && !this.isOp('(', tl + 1) && !this.isOp('.', tl + 1)) {
      const type = this.typeName(tl);
      const vars: Array<{ name: string; init?: Node; pos: number }> = [];
      for (;;) {
        const vpos = this.peek().pos;
        const name = this.ident();
        let init: Node | undefined;
        if (this.isOp('=')) {
          this.i++;
          init = this.expr();
        }
        vars.push({ name, init, pos: vpos });
        if (!this.isOp(',')) break;
        this.i++;
      }
      return { s: 'decl', type, vars, pos };
    }
    return { s: 'expr', e: this.expr(), pos };
  }

  private semi(): void {
    if (this.isOp(';')) this.i++;
    else if (!this.isOp('}') && this.peek().t !== 'eof') {
      this.fail(this.peek(), `extraneous input [${tokText(this.peek())}] expecting [';']`);
    }
  }

  expr(): Node {
    this.enter();
    try {
      return this.assignment();
    } finally {
      this.depth--;
    }
  }

  private assignment(): Node {
    const left = this.ternary();
    const t = this.peek();
    if (t.t === 'op' && ASSIGN_OPS.has(t.v)) {
      if (left.k !== 'var' && left.k !== 'member' && left.k !== 'index') this.fail(t, 'invalid assignment: cannot assign a value to a non-variable');
      this.i++;
      this.enter();
      let value: Node;
      try {
        value = this.assignment();
      } finally {
        this.depth--;
      }
      return { k: 'assign', op: t.v, target: left, value, pos: t.pos };
    }
    return left;
  }

  private ternary(): Node {
    const test = this.binary(1);
    const t = this.peek();
    if (this.isOp('?:')) {
      this.i++;
      this.enter();
      try {
        return { k: 'elvis', l: test, r: this.ternary(), pos: t.pos };
      } finally {
        this.depth--;
      }
    }
    if (this.isOp('?')) {
      this.i++;
      const then = this.assignment();
      this.eat(':');
      const els = this.assignment();
      return { k: 'cond', test, then, else: els, pos: t.pos };
    }
    return test;
  }

  private binary(minPrec: number): Node {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      const op = t.t === 'op' ? t.v : t.t === 'id' && t.v === 'instanceof' ? 'instanceof' : undefined;
      const prec = op !== undefined ? PREC[op] : undefined;
      if (op === undefined || prec === undefined || prec < minPrec) break;
      this.i++;
      if (op === 'instanceof') {
        const tl = this.typeLength(0);
        if (tl === 0) this.fail(this.peek(), `invalid sequence of tokens near [${tokText(this.peek())}].`);
        left = { k: 'instanceof', l: left, cls: this.typeName(tl), pos: t.pos };
        continue;
      }
      const right = this.binary(prec + 1);
      left = { k: 'bin', op, l: left, r: right, pos: t.pos };
    }
    return left;
  }

  private unary(): Node {
    this.enter();
    try {
      return this.unaryAt();
    } finally {
      this.depth--;
    }
  }

  private unaryAt(): Node {
    const t = this.peek();
    if (t.t === 'op' && (t.v === '!' || t.v === '-' || t.v === '+' || t.v === '~')) {
      this.i++;
      const arg = this.unary();
      if (t.v === '-' && arg.k === 'lit' && typeof arg.v === 'number') return { k: 'lit', v: -arg.v, dbl: arg.dbl, pos: t.pos };
      return { k: 'unary', op: t.v, arg, pos: t.pos };
    }
    if (t.t === 'op' && (t.v === '++' || t.v === '--')) {
      this.i++;
      return { k: 'update', op: t.v, prefix: true, target: this.unary(), pos: t.pos };
    }
    // cast: (Type) expr
    if (t.t === 'op' && t.v === '(') {
      const tl = this.typeLength(1);
      if (tl > 0 && this.isOp(')', 1 + tl)) {
        const first = (this.peek(1) as { v: string }).v;
        // `(x) -> ...` is a lambda, `(Name)` followed by an operator is a parenthesised variable
        const after = this.peek(2 + tl);
        const castable = PRIMITIVES.has(first) || after.t === 'id' || after.t === 'num' || after.t === 'str' || (after.t === 'op' && (after.v === '(' || after.v === '[' || after.v === '!' || after.v === '-' || after.v === '~'));
        if (castable && !this.isOp('->', 2 + tl)) {
          this.i++;
          const cls = this.typeName(tl);
          this.i++;
          return { k: 'cast', cls, arg: this.unary(), pos: t.pos };
        }
      }
    }
    return this.postfix(this.primary());
  }

  private postfix(node: Node): Node {
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op') return node;
      if (t.v === '.' || t.v === '?.') {
        this.i++;
        const nt = this.peek();
        if (nt.t !== 'id') this.fail(nt, `invalid sequence of tokens near [${tokText(nt)}].`);
        this.i++;
        const name = nt.v;
        const safe = t.v === '?.';
        if (this.isOp('(')) node = { k: 'call', obj: node, name, args: this.args(), safe, pos: nt.pos };
        else node = { k: 'member', obj: node, name, safe, pos: nt.pos };
      } else if (t.v === '[') {
        this.i++;
        const idx = this.expr();
        this.eat(']');
        node = { k: 'index', obj: node, idx, pos: t.pos };
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
      out.push(this.lambdaOrExpr());
      if (!this.isOp(')')) this.eat(',');
    }
    this.i++;
    return out;
  }

  /** an argument: a lambda (`x -> e`, `(x, y) -> {...}`, `(def x) -> e`), a method reference, or an expression */
  private lambdaOrExpr(): Node {
    const t = this.peek();
    if (t.t === 'id' && this.isOp('->', 1)) {
      this.i += 2;
      return this.lambdaBody([t.v], t.pos);
    }
    if (t.t === 'op' && t.v === '(') {
      // scan for `( [type] id {, [type] id} ) ->`
      let j = 1;
      const params: string[] = [];
      let ok = true;
      while (!this.isOp(')', j)) {
        const tl = this.typeLength(j);
        if (tl > 0 && this.peek(j + tl).t === 'id') j += tl;
        const x = this.peek(j);
        if (x.t !== 'id') {
          ok = false;
          break;
        }
        params.push(x.v);
        j++;
        if (this.isOp(',', j)) j++;
        else if (!this.isOp(')', j)) {
          ok = false;
          break;
        }
      }
      if (ok && this.isOp('->', j + 1)) {
        this.i += j + 2;
        return this.lambdaBody(params, t.pos);
      }
    }
    if (t.t === 'id' && this.isOp('::', 1)) {
      this.i += 2;
      const name = this.peek().t === 'id' ? this.ident() : (this.i++, 'new');
      return { k: 'mref', cls: t.v, name, pos: t.pos };
    }
    return this.expr();
  }

  private lambdaBody(params: string[], pos: number): Node {
    if (this.isOp('{')) {
      const b = this.block() as { body: Stmt[] };
      return { k: 'lambda', params, body: b.body, pos };
    }
    return { k: 'lambda', params, body: [], expr: this.expr(), pos };
  }

  private primary(): Node {
    const t = this.peek();
    const pos = t.pos;
    if (t.t === 'num') {
      this.i++;
      return { k: 'lit', v: t.v, dbl: t.dbl, pos };
    }
    if (t.t === 'str') {
      this.i++;
      return { k: 'lit', v: t.v, pos };
    }
    if (t.t === 're') {
      this.i++;
      return { k: 'regex', src: t.v, flags: t.flags, pos };
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
        return { k: 'map', entries: [], pos };
      }
      if (this.isOp(']')) {
        this.i++;
        return { k: 'list', items: [], pos };
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
        return { k: 'map', entries, pos };
      }
      const items = [first];
      while (this.isOp(',')) {
        this.i++;
        items.push(this.expr());
      }
      this.eat(']');
      return { k: 'list', items, pos };
    }
    if (t.t === 'id') {
      this.i++;
      if (t.v === 'true') return { k: 'lit', v: true, pos };
      if (t.v === 'false') return { k: 'lit', v: false, pos };
      if (t.v === 'null') return { k: 'lit', v: null, pos };
      if (t.v === 'new') {
        const cls = this.ident();
        if (this.isOp('<')) {
          let depth = 0;
          do {
            if (this.isOp('<')) depth++;
            else if (this.isOp('>')) depth--;
            else if (this.isOp('>>')) depth -= 2;
            else if (this.peek().t === 'eof') this.fail(this.peek(), 'unexpected end of script.');
            this.i++;
          } while (depth > 0);
        }
        if (this.isOp('[')) {
          this.i++;
          if (this.isOp(']')) {
            this.i++;
            while (this.isOp('[') && this.isOp(']', 1)) this.i += 2;
            this.eat('{');
            const items: Node[] = [];
            while (!this.isOp('}')) {
              items.push(this.expr());
              if (!this.isOp('}')) this.eat(',');
            }
            this.i++;
            return { k: 'newarray', cls, items, pos };
          }
          const size = this.expr();
          this.eat(']');
          return { k: 'newarray', cls, size, pos };
        }
        return { k: 'new', cls, args: this.args(), pos };
      }
      if (KEYWORDS.has(t.v)) this.fail(t, `invalid sequence of tokens near [${t.v}].`);
      if (this.isOp('(')) return { k: 'fcall', name: t.v, args: this.args(), pos };
      return { k: 'var', name: t.v, pos };
    }
    this.fail(t, t.t === 'eof' ? 'unexpected end of script.' : `invalid sequence of tokens near [${tokText(t)}].`);
  }
}

function tokText(t: Tok): string {
  if (t.t === 'eof') return '<EOF>';
  if (t.t === 're') return `/${t.v}/`;
  if (t.t === 'str') return `'${t.v}'`;
  return String(t.v);
}
