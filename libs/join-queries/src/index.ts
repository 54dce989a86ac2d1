export * from './lib/join-queries.module.js';
