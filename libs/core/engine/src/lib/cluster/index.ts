export * from './metadata-store.js';
