export * from './document-service.js';
export * from './bulk-parser.js';
export * from './source-filter.js';
export * from './id-generator.js';
export * from './by-query.js';
