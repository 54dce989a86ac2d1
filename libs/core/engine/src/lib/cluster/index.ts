export * from './metadata-store.js';
export * from './index-name.js';
export * from './index-name-expression-resolver.js';
export * from './index-settings.js';
export * from './metadata-index-service.js';
export * from './index-blocks.js';
export * from './templates.js';
