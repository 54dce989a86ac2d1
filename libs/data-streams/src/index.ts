export * from './lib/data-streams.module.js';
