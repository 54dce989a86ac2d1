/**
 * Resolves a parsed EQL statement against a schema: fields (aliases, text → keyword, optional `?` fields),
 * functions and types. Problems are collected and reported together as Elasticsearch's verifier does
 * (`verification_exception` "Found N problem(s)\nline L:C: ...").
 */
import { LuceneRegexp } from '@strata/core-common';
import { EqlParsingException, EqlVerificationException, type Problem } from '../errors.js';
import { acceptsKind, arithmeticResultType, functionNames, lookupFunction, type ArgKind } from '../expression/functions.js';
import { didYouMean, findSimilar } from '../parser/parser.js';
import { walk, type Expr, type FieldExpr, type Pos, type Statement, type Term } from '../parser/ast.js';
import type { Plan, RExpr, RField, Stage } from './resolved.js';
import { compatible, dataTypeOf, isNumeric, isString, upperName, type DataType, type Schema } from './schema.js';

export interface AnalyzeOptions {
  eventCategoryField: string;
  timestampField: string;
  tiebreakerField?: string;
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];

function ordinalWord(i: number): string {
  return ORDINALS[i] ?? `${i + 1}th`;
}

function ordinalSuffix(n: number): string {
  const m100 = n % 100;
  if (m100 >= 11 && m100 <= 13) return `${n}th`;
  switch (n % 10) {
    case 1:
      return `${n}st`;
    case 2:
      return `${n}nd`;
    case 3:
      return `${n}rd`;
    default:
      return `${n}th`;
  }
}

/** the type name printed in "found value [x] type [long]" */
function typeName(t: DataType): string {
  return t === 'dynamic' ? 'unsupported' : t;
}

const KIND_NAMES: Record<ArgKind, string> = {
  string: 'string',
  numeric: 'numeric',
  integer: 'integer',
  boolean: 'boolean',
  ip: 'ip',
  any: 'any',
};

class Analyzer {
  readonly problems: Problem[] = [];
  readonly fields = new Set<string>();
  /** position of the expression being resolved (type errors are reported there, as QL does) */
  private at: Pos = { line: 1, col: 1 };

  /** the names "did you mean" may suggest: the fields of the query that exist (Elasticsearch resolves only those) */
  suggestions: string[] = [];

  constructor(private readonly schema: Schema) {}

  problem(pos: Pos, message: string): void {
    this.problems.push({ line: pos.line, col: pos.col, message });
  }

  // ------------------------------------------------------------------ fields

  private field(f: FieldExpr): RExpr {
    const info = this.schema.field(f.name);
    const base = { text: f.text, pos: f.pos };
    if (!info) {
      if (!f.optional) {
        this.problem(f.pos, `Unknown column [${f.name}]${didYouMean(findSimilar(f.name, this.suggestions))}`);
      }
      const r: RField = { k: 'field', name: f.name, path: f.name, exact: f.name, optional: f.optional, unmapped: true, type: 'null', ...base };
      return r;
    }
    if (info.conflict) {
      this.problem(f.pos, info.conflict);
    } else if (info.nestedParent) {
      this.problem(f.pos, `Cannot use field [${f.name}] type [${typeNameOfEs(info.type)}] with unsupported nested type in hierarchy (field [${info.nestedParent}])`);
    } else if (info.type === 'nested') {
      this.problem(f.pos, `Cannot use field [${f.name}] type [nested] due to nested fields not being supported yet`);
    } else if (info.object) {
      this.problem(f.pos, `Cannot use field [${f.name}] type [object] only its subfields`);
    } else if (dataTypeOf(info.type) === 'unsupported') {
      this.problem(f.pos, `Cannot use field [${f.name}] with unsupported type [${info.type}]`);
    }
    const type = dataTypeOf(info.type);
    const exact = info.type === 'text' ? (info.exactField ?? info.path) : info.path;
    this.fields.add(info.path);
    if (exact !== info.path) this.fields.add(exact);
    return { k: 'field', name: f.name, path: info.path, exact, optional: f.optional, unmapped: false, type, ...base };
  }

