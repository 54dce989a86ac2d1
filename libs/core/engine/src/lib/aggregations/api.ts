/**
 * CONTRACT (owned by aggregations; consumed by search (query phase per shard, coordinator reduce),
 * request cache (caches shard results) and paging).
 *
 * Flow, per search request:
 *   1. coordinator/shard: `const factories = parseAggregations(body.aggs ?? body.aggregations)`
 *      (throws parsing_exception / illegal_argument_exception like Elasticsearch; parse once, reuse everywhere).
 *   2. shard query phase: `const agg = factories.createShardAggregator(ctx)` (may throw, e.g. fielddata on text);
 *      for every leaf: `const lc = agg.getLeafCollector(leafCtx)`; for every matching LIVE doc (segment-local id)
 *      `lc.collect(doc, score)` (score may be 0 unless `aggregationsNeedScores(factories)`);
 *      then `agg.buildShardResult()` -> plain, structured-clone-safe `InternalAggregations`.
 *      `global` aggregations ignore the query and walk `ctx.leaves` themselves.
 *   3. coordinator: `reduceAggregations(factories, shardResults, { maxBuckets })` (throws too_many_buckets_exception),
 *      then `renderAggregations(factories, reduced, { typedKeys })` -> the `aggregations` object of the response.
 *      With zero shard results, reduce returns the empty aggregations (every agg rendered as ES renders "no docs").
 *
 * Supported types (registry.ts): bucket — terms, multi_terms, rare_terms, significant_terms, histogram,
 * date_histogram, auto_date_histogram, range, date_range, ip_range, filter, filters, adjacency_matrix, missing,
 * global, sampler, composite; metrics — min, max, sum, avg, value_count, stats, extended_stats, weighted_avg,
 * cardinality, percentiles, percentile_ranks, median_absolute_deviation, boxplot, rate, top_hits, top_metrics; pipelines — derivative,
 * cumulative_sum, moving_fn, serial_diff, bucket_script, bucket_selector, bucket_sort, avg/sum/min/max/stats_bucket,
 * percentiles_bucket. Parse-time errors (unknown type, bad params) come from parseAggregations; field errors
 * (text fielddata, wrong field type) from createShardAggregator (a shard failure, as in ES).
 */
import type { LeafReaderContext } from '../index/leaf-reader.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import type { NestedLookup } from '../mapper/mapping.js';
import type { AggSpec } from './framework.js';

/** Per-leaf doc matcher factory built from a query clause (used by filter / filters aggregations). */
export type CompiledFilter = (leaf: LeafReaderContext) => (doc: number) => boolean;

/** Provided by search, once per shard and request. */
export interface AggregationContext {
  /** search-time field type, undefined when unmapped in this index */
  fieldType(name: string): MappedFieldType | undefined;
  /** compiles a query clause (JSON as in the request) to a per-leaf matcher; throws like the query parser */
  compileFilter(queryJson: unknown): CompiledFilter;
  /** `now` for date math, fixed per request */
  nowMillis: number;
  /** concrete index name (top_hits `_index`, error messages) */
  index: string;
  shardId: number;
  /** all leaves of the shard's reader (global aggregation walks them) */
  leaves: readonly LeafReaderContext[];
  /** search.max_buckets (default 65536) */
  maxBuckets: number;
  /** the nested fields of the mapping (nested / reverse_nested aggregations) */
  nestedLookup?: NestedLookup;
  /**
   * the nested scope the aggregation collects documents of: undefined for root documents, else the nested
   * path set by an enclosing `nested` (or `reverse_nested`) aggregation
   */
  nestedPath?: string;
  /** true under a `nested` aggregation (reverse_nested is only valid there) */
  insideNested?: boolean;
  /** concrete mapped field names matching a pattern with `*` */
  matchingFieldNames?(pattern: string): string[];
  /** `"profile": true`: each top-level aggregation is timed into the node this gives for its name */
  profile?(name: string): AggregationProfile;
}

/** where a profiled top-level aggregation records its timings (search/profile.ts AggregationProfileNode) */
export interface AggregationProfile {
  type: string;
  time<T>(t: 'initialize' | 'build_leaf_collector' | 'collect' | 'post_collection' | 'build_aggregation' | 'reduce', fn: () => T): T;
}

/**
 * An aggregation type contributed by a feature through ExtensionPoints.AggregationType (e.g. join-queries'
 * `children` and `parent`): parses the type's body into a spec (an AggSpec subclass, see framework.ts).
 */
export interface AggregationTypeParser {
  readonly type: string;
  parse(name: string, body: Record<string, unknown>): AggSpec;
}

export interface LeafAggregationCollector {
  /** doc: segment-local id of a live, matching document */
  collect(doc: number, score: number): void;
  /**
   * collects every live document of the leaf at once (a match-all query without scores), column-wise;
   * false when an aggregation cannot, and nothing was collected (the caller then collects doc by doc)
   */
  collectAll?(live: Uint32Array | null): boolean;
}

export interface ShardAggregator {
  getLeafCollector(leaf: LeafReaderContext): LeafAggregationCollector;
  /** plain data (no class instances, no functions): safe to structured-clone, cache and send */
  buildShardResult(): InternalAggregations;
}

/**
 * One agg's shard-level or reduced result. Plain data, discriminated by `type`. Treat as opaque outside aggregations.
 * NOTE: values may be non-finite numbers (Infinity for "no min yet", NaN): copy/serialize with structuredClone or
 * v8.serialize, never JSON.stringify.
 */
export interface InternalAggregation {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** name -> result, in request order */
export type InternalAggregations = Record<string, InternalAggregation>;

/** Parsed aggregation tree. Immutable; reusable across shards. */
export interface AggregatorFactories {
  /** true when no aggregation was requested */
  readonly isEmpty: boolean;
  createShardAggregator(ctx: AggregationContext): ShardAggregator;
  needsScores(): boolean;
}

export interface ReduceOptions {
  /** search.max_buckets, default 65536 */
  maxBuckets?: number;
}

export interface RenderOptions {
  /** `typed_keys` request parameter: names become `sterms#name`, `avg#name`, ... */
  typedKeys: boolean;
}
