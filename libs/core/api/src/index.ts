export * from './lib/node.js';
export * from './lib/cluster/index.js';
export * from './lib/documents/index.js';
export * from './lib/search/index.js';
export * from './lib/indices/index.js';
export * from './lib/indices/index.js';
export * from './lib/snapshots/snapshots.rest-handlers.js';
