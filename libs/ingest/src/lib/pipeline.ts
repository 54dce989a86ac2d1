/**
 * Compiled pipelines: processors wrapped with `if`, `ignore_failure`, processor-level `on_failure`,
 * statistics and simulate tracing, plus the pipeline-level on_failure semantics of Elasticsearch's
 * CompoundProcessor.
 */
import { EsError, toEsError } from '@strata/core-common';
import type { IngestDocument, JsonObject } from './ingest-document.js';
import { isObject, javaTypeName } from './ingest-document.js';
import { ScriptContexts, type CompiledScript } from '@strata/core-common';
import { compilePainless } from '@strata/core-painless';
import { CtxMap } from './ctx-map.js';
import {
  ConfigReader,
  configError,
  type ExecutionContext,
  type Processor,
  type ProcessorFactory,
  type ProcessorRegistry,
  type ProcessorResult,
  type PipelineLike,
} from './processor.js';

// ------------------------------------------------------------------------------------------ stats

/** monotonic milliseconds (cheaper than hrtime.bigint: no BigInt allocation) */
export const nowMs: () => number = () => performance.now();

export class IngestStats {
  count = 0;
  timeMs = 0;
  current = 0;
  failed = 0;

  toJson(): JsonObject {
    return {
      count: this.count,
      time_in_millis: Math.floor(this.timeMs),
      current: this.current,
      failed: this.failed,
    };
  }
}

/** Thrown when a processor fails: carries where it happened (for `_ingest.on_failure_*`). */
export class IngestProcessorFailure extends Error {
  constructor(
    override readonly cause: EsError,
    readonly processorType: string,
    readonly processorTag: string | undefined,
    readonly pipelineId: string | undefined,
  ) {
    super(cause.reason);
  }
}

export function unwrapFailure(e: unknown): EsError {
  if (e instanceof IngestProcessorFailure) return e.cause;
  return toEsError(e);
}

// ------------------------------------------------------------------------------------------ conditions

export interface Condition {
  readonly source: string;
  test(doc: IngestDocument): boolean;
}

class ReadOnlyCtx extends CtxMap {
  override put(): unknown {
    throw new EsError('unsupported_operation_exception', 500, 'Mutating ingest documents in conditionals is not supported');
  }
  override remove(): unknown {
    throw new EsError('unsupported_operation_exception', 500, 'Mutating ingest documents in conditionals is not supported');
  }
}

export function compileCondition(raw: unknown, type: string, tag: string | undefined): Condition | undefined {
  if (raw === undefined || raw === null) return undefined;
  let source: string;
  let params: JsonObject = {};
  if (typeof raw === 'string') source = raw;
  else if (isObject(raw) && typeof raw['source'] === 'string') {
    source = raw['source'];
    if (raw['lang'] !== undefined && raw['lang'] !== 'painless') {
      throw configError(type, tag, 'if', `script_lang [${String(raw['lang'])}] is not supported`);
    }
    if (isObject(raw['params'])) params = raw['params'];
  } else if (isObject(raw) && raw['id'] !== undefined) {
    throw configError(type, tag, 'if', `stored scripts are not supported [${String(raw['id'])}]`);
  } else {
    throw configError(type, tag, 'if', 'property isn\'t a string or a script object');
  }
  let script: CompiledScript;
  try {
    script = compilePainless(source, ScriptContexts.INGEST);
  } catch (e) {
    if (!(e instanceof EsError)) throw configError('conditional', tag, undefined, (e as Error).message);
    // as ES: the script error itself, tagged with the (conditional) processor that failed to compile
    e.metadata['processor_type'] = 'conditional';
    if (tag !== undefined) e.metadata['processor_tag'] = tag;
    throw e;
  }
  return {
    source,
    test(doc) {
      const v = script.run({ ctx: new ReadOnlyCtx(doc), params });
      if (typeof v !== 'boolean') {
        throw new EsError('illegal_argument_exception', 400, `condition [${source}] returned a non-boolean value [${String(v)}]`);
      }
      return v;
    },
  };
}

