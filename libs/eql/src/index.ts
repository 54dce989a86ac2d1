export * from './lib/eql.module.js';
