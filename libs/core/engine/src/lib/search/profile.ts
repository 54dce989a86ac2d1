/**
 * Search profiling (`"profile": true`), as Elasticsearch's QueryProfiler: a profiling IndexSearcher wraps the
 * Weight and Scorer of the main query and of every sub-query it creates through the searcher, and measures
 * create_weight, build_scorer, next_doc, advance, score, compute_max_score and set_min_competitive_score
 * (time and call count per query node); rewrite time is measured apart. Timings are wall-clock nanoseconds of
 * the calls as they ran (children's time is inside their parent's, as in Elasticsearch).
 */
import type { DirectoryReader, LeafReaderContext } from '../index/leaf-reader.js';
import type { FixedBitSet } from './doc-id-set.js';
import type { LeafAggregationCollector } from '../aggregations/api.js';
import { IndexSearcher, type DfsStats } from './index-searcher.js';
import { Scorer, type Explanation, type Query, type Weight } from './query.js';

/** the timed operations of a query (QueryTimingType), in the order Elasticsearch lists them */
const TIMINGS = ['create_weight', 'build_scorer', 'next_doc', 'advance', 'match', 'score', 'shallow_advance', 'compute_max_score', 'set_min_competitive_score', 'count_weight'] as const;
type Timing = (typeof TIMINGS)[number];

/** the timed operations of an aggregator (AggregationTimingType) */
const AGG_TIMINGS = ['initialize', 'build_leaf_collector', 'collect', 'post_collection', 'build_aggregation', 'reduce'] as const;
export type AggregationTiming = (typeof AGG_TIMINGS)[number];

const now = (): number => performance.now();

/** time and call count per timed operation; rendered as Elasticsearch's `breakdown` (nanos + `_count`) */
class Timings<K extends string> {
  private readonly millis = new Map<K, number>();
  private readonly counts = new Map<K, number>();

  add(t: K, ms: number): void {
    this.millis.set(t, (this.millis.get(t) ?? 0) + ms);
    this.counts.set(t, (this.counts.get(t) ?? 0) + 1);
  }

  /** the breakdown over `keys` and its total in nanoseconds */
  breakdown(keys: readonly K[]): { breakdown: Record<string, number>; total: number } {
    const breakdown: Record<string, number> = {};
    let total = 0;
    for (const t of keys) {
      const nanos = Math.round((this.millis.get(t) ?? 0) * 1e6);
      breakdown[t] = nanos;
      breakdown[`${t}_count`] = this.counts.get(t) ?? 0;
      total += nanos;
    }
    return { breakdown, total };
  }

  /** everything timed, in nanoseconds */
  get nanos(): number {
    let ms = 0;
    for (const v of this.millis.values()) ms += v;
    return Math.round(ms * 1e6);
  }
}

export class QueryProfileNode {
  readonly children: QueryProfileNode[] = [];
  private readonly childByQuery = new Map<Query, QueryProfileNode>();
  private readonly timings = new Timings<Timing>();

  constructor(readonly query: Query) {}

  add(t: Timing, ms: number): void {
    this.timings.add(t, ms);
  }

  child(q: Query): QueryProfileNode {
    let c = this.childByQuery.get(q);
    if (!c) {
      c = new QueryProfileNode(q);
      this.childByQuery.set(q, c);
      this.children.push(c);
    }
    return c;
  }

  /** Elasticsearch's ProfileResult of a query: type, description, time_in_nanos, breakdown, children */
  toJSON(): Record<string, unknown> {
    const { breakdown, total } = this.timings.breakdown(TIMINGS);
    return {
      type: this.query.constructor.name,
      description: this.query.toString(),
      time_in_nanos: total,
      breakdown,
      ...(this.children.length > 0 ? { children: this.children.map((c) => c.toJSON()) } : {}),
    };
  }

  /** time of this node's own calls (children included) in nanoseconds */
  get nanos(): number {
    return this.timings.nanos;
  }
}

/** One top-level aggregation's profile (its sub-aggregations' time is inside its collect and build). */
export class AggregationProfileNode {
  private readonly timings = new Timings<AggregationTiming>();
  type = '';

  constructor(readonly name: string) {}

  /** runs `fn`, timing it as `t` */
  time<T>(t: AggregationTiming, fn: () => T): T {
    const t0 = now();
    try {
      return fn();
    } finally {
      this.timings.add(t, now() - t0);
    }
  }

  /** Elasticsearch's aggregation ProfileResult: type, description (the name), time_in_nanos, breakdown */
  toJSON(): Record<string, unknown> {
    const { breakdown, total } = this.timings.breakdown(AGG_TIMINGS);
    return { type: this.type, description: this.name, time_in_nanos: total, breakdown };
  }
}

/** One shard's profile: the query tree of the main query, the rewrite time and the collection time. */
export class QueryProfiler {
  readonly roots: QueryProfileNode[] = [];
  private readonly rootByQuery = new Map<Query, QueryProfileNode>();
  private readonly stack: QueryProfileNode[] = [];
  private rewriteDepth = 0;
  rewriteMillis = 0;
  /** time spent handing matching documents to the aggregations (their leaf collectors) */
  aggregationMillis = 0;
  /** the top-level aggregations, timed by the aggregation framework */
  readonly aggregations: AggregationProfileNode[] = [];