// ------------------------------------------------------------------------------------------ wrapped processor

export class ConfiguredProcessor {
  readonly stats = new IngestStats();
  constructor(
    readonly inner: Processor,
    readonly condition: Condition | undefined,
    readonly ignoreFailure: boolean,
    readonly onFailure: ConfiguredProcessor[] | undefined,
  ) {}

  get type(): string {
    return this.inner.type;
  }
  get tag(): string | undefined {
    return this.inner.tag;
  }

  /** all processors below this one (for stats listing) */
  statsKey(): string {
    return this.tag !== undefined ? `${this.type}:${this.tag}` : this.type;
  }
}

function putFailureMetadata(doc: IngestDocument, f: IngestProcessorFailure): JsonObject {
  const saved: JsonObject = {};
  for (const k of ['on_failure_message', 'on_failure_processor_type', 'on_failure_processor_tag', 'on_failure_pipeline']) {
    if (k in doc.ingest) saved[k] = doc.ingest[k];
  }
  doc.ingest['on_failure_message'] = f.cause.reason;
  doc.ingest['on_failure_processor_type'] = f.processorType;
  doc.ingest['on_failure_processor_tag'] = f.processorTag ?? null;
  if (f.pipelineId !== undefined) doc.ingest['on_failure_pipeline'] = f.pipelineId;
  return saved;
}

function removeFailureMetadata(doc: IngestDocument, saved: JsonObject): void {
  for (const k of ['on_failure_message', 'on_failure_processor_type', 'on_failure_processor_tag', 'on_failure_pipeline']) {
    delete doc.ingest[k];
  }
  Object.assign(doc.ingest, saved);
}

/** Runs a list of processors with Elasticsearch's CompoundProcessor semantics. */
export function runProcessors(
  list: readonly ConfiguredProcessor[],
  doc: IngestDocument,
  ctx: ExecutionContext,
  pipelineId: string | undefined,
): ProcessorResult {
  let current: IngestDocument = doc;
  for (const p of list) {
    const r = runOne(p, current, ctx, pipelineId);
    if (r === null) return null;
    current = r;
    if (current.rerouted) break;
  }
  return current;
}

function runOne(p: ConfiguredProcessor, doc: IngestDocument, ctx: ExecutionContext, pipelineId: string | undefined): ProcessorResult {
  const tracer = ctx.tracer;
  let conditionResult: boolean | undefined;
  if (p.condition) {
    try {
      conditionResult = p.condition.test(doc);
    } catch (e) {
      return handleFailure(p, doc, ctx, pipelineId, e, undefined);
    }
    if (!conditionResult) {
      tracer?.record({
        processorType: p.type,
        tag: p.tag,
        description: p.inner.description,
        status: 'skipped',
        condition: { condition: p.condition.source, result: false },
      });
      return doc;
    }
  }
  const cond = p.condition ? { condition: p.condition.source, result: true } : undefined;
  const stats = p.stats;
  stats.count++;
  stats.current++;
  const start = nowMs();
  let result: ProcessorResult;
  try {
    // the pipeline processor records its own entry (before the nested pipeline's entries)
    if (tracer && p.type === 'pipeline') ctx.traceCondition = cond;
    result = p.inner.execute(doc, ctx);
  } catch (e) {
    stats.current--;
    stats.failed++;
    stats.timeMs += nowMs() - start;
    return handleFailure(p, doc, ctx, pipelineId, e, cond);
  }
  stats.current--;
  stats.timeMs += nowMs() - start;
  if (tracer && p.type !== 'pipeline') {
    tracer.record({
      processorType: p.type,
      tag: p.tag,
      description: p.inner.description,
      status: result === null ? 'dropped' : 'success',
      condition: cond,
      doc: result === null ? undefined : result.deepCopy(),
    });
  }
  return result;
}