  /** QL TypeResolutions.isExact: text fields need a keyword sub-field, normalized keywords are refused */
  private checkExact(e: RExpr, ordinal: string, owner: string): void {
    if (e.k !== 'field' || e.unmapped) return;
    const info = this.schema.field(e.name);
    if (!info) return;
    if (info.type === 'text' && !info.exactField) {
      const leaf = info.path.substring(info.path.lastIndexOf('.') + 1);
      this.problem(
        this.at,
        `[${owner}] cannot operate on ${ordinal}field of data type [text]: No keyword/multi-field defined exact matches for [${leaf}]; define one or use MATCH/QUERY instead`,
      );
    } else if (info.normalized) {
      this.problem(this.at, `[${owner}] cannot operate on ${ordinal}field of data type [keyword]: Normalized keyword field cannot be used for exact match operations`);
    }
  }

  private expectType(e: RExpr, ok: boolean, ordinal: string, owner: string, expected: string, suffix = '', at: Pos = this.at): void {
    if (ok || e.type === 'null' || e.type === 'dynamic') return;
    const prefix = ordinal ? `${ordinal} argument` : 'argument';
    this.problem(at, `${prefix} of [${owner}] must be [${expected}], found value [${e.text}] type [${typeName(e.type)}]${suffix}`);
  }

  // ------------------------------------------------------------------ expressions

  expr(e: Expr): RExpr {
    const r = this.exprInner(e);
    return r;
  }

  private exprInner(e: Expr): RExpr {
    const base = { text: e.text, pos: e.pos };
    const here = (): void => {
      this.at = e.pos;
    };
    switch (e.kind) {
      case 'literal':
        return { k: 'lit', value: e.value, type: e.type, ...base };
      case 'field':
        return this.field(e);
      case 'not': {
        const x = this.expr(e.expr);
        here();
        this.expectType(x, x.type === 'boolean', '', e.text, 'boolean');
        return { k: 'not', e: x, type: 'boolean', ...base };
      }
      case 'and':
      case 'or': {
        const l = this.expr(e.left);
        const r = this.expr(e.right);
        here();
        this.expectType(l, l.type === 'boolean', 'first', e.text, 'boolean');
        this.expectType(r, r.type === 'boolean', 'second', e.text, 'boolean');
        return { k: e.kind, l, r, type: 'boolean', ...base };
      }
      case 'comparison': {
        const l = this.expr(e.left);
        const r = this.expr(e.right);
        here();
        this.checkExact(l, 'first argument ', e.text);
        this.checkExact(r, 'second argument ', e.text);
        return { k: 'cmp', op: e.op, l, r, type: 'boolean', ...base };
      }
      case 'arithmetic': {
        const l = this.expr(e.left);
        const r = this.expr(e.right);
        here();
        this.expectType(l, isNumeric(l.type), 'first', e.text, 'numeric');
        this.expectType(r, isNumeric(r.type), 'second', e.text, 'numeric');
        return { k: 'arith', op: e.op, l, r, type: arithmeticResultType(l.type, r.type), ...base };
      }
      case 'neg': {
        const x = this.expr(e.expr);
        here();
        this.expectType(x, isNumeric(x.type), '', e.text, 'numeric');
        return { k: 'neg', e: x, type: x.type, ...base };
      }
      case 'in': {
        const value = this.expr(e.value);
        const list = e.list.map((x) => this.expr(x));
        here();
        this.checkExact(value, 'first argument ', e.text);
        if (e.insensitive) this.expectType(value, isString(value.type), 'first', e.text, 'string');
        const vt = value.type;
        if (vt !== 'null' && vt !== 'dynamic') {
          list.forEach((item, i) => {
            if (!compatible(vt, item.type) || (e.insensitive && item.type !== 'null' && !isString(item.type))) {
              this.problem(e.pos, `${ordinalSuffix(i + 1)} argument of [${e.text}] must be [${typeName(vt)}], found value [${item.text}] type [${typeName(item.type)}]`);
            }
          });
        }
        return { k: 'in', value, list, ci: e.insensitive, type: 'boolean', ...base };
      }
      case 'match': {
        const value = this.expr(e.value);
        here();
        const owner = e.op === ':' ? ':' : e.text;
        const before = this.problems.length;
        this.checkExact(value, 'first argument ', e.text);
        this.expectType(value, isString(value.type), 'first', owner, 'string', e.op === ':' ? '; consider using [==] instead' : '');
        const valueFailed = this.problems.length > before;
        const patterns: string[] = [];
        e.patterns.forEach((p, i) => {
          if (typeof p.value !== 'string') {
            if (valueFailed) return;
            this.problem(p.pos, `${ordinalWord(i + 1)} argument of [${owner}] must be [string], found value [${p.text}] type [${typeName(p.type)}]`);
            return;
          }
          patterns.push(p.value);
        });
        const op = e.op === ':' ? 'seq' : e.op.startsWith('like') ? 'like' : 'regex';
        const ci = e.op === ':' || e.op.endsWith('~');
        if (op === 'regex') {
          for (const [i, p] of patterns.entries()) {
            try {
              LuceneRegexp.compile(p);
            } catch {
              this.problem(e.patterns[i]!.pos, `Invalid regex pattern [${p}]`);
            }
          }
        }
        return { k: 'match', op, ci, value, patterns, type: 'boolean', ...base };
      }
      case 'function':
        return this.func(e);
    }
  }

