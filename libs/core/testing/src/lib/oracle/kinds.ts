/**
 * The contracts of the oracle's extension points: a query kind or an aggregation kind is a generator
 * (fast-check arbitrary of request JSON for a mapping) plus a naive evaluator written from the
 * Elasticsearch reference. Kinds are listed in registry.ts.
 */
import type fc from 'fast-check';
import type { Corpus, Json, ModelDoc, OracleField, OracleFieldType, OracleMapping } from './model.js';

export interface GenContext {
  readonly mapping: OracleMapping;
  /** mapped fields of the given types */
  fields(...types: OracleFieldType[]): OracleField[];
  /** any registered query of at most `depth` levels (for compound kinds) */
  query(depth: number): fc.Arbitrary<Json>;
}

export interface EvalContext {
  readonly mapping: OracleMapping;
  /** every live document of the index (join kinds look up parents and children) */
  readonly corpus: Corpus;
  /** whether a document matches any registered query (for compound kinds) */
  matches(query: Json, doc: ModelDoc): boolean;
  /** the expected `_score` of a matching document, undefined when its kind does not model scores */
  score(query: Json, doc: ModelDoc): number | undefined;
}

export interface QueryKind {
  /** the clause names this kind generates and evaluates (the single key of the query object) */
  readonly names: readonly string[];
  /** relative weight in the random choice of a query (default 1) */
  readonly weight?: number;
  /** queries of this kind for the mapping; null when the mapping offers nothing to query */
  arbitrary(ctx: GenContext, depth: number): fc.Arbitrary<Json> | null;
  /** whether `doc` matches the clause body (the value under the clause name) */
  matches(name: string, body: unknown, doc: ModelDoc, ctx: EvalContext): boolean;
  /**
   * The `_score` Elasticsearch gives `doc` (which matches) for the clause; leave it out, or return undefined,
   * where the score is not modelled (BM25 statistics are per shard). Compound kinds get their sub-queries'
   * scores from `ctx.score` (undefined propagates).
   */
  score?(name: string, body: unknown, doc: ModelDoc, ctx: EvalContext): number | undefined;
}

export interface AggGenContext extends GenContext {
  /** sub-aggregations for a bucket aggregation at `depth` (may be empty) */
  subAggs(depth: number): fc.Arbitrary<Record<string, Json> | undefined>;
}

export interface AggEvalContext extends EvalContext {
  /** every live document of the index, whatever the query (for `global`); the same as `corpus` */
  readonly allDocs: Corpus;
  /** the expected rendering of a sub-aggregation object over a bucket's documents */
  evaluateSubs(subs: Record<string, Json> | undefined, docs: Corpus): Json;
}

export interface AggKind {
  /** the aggregation type names this kind generates and evaluates */
  readonly names: readonly string[];
  readonly weight?: number;
  /** `{ <type>: body, aggs?: {...} }` for the mapping; null when nothing applies */
  arbitrary(ctx: AggGenContext, depth: number): fc.Arbitrary<Json> | null;
  /**
   * The expected response of the aggregation over the documents matching the query, as Elasticsearch
   * renders it (only the keys the kind models; the comparison ignores extra keys in objects, never extra
   * array elements).
   */
  evaluate(type: string, body: Json, subs: Record<string, Json> | undefined, docs: Corpus, ctx: AggEvalContext): Json;
}
