export * from './lib/auth-chain.module.js';
