/**
 * Runs ingest pipelines on the write path (IndexRequestInterceptor, order 100): `?pipeline=`, bulk item
 * `pipeline`, `index.default_pipeline` and `index.final_pipeline`; re-resolves pipelines when a processor
 * changes `_index` (reroute, set) as Elasticsearch does.
 */
import { inject, injectable, optional } from 'inversify';
import { EsError, flattenSettings, wildcardRegExp } from '@strata/core-common';
import {
  EngineTokens,
  INGEST_PIPELINE_RAN,
  type ClusterMetadata,
  type IndexNameExpressionResolver,
  type IndexRequest,
  type IndexRequestContext,
  type IndexRequestInterceptor,
  type InterceptResult,
} from '@strata/core-engine';
import { IngestDocument, isObject, type JsonObject } from './ingest-document.js';
import { IngestService } from './ingest.service.js';
import { approxJsonBytes, nowMs, unwrapFailure, type Pipeline } from './pipeline.js';
import { resolveDateMathIndexName } from './processors/date.processors.js';

export const NONE_PIPELINE = '_none';

/** one document in BYTES_SAMPLE is sized for the ingested/produced byte counters */
const BYTES_SAMPLE = 8;

function pipelineSetting(settings: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = settings?.[key];
  if (typeof v !== 'string' || v === '' || v === NONE_PIPELINE) return undefined;
  return v;
}

function pipelineQueue(first: string | undefined, final: string | undefined): Array<{ id: string; isFinal: boolean }> {
  const q: Array<{ id: string; isFinal: boolean }> = [];
  if (first !== undefined) q.push({ id: first, isFinal: false });
  if (final !== undefined) q.push({ id: final, isFinal: true });
  return q;
}

function simpleMatch(pattern: string, name: string): boolean {
  if (!pattern.includes('*')) return pattern === name;
  const re = wildcardRegExp(pattern);
  return re.test(name);
}

function templateMap(section: unknown): Record<string, JsonObject> {
  if (!isObject(section)) return {};
  for (const key of ['index_templates', 'templates', 'component_templates']) {
    if (isObject(section[key])) return section[key] as Record<string, JsonObject>;
  }
  return section as Record<string, JsonObject>;
}

function templateSettings(t: JsonObject): Record<string, unknown> {
  const inner = isObject(t['template']) ? (t['template'] as JsonObject) : t;
  const raw = inner['settings'];
  if (!isObject(raw)) return {};
  const flat = flattenSettings(raw);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flat)) out[k.startsWith('index.') ? k : `index.${k}`] = v;
  return out;
}

/**
 * Index settings that apply to a write target: the index itself, the write index of an alias, or, for an
 * index that does not exist yet, the settings of the index template that will create it (as ES does).
 */
export function targetSettings(
  metadata: ClusterMetadata,
  ctx: IndexRequestContext,
  name: string,
  resolver?: IndexNameExpressionResolver,
): Record<string, unknown> | undefined {
  const direct = ctx.indexMetadata(name) ?? metadata.indices[name];
  if (direct) return direct.settings;
  // aliases and data streams (through the engine resolver and its IndexNameResolver contributions)
  if (resolver) {
    try {
      const w = resolver.writeIndex(name);
      const m = w !== undefined ? (ctx.indexMetadata(w) ?? metadata.indices[w]) : undefined;
      if (m) return m.settings;
    } catch {
      // not resolvable: fall through to aliases and templates
    }
  }
  const withAlias = Object.values(metadata.indices).filter((m) => m.aliases?.[name] !== undefined);
  if (withAlias.length === 1) return withAlias[0].settings;
  if (withAlias.length > 1) return withAlias.find((m) => m.aliases[name].is_write_index === true)?.settings;
  const templates = templateMap(metadata.custom['index_template']);
  let best: JsonObject | undefined;
  let bestPriority = -Infinity;
  for (const t of Object.values(templates)) {
    if (!isObject(t)) continue;
    const patterns = Array.isArray(t['index_patterns']) ? (t['index_patterns'] as string[]) : typeof t['index_patterns'] === 'string' ? [t['index_patterns'] as string] : [];
    if (!patterns.some((p) => simpleMatch(p, name))) continue;
    const priority = typeof t['priority'] === 'number' ? t['priority'] : 0;
    if (priority > bestPriority) {
      best = t;
      bestPriority = priority;
    }
  }
  if (!best) return undefined;
  const components = templateMap(metadata.custom['component_template']);
  const settings: Record<string, unknown> = {};
  if (Array.isArray(best['composed_of'])) {
    for (const c of best['composed_of'] as string[]) {
      const ct = components[c];
      if (isObject(ct)) Object.assign(settings, templateSettings(ct));
    }
  }
  Object.assign(settings, templateSettings(best));
  return settings;
}

@injectable()
export class PipelineIndexInterceptor implements IndexRequestInterceptor {
  readonly name = 'ingest';
  readonly order = 100;

  constructor(
    @inject(IngestService) private readonly ingest: IngestService,
    @inject(EngineTokens.IndexNameExpressionResolver) @optional() private readonly resolver?: IndexNameExpressionResolver,
  ) {}

  private byteSample = 0;
  private settingsCache = new Map<string, Record<string, unknown> | undefined>();
  private settingsCacheFor: ClusterMetadata | undefined;

  /** target settings, cached per metadata snapshot (no per-document scans of aliases or templates) */
  private settingsFor(metadata: ClusterMetadata, ctx: IndexRequestContext, name: string): Record<string, unknown> | undefined {
    if (this.settingsCacheFor !== metadata) {
      this.settingsCache = new Map();
      this.settingsCacheFor = metadata;
    }
    if (this.settingsCache.has(name)) return this.settingsCache.get(name);
    const s = targetSettings(metadata, ctx, name, this.resolver);
    if (this.settingsCache.size > 1000) this.settingsCache.clear();
    this.settingsCache.set(name, s);
    return s;
  }

