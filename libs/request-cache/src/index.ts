export * from './lib/cache/request-cache.js';
export * from './lib/cache/cache-policy.js';
export * from './lib/cache/request-key.js';
export * from './lib/cache/deep-copy.js';
