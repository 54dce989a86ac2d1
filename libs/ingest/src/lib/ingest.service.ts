/**
 * IngestService: pipelines stored in cluster metadata (`custom.ingest.pipelines`), compiled once and cached
 * (invalidated on metadata changes), executed at index time and by simulate; node-level statistics.
 */
import { inject, injectable, multiInject, optional } from 'inversify';
import { EsError, Errors, ExtensionPoints, Tokens, systemClock, type Clock, type IngestProcessorFactory, wildcardRegExp } from '@strata/core-common';
import { EngineTokens, type ClusterMetadata, type MetadataStore } from '@strata/core-engine';
import { isObject, type JsonObject } from './ingest-document.js';
import { IngestStats, Pipeline, ProcessorFactoryRegistry } from './pipeline.js';
import { asProcessorFactory, type ExecutionContext, type ProcessorFactory, type Tracer } from './processor.js';

export const IngestTokens = {
  IngestService: Symbol.for('strata.ingest.IngestService'),
} as const;

export const SIMULATE_PIPELINE_ID = '_simulate_pipeline';

export function pipelineConfigs(m: ClusterMetadata): Record<string, JsonObject> {
  const ingest = m.custom['ingest'];
  if (!isObject(ingest)) return {};
  const p = ingest['pipelines'];
  return isObject(p) ? (p as Record<string, JsonObject>) : {};
}

export function matchIds(ids: readonly string[], patterns: readonly string[]): string[] {
  const out: string[] = [];
  for (const pat of patterns) {
    if (pat === '*' || pat === '_all') {
      for (const id of ids) if (!out.includes(id)) out.push(id);
    } else if (pat.includes('*')) {
      const re = wildcardRegExp(pat);
      for (const id of ids) if (re.test(id) && !out.includes(id)) out.push(id);
    } else if (ids.includes(pat) && !out.includes(pat)) out.push(pat);
  }
  return out;
}

