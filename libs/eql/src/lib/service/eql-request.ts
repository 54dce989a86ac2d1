/**
 * The EQL search request: body fields and query parameters, validated with Elasticsearch's errors
 * (`x_content_parse_exception` "[eql/search] unknown field [x]", `action_request_validation_exception`
 * "Validation Failed: 1: ...;"). Where the interface spec states a rule it wins: size > 0 (integer or float),
 * fetch_size > 2, query parameters override the same body fields.
 */
import { Errors, EsError, indicesOptionsOf, locateKey, parseTimeValue, type RestRequest } from '@strata/core-common';

export const DEFAULT_KEEP_ALIVE_MS = 5 * 86_400_000;
export const MIN_KEEP_ALIVE_MS = 60_000;

export interface EqlSearchRequest {
  indices: string[];
  query: string;
  eventCategoryField: string;
  timestampField: string;
  tiebreakerField?: string;
  size: number;
  fetchSize: number;
  resultPosition: 'head' | 'tail';
  filter?: unknown;
  fields?: unknown[];
  runtimeMappings?: Record<string, unknown>;
  maxSamplesPerKey: number;
  waitForCompletionTimeoutMs?: number;
  keepAliveMs: number;
  /** the keep_alive as written (for rendering) */
  keepOnCompletion: boolean;
  allowPartialSearchResults: boolean;
  allowPartialSequenceResults: boolean;
  ccsMinimizeRoundtrips: boolean;
  ignoreUnavailable: boolean;
  allowNoIndices: boolean;
  expandWildcards: string[];
  /** the raw body (forwarded to remote clusters) */
  body: Record<string, unknown>;
}

const PARSER = 'eql/search';
const KNOWN = new Set([
  'query',
  'event_category_field',
  'timestamp_field',
  'tiebreaker_field',
  'size',
  'fetch_size',
  'result_position',
  'filter',
  'fields',
  'runtime_mappings',
  'max_samples_per_key',
  'wait_for_completion_timeout',
  'keep_alive',
  'keep_on_completion',
  'allow_partial_search_results',
  'allow_partial_sequence_results',
]);

function pos(raw: string | undefined, key: string): { line: number; col: number } {
  return (raw !== undefined ? locateKey(raw, key, 'value') : undefined) ?? { line: 1, col: 1 };
}

function fieldError(raw: string | undefined, key: string, cause?: EsError): EsError {
  const p = pos(raw, key);
  return Errors.xContentParse(`[${PARSER}] failed to parse field [${key}]`, p.line, p.col, cause);
}

function str(body: Record<string, unknown>, key: string, raw: string | undefined): string | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const p = pos(raw, key);
  throw Errors.xContentParse(`[${PARSER}] ${key} doesn't support values of type: ${v === null ? 'VALUE_NULL' : Array.isArray(v) ? 'START_ARRAY' : 'START_OBJECT'}`, p.line, p.col);
}

function intValue(body: Record<string, unknown>, key: string, raw: string | undefined): number | undefined {
  const v = body[key];
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Math.trunc(Number(v));
  if (typeof v === 'string') {
    throw fieldError(raw, key, new EsError('number_format_exception', 400, `For input string: "${v}"`, { plain: true }));
  }
  const p = pos(raw, key);
  throw Errors.xContentParse(`[${PARSER}] ${key} doesn't support values of type: ${v === null ? 'VALUE_NULL' : Array.isArray(v) ? 'START_ARRAY' : typeof v === 'boolean' ? 'VALUE_BOOLEAN' : 'START_OBJECT'}`, p.line, p.col);
}

function boolValue(v: unknown, key: string, raw: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw fieldError(raw, key, Errors.illegalArgument(`Failed to parse value [${String(v)}] as only [true] or [false] are allowed.`));
}

function timeValue(v: unknown, key: string, raw: string | undefined, fromParam: boolean): number | undefined {
  if (v === undefined) return undefined;
  try {
    return parseTimeValue(typeof v === 'number' ? String(v) : v, key);
  } catch (e) {
    if (fromParam || !(e instanceof EsError)) throw e;
    throw fieldError(raw, key, e);
  }
}

