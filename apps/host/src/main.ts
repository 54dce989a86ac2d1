import 'reflect-metadata';
import { Tokens, type Logger } from '@strata/core-common';
import { loadConfig } from './app/config.js';
import { startServer } from './index.js';
import { runVerify } from './verify.js';

async function main(): Promise<void> {
  if (process.argv[2] === 'verify') process.exit(runVerify(process.argv.slice(3)));
  const t0 = performance.now();
  let config;
  try {
    config = await loadConfig(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`strata: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(64);
  }
  let server;
  try {
    server = await startServer({ settings: config.settings, configDir: config.configDir });
  } catch (e) {
    process.stderr.write(`strata: failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
  const log = server.node.container.get<Logger>(Tokens.Logger);
  log.info(
    { url: server.url, config_file: config.file ?? null, path_data: server.node.settings['path.data'], startup_ms: Math.round(performance.now() - t0) },
    `started, listening on ${server.url}`,
  );
  process.on('uncaughtException', (err) => log.error({ err }, 'uncaught exception'));
  process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server
      .close()
      .then(() => {
        log.info({}, 'stopped');
        process.exit(0);
      })
      .catch((err) => {
        log.error({ err }, 'failed to stop cleanly');
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
