export * from './api.js';
export * from './aggregation-phase.js';
export { AggSpec, Aggregator, SubAggregators, collectBucket, type ReduceContext, type RenderContext } from './framework.js';
export { SingleBucketSpec, SingleBucketAggregator } from './bucket/single-bucket.js';
