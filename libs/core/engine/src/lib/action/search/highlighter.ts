/** A basic plain highlighter: query terms per field, marked with pre/post tags in fragments of the source text. */
import type { Token } from '../../analysis/analyzer.js';
import type { MappedFieldType } from '../../mapper/mapped-field-type.js';
import { BoostQuery, BoostingQuery, ConstantScoreQuery, DisjunctionMaxQuery } from '../../search/basic-queries.js';
import { BooleanQuery } from '../../search/boolean-query.js';
import { FunctionScoreQuery } from '../../search/function-score-query.js';
import { NonNestedDocsQuery, ToParentBlockJoinQuery } from '../../search/nested/block-join-query.js';
import {
  CaseInsensitiveTermQuery,
  FuzzyQuery,
  PrefixQuery,
  RegexpQuery,
  TermInSetQuery,
  WildcardQuery,
  luceneRegexpMatcher,
  wildcardTermMatcher,
} from '../../search/multi-term-query.js';
import { PhrasePrefixQuery, PhraseQuery } from '../../search/phrase-query.js';
import type { Query } from '../../search/query.js';
import { TermQuery } from '../../search/term-query.js';
import type { HighlightSpec } from '../../search/spi-search.js';

export type HighlightTerms = Map<string, { terms: Set<string>; tests: Array<(t: string) => boolean> }>;

export function extractHighlightTerms(q: Query, out: HighlightTerms = new Map()): HighlightTerms {
  const entry = (f: string) => {
    let e = out.get(f);
    if (!e) out.set(f, (e = { terms: new Set(), tests: [] }));
    return e;
  };
  if (q instanceof TermQuery) entry(q.field).terms.add(q.term);
  else if (q instanceof BooleanQuery) {
    for (const c of q.clauses) if (c.occur !== 'must_not') extractHighlightTerms(c.query, out);
  } else if (q instanceof BoostQuery) extractHighlightTerms(q.inner, out);
  else if (q instanceof ConstantScoreQuery) extractHighlightTerms(q.inner, out);
  else if (q instanceof DisjunctionMaxQuery) for (const d of q.disjuncts) extractHighlightTerms(d, out);
  else if (q instanceof BoostingQuery) extractHighlightTerms(q.positive, out);
  else if (q instanceof FunctionScoreQuery) extractHighlightTerms(q.query, out);
  else if (q instanceof ToParentBlockJoinQuery || q instanceof NonNestedDocsQuery) extractHighlightTerms(q instanceof NonNestedDocsQuery ? q.inner : q.child, out);
  else if (q instanceof PhraseQuery || q instanceof PhrasePrefixQuery) {
    for (const alts of q.terms) for (const t of alts) entry(q.field).terms.add(t);
    if (q instanceof PhrasePrefixQuery) {
      const last = q.terms[q.terms.length - 1]!;
      entry(q.field).tests.push((t) => last.some((p) => t.startsWith(p)));
    }
  } else if (q instanceof TermInSetQuery) for (const t of q.terms) entry(q.field).terms.add(t);
  else if (q instanceof PrefixQuery) entry(q.field).tests.push((t) => t.startsWith(q.prefix));
  else if (q instanceof WildcardQuery) {
    const { re } = wildcardTermMatcher(q.pattern, q.caseInsensitive);
    entry(q.field).tests.push((t) => re.test(t));
  } else if (q instanceof RegexpQuery) {
    const re = luceneRegexpMatcher(q.pattern, q.caseInsensitive, q.flags);
    entry(q.field).tests.push((t) => re.test(t));
  } else if (q instanceof CaseInsensitiveTermQuery) {
    const l = q.value.toLowerCase();
    entry(q.field).tests.push((t) => t.toLowerCase() === l);
  } else if (q instanceof FuzzyQuery) entry(q.field).terms.add(q.term);
  return out;
}

export function highlightField(
  ft: MappedFieldType,
  values: unknown[],
  terms: HighlightTerms,
  spec: HighlightSpec,
  opts: { fragmentSize?: number; numberOfFragments?: number; preTags?: string[]; postTags?: string[] },
): string[] {
  const e = terms.get(ft.name) ?? (spec.requireFieldMatch ? undefined : mergeAll(terms));
  if (!e) return [];
  const pre = (opts.preTags ?? spec.preTags)[0] ?? '<em>';
  const post = (opts.postTags ?? spec.postTags)[0] ?? '</em>';
  const fragSize = opts.fragmentSize ?? spec.fragmentSize;
  const numFrags = opts.numberOfFragments ?? spec.numberOfFragments;
  const frags: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string' && typeof v !== 'number') continue;
    const text = String(v);
    let tokens: Token[];
    if (ft.kind === 'text' && ft.indexAnalyzer) tokens = ft.indexAnalyzer.analyze(text);
    else tokens = [{ term: String(ft.termValue(text)), position: 0, startOffset: 0, endOffset: text.length, type: 'word' }];
    const hits = tokens.filter((t) => e.terms.has(t.term) || e.tests.some((f) => f(t.term)));
    if (hits.length === 0) continue;
    const mark = (from: number, to: number): string => {
      let out = '';
      let pos = from;
      for (const h of hits) {
        if (h.startOffset < from || h.endOffset > to || h.startOffset < pos) continue;
        out += text.substring(pos, h.startOffset) + pre + text.substring(h.startOffset, h.endOffset) + post;
        pos = h.endOffset;
      }
      return out + text.substring(pos, to);
    };
    if (numFrags === 0) {
      frags.push(mark(0, text.length));
      continue;
    }
    // fragments of ~fragSize chars, aligned on token boundaries, keeping those with hits
    let start = 0;
    while (start < text.length && frags.length < numFrags) {
      let end = Math.min(text.length, start + fragSize);
      const tokEnd = tokens.find((t) => t.startOffset < end && t.endOffset > end);
      if (tokEnd) end = tokEnd.endOffset;
      if (hits.some((h) => h.startOffset >= start && h.endOffset <= end)) frags.push(mark(start, end).trim());
      if (end <= start) break;
      start = end;
    }
    if (frags.length >= numFrags) break;
  }
  return frags;
}

function mergeAll(terms: HighlightTerms) {
  const m = { terms: new Set<string>(), tests: [] as Array<(t: string) => boolean> };
  for (const e of terms.values()) {
    for (const t of e.terms) m.terms.add(t);
    m.tests.push(...e.tests);
  }
  return m;
}
