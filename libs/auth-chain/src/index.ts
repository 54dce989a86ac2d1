export * from './lib/auth-chain.module.js';
export * from './lib/security-config.js';
export * from './lib/security.settings.js';
export { GENERATED_PASSWORD_SINK, generatedPasswordBanner, type GeneratedPasswordSink } from './lib/bootstrap/elastic-password.js';
export { hasher, verifyHash } from './lib/crypto/hasher.js';
export { runServiceTokensCli, EXIT as SERVICE_TOKENS_EXIT, type CliIo } from './lib/cli/service-tokens.js';
