import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../src/index.js';

/**
 * Black-box conformance harness: the whole host (DEFAULT_FEATURES) on a free port with a temporary
 * data path, spoken to over HTTP exactly as a client would (node:http, so GET bodies and raw bytes work).
 */
export interface Conformance {
  url: string;
  server: RunningServer;
  /** JSON (or raw string) request; returns status, headers, raw text and parsed JSON (undefined if not JSON) */
  req(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res>;
  /** NDJSON body (lines joined with \n plus a trailing \n) */
  bulk(path: string, lines: unknown[]): Promise<Res>;
  close(): Promise<void>;
}

export interface Res {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

export async function startConformanceHost(settings: Record<string, unknown> = {}): Promise<Conformance> {
  const dataPath = mkdtempSync(join(tmpdir(), 'strata-conf-'));
  // security off unless the test sets xpack.security.enabled
  const server = await startServer({ port: 0, dataPath, settings: { 'xpack.security.enabled': false, ...settings }, logger: silent });
  const url = server.url;
  const req = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const h: Record<string, string> = { ...headers };
      if (payload !== undefined) {
        if (!Object.keys(h).some((k) => k.toLowerCase() === 'content-type')) h['Content-Type'] = 'application/json';
        h['Content-Length'] = String(Buffer.byteLength(payload));
      }
      const r = httpRequest(url + path, { method, headers: h }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      });
      r.on('error', reject);
      if (payload !== undefined) r.write(payload);
      r.end();
    });
  return {
    url,
    server,
    req,
    bulk: (path, lines) =>
      req('POST', path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n', {
        'Content-Type': 'application/x-ndjson',
      }),
    async close() {
      await server.close();
      rmSync(dataPath, { recursive: true, force: true });
    },
  };
}
