import type { IndicesAccess } from './access.js';

/**
 * The REST contract every feature programs against. core-http adapts it to Koa.
 * Routes are written in Elasticsearch's brace syntax: `/{index}/_doc/{id}`.
 */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';

export interface RouteSpec {
  method: HttpMethod;
  /** ES brace syntax, e.g. `/_ingest/pipeline/{id}` */
  path: string;
  /** action name used for privilege checks, e.g. `indices:data/read/search` */
  action: string;
  /**
   * served without authentication or authorisation (the console's static page, which then logs in
   * and sends credentials with every API call). Only for content that reveals nothing.
   */
  public?: boolean;
  /**
   * the path parameter holding the request's index targets (a comma list of indices, aliases, data streams
   * or patterns), checked against index privileges. Default: `index`. Data stream routes name theirs
   * (`{ targets: 'name' }`).
   */
  targets?: string;
}

export function route(method: HttpMethod, path: string, action: string, options: { public?: boolean; targets?: string } = {}): RouteSpec {
  const spec: RouteSpec = { method, path, action };
  if (options.public) spec.public = true;
  if (options.targets) spec.targets = options.targets;
  return spec;
}

export interface RestRequest {
  readonly method: HttpMethod;
  /** the path as received (not decoded) */
  readonly path: string;
  /** the request target as received, path and query string (`/_search?pretty`) */
  readonly uri?: string;
  /** the client's address and port (`127.0.0.1:53412`), for audit records */
  readonly remoteAddress?: string;
  /** the matched route */
  readonly route: RouteSpec;
  readonly headers: Readonly<Record<string, string | undefined>>;
  /** decoded path parameters */
  pathParam(name: string): string;
  /** decoded path parameter or undefined */
  optionalPathParam(name: string): string | undefined;
  /** raw query-string parameter (the last value when repeated) */
  param(name: string): string | undefined;
  hasParam(name: string): boolean;
  /** Boolean parameter: absent → default; "" or "true" → true; "false" → false; anything else → illegal_argument_exception */
  boolParam(name: string, defaultValue: boolean): boolean;
  /** Integer parameter or default; a non-integer → illegal_argument_exception */
  intParam(name: string, defaultValue?: number): number | undefined;
  /** Time-value parameter in milliseconds, or default */
  timeParam(name: string, defaultValue?: string): number | undefined;
  /** comma-separated list parameter, or default */
  listParam(name: string, defaultValue?: string[]): string[] | undefined;
  /** true when the request carries a non-empty body */
  hasBody(): boolean;
  /** the body exactly as sent (for hashing by the request cache) */
  rawBody(): string;
  /** the parsed JSON body; undefined if there is none. Malformed JSON throws x_content_parse_exception / parsing errors */
  jsonBody(): unknown;
  /** the body as an object; throws if absent and `required`, or if it is not a JSON object */
  objectBody(required?: boolean): Record<string, unknown> | undefined;
  /** NDJSON lines (for _bulk, _msearch); empty lines dropped */
  ndjsonLines(): string[];
  /**
   * the lines of `ndjsonLines()` (by index) whose bytes are not well-formed UTF-8 (decoded, they hold U+FFFD
   * instead): where in the line (1-based column of the decoded line) and Jackson's message; undefined when the
   * whole body is well-formed
   */
  invalidUtf8Lines?(): ReadonlyMap<number, { col: number; message: string }> | undefined;
  /** authenticated principal (set by the authenticator chain), if any */
  principal?: Principal;
  /** the caller's index-level access (set by the authorizer when security restricts it; see access.ts) */
  indicesAccess?: IndicesAccess;
  /** per-request state for interceptors */
  readonly context: Map<string | symbol, unknown>;
}

/**
 * Who is calling: the authenticated principal the authenticator chain puts on a request (undefined
 * when security is off). Features read it without importing the security library — e.g. to tie a
 * scroll, a point in time or an async search to its owner (see `sameOwner` in auth.ts) — and pass it
 * down to search contexts (`SearchRequest.principal`). Plain data: it survives structured cloning.
 */
export interface Principal {
  /** the effective user name (`elastic`, `elastic/fleet-server` for a service account) */
  username: string;
  /** the user's role names (for an API key: empty; its role descriptors are carried by the security library) */
  roles: string[];
  /** the realm that authenticated the credential (`reserved`, `default_native`, `_es_api_key`, `_service_account`, ...) */
  realm: { name: string; type: string };
  /** the realm the user was looked up in, when it differs (run-as, tokens); defaults to `realm` */
  lookupRealm?: { name: string; type: string };
  /** `realm`, `api_key`, `token`, `anonymous`, `internal` */
  authenticationType: string;
  fullName?: string | null;
  email?: string | null;
  metadata?: Record<string, unknown>;
  /** set when the caller authenticated with an API key */
  apiKey?: { id: string; name: string | null };
  /** set when the caller authenticated with a service account token */
  token?: { name: string; type: string };
  /** further data of the security library (never secrets) */
  [k: string]: unknown;
}

export interface RestResponse {
  status: number;
  /** JSON body; `undefined` for an empty body (HEAD) */
  body?: unknown;
  /** pre-rendered text body (e.g. `_cat` text output) */
  text?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** render pretty when the request has no `pretty` parameter (ES's `GET /` banner) */
  prettyByDefault?: boolean;
}

export const RestResponses = {
  json(status: number, body: unknown, headers?: Record<string, string>): RestResponse {
    return { status, body, headers };
  },
  ok(body: unknown): RestResponse {
    return { status: 200, body };
  },
  acknowledged(extra: Record<string, unknown> = {}): RestResponse {
    return { status: 200, body: { acknowledged: true, ...extra } };
  },
  empty(status: number): RestResponse {
    return { status };
  },
  text(status: number, text: string, contentType = 'text/plain; charset=UTF-8'): RestResponse {
    return { status, text, contentType };
  },
};

/**
 * A REST handler contributed through ExtensionPoints.RestHandler.
 * `params` lists the query parameters the handler consumes; any other (except the global ones:
 * pretty, human, error_trace, filter_path, format, source, source_content_type) is rejected with
 * illegal_argument_exception "request [...] contains unrecognized parameter: [x]".
 */
export interface RestHandler {
  readonly name: string;
  readonly routes: readonly RouteSpec[];
  readonly params?: readonly string[];
  /**
   * false for handlers that must answer even when memory is tight (cluster settings, so a breaker limit can
   * be raised again): their body is accounted to `in_flight_requests` without tripping. Default true.
   */
  readonly canTripCircuitBreaker?: boolean;
  handle(req: RestRequest): Promise<RestResponse> | RestResponse;
}
