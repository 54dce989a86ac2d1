/**
 * Pushes EQL conditions down to the core's Query DSL. A translation always matches a superset of the events
 * the condition keeps; when it matches exactly those (`exact`), the events need no in-memory check.
 * Conditions the Query DSL cannot express (functions other than the string/CIDR predicates, field-to-field
 * comparisons, arithmetic) are left to the in-memory evaluator.
 */
import { DateFormatter } from '@strata/core-common';
import { encodeIp } from '@strata/core-engine';
import type { RExpr, RField, Stage } from '../analysis/resolved.js';
import { isDate, isNumeric, isString, type DataType } from '../analysis/schema.js';
import { compile, isNullLiteral } from '../expression/evaluator.js';
import { eqlWildcardToLucene, hasWildcard, type Value } from '../expression/values.js';

export type QueryJson = Record<string, unknown>;

export interface Translation {
  /** undefined: no restriction (match all) */
  query?: QueryJson;
  exact: boolean;
}

export const MATCH_NONE: QueryJson = { bool: { must_not: [{ match_all: {} }] } };
const DATE_PARSER = DateFormatter.of('strict_date_optional_time||epoch_millis');

function hasFields(e: RExpr): boolean {
  switch (e.k) {
    case 'lit':
      return false;
    case 'field':
      return !e.unmapped;
    case 'not':
    case 'neg':
      return hasFields(e.e);
    case 'and':
    case 'or':
    case 'cmp':
    case 'arith':
      return hasFields(e.l) || hasFields(e.r);
    case 'in':
      return hasFields(e.value) || e.list.some(hasFields);
    case 'match':
      return hasFields(e.value);
    case 'fn':
      return e.args.some(hasFields);
  }
}

const EMPTY_EVENT = { values: () => [] as unknown[] };

