export * from './translog.js';
export * from './crc32.js';
export * from './segment-codec.js';
export * from './directory.js';
export * from './state-file.js';
export * from './verify-index.js';
export * from './block-cache.js';
