import { Errors, LuceneRegexp, compareUtf8, wildcardMatcher, wildcardPrefix, type StringMatcher } from '@strata/core-common';
/**
 * Term-dictionary based queries: terms (set), prefix, wildcard, regexp, fuzzy, term range.
 * Each enumerates the matching terms of a segment and unions their postings (constant score,
 * Lucene's CONSTANT_SCORE rewrite); fuzzy rewrites to a scoring disjunction of the best terms.
 */
import type { LeafReaderContext, TermsDict } from '../index/leaf-reader.js';
import { DocIdSetBuilder, type DocIdSetIterator, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';
import { BooleanQuery, checkClauseCount } from './boolean-query.js';
import { BoostQuery, MatchNoDocsQuery } from './basic-queries.js';
import { TermQuery } from './term-query.js';
import { docsWithOrds } from './doc-values-query.js';

/** enumerates matching term ordinals of one segment */
export type TermMatcher = (dict: TermsDict) => Iterable<number>;

function unionPostings(ctx: LeafReaderContext, field: string, ords: Iterable<number>, dict: TermsDict): DocIdSetIterator | null {
  let builder: DocIdSetBuilder | null = null;
  let single: Uint32Array | null = null;
  for (const ord of ords) {
    const p = dict.postings(ord);
    if (p.docFreq === 0) continue;
    if (!builder && !single) {
      single = p.docs;
      continue;
    }
    if (!builder) {
      builder = new DocIdSetBuilder(ctx.reader.maxDoc);
      builder.addAll(single!);
    }
    builder.addAll(p.docs);
  }
  if (builder) return builder.build();
  if (single) return new SortedArrayIterator(single);
  return null;
}

export abstract class MultiTermQuery extends Query {
  constructor(readonly field: string) {
    super();
  }
  protected abstract matcher(): TermMatcher;
  createWeight(_searcher: IndexSearcher, _needsScores: boolean, boost: number): Weight {
    const field = this.field;
    const m = this.matcher();
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const dict = ctx.reader.terms(field);
      if (dict) return dict.size === 0 ? null : unionPostings(ctx, field, m(dict), dict);
      return docValuesScan(ctx, field, m);
    });
  }
}

/**
 * A field without a terms dictionary but with sorted-set doc values (a runtime keyword, or a keyword with
 * `index: false`): the matcher runs over the segment's doc-value terms and every document is scanned, as
 * Elasticsearch's doc-values and script-field range/prefix/wildcard/regexp/fuzzy queries do.
 */
function docValuesScan(ctx: LeafReaderContext, field: string, m: TermMatcher): DocIdSetIterator | null {
  const dv = ctx.reader.sortedSetDocValues(field);
  if (!dv || dv.terms.length === 0) return null;
  const terms = dv.terms;
  const ordOf = new Map<string, number>();
  terms.forEach((t, i) => ordOf.set(t, i));
  const dict: TermsDict = {
    size: terms.length,
    term: (ord) => terms[ord]!,
    ord: (t) => ordOf.get(t) ?? -1,
    seekCeil: (target) => {
      let lo = 0;
      let hi = terms.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (terms[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
    postings: () => {
      throw new Error('doc-values terms have no postings');
    },
    docFreq: () => {
      throw new Error('doc-values terms have no postings');
    },
  };
  return docsWithOrds(ctx.reader.maxDoc, dv, new Set(m(dict)));
}

/** Lucene's TermInSetQuery (terms query): constant score union of the postings of the given terms */
export class TermInSetQuery extends MultiTermQuery {
  readonly terms: string[];
  constructor(field: string, terms: Iterable<string>) {
    super(field);
    this.terms = [...new Set(terms)].sort();
  }
  protected matcher(): TermMatcher {
    const terms = this.terms;
    return function* (dict) {
      for (const t of terms) {
        const o = dict.ord(t);
        if (o >= 0) yield o;
      }
    };
  }
  toString(): string {
    return `${this.field}:(${this.terms.join(' ')})`;
  }
}

/** terms that equal `value` ignoring case (term query `case_insensitive`) */
export class CaseInsensitiveTermQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly value: string,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const lower = this.value.toLowerCase();
    return function* (dict) {
      for (let o = 0; o < dict.size; o++) if (dict.term(o).toLowerCase() === lower) yield o;
    };
  }
  toString(): string {
    return `${this.field}:${this.value}`;
  }
}

export class PrefixQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly prefix: string,
    readonly caseInsensitive = false,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const prefix = this.prefix;
    if (this.caseInsensitive) {
      const lp = prefix.toLowerCase();
      return function* (dict) {
        for (let o = 0; o < dict.size; o++) if (dict.term(o).toLowerCase().startsWith(lp)) yield o;
      };
    }
    return function* (dict) {
      for (let o = dict.seekCeil(prefix); o < dict.size; o++) {
        if (!dict.term(o).startsWith(prefix)) break;
        yield o;
      }
    };
  }
  toString(): string {
    return `${this.field}:${this.prefix}*`;
  }
}

