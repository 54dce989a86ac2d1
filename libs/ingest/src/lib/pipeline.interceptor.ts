/**
 * Runs ingest pipelines on the write path (IndexRequestInterceptor, order 100): `?pipeline=`, bulk item
 * `pipeline`, `index.default_pipeline` and `index.final_pipeline`; re-resolves pipelines when a processor
 * changes `_index` (reroute, set) as Elasticsearch does.
 */
import { inject, injectable } from 'inversify';
import { EsError } from '@strata/core-common';
import type { IndexRequest, IndexRequestContext, IndexRequestInterceptor, InterceptResult } from '@strata/core-engine';
import { IngestDocument } from './ingest-document.js';
import { IngestService } from './ingest.service.js';
import { nowMs, unwrapFailure } from './pipeline.js';
import { resolveDateMathIndexName } from './processors/date.processors.js';

export const NONE_PIPELINE = '_none';

function setting(ctx: IndexRequestContext, index: string, key: string): string | undefined {
  const md = ctx.indexMetadata(index);
  const v = md?.settings[key];
  if (typeof v !== 'string' || v === '' || v === NONE_PIPELINE) return undefined;
  return v;
}

@injectable()
export class PipelineIndexInterceptor implements IndexRequestInterceptor {
  readonly name = 'ingest';
  readonly order = 100;

  constructor(@inject(IngestService) private readonly ingest: IngestService) {}

  async intercept(request: IndexRequest, ctx: IndexRequestContext): Promise<InterceptResult> {
    return this.run(request, ctx);
  }

  /** synchronous core (exposed for tests and the benchmark) */
  run(request: IndexRequest, ctx: IndexRequestContext): InterceptResult {
    if (request.attributes['ingest.executed'] === true) return { kind: 'continue', request };
    const requested = request.pipeline;
    let pipelineId: string | undefined;
    if (requested !== undefined && requested !== '') {
      pipelineId = requested === NONE_PIPELINE ? undefined : requested;
    } else {
      pipelineId = setting(ctx, request.index, 'index.default_pipeline');
    }
    let finalId = setting(ctx, request.index, 'index.final_pipeline');
    if (pipelineId === undefined && finalId === undefined) return { kind: 'continue', request };

    const total = this.ingest.total;
    total.count++;
    total.current++;
    const start = nowMs();
    try {
      const meta: Record<string, unknown> = { _index: request.index };
      if (request.id !== undefined) meta['_id'] = request.id;
      if (request.routing !== undefined) meta['_routing'] = request.routing;
      if (request.version !== undefined) meta['_version'] = request.version;
      if (request.versionType !== undefined) meta['_version_type'] = request.versionType;
      if (request.ifSeqNo !== undefined) meta['_if_seq_no'] = request.ifSeqNo;
      if (request.ifPrimaryTerm !== undefined) meta['_if_primary_term'] = request.ifPrimaryTerm;
      let doc: IngestDocument | null = IngestDocument.create(
        request.source,
        meta,
        this.ingest.timestamp(),
      );
      const executed: string[] = [];
      const ectx = this.ingest.executionContext();
      let index = request.index;
      let guard = 0;
      while (pipelineId !== undefined && doc !== null) {
        if (++guard > 100) throw new EsError('illegal_state_exception', 500, 'too many pipeline re-resolutions');
        if (executed.includes(pipelineId)) break;
        executed.push(pipelineId);
        const pipeline = this.ingest.requirePipeline(pipelineId);
        doc = pipeline.execute(doc, ectx);
        if (doc === null) break;
        const newIndex = String(doc.meta['_index'] ?? index);
        if (newIndex !== index) {
          // the target changed: the new index's default pipeline (once) and its final pipeline apply
          index = newIndex;
          doc.rerouted = false;
          pipelineId = setting(ctx, resolveIndex(index, this.ingest.now()), 'index.default_pipeline');
          finalId = setting(ctx, resolveIndex(index, this.ingest.now()), 'index.final_pipeline');
        } else {
          pipelineId = undefined;
        }
      }
      if (doc !== null && finalId !== undefined) {
        const pipeline = this.ingest.requirePipeline(finalId);
        const before = index;
        doc = pipeline.execute(doc, ectx);
        if (doc !== null && String(doc.meta['_index'] ?? before) !== before) {
          throw new EsError(
            'illegal_state_exception',
            500,
            `final pipeline [${finalId}] can't change the target index (from [${before}] to [${String(doc.meta['_index'])}])`,
          );
        }
      }
      if (doc === null) return { kind: 'drop' };
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
