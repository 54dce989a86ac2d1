export * from './segment.js';
export * from './segment-builder.js';
export * from './segment-merger.js';
export * from './directory-reader.js';
export * from './live-docs.js';
export * from './nested-blocks.js';
