/**
 * Recursive-descent parser for Elasticsearch 8.x EQL: event queries, sequences (shared and per-query `by`,
 * `with maxspan`, `until`, `with runs=N`, missing events `![...]`), samples, and the head/tail pipes.
 * Errors are `parsing_exception` "line L:C: ..." worded as Elasticsearch's ANTLR parser and AST builder word them.
 */
import { EqlParsingException } from '../errors.js';
import { TOKEN_DISPLAY, TOKEN_ORDER, tokenize, type Token, type TokenType } from './lexer.js';
import type {
  ComparisonOp,
  EventFilter,
  Expr,
  FieldExpr,
  LiteralExpr,
  Pipe,
  Pos,
  Statement,
  Term,
} from './ast.js';

const SUPPORTED_PIPES = ['count', 'filter', 'head', 'sort', 'tail', 'unique', 'unique_count'];
const MAX_RUNS = 100;
const COMPARISONS: Partial<Record<TokenType, ComparisonOp>> = { EQ: '==', NEQ: '!=', LT: '<', LTE: '<=', GT: '>', GTE: '>=' };
/** tokens that may follow a complete operand inside an expression */
const AFTER_OPERAND: readonly TokenType[] = ['AND', 'IN', 'IN_INSENSITIVE', 'LIKE', 'LIKE_INSENSITIVE', 'NOT', 'OR', 'REGEX', 'REGEX_INSENSITIVE', 'SEQ', 'PLUS', 'MINUS', 'ASTERISK', 'SLASH', 'PERCENT', 'DOT', 'LB'];
const EXPRESSION_START: TokenType[] = ['FALSE', 'NOT', 'NULL', 'TRUE', 'PLUS', 'MINUS', 'LP', 'OPTIONAL', 'STRING', 'INTEGER_VALUE', 'DECIMAL_VALUE', 'IDENTIFIER', 'ESCAPED_IDENTIFIER', 'TILDE_IDENTIFIER'];

export function findSimilar(match: string, candidates: Iterable<string>): string[] {
  const scored: Array<[number, string]> = [];
  for (const c of candidates) {
    const d = levenshteinSimilarity(match, c);
    if (d >= 0.5) scored.push([d, c]);
  }
  // stable sort, best first (Lucene's LevenshteinDistance, ES StringUtils.findSimilar)
  return scored
    .map((s, i) => [s[0], s[1], i] as const)
    .sort((a, b) => b[0] - a[0] || a[2] - b[2])
    .map((s) => s[1]);
}

/** Lucene LevenshteinDistance.getDistance: 1 - distance / max(length) */
function levenshteinSimilarity(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return n === m ? 1 : 0;
  let prev = new Array<number>(n + 1);
  let cur = new Array<number>(n + 1);
  for (let i = 0; i <= n; i++) prev[i] = i;
  for (let j = 1; j <= m; j++) {
    cur[0] = j;
    const tj = b[j - 1];
    for (let i = 1; i <= n; i++) {
      const cost = a[i - 1] === tj ? 0 : 1;
      cur[i] = Math.min(cur[i - 1]! + 1, prev[i]! + 1, prev[i - 1]! + cost);
    }
    [prev, cur] = [cur, prev];
  }
  return 1 - prev[n]! / Math.max(n, m);
}

export function didYouMean(candidates: string[]): string {
  if (candidates.length === 0) return '';
  return candidates.length === 1 ? `, did you mean [${candidates[0]}]?` : `, did you mean any of [${candidates.join(', ')}]?`;
}

class Parser {
  private readonly tokens: Token[];
  private p = 0;

  constructor(private readonly src: string) {
    this.tokens = tokenize(src);
  }

  private get t(): Token {
    return this.tokens[this.p]!;
  }

  private peek(n = 1): Token {
    return this.tokens[Math.min(this.p + n, this.tokens.length - 1)]!;
  }

  private next(): Token {
    const t = this.t;
    if (t.type !== 'EOF') this.p++;
    return t;
  }

  private at(...types: TokenType[]): boolean {
    return types.includes(this.t.type);
  }

  private pos(t: Token = this.t): Pos {
    return { line: t.line, col: t.col };
  }

  private error(t: Token, message: string): never {
    throw new EqlParsingException(t.line, t.col, message);
  }