  intercept(request: IndexRequest, ctx: IndexRequestContext): InterceptResult {
    return this.run(request, ctx);
  }

  /** the pipelines run synchronously (`intercept`; the name kept for tests and the benchmark) */
  run(request: IndexRequest, ctx: IndexRequestContext): InterceptResult {
    if (request.attributes['ingest.executed'] === true) return { kind: 'continue', request };
    const requested = request.pipeline;
    const metadata = this.ingest.metadata();
    const settings = this.settingsFor(metadata, ctx, request.index);
    let pipelineId: string | undefined;
    if (requested !== undefined && requested !== null && requested !== '') {
      pipelineId = requested === NONE_PIPELINE ? undefined : requested;
    } else {
      pipelineId = pipelineSetting(settings, 'index.default_pipeline');
    }
    const finalId = pipelineSetting(settings, 'index.final_pipeline');
    if (pipelineId === undefined && finalId === undefined) return { kind: 'continue', request };
    // the bulk response reports ingest_took once a pipeline ran, whatever its outcome
    request.attributes[INGEST_PIPELINE_RAN] = true;

    const total = this.ingest.total;
    total.count++;
    total.current++;
    const start = nowMs();
    try {
      const meta: Record<string, unknown> = { _index: request.index };
      if (request.id !== undefined && request.id !== null) meta['_id'] = request.id;
      if (request.routing !== undefined && request.routing !== null) meta['_routing'] = request.routing;
      if (request.version !== undefined && request.version !== null) meta['_version'] = request.version;
      if (request.versionType !== undefined && request.versionType !== null) meta['_version_type'] = request.versionType;
      if (request.ifSeqNo !== undefined && request.ifSeqNo !== null) meta['_if_seq_no'] = request.ifSeqNo;
      if (request.ifPrimaryTerm !== undefined && request.ifPrimaryTerm !== null) meta['_if_primary_term'] = request.ifPrimaryTerm;
      let doc: IngestDocument | null = new IngestDocument(request.source, meta, { timestamp: this.ingest.timestamp() });
      const ectx = this.ingest.executionContext();
      const history: string[] = [request.index];
      let queue = pipelineQueue(pipelineId, finalId);
      let first: Pipeline | undefined;
      let sampled = false;
      while (queue.length > 0 && doc !== null) {
        const { id, isFinal } = queue.shift()!;
        const pipeline = this.ingest.requirePipeline(id);
        if (first === undefined) {
          first = pipeline;
          // byte counters are estimates: one document in BYTES_SAMPLE is measured and weighted
          sampled = this.byteSample++ % BYTES_SAMPLE === 0;
          if (sampled) pipeline.ingestedAsFirstBytes += BYTES_SAMPLE * approxJsonBytes(doc.source);
        }
        const originalIndex = String(doc.meta['_index'] ?? request.index);
        doc = pipeline.execute(doc, ectx);
        if (doc === null) break;
        const newIndex = String(doc.meta['_index'] ?? originalIndex);
        if (newIndex === originalIndex) continue;
        const docId = doc.meta['_id'] === undefined || doc.meta['_id'] === null ? 'null' : String(doc.meta['_id']);
        // final pipelines cannot change the target index (directly or by reroute)
        if (isFinal) {
          throw new EsError(
            'illegal_state_exception',
            500,
            `final pipeline [${id}] can't change the target index (from [${originalIndex}] to [${newIndex}]) for document [${docId}]`,
          );
        }
        if (history.includes(newIndex)) {
          throw new EsError(
            'illegal_state_exception',
            500,
            `index cycle detected while processing pipeline [${id}] for document [${docId}]: [${[...history, newIndex].join(', ')}]`,
          );
        }
        history.push(newIndex);
        // the new target's pipelines; its default pipeline only runs after a reroute (as ES, for compatibility)
        const next = this.settingsFor(this.ingest.metadata(), ctx, resolveIndex(newIndex, this.ingest.now()));
        queue = pipelineQueue(doc.rerouted ? pipelineSetting(next, 'index.default_pipeline') : undefined, pipelineSetting(next, 'index.final_pipeline'));
        doc.rerouted = false;
      }
      if (doc === null) return { kind: 'drop' };
      if (first && sampled) first.producedAsFirstBytes += BYTES_SAMPLE * approxJsonBytes(doc.source);
      const out: IndexRequest = {
        ...request,
        index: resolveIndex(String(doc.meta['_index'] ?? request.index), this.ingest.now()),
        source: doc.source,
        attributes: { ...request.attributes, 'ingest.executed': true },
        pipeline: undefined,
      };
      const m = doc.meta;
      out.id = m['_id'] === undefined || m['_id'] === null ? undefined : String(m['_id']);
      out.routing = m['_routing'] === undefined || m['_routing'] === null ? undefined : String(m['_routing']);
      if (m['_version'] !== undefined) out.version = Number(m['_version']);
      if (m['_version_type'] !== undefined) out.versionType = m['_version_type'] as IndexRequest['versionType'];
      if (m['_if_seq_no'] !== undefined) out.ifSeqNo = Number(m['_if_seq_no']);
      if (m['_if_primary_term'] !== undefined) out.ifPrimaryTerm = Number(m['_if_primary_term']);
      return { kind: 'continue', request: out };
    } catch (e) {
      total.failed++;
      return { kind: 'fail', error: unwrapFailure(e) };
    } finally {
      total.current--;
      total.timeMs += nowMs() - start;
    }
  }
}

function resolveIndex(name: string, now: number): string {
  return name.startsWith('<') && name.endsWith('>') ? resolveDateMathIndexName(name, now) : name;
}