export function parseEqlRequest(req: RestRequest): EqlSearchRequest {
  const indexParam = req.pathParam('index');
  const indices = indexParam.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  const rawBody = req.hasBody() ? req.rawBody() : undefined;
  const bodyAny = req.hasBody() ? req.jsonBody() : undefined;
  if (bodyAny === undefined) throw Errors.parsing('request body or source parameter is required');
  if (bodyAny === null || typeof bodyAny !== 'object' || Array.isArray(bodyAny)) {
    throw Errors.xContentParse(`[${PARSER}] Expected START_OBJECT but was ${Array.isArray(bodyAny) ? 'START_ARRAY' : 'VALUE'}`);
  }
  const body = bodyAny as Record<string, unknown>;
  for (const k of Object.keys(body)) {
    if (!KNOWN.has(k)) {
      const p = pos(rawBody, k);
      // the key's own position (Jackson reports the field name token)
      const keyPos = rawBody !== undefined ? locateKey(rawBody, k, 'key') ?? p : p;
      throw Errors.xContentParse(`[${PARSER}] unknown field [${k}]`, keyPos.line, keyPos.col);
    }
  }

  const query = str(body, 'query', rawBody);
  const eventCategoryField = str(body, 'event_category_field', rawBody) ?? 'event.category';
  const timestampField = str(body, 'timestamp_field', rawBody) ?? '@timestamp';
  const tiebreakerField = str(body, 'tiebreaker_field', rawBody);
  const size = intValue(body, 'size', rawBody) ?? 10;
  const fetchSize = intValue(body, 'fetch_size', rawBody) ?? 1000;
  const maxSamplesPerKey = intValue(body, 'max_samples_per_key', rawBody) ?? 1;
  const rp = str(body, 'result_position', rawBody) ?? 'tail';
  if (rp !== 'head' && rp !== 'tail') {
    throw fieldError(rawBody, 'result_position', Errors.illegalArgument(`result position needs to be 'head' or 'tail', received '${rp}'`));
  }
  const filter = body['filter'];
  if (filter !== undefined && (filter === null || typeof filter !== 'object' || Array.isArray(filter))) {
    const p = pos(rawBody, 'filter');
    throw Errors.xContentParse(`[${PARSER}] filter doesn't support values of type: ${filter === null ? 'VALUE_NULL' : Array.isArray(filter) ? 'START_ARRAY' : 'VALUE_STRING'}`, p.line, p.col);
  }
  let fields: unknown[] | undefined;
  if (body['fields'] !== undefined) {
    const f = body['fields'];
    if (!Array.isArray(f)) {
      const p = pos(rawBody, 'fields');
      throw Errors.xContentParse(`[${PARSER}] fields doesn't support values of type: ${f === null ? 'VALUE_NULL' : typeof f === 'object' ? 'START_OBJECT' : 'VALUE_STRING'}`, p.line, p.col);
    }
    for (const item of f) {
      if (typeof item === 'string') continue;
      if (item && typeof item === 'object' && !Array.isArray(item)) {
        const o = item as Record<string, unknown>;
        if (typeof o['field'] !== 'string') throw fieldError(rawBody, 'fields', Errors.illegalArgument('Required [field]'));
        for (const k of Object.keys(o)) {
          if (k !== 'field' && k !== 'format' && k !== 'include_unmapped') {
            throw fieldError(rawBody, 'fields', Errors.xContentParse(`[${PARSER}] unknown field [${k}]`));
          }
        }
        if (o['format'] !== undefined && typeof o['format'] !== 'string') throw fieldError(rawBody, 'fields');
        continue;
      }
      throw fieldError(rawBody, 'fields');
    }
    fields = f;
  }
  let runtimeMappings: Record<string, unknown> | undefined;
  if (body['runtime_mappings'] !== undefined) {
    const rm = body['runtime_mappings'];
    if (rm === null || typeof rm !== 'object' || Array.isArray(rm)) {
      const p = pos(rawBody, 'runtime_mappings');
      throw Errors.xContentParse(`[${PARSER}] runtime_mappings doesn't support values of type: ${rm === null ? 'VALUE_NULL' : Array.isArray(rm) ? 'START_ARRAY' : 'VALUE_STRING'}`, p.line, p.col);
    }
    runtimeMappings = rm as Record<string, unknown>;
  }

  // query parameters win over the same body fields (interface spec §2.4)
  const wfct = req.hasParam('wait_for_completion_timeout')
    ? timeValue(req.param('wait_for_completion_timeout'), 'wait_for_completion_timeout', rawBody, true)
    : timeValue(body['wait_for_completion_timeout'], 'wait_for_completion_timeout', rawBody, false);
  const keepAlive =
    (req.hasParam('keep_alive') ? timeValue(req.param('keep_alive'), 'keep_alive', rawBody, true) : timeValue(body['keep_alive'], 'keep_alive', rawBody, false)) ??
    DEFAULT_KEEP_ALIVE_MS;
  const keepOnCompletion = req.hasParam('keep_on_completion')
    ? req.boolParam('keep_on_completion', false)
    : (boolValue(body['keep_on_completion'], 'keep_on_completion', rawBody) ?? false);
  const allowPartialSearchResults = req.hasParam('allow_partial_search_results')
    ? req.boolParam('allow_partial_search_results', false)
    : (boolValue(body['allow_partial_search_results'], 'allow_partial_search_results', rawBody) ?? false);
  const allowPartialSequenceResults = req.hasParam('allow_partial_sequence_results')
    ? req.boolParam('allow_partial_sequence_results', false)
    : (boolValue(body['allow_partial_sequence_results'], 'allow_partial_sequence_results', rawBody) ?? false);

  const errors: string[] = [];
  if (query === undefined || query.length === 0) errors.push('query is null or empty');
  if (timestampField.length === 0) errors.push('@timestamp field is null or empty');
  if (eventCategoryField.length === 0) errors.push('event category field is null or empty');
  if (!(size > 0)) errors.push('size must be greater than 0');
  if (!(fetchSize > 2)) errors.push('fetch size must be greater than 2');
  if (maxSamplesPerKey < 1) errors.push('max_samples_per_key must be greater than 0');
  if (keepAlive < MIN_KEEP_ALIVE_MS) errors.push(`[keep_alive] must be greater than 1 minute, got:${renderTime(keepAlive)}`);
  if (runtimeMappings) {
    for (const [name, def] of Object.entries(runtimeMappings)) {
      if (def === null || typeof def !== 'object' || Array.isArray(def)) {
        errors.push(`Expected map for runtime field [${name}] definition but got [String]`);
        break;
      }
      if ((def as Record<string, unknown>)['type'] === undefined) {
        errors.push(`No type specified for runtime field [${name}]`);
        break;
      }
    }
  }
  if (errors.length) throw Errors.actionRequestValidation(errors);

  // validated here (IndicesOptions semantics); the list itself is kept for the remote clusters' requests
  const options = indicesOptionsOf(req, { ignoreUnavailable: true });
  const expandWildcards = req.listParam('expand_wildcards') ?? ['open'];
  return {
    indices,
    query: query!,
    eventCategoryField,
    timestampField,
    tiebreakerField,
    size,
    fetchSize,
    resultPosition: rp,
    filter,
    fields,
    runtimeMappings,
    maxSamplesPerKey,
    waitForCompletionTimeoutMs: wfct,
    keepAliveMs: keepAlive,
    keepOnCompletion,
    allowPartialSearchResults,
    allowPartialSequenceResults,
    ccsMinimizeRoundtrips: req.boolParam('ccs_minimize_roundtrips', true),
    ignoreUnavailable: options.ignoreUnavailable,
    allowNoIndices: options.allowNoIndices,
    expandWildcards,
    body,
  };
}

/** Elasticsearch's TimeValue#toString for the keep_alive error ("30s", "1.5m") */
export function renderTime(ms: number): string {
  const units: Array<[number, string]> = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'm'],
    [1000, 's'],
  ];
  for (const [u, s] of units) if (ms >= u) return `${+(ms / u).toFixed(1)}${s}`;
  return `${ms}ms`;
}
