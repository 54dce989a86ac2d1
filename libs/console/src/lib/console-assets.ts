import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The console's static files (libs/console/assets). The host bundle inlines them at build time
 * (tools/scripts/build-host.mjs defines STRATA_CONSOLE_ASSETS), so the built service needs no files
 * beside it and no CDN; run from sources (tests), they are read from the assets folder.
 */
declare const STRATA_CONSOLE_ASSETS: Record<string, string> | undefined;

export const CONSOLE_ASSET_TYPES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=UTF-8',
  'console.css': 'text/css; charset=UTF-8',
  'console.js': 'text/javascript; charset=UTF-8',
};

let cache: Record<string, string> | undefined;

export function consoleAssets(): Record<string, string> {
  if (cache) return cache;
  if (typeof STRATA_CONSOLE_ASSETS !== 'undefined') {
    cache = STRATA_CONSOLE_ASSETS;
    return cache;
  }
  const dir = join(__dirname, '..', '..', 'assets');
  const out: Record<string, string> = {};
  for (const name of Object.keys(CONSOLE_ASSET_TYPES)) out[name] = readFileSync(join(dir, name), 'utf8');
  cache = out;
  return out;
}
