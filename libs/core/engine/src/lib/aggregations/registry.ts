/**
 * Aggregation type name -> parser. Parsers validate their body and return a spec (sub-aggregations and
 * `meta` are attached by the caller).
 */
import type { AggSpec } from './framework.js';
import { NumericMetricSpec } from './metrics/numeric-metrics.js';
import { TermsSpec } from './bucket/terms.js';
import { DateHistogramSpec, HistogramSpec } from './bucket/histogram.js';
import { AutoDateHistogramSpec } from './bucket/auto-date-histogram.js';
import { RangeSpec } from './bucket/range.js';
import { IpRangeSpec } from './bucket/ip-range.js';
import { CompositeSpec } from './bucket/composite.js';
import { MultiTermsSpec, RareTermsSpec } from './bucket/multi-terms.js';
import { SignificantTermsSpec } from './bucket/significant-terms.js';
import { CardinalitySpec } from './metrics/cardinality.js';
import { BoxplotSpec, MedianAbsoluteDeviationSpec, PercentilesSpec } from './metrics/percentiles.js';
import { TopHitsSpec } from './metrics/top-hits.js';
import { RateSpec, TopMetricsSpec, WeightedAvgSpec } from './metrics/extra-metrics.js';
import {
  BucketScriptSpec,
  BucketSelectorSpec,
  BucketSortSpec,
  CumulativeSumSpec,
  DerivativeSpec,
  MovingFnSpec,
  PercentilesBucketSpec,
  SerialDiffSpec,
  SiblingBucketSpec,
} from './pipeline/pipelines.js';
import { ScriptedMetricSpec } from './metrics/scripted-metric.js';
import { NestedAggSpec, ReverseNestedAggSpec } from './bucket/nested.js';
import { AdjacencyMatrixSpec, FilterSpec, FiltersSpec, GlobalSpec, MissingSpec, SamplerSpec } from './bucket/single-bucket.js';

export type AggParser = (name: string, body: Record<string, unknown>) => AggSpec;

export const AGG_PARSERS: Record<string, AggParser> = {
  terms: (n, b) => TermsSpec.parse(n, b),
  histogram: (n, b) => HistogramSpec.parse(n, b),
  date_histogram: (n, b) => DateHistogramSpec.parse(n, b),
  auto_date_histogram: (n, b) => AutoDateHistogramSpec.parse(n, b),
  range: (n, b) => RangeSpec.parse('range', n, b),
  date_range: (n, b) => RangeSpec.parse('date_range', n, b),
  ip_range: (n, b) => IpRangeSpec.parse(n, b),
  filter: (n, b) => FilterSpec.parse(n, b),
  filters: (n, b) => FiltersSpec.parse(n, b),
  missing: (n, b) => MissingSpec.parse(n, b),
  global: (n, b) => GlobalSpec.parse(n, b),
  nested: (n, b) => NestedAggSpec.parse(n, b),
  reverse_nested: (n, b) => ReverseNestedAggSpec.parse(n, b),
  sampler: (n, b) => SamplerSpec.parse(n, b),
  adjacency_matrix: (n, b) => AdjacencyMatrixSpec.parse(n, b),
  boxplot: (n, b) => BoxplotSpec.parse(n, b),
  composite: (n, b) => CompositeSpec.parse(n, b),
  multi_terms: (n, b) => MultiTermsSpec.parse(n, b),
  rare_terms: (n, b) => RareTermsSpec.parse(n, b),
  significant_terms: (n, b) => SignificantTermsSpec.parse(n, b),
  cardinality: (n, b) => CardinalitySpec.parse(n, b),
  percentiles: (n, b) => PercentilesSpec.parse('percentiles', n, b),
  percentile_ranks: (n, b) => PercentilesSpec.parse('percentile_ranks', n, b),
  median_absolute_deviation: (n, b) => MedianAbsoluteDeviationSpec.parse(n, b),
  top_hits: (n, b) => TopHitsSpec.parse(n, b),
  weighted_avg: (n, b) => WeightedAvgSpec.parse(n, b),
  top_metrics: (n, b) => TopMetricsSpec.parse(n, b),
  rate: (n, b) => RateSpec.parse(n, b),
  derivative: (n, b) => DerivativeSpec.parse(n, b),
  cumulative_sum: (n, b) => CumulativeSumSpec.parse(n, b),
  bucket_script: (n, b) => BucketScriptSpec.parse(n, b),
  scripted_metric: (n, b) => ScriptedMetricSpec.parse(n, b),
  bucket_selector: (n, b) => BucketSelectorSpec.parse(n, b),
  bucket_sort: (n, b) => BucketSortSpec.parse(n, b),
  avg_bucket: (n, b) => SiblingBucketSpec.parse('avg_bucket', n, b),
  sum_bucket: (n, b) => SiblingBucketSpec.parse('sum_bucket', n, b),
  min_bucket: (n, b) => SiblingBucketSpec.parse('min_bucket', n, b),
  max_bucket: (n, b) => SiblingBucketSpec.parse('max_bucket', n, b),
  stats_bucket: (n, b) => SiblingBucketSpec.parse('stats_bucket', n, b),
  moving_fn: (n, b) => MovingFnSpec.parse(n, b),
  serial_diff: (n, b) => SerialDiffSpec.parse(n, b),
  percentiles_bucket: (n, b) => PercentilesBucketSpec.parse(n, b),
  min: (n, b) => NumericMetricSpec.parse('min', n, b),
  max: (n, b) => NumericMetricSpec.parse('max', n, b),
  sum: (n, b) => NumericMetricSpec.parse('sum', n, b),
  avg: (n, b) => NumericMetricSpec.parse('avg', n, b),
  value_count: (n, b) => NumericMetricSpec.parse('value_count', n, b),
  stats: (n, b) => NumericMetricSpec.parse('stats', n, b),
  extended_stats: (n, b) => NumericMetricSpec.parse('extended_stats', n, b),
};
