/**
 * Parses `_bulk` NDJSON lines into BulkItemRequests, leniently like Elasticsearch 8: null metadata values
 * count as absent; extra top-level keys after the action object are ignored; malformed lines give ES's errors.
 */
import { EsError, Errors, checkParsedJson, jsonParseError, jsonSyntaxErrorAt, locateJsonPath, positionOf, type JsonPosition } from '@strata/core-common';
import type { BulkDefaults, BulkItemRequest, BulkOp } from './document-service.js';
import type { VersionType } from '../../shard/versioning.js';
import { nextWriteTurn, WRITE_SLICE_MS } from '../../util/write-turns.js';

/** the fields of an update body (ES UpdateRequest's parser) */
export const UPDATE_BODY_FIELDS: ReadonlySet<string> = new Set([
  'doc',
  'upsert',
  'doc_as_upsert',
  'detect_noop',
  'script',
  'scripted_upsert',
  '_source',
]);

const ACTIONS = new Set<BulkOp>(['index', 'create', 'delete', 'update']);
const KNOWN = new Set([
  '_index',
  '_id',
  'routing',
  '_routing',
  'version',
  'version_type',
  'if_seq_no',
  'if_primary_term',
  'pipeline',
  'require_alias',
  'require_data_stream',
  'retry_on_conflict',
  '_source',
  'dynamic_templates',
  'list_executed_pipelines',
  'op_type',
  '_type',
]);

export interface ParsedBulkItem extends BulkItemRequest {
  /** a per-item parse failure of the source line (reported in the item, not for the whole request) */
  bodyError?: EsError;
}

function tokenName(v: unknown): string {
  if (v === null) return 'VALUE_NULL';
  if (Array.isArray(v)) return 'START_ARRAY';
  switch (typeof v) {
    case 'string':
      return 'VALUE_STRING';
    case 'number':
      return 'VALUE_NUMBER';
    case 'boolean':
      return 'VALUE_BOOLEAN';
    default:
      return 'START_OBJECT';
  }
}

function toInt(v: unknown, key: string, line: number): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw Errors.illegalArgument(`Action/metadata line [${line}] has an invalid value for [${key}]: [${String(v)}]`);
  return n;
}

function toBool(v: unknown): boolean {
  return v === true || v === 'true';
}

export function parseBulkLines(lines: readonly string[], defaults: BulkDefaults = {}): ParsedBulkItem[] {
  const it = parseBulkSteps(lines, defaults, Infinity);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/**
 * The same, letting the event loop turn about every `sliceMs` of parsing (taking turns with the other writes,
 * see write-turns.ts): a bulk of thousands of documents does not hold up the searches that arrive meanwhile.
 * The whole body is still parsed and validated before
 * any item runs. `deferSources`: the source lines of index/create items are kept as sent (`sourcePending`) and
 * parsed when the item runs (`resolvePendingSource`) — or by a parse thread (DocumentService.bulk); their
 * errors are the items' own either way.
 */
export async function parseBulkLinesSliced(lines: readonly string[], defaults: BulkDefaults = {}, sliceMs = WRITE_SLICE_MS, deferSources = false): Promise<ParsedBulkItem[]> {
  const it = parseBulkSteps(lines, defaults, sliceMs, deferSources);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
    await nextWriteTurn();
  }
}

/**
 * An index/create item's source line: its body and the line as sent, or the item's error (an item of its own:
 * a malformed source never fails the whole request)
 */
function parseIndexSource(item: BulkItemRequest, srcLine: string): void {
  let body: unknown;
  try {
    body = JSON.parse(srcLine);
  } catch (err) {
    item.bodyError = Errors.documentParsing(`[1:1] failed to parse: ${(err as Error).message}`);
    return;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    item.bodyError = Errors.documentParsing(`[1:1] failed to parse: expected START_OBJECT but found [${tokenName(body)}]`);
    return;
  }
  const bad = checkParsedJson(srcLine, body);
  if (bad) {
    // Jackson's STRICT_DUPLICATE_DETECTION and nesting limit: the item fails
    item.bodyError = sourceParseError(bad.message, positionOf(srcLine, bad.offset));
    return;
  }
  item.body = body as Record<string, unknown>;
  item.rawSource = srcLine;
}