  private display(t: Token): string {
    return t.type === 'EOF' ? "'<EOF>'" : `'${t.text}'`;
  }

  private mismatched(expected: readonly TokenType[], withEof = false): never {
    const t = this.t;
    const set = [...(withEof ? ['<EOF>'] : []), ...TOKEN_ORDER.filter((x) => expected.includes(x)).map((x) => TOKEN_DISPLAY[x])];
    const exp = set.length === 1 ? set[0]! : `{${set.join(', ')}}`;
    this.error(t, `mismatched input ${this.display(t)} expecting ${exp}`);
  }

  private expect(type: TokenType): Token {
    if (this.t.type !== type) this.mismatched([type]);
    return this.next();
  }

  private textOf(startTok: Token, endExclusive: number): string {
    const last = this.tokens[endExclusive - 1] ?? startTok;
    return this.src.substring(startTok.start, last.end);
  }

  // ------------------------------------------------------------------ statements

  statement(): Statement {
    let st: Statement;
    if (this.at('SEQUENCE')) st = this.sequence();
    else if (this.at('SAMPLE')) st = this.sample();
    else if (this.at('JOIN')) this.error(this.t, 'Join is not supported');
    else if (this.at('ANY', 'STRING', 'IDENTIFIER')) st = { type: 'event', filter: this.eventFilter(), pipes: [] };
    else if (this.at('ESCAPED_IDENTIFIER') && this.peek().type === 'WHERE') {
      this.error(this.t, `no viable alternative at input '${this.t.text}'`);
    } else if (this.at('OPTIONAL') || this.at('EOF')) {
      const t = this.t;
      if (t.type === 'EOF') this.mismatched(['ANY', 'JOIN', 'SAMPLE', 'SEQUENCE', 'STRING', 'IDENTIFIER']);
      this.error(t, `extraneous input '${t.text}' expecting {'any', 'join', 'sample', 'sequence', STRING, IDENTIFIER}`);
    } else this.mismatched(['ANY', 'JOIN', 'SAMPLE', 'SEQUENCE', 'STRING', 'IDENTIFIER']);
    while (this.at('PIPE')) st.pipes.push(this.pipe());
    if (!this.at('EOF')) {
      if (st.type === 'event') this.mismatched([...AFTER_OPERAND.filter((x) => x !== 'DOT' && x !== 'LB'), 'PIPE'], true);
      this.mismatched(st.type === 'sequence' ? ['PIPE', 'UNTIL', 'LB', 'MISSING_EVENT_OPEN'] : ['PIPE', 'LB'], true);
    }
    return st;
  }