function handleFailure(
  p: ConfiguredProcessor,
  doc: IngestDocument,
  ctx: ExecutionContext,
  pipelineId: string | undefined,
  e: unknown,
  cond: { condition: string; result: boolean } | undefined,
): ProcessorResult {
  const failure =
    e instanceof IngestProcessorFailure ? e : new IngestProcessorFailure(toEsError(e), p.type, p.tag, pipelineId);
  const tracer = ctx.tracer;
  if (p.ignoreFailure) {
    tracer?.record({
      processorType: p.type,
      tag: p.tag,
      description: p.inner.description,
      status: 'error_ignored',
      condition: cond,
      error: failure.cause,
      doc: doc.deepCopy(),
    });
    return doc;
  }
  if (p.type !== 'pipeline' || !(e instanceof IngestProcessorFailure)) {
    tracer?.record({ processorType: p.type, tag: p.tag, description: p.inner.description, status: 'error', condition: cond, error: failure.cause });
  }
  if (p.onFailure && p.onFailure.length > 0) {
    const saved = putFailureMetadata(doc, failure);
    const r = runProcessors(p.onFailure, doc, ctx, pipelineId);
    if (r !== null) removeFailureMetadata(r, saved);
    return r;
  }
  throw failure;
}

// ------------------------------------------------------------------------------------------ pipeline

/** Size of the JSON rendering of a value, estimated without serialising (ASCII assumed, escapes ignored). */
export function approxJsonBytes(v: unknown): number {
  if (typeof v === 'string') return v.length + 2;
  if (typeof v === 'number') {
    if (v >= 0 && v < 10) return Number.isInteger(v) ? 1 : String(v).length;
    return Number.isInteger(v) && v > 0 && v < 1e9 ? (v < 1e3 ? (v < 100 ? 2 : 3) : v < 1e6 ? (v < 1e4 ? 4 : v < 1e5 ? 5 : 6) : v < 1e7 ? 7 : v < 1e8 ? 8 : 9) : String(v).length;
  }
  if (v === null || v === undefined) return 4;
  if (typeof v === 'boolean') return v ? 4 : 5;
  if (Array.isArray(v)) {
    let n = v.length > 0 ? v.length + 1 : 2;
    for (let i = 0; i < v.length; i++) n += approxJsonBytes(v[i]);
    return n;
  }
  if (typeof v === 'object') {
    let n = 1;
    const o = v as JsonObject;
    for (const k in o) n += k.length + 4 + approxJsonBytes(o[k]);
    return n === 1 ? 2 : n;
  }
  return 0;
}

export class Pipeline implements PipelineLike {
  readonly stats = new IngestStats();
  /** bytes of documents for which this pipeline was the first one run (ES 8.15+ node stats) */
  ingestedAsFirstBytes = 0;
  producedAsFirstBytes = 0;
  constructor(
    readonly id: string,
    readonly description: string | undefined,
    readonly version: number | undefined,
    readonly processors: ConfiguredProcessor[],
    readonly onFailure: ConfiguredProcessor[],
  ) {}

  /** executes the pipeline; throws IngestProcessorFailure when unhandled */
  execute(doc: IngestDocument, ctx: ExecutionContext): ProcessorResult {
    const stats = this.stats;
    stats.count++;
    stats.current++;
    const start = nowMs();
    const prevPipeline = doc.ingest['pipeline'];
    doc.ingest['pipeline'] = this.id;
    ctx.stack.push(this.id);
    try {
      let result: ProcessorResult;
      try {
        result = runProcessors(this.processors, doc, ctx, this.id);
      } catch (e) {
        if (this.onFailure.length === 0) throw e;
        const failure = e instanceof IngestProcessorFailure ? e : new IngestProcessorFailure(toEsError(e), 'pipeline', undefined, this.id);
        const saved = putFailureMetadata(doc, failure);
        result = runProcessors(this.onFailure, doc, ctx, this.id);
        if (result !== null) removeFailureMetadata(result, saved);
      }
      if (result !== null) {
        if (prevPipeline === undefined) delete result.ingest['pipeline'];
        else result.ingest['pipeline'] = prevPipeline;
      }
      return result;
    } catch (e) {
      stats.failed++;
      throw e;
    } finally {
      ctx.stack.pop();
      stats.current--;
      stats.timeMs += nowMs() - start;
    }
  }