/** an item's failure for a source line Jackson cannot read: document_parsing_exception, caused by Jackson's exception */
function sourceParseError(message: string, at: JsonPosition): EsError {
  const root = Errors.documentParsing(`[${at.line}:${at.col}] failed to parse: ${message}`);
  return new EsError(root.type, root.status, root.reason, { cause: jsonParseError(message, at), rootCauses: [root] });
}

/** parses the source line of an item whose parse was deferred (`parseBulkLinesSliced`'s `deferSources`) */
export function resolvePendingSource(item: BulkItemRequest): void {
  if (!item.sourcePending) return;
  item.sourcePending = false;
  const line = item.rawSource!;
  item.rawSource = undefined;
  parseIndexSource(item, line);
}

function* parseBulkSteps(lines: readonly string[], defaults: BulkDefaults, sliceMs: number, deferSources = false): Generator<void, ParsedBulkItem[], void> {
  const items: ParsedBulkItem[] = [];
  const validation: string[] = [];
  let i = 0;
  let sliceStart = sliceMs === Infinity ? 0 : performance.now();
  while (i < lines.length) {
    if (sliceMs !== Infinity && (items.length & 15) === 15 && performance.now() - sliceStart >= sliceMs) {
      yield;
      sliceStart = performance.now();
    }
    const lineNo = i + 1;
    const notUtf8 = defaults.invalidUtf8?.get(i);
    if (notUtf8) throw jsonSyntaxErrorAt({ line: lineNo, col: notUtf8.col }, notUtf8.message);
    const raw = lines[i++];
    let action: unknown;
    try {
      action = JSON.parse(raw);
    } catch (err) {
      throw Errors.xContentParse(`Unexpected character in action/metadata line: ${(err as Error).message}`, lineNo, 1);
    }
    if (action === null || typeof action !== 'object' || Array.isArray(action)) {
      throw Errors.illegalArgument(
        `Malformed action/metadata line [${lineNo}], expected START_OBJECT or END_OBJECT but found [${tokenName(action)}]`,
      );
    }
    const badAction = checkParsedJson(raw, action);
    if (badAction) throw Errors.xContentParse(badAction.message, lineNo, badAction.offset + 1);
    const keys = Object.keys(action);
    if (keys.length === 0) {
      throw Errors.illegalArgument(`Malformed action/metadata line [${lineNo}], expected FIELD_NAME but found [END_OBJECT]`);
    }
    const op = keys[0] as BulkOp;
    if (!ACTIONS.has(op)) {
      throw Errors.illegalArgument(
        `Malformed action/metadata line [${lineNo}], expected field [create], [delete], [index] or [update] but found [${keys[0]}]`,
      );
    }
    const meta = (action as Record<string, unknown>)[op];
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) {
      throw Errors.illegalArgument(
        `Malformed action/metadata line [${lineNo}], expected START_OBJECT but found [${tokenName(meta)}]`,
      );
    }
    const item: ParsedBulkItem = {
      op,
      index: defaults.index,
      routing: defaults.routing,
      pipeline: defaults.pipeline,
      requireAlias: defaults.requireAlias,
      fetchSource: defaults.fetchSource,
      sourceFilter: defaults.sourceFilter,
    };
    for (const [k, v] of Object.entries(meta as Record<string, unknown>)) {
      if (!KNOWN.has(k)) throw Errors.illegalArgument(`Action/metadata line [${lineNo}] contains an unknown parameter [${k}]`);
      if (v === null || v === undefined) continue;
      switch (k) {
        case '_index':
          item.index = String(v);
          break;
        case '_id':
          item.id = String(v);
          break;
        case 'routing':
        case '_routing':
          item.routing = String(v);
          break;
        case 'version':
          item.version = toInt(v, k, lineNo);
          break;
        case 'version_type': {
          const vt = String(v).toLowerCase();
          if (vt !== 'internal' && vt !== 'external' && vt !== 'external_gte') {
            throw Errors.illegalArgument(`No version type match [${String(v)}]`);
          }
          item.versionType = vt as VersionType;
          break;
        }
        case 'if_seq_no':
          item.ifSeqNo = toInt(v, k, lineNo);
          break;
        case 'if_primary_term':
          item.ifPrimaryTerm = toInt(v, k, lineNo);
          break;
        case 'pipeline':
          item.pipeline = String(v);
          break;
        case 'require_alias':
          item.requireAlias = toBool(v);
          break;
        case 'require_data_stream':
          item.requireDataStream = toBool(v);
          break;
        case 'retry_on_conflict':
          item.retryOnConflict = toInt(v, k, lineNo);
          break;
        case '_source':
          if (v === false || v === 'false') item.fetchSource = false;
          else if (v === true || v === 'true') item.fetchSource = true;
          else {
            item.fetchSource = true;
            item.sourceFilter = { includes: (Array.isArray(v) ? v : String(v).split(',')).map(String), excludes: [] };
          }
          break;
        default:
          break;
      }
    }
    if (item.index === undefined) validation.push('index is missing');
    // DocWriteRequest.validateDocIdLength: part of BulkRequest.validate, so it fails the whole request
    if (item.id !== undefined && Buffer.byteLength(item.id, 'utf8') > 512) {
      validation.push(`id [${item.id}] is too long, must be no longer than 512 bytes but was: ${Buffer.byteLength(item.id, 'utf8')}`);
    }
    if (op === 'delete') {
      if (item.id === undefined || item.id === '') validation.push('id is missing');
      items.push(item);
      continue;
    }
    if (op === 'update' && (item.version !== undefined || (item.versionType !== undefined && item.versionType !== 'internal'))) {
      // BulkRequestParser: fails the whole request
      throw Errors.illegalArgument('Update requests do not support versioning. Please use `if_seq_no` and `if_primary_term` instead');
    }
    if (op === 'update' && (item.id === undefined || item.id === '')) validation.push('id is missing');
    if (i >= lines.length) {
      throw Errors.illegalArgument('The bulk request must be terminated by a newline [\\n]');
    }
    const badSource = defaults.invalidUtf8?.get(i);
    const srcLine = lines[i++];
    if (badSource && op === 'update') throw jsonSyntaxErrorAt({ line: lineNo + 1, col: badSource.col }, badSource.message);
    if (badSource) {
      // the item fails as a source Jackson cannot read does; the others go on
      item.bodyError = sourceParseError(badSource.message, { line: 1, col: badSource.col });
      items.push(item);
      continue;
    }
    if (op !== 'update') {
      if (deferSources) {
        item.rawSource = srcLine;
        item.sourcePending = true;
      } else parseIndexSource(item, srcLine);
      items.push(item);
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(srcLine);
    } catch (err) {
      throw Errors.xContentParse(`[UpdateRequest] failed to parse: ${(err as Error).message}`, lineNo + 1, 1);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw Errors.illegalArgument(`Malformed action/metadata line [${lineNo + 1}], expected START_OBJECT but found [${tokenName(body)}]`);
    }
    const bad = checkParsedJson(srcLine, body);
    // Jackson's STRICT_DUPLICATE_DETECTION and nesting limit: a whole-request failure for update bodies
    if (bad) throw Errors.xContentParse(bad.message, lineNo + 1, bad.offset + 1, jsonParseError(bad.message, positionOf(srcLine, bad.offset)));
    item.body = body as Record<string, unknown>;
    // BulkRequestParser parses update bodies on the spot: an unknown field fails the whole request
    for (const k of Object.keys(item.body)) {
      if (UPDATE_BODY_FIELDS.has(k)) continue;
      const loc = locateJsonPath(srcLine, [k]);
      const at = loc ? positionOf(srcLine, loc.key) : { line: 1, col: 2 };
      throw Errors.xContentParse(`[UpdateRequest] unknown field [${k}]`, at.line, at.col);
    }
    items.push(item);
  }
  if (items.length === 0) validation.push('no requests added');
  if (validation.length) throw Errors.actionRequestValidation(validation);
  return items;
}
