import { inject, injectable, multiInject, optional } from 'inversify';
import {
  ExtensionPoints,
  RestResponses,
  Tokens,
  route,
  type HostConfig,
  type IngestProcessorFactory,
  type RestHandler,
  type RestResponse,
  type RouteSpec,
} from '@strata/core-common';
import { RouteCatalog } from '@strata/core-http';
import { EngineTokens, type QueryParserRegistry } from '@strata/core-engine';
import { CONSOLE_ASSET_TYPES, consoleAssets } from './console-assets.js';
import { CONSOLE_ENABLED } from './console.settings.js';

export const ConsoleActions = {
  /** the static page: served without authentication (it logs in itself) */
  ASSETS: 'cluster:monitor/strata/console/assets',
  /** the endpoint list for autocomplete */
  SPEC: 'cluster:monitor/strata/console/spec',
} as const;

function enabled(config: HostConfig | undefined): boolean {
  const raw = config?.settings?.[CONSOLE_ENABLED.key];
  return raw === undefined ? CONSOLE_ENABLED.defaultValue : CONSOLE_ENABLED.parse(raw);
}

const SECURITY_HEADERS = {
  'Cache-Control': 'no-cache',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

/** `GET /_console` and its two files; no routes at all when `console.enabled` is false. */
@injectable()
export class ConsoleAssetsRestHandler implements RestHandler {
  readonly name = 'strata_console_assets';
  readonly routes: RouteSpec[];
  readonly params = [];

  constructor(@inject(Tokens.HostConfig) @optional() config?: HostConfig) {
    this.routes = enabled(config)
      ? [
          route('GET', '/_console', ConsoleActions.ASSETS, { public: true }),
          route('GET', '/_console/{file}', ConsoleActions.ASSETS, { public: true }),
        ]
      : [];
  }

  handle(req: { optionalPathParam(name: string): string | undefined }): RestResponse {
    const file = req.optionalPathParam('file') ?? 'index.html';
    const type = CONSOLE_ASSET_TYPES[file];
    if (!type) return { status: 404, text: `no console file [${file}]\n`, contentType: 'text/plain; charset=UTF-8', headers: SECURITY_HEADERS };
    return { status: 200, text: consoleAssets()[file]!, contentType: type, headers: SECURITY_HEADERS };
  }
}

/**
 * `GET /_console/api/spec`: what the editor autocompletes: every registered route with its query
 * parameters, the registered query clauses and ingest processors.
 */
@injectable()
export class ConsoleSpecRestHandler implements RestHandler {
  readonly name = 'strata_console_spec';
  readonly routes: RouteSpec[];
  readonly params = [];

  constructor(
    @inject(RouteCatalog) private readonly registry: RouteCatalog,
    @inject(EngineTokens.QueryParserRegistry) @optional() private readonly queries: QueryParserRegistry | undefined,
    @multiInject(ExtensionPoints.IngestProcessor) @optional() private readonly processors: IngestProcessorFactory[] | undefined,
    @inject(Tokens.HostConfig) @optional() config?: HostConfig,
  ) {
    this.routes = enabled(config) ? [route('GET', '/_console/api/spec', ConsoleActions.SPEC)] : [];
  }

  handle(): RestResponse {
    const routes = this.registry
      .all()
      .filter((r) => !r.spec.public)
      .map((r) => ({ method: r.spec.method, path: r.spec.path, action: r.spec.action, params: [...(r.handler.params ?? [])].sort() }))
      .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
    return RestResponses.ok({
      routes,
      query_clauses: (this.queries?.names() ?? []).sort(),
      processors: (this.processors ?? []).map((p) => p.type).sort(),
    });
  }
}
