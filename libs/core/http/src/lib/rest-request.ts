import { isUtf8 } from 'node:buffer';
import {
  EsError,
  Errors,
  checkParsedJson,
  invalidUtf8,
  jsonSyntaxError,
  parseTimeValue,
  type HttpMethod,
  type IndicesAccess,
  type Principal,
  type RestRequest,
  type RouteSpec,
} from '@strata/core-common';
import { findJsonSyntaxError } from './json-syntax.js';

export interface RestRequestInit {
  method: HttpMethod;
  path: string;
  route: RouteSpec;
  headers: Record<string, string | undefined>;
  pathParams: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: Buffer | undefined;
  /** the request target as received (path and query string) */
  uri?: string;
  remoteAddress?: string;
}

const EMPTY = Buffer.alloc(0);

/** Parses JSON and maps syntax errors to Elasticsearch's x_content_parse_exception with [line:col]. */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e;
    const { offset, message } = findJsonSyntaxError(text);
    throw jsonSyntaxError(text, offset, message);
  }
  const problem = checkParsedJson(text, value);
  if (problem) {
    // Jackson's STRICT_DUPLICATE_DETECTION (always on in Elasticsearch) and its nesting-depth constraint
    throw jsonSyntaxError(text, problem.offset, problem.message);
  }
  return value;
}

/** The RestRequest contract (core-common rest.ts) over a Koa request. */
export class HttpRestRequest implements RestRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly route: RouteSpec;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly uri: string;
  readonly remoteAddress?: string;
  readonly context = new Map<string | symbol, unknown>();
  principal?: Principal;
  indicesAccess?: IndicesAccess;

  private readonly pathParams: Record<string, string>;
  private readonly query: Record<string, string | string[] | undefined>;
  private body: Buffer;
  private text?: string;
  private json?: { value: unknown };
  /** set by ndjsonLines(): null until it ran */
  private badLines: ReadonlyMap<number, { col: number; message: string }> | undefined | null = null;

  constructor(init: RestRequestInit) {
    this.method = init.method;
    this.path = init.path;
    this.route = init.route;
    this.headers = init.headers;
    this.pathParams = init.pathParams;
    this.query = init.query;
    this.body = init.body ?? EMPTY;
    this.uri = init.uri ?? init.path;
    this.remoteAddress = init.remoteAddress;
  }

  /** the body, once read (the request is authenticated before its body is read, as in Elasticsearch) */
  setBody(body: Buffer): void {
    this.body = body;
    this.text = undefined;
    this.json = undefined;
  }

  pathParam(name: string): string {
    const v = this.pathParams[name];
    if (v === undefined) throw Errors.illegalArgument(`missing path parameter [${name}]`);
    return v;
  }

  optionalPathParam(name: string): string | undefined {
    return this.pathParams[name];
  }

  param(name: string): string | undefined {
    const v = this.query[name];
    if (Array.isArray(v)) return v[v.length - 1];
    return v;
  }

  hasParam(name: string): boolean {
    return this.query[name] !== undefined;
  }

  /** names of all query parameters present */
  paramNames(): string[] {
    return Object.keys(this.query).filter((k) => this.query[k] !== undefined);
  }

  boolParam(name: string, defaultValue: boolean): boolean {
    const v = this.param(name);
    if (v === undefined) return defaultValue;
    if (v === '' || v === 'true') return true;
    if (v === 'false') return false;
    throw Errors.illegalArgument(
      `Failed to parse value [${v}] as only [true] or [false] are allowed.`,
    );
  }

  intParam(name: string, defaultValue?: number): number | undefined {
    const v = this.param(name);
    if (v === undefined || v === '') return defaultValue;
    if (!/^[+-]?\d+$/.test(v.trim())) {
      throw Errors.illegalArgument(`Failed to parse int parameter [${name}] with value [${v}]`);
    }
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n > 2147483647 || n < -2147483648) {
      throw Errors.illegalArgument(`Failed to parse int parameter [${name}] with value [${v}]`);
    }
    return n;
  }

  timeParam(name: string, defaultValue?: string): number | undefined {
    const v = this.param(name);
    if (v === undefined || v === '') return defaultValue === undefined ? undefined : parseTimeValue(defaultValue, name);
    return parseTimeValue(v, name);
  }

  listParam(name: string, defaultValue?: string[]): string[] | undefined {
    const v = this.param(name);
    if (v === undefined) return defaultValue;
    return v.split(',').filter((s) => s.length > 0);
  }

  hasBody(): boolean {
    return this.body.length > 0;
  }

  rawBody(): string {
    if (this.text === undefined) this.text = this.body.toString('utf8');
    return this.text;
  }

  /** the body bytes as received */
  rawBytes(): Buffer {
    return this.body;
  }

  jsonBody(): unknown {
    if (!this.hasBody()) return undefined;
    if (!this.json) {
      const text = this.rawBody();
      if (text.trim().length === 0) this.json = { value: undefined };
      else {
        // bytes that are not UTF-8 fail the parse, as in Jackson (decoded, they would be U+FFFD silently)
        if (!isUtf8(this.body)) {
          const bad = invalidUtf8(this.body)!;
          throw jsonSyntaxError(text, this.body.subarray(0, bad.offset).toString('utf8').length, bad.message);
        }
        this.json = { value: parseJsonText(text) };
      }
    }
    return this.json.value;
  }

  objectBody(required = false): Record<string, unknown> | undefined {
    const v = this.jsonBody();
    if (v === undefined) {
      if (required) throw new EsError('parse_exception', 400, 'request body is required');
      return undefined;
    }
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      throw Errors.xContentParse(
        `Unexpected token [${Array.isArray(v) ? 'START_ARRAY' : v === null ? 'VALUE_NULL' : typeof v === 'string' ? 'VALUE_STRING' : typeof v === 'number' ? 'VALUE_NUMBER' : 'VALUE_BOOLEAN'}], expected [START_OBJECT]`,
      );
    }
    return v as Record<string, unknown>;
  }

  ndjsonLines(): string[] {
    const text = this.rawBody();
    const out: string[] = [];
    // the bytes' lines match the decoded ones one to one: a newline byte is never part of a UTF-8 sequence,
    // and the decoder keeps it when it ends a broken one
    const body = this.body;
    const bad = isUtf8(body) ? null : new Map<number, { col: number; message: string }>();
    let at = 0;
    for (const raw of text.split('\n')) {
      const end = bad ? nextNewline(body, at) : 0;
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim().length > 0) {
        if (bad) {
          const e = invalidUtf8(body, at, end);
          if (e) bad.set(out.length, { col: body.subarray(at, e.offset).toString('utf8').length + 1, message: e.message });
        }
        out.push(line);
      }
      at = end + 1;
    }
    this.badLines = bad && bad.size > 0 ? bad : undefined;
    return out;
  }

  invalidUtf8Lines(): ReadonlyMap<number, { col: number; message: string }> | undefined {
    if (this.badLines === null) this.ndjsonLines();
    return this.badLines ?? undefined;
  }
}

/** the offset of the next newline byte at or after `from`, or the length */
function nextNewline(b: Buffer, from: number): number {
  const i = b.indexOf(10, from);
  return i < 0 ? b.length : i;
}
