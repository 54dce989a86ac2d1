export * from './char-class.js';
export * from './tokenizers.js';
export * from './token-filters.js';
export * from './stop-words.js';
export * from './porter-stemmer.js';
export * from './analysis-registry.js';
