export * from './lib/paging.module.js';
export * from './lib/paging.service.js';
export * from './lib/context-registry.js';
export * from './lib/context-id.js';
export * from './lib/paging.settings.js';
export * from './lib/rest/paging.rest-handlers.js';
