/** POST/GET _ingest/pipeline[/{id}]/_simulate: runs a pipeline over supplied documents, never indexes. */
import { EsError, Errors } from '@strata/core-common';
import { IngestDocument, isObject, type JsonObject } from './ingest-document.js';
import { unwrapFailure, type Pipeline } from './pipeline.js';
import type { TraceEntry } from './processor.js';
import { SIMULATE_PIPELINE_ID, type IngestService } from './ingest.service.js';
import { configError } from './processor.js';

export function errorBody(e: unknown): JsonObject {
  const err = unwrapFailure(e);
  return err.toBody().error;
}

function readDocs(body: JsonObject): JsonObject[] {
  const docs = body['docs'];
  if (docs === undefined || docs === null) throw configError(undefined, undefined, 'docs', 'required property is missing');
  if (!Array.isArray(docs)) throw configError(undefined, undefined, 'docs', "property isn't a list, but of type [" + typeof docs + ']');
  if (docs.length === 0) throw Errors.illegalArgument('must specify at least one document in [docs]');
  return docs.map((d) => {
    if (!isObject(d)) throw Errors.illegalArgument('malformed [docs] section, should include an inner object');
    const src = d['_source'];
    if (src === undefined || src === null) throw configError(undefined, undefined, '_source', 'required property is missing');
    if (!isObject(src)) throw configError(undefined, undefined, '_source', "property isn't a map");
    return d;
  });
}

function toIngestDocument(d: JsonObject, timestamp: string): IngestDocument {
  const meta: JsonObject = {
    _index: d['_index'] !== undefined ? String(d['_index']) : '_index',
    _id: d['_id'] !== undefined ? String(d['_id']) : '_id',
  };
  if (d['_routing'] !== undefined && d['_routing'] !== null) meta['_routing'] = String(d['_routing']);
  const long = (key: string): number | undefined => {
    if (!(key in d)) return undefined;
    const v = d[key];
    if (v === null) throw Errors.illegalArgument(`[${key}] cannot be null`);
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
    if (!Number.isInteger(n)) throw Errors.illegalArgument(`For input string: "${String(v)}"`);
    return n;
  };
  const version = long('_version');
  if (version !== undefined) meta['_version'] = version;
  if ('_version_type' in d) {
    const vt = String(d['_version_type']);
    if (!['internal', 'external', 'external_gte'].includes(vt)) throw Errors.illegalArgument(`No version type match [${vt}]`);
    meta['_version_type'] = vt;
  }
  const seqNo = long('_if_seq_no');
  if (seqNo !== undefined) meta['_if_seq_no'] = seqNo;
  const term = long('_if_primary_term');
  if (term !== undefined) meta['_if_primary_term'] = term;
  if ('_dynamic_templates' in d) {
    if (d['_dynamic_templates'] === null) throw Errors.illegalArgument('[_dynamic_templates] cannot be null');
    if (!isObject(d['_dynamic_templates'])) throw configError(undefined, undefined, '_dynamic_templates', "property isn't a map");
    meta['_dynamic_templates'] = { ...(d['_dynamic_templates'] as JsonObject) };
  }
  return IngestDocument.create(structuredClone(d['_source'] as JsonObject), meta, timestamp);
}

function renderTrace(t: TraceEntry): JsonObject {
  const o: JsonObject = { processor_type: t.processorType, status: t.status };
  if (t.description !== undefined) o['description'] = t.description;
  if (t.tag !== undefined) o['tag'] = t.tag;
  if (t.condition) o['if'] = t.condition;
  if (t.status === 'error_ignored' && t.error !== undefined) o['ignored_error'] = { error: errorBody(t.error) };
  else if (t.error !== undefined) o['error'] = errorBody(t.error);
  if (t.doc) o['doc'] = t.doc.toSimulateDoc(true);
  return o;
}

export function simulate(
  service: IngestService,
  body: JsonObject | undefined,
  pathId: string | undefined,
  verbose: boolean,
): JsonObject {
  if (!body) throw new EsError('parse_exception', 400, 'request body or source parameter is required');
  let pipeline: Pipeline;
  if (pathId !== undefined) {
    const p = service.pipeline(pathId);
    if (!p) throw Errors.illegalArgument(`pipeline [${pathId}] does not exist`);
    pipeline = p;
  } else {
    const p = body['pipeline'];
    if (p === undefined || p === null) throw configError(undefined, undefined, 'pipeline', 'required property is missing');
    if (!isObject(p)) throw configError(undefined, undefined, 'pipeline', "property isn't a map");
    pipeline = service.registry.pipeline(SIMULATE_PIPELINE_ID, p);
  }
  const docs = readDocs(body);
  const results: unknown[] = [];
  for (const d of docs) {
    const timestamp = new Date(service.now()).toISOString();
    const doc = toIngestDocument(d, timestamp);
    if (verbose) {
      const entries: TraceEntry[] = [];
      const ctx = service.executionContext({ record: (e) => entries.push(e) });
      try {
        pipeline.execute(doc, ctx);
      } catch {
        // the failing processor's entry already carries the error
      }
      results.push({ processor_results: entries.map(renderTrace) });
    } else {
      const ctx = service.executionContext();
      try {
        const out = pipeline.execute(doc, ctx);
        results.push(out === null ? null : { doc: out.toSimulateDoc(false) });
      } catch (e) {
        results.push({ error: errorBody(e) });
      }
    }
  }
  return { docs: results };
}
