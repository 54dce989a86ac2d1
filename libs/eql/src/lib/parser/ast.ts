/**
 * The EQL abstract syntax tree produced by the parser (positions are 1-based line/column, as
 * Elasticsearch reports them in `line L:C:` messages).
 */

export interface Pos {
  line: number;
  col: number;
}

export type Expr =
  | LiteralExpr
  | FieldExpr
  | FunctionExpr
  | NotExpr
  | LogicalExpr
  | ComparisonExpr
  | ArithmeticExpr
  | NegExpr
  | InExpr
  | MatchExpr;

interface Node {
  pos: Pos;
  /** the source text of the node (used in error messages, e.g. `[long_field in (1, "string")]`) */
  text: string;
}

export interface LiteralExpr extends Node {
  kind: 'literal';
  value: string | number | boolean | null;
  /** integer | long | double | keyword | boolean | null */
  type: 'integer' | 'long' | 'double' | 'keyword' | 'boolean' | 'null';
}

export interface FieldExpr extends Node {
  kind: 'field';
  name: string;
  optional: boolean;
}

export interface FunctionExpr extends Node {
  kind: 'function';
  /** as written, `~` included */
  name: string;
  args: Expr[];
}

export interface NotExpr extends Node {
  kind: 'not';
  expr: Expr;
}

export interface LogicalExpr extends Node {
  kind: 'and' | 'or';
  left: Expr;
  right: Expr;
}

export type ComparisonOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

export interface ComparisonExpr extends Node {
  kind: 'comparison';
  op: ComparisonOp;
  left: Expr;
  right: Expr;
}

export interface ArithmeticExpr extends Node {
  kind: 'arithmetic';
  op: '+' | '-' | '*' | '/' | '%';
  left: Expr;
  right: Expr;
}

export interface NegExpr extends Node {
  kind: 'neg';
  expr: Expr;
}

export interface InExpr extends Node {
  kind: 'in';
  value: Expr;
  list: Expr[];
  insensitive: boolean;
}

/** `:`, `like`, `like~`, `regex`, `regex~` with one or more constant patterns */
export interface MatchExpr extends Node {
  kind: 'match';
  op: ':' | 'like' | 'like~' | 'regex' | 'regex~';
  value: Expr;
  patterns: LiteralExpr[];
}

export interface EventFilter {
  pos: Pos;
  /** null = `any` */
  category: string | null;
  categoryPos: Pos;
  condition: Expr;
}

export interface Term {
  pos: Pos;
  filter: EventFilter;
  keys: Expr[];
  missing: boolean;
  runs: number;
}

export interface Pipe {
  pos: Pos;
  kind: 'head' | 'tail';
  count: number;
}

export interface EventQuery {
  type: 'event';
  filter: EventFilter;
  pipes: Pipe[];
}

export interface SequenceQuery {
  type: 'sequence';
  pos: Pos;
  keys: Expr[];
  maxspanMs: number;
  /** the maxspan as written, e.g. `30s` */
  maxspanText?: string;
  terms: Term[];
  until?: Term;
  pipes: Pipe[];
}

export interface SampleQuery {
  type: 'sample';
  pos: Pos;
  keys: Expr[];
  terms: Term[];
  pipes: Pipe[];
}

export type Statement = EventQuery | SequenceQuery | SampleQuery;

/** every expression node below `e` (pre-order, `e` included) */
export function walk(e: Expr, fn: (x: Expr) => void): void {
  fn(e);
  switch (e.kind) {
    case 'not':
    case 'neg':
      walk(e.expr, fn);
      break;
    case 'and':
    case 'or':
    case 'comparison':
    case 'arithmetic':
      walk(e.left, fn);
      walk(e.right, fn);
      break;
    case 'function':
      for (const a of e.args) walk(a, fn);
      break;
    case 'in':
      walk(e.value, fn);
      for (const a of e.list) walk(a, fn);
      break;
    case 'match':
      walk(e.value, fn);
      for (const a of e.patterns) walk(a, fn);
      break;
    default:
      break;
  }
}
