/**
 * The resolved (typed) expression tree: what the analyzer hands to the in-memory evaluator and to the
 * Query DSL translator.
 */
import type { ComparisonOp, Pipe, Pos } from '../parser/ast.js';
import type { DataType } from './schema.js';

export type RExpr =
  | RLiteral
  | RField
  | RNot
  | RLogical
  | RComparison
  | RArithmetic
  | RNeg
  | RIn
  | RMatch
  | RFunction;

interface RNode {
  type: DataType;
  /** the source text (for error messages) */
  text: string;
  pos: Pos;
}

export interface RLiteral extends RNode {
  k: 'lit';
  value: string | number | boolean | null;
}

export interface RField extends RNode {
  k: 'field';
  /** the name as written */
  name: string;
  /** the concrete field (aliases resolved) whose values are read */
  path: string;
  /** field used for exact matching (text → its keyword sub-field) */
  exact: string;
  optional: boolean;
  /** an optional field that is not mapped anywhere: always null */
  unmapped: boolean;
}

export interface RNot extends RNode {
  k: 'not';
  e: RExpr;
}

export interface RLogical extends RNode {
  k: 'and' | 'or';
  l: RExpr;
  r: RExpr;
}

export interface RComparison extends RNode {
  k: 'cmp';
  op: ComparisonOp;
  l: RExpr;
  r: RExpr;
}

export interface RArithmetic extends RNode {
  k: 'arith';
  op: '+' | '-' | '*' | '/' | '%';
  l: RExpr;
  r: RExpr;
}

export interface RNeg extends RNode {
  k: 'neg';
  e: RExpr;
}

export interface RIn extends RNode {
  k: 'in';
  value: RExpr;
  list: RExpr[];
  ci: boolean;
}

export interface RMatch extends RNode {
  k: 'match';
  /** `:` = case-insensitive equality or wildcard; like = wildcard; regex */
  op: 'seq' | 'like' | 'regex';
  ci: boolean;
  value: RExpr;
  patterns: string[];
}

export interface RFunction extends RNode {
  k: 'fn';
  /** canonical lower-case name without `~` */
  name: string;
  ci: boolean;
  args: RExpr[];
}

export interface Stage {
  /** position of the `[` (or of the query for event queries) */
  pos: Pos;
  /** null for `any` */
  category: string | null;
  condition: RExpr;
  /** join keys: the shared `by` keys first, then this stage's own */
  keys: RExpr[];
  missing: boolean;
}

export interface Plan {
  type: 'event' | 'sequence' | 'sample';
  stages: Stage[];
  until?: Stage;
  /** 0 = none */
  maxspanMs: number;
  pipes: Pipe[];
  /** every field the plan reads (for fetching values) */
  fields: Set<string>;
}

export function isTrueLiteral(e: RExpr): boolean {
  return e.k === 'lit' && e.value === true;
}