/** the wildcard query's pattern (`*`, `?`, `\` escapes) as a whole-term matcher and its literal prefix */
export function wildcardTermMatcher(pattern: string, caseInsensitive = false): { re: StringMatcher; prefix: string } {
  return { re: wildcardMatcher(pattern, caseInsensitive), prefix: caseInsensitive ? '' : wildcardPrefix(pattern) };
}

export class WildcardQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly pattern: string,
    readonly caseInsensitive = false,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const { re, prefix } = wildcardTermMatcher(this.pattern, this.caseInsensitive);
    return function* (dict) {
      for (let o = prefix ? dict.seekCeil(prefix) : 0; o < dict.size; o++) {
        const t = dict.term(o);
        if (prefix && !t.startsWith(prefix)) break;
        if (re.test(t)) yield o;
      }
    };
  }
  toString(): string {
    return `${this.field}:${this.pattern}`;
  }
}

/** a Lucene regexp (whole-term, linear time); throws RegexSyntaxError on a malformed pattern */
export function luceneRegexpMatcher(pattern: string, caseInsensitive = false, flags?: string | number): StringMatcher {
  const re = LuceneRegexp.compile(pattern, { caseInsensitive, ...(flags !== undefined ? { flags } : {}) });
  return { test: (s) => re.matches(s) };
}

export class RegexpQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly pattern: string,
    readonly caseInsensitive = false,
    readonly flags?: string | number,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const re = luceneRegexpMatcher(this.pattern, this.caseInsensitive, this.flags);
    return function* (dict) {
      for (let o = 0; o < dict.size; o++) if (re.test(dict.term(o))) yield o;
    };
  }
  toString(): string {
    return `${this.field}:/${this.pattern}/`;
  }
}

/** range over the terms dictionary (keyword / text fields) */
const HIGH_CODE_UNIT = /[\ud800-\uffff]/;

export class TermRangeQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly lower: string | null,
    readonly upper: string | null,
    readonly includeLower: boolean,
    readonly includeUpper: boolean,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const { lower, upper, includeLower, includeUpper } = this;
    if ((lower !== null && HIGH_CODE_UNIT.test(lower)) || (upper !== null && HIGH_CODE_UNIT.test(upper))) {
      // the dictionary is in UTF-16 order; a bound at or above U+D800 may not cut it where UTF-8 byte
      // order (Lucene's) does, so every term is compared (bounds below U+D800 agree in both orders)
      return function* (dict) {
        for (let o = 0; o < dict.size; o++) {
          const t = dict.term(o);
          if (lower !== null) {
            const c = compareUtf8(t, lower);
            if (c < 0 || (c === 0 && !includeLower)) continue;
          }
          if (upper !== null) {
            const c = compareUtf8(t, upper);
            if (c > 0 || (c === 0 && !includeUpper)) continue;
          }
          yield o;
        }
      };
    }
    return function* (dict) {
      let o = lower === null ? 0 : dict.seekCeil(lower);
      if (lower !== null && !includeLower && o < dict.size && dict.term(o) === lower) o++;
      for (; o < dict.size; o++) {
        if (upper !== null) {
          const t = dict.term(o);
          if (t > upper || (!includeUpper && t === upper)) break;
        }
        yield o;
      }
    };
  }
  toString(): string {
    return `${this.field}:${this.includeLower ? '[' : '{'}${this.lower ?? '*'} TO ${this.upper ?? '*'}${this.includeUpper ? ']' : '}'}`;
  }
}

