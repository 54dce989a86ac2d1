export * from './lib/test-doubles.js';
export * from './lib/test-host.js';
