import { randomUUID } from 'node:crypto';
import { gunzipSync, inflateSync } from 'node:zlib';
import { stringify as yamlStringify } from 'yaml';
import type Koa from 'koa';
import { inject, injectable, optional } from 'inversify';
import {
  BreakerNames,
  ClientChannel,
  EsError,
  Errors,
  PRODUCT_VERSION,
  RequestMemory,
  RequestContexts,
  Tokens,
  addDeprecationWarning,
  formatByteSize,
  stringifyJson,
  toEsError,
  type Authorizer,
  type CircuitBreakerService,
  type HostConfig,
  type HttpMethod,
  type Logger,
  type RequestContext,
  type RestResponse,
} from '@strata/core-common';
import { AuthenticatorChain } from './auth.js';
import { corsConfig, originAllowed, type CorsConfig } from './cors.js';
import { applyFilterPath, parseFilterPath } from './filter-path.js';
import {
  HTTP_COMPRESSION,
  HTTP_COMPRESSION_LEVEL,
  HTTP_MAX_CONTENT_LENGTH,
  HTTP_MAX_HEADER_SIZE,
  HTTP_MAX_INITIAL_LINE_LENGTH,
} from './http-settings.js';
import { checkCompatibleVersions, checkContentType, PlainHttpError, responseJsonType } from './media-type.js';
import { HttpRestRequest } from './rest-request.js';
import { RouteRegistry } from './route-registry.js';
import { prettyJson } from './x-content.js';
import { compressBody, MIN_COMPRESSED_BYTES } from './response-compression.js';
import { hasLargeArray, stringifySliced } from './sliced-json.js';

/** Query parameters every endpoint accepts. */
export const GLOBAL_PARAMS: readonly string[] = [
  'pretty',
  'human',
  'error_trace',
  'filter_path',
  'format',
  'source',
  'source_content_type',
];

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE']);

/**
 * Query parameters Elasticsearch 8 still accepts but deprecates: using one answers normally with a
 * `Warning` header (wherever a handler accepts the parameter).
 */
export const DEPRECATED_PARAMS: Readonly<Record<string, string>> = {
  ignore_throttled:
    '[ignore_throttled] parameter is deprecated because frozen indices have been deprecated. Consider cold or frozen tiers in place of frozen indices.',
};

