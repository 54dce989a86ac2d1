/**
 * query_string (Lucene classic syntax: AND/OR/NOT, && || !, +/-, field:value, "phrases"~slop, wildcards,
 * fuzzy~, ranges [a TO b] {a TO b} >=x, boosts ^n, grouping, _exists_) and simple_query_string
 * (+ | - " * ( ) ~N; never fails on syntax).
 */
import { EsError, Errors } from '@strata/core-common';
import { DisjunctionMaxQuery, MatchAllDocsQuery } from '../../search/basic-queries.js';
import { BooleanQuery, calculateMinShouldMatch, checkClauseCount, type BooleanClause, type Occur } from '../../search/boolean-query.js';
import { FieldExistsQuery } from '../../search/exists-query.js';
import { FuzzyQuery, PrefixQuery, RegexpQuery, WildcardQuery, fuzzinessToEdits, luceneRegexpMatcher } from '../../search/multi-term-query.js';
import { checkRegexLength } from './term-level.js';
import type { Query } from '../../search/query.js';
import {
  boolValue,
  boostOf,
  checkKeys,
  intValue,
  isObject,
  noMatch,
  numberValue,
  requireObject,
  withBoost,
} from '../parse-utils.js';
import type { QueryParseContext, QueryParser } from '../query-parser.js';
import { buildMatchQuery, defaultMatchOptions, resolveFields, type MatchOptions } from './match.js';
import { rangeParser } from './range.js';

// ------------------------------------------------------------------ AST

export type QsNode =
  | { kind: 'bool'; clauses: Array<{ occur: Occur; node: QsNode }> }
  | { kind: 'term'; field?: string; text: string; fuzzy?: number | 'auto'; boost?: number; quotedWildcard?: boolean }
  | { kind: 'phrase'; field?: string; text: string; slop?: number; boost?: number }
  | { kind: 'range'; field?: string; lo: string | null; hi: string | null; incLo: boolean; incHi: boolean; boost?: number }
  | { kind: 'regexp'; field?: string; text: string; boost?: number };

class QsSyntaxError extends Error {}

/** groups `( ... )` nest at most this deep (the parsers and the query tree they build are recursive) */
export const MAX_QUERY_STRING_GROUP_DEPTH = 1000;

function tooManyGroups(s: string): QsSyntaxError {
  return new QsSyntaxError(`Cannot parse '${s}': groups nested deeper than [${MAX_QUERY_STRING_GROUP_DEPTH}]`);
}

/** Lucene classic query parser (structure only; analysis happens when building queries) */
export class ClassicParser {
  private i = 0;
  private depth = 0;
  constructor(
    private readonly s: string,
    private readonly defaultOp: 'or' | 'and',
  ) {}

  parse(): QsNode {
    const n = this.query(undefined);
    this.ws();
    if (this.i < this.s.length) throw new QsSyntaxError(`Cannot parse '${this.s}': Encountered " ")" "`);
    return n;
  }

  private ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  private peekWord(w: string): boolean {
    if (!this.s.startsWith(w, this.i)) return false;
    const next = this.s[this.i + w.length];
    return next === undefined || /[\s()]/.test(next);
  }

