import { EsError, Errors } from '@strata/core-common';

/**
 * An error Elasticsearch renders as a bare string: `{"error":"...","status":N}` (unsupported
 * Content-Type, for instance). Extends EsError so the renderer and callers treat it uniformly.
 */
export class PlainHttpError extends EsError {
  constructor(status: number, message: string, headers?: Record<string, string | string[]>) {
    super('exception', status, message, { headers });
    this.name = 'PlainHttpError';
  }
  override toBody(): { error: Record<string, unknown>; status: number } {
    // the wire shape is a string; callers use plainBody()
    return { error: { type: this.type, reason: this.reason }, status: this.status };
  }
  plainBody(): { error: string; status: number } {
    return { error: this.reason, status: this.status };
  }
}

export type BodyFormat = 'json' | 'ndjson';

export interface ParsedMediaType {
  /** type/subtype, lower-cased, without parameters */
  mime: string;
  params: Record<string, string>;
}

export function parseMediaType(header: string | undefined): ParsedMediaType | undefined {
  if (!header) return undefined;
  const [first, ...rest] = header.split(';');
  const mime = first.trim().toLowerCase();
  if (!mime) return undefined;
  const params: Record<string, string> = {};
  for (const p of rest) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    params[p.slice(0, eq).trim().toLowerCase()] = p
      .slice(eq + 1)
      .trim()
      .replace(/^"|"$/g, '');
  }
  return { mime, params };
}

const SUPPORTED_VERSIONS = ['7', '8', '9'];

function checkCompatibleWith(header: string, mt: ParsedMediaType, which: 'Accept' | 'Content-Type'): string {
  const v = mt.params['compatible-with'];
  if (v === undefined || !SUPPORTED_VERSIONS.includes(v)) {
    throw Errors.mediaType(
      `Invalid media-type value on headers [${which}]: ${which} version must be either version 9, 8 or 7, but found ${v ?? 'none'}. ${which}=${header}`,
    );
  }
  return v;
}

/**
 * Content-Type rules (CLIENTS.md §3). Only called when the request has a body.
 * Returns the body format the header announces; both JSON and NDJSON types are accepted for NDJSON
 * endpoints and vice versa (clients put NDJSON under JSON types).
 */
export function checkContentType(header: string | undefined): BodyFormat {
  const mt = parseMediaType(header);
  if (!mt) throw new PlainHttpError(406, 'Content-Type header is missing');
  switch (mt.mime) {
    case 'application/json':
      return 'json';
    case 'application/x-ndjson':
      return 'ndjson';
    case 'application/vnd.elasticsearch+json':
      checkCompatibleWith(header!, mt, 'Content-Type');
      return 'json';
    case 'application/vnd.elasticsearch+x-ndjson':
      checkCompatibleWith(header!, mt, 'Content-Type');
      return 'ndjson';
    default:
      throw new PlainHttpError(406, `Content-Type header [${header}] is not supported`);
  }
}

function compatibleVersionOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const v = parseMediaType(part)?.params['compatible-with'];
    if (v !== undefined) return v;
  }
  return undefined;
}

/**
 * RestCompatibleVersionHelper, for a request with a body: when Accept and Content-Type both request a
 * compatible version, the versions must match. Elasticsearch wraps its status_exception in a
 * media_type_header_exception (a plain Java exception, hence its own root cause).
 */
export function checkCompatibleVersions(accept: string | undefined, contentType: string | undefined): void {
  const a = compatibleVersionOf(accept);
  const c = compatibleVersionOf(contentType);
  if (a === undefined || c === undefined || a === c) return;
  const cause = new EsError(
    'status_exception',
    400,
    'A compatible version is required on both Content-Type and Accept headers if either one has requested a ' +
      `compatible version and the compatible versions must match. Accept=${accept}, Content-Type=${contentType}`,
    { plain: true },
  );
  throw new EsError('media_type_header_exception', 400, 'Invalid media-type value on headers [Content-Type, Accept]', {
    cause,
  });
}

/**
 * Response media type: `application/json` unless Accept asks for the vendor type with a compatible
 * version, which is then echoed (as Elasticsearch does).
 */
export function responseJsonType(accept: string | undefined): string {
  if (!accept) return 'application/json';
  for (const part of accept.split(',')) {
    const mt = parseMediaType(part);
    if (mt && (mt.mime === 'application/vnd.elasticsearch+json' || mt.mime === 'application/vnd.elasticsearch+x-ndjson')) {
      const v = checkCompatibleWith(part.trim(), mt, 'Accept');
      return `application/vnd.elasticsearch+json;compatible-with=${v}`;
    }
  }
  return 'application/json';
}