/** `Warning: 299 Elasticsearch-<version>-<hash> "<message>"` (HeaderWarning's format, quotes and backslashes escaped) */
export function warningHeaderValue(message: string): string {
  const escaped = message.replace(/\\/g, '\\\\').replace(/"/g, '\\"');
  return `299 Elasticsearch-${PRODUCT_VERSION.number}-${PRODUCT_VERSION.buildHash} "${escaped}"`;
}

export interface PipelineOptions {
  /** call `next()` instead of answering 400 when no route matches (mounting into another Koa app) */
  fallthrough?: boolean;
}

function levenshtein(a: string, b: string): number {
  const dp = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = dp[0];
    dp[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = dp[j];
      dp[j] = Math.min(dp[j] + 1, dp[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return dp[b.length];
}

/** Elasticsearch's unrecognized-parameter message with "did you mean" suggestions. */
export function unrecognizedParams(path: string, unknown: string[], candidates: readonly string[]): EsError {
  const parts = unknown.map((u) => {
    const scored = candidates
      .map((c) => ({ c, s: 1 - levenshtein(u, c) / Math.max(u.length, c.length) }))
      .filter((x) => x.s > 0.5)
      .sort((x, y) => y.s - x.s || x.c.localeCompare(y.c));
    if (scored.length === 0) return `[${u}]`;
    if (scored.length === 1) return `[${u}] -> did you mean [${scored[0].c}]?`;
    return `[${u}] -> did you mean any of [${scored.map((x) => x.c).join(', ')}]?`;
  });
  return Errors.illegalArgument(
    `request [${path}] contains unrecognized parameter${unknown.length === 1 ? '' : 's'}: ${parts.join(', ')}`,
  );
}

class BodyError extends Error {}

/**
 * The HTTP pipeline: product header, error rendering, route matching, body reading, authentication,
 * authorisation, parameter checks, handler call and response rendering (pretty, filter_path, HEAD).
 * Mount it with `app.use(pipeline.middleware())`.
 */
@injectable()
export class HttpPipeline {
  private readonly maxContentLength: number;
  private readonly cors: CorsConfig;
  private readonly compression: boolean;
  private readonly compressionLevel: number;
  private readonly maxHeaderSize: number;
  private readonly maxInitialLineLength: number;
  private nextId = 0;
  private readonly idPrefix = randomUUID().slice(0, 8);

  constructor(
    @inject(RouteRegistry) private readonly routes: RouteRegistry,
    @inject(AuthenticatorChain) private readonly authn: AuthenticatorChain,
    @inject(Tokens.Authorizer) private readonly authz: Authorizer,
    @inject(Tokens.HostConfig) @optional() config: HostConfig | undefined,
    @inject(Tokens.Logger) @optional() private readonly logger: Logger | undefined,
    @inject(Tokens.CircuitBreakerService) @optional() private readonly breakers: CircuitBreakerService | undefined,
  ) {
    const raw = config?.settings?.['http.max_content_length'];
    this.maxContentLength = raw === undefined ? HTTP_MAX_CONTENT_LENGTH.defaultValue : HTTP_MAX_CONTENT_LENGTH.parse(raw);
    this.cors = corsConfig(config?.settings);
    const comp = config?.settings?.['http.compression'];
    this.compression = comp === undefined ? HTTP_COMPRESSION.defaultValue : HTTP_COMPRESSION.parse(comp);
    const level = config?.settings?.['http.compression_level'];
    this.compressionLevel = level === undefined ? HTTP_COMPRESSION_LEVEL.defaultValue : HTTP_COMPRESSION_LEVEL.parse(level);
    const header = config?.settings?.['http.max_header_size'];
    this.maxHeaderSize = header === undefined ? HTTP_MAX_HEADER_SIZE.defaultValue : HTTP_MAX_HEADER_SIZE.parse(header);
    const line = config?.settings?.['http.max_initial_line_length'];
    this.maxInitialLineLength = line === undefined ? HTTP_MAX_INITIAL_LINE_LENGTH.defaultValue : HTTP_MAX_INITIAL_LINE_LENGTH.parse(line);
  }

  /**
   * `http.max_initial_line_length` and `http.max_header_size`, as Elasticsearch's HTTP decoder applies them
   * (Node's parser is given room for both, so the two limits are told apart here).
   */
  private checkHeadLimits(ctx: Koa.Context): void {
    const line = ctx.req.method!.length + ctx.req.url!.length + 10;
    if (line > this.maxInitialLineLength) {
      throw new EsError('too_long_http_line_exception', 400, `An HTTP line is larger than ${this.maxInitialLineLength} bytes.`);
    }
    let size = 0;
    const raw = ctx.req.rawHeaders;
    for (let i = 0; i < raw.length; i++) size += Buffer.byteLength(raw[i]!, 'latin1') + 2;
    if (size > this.maxHeaderSize) {
      throw new EsError('too_long_http_header_exception', 400, `HTTP header is larger than ${this.maxHeaderSize} bytes.`);
    }
  }

  /**
   * `http.cors.*` as Elasticsearch applies them: preflights answered directly, allowed origins echoed,
   * other origins refused with 403. Returns true when the request has been answered.
   */
  private applyCors(ctx: Koa.Context): boolean {
    const origin = ctx.get('Origin');
    if (!this.cors.enabled || !origin) return false;
    const allowed = originAllowed(this.cors, origin);
    const allowOrigin = this.cors.anyOrigin && !this.cors.credentials ? '*' : origin;
    if (!allowed) {
      ctx.status = 403;
      ctx.body = '';
      return true;
    }
    ctx.set('Access-Control-Allow-Origin', allowOrigin);
    ctx.set('Vary', 'Origin');
    if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
      ctx.set('Access-Control-Allow-Methods', this.cors.methods);
      ctx.set('Access-Control-Allow-Headers', this.cors.headers);
      ctx.set('Access-Control-Max-Age', String(this.cors.maxAge));
      if (this.cors.credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.status = 200;
      ctx.body = '';
      return true;
    }
    if (this.cors.credentials) ctx.set('Access-Control-Allow-Credentials', 'true');
    if (this.cors.exposed) ctx.set('Access-Control-Expose-Headers', this.cors.exposed);
    return false;
  }

  middleware(options: PipelineOptions = {}): Koa.Middleware {
    const handle = this.handler(options);
    return (ctx, next) => {
      const opaqueId = ctx.get('X-Opaque-Id') || undefined;
      // a client that disconnects before its response is written aborts the work done for it
      const channel = new ClientChannel();
      const onClose = (): void => {
        if (!ctx.res.writableFinished) channel.close();
      };
      ctx.res.once('close', onClose);
      const afterResponse: Array<() => void> = [];
      ctx.res.once('finish', () => {
        for (const fn of afterResponse.splice(0)) {
          try {
            fn();
          } catch (err) {
            this.logger?.error({ err }, 'after-response task failed');
          }
        }
      });
      const rc: RequestContext = {
        id: `${this.idPrefix}-${(this.nextId++).toString(36)}`,
        method: ctx.method,
        url: ctx.url,
        ...(opaqueId ? { opaqueId } : {}),
        startedAt: Date.now(),
        warnings: [],
        get signal() {
          return channel.signal;
        },
        onClientGone: (fn) => channel.onGone(fn),
        afterResponse,
        ...(this.breakers ? { memory: new RequestMemory(this.breakers) } : {}),
      };
      return RequestContexts.run(rc, () => handle(ctx, next, rc)).finally(() => rc.memory?.close());
    };
  }

  private handler(options: PipelineOptions): (ctx: Koa.Context, next: Koa.Next, rc: RequestContext) => Promise<void> {
    return async (ctx, next, rc) => {
      ctx.set('X-Elastic-Product', 'Elasticsearch');
      const opaque = ctx.get('X-Opaque-Id');
      if (opaque) ctx.set('X-Opaque-Id', opaque);
      let pretty = false;
      let errorTrace = false;
      try {
        this.checkHeadLimits(ctx);
        if (this.applyCors(ctx)) return;
        pretty = flag(ctx.query['pretty']);
        errorTrace = flag(ctx.query['error_trace']);
        const method = ctx.method.toUpperCase();
        const path = ctx.path;
        const match = KNOWN_METHODS.has(method) ? this.routes.match(method, path) : this.routes.match('GET', path);
        if (method === 'OPTIONS') {
          if (match.kind === 'not-found') {
            if (options.fallthrough) return await next();
            throw noHandler(method, ctx.url);
          }
          const allowed = this.allowedFor(path);
          ctx.status = 200;
          ctx.set('Allow', allowed.join(','));
          ctx.body = '';
          return;
        }
        if (match.kind === 'not-found' && options.fallthrough) return await next();
        // every request is authenticated first, before its body is read and before an unknown path or a
        // wrong method is reported, so an anonymous caller learns nothing (Elasticsearch does the same)
        const req = new HttpRestRequest({
          method: (KNOWN_METHODS.has(method) ? method : 'GET') as HttpMethod,
          path,
          uri: ctx.url,
          remoteAddress: remoteAddress(ctx),
          route: match.kind === 'found' ? match.route.spec : { method: method as HttpMethod, path, action: '' },
          headers: ctx.headers as Record<string, string | undefined>,
          pathParams: match.kind === 'found' ? match.params : {},
          query: ctx.query as Record<string, string | string[] | undefined>,
          body: undefined,
        });
        const isPublic = match.kind === 'found' && match.route.spec.public === true;
        if (!isPublic) {
          req.principal = await this.authn.authenticate(req);
          rc.principal = req.principal;
        }
        if (match.kind === 'not-found') throw noHandler(method, ctx.url);
        if (match.kind === 'method-not-allowed' || !KNOWN_METHODS.has(method)) {
          const allowed = match.kind === 'method-not-allowed' ? match.allowed : this.allowedFor(path);
          throw methodNotAllowed(method, ctx.url, allowed);
        }
        // in_flight_requests: the body is charged before it is buffered (its declared length), the rest once decoded
        const declared = Math.max(0, Number(ctx.get('Content-Length') || '0') || 0);
        const canTrip = match.route.handler.canTripCircuitBreaker !== false;
        try {
          rc.memory?.reserve(BreakerNames.IN_FLIGHT_REQUESTS, declared, '<http_request>', canTrip);
        } catch (e) {
          ctx.set('Connection', 'close');
          throw e;
        }
        let body = this.decode(ctx, await this.readBody(ctx));
        if (body.length > declared) rc.memory?.reserve(BreakerNames.IN_FLIGHT_REQUESTS, body.length - declared, '<http_request>', canTrip);
        if (body.length === 0 && ctx.query['source'] !== undefined) {
          const ct = ctx.query['source_content_type'];
          if (typeof ct !== 'string') {
            throw Errors.illegalArgument('source and source_content_type parameters are required');
          }
          checkContentType(ct);
          body = Buffer.from(String(last(ctx.query['source'])), 'utf8');
        } else if (body.length > 0) {
          checkContentType(ctx.get('Content-Type') || undefined);
        }
        const jsonType = responseJsonType(ctx.get('Accept') || undefined);
        if (body.length > 0) checkCompatibleVersions(ctx.get('Accept') || undefined, ctx.get('Content-Type') || undefined);
        req.setBody(body);
        if (!isPublic) {
          await this.authz.authorize(req.principal, match.route.spec.action, req);
          // the authorizer may have switched the principal (run-as)
          rc.principal = req.principal;
          // the index-name resolver reads it from the request context (authorized wildcard expansion)
          if (req.indicesAccess) rc.indicesAccess = req.indicesAccess;
        }
        const allowed = match.route.handler.params ?? [];
        const names = req.paramNames();
        const unknown = names.filter((p) => !allowed.includes(p) && !GLOBAL_PARAMS.includes(p));
        if (unknown.length > 0) throw unrecognizedParams(path, unknown, allowed);
        for (const p of names) if (DEPRECATED_PARAMS[p]) addDeprecationWarning(DEPRECATED_PARAMS[p]);
        const resp = await match.route.handler.handle(req);
        if (resp.prettyByDefault && ctx.query['pretty'] === undefined) pretty = true;
        await this.render(ctx, resp, { pretty, jsonType, filterPath: ctx.query['filter_path'], format: last(ctx.query['format']) });
      } catch (err) {
        this.renderError(ctx, err, pretty, errorTrace);
      }
      if (rc.warnings.length > 0) ctx.set('Warning', rc.warnings.map(warningHeaderValue));
      await this.compress(ctx);
      this.logger?.debug(
        {
          'http.request.id': rc.id,
          'http.request.method': ctx.method,
          'url.original': ctx.url,
          'http.response.status_code': ctx.status,
          'event.duration': (Date.now() - rc.startedAt) * 1_000_000,
          ...(rc.principal ? { 'user.name': rc.principal.username } : {}),
        },
        'request',
      );
    };
  }

  /**
   * `http.compression`: a response body is gzip- or deflate-encoded when the client's Accept-Encoding
   * allows it (gzip preferred), at `http.compression_level`, as Elasticsearch's HTTP layer does, unless it
   * is smaller than MIN_COMPRESSED_BYTES (it fits in TCP's initial window). Large bodies are compressed off
   * the event loop (response-compression.ts).
   */
  private async compress(ctx: Koa.Context): Promise<void> {
    if (!this.compression || ctx.method === 'HEAD') return;
    const body = ctx.body;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) return;
    const accept = ctx.get('Accept-Encoding');
    if (!accept) return;
    const encoding = pickEncoding(accept);
    if (!encoding) return;
    if ((typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.length) < MIN_COMPRESSED_BYTES) return;
    const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const type = ctx.response.get('Content-Type');
    ctx.body = await compressBody(raw, encoding, this.compressionLevel);
    if (type) ctx.set('Content-Type', type);
    ctx.set('Content-Encoding', encoding);
    ctx.vary('Accept-Encoding');
  }

  private allowedFor(path: string): string[] {
    const out: string[] = [];
    for (const m of ['HEAD', 'GET', 'POST', 'PUT', 'DELETE']) {
      if (this.routes.match(m, path).kind === 'found') out.push(m);
    }
    return out;
  }

  private async readBody(ctx: Koa.Context): Promise<Buffer> {
    const limit = this.maxContentLength;
    const declared = Number(ctx.get('Content-Length') || '0');
    if (declared > limit) {
      ctx.set('Connection', 'close');
      throw this.tooLong(declared);
    }
    const req = ctx.req;
    if (declared === 0 && !ctx.get('Transfer-Encoding')) return Buffer.alloc(0);
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (err?: Error): void => {
        if (done) return;
        done = true;
        req.off('data', onData);
        req.off('end', onEnd);
        req.off('error', onError);
        req.off('aborted', onAborted);
        if (err) reject(err);
        else resolve(Buffer.concat(chunks, size));
      };
      const onData = (chunk: Buffer): void => {
        size += chunk.length;
        if (size > limit) {
          ctx.set('Connection', 'close');
          req.pause();
          finish(this.tooLong(size));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => finish();
      const onError = (e: Error): void => finish(new BodyError(e.message));
      const onAborted = (): void => finish(new BodyError('client aborted the request'));
      req.on('data', onData);
      req.on('end', onEnd);
      req.on('error', onError);
      req.on('aborted', onAborted);
    });
  }

  /** `Content-Encoding: gzip|deflate` request bodies (the clients' `compression` option) */
  private decode(ctx: Koa.Context, body: Buffer): Buffer {
    const enc = (ctx.get('Content-Encoding') || 'identity').trim().toLowerCase();
    if (body.length === 0 || enc === 'identity') return body;
    const opts = { maxOutputLength: this.maxContentLength };
    try {
      if (enc === 'gzip' || enc === 'x-gzip') return gunzipSync(body, opts);
      if (enc === 'deflate') return inflateSync(body, opts);
    } catch (e) {
      if (e instanceof RangeError || (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw this.tooLong(body.length);
      throw Errors.illegalArgument(`failed to decompress the request body [${enc}]: ${e instanceof Error ? e.message : String(e)}`);
    }
    throw new PlainHttpError(415, `Content-Encoding [${enc}] is not supported`);
  }

  private tooLong(size: number): EsError {
    return Errors.contentTooLong(
      `entity content is too long [${size}] for the configured buffer limit [${this.maxContentLength}] (${formatByteSize(this.maxContentLength)})`,
    );
  }

  private async render(
    ctx: Koa.Context,
    resp: RestResponse,
    opts: { pretty: boolean; jsonType: string; filterPath: string | string[] | undefined; format?: string },
  ): Promise<void> {
    ctx.status = resp.status;
    if (resp.headers) for (const [k, v] of Object.entries(resp.headers)) ctx.set(k, v);
    if (resp.text !== undefined) {
      ctx.set('Content-Type', resp.contentType ?? 'text/plain; charset=UTF-8');
      ctx.body = resp.text;
      return;
    }
    if (resp.body === undefined) {
      ctx.set('Content-Type', resp.contentType ?? opts.jsonType);
      ctx.body = '';
      return;
    }
    const filtered = applyFilterPath(resp.body, parseFilterPath(opts.filterPath));
    if (!resp.contentType && wantsYaml(opts.format, ctx.get('Accept'))) {
      ctx.set('Content-Type', 'application/yaml');
      ctx.body = toYaml(filtered);
      return;
    }
    ctx.set('Content-Type', resp.contentType ?? opts.jsonType);
    // a large bulk response or page of hits is made in slices, letting other requests in between (sliced-json.ts)
    ctx.body = opts.pretty ? prettyJson(filtered) : hasLargeArray(filtered) ? await stringifySliced(filtered) : stringifyJson(filtered);
  }

  private renderError(ctx: Koa.Context, err: unknown, pretty: boolean, errorTrace: boolean): void {
    if (err instanceof BodyError || (!ctx.writable && ctx.req.destroyed)) {
      this.logger?.debug({ err: String(err) }, 'request aborted');
      return;
    }
    const es = toEsError(err);
    if (!(err instanceof EsError)) {
      this.logger?.error({ err, method: ctx.method, url: ctx.url }, 'unexpected error while handling a request');
    } else if (es.status >= 500) {
      this.logger?.warn({ err: { type: es.type, reason: es.reason }, method: ctx.method, url: ctx.url }, 'request failed');
    }
    let body: unknown;
    if (es instanceof PlainHttpError) body = es.plainBody();
    else {
      const b = es.toBody();
      if (errorTrace && err instanceof Error && err.stack) b.error['stack_trace'] = err.stack;
      body = b;
    }
    ctx.status = es.status;
    for (const [k, v] of Object.entries(es.headers)) ctx.set(k, v);
    // errors answer in the media type Accept asked for (compatible-with=N echoed), as successes do
    let jsonType = 'application/json';
    try {
      jsonType = responseJsonType(ctx.get('Accept') || undefined);
    } catch {
      // an unusable Accept is (part of) the error being rendered: plain JSON
    }
    if (wantsYaml(last(ctx.query['format']), ctx.get('Accept'))) {
      ctx.set('Content-Type', 'application/yaml');
      ctx.body = toYaml(body);
      return;
    }
    ctx.set('Content-Type', jsonType);
    ctx.body = pretty ? prettyJson(body) : JSON.stringify(body);
  }
}

/**
 * Elasticsearch answers an unknown path with a bare string error, the uri including the query string:
 * `{"error":"no handler found for uri [/x?pretty] and method [GET]","status":400}`.
 */
function noHandler(method: string, uri: string): PlainHttpError {
  const e = Errors.noRoute(method, uri);
  return new PlainHttpError(e.status, e.reason, e.headers);
}

/** `{"error":"Incorrect HTTP method for uri [/] and method [DELETE], allowed: [HEAD, GET]","status":405}` + Allow */
function methodNotAllowed(method: string, uri: string, allowed: string[]): PlainHttpError {
  const e = Errors.methodNotAllowed(method, uri, allowed);
  return new PlainHttpError(e.status, e.reason, e.headers);
}

function remoteAddress(ctx: Koa.Context): string | undefined {
  const s = ctx.req.socket;
  if (!s?.remoteAddress) return undefined;
  return s.remoteAddress.includes(':') ? `[${s.remoteAddress}]:${s.remotePort}` : `${s.remoteAddress}:${s.remotePort}`;
}

function last(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[v.length - 1] : v;
}

function flag(v: string | string[] | undefined): boolean {
  const s = last(v);
  return s !== undefined && s !== 'false';
}

/** `?format=yaml` or `Accept: application/yaml` (Elasticsearch renders any x-content response as YAML) */
function wantsYaml(format: string | undefined, accept: string | undefined): boolean {
  if (format !== undefined) return format === 'yaml';
  return !!accept && accept.split(',').some((p) => /^\s*application\/(x-)?yaml\s*(;|$)/i.test(p));
}

/** YAML as Elasticsearch's YAML generator writes it: a `---` document start, block style */
export function toYaml(value: unknown): string {
  const plain = JSON.parse(stringifyJson(value)) as unknown;
  return '---\n' + yamlStringify(plain, { lineWidth: 0, defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' });
}

/** the encoding to answer with: gzip before deflate, unless refused with q=0 */
function pickEncoding(accept: string): 'gzip' | 'deflate' | undefined {
  const allowed = new Map<string, number>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const q = params.map((x) => /^\s*q=([0-9.]+)/.exec(x)).find((m) => m);
    allowed.set(name.trim(), q ? Number(q[1]) : 1);
  }
  for (const enc of ['gzip', 'deflate'] as const) {
    const q = allowed.get(enc) ?? (enc === 'gzip' ? allowed.get('x-gzip') : undefined) ?? allowed.get('*');
    if (q !== undefined && q > 0) return enc;
  }
  return undefined;
}
