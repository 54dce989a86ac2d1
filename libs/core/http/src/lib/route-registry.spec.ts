import { route, type RestHandler } from '@strata/core-common';
import { Router } from '@koa/router';
import { RouteRegistry, segmentCount, toKoaPath, type RegisteredRoute } from './route-registry.js';

const h = (name: string, ...routes: ReturnType<typeof route>[]): RestHandler => ({
  name,
  routes,
  handle: () => ({ status: 200, body: { name } }),
});

describe('RouteRegistry', () => {
  const registry = new RouteRegistry([
    h('get_pipeline', route('GET', '/_ingest/pipeline/{id}', 'cluster:admin/ingest/pipeline/get')),
    h('simulate', route('GET', '/_ingest/pipeline/_simulate', 'cluster:admin/ingest/pipeline/simulate'),
      route('POST', '/_ingest/pipeline/_simulate', 'cluster:admin/ingest/pipeline/simulate')),
    h('get_doc', route('GET', '/{index}/_doc/{id}', 'indices:data/read/get')),
    h('index_doc', route('PUT', '/{index}/_doc/{id}', 'indices:data/write/index')),
    h('exists_index', route('HEAD', '/{index}', 'indices:admin/exists')),
    h('get_index', route('GET', '/{index}', 'indices:admin/get')),
    h('main', route('GET', '/', 'cluster:monitor/main')),
  ]);

  it('converts brace paths', () => {
    expect(toKoaPath('/{index}/_doc/{id}')).toBe('/:index/_doc/:id');
    expect(() => toKoaPath('/{a-b}')).toThrow(/invalid segment/);
  });

  it('lets literal segments win over parameters', () => {
    const m = registry.match('GET', '/_ingest/pipeline/_simulate');
    expect(m.kind === 'found' && m.route.handler.name).toBe('simulate');
    const m2 = registry.match('GET', '/_ingest/pipeline/my-pipe');
    expect(m2.kind === 'found' && m2.route.handler.name).toBe('get_pipeline');
    expect(m2.kind === 'found' && m2.params).toEqual({ id: 'my-pipe' });
  });

  it('decodes path parameters', () => {
    const m = registry.match('GET', '/a%2Cb/_doc/x%20y');
    expect(m.kind === 'found' && m.params).toEqual({ index: 'a,b', id: 'x y' });
  });

  it('prefers an explicit HEAD route, else falls back to GET', () => {
    const m = registry.match('HEAD', '/logs');
    expect(m.kind === 'found' && m.route.handler.name).toBe('exists_index');
    const m2 = registry.match('HEAD', '/');
    expect(m2.kind === 'found' && m2.route.handler.name).toBe('main');
  });

  it('reports allowed methods for a wrong method', () => {
    expect(registry.match('DELETE', '/logs/_doc/1')).toEqual({ kind: 'method-not-allowed', allowed: ['HEAD', 'GET', 'PUT'] });
  });

  it('reports unknown paths', () => {
    expect(registry.match('GET', '/a/b/c/d')).toEqual({ kind: 'not-found' });
  });

  it('rejects duplicate routes at boot', () => {
    expect(
      () =>
        new RouteRegistry([
          h('a', route('GET', '/{index}/_x', 'indices:x')),
          h('b', route('GET', '/{name}/_x', 'indices:y')),
        ]),
    ).toThrow(/already has a value/);
    expect(() => new RouteRegistry([h('a', route('GET', '/x', ''))])).toThrow(/no action name/);
    expect(() => new RouteRegistry([h('a'), h('a')])).toThrow(/registered twice/);
  });

  it('boots with no handlers', () => {
    expect(new RouteRegistry().all()).toHaveLength(0);
  });

  it('finds the same routes as testing every pattern (only the patterns of as many segments are tested)', () => {
    // the routes a path matches, by the router's own match over every layer (what the registry did before)
    const router = new Router();
    const byLayer = new Map<unknown, RegisteredRoute>();
    for (const r of registry.all()) byLayer.set(router.register(toKoaPath(r.spec.path), [r.spec.method], () => undefined), r);
    const reference = (method: string, path: string): string[] =>
      router
        .match(path, method)
        .path.map((l) => byLayer.get(l)!)
        .map((r) => `${r.spec.method} ${r.spec.path}`);
    const paths = ['/', '//', '///', '/logs', '/logs/', '/logs//', '//logs', '/LOGS', '/logs/_doc/1', '/logs/_DOC/1/', '/logs/_doc//1', '/a%2Fb/_doc/x%20y',
      '/_ingest/pipeline/_simulate', '/_ingest/pipeline/_simulate/', '/_ingest/pipeline/p', '/_ingest/pipeline', '/_ingest/pipeline/p/q', '/x/y/z/w'];
    for (const method of ['GET', 'PUT', 'HEAD', 'POST']) {
      for (const path of paths) {
        const want = reference(method, path);
        const m = registry.match(method, path);
        const all = (registry as unknown as { bySegments: Map<number, Array<{ layer: { match(p: string): boolean }; route: RegisteredRoute }>> }).bySegments;
        // the routes of the path's segment count hold every matching pattern, in the router's order
        const got = (all.get(segmentCount(path)) ?? []).filter((e) => e.layer.match(path)).map((e) => `${e.route.spec.method} ${e.route.spec.path}`);
        expect([method, path, got]).toEqual([method, path, want]);
        if (want.length === 0) expect([path, m.kind]).toEqual([path, 'not-found']);
        else expect([path, m.kind]).not.toEqual([path, 'not-found']);
      }
    }
  });
});
