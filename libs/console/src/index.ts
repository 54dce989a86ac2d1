export * from './lib/console.module.js';
export * from './lib/console.settings.js';
export * from './lib/console.rest-handlers.js';
export { consoleAssets, CONSOLE_ASSET_TYPES } from './lib/console-assets.js';
