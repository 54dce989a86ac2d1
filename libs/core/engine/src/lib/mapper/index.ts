export * from './field-mapper-type.js';
export * from './field-types.js';
export * from './ip.js';
export * from './mapping.js';
export * from './document-parser.js';
export * from './mapper-service.js';