  private pipe(): Pipe {
    const pipeTok = this.next();
    if (!this.at('IDENTIFIER')) this.mismatched(['IDENTIFIER']);
    const nameTok = this.next();
    const name = nameTok.text;
    if (!SUPPORTED_PIPES.includes(name)) {
      this.error(nameTok, `Unrecognized pipe [${name}]${didYouMean(findSimilar(name, SUPPORTED_PIPES))}`);
    }
    const args: Expr[] = [];
    if (!this.at('EOF', 'PIPE')) {
      args.push(this.expression());
      while (this.at('COMMA')) {
        this.next();
        args.push(this.expression());
      }
    }
    if (name !== 'head' && name !== 'tail') this.error(pipeTok, `Pipe [${name}] is not supported`);
    let count = 10;
    if (args.length > 1) this.error(pipeTok, `Pipe [${name}] expects a single argument`);
    if (args.length === 1) {
      const a = args[0]!;
      const v = a.kind === 'literal' ? a.value : a.kind === 'neg' && a.expr.kind === 'literal' && typeof a.expr.value === 'number' ? -a.expr.value : undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || (a.kind === 'literal' && a.type === 'double')) {
        this.error(pipeTok, `Pipe [${name}] expects a positive integer but found [${a.text}]`);
      }
      count = v;
    }
    return { pos: this.pos(pipeTok), kind: name, count };
  }

  private eventFilter(): EventFilter {
    const t = this.t;
    let category: string | null;
    if (this.at('ANY')) {
      this.next();
      category = null;
    } else if (this.at('STRING', 'IDENTIFIER')) {
      category = this.next().value;
    } else if (this.at('ESCAPED_IDENTIFIER')) {
      this.error(t, `no viable alternative at input '${t.text}'`);
    } else this.mismatched(['ANY', 'STRING', 'IDENTIFIER']);
    if (!this.at('WHERE')) this.mismatched(['WHERE']);
    this.next();
    const condition = this.expression();
    return { pos: this.pos(t), category, categoryPos: this.pos(t), condition };
  }

  private joinKeys(): Expr[] {
    this.expect('BY');
    const keys = [this.expression()];
    while (this.at('COMMA')) {
      this.next();
      keys.push(this.expression());
    }
    return keys;
  }

  private sequence(): Statement {
    const seqTok = this.next();
    let keys: Expr[] = [];
    let maxspanMs = 0;
    let maxspanText: string | undefined;
    if (this.at('BY')) {
      keys = this.joinKeys();
      if (this.at('WITH')) ({ ms: maxspanMs, text: maxspanText } = this.sequenceParams());
    } else if (this.at('WITH')) {
      ({ ms: maxspanMs, text: maxspanText } = this.sequenceParams());
      if (this.at('BY')) {
        const byTok = this.t;
        this.joinKeys();
        this.error(byTok, 'Please specify sequence [by] before [with] not after');
      }
    }
    const terms: Term[] = [];
    while (this.at('LB', 'MISSING_EVENT_OPEN')) terms.push(this.sequenceTerm(true));
    if (terms.length === 0) this.mismatched(['BY', 'WITH', 'LB', 'MISSING_EVENT_OPEN']);
    let until: Term | undefined;
    if (this.at('UNTIL')) {
      this.next();
      if (!this.at('LB', 'MISSING_EVENT_OPEN')) this.mismatched(['LB', 'MISSING_EVENT_OPEN']);
      until = this.sequenceTerm(false);
      if (until.missing) this.error(this.tokens[this.p]!, 'Missing events are not supported in [until]');
    }
    // expand runs
    const expanded: Term[] = [];
    for (const term of terms) for (let r = 0; r < term.runs; r++) expanded.push(term);
    if (expanded.length < 2) this.error(seqTok, `A sequence requires a minimum of 2 queries, found [${expanded.length}]`);
    if (!expanded.some((x) => !x.missing)) {
      this.error(seqTok, 'A sequence requires at least one positive event query; found none');
    }
    this.checkKeyCounts(keys.length, [...terms, ...(until ? [until] : [])]);
    return { type: 'sequence', pos: this.pos(seqTok), keys, maxspanMs, maxspanText, terms: expanded, until, pipes: [] };
  }

  private checkKeyCounts(shared: number, terms: Term[]): void {
    let expected = -1;
    for (const term of terms) {
      if (expected < 0) expected = term.keys.length;
      else if (term.keys.length !== expected) {
        const at = term.keys[0]?.pos ?? term.pos;
        throw new EqlParsingException(at.line, at.col, `Inconsistent number of join keys specified; expected [${expected}] but found [${term.keys.length}]`);
      }
    }
    void shared;
  }

  private sequenceParams(): { ms: number; text: string } {
    this.expect('WITH');
    if (!this.at('MAXSPAN')) this.mismatched(['MAXSPAN']);
    this.next();
    if (!this.at('ASGN')) {
      if (this.at('EQ')) this.error(this.t, `mismatched input '==' expecting '='`);
      this.mismatched(['ASGN']);
    }
    this.next();
    const numTok = this.t;
    if (!this.at('INTEGER_VALUE', 'DECIMAL_VALUE')) this.mismatched(['INTEGER_VALUE', 'DECIMAL_VALUE']);
    this.next();
    let unit = '';
    if (this.at('IDENTIFIER') && this.t.start === numTok.end) unit = this.next().text;
    const text = numTok.text + unit;
    if (numTok.type === 'DECIMAL_VALUE') this.error(numTok, `Decimal time interval [${numTok.text}] not supported`);
    const value = Number(numTok.text);
    if (unit === '') this.error(numTok, `No time unit specified, did you mean [s] as in [${numTok.text}s]?`);
    const mult: Record<string, number> = { ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };
    if (mult[unit] === undefined) {
      this.error(numTok, `Unrecognized time unit [${unit}] in [${text}], please specify one of [ms, s, m, h, d]`);
    }
    if (value <= 0) this.error(numTok, `Zero or negative time interval [${text}] not supported`);
    return { ms: value * mult[unit]!, text };
  }

  private sequenceTerm(allowMissing: boolean): Term {
    const open = this.t;
    const missing = open.type === 'MISSING_EVENT_OPEN';
    this.next();
    const filter = this.eventFilter();
    if (!this.at('RB')) this.mismatched([...AFTER_OPERAND, 'RB' as TokenType].filter((x) => x !== 'DOT' && x !== 'LB'));
    this.next();
    const keys = this.at('BY') ? this.joinKeys() : [];
    let runs = 1;
    if (this.at('WITH')) {
      this.next();
      if (!this.at('IDENTIFIER')) {
        if (this.at('MAXSPAN')) this.error(this.t, `Please specify sequence [with maxspan] after the sequence keyword`);
        this.mismatched(['IDENTIFIER']);
      }
      const keyTok = this.next();
      if (keyTok.text !== 'runs') this.error(keyTok, `Unrecognized option [${keyTok.text}], expecting [runs]`);
      this.expect('ASGN');
      const vTok = this.t;
      if (!this.at('INTEGER_VALUE', 'DECIMAL_VALUE')) this.mismatched(['INTEGER_VALUE', 'DECIMAL_VALUE']);
      this.next();
      const v = Number(vTok.text);
      if (vTok.type === 'DECIMAL_VALUE' || !Number.isInteger(v) || v < 1) {
        this.error(vTok, `A positive runs value greater than 0 is required; found [${vTok.text}]`);
      }
      if (v > MAX_RUNS) this.error(vTok, `A query cannot be repeated more than ${MAX_RUNS} times; found [${v}]`);
      runs = v;
    }
    if (missing && !allowMissing) this.error(open, 'Missing events are not supported in [until]');
    return { pos: this.pos(open), filter, keys, missing, runs };
  }

  private sample(): Statement {
    const sampleTok = this.next();
    const keys = this.at('BY') ? this.joinKeys() : [];
    const terms: Term[] = [];
    while (this.at('LB', 'MISSING_EVENT_OPEN')) {
      const open = this.t;
      if (open.type === 'MISSING_EVENT_OPEN') this.error(open, 'Missing events are not supported in samples');
      this.next();
      const filter = this.eventFilter();
      if (!this.at('RB')) this.mismatched([...AFTER_OPERAND, 'RB' as TokenType].filter((x) => x !== 'DOT' && x !== 'LB'));
      this.next();
      const tkeys = this.at('BY') ? this.joinKeys() : [];
      terms.push({ pos: this.pos(open), filter, keys: tkeys, missing: false, runs: 1 });
    }
    if (terms.length === 0) this.mismatched(keys.length ? ['LB'] : ['BY', 'LB']);
    if (terms.length < 2) this.error(sampleTok, `A sample requires a minimum of 2 queries, found [${terms.length}]`);
    if (terms.length > 5) this.error(sampleTok, `A sample cannot contain more than 5 queries, found [${terms.length}]`);
    this.checkKeyCounts(keys.length, terms);
    return { type: 'sample', pos: this.pos(sampleTok), keys, terms, pipes: [] };
  }

  // ------------------------------------------------------------------ expressions

  expression(): Expr {
    return this.orExpr();
  }

  private orExpr(): Expr {
    const start = this.p;
    let left = this.andExpr();
    while (this.at('OR')) {
      this.next();
      const right = this.andExpr();
      left = { kind: 'or', left, right, pos: left.pos, text: this.textOf(this.tokens[start]!, this.p) };
    }
    return left;
  }

  private andExpr(): Expr {
    const start = this.p;
    let left = this.notExpr();
    while (this.at('AND')) {
      this.next();
      const right = this.notExpr();
      left = { kind: 'and', left, right, pos: left.pos, text: this.textOf(this.tokens[start]!, this.p) };
    }
    return left;
  }

  private notExpr(): Expr {
    const start = this.p;
    if (this.at('NOT')) {
      const t = this.next();
      const expr = this.notExpr();
      return { kind: 'not', expr, pos: this.pos(t), text: this.textOf(t, this.p) };
    }
    if (this.at('IDENTIFIER') && this.peek().type === 'OF') {
      this.error(this.t, 'Process relationships are not supported');
    }
    const left = this.operatorExpr();
    const op = COMPARISONS[this.t.type];
    if (op) {
      this.next();
      const right = this.operatorExpr();
      const e: Expr = { kind: 'comparison', op, left, right, pos: left.pos, text: this.textOf(this.tokens[start]!, this.p) };
      if (COMPARISONS[this.t.type]) this.mismatched(AFTER_OPERAND, true);
      return e;
    }
    if (this.at('ASGN')) this.error(this.t, `mismatched input '=' expecting {<EOF>, ${AFTER_OPERAND.map((x) => TOKEN_DISPLAY[x]).join(', ')}}`);
    return left;
  }

  private operatorExpr(): Expr {
    return this.additive();
  }

  private additive(): Expr {
    const start = this.p;
    let left = this.multiplicative();
    while (this.at('PLUS', 'MINUS')) {
      const op = this.next().text as '+' | '-';
      const right = this.multiplicative();
      left = { kind: 'arithmetic', op, left, right, pos: left.pos, text: this.textOf(this.tokens[start]!, this.p) };
    }
    return left;
  }

  private multiplicative(): Expr {
    const start = this.p;
    let left = this.unary();
    while (this.at('ASTERISK', 'SLASH', 'PERCENT')) {
      const op = this.next().text as '*' | '/' | '%';
      const right = this.unary();
      left = { kind: 'arithmetic', op, left, right, pos: left.pos, text: this.textOf(this.tokens[start]!, this.p) };
    }
    return left;
  }

  private unary(): Expr {
    if (this.at('MINUS', 'PLUS')) {
      const t = this.next();
      const expr = this.unary();
      if (t.type === 'PLUS') return expr;
      // fold negative numeric literals
      if (expr.kind === 'literal' && typeof expr.value === 'number') {
        return { ...expr, value: -expr.value, pos: this.pos(t), text: this.textOf(t, this.p), type: expr.type === 'integer' && -expr.value < -2147483648 ? 'long' : expr.type };
      }
      return { kind: 'neg', expr, pos: this.pos(t), text: this.textOf(t, this.p) };
    }
    return this.primaryWithPredicate();
  }

  private primaryWithPredicate(): Expr {
    const start = this.p;
    const value = this.primary();
    let negate = false;
    let notTok: Token | undefined;
    if (this.at('NOT') && (this.peek().type === 'IN' || this.peek().type === 'IN_INSENSITIVE')) {
      notTok = this.next();
      negate = true;
    }
    if (this.at('IN', 'IN_INSENSITIVE')) {
      const insensitive = this.next().type === 'IN_INSENSITIVE';
      this.expect('LP');
      if (this.at('RP')) this.mismatched(EXPRESSION_START);
      const list = [this.expression()];
      while (this.at('COMMA')) {
        this.next();
        list.push(this.expression());
      }
      if (!this.at('RP')) this.mismatched([...AFTER_OPERAND, 'COMMA' as TokenType, 'RP' as TokenType].filter((x) => x !== 'DOT' && x !== 'LB'));
      this.next();
      const inExpr: Expr = { kind: 'in', value, list, insensitive, pos: value.pos, text: this.textOf(this.tokens[start]!, this.p) };
      if (negate) return { kind: 'not', expr: inExpr, pos: this.pos(notTok), text: inExpr.text };
      return inExpr;
    }
    if (this.at('SEQ', 'LIKE', 'LIKE_INSENSITIVE', 'REGEX', 'REGEX_INSENSITIVE')) {
      const opTok = this.next();
      const op = (opTok.type === 'SEQ' ? ':' : opTok.text) as ':' | 'like' | 'like~' | 'regex' | 'regex~';
      const patterns: LiteralExpr[] = [];
      if (this.at('LP')) {
        this.next();
        patterns.push(this.constant());
        while (this.at('COMMA')) {
          this.next();
          patterns.push(this.constant());
        }
        if (!this.at('RP')) this.mismatched(['COMMA', 'RP']);
        this.next();
      } else patterns.push(this.constant());
      return { kind: 'match', op, value, patterns, pos: value.pos, text: this.textOf(this.tokens[start]!, this.p) };
    }
    return value;
  }

  private constant(): LiteralExpr {
    if (!this.at('NULL', 'TRUE', 'FALSE', 'STRING', 'INTEGER_VALUE', 'DECIMAL_VALUE')) {
      this.mismatched(['FALSE', 'NULL', 'TRUE', 'STRING', 'INTEGER_VALUE', 'DECIMAL_VALUE', ...(this.at('LP') ? [] : ['LP' as TokenType])]);
    }
    return this.primary() as LiteralExpr;
  }

  private primary(): Expr {
    const t = this.t;
    switch (t.type) {
      case 'NULL':
        this.next();
        return { kind: 'literal', value: null, type: 'null', pos: this.pos(t), text: t.text };
      case 'TRUE':
      case 'FALSE':
        this.next();
        return { kind: 'literal', value: t.type === 'TRUE', type: 'boolean', pos: this.pos(t), text: t.text };
      case 'STRING':
        this.next();
        return { kind: 'literal', value: t.value, type: 'keyword', pos: this.pos(t), text: t.text };
      case 'INTEGER_VALUE': {
        this.next();
        const big = BigInt(t.text);
        if (big > 9223372036854775807n) this.error(t, `Number [${t.text}] is too large`);
        const type = big > 2147483647n ? 'long' : 'integer';
        return { kind: 'literal', value: Number(big), type, pos: this.pos(t), text: t.text };
      }
      case 'DECIMAL_VALUE': {
        this.next();
        const v = Number(t.text);
        if (!Number.isFinite(v)) this.error(t, `Number [${t.text}] is too large`);
        return { kind: 'literal', value: v, type: 'double', pos: this.pos(t), text: t.text };
      }
      case 'LP': {
        this.next();
        const e = this.expression();
        if (!this.at('RP')) this.mismatched([...AFTER_OPERAND.filter((x) => x !== 'DOT' && x !== 'LB'), 'RP']);
        this.next();
        return { ...e, text: this.textOf(t, this.p) };
      }
      case 'TILDE_IDENTIFIER':
        return this.functionCall();
      case 'IDENTIFIER':
        if (this.peek().type === 'LP') return this.functionCall();
        return this.qualifiedName();
      case 'ESCAPED_IDENTIFIER':
      case 'OPTIONAL':
        return this.qualifiedName();
      default:
        return this.mismatched(EXPRESSION_START);
    }
  }

  private functionCall(): Expr {
    const nameTok = this.next();
    if (!this.at('LP')) this.mismatched(['LP']);
    this.next();
    const args: Expr[] = [];
    if (!this.at('RP')) {
      args.push(this.expression());
      while (this.at('COMMA')) {
        this.next();
        args.push(this.expression());
      }
    }
    if (!this.at('RP')) this.mismatched([...AFTER_OPERAND.filter((x) => x !== 'DOT' && x !== 'LB'), 'COMMA', 'RP']);
    this.next();
    return { kind: 'function', name: nameTok.value, args, pos: this.pos(nameTok), text: this.textOf(nameTok, this.p) };
  }

  private qualifiedName(): FieldExpr {
    const first = this.t;
    let optional = false;
    if (this.at('OPTIONAL')) {
      optional = true;
      this.next();
    }
    if (!this.at('IDENTIFIER', 'ESCAPED_IDENTIFIER')) this.mismatched(['IDENTIFIER', 'ESCAPED_IDENTIFIER']);
    const parts = [this.next().value];
    for (;;) {
      if (this.at('DOT') && (this.peek().type === 'IDENTIFIER' || this.peek().type === 'ESCAPED_IDENTIFIER') && this.peek().start === this.t.end) {
        this.next();
        parts.push(this.next().value);
        continue;
      }
      if (this.at('DOT')) {
        this.next();
        if (!this.at('IDENTIFIER', 'ESCAPED_IDENTIFIER')) this.mismatched(['IDENTIFIER', 'ESCAPED_IDENTIFIER']);
        parts.push(this.next().value);
        continue;
      }
      if (this.at('LB') && this.peek().type === 'INTEGER_VALUE') {
        this.next();
        this.error(this.t, 'Array indexes are not supported');
      }
      break;
    }
    return { kind: 'field', name: parts.join('.'), optional, pos: this.pos(first), text: this.textOf(first, this.p) };
  }
}

/** parses a whole EQL statement */
export function parseEql(query: string): Statement {
  return new Parser(query).statement();
}

/** parses a single expression (tests, tools) */
export function parseExpression(expr: string): Expr {
  const p = new Parser(expr);
  const e = p.expression();
  return e;
}