  /** `processors: [{ "set:tag": {type, stats} }, ...]` as ES renders node stats (the pipeline's processors, not its on_failure handlers) */
  processorStats(): JsonObject[] {
    return this.processors.map((p) => ({ [p.statsKey()]: { type: p.type, stats: p.stats.toJson() } }));
  }
}

// ------------------------------------------------------------------------------------------ factory

const COMMON_KEYS = ['tag', 'description', 'if', 'ignore_failure', 'on_failure'];

export class ProcessorFactoryRegistry implements ProcessorRegistry {
  private readonly factories = new Map<string, ProcessorFactory>();

  constructor(factories: readonly ProcessorFactory[]) {
    for (const f of factories) {
      if (this.factories.has(f.type)) throw new Error(`Ingest processor [${f.type}] is already registered`);
      this.factories.set(f.type, f);
    }
  }

  has(type: string): boolean {
    return this.factories.has(type);
  }

  types(): string[] {
    return [...this.factories.keys()].sort();
  }

  /** a processor list: like Elasticsearch, every key of every entry is one processor */
  configuredList(list: unknown[]): ConfiguredProcessor[] {
    const out: ConfiguredProcessor[] = [];
    for (const entry of list) {
      if (!isObject(entry)) {
        throw configError(undefined, undefined, undefined, `property isn't a map, but of type [${javaTypeName(entry)}]`);
      }
      for (const [type, cfg] of Object.entries(entry)) out.push(this.configured({ [type]: cfg }));
    }
    return out;
  }

  /** builds one configured processor from `{ "type": { ...config } }` */
  configured(entry: unknown): ConfiguredProcessor {
    if (!isObject(entry) || Object.keys(entry).length !== 1) {
      const keys = isObject(entry) ? Object.keys(entry) : [];
      if (keys.length > 1) {
        throw configError(undefined, undefined, undefined, `processor definition must contain exactly one processor type, found [${keys.length}]`);
      }
      throw configError(undefined, undefined, undefined, 'processor definition must be an object with a single processor type');
    }
    const type = Object.keys(entry)[0];
    let cfg = entry[type];
    if (type === 'script' && typeof cfg === 'string') cfg = { source: cfg };
    if (!isObject(cfg)) {
      throw configError(type, undefined, undefined, `property isn't a map, but of type [${javaTypeName(cfg)}]`);
    }
    const config: JsonObject = { ...cfg };
    const tagRaw = config['tag'];
    const tag = tagRaw === undefined || tagRaw === null ? undefined : String(tagRaw);
    const factory = this.factories.get(type);
    if (!factory) {
      throw configError(type, tag, undefined, `No processor type exists with name [${type}]`);
    }
    const reader = new ConfigReader(type, tag, config);
    const description = reader.optionalString('description');
    reader.raw('tag');
    const ignoreFailure = reader.bool('ignore_failure', false);
    const onFailureRaw = reader.raw('on_failure');
    let onFailure: ConfiguredProcessor[] | undefined;
    if (onFailureRaw !== undefined && onFailureRaw !== null) {
      if (!Array.isArray(onFailureRaw)) {
        throw configError(type, tag, 'on_failure', `property isn't a list, but of type [${javaTypeName(onFailureRaw)}]`);
      }
      if (onFailureRaw.length === 0) {
        throw configError(type, tag, 'on_failure', 'processors list cannot be empty');
      }
      onFailure = this.configuredList(onFailureRaw);
    }
    const condition = compileCondition(reader.raw('if'), type, tag);
    const own: JsonObject = {};
    for (const [k, v] of Object.entries(config)) if (!COMMON_KEYS.includes(k)) own[k] = v;
    let inner: Processor;
    try {
      inner = factory.create(own, tag, description, this);
    } catch (e) {
      if (e instanceof EsError) {
        if (e.type === 'script_exception' && e.metadata['processor_type'] === undefined) {
          e.metadata['processor_type'] = type;
          if (tag !== undefined) e.metadata['processor_tag'] = tag;
        }
        throw e;
      }
      throw configError(type, tag, undefined, (e as Error).message);
    }
    return new ConfiguredProcessor(inner, condition, ignoreFailure, onFailure);
  }

