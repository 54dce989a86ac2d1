/** A minimal RestRequest for unit-testing handlers without core-http. */
import { Errors, type HttpMethod, type RestRequest, type RouteSpec } from '@strata/core-common';

export function fakeRequest(opts: {
  method?: HttpMethod;
  path?: string;
  pathParams?: Record<string, string>;
  params?: Record<string, string>;
  body?: unknown;
}): RestRequest {
  const params = opts.params ?? {};
  const pathParams = opts.pathParams ?? {};
  const route: RouteSpec = { method: opts.method ?? 'GET', path: opts.path ?? '/', action: 'test' };
  return {
    method: opts.method ?? 'GET',
    path: opts.path ?? '/',
    route,
    headers: {},
    context: new Map(),
    pathParam: (n) => pathParams[n],
    optionalPathParam: (n) => pathParams[n],
    param: (n) => params[n],
    hasParam: (n) => n in params,
    boolParam(n, d) {
      const v = params[n];
      if (v === undefined) return d;
      if (v === '' || v === 'true') return true;
      if (v === 'false') return false;
      throw Errors.illegalArgument(`Failed to parse value [${v}] as only [true] or [false] are allowed.`);
    },
    intParam(n, d) {
      const v = params[n];
      if (v === undefined) return d;
      if (!/^-?\d+$/.test(v)) throw Errors.illegalArgument(`Failed to parse int parameter [${n}] with value [${v}]`);
      return Number(v);
    },
    timeParam: (_n, _d) => 30000,
    listParam: (n, d) => (params[n] === undefined ? d : params[n].split(',')),
    hasBody: () => opts.body !== undefined,
    rawBody: () => (opts.body === undefined ? '' : JSON.stringify(opts.body)),
    jsonBody: () => opts.body,
    objectBody(required) {
      if (opts.body === undefined) {
        if (required) throw Errors.parsing('request body is required');
        return undefined;
      }
      return opts.body as Record<string, unknown>;
    },
    ndjsonLines: () => [],
  };
}
