import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FeatureModule } from '@strata/core-common';
import { createNode, parsePortRange, NODE_INFO, type NodeInfo, type StrataNode, type NodeOptions } from '@strata/core-api';
import { DEFAULT_FEATURES } from './app/features.js';

export { DEFAULT_FEATURES } from './app/features.js';
export { loadConfig, DEFAULT_SETTINGS, settingsFromArgv, settingsFromEnv, readConfigFile } from './app/config.js';

export interface StartServerOptions {
  /** 0 → a free port (default: `http.port` of settings, else 9200) */
  port?: number;
  /** bind address (default: `network.host`, else 127.0.0.1) */
  host?: string;
  dataPath?: string;
  /** further node settings */
  settings?: Record<string, unknown>;
  /** default: DEFAULT_FEATURES */
  features?: readonly FeatureModule[];
  logger?: NodeOptions['logger'];
  /** the configuration directory (security files next to strata.yml) */
  configDir?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  host: string;
  node: StrataNode;
  close(): Promise<void>;
}

/** Elasticsearch's special network.host values: `_local_` (loopback), `_site_`/`_global_` (every interface). */
export function resolveHost(value: string): string {
  switch (value) {
    case '_local_':
    case '_local:ipv4_':
      return '127.0.0.1';
    case '_local:ipv6_':
      return '::1';
    case '_site_':
    case '_global_':
    case '_site:ipv4_':
    case '_global:ipv4_':
      return '0.0.0.0';
    default:
      return value;
  }
}

/** Builds the node, starts its components and listens. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const settings: Record<string, unknown> = { ...(options.settings ?? {}) };
  if (options.port !== undefined) settings['http.port'] = options.port;
  if (options.host !== undefined) settings['network.host'] = options.host;
  if (options.dataPath !== undefined) settings['path.data'] = options.dataPath;
  const node = await createNode({ settings, features: options.features ?? DEFAULT_FEATURES, logger: options.logger, configDir: options.configDir });
  const host = resolveHost(String(node.settings['http.host'] || node.settings['network.host'] || '127.0.0.1'));
  const ports = parsePortRange(node.settings['http.port'] ?? 9200, 'http.port');
  const [first, last] = typeof ports === 'number' ? [ports, ports] : ports;
  await node.start();
  let server: Server | undefined;
  try {
    // like Elasticsearch, a range binds the first free port of it
    for (let port = first; port <= last && !server; port++) {
      try {
        server = await new Promise<Server>((resolve, reject) => {
          const s = node.createServer().listen(port, host);
          s.once('listening', () => resolve(s));
          s.once('error', reject);
        });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE' || port === last) throw e;
      }
    }
  } catch (e) {
    await node.close();
    throw e;
  }
  if (!server) throw new Error(`no free port in [${first}-${last}]`);
  server.keepAliveTimeout = 75_000;
  server.headersTimeout = 80_000;
  server.requestTimeout = 0;
  const bound = (server.address() as AddressInfo).port;
  const info = node.container.get(NODE_INFO) as NodeInfo;
  server.on('connection', (socket) => {
    info.http.currentOpen++;
    info.http.totalOpened++;
    socket.once('close', () => info.http.currentOpen--);
  });
  const displayHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  info.publishAddress = `${displayHost}:${bound}`;
  let closing: Promise<void> | undefined;
  return {
    url: `${node.scheme}://${displayHost}:${bound}`,
    port: bound,
    host,
    node,
    close() {
      closing ??= (async () => {
        await new Promise<void>((r) => {
          server.close(() => r());
          server.closeIdleConnections?.();
        });
        await node.close();
      })();
      return closing;
    },
  };
}
