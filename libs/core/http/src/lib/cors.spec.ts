import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Container, ContainerModule } from 'inversify';
import { ExtensionPoints, RestResponses, Tokens, route } from '@strata/core-common';
import { httpModule } from './http.module.js';
import { HttpPipeline } from './http-pipeline.js';
import { corsConfig, originAllowed } from './cors.js';

async function serve(settings: Record<string, unknown>) {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(Tokens.HostConfig).toConstantValue({ settings });
  c.load(
    httpModule,
    new ContainerModule(({ bind }) => {
      bind(ExtensionPoints.RestHandler).toConstantValue({
        name: 'main',
        routes: [route('GET', '/', 'cluster:monitor/main')],
        handle: () => RestResponses.ok({ ok: true }),
      });
    }),
  );
  const app = new Koa();
  app.use(c.get(HttpPipeline).middleware());
  const server = app.listen(0);
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('CORS', () => {
  it('parses settings (list, regex, *)', () => {
    expect(originAllowed(corsConfig({ 'http.cors.enabled': 'true', 'http.cors.allow-origin': 'http://a, http://b' }), 'http://b')).toBe(true);
    expect(originAllowed(corsConfig({ 'http.cors.allow-origin': '/https?:\\/\\/localhost(:[0-9]+)?/' }), 'http://localhost:8080')).toBe(true);
    expect(originAllowed(corsConfig({ 'http.cors.allow-origin': '/https?:\\/\\/localhost(:[0-9]+)?/' }), 'http://evil')).toBe(false);
    expect(corsConfig({}).enabled).toBe(false);
    expect(corsConfig({ 'http.cors.allow-methods': ['GET', 'POST'] }).methods).toBe('GET, POST');
  });

  it('adds no CORS headers when disabled', async () => {
    const s = await serve({});
    try {
      const r = await fetch(`${s.url}/`, { headers: { Origin: 'http://app' } });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      s.close();
    }
  });

  it('answers preflights, echoes allowed origins and refuses others', async () => {
    const s = await serve({ 'http.cors.enabled': true, 'http.cors.allow-origin': 'http://app', 'http.cors.allow-credentials': 'true' });
    try {
      const pre = await fetch(`${s.url}/`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://app', 'Access-Control-Request-Method': 'POST' },
      });
      expect(pre.status).toBe(200);
      expect(pre.headers.get('access-control-allow-origin')).toBe('http://app');
      expect(pre.headers.get('access-control-allow-methods')).toBe('OPTIONS, HEAD, GET, POST, PUT, DELETE');
      expect(pre.headers.get('access-control-allow-headers')).toContain('Authorization');
      expect(pre.headers.get('access-control-max-age')).toBe('1728000');
      expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
      const ok = await fetch(`${s.url}/`, { headers: { Origin: 'http://app' } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe('http://app');
      expect(ok.headers.get('access-control-expose-headers')).toBe('X-elastic-product');
      const bad = await fetch(`${s.url}/`, { headers: { Origin: 'http://evil' } });
      expect(bad.status).toBe(403);
      const noOrigin = await fetch(`${s.url}/`);
      expect(noOrigin.status).toBe(200);
    } finally {
      s.close();
    }
  });

  it('answers * for any origin without credentials', async () => {
    const s = await serve({ 'http.cors.enabled': 'true', 'http.cors.allow-origin': '*' });
    try {
      const r = await fetch(`${s.url}/`, { headers: { Origin: 'http://anything' } });
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      s.close();
    }
  });
});
