/**
 * dfs_query_then_fetch: the terms a query scores on, and their statistics summed over all target shards.
 */
import { BoostQuery, BoostingQuery, ConstantScoreQuery, DisjunctionMaxQuery } from './basic-queries.js';
import { BooleanQuery } from './boolean-query.js';
import { FunctionScoreQuery } from './function-score-query.js';
import { NonNestedDocsQuery, ToParentBlockJoinQuery } from './nested/block-join-query.js';
import type { DfsStats, IndexSearcher } from './index-searcher.js';
import { PhraseQuery } from './phrase-query.js';
import type { Query } from './query.js';
import { TermQuery } from './term-query.js';

/** scoring terms of a rewritten query: field → terms */
export function scoringTerms(q: Query, out = new Map<string, Set<string>>()): Map<string, Set<string>> {
  const add = (f: string, t: string) => {
    let s = out.get(f);
    if (!s) out.set(f, (s = new Set()));
    s.add(t);
  };
  if (q instanceof TermQuery) add(q.field, q.term);
  else if (q instanceof PhraseQuery) for (const alts of q.terms) for (const t of alts) add(q.field, t);
  else if (q instanceof BooleanQuery) for (const c of q.clauses) scoringTerms(c.query, out);
  else if (q instanceof BoostQuery || q instanceof ConstantScoreQuery) scoringTerms(q.inner, out);
  else if (q instanceof DisjunctionMaxQuery) for (const d of q.disjuncts) scoringTerms(d, out);
  else if (q instanceof BoostingQuery) scoringTerms(q.positive, out);
  else if (q instanceof FunctionScoreQuery) scoringTerms(q.query, out);
  else if (q instanceof NonNestedDocsQuery) scoringTerms(q.inner, out);
  else if (q instanceof ToParentBlockJoinQuery) scoringTerms(q.child, out);
  return out;
}

/** the shard-level statistics of the query's terms (dfs phase of one shard) */
export function shardDfs(searcher: IndexSearcher, query: Query): DfsStats {
  const rewritten = searcher.rewrite(query);
  const out: DfsStats = { fields: {}, terms: {} };
  for (const [field, terms] of scoringTerms(rewritten)) {
    out.fields[field] = { ...searcher.collectionStatistics(field) };
    for (const t of terms) out.terms[field + '\u0000' + t] = { ...searcher.termStatistics(field, t) };
  }
  return out;
}

/** sums shard dfs results (Elasticsearch's aggregateDfs) */
export function aggregateDfs(parts: readonly DfsStats[]): DfsStats {
  const out: DfsStats = { fields: {}, terms: {} };
  for (const p of parts) {
    for (const [f, s] of Object.entries(p.fields)) {
      const o = (out.fields[f] ??= { docCount: 0, sumTotalTermFreq: 0, sumDocFreq: 0 });
      o.docCount += s.docCount;
      o.sumTotalTermFreq += s.sumTotalTermFreq;
      o.sumDocFreq += s.sumDocFreq;
    }
    for (const [k, s] of Object.entries(p.terms)) {
      const o = (out.terms[k] ??= { docFreq: 0, totalTermFreq: 0 });
      o.docFreq += s.docFreq;
      o.totalTermFreq += s.totalTermFreq;
    }
  }
  return out;
}