  private query(field: string | undefined): QsNode {
    const clauses: Array<{ occur: Occur; node: QsNode; prohibited: boolean }> = [];
    let first = true;
    for (;;) {
      this.ws();
      if (this.i >= this.s.length || this.s[this.i] === ')') break;
      let conj: 'none' | 'and' | 'or' = 'none';
      if (!first) {
        if (this.peekWord('AND') || this.s.startsWith('&&', this.i)) {
          conj = 'and';
          this.i += this.s.startsWith('&&', this.i) ? 2 : 3;
        } else if (this.peekWord('OR') || this.s.startsWith('||', this.i)) {
          conj = 'or';
          this.i += 2;
        }
        this.ws();
      }
      let mod: 'none' | 'req' | 'not' = 'none';
      const c = this.s[this.i];
      if (c === '+') {
        mod = 'req';
        this.i++;
      } else if (c === '-' || c === '!') {
        mod = 'not';
        this.i++;
      } else if (this.peekWord('NOT')) {
        mod = 'not';
        this.i += 3;
      }
      this.ws();
      if (this.i >= this.s.length) throw new QsSyntaxError(`Cannot parse '${this.s}': Encountered "<EOF>"`);
      const node = this.clause(field);
      // Lucene's addClause
      const last = clauses[clauses.length - 1];
      if (last && conj === 'and' && !last.prohibited) last.occur = 'must';
      if (last && this.defaultOp === 'and' && conj === 'or' && !last.prohibited) last.occur = 'should';
      let required: boolean;
      const prohibited = mod === 'not';
      if (this.defaultOp === 'or') {
        required = mod === 'req';
        if (conj === 'and' && !prohibited) required = true;
      } else {
        required = !prohibited && conj !== 'or';
      }
      const occur: Occur = prohibited ? 'must_not' : required ? 'must' : 'should';
      clauses.push({ occur, node, prohibited });
      first = false;
    }
    if (clauses.length === 1 && clauses[0]!.occur !== 'must_not') return clauses[0]!.node;
    return { kind: 'bool', clauses: clauses.map(({ occur, node }) => ({ occur, node })) };
  }

  private readBoostAndFuzzy(n: QsNode): QsNode {
    for (;;) {
      const c = this.s[this.i];
      if (c === '^') {
        this.i++;
        const m = /^\d+(\.\d+)?/.exec(this.s.substring(this.i));
        if (!m) throw new QsSyntaxError(`Cannot parse '${this.s}': invalid boost`);
        this.i += m[0].length;
        (n as { boost?: number }).boost = Number(m[0]);
      } else if (c === '~') {
        this.i++;
        const m = /^\d+(\.\d+)?/.exec(this.s.substring(this.i));
        if (m) this.i += m[0].length;
        if (n.kind === 'phrase') n.slop = m ? Math.floor(Number(m[0])) : 0;
        else if (n.kind === 'term') n.fuzzy = m ? Math.floor(Number(m[0])) : 'auto';
      } else return n;
    }
  }

  private readTerm(): string {
    let out = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i]!;
      if (c === '\\' && this.i + 1 < this.s.length) {
        out += '\\' + this.s[this.i + 1];
        this.i += 2;
        continue;
      }
      if (/[\s()^~"[\]{}:]/.test(c)) break;
      out += c;
      this.i++;
    }
    return out;
  }

