import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/index.js';

export interface E2eHost {
  server: RunningServer;
  url: string;
  dataPath: string;
  close(): Promise<void>;
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/** The full host (default features) on a free port with a temporary data path. */
export async function startE2eHost(settings: Record<string, unknown> = {}): Promise<E2eHost> {
  const dataPath = mkdtempSync(join(tmpdir(), 'strata-e2e-'));
  const server = await startServer({ port: 0, dataPath, settings, logger: silent });
  return {
    server,
    url: server.url,
    dataPath,
    async close() {
      await server.close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}

export interface Res {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function http(url: string, init: RequestInit = {}): Promise<Res> {
  const r = await fetch(url, init);
  const text = await r.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: r.status, headers: r.headers, text, json };
}