/** a literal converted to the field's type, or `undefined` when it can never equal one of its values */
function convert(type: DataType, v: Value): string | number | boolean | undefined {
  if (v === null) return undefined;
  if (isString(type) || type === 'version') return typeof v === 'string' ? v : undefined;
  if (isNumeric(type)) return typeof v === 'number' ? v : undefined;
  if (type === 'boolean') return typeof v === 'boolean' ? v : undefined;
  if (isDate(type)) {
    if (typeof v === 'number') return v;
    if (typeof v === 'string') return DATE_PARSER.tryParse(v)?.millis;
    return undefined;
  }
  if (type === 'ip') {
    if (typeof v !== 'string') return undefined;
    try {
      encodeIp(v);
      return v;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function dateParams(type: DataType): QueryJson {
  return isDate(type) ? { format: 'epoch_millis' } : {};
}

function exists(f: RField): QueryJson {
  return { exists: { field: f.exact } };
}

function and(qs: QueryJson[]): QueryJson {
  return qs.length === 1 ? qs[0]! : { bool: { filter: qs } };
}

const FLIP: Record<string, string> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=', '==': '==', '!=': '!=' };
const RANGE: Record<string, string> = { '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };

/** a comparison / in / match on a single mapped field: false exactly when the field has values that fail it */
function singleField(e: RExpr): RField | undefined {
  if (e.k === 'cmp') {
    if (e.l.k === 'field' && !e.l.unmapped && e.r.k === 'lit') return e.l;
    if (e.r.k === 'field' && !e.r.unmapped && e.l.k === 'lit') return e.r;
  }
  if ((e.k === 'in' || e.k === 'match') && e.value.k === 'field' && !e.value.unmapped) return e.value;
  return undefined;
}

export function translate(e: RExpr): Translation {
  if (!hasFields(e)) {
    const v = compile(e)(EMPTY_EVENT);
    return v === true ? { exact: true } : { query: MATCH_NONE, exact: true };
  }
  switch (e.k) {
    case 'field':
      if (e.type === 'boolean') return { query: { term: { [e.exact]: true } }, exact: true };
      return { exact: false };
    case 'and': {
      const l = translate(e.l);
      const r = translate(e.r);
      const qs = [l.query, r.query].filter((q): q is QueryJson => q !== undefined);
      return { query: qs.length ? and(qs) : undefined, exact: l.exact && r.exact };
    }
    case 'or': {
      const l = translate(e.l);
      const r = translate(e.r);
      if (!l.query || !r.query) return { exact: false };
      return { query: { bool: { should: [l.query, r.query], minimum_should_match: 1 } }, exact: l.exact && r.exact };
    }
    case 'not': {
      const c = translate(e.e);
      if (!c.exact || !c.query) {
        if (c.exact && !c.query) return { query: MATCH_NONE, exact: true };
        return { exact: false };
      }
      const f = singleField(e.e);
      if (f && e.e.k === 'cmp' && !isNullLiteral(e.e.l) && !isNullLiteral(e.e.r)) {
        return { query: { bool: { filter: [exists(f)], must_not: [c.query] } }, exact: true };
      }
      if (f && e.e.k !== 'cmp') return { query: { bool: { filter: [exists(f)], must_not: [c.query] } }, exact: true };
      if (e.e.k === 'cmp' && (isNullLiteral(e.e.l) || isNullLiteral(e.e.r))) return { query: { bool: { must_not: [c.query] } }, exact: true };
      return { query: { bool: { must_not: [c.query] } }, exact: false };
    }
    case 'cmp':
      return comparison(e);
    case 'in': {
      if (e.value.k !== 'field' || e.value.unmapped || !e.list.every((x) => x.k === 'lit')) return { exact: false };
      const f = e.value;
      const values = e.list.map((x) => (x as { value: Value }).value);
      if (e.ci) {
        const strs = values.filter((v): v is string => typeof v === 'string');
        if (strs.length === 0) return { query: MATCH_NONE, exact: true };
        return { query: { bool: { should: strs.map((v) => ({ term: { [f.exact]: { value: v, case_insensitive: true } } })), minimum_should_match: 1 } }, exact: true };
      }
      const converted = values.map((v) => convert(f.type, v)).filter((v): v is string | number | boolean => v !== undefined);
      if (converted.length === 0) return { query: MATCH_NONE, exact: true };
      if (isDate(f.type)) {
        return { query: { bool: { should: converted.map((v) => ({ range: { [f.exact]: { gte: v, lte: v, format: 'epoch_millis' } } })), minimum_should_match: 1 } }, exact: true };
      }
      return { query: { terms: { [f.exact]: converted } }, exact: true };
    }
    case 'match': {
      if (e.value.k !== 'field' || e.value.unmapped || !isString(e.value.type)) return { exact: false };
      const field = e.value.exact;
      const qs = e.patterns.map((p): QueryJson => {
        if (e.op === 'regex') return { regexp: { [field]: { value: p, case_insensitive: e.ci } } };
        if (!hasWildcard(p)) return { term: { [field]: e.ci ? { value: p, case_insensitive: true } : p } };
        return { wildcard: { [field]: { value: eqlWildcardToLucene(p), case_insensitive: e.ci } } };
      });
      return { query: qs.length === 1 ? qs[0] : { bool: { should: qs, minimum_should_match: 1 } }, exact: true };
    }
    case 'fn':
      return functionQuery(e);
    default:
      return { exact: false };
  }
}

function comparison(e: Extract<RExpr, { k: 'cmp' }>): Translation {
  // `x == null` / `x != null`
  if ((e.op === '==' || e.op === '!=') && (isNullLiteral(e.l) || isNullLiteral(e.r))) {
    const other = isNullLiteral(e.l) ? e.r : e.l;
    if (other.k !== 'field' || other.unmapped) return { exact: false };
    return e.op === '==' ? { query: { bool: { must_not: [exists(other)] } }, exact: true } : { query: exists(other), exact: true };
  }
  let field: RField;
  let lit: Value;
  let op: string = e.op;
  if (e.l.k === 'field' && !e.l.unmapped && e.r.k === 'lit') {
    field = e.l;
    lit = e.r.value;
  } else if (e.r.k === 'field' && !e.r.unmapped && e.l.k === 'lit') {
    field = e.r;
    lit = e.l.value;
    op = FLIP[op]!;
  } else return { exact: false };
  if (field.type === 'dynamic') return { exact: false };
  const v = convert(field.type, lit);
  if (v === undefined) {
    // never comparable: `==`, `<`... are null (dropped); `!=` is null too
    return { query: MATCH_NONE, exact: true };
  }
  const term: QueryJson = isDate(field.type) ? { range: { [field.exact]: { gte: v, lte: v, format: 'epoch_millis' } } } : { term: { [field.exact]: v } };
  if (op === '==') return { query: term, exact: true };
  if (op === '!=') return { query: { bool: { filter: [exists(field)], must_not: [term] } }, exact: true };
  // booleans have no order; versions order semantically (the in-memory check does it)
  if (field.type === 'boolean' || field.type === 'version') return { exact: false };
  return { query: { range: { [field.exact]: { [RANGE[op]!]: v, ...dateParams(field.type) } } }, exact: field.type !== 'ip' || typeof v === 'string' };
}

function escapeWildcard(s: string): string {
  return s.replace(/[\\*?]/g, '\\$&');
}

function functionQuery(e: Extract<RExpr, { k: 'fn' }>): Translation {
  const [a, b] = e.args;
  const fieldArg = a && a.k === 'field' && !a.unmapped && isString(a.type) ? a : undefined;
  const litArg = b && b.k === 'lit' && typeof b.value === 'string' ? b.value : undefined;
  switch (e.name) {
    case 'startswith':
      if (fieldArg && litArg !== undefined && e.args.length === 2) return { query: { prefix: { [fieldArg.exact]: { value: litArg, case_insensitive: e.ci } } }, exact: true };
      break;
    case 'endswith':
      if (fieldArg && litArg !== undefined && e.args.length === 2) return { query: { wildcard: { [fieldArg.exact]: { value: '*' + escapeWildcard(litArg), case_insensitive: e.ci } } }, exact: true };
      break;
    case 'stringcontains':
      if (fieldArg && litArg !== undefined && e.args.length === 2) return { query: { wildcard: { [fieldArg.exact]: { value: '*' + escapeWildcard(litArg) + '*', case_insensitive: e.ci } } }, exact: true };
      break;
    case 'cidrmatch':
      if (a && a.k === 'field' && !a.unmapped && a.type === 'ip' && e.args.slice(1).every((x) => x.k === 'lit' && typeof x.value === 'string')) {
        const cidrs = e.args.slice(1).map((x) => (x as { value: string }).value);
        return { query: { bool: { should: cidrs.map((c) => ({ term: { [a.exact]: c } })), minimum_should_match: 1 } }, exact: true };
      }
      break;
  }
  return { exact: false };
}

/** the pushed-down filter of a stage (category + condition) */
export function stageQuery(stage: Stage, categoryField: string): Translation {
  const t = translate(stage.condition);
  const qs: QueryJson[] = [];
  if (stage.category !== null) qs.push({ term: { [categoryField]: stage.category } });
  if (t.query) qs.push(t.query);
  return { query: qs.length ? and(qs) : undefined, exact: t.exact };
}
