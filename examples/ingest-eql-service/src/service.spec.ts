/**
 * The example service: its own Koa routes and middleware, Strata's ingest and EQL endpoints beside
 * them, and nothing of the features it did not mount.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, type Service } from './service.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

describe('example service mounting ingest and EQL', () => {
  let service: Service;
  let server: Server;
  let base: string;
  let dataPath: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    dataPath = mkdtempSync(join(tmpdir(), 'strata-example-'));
    service = await createService({ dataPath, logger: silent });
    server = await new Promise<Server>((r) => {
      const s = service.app.listen(0, '127.0.0.1', () => r(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await service.close();
    rmSync(dataPath, { recursive: true, force: true });
  });

  it('answers its own routes, through its own middleware', async () => {
    const r = await call('GET', '/service/info');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ service: 'ingest-eql-example', features: ['ingest', 'eql'] });
    expect(r.headers.get('x-service')).toBe('ingest-eql-example');
  });

  it('runs ingest pipelines: simulate, and indexing through ?pipeline=', async () => {
    const put = await call('PUT', '/_ingest/pipeline/tag', { processors: [{ set: { field: 'tagged', value: true } }, { lowercase: { field: 'user' } }] });
    expect(put).toMatchObject({ status: 200, body: { acknowledged: true } });
    const sim = await call('POST', '/_ingest/pipeline/tag/_simulate', { docs: [{ _source: { user: 'BOB' } }] });
    expect(sim.body.docs[0].doc._source).toEqual({ user: 'bob', tagged: true });
    const idx = await call('PUT', '/events/_doc/1?pipeline=tag&refresh=true', { user: 'ANN', '@timestamp': '2026-01-01T00:00:00Z', event: { category: 'process' } });
    expect(idx.status).toBe(201);
    expect((await call('GET', '/events/_doc/1')).body._source).toEqual({ user: 'ann', '@timestamp': '2026-01-01T00:00:00Z', event: { category: 'process' }, tagged: true });
    expect(service.app.middleware.length).toBe(4);
  });

  it('has none of the routes of features it did not mount: they fall through to the app', async () => {
    const pit = await call('POST', '/events/_pit?keep_alive=1m');
    expect(pit.status).toBe(404);
    expect(pit.body).toEqual({ error: 'the example service has no route POST /events/_pit' });
    const consolePage = await call('GET', '/_console/api/spec');
    expect(consolePage.status).toBe(404);
  });
});
