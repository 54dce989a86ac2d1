import { Errors } from '@strata/core-common';
import { BooleanQuery } from '../../search/boolean-query.js';
import { MoreLikeThisQuery } from '../../search/more-like-this-query.js';
import { TermInSetQuery } from '../../search/multi-term-query.js';
import { boostOf, checkKeys, isObject, noMatch, numberValue, requireObject, withBoost } from '../parse-utils.js';
import type { QueryParser } from '../query-parser.js';
import { resolveFields } from './match.js';

const KEYS = [
  'fields',
  'like',
  'unlike',
  'like_text',
  'ids',
  'docs',
  'min_term_freq',
  'max_query_terms',
  'min_doc_freq',
  'max_doc_freq',
  'min_word_length',
  'max_word_length',
  'stop_words',
  'analyzer',
  'minimum_should_match',
  'boost_terms',
  'include',
  'fail_on_unsupported_field',
];

/** like/unlike items: strings, or `{_index,_id}` already replaced by `{doc: {...}}` / text by the coordinator */
function texts(v: unknown): { texts: string[]; ids: string[] } {
  const out = { texts: [] as string[], ids: [] as string[] };
  for (const item of Array.isArray(v) ? v : v === undefined ? [] : [v]) {
    if (typeof item === 'string') out.texts.push(item);
    else if (isObject(item)) {
      if (typeof item['_text'] === 'string') out.texts.push(item['_text']);
      if (item['_id'] !== undefined) out.ids.push(String(item['_id']));
    }
  }
  return out;
}

export const moreLikeThisParser: QueryParser = {
  name: 'more_like_this',
  parse(json, ctx) {
    const o = requireObject('more_like_this', json);
    checkKeys('more_like_this', o, KEYS);
    const like = texts(o['like'] ?? o['like_text']);
    const unlike = texts(o['unlike']);
    if (like.texts.length === 0 && like.ids.length === 0) throw Errors.illegalArgument('more_like_this requires \'like\' to be specified');
    const fieldSpecs = Array.isArray(o['fields']) ? o['fields'].map(String) : ctx.defaultFields();
    const fields = resolveFields(ctx, fieldSpecs).filter((f) => {
      const ft = ctx.fieldType(f.field);
      return ft && (ft.kind === 'text' || ft.kind === 'keyword');
    });
    if (fields.length === 0) return noMatch('more_like_this: no fields');
    const analyze = (field: string, text: string): string[] => {
      const ft = ctx.fieldType(field)!;
      const a = typeof o['analyzer'] === 'string' ? ctx.analyzer(o['analyzer']) : ft.searchAnalyzer ?? ft.indexAnalyzer;
      if (!a) return [String(ft.termValue(text))];
      return a.analyze(text).map((t) => t.term);
    };
    const termFreqs = new Map<string, Map<string, number>>();
    const unlikeTerms = new Map<string, Set<string>>();
    for (const { field } of fields) {
      const m = new Map<string, number>();
      for (const t of like.texts) for (const term of analyze(field, t)) m.set(term, (m.get(term) ?? 0) + 1);
      termFreqs.set(field, m);
      const u = new Set<string>();
      for (const t of unlike.texts) for (const term of analyze(field, t)) u.add(term);
      unlikeTerms.set(field, u);
    }
    const num = (k: string, d: number) => (o[k] === undefined ? d : numberValue('more_like_this', k, o[k]));
    const q = new MoreLikeThisQuery(termFreqs, {
      minTermFreq: num('min_term_freq', 2),
      maxQueryTerms: num('max_query_terms', 25),
      minDocFreq: num('min_doc_freq', 5),
      maxDocFreq: num('max_doc_freq', Number.MAX_SAFE_INTEGER),
      minWordLength: num('min_word_length', 0),
      maxWordLength: num('max_word_length', 0),
      minimumShouldMatch: (o['minimum_should_match'] as string | number | undefined) ?? '30%',
      stopWords: new Set(Array.isArray(o['stop_words']) ? o['stop_words'].map(String) : []),
      unlike: unlikeTerms,
    });
    let out: import('../../search/query.js').Query = q;
    if (like.ids.length > 0 && o['include'] !== true) {
      // the liked documents themselves are excluded unless include: true
      out = new BooleanQuery([
        { occur: 'must', query: q },
        { occur: 'must_not', query: new TermInSetQuery('_id', like.ids) },
      ]);
    }
    return withBoost(out, boostOf('more_like_this', o));
  },
};