  private func(e: Extract<Expr, { kind: 'function' }>): RExpr {
    const base = { text: e.text, pos: e.pos };
    const ci = e.name.endsWith('~');
    const name = ci ? e.name.slice(0, -1) : e.name;
    const def = lookupFunction(name);
    const args = e.args.map((a) => this.expr(a));
    this.at = e.pos;
    if (!def || (ci && !def.insensitive)) {
      this.problem(e.pos, `Unknown function [${e.name}]${didYouMean(findSimilar(e.name.toLowerCase(), functionNames()))}`);
      return { k: 'fn', name: name.toLowerCase(), ci, args, type: 'null', ...base };
    }
    if (args.length < def.minArgs || args.length > def.maxArgs) {
      throw new EqlParsingException(e.pos.line, e.pos.col, `error building [${def.name.toLowerCase()}]: ${def.arity}`);
    }
    args.forEach((a, i) => {
      const kind = def.args[Math.min(i, def.args.length - 1)]!;
      if (kind !== 'any') this.expectType(a, acceptsKind(kind, a.type), ordinalWord(i), e.text, KIND_NAMES[kind]);
      if (kind === 'string' || kind === 'any') {
        const info = a.k === 'field' && !a.unmapped ? this.schema.field(a.name) : undefined;
        if (info && info.type === 'text' && !info.exactField) {
          const leaf = info.path.substring(info.path.lastIndexOf('.') + 1);
          this.problem(
            a.pos,
            `[${e.text}] cannot operate on field of data type [text]: No keyword/multi-field defined exact matches for [${leaf}]; define one or use MATCH/QUERY instead`,
          );
        }
      }
    });
    return { k: 'fn', name: def.name.toLowerCase(), ci, args, type: def.returns(args.map((a) => a.type)), ...base };
  }

  condition(e: Expr): RExpr {
    const r = this.expr(e);
    if (r.type !== 'boolean' && r.type !== 'null' && r.type !== 'dynamic') {
      this.problem(r.pos, `Condition expression needs to be boolean, found [${upperName(r.type)}]`);
    }
    return r;
  }

  stage(term: Term, sharedKeys: RExpr[], kind: 'Sequence' | 'Sample'): Stage {
    const condition = this.condition(term.filter.condition);
    const keys = [...sharedKeys, ...term.keys.map((k) => this.expr(k))];
    for (const k of keys) this.checkExact(k, '', k.text);
    void kind;
    return { pos: term.pos, category: term.filter.category, condition, keys, missing: term.missing };
  }

  checkKeyTypes(stages: Stage[], kind: 'Sequence' | 'Sample'): void {
    if (stages.length === 0) return;
    const first = stages[0]!;
    for (let s = 1; s < stages.length; s++) {
      const st = stages[s]!;
      st.keys.forEach((k, i) => {
        const ref = first.keys[i];
        if (!ref) return;
        if (!compatible(ref.type, k.type)) {
          this.problem(
            k.pos,
            `${kind} key [${k.text}] type [${esTypeName(this.schema, k)}] is incompatible with key [${ref.text}] type [${esTypeName(this.schema, ref)}]`,
          );
        }
      });
    }
  }
}