  /** a profile node for a top-level aggregation */
  aggregation(name: string): AggregationProfileNode {
    const n = new AggregationProfileNode(name);
    this.aggregations.push(n);
    return n;
  }

  /** a searcher that profiles `main` and every query its weight creates through the searcher */
  searcher(reader: DirectoryReader, dfs: DfsStats | undefined, main: Query): IndexSearcher {
    return new ProfilingIndexSearcher(reader, dfs, this, main);
  }

  /** @internal */
  enter(q: Query, isMain: boolean): QueryProfileNode | undefined {
    const parent = this.stack[this.stack.length - 1];
    let node: QueryProfileNode | undefined;
    if (parent) node = parent.child(q);
    else if (isMain) {
      node = this.rootByQuery.get(q);
      if (!node) {
        node = new QueryProfileNode(q);
        this.rootByQuery.set(q, node);
        this.roots.push(node);
      }
    }
    if (node) this.stack.push(node);
    return node;
  }

  /** @internal */
  exit(): void {
    this.stack.pop();
  }

  /** @internal */
  timeRewrite<T>(fn: () => T): T {
    if (this.rewriteDepth > 0) return fn();
    this.rewriteDepth++;
    const t0 = now();
    try {
      return fn();
    } finally {
      this.rewriteMillis += now() - t0;
      this.rewriteDepth--;
    }
  }

  /** a leaf collector of the aggregations whose collect calls are timed into aggregationMillis */
  timeAggregations(lc: LeafAggregationCollector): LeafAggregationCollector {
    const out: LeafAggregationCollector = {
      collect: (doc, score) => {
        const t0 = now();
        lc.collect(doc, score);
        this.aggregationMillis += now() - t0;
      },
    };
    if (lc.collectAll) {
      out.collectAll = (live) => {
        const t0 = now();
        try {
          return lc.collectAll!(live);
        } finally {
          this.aggregationMillis += now() - t0;
        }
      };
    }
    return out;
  }

  /** nanoseconds the profiled queries' own calls took */
  get queryNanos(): number {
    return this.roots.reduce((s, r) => s + r.nanos, 0);
  }
}

class ProfilingIndexSearcher extends IndexSearcher {
  private readonly mainQueries = new Set<Query>();

  constructor(
    reader: DirectoryReader,
    dfs: DfsStats | undefined,
    private readonly profiler: QueryProfiler,
    main: Query,
  ) {
    super(reader, dfs);
    this.mainQueries.add(main);
  }

  override rewrite(query: Query): Query {
    return this.profiler.timeRewrite(() => super.rewrite(query));
  }

  override createWeight(query: Query, needsScores: boolean, boost = 1): Weight {
    const rewritten = this.rewrite(query);
    const isMain = this.mainQueries.has(query);
    if (isMain) this.mainQueries.add(rewritten);
    const node = this.profiler.enter(rewritten, isMain);
    if (!node) return rewritten.createWeight(this, needsScores, boost);
    const t0 = now();
    try {
      return new ProfileWeight(rewritten.createWeight(this, needsScores, boost), node);
    } finally {
      node.add('create_weight', now() - t0);
      this.profiler.exit();
    }
  }
}

class ProfileWeight implements Weight {
  readonly explain?: (ctx: LeafReaderContext, doc: number) => Explanation;

  constructor(
    private readonly inner: Weight,
    private readonly node: QueryProfileNode,
  ) {
    if (inner.explain) this.explain = (ctx, doc) => inner.explain!(ctx, doc);
  }

  get query(): Query {
    return this.inner.query;
  }

  scorer(ctx: LeafReaderContext): Scorer | null {
    const t0 = now();
    const s = this.inner.scorer(ctx);
    this.node.add('build_scorer', now() - t0);
    return s ? new ProfileScorer(s, this.node) : null;
  }
}

class ProfileScorer extends Scorer {
  constructor(
    private readonly inner: Scorer,
    private readonly node: QueryProfileNode,
  ) {
    super();
  }

  docID(): number {
    return this.inner.docID();
  }

  nextDoc(): number {
    const t0 = now();
    const d = this.inner.nextDoc();
    this.node.add('next_doc', now() - t0);
    return d;
  }

  advance(target: number): number {
    const t0 = now();
    const d = this.inner.advance(target);
    this.node.add('advance', now() - t0);
    return d;
  }

  cost(): number {
    return this.inner.cost();
  }

  override bitSet(): FixedBitSet | null {
    return this.inner.bitSet();
  }

  override matcher(): ((doc: number) => boolean) | null {
    return this.inner.matcher();
  }

  score(): number {
    const t0 = now();
    const s = this.inner.score();
    this.node.add('score', now() - t0);
    return s;
  }

  override maxScore(): number {
    const t0 = now();
    const m = this.inner.maxScore();
    this.node.add('compute_max_score', now() - t0);
    return m;
  }

  override setMinCompetitiveScore(minScore: number): void {
    const t0 = now();
    this.inner.setMinCompetitiveScore(minScore);
    this.node.add('set_min_competitive_score', now() - t0);
  }
}
