export * from './lib/test-doubles.js';
export * from './lib/test-host.js';
export * from './lib/oracle/index.js';
