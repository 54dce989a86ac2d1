export * from './search-source.js';
export * from './query-phase.js';
export * from './fetch-phase.js';
export * from './source-filter.js';
export * from './highlighter.js';
export * from './search-phase-controller.js';
export * from './search-service.js';
export * from './terms-lookup.js';