  private clause(field: string | undefined): QsNode {
    this.ws();
    // field prefix
    const save = this.i;
    const m = /^((?:[^\s()^~"[\]{}:\\]|\\.)+):/.exec(this.s.substring(this.i));
    if (m) {
      field = m[1]!.replace(/\\(.)/g, '$1');
      this.i += m[0].length;
      this.ws();
    } else this.i = save;
    const c = this.s[this.i];
    if (c === '(') {
      this.i++;
      if (++this.depth > MAX_QUERY_STRING_GROUP_DEPTH) throw tooManyGroups(this.s);
      const inner = this.query(field);
      this.depth--;
      this.ws();
      if (this.s[this.i] !== ')') throw new QsSyntaxError(`Cannot parse '${this.s}': Encountered "<EOF>"`);
      this.i++;
      const bq = this.readBoostAndFuzzy({ kind: 'bool', clauses: [{ occur: 'must', node: inner }] });
      const boost = (bq as { boost?: number }).boost;
      if (boost !== undefined) return { kind: 'bool', clauses: [{ occur: 'must', node: inner }], ...{ boost } } as QsNode;
      return inner;
    }
    if (c === '"') {
      const end = this.findQuote(this.i + 1);
      if (end < 0) throw new QsSyntaxError(`Cannot parse '${this.s}': Lexical error: unterminated phrase`);
      const text = this.s.substring(this.i + 1, end).replace(/\\(.)/g, '$1');
      this.i = end + 1;
      return this.readBoostAndFuzzy({ kind: 'phrase', field, text });
    }
    if (c === '[' || c === '{') {
      const close = this.s.substring(this.i).search(/[\]}]/);
      if (close < 0) throw new QsSyntaxError(`Cannot parse '${this.s}': unterminated range`);
      const body = this.s.substring(this.i + 1, this.i + close);
      const endC = this.s[this.i + close];
      const parts = body.trim().split(/\s+TO\s+/);
      if (parts.length !== 2) throw new QsSyntaxError(`Cannot parse '${this.s}': malformed range`);
      this.i += close + 1;
      const unq = (x: string) => x.trim().replace(/^"(.*)"$/, '$1');
      const lo = unq(parts[0]!);
      const hi = unq(parts[1]!);
      return this.readBoostAndFuzzy({ kind: 'range', field, lo: lo === '*' ? null : lo, hi: hi === '*' ? null : hi, incLo: c === '[', incHi: endC === ']' });
    }
    if (c === '/') {
      const end = this.s.indexOf('/', this.i + 1);
      if (end < 0) throw new QsSyntaxError(`Cannot parse '${this.s}': unterminated regexp`);
      const text = this.s.substring(this.i + 1, end);
      this.i = end + 1;
      return this.readBoostAndFuzzy({ kind: 'regexp', field, text });
    }
    if (c === '>' || c === '<') {
      const op = this.s.startsWith('=', this.i + 1) ? c + '=' : c;
      this.i += op.length;
      const v = this.readTerm().replace(/\\(.)/g, '$1');
      if (op.startsWith('>')) return { kind: 'range', field, lo: v, hi: null, incLo: op === '>=', incHi: true };
      return { kind: 'range', field, lo: null, hi: v, incLo: true, incHi: op === '<=' };
    }
    const t = this.readTerm();
    if (t === '') throw new QsSyntaxError(`Cannot parse '${this.s}': Encountered "${c ?? '<EOF>'}"`);
    return this.readBoostAndFuzzy({ kind: 'term', field, text: t });
  }

  private findQuote(from: number): number {
    for (let j = from; j < this.s.length; j++) {
      if (this.s[j] === '\\') j++;
      else if (this.s[j] === '"') return j;
    }
    return -1;
  }
}

/** simple_query_string syntax to the same AST */
export function parseSimple(s: string, defaultOp: 'or' | 'and'): QsNode {
  let i = 0;
  let depth = 0;
  const group = (): QsNode => {
    const clauses: Array<{ occur: Occur; node: QsNode }> = [];
    let pendingOp: 'and' | 'or' | null = null;
    for (;;) {
      while (i < s.length && /\s/.test(s[i]!)) i++;
      if (i >= s.length) break;
      const c = s[i]!;
      if (c === ')') {
        i++;
        break;
      }
      if (c === '+') {
        pendingOp = 'and';
        i++;
        continue;
      }
      if (c === '|') {
        pendingOp = 'or';
        i++;
        continue;
      }
      let negate = false;
      while (s[i] === '-') {
        negate = !negate;
        i++;
      }
      let node: QsNode;
      if (s[i] === '(') {
        i++;
        if (++depth > MAX_QUERY_STRING_GROUP_DEPTH) throw tooManyGroups(s);
        node = group();
        depth--;
      } else if (s[i] === '"') {
        const end = s.indexOf('"', i + 1);
        const text = end < 0 ? s.substring(i + 1) : s.substring(i + 1, end);
        i = end < 0 ? s.length : end + 1;
        node = { kind: 'phrase', text };
        const m = /^~(\d+)/.exec(s.substring(i));
        if (m) {
          node.slop = Number(m[1]);
          i += m[0].length;
        }
      } else {
        let t = '';
        while (i < s.length && !/[\s()|+"]/.test(s[i]!)) {
          if (s[i] === '\\' && i + 1 < s.length) {
            t += s[i + 1];
            i += 2;
          } else t += s[i++];
        }
        let fuzzy: number | undefined;
        const m = /~(\d+)?$/.exec(t);
        if (m) {
          fuzzy = m[1] === undefined ? 2 : Number(m[1]);
          t = t.substring(0, t.length - m[0].length);
        }
        if (t === '' && fuzzy === undefined) continue;
        node = { kind: 'term', text: t, fuzzy, quotedWildcard: !t.endsWith('*') };
      }
      const op = pendingOp ?? defaultOp;
      if (clauses.length > 0) {
        const last = clauses[clauses.length - 1]!;
        if (op === 'and' && last.occur === 'should') last.occur = 'must';
      }
      clauses.push({ occur: negate ? 'must_not' : op === 'and' ? 'must' : 'should', node });
      pendingOp = null;
    }
    if (clauses.length === 1 && clauses[0]!.occur !== 'must_not') return clauses[0]!.node;
    return { kind: 'bool', clauses };
  };
  return group();
}

// ------------------------------------------------------------------ AST → Query

export interface QsBuildOptions {
  fields: Array<{ field: string; boost: number; lenient: boolean }>;
  match: MatchOptions;
  tieBreaker: number;
  phraseSlop: number;
  analyzeWildcard: boolean;
  fuzziness?: string | number;
  simple: boolean;
  minimumShouldMatch?: string | number;
}

function unescape(s: string): string {
  return s.replace(/\\(.)/g, '$1');
}

function hasWildcard(s: string): boolean {
  return /(^|[^\\])[*?]/.test(s);
}

function normalizeForField(ctx: QueryParseContext, field: string, text: string): string {
  const ft = ctx.fieldType(field);
  if (!ft) return text;
  if (ft.kind === 'keyword') {
    try {
      return String(ft.termValue(text));
    } catch {
      return text;
    }
  }
  if (ft.kind === 'text') return text.toLowerCase();
  return text;
}

function fieldsFor(ctx: QueryParseContext, node: { field?: string }, opts: QsBuildOptions) {
  if (node.field === undefined) return opts.fields;
  if (node.field.includes('*')) return resolveFields(ctx, [node.field]);
  return [{ field: node.field, boost: 1, lenient: opts.match.lenient }];
}

function leafQuery(ctx: QueryParseContext, node: Exclude<QsNode, { kind: 'bool' }>, opts: QsBuildOptions): Query {
  if (node.kind === 'term' && node.field === '_exists_') {
    const fs = ctx.fieldType(node.text) ? [node.text] : ctx.matchingFieldNames(node.text);
    return fs.length ? new FieldExistsQuery(fs) : noMatch('no field');
  }
  if (node.kind === 'regexp') {
    // a malformed pattern is an error even for lenient (wildcard-expanded) fields
    checkRegexLength(ctx, node.text);
    try {
      luceneRegexpMatcher(node.text);
    } catch (e) {
      throw Errors.illegalArgument(`invalid regular expression [${node.text}]: ${(e as Error).message}`);
    }
  }
  const fields = fieldsFor(ctx, node, opts);
  const qs: Query[] = [];
  for (const { field, boost, lenient } of fields) {
    const ft = ctx.fieldType(field);
    if (!ft) continue;
    let q: Query;
    try {
      q = perField(ctx, field, node, opts, lenient);
    } catch (e) {
      if (lenient || opts.match.lenient || opts.simple) continue;
      throw e;
    }
    qs.push(boost === 1 ? q : withBoost(q, boost));
  }
  let out: Query;
  if (qs.length === 0) out = noMatch('no fields');
  else if (qs.length === 1) out = qs[0]!;
  else out = new DisjunctionMaxQuery(qs, Math.fround(opts.tieBreaker));
  const b = (node as { boost?: number }).boost;
  return b !== undefined ? withBoost(out, b) : out;
}

function perField(ctx: QueryParseContext, field: string, node: Exclude<QsNode, { kind: 'bool' }>, opts: QsBuildOptions, lenient: boolean): Query {
  const ft = ctx.fieldType(field)!;
  const stringy = ft.kind === 'text' || ft.kind === 'keyword';
  switch (node.kind) {
    case 'phrase':
      return buildMatchQuery(ctx, field, node.text, { ...opts.match, type: 'phrase', slop: node.slop ?? opts.phraseSlop, lenient }, 'query_string');
    case 'range': {
      const r: Record<string, unknown> = {};
      if (node.lo !== null) r[node.incLo ? 'gte' : 'gt'] = node.lo;
      if (node.hi !== null) r[node.incHi ? 'lte' : 'lt'] = node.hi;
      return rangeParser.parse({ [field]: r }, ctx);
    }
    case 'regexp':
      if (!stringy) throw Errors.illegalArgument('regexp on non-string field');
      try {
        luceneRegexpMatcher(node.text);
      } catch (e) {
        throw Errors.illegalArgument(`invalid regular expression [${node.text}]: ${(e as Error).message}`);
      }
      return new RegexpQuery(field, node.text);
    case 'term': {
      const raw = node.text;
      if (!opts.simple && raw === '*') return new FieldExistsQuery([field]);
      if (node.fuzzy !== undefined && stringy) {
        const t = normalizeForField(ctx, field, unescape(raw));
        const edits = node.fuzzy === 'auto' ? fuzzinessToEdits('AUTO', t) : Math.min(2, node.fuzzy);
        return new FuzzyQuery(field, t, edits, opts.match.prefixLength, opts.match.maxExpansions, opts.match.transpositions);
      }
      if (opts.simple) {
        if (raw.endsWith('*') && stringy) return new PrefixQuery(field, normalizeForField(ctx, field, raw.substring(0, raw.length - 1)));
      } else if (hasWildcard(raw) && stringy) {
        const firstWc = raw.search(/[*?]/);
        if (raw.endsWith('*') && firstWc === raw.length - 1 && !raw.endsWith('\\*')) {
          return new PrefixQuery(field, normalizeForField(ctx, field, unescape(raw.substring(0, raw.length - 1))));
        }
        return new WildcardQuery(field, normalizeForField(ctx, field, raw));
      }
      return buildMatchQuery(ctx, field, unescape(raw), { ...opts.match, lenient, fuzziness: undefined }, 'query_string');
    }
  }
}

export function buildQs(ctx: QueryParseContext, node: QsNode, opts: QsBuildOptions, top = true): Query {
  if (node.kind !== 'bool') return leafQuery(ctx, node, opts);
  const clauses: BooleanClause[] = node.clauses.map((c) => ({ occur: c.occur, query: buildQs(ctx, c.node, opts, false) }));
  if (clauses.length === 0) return noMatch('empty');
  if (!clauses.some((c) => c.occur !== 'must_not')) clauses.push({ occur: 'filter', query: new MatchAllDocsQuery() });
  const nShould = clauses.filter((c) => c.occur === 'should').length;
  const msm = top && opts.minimumShouldMatch !== undefined ? calculateMinShouldMatch(nShould, opts.minimumShouldMatch) : 0;
  checkClauseCount(clauses.length);
  const q = new BooleanQuery(clauses, msm);
  const b = (node as { boost?: number }).boost;
  return b !== undefined ? withBoost(q, b) : q;
}

const QS_KEYS = [
  'query',
  'default_field',
  'fields',
  'default_operator',
  'analyzer',
  'quote_analyzer',
  'allow_leading_wildcard',
  'enable_position_increments',
  'fuzzy_max_expansions',
  'fuzziness',
  'fuzzy_prefix_length',
  'fuzzy_transpositions',
  'phrase_slop',
  'tie_breaker',
  'analyze_wildcard',
  'auto_generate_synonyms_phrase_query',
  'max_determinized_states',
  'minimum_should_match',
  'lenient',
  'time_zone',
  'quote_field_suffix',
  'rewrite',
  'type',
  'escape',
  'flags',
  'auto_generate_phrase_queries',
];

function commonOptions(name: string, o: Record<string, unknown>, ctx: QueryParseContext, simple: boolean): QsBuildOptions {
  let fieldSpecs: string[];
  if (o['fields'] !== undefined) {
    if (!Array.isArray(o['fields'])) throw Errors.parsing(`[${name}] query does not support [fields]`);
    fieldSpecs = o['fields'].map(String);
  } else if (o['default_field'] !== undefined) fieldSpecs = [String(o['default_field'])];
  else fieldSpecs = ctx.defaultFields();
  const op = o['default_operator'] === undefined ? 'or' : String(o['default_operator']).toLowerCase();
  if (op !== 'or' && op !== 'and') throw Errors.illegalArgument(`operator needs to be either [OR] or [AND], but not [${String(o['default_operator'])}]`);
  const match: MatchOptions = { ...defaultMatchOptions('boolean'), operator: op };
  if (o['analyzer'] !== undefined) match.analyzer = String(o['analyzer']);
  if (o['lenient'] !== undefined) match.lenient = boolValue(name, 'lenient', o['lenient']);
  if (o['fuzzy_max_expansions'] !== undefined) match.maxExpansions = intValue(name, 'fuzzy_max_expansions', o['fuzzy_max_expansions']);
  if (o['fuzzy_prefix_length'] !== undefined) match.prefixLength = intValue(name, 'fuzzy_prefix_length', o['fuzzy_prefix_length']);
  if (o['fuzzy_transpositions'] !== undefined) match.transpositions = boolValue(name, 'fuzzy_transpositions', o['fuzzy_transpositions']);
  const fields = resolveFields(ctx, fieldSpecs);
  return {
    fields,
    match,
    tieBreaker: o['tie_breaker'] === undefined ? 0 : numberValue(name, 'tie_breaker', o['tie_breaker']),
    phraseSlop: o['phrase_slop'] === undefined ? 0 : intValue(name, 'phrase_slop', o['phrase_slop']),
    analyzeWildcard: o['analyze_wildcard'] === true,
    simple,
    minimumShouldMatch: o['minimum_should_match'] as string | number | undefined,
  };
}

export const queryStringParser: QueryParser = {
  name: 'query_string',
  parse(json, ctx) {
    const o = typeof json === 'string' ? { query: json } : requireObject('query_string', json);
    checkKeys('query_string', o, QS_KEYS);
    if (o['query'] === undefined) throw Errors.parsing('[query_string] must be provided with a [query]');
    const text = String(o['query']);
    const opts = commonOptions('query_string', o, ctx, false);
    if (text.trim() === '') return noMatch('empty query_string');
    if (text.trim() === '*' || text.trim() === '*:*') return withBoost(new MatchAllDocsQuery(), boostOf('query_string', o));
    let ast: QsNode;
    try {
      ast = new ClassicParser(text, opts.match.operator).parse();
    } catch (e) {
      if (e instanceof QsSyntaxError) {
        const reason = `Failed to parse query [${text}]`;
        const metadata = { index_uuid: ctx.index?.uuid ?? '_na_', index: ctx.indexName };
        // Lucene's ParseException is not an ElasticsearchException: the root cause is the query_shard_exception
        throw new EsError('query_shard_exception', 400, reason, {
          metadata,
          cause: new EsError('parse_exception', 400, e.message),
          rootCauses: [new EsError('query_shard_exception', 400, reason, { metadata })],
        });
      }
      throw e;
    }
    return withBoost(buildQs(ctx, ast, opts), boostOf('query_string', o));
  },
};

export const simpleQueryStringParser: QueryParser = {
  name: 'simple_query_string',
  parse(json, ctx) {
    const o = requireObject('simple_query_string', json);
    checkKeys('simple_query_string', o, [...QS_KEYS, 'flags', 'quote_field_suffix']);
    if (o['query'] === undefined) throw Errors.parsing('[simple_query_string] query text missing');
    const text = String(o['query']);
    const opts = commonOptions('simple_query_string', o, ctx, true);
    const ast = parseSimple(text, opts.match.operator);
    if (ast.kind === 'bool' && ast.clauses.length === 0) return noMatch('empty simple_query_string');
    return withBoost(buildQs(ctx, ast, opts), boostOf('simple_query_string', o));
  },
};

export { isObject };
