/**
 * Ingest processor SPI: what a feature contributes through ExtensionPoints.IngestProcessor
 * (`bind(ExtensionPoints.IngestProcessor).toConstantValue(factory)`). The ingest feature compiles
 * processor configs with these factories at PUT time and runs them per document.
 * Structural interfaces only: the ingest lib's document and registry classes implement them.
 */

/** The document as a processor sees it (source, metadata fields, `_ingest` metadata). */
export interface IngestDocumentView {
  source: Record<string, unknown>;
  /** `_index`, `_id`, `_routing`, `_version`, `_version_type`, `_if_seq_no`, `_if_primary_term`, `_dynamic_templates` */
  meta: Record<string, unknown>;
  /** `timestamp`, `pipeline`, `on_failure_*`, ... */
  ingest: Record<string, unknown>;
  /** set by reroute: the rest of the pipeline chain is skipped */
  rerouted: boolean;
  /** value at a dotted path (`a.b`, `_source.a`, `_ingest.x`, `_index`); ES "not present" error unless ignoreMissing */
  getFieldValue(path: string, ignoreMissing?: boolean): unknown;
  hasField(path: string, failOutOfRange?: boolean): boolean;
  setFieldValue(path: string, value: unknown, append?: boolean, allowDuplicates?: boolean): void;
  appendFieldValue(path: string, value: unknown, allowDuplicates?: boolean): void;
  removeField(path: string, ignoreMissing?: boolean): void;
  /** template/script variable lookup (undefined when missing) */
  resolve(path: string): unknown;
  deepCopy(): IngestDocumentView;
}

/** the (possibly same) document, or null when the document is dropped */
export type IngestProcessorResult = IngestDocumentView | null;

export interface IngestPipelineView {
  readonly id: string;
  execute(doc: IngestDocumentView, ctx: IngestExecutionContext): IngestProcessorResult;
}

export interface IngestTraceEntry {
  processorType: string;
  tag?: string;
  description?: string;
  status: 'success' | 'error' | 'error_ignored' | 'skipped' | 'dropped';
  condition?: { condition: string; result: boolean };
  doc?: IngestDocumentView;
  error?: unknown;
}

export interface IngestTracer {
  record(entry: IngestTraceEntry): void;
}

export interface IngestExecutionContext {
  /** a pipeline by id (nested pipelines); undefined when missing */
  pipeline(id: string): IngestPipelineView | undefined;
  /** ids of the pipelines being executed, outermost first */
  readonly stack: string[];
  /** verbose simulate recorder, when tracing */
  readonly tracer?: IngestTracer;
  /** ms since epoch (injected clock) */
  now(): number;
  traceCondition?: { condition: string; result: boolean };
}

/** A compiled processor. `execute` is synchronous: whole pipelines run without awaiting. */
export interface IngestProcessor {
  readonly type: string;
  readonly tag?: string;
  readonly description?: string;
  execute(doc: IngestDocumentView, ctx: IngestExecutionContext): IngestProcessorResult;
}

/** Builds nested processors (foreach, on_failure) from configs. */
export interface IngestProcessorRegistry {
  create(config: unknown): IngestProcessor;
  createList(config: unknown, property: string, ownerType?: string, ownerTag?: string): IngestProcessor[];
  has(type: string): boolean;
}

/**
 * Contributed through ExtensionPoints.IngestProcessor. `create` receives the processor's own config
 * (without tag/description/if/ignore_failure/on_failure, which the ingest lib handles) and must throw
 * `parse_exception` (metadata processor_type, processor_tag?, property_name?) on invalid config,
 * and reject unknown keys, as Elasticsearch's ConfigurationUtils does.
 */
export interface IngestProcessorFactory {
  readonly type: string;
  create(
    config: Record<string, unknown>,
    tag: string | undefined,
    description: string | undefined,
    registry: IngestProcessorRegistry,
  ): IngestProcessor;
}
