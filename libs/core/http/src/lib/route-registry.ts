import { Router } from '@koa/router';
import { inject, injectable, multiInject, optional } from 'inversify';
import { ExtensionPoints, type RestHandler, type RouteSpec } from '@strata/core-common';

export interface RegisteredRoute {
  spec: RouteSpec;
  handler: RestHandler;
  /** one entry per path segment: 0 = literal, 1 = parameter (lower sorts first = more specific) */
  specificity: number[];
}

export type RouteMatch =
  | { kind: 'found'; route: RegisteredRoute; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

interface KoaLayer {
  match(path: string): boolean;
  params(path: string, captures: string[]): Record<string, string>;
  captures(path: string): string[];
}

/**
 * the number of segments of a path, one leading and one trailing slash aside: a route's pattern matches only
 * paths with as many segments as its own (a parameter never spans a slash; one trailing slash is allowed)
 */
export function segmentCount(path: string): number {
  const from = path.startsWith('/') ? 1 : 0;
  let to = path.length;
  if (to > from && path.charCodeAt(to - 1) === 47) to--;
  if (to <= from) return 0;
  let n = 1;
  for (let i = from; i < to; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

function specificityOf(path: string): number[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((s) => (PARAM.test(s) ? 1 : 0));
}

function compareSpecificity(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** `/{index}/_doc/{id}` → `/:index/_doc/:id`; rejects malformed brace paths. */
export function toKoaPath(path: string): string {
  if (!path.startsWith('/')) throw new Error(`route path [${path}] must start with '/'`);
  return path
    .split('/')
    .map((seg) => {
      const m = PARAM.exec(seg);
      if (m) return `:${m[1]}`;
      if (/[{}:*()?+]/.test(seg)) throw new Error(`route path [${path}] has an invalid segment [${seg}]`);
      return seg;
    })
    .join('/');
}

/** The normalised shape of a path used to detect duplicates (`/{a}/x` and `/{b}/x` collide). */
function shapeOf(path: string): string {
  return path
    .split('/')
    .map((s) => (PARAM.test(s) ? '{}' : s))
    .join('/');
}

/**
 * Read access to the registered routes for handlers that describe the API (the console's
 * autocomplete): a handler cannot inject the RouteRegistry, which is built from every handler.
 * The registry attaches itself when it is built.
 */
@injectable()
export class RouteCatalog {
  private registry?: RouteRegistry;

  attach(registry: RouteRegistry): void {
    this.registry = registry;
  }

  all(): readonly RegisteredRoute[] {
    return this.registry?.all() ?? [];
  }
}

/**
 * All REST routes of the node, built once from every ExtensionPoints.RestHandler contribution.
 * Uses @koa/router for matching; literal segments win over parameters, as Elasticsearch's PathTrie.
 */
@injectable()
export class RouteRegistry {
  private readonly router = new Router();
  private readonly routes: RegisteredRoute[] = [];
  private readonly layerOf = new Map<RegisteredRoute, KoaLayer>();
  /** the routes by their number of path segments, in registration order (only they can match such a path) */
  private readonly bySegments = new Map<number, Array<{ layer: KoaLayer; route: RegisteredRoute }>>();

  constructor(
    @multiInject(ExtensionPoints.RestHandler) @optional() handlers: RestHandler[] | undefined = [],
    @inject(RouteCatalog) @optional() catalog?: RouteCatalog,
  ) {
    catalog?.attach(this);
    const seen = new Map<string, string>();
    const names = new Set<string>();
    for (const handler of handlers ?? []) {
      if (names.has(handler.name)) throw new Error(`REST handler [${handler.name}] is registered twice`);
      names.add(handler.name);
      for (const spec of handler.routes) {
        if (!spec.action) throw new Error(`route [${spec.method} ${spec.path}] of handler [${handler.name}] has no action name`);
        const key = `${spec.method} ${shapeOf(spec.path)}`;
        const prev = seen.get(key);
        if (prev !== undefined) {
          throw new Error(
            `route [${spec.method} ${spec.path}] of handler [${handler.name}] already has a value (handler [${prev}])`,
          );
        }
        seen.set(key, handler.name);
        this.routes.push({ spec, handler, specificity: specificityOf(spec.path) });
      }
    }
    this.routes.sort((a, b) => compareSpecificity(a.specificity, b.specificity));
    for (const r of this.routes) {
      const layer = this.router.register(toKoaPath(r.spec.path), [r.spec.method], () => undefined, {
        name: `${r.spec.method} ${r.spec.path}`,
      });
      this.layerOf.set(r, layer as unknown as KoaLayer);
      const n = segmentCount(r.spec.path);
      let list = this.bySegments.get(n);
      if (!list) this.bySegments.set(n, (list = []));
      list.push({ layer: layer as unknown as KoaLayer, route: r });
    }
  }

  all(): readonly RegisteredRoute[] {
    return this.routes;
  }

  /**
   * Matches a raw (not decoded) path. HEAD falls back to the GET handler when no HEAD route exists
   * (the renderer drops the body). Parameters come back percent-decoded.
   */
  match(method: string, path: string): RouteMatch {
    // the routes whose pattern matches the path, in registration order (as the router's own match lists
    // them), testing only the patterns of as many segments as the path has
    const candidates: RegisteredRoute[] = [];
    for (const { layer, route } of this.bySegments.get(segmentCount(path)) ?? []) {
      if (layer.match(path)) candidates.push(route);
    }
    if (candidates.length === 0) return { kind: 'not-found' };
    // the most specific path first; ties keep registration order
    candidates.sort((a, b) => compareSpecificity(a.specificity, b.specificity));
    const pick =
      candidates.find((r) => r.spec.method === method) ??
      (method === 'HEAD' ? candidates.find((r) => r.spec.method === 'GET') : undefined);
    if (!pick) {
      // allowed methods of the most specific matching path shape, as Elasticsearch reports them
      const best = candidates[0].specificity;
      const allowed = new Set<string>();
      for (const r of candidates) {
        if (compareSpecificity(r.specificity, best) !== 0) continue;
        allowed.add(r.spec.method);
        if (r.spec.method === 'GET') allowed.add('HEAD');
      }
      const order = ['HEAD', 'GET', 'POST', 'PUT', 'DELETE'];
      return { kind: 'method-not-allowed', allowed: [...allowed].sort((a, b) => order.indexOf(a) - order.indexOf(b)) };
    }
    const layer = this.layerOf.get(pick)!;
    const params = layer.params(path, layer.captures(path));
    return { kind: 'found', route: pick, params };
  }
}