/** Damerau-Levenshtein (optimal string alignment) distance, bounded by max (returns max+1 when above) */
export function editDistance(a: string, b: string, max: number, transpositions = true): number {
  const ca = [...a];
  const cb = [...b];
  const n = ca.length;
  const m = cb.length;
  if (Math.abs(n - m) > max) return max + 1;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = new Array<number>(m + 1);
  let cur = new Array<number>(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = ca[i - 1] === cb[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (transpositions && i > 1 && j > 1 && ca[i - 1] === cb[j - 2] && ca[i - 2] === cb[j - 1]) {
        v = Math.min(v, prev2[j - 2]! + 1);
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

/** Elasticsearch Fuzziness AUTO[:low,high] → max edits for a term */
export function fuzzinessToEdits(fuzziness: string | number | undefined, term: string): number {
  if (fuzziness === undefined || fuzziness === null) return autoEdits(term, 3, 6);
  const s = String(fuzziness).trim();
  const up = s.toUpperCase();
  if (up === 'AUTO') return autoEdits(term, 3, 6);
  if (up.startsWith('AUTO:')) {
    const [lo, hi] = up.substring(5).split(',').map((x) => parseInt(x, 10));
    return autoEdits(term, lo ?? 3, hi ?? 6);
  }
  const n = Number(s);
  if (!Number.isFinite(n)) throw Errors.illegalArgument(`failed to parse fuzziness [${s}]`);
  const edits = Math.floor(n);
  if (edits < 0 || edits > 2) throw Errors.illegalArgument(`Valid edit distances are [0, 1, 2] but was [${edits}]`);
  return edits;
}

function autoEdits(term: string, low: number, high: number): number {
  const len = [...term].length;
  return len < low ? 0 : len < high ? 1 : 2;
}

/**
 * A fuzzy query on a field searched through its doc values (a runtime keyword, a keyword with `index: false`):
 * every value within the edits matches, constant score, no max_expansions (Elasticsearch's
 * StringScriptFieldFuzzyQuery and doc-values fuzzy queries).
 */
export class DocValuesFuzzyQuery extends MultiTermQuery {
  constructor(
    field: string,
    readonly term: string,
    readonly maxEdits: number,
    readonly prefixLength = 0,
    readonly transpositions = true,
  ) {
    super(field);
  }
  protected matcher(): TermMatcher {
    const { term, maxEdits, transpositions } = this;
    const prefix = [...term].slice(0, this.prefixLength).join('');
    return function* (dict) {
      for (let o = 0; o < dict.size; o++) {
        const t = dict.term(o);
        if (t.startsWith(prefix) && editDistance(t, term, maxEdits, transpositions) <= maxEdits) yield o;
      }
    };
  }
  toString(): string {
    return `${this.field}:${this.term}~${this.maxEdits} (doc values)`;
  }
}

/** FuzzyQuery: rewritten to a disjunction of the max_expansions closest terms (scored as term queries, boosted by similarity) */
export class FuzzyQuery extends Query {
  constructor(
    readonly field: string,
    readonly term: string,
    readonly maxEdits: number,
    readonly prefixLength = 0,
    readonly maxExpansions = 50,
    readonly transpositions = true,
  ) {
    super();
  }
  override rewrite(searcher: IndexSearcher): Query {
    const found = new Map<string, number>();
    const prefix = [...this.term].slice(0, this.prefixLength).join('');
    for (const leaf of searcher.leaves) {
      const dict = leaf.reader.terms(this.field);
      if (!dict) continue;
      for (let o = prefix ? dict.seekCeil(prefix) : 0; o < dict.size; o++) {
        const t = dict.term(o);
        if (prefix && !t.startsWith(prefix)) break;
        if (found.has(t)) continue;
        const d = editDistance(t, this.term, this.maxEdits, this.transpositions);
        if (d <= this.maxEdits) found.set(t, d);
      }
    }
    if (found.size === 0) return new MatchNoDocsQuery('no fuzzy terms');
    const best = [...found.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, this.maxExpansions);
    const len = Math.max(1, [...this.term].length);
    const clauses = best.map(([t, d]) => ({
      occur: 'should' as const,
      query: d === 0 ? new TermQuery(this.field, t) : new BoostQuery(new TermQuery(this.field, t), Math.fround(Math.max(0, 1 - d / len))),
    }));
    checkClauseCount(clauses.length);
    return clauses.length === 1 ? clauses[0]!.query : new BooleanQuery(clauses);
  }
  createWeight(searcher: IndexSearcher, needsScores: boolean, boost: number): Weight {
    return this.rewrite(searcher).createWeight(searcher, needsScores, boost);
  }
  toString(): string {
    return `${this.field}:${this.term}~${this.maxEdits}`;
  }
}
