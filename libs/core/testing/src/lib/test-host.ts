import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Koa from 'koa';
import { ContainerModule, type Container } from 'inversify';
import { Tokens, type Clock, type FeatureModule, type IdGenerator } from '@strata/core-common';
import { createNode, NODE_INFO, type NodeInfo, type StrataNode } from '@strata/core-api';
import { MemoryLogger } from './test-doubles.js';

export interface TestHostOptions {
  features?: readonly FeatureModule[];
  /**
   * extra node settings (path.data is a fresh temp dir unless given). `xpack.security.enabled` defaults
   * to false here: pass true (and load the auth-chain feature) to test with security on.
   */
  settings?: Record<string, unknown>;
  /** replaces Tokens.Clock (e.g. a ManualClock) */
  clock?: Clock;
  /** replaces Tokens.IdGenerator (e.g. a SequentialIdGenerator) */
  ids?: IdGenerator;
  /** more modules loaded last; use `rebind` in them to replace services */
  overrides?: readonly ContainerModule[];
  /** keep the data directory on close (crash/restart tests manage it themselves) */
  keepData?: boolean;
  /** the configuration directory (HostConfig.configDir: security files such as `users`, `roles.yml`) */
  configDir?: string;
}

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  /** parsed JSON (undefined for empty or non-JSON bodies) */
  body: any;
  text: string;
}

export interface TestHost {
  readonly app: Koa;
  readonly container: Container;
  readonly node: StrataNode;
  readonly dataPath: string;
  readonly url: string;
  readonly port: number;
  readonly logger: MemoryLogger;
  /**
   * Sends a request. `body`: an object → JSON; an array of objects → NDJSON (for _bulk/_msearch);
   * a string → sent as is (Content-Type application/json unless given in `headers`).
   */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

export function encodeBody(body: unknown, headers: Record<string, string>): string | undefined {
  if (body === undefined) return undefined;
  const has = Object.keys(headers).some((h) => h.toLowerCase() === 'content-type');
  if (typeof body === 'string') {
    if (!has) headers['Content-Type'] = 'application/json';
    return body;
  }
  if (Array.isArray(body) && body.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x))) {
    if (!has) headers['Content-Type'] = 'application/x-ndjson';
    return body.map((x) => JSON.stringify(x)).join('\n') + '\n';
  }
  if (!has) headers['Content-Type'] = 'application/json';
  return JSON.stringify(body);
}

export async function fetchJson(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const h = { ...headers };
  const payload = encodeBody(body, h);
  const res = await fetch(url, { method, headers: h, body: payload });
  const text = await res.text();
  const out: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    out[k] = v;
  });
  let parsed: unknown;
  const ct = out['content-type'] ?? '';
  if (text.length > 0 && (ct.includes('json'))) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  return { status: res.status, headers: out, body: parsed, text };
}

/**
 * Builds the real container (core + the given features) on a fresh temp data dir, listens on a free
 * port on 127.0.0.1 and returns a small request helper. `close()` stops everything and removes the dir.
 */
export async function createTestHost(options: TestHostOptions = {}): Promise<TestHost> {
  const dataPath = String(options.settings?.['path.data'] ?? mkdtempSync(join(tmpdir(), 'strata-test-')));
  const logger = new MemoryLogger();
  const overrides: ContainerModule[] = [];
  if (options.clock || options.ids) {
    overrides.push(
      new ContainerModule(({ rebind }) => {
        if (options.clock) rebind(Tokens.Clock).toConstantValue(options.clock);
        if (options.ids) rebind(Tokens.IdGenerator).toConstantValue(options.ids);
      }),
    );
  }
  overrides.push(...(options.overrides ?? []));
  const node = await createNode({
    // security is off unless the test asks for it (`settings: { 'xpack.security.enabled': true }`)
    settings: { 'http.port': 0, 'xpack.security.enabled': false, ...options.settings, 'path.data': dataPath },
    features: options.features ?? [],
    overrides,
    logger,
    configDir: options.configDir,
  });
  await node.start();
  const server: Server = await new Promise((resolve, reject) => {
    const s = node.createServer().listen(0, '127.0.0.1', () => resolve(s));
    s.on('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const url = `${node.scheme}://127.0.0.1:${port}`;
  (node.container.get(NODE_INFO) as NodeInfo).publishAddress = `127.0.0.1:${port}`;
  let closed = false;
  return {
    app: node.app,
    container: node.container,
    node,
    dataPath,
    url,
    port,
    logger,
    request: (method, path, body, headers = {}) => fetchJson(url + path, method, body, headers),
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections?.();
      await new Promise<void>((r) => server.close(() => r()));
      await node.close();
      if (!options.keepData) rmSync(dataPath, { recursive: true, force: true });
    },
  };
}

/** Same as createTestHost; the name used by tests that drive it with a real client over `url`. */
export const startTestServer = createTestHost;
