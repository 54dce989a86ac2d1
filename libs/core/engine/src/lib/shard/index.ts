export * from './index-shard.js';
export * from './indices-service.js';
export * from './routing.js';
export * from './versioning.js';
export * from './merge-policy.js';
export * from './shard-settings.js';
export * from './shard-files.js';
