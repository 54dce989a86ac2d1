/**
 * Test helper for core-api's black-box specs: a real node on a temporary data path, listening on a random
 * local port, plus a small `call()` over fetch. (Not in @strata/core-testing: core-api must not import it.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNode, type NodeOptions, type StrataNode } from '../node.js';

export const NDJSON = 'application/x-ndjson';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export interface ApiResponse {
  status: number;
  /** the parsed JSON body, or undefined when the body is not JSON */
  body: any;
  text: string;
  headers: Headers;
}

export interface ApiTestNode {
  readonly node: StrataNode;
  /** the temporary path.data (removed by close) */
  readonly dataPath: string;
  /** http://127.0.0.1:<port> */
  readonly base: string;
  /** string bodies are sent as they are, anything else as JSON */
  call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiResponse>;
  close(): Promise<void>;
}

export interface ApiTestNodeOptions extends Omit<NodeOptions, 'settings' | 'logger'> {
  /** prefix of the temporary data directory */
  prefix: string;
  /** node settings besides path.data */
  settings?: Record<string, unknown>;
  /** runs after start, before the node listens */
  beforeListen?: (node: StrataNode) => Promise<void>;
  /** receives the node's log lines (default: dropped) */
  logger?: NodeOptions['logger'];
}

export async function startApiTestNode(options: ApiTestNodeOptions): Promise<ApiTestNode> {
  const { prefix, settings, beforeListen, logger, ...rest } = options;
  const dataPath = mkdtempSync(join(tmpdir(), prefix));
  const node = await createNode({ ...rest, settings: { 'path.data': dataPath, ...settings }, logger: logger ?? silent });
  await node.start();
  if (beforeListen) await beforeListen(node);
  const server = await new Promise<Server>((r) => {
    const s = node.app.listen(0, '127.0.0.1', () => r(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    node,
    dataPath,
    base,
    async call(method, path, body, contentType = 'application/json') {
      const init: RequestInit = { method, headers: {} };
      if (body !== undefined) {
        init.body = typeof body === 'string' ? body : JSON.stringify(body);
        (init.headers as Record<string, string>)['content-type'] = contentType;
      }
      const r = await fetch(base + path, init);
      const text = await r.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: r.status, body: json, text, headers: r.headers };
    },
    async close() {
      await new Promise((r) => server.close(r));
      await node.close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}
