/** Shared parameter parsing for the document REST handlers (ES names and messages). */
import { EsError, Errors, parseTimeValue, type RestRequest } from '@strata/core-common';
import { parseSourceParams, type RefreshPolicy, type SourceFilter, type VersionType } from '@strata/core-engine';

export function refreshParam(req: RestRequest): RefreshPolicy | undefined {
  if (!req.hasParam('refresh')) return undefined;
  const v = req.param('refresh') ?? '';
  if (v === '' || v === 'true') return 'true';
  if (v === 'false') return 'false';
  if (v === 'wait_for') return 'wait_for';
  throw Errors.illegalArgument(`Unknown value for refresh: [${v}].`);
}

export function versionTypeParam(req: RestRequest): VersionType | undefined {
  const v = req.param('version_type');
  if (v === undefined) return undefined;
  const s = v.toLowerCase();
  if (s === 'internal' || s === 'external' || s === 'external_gte') return s;
  if (s === 'force') throw Errors.illegalArgument('version type [force] may no longer be used');
  throw Errors.illegalArgument(`No version type match [${v}]`);
}

export function longParam(req: RestRequest, name: string): number | undefined {
  const v = req.param(name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v.trim())) throw Errors.illegalArgument(`Failed to parse long parameter [${name}] with value [${v}]`);
  return Number(v);
}

export function sourceParams(req: RestRequest): { fetch?: boolean; filter?: SourceFilter } {
  const src = req.param('_source');
  const inc = req.listParam('_source_includes') ?? req.listParam('_source_include');
  const exc = req.listParam('_source_excludes') ?? req.listParam('_source_exclude');
  if (src === undefined && !inc && !exc) return {};
  const r = parseSourceParams(src, inc, exc);
  return { fetch: r.fetch, filter: r.filter };
}

export function requireBody(req: RestRequest): Record<string, unknown> {
  if (!req.hasBody()) throw new EsError('parse_exception', 400, 'request body is required');
  return req.objectBody(true) as Record<string, unknown>;
}

/**
 * `timeout` (and other time-value parameters) as TimeValue.parseTimeValue reads them: an unparsable value is an
 * ElasticsearchParseException (400 parse_exception) raised before anything is written.
 */
export function timeoutParam(req: RestRequest, name = 'timeout'): number | undefined {
  const v = req.param(name);
  if (v === undefined || v === '') return undefined;
  try {
    return parseTimeValue(v, name);
  } catch (e) {
    if (e instanceof EsError) throw new EsError('parse_exception', 400, e.reason);
    throw e;
  }
}

/** BulkRequestParser.findNextMarker: data after the last newline fails the whole request. */
export function requireTerminatingNewline(body: string): void {
  if (body.length > 0 && body.charCodeAt(body.length - 1) !== 10) {
    throw Errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
  }
}
