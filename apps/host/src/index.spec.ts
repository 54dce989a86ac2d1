import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveHost, startServer } from './index.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('startServer', () => {
  let dataPath: string;
  beforeEach(() => {
    dataPath = mkdtempSync(join(tmpdir(), 'strata-start-'));
  });
  afterEach(() => rmSync(dataPath, { recursive: true, force: true }));

  it('binds the first free port of an http.port range', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    try {
      const s = await startServer({ dataPath, settings: { 'http.port': `${taken}-${taken + 20}` }, features: [], logger: silent });
      try {
        expect(s.port).toBeGreaterThan(taken);
        expect(s.port).toBeLessThanOrEqual(taken + 20);
        expect((await fetch(`${s.url}/`)).status).toBe(200);
      } finally {
        await s.close();
      }
      await expect(startServer({ dataPath, port: taken, features: [], logger: silent })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      blocker.close();
    }
  });

  it('maps the special network.host values', () => {
    expect(resolveHost('_local_')).toBe('127.0.0.1');
    expect(resolveHost('_site_')).toBe('0.0.0.0');
    expect(resolveHost('10.1.2.3')).toBe('10.1.2.3');
  });
});