function typeNameOfEs(t: string): string {
  return t === 'date' ? 'datetime' : t;
}

function esTypeName(schema: Schema, e: RExpr): string {
  if (e.k === 'field' && !e.unmapped) {
    const info = schema.field(e.name);
    if (info) return info.type;
  }
  return typeName(e.type);
}

/** the existing fields a query mentions (plus the timestamp, category and tiebreaker fields) */
function suggestionFields(statement: Statement, schema: Schema, opts: AnalyzeOptions): string[] {
  const names = new Set<string>([opts.timestampField, opts.eventCategoryField, ...(opts.tiebreakerField ? [opts.tiebreakerField] : [])]);
  const visit = (e: Expr) =>
    walk(e, (x) => {
      if (x.kind === 'field') names.add(x.name);
    });
  const terms: Term[] = statement.type === 'event' ? [] : [...statement.terms, ...(statement.type === 'sequence' && statement.until ? [statement.until] : [])];
  if (statement.type === 'event') visit(statement.filter.condition);
  else for (const k of statement.keys) visit(k);
  for (const t of terms) {
    visit(t.filter.condition);
    for (const k of t.keys) visit(k);
  }
  return [...names].filter((n) => {
    const f = schema.field(n);
    return f !== undefined && !f.object;
  });
}

/** resolves `statement` against `schema`; throws verification_exception with every problem found */
export function analyze(statement: Statement, schema: Schema, opts: AnalyzeOptions): Plan {
  const a = new Analyzer(schema);
  a.suggestions = suggestionFields(statement, schema, opts);
  const usesCategory = (terms: Term[]) => terms.some((t) => t.filter.category !== null);
  const top: Pos = { line: 1, col: 1 };
  const requireField = (name: string) => {
    if (schema.dynamic) return;
    if (!schema.field(name)) a.problem(top, `Unknown column [${name}]`);
  };

  let plan: Plan;
  if (statement.type === 'event') {
    if (statement.filter.category !== null) requireField(opts.eventCategoryField);
    requireField(opts.timestampField);
    const condition = a.condition(statement.filter.condition);
    plan = {
      type: 'event',
      stages: [{ pos: statement.filter.pos, category: statement.filter.category, condition, keys: [], missing: false }],
      maxspanMs: 0,
      pipes: statement.pipes,
      fields: a.fields,
    };
  } else if (statement.type === 'sequence') {
    const allTerms = [...statement.terms, ...(statement.until ? [statement.until] : [])];
    if (usesCategory(allTerms)) requireField(opts.eventCategoryField);
    requireField(opts.timestampField);
    if (opts.tiebreakerField) requireField(opts.tiebreakerField);
    const shared = statement.keys.map((k) => a.expr(k));
    // runs repeat the same term object: resolve each distinct term once
    const cache = new Map<Term, Stage>();
    const stages = statement.terms.map((t) => {
      let s = cache.get(t);
      if (!s) cache.set(t, (s = a.stage(t, shared, 'Sequence')));
      return s;
    });
    const until = statement.until ? a.stage(statement.until, shared, 'Sequence') : undefined;
    a.checkKeyTypes([...stages, ...(until ? [until] : [])], 'Sequence');
    plan = { type: 'sequence', stages, until, maxspanMs: statement.maxspanMs, pipes: statement.pipes, fields: a.fields };
  } else {
    if (usesCategory(statement.terms)) requireField(opts.eventCategoryField);
    const shared = statement.keys.map((k) => a.expr(k));
    const stages = statement.terms.map((t) => a.stage(t, shared, 'Sample'));
    a.checkKeyTypes(stages, 'Sample');
    plan = { type: 'sample', stages, maxspanMs: 0, pipes: statement.pipes, fields: a.fields };
  }
  if (a.problems.length > 0) {
    // Elasticsearch reports problems sorted by position
    const sorted = [...a.problems].sort((x, y) => x.line - y.line || x.col - y.col);
    const seen = new Set<string>();
    throw new EqlVerificationException(
      sorted.filter((p) => {
        const k = `${p.line}:${p.col}:${p.message}`;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      }),
    );
  }
  return plan;
}
