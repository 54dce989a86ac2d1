/**
 * Lucene's IndexSearcher over one shard's DirectoryReader: shard-level statistics for scoring
 * (query_then_fetch: stats are per shard, summed over the segments) and weight creation.
 */
import type { DirectoryReader, LeafReaderContext, Postings } from '../index/leaf-reader.js';
import type { FilterCacheView } from './filter-cache.js';
import type { Query, Weight } from './query.js';

export interface CollectionStatistics {
  docCount: number;
  sumTotalTermFreq: number;
  sumDocFreq: number;
}

export interface TermStatistics {
  docFreq: number;
  totalTermFreq: number;
}

/** aggregated statistics of all target shards (dfs_query_then_fetch); plain data */
export interface DfsStats {
  /** field → statistics */
  fields: Record<string, CollectionStatistics>;
  /** `field\u0000term` → statistics */
  terms: Record<string, TermStatistics>;
}

export class IndexSearcher {
  private readonly collStats = new Map<string, CollectionStatistics>();
  private readonly termStats = new Map<string, TermStatistics>();
  private readonly states = new Map<string, ReadonlyArray<Postings | null>>();

  constructor(
    readonly reader: DirectoryReader,
    private readonly dfs?: DfsStats,
    /** where filters keep the doc sets they build per segment (null: built for every search) */
    readonly filterCache: FilterCacheView | null = null,
  ) {}

  get leaves(): readonly LeafReaderContext[] {
    return this.reader.leaves;
  }

  collectionStatistics(field: string): CollectionStatistics {
    const d = this.dfs?.fields[field];
    if (d) return d;
    let s = this.collStats.get(field);
    if (!s) {
      s = { docCount: 0, sumTotalTermFreq: 0, sumDocFreq: 0 };
      for (const leaf of this.reader.leaves) {
        const fs = leaf.reader.fieldStats(field);
        if (fs) {
          s.docCount += fs.docCount;
          s.sumTotalTermFreq += fs.sumTotalTermFreq;
          s.sumDocFreq += fs.sumDocFreq;
        }
      }
      this.collStats.set(field, s);
    }
    return s;
  }

  termStatistics(field: string, term: string): TermStatistics {
    const key = field + '\u0000' + term;
    const d = this.dfs?.terms[key];
    if (d) return d;
    let s = this.termStats.get(key);
    if (!s) {
      s = { docFreq: 0, totalTermFreq: 0 };
      for (const p of this.termStates(field, term)) {
        if (p) {
          s.docFreq += p.docFreq;
          s.totalTermFreq += p.totalTermFreq;
        }
      }
      this.termStats.set(key, s);
    }
    return s;
  }

  /** a term's postings in every leaf (by leaf ord), looked up once per searcher (Lucene's TermStates) */
  termStates(field: string, term: string): ReadonlyArray<Postings | null> {
    const key = field + '\u0000' + term;
    let st = this.states.get(key);
    if (!st) {
      st = this.reader.leaves.map((leaf) => leaf.reader.postings(field, term));
      this.states.set(key, st);
    }
    return st;
  }

  /** a term's postings in one leaf: from termStates for this searcher's leaves, a plain lookup otherwise */
  termPostings(ctx: LeafReaderContext, field: string, term: string): Postings | null {
    if (this.reader.leaves[ctx.ord]?.reader !== ctx.reader) return ctx.reader.postings(field, term);
    return this.termStates(field, term)[ctx.ord] ?? null;
  }

  /** rewrites until fixpoint */
  rewrite(query: Query): Query {
    let q = query;
    for (let i = 0; i < 32; i++) {
      const r = q.rewrite(this);
      if (r === q) return q;
      q = r;
    }
    return q;
  }

  createWeight(query: Query, needsScores: boolean, boost = 1): Weight {
    return this.rewrite(query).createWeight(this, needsScores, boost);
  }
}
