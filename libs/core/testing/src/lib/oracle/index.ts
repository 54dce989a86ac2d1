export * from './model.js';
export * from './kinds.js';
export * from './values.js';
export * from './queries.js';
export * from './aggs.js';
export * from './sorting.js';
export * from './registry.js';
export * from './runner.js';
