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
}

export function route(method: HttpMethod, path: string, action: string, options: { public?: boolean } = {}): RouteSpec {
  return options.public ? { method, path, action, public: true } : { method, path, action };
}

export interface RestRequest {
  readonly method: HttpMethod;
  /** the path as received (not decoded) */
  readonly path: string;
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
  /** authenticated principal (set by the authenticator chain), if any */
  principal?: Principal;
  /** per-request state for interceptors */
  readonly context: Map<string | symbol, unknown>;
}

export interface Principal {
  username: string;
  roles: string[];
  realm: { name: string; type: string };
  authenticationType: string;
  metadata?: Record<string, unknown>;
  /** limits used by API keys / authorisation */
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
  handle(req: RestRequest): Promise<RestResponse> | RestResponse;
}
