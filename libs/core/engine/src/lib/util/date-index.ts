export * from './date-time-zone.js';
export * from './date-format.js';
export * from './date-math.js';