  create(config: unknown): Processor {
    const c = this.configured(config);
    return wrapAsProcessor(c);
  }

  createList(config: unknown, property: string, ownerType?: string, ownerTag?: string): Processor[] {
    if (!Array.isArray(config)) throw configError(ownerType, ownerTag, property, 'property isn\'t a list');
    return config.map((c) => this.create(c));
  }

  /** compiles a pipeline config (validating everything) */
  pipeline(id: string, config: unknown): Pipeline {
    if (!isObject(config)) throw configError(undefined, undefined, undefined, 'pipeline config must be an object');
    const allowed = new Set(['description', 'processors', 'on_failure', 'version', '_meta', 'deprecated', 'created_date', 'modified_date', 'created_date_millis', 'modified_date_millis']);
    const processors = config['processors'];
    if (processors === undefined || processors === null) {
      throw configError(undefined, undefined, 'processors', 'required property is missing');
    }
    if (!Array.isArray(processors)) {
      throw configError(undefined, undefined, 'processors', `property isn't a list, but of type [${javaTypeName(processors)}]`);
    }
    const unknown = Object.keys(config).filter((k) => !allowed.has(k));
    if (unknown.length > 0) {
      throw configError(undefined, undefined, undefined, `pipeline [${id}] doesn't support one or more provided configuration parameters [${unknown.join(', ')}]`);
    }
    const onFailureRaw = config['on_failure'];
    if (onFailureRaw !== undefined && onFailureRaw !== null && !Array.isArray(onFailureRaw)) {
      throw configError(undefined, undefined, 'on_failure', `property isn't a list, but of type [${javaTypeName(onFailureRaw)}]`);
    }
    if (Array.isArray(onFailureRaw) && onFailureRaw.length === 0) {
      throw new EsError('parse_exception', 400, `pipeline [${id}] cannot have an empty on_failure option defined`);
    }
    const description = config['description'];
    if (description !== undefined && description !== null && typeof description !== 'string') {
      throw configError(undefined, undefined, 'description', `property isn't a string, but of type [${javaTypeName(description)}]`);
    }
    const version = config['version'];
    if (version !== undefined && version !== null && !Number.isInteger(version)) {
      if (!(typeof version === 'string' && /^-?\d+$/.test(version))) throw configError(undefined, undefined, 'version', `property cannot be converted to an int [${String(version)}]`);
    }
    const meta = config['_meta'];
    if (meta !== undefined && meta !== null && !isObject(meta)) {
      throw configError(undefined, undefined, '_meta', `property isn't a map, but of type [${javaTypeName(meta)}]`);
    }
    return new Pipeline(
      id,
      description as string | undefined,
      version === undefined || version === null ? undefined : Number(version),
      this.configuredList(processors),
      Array.isArray(onFailureRaw) ? this.configuredList(onFailureRaw) : [],
    );
  }
}

/** a configured processor exposed as a Processor (for foreach's inner processor) */
export function wrapAsProcessor(c: ConfiguredProcessor): Processor {
  return {
    type: c.type,
    tag: c.tag,
    description: c.inner.description,
    execute(doc, ctx) {
      return runProcessors([c], doc, ctx, ctx.stack[ctx.stack.length - 1]);
    },
  };
}

export type { ExecutionContext };
