export * from './api.js';
export * from './aggregation-phase.js';