@injectable()
export class IngestService {
  readonly registry: ProcessorFactoryRegistry;
  readonly total = new IngestStats();
  private readonly cache = new Map<string, { config: JsonObject; pipeline: Pipeline }>();
  /** the metadata snapshot every cache entry was last validated against */
  private cacheFor: ClusterMetadata | undefined;
  private readonly clock: Clock;

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @multiInject(ExtensionPoints.IngestProcessor) @optional() factories: Array<ProcessorFactory | IngestProcessorFactory> = [],
    @inject(Tokens.Clock) @optional() clock?: Clock,
  ) {
    this.registry = new ProcessorFactoryRegistry((factories ?? []).map(asProcessorFactory));
    this.clock = clock ?? systemClock;
    store.onChange((next) => this.invalidate(next));
  }

  now(): number {
    return this.clock.now();
  }

  private lastTs = NaN;
  private lastTsText = '';

  /** `_ingest.timestamp` of a document ingested now (the ISO string is reused within the same millisecond) */
  timestamp(): string {
    const now = this.clock.now();
    if (now !== this.lastTs) {
      this.lastTs = now;
      this.lastTsText = new Date(now).toISOString();
    }
    return this.lastTsText;
  }

  private invalidate(next: ClusterMetadata): void {
    this.cacheFor = undefined;
    const configs = pipelineConfigs(next);
    for (const [id, entry] of this.cache) {
      if (configs[id] !== entry.config) {
        const cfg = configs[id];
        if (cfg === undefined) {
          this.cache.delete(id);
          continue;
        }
        // snapshots are copied on every metadata change: same content → keep the compiled pipeline and its stats
        if (JSON.stringify(cfg) === JSON.stringify(entry.config)) {
          entry.config = cfg;
          continue;
        }
        try {
          const p = this.registry.pipeline(id, cfg);
          carryStats(entry.pipeline, p);
          this.cache.set(id, { config: cfg, pipeline: p });
        } catch {
          this.cache.delete(id);
        }
      }
    }
    // every remaining entry now matches `next`
    this.cacheFor = next;
  }

  /** the current cluster metadata snapshot */
  metadata(): ClusterMetadata {
    return this.store.current();
  }

  /** stored pipeline configs */
  configs(): Record<string, JsonObject> {
    return pipelineConfigs(this.store.current());
  }

  /** the compiled pipeline, or undefined when no such pipeline exists */
  pipeline(id: string): Pipeline | undefined {
    const hit = this.cache.get(id);
    const current = this.store.current();
    if (hit && current === this.cacheFor) return hit.pipeline;
    const cfg = pipelineConfigs(current)[id];
    if (cfg === undefined) return undefined;
    if (hit && hit.config === cfg) {
      this.cacheFor = current;
      return hit.pipeline;
    }
    const p = this.registry.pipeline(id, cfg);
    if (hit) carryStats(hit.pipeline, p);
    this.cache.set(id, { config: cfg, pipeline: p });
    return p;
  }

  /** all compiled pipelines (for stats) */
  pipelines(): Pipeline[] {
    const out: Pipeline[] = [];
    for (const id of Object.keys(this.configs())) {
      try {
        const p = this.pipeline(id);
        if (p) out.push(p);
      } catch {
        // a stored pipeline that no longer compiles (processor removed) is skipped
      }
    }
    return out;
  }

  private sharedContext: ExecutionContext | undefined;

  executionContext(tracer?: Tracer): ExecutionContext {
    // untraced runs share one context: pipelines push/pop the stack symmetrically (also on failure)
    if (!tracer && this.sharedContext && this.sharedContext.stack.length === 0) return this.sharedContext;
    const ctx: ExecutionContext = {
      pipeline: (id) => this.pipeline(id),
      stack: [],
      tracer,
      now: () => this.clock.now(),
    };
    if (!tracer) this.sharedContext = ctx;
    return ctx;
  }

  /** validates and stores a pipeline (PUT _ingest/pipeline/{id}) */
  async put(id: string, body: JsonObject, ifVersion?: number, masterTimeoutMs?: number): Promise<void> {
    const config: JsonObject = { ...body };
    if (ifVersion !== undefined) {
      const current = this.configs()[id];
      if (current === undefined) {
        throw Errors.illegalArgument(
          `version conflict, required version [${ifVersion}] for pipeline [${id}] but no pipeline was found`,
        );
      }
      const currentVersion = current['version'];
      if (currentVersion !== ifVersion) {
        throw Errors.illegalArgument(
          `version conflict, required version [${ifVersion}] for pipeline [${id}] but current version is [${currentVersion === undefined ? 'null' : String(currentVersion)}]`,
        );
      }
      const specified = config['version'];
      if ('version' in config && specified === currentVersion) {
        throw Errors.illegalArgument(`cannot update pipeline [${id}] with the same version [${ifVersion}]`);
      }
      if (specified === undefined || specified === null) config['version'] = ifVersion + 1;
    }
    // validation at PUT time: every processor, condition, template and grok pattern compiles
    this.registry.pipeline(id, config);
    const existing = this.configs()[id];
    if (existing !== undefined && JSON.stringify(existing) === JSON.stringify(config)) return;
    await withMasterTimeout(`put-pipeline-${id}`, masterTimeoutMs, this.store.update((draft) => {
      const ingest = isObject(draft.custom['ingest']) ? { ...(draft.custom['ingest'] as JsonObject) } : {};
      const pipelines = isObject(ingest['pipelines']) ? { ...(ingest['pipelines'] as JsonObject) } : {};
      pipelines[id] = config;
      ingest['pipelines'] = pipelines;
      draft.custom['ingest'] = ingest;
    }));
  }

  /** DELETE _ingest/pipeline/{id}: the id is a simple wildcard pattern, as in Elasticsearch */
  async delete(pattern: string, masterTimeoutMs?: number): Promise<void> {
    const ids = Object.keys(this.configs());
    const toDelete = pattern.includes('*') ? ids.filter((id) => wildcardRegExp(pattern).test(id)) : ids.filter((id) => id === pattern);
    if (toDelete.length === 0) {
      if (pattern === '*') return;
      throw Errors.resourceNotFound(`pipeline [${pattern}] is missing`);
    }
    // a pipeline in use as an index's default or final pipeline cannot be deleted
    const meta = this.store.current();
    for (const id of toDelete) {
      const defaults: string[] = [];
      const finals: string[] = [];
      for (const [name, idx] of Object.entries(meta.indices)) {
        if (idx.settings['index.default_pipeline'] === id) defaults.push(name);
        if (idx.settings['index.final_pipeline'] === id) finals.push(name);
      }
      if (defaults.length > 0 || finals.length > 0) {
        const indices = [...new Set([...defaults, ...finals])].sort();
        const role = [defaults.length > 0 ? 'the default' : '', finals.length > 0 ? 'the final' : ''].filter((x) => x).join(' and ');
        throw Errors.illegalArgument(
          `pipeline [${id}] cannot be deleted because it is ${role} pipeline for ${indices.length} index(es) including [${indices.slice(0, 3).join(',')}]`,
        );
      }
    }
    await withMasterTimeout(`delete-pipeline-${pattern}`, masterTimeoutMs, this.store.update((draft) => {
      const ingest = isObject(draft.custom['ingest']) ? { ...(draft.custom['ingest'] as JsonObject) } : {};
      const pipelines = isObject(ingest['pipelines']) ? { ...(ingest['pipelines'] as JsonObject) } : {};
      for (const id of toDelete) delete pipelines[id];
      ingest['pipelines'] = pipelines;
      draft.custom['ingest'] = ingest;
    }));
  }

  /** GET _ingest/pipeline[/{ids}]: matched configs (empty when nothing matches) */
  get(idExpr?: string): Record<string, JsonObject> {
    const configs = this.configs();
    const ids = Object.keys(configs);
    const patterns = idExpr === undefined ? ['*'] : idExpr.split(',').map((s) => s.trim()).filter((s) => s !== '');
    const out: Record<string, JsonObject> = {};
    for (const id of matchIds(ids, patterns)) out[id] = configs[id];
    return out;
  }

  /** `ingest` section of GET /_nodes/stats */
  nodeStats(): JsonObject {
    const pipelines: JsonObject = {};
    for (const p of this.pipelines()) {
      pipelines[p.id] = {
        ...p.stats.toJson(),
        ingested_as_first_pipeline_in_bytes: p.ingestedAsFirstBytes,
        produced_as_first_pipeline_in_bytes: p.producedAsFirstBytes,
        processors: p.processorStats(),
      };
    }
    return { total: this.total.toJson(), pipelines };
  }

  /** throws the ES error for a missing pipeline */
  requirePipeline(id: string): Pipeline {
    const p = this.pipeline(id);
    if (!p) throw new EsError('illegal_argument_exception', 400, `pipeline with id [${id}] does not exist`);
    return p;
  }
}

/** fails with ES's process_cluster_event_timeout_exception when the metadata update takes longer than master_timeout */
async function withMasterTimeout<T>(source: string, timeoutMs: number | undefined, p: Promise<T>): Promise<T> {
  if (timeoutMs === undefined || timeoutMs < 0) return p;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const secs = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000}s` : `${timeoutMs}ms`;
      reject(new EsError('process_cluster_event_timeout_exception', 503, `failed to process cluster event (${source}) within ${secs}`));
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function carryStats(from: Pipeline, to: Pipeline): void {
  const s = from.stats;
  to.stats.count = s.count;
  to.stats.failed = s.failed;
  to.stats.timeMs = s.timeMs;
  to.ingestedAsFirstBytes = from.ingestedAsFirstBytes;
  to.producedAsFirstBytes = from.producedAsFirstBytes;
}
