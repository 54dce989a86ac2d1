/**
 * Entry points of the aggregation framework (see api.ts for the flow).
 */
import { Errors } from '@strata/core-common';
import type {
  AggregatorFactories,
  InternalAggregations,
  ReduceOptions,
  RenderOptions,
} from './api.js';

/** Parses the `aggs` / `aggregations` object of a search body. undefined/null → empty factories. */
export function parseAggregations(json: unknown): AggregatorFactories {
  void json;
  throw Errors.illegalArgument('aggregations are not implemented yet');
}

export function reduceAggregations(
  factories: AggregatorFactories,
  shardResults: readonly InternalAggregations[],
  opts: ReduceOptions = {},
): InternalAggregations {
  void factories; void shardResults; void opts;
  return {};
}

export function renderAggregations(
  factories: AggregatorFactories,
  reduced: InternalAggregations,
  opts: RenderOptions,
): Record<string, unknown> {
  void factories; void reduced; void opts;
  return {};
}

export function aggregationsNeedScores(factories: AggregatorFactories): boolean {
  return factories.needsScores();
}
