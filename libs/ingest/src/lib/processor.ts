/**
 * Ingest processor SPI as the ingest lib uses it internally (typed with the concrete IngestDocument class).
 * The public, structural SPI other features implement is in @strata/core-common (ingest-spi.ts); the
 * conformance checks at the end of this file keep both in step.
 */
import { EsError, type IngestProcessor, type IngestProcessorFactory } from '@strata/core-common';
import { javaTypeName, type IngestDocument, type JsonObject } from './ingest-document.js';

/** Result of executing one processor: the (possibly replaced) document, or null when dropped. */
export type ProcessorResult = IngestDocument | null;

export interface Processor {
  readonly type: string;
  readonly tag?: string;
  readonly description?: string;
  /** synchronous: the whole pipeline runs without awaiting (cheap per document) */
  execute(doc: IngestDocument, ctx: ExecutionContext): ProcessorResult;
}

/** What a running processor can reach (nested pipelines, clock, simulate tracing). */
export interface ExecutionContext {
  /** resolves a pipeline by id (for the pipeline processor); undefined when missing */
  pipeline(id: string): PipelineLike | undefined;
  /** pipeline ids on the current stack, for cycle detection */
  readonly stack: string[];
  /** verbose simulate recorder, when tracing */
  readonly tracer?: Tracer;
  /** ms since epoch */
  now(): number;
  /** set by the runner for the pipeline processor while tracing: its `if` condition and result */
  traceCondition?: { condition: string; result: boolean };
}

export interface PipelineLike {
  readonly id: string;
  execute(doc: IngestDocument, ctx: ExecutionContext): ProcessorResult;
}

export interface TraceEntry {
  processorType: string;
  tag?: string;
  description?: string;
  status: 'success' | 'error' | 'error_ignored' | 'skipped' | 'dropped';
  condition?: { condition: string; result: boolean };
  doc?: IngestDocument;
  error?: unknown;
}

export interface Tracer {
  record(entry: TraceEntry): void;
}

/** Lets a factory build nested processors (foreach, on_failure). */
export interface ProcessorRegistry {
  create(config: unknown): Processor;
  createList(config: unknown, property: string, ownerType?: string, ownerTag?: string): Processor[];
  has(type: string): boolean;
}

export interface ProcessorFactory {
  readonly type: string;
  create(config: JsonObject, tag: string | undefined, description: string | undefined, registry: ProcessorRegistry): Processor;
}

// ---------------------------------------------------------------------------------- config reading

export function configError(
  type: string | undefined,
  tag: string | undefined,
  property: string | undefined,
  reason: string,
): EsError {
  const metadata: Record<string, unknown> = {};
  if (type !== undefined) metadata['processor_type'] = type;
  if (tag !== undefined) metadata['processor_tag'] = tag;
  if (property !== undefined) metadata['property_name'] = property;
  const r = property !== undefined ? `[${property}] ${reason}` : reason;
  return new EsError('parse_exception', 400, r, { metadata });
}

/** Reads processor config properties with ES ConfigurationUtils semantics; unread keys are reported by `finish()`. */
export class ConfigReader {
  private readonly consumed = new Set<string>();
  constructor(
    readonly type: string,
    readonly tag: string | undefined,
    readonly config: JsonObject,
  ) {}

  has(name: string): boolean {
    return this.config[name] !== undefined && this.config[name] !== null;
  }

  raw(name: string): unknown {
    this.consumed.add(name);
    return this.config[name];
  }

  error(property: string | undefined, reason: string): EsError {
    return configError(this.type, this.tag, property, reason);
  }

  requiredString(name: string): string {
    const v = this.raw(name);
    if (v === undefined || v === null) throw this.error(name, 'required property is missing');
    if (typeof v !== 'string') throw this.error(name, `property isn't a string, but of type [${javaTypeName(v)}]`);
    return v;
  }

  optionalString(name: string, def?: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return def;
    if (typeof v !== 'string') throw this.error(name, `property isn't a string, but of type [${javaTypeName(v)}]`);
    return v;
  }

  /** a string, or a number/boolean rendered as string (ES readStringOrIntProperty) */
  optionalStringOrNumber(name: string, def?: string): string | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return def;
    if (typeof v === 'string' || typeof v === 'number') return String(v);
    throw this.error(name, `property isn't a string or int, but of type [${javaTypeName(v)}]`);
  }

  bool(name: string, def: boolean): boolean {
    const v = this.raw(name);
    if (v === undefined || v === null) return def;
    if (typeof v === 'boolean') return v;
    if (v === 'true') return true;
    if (v === 'false') return false;
    throw this.error(name, `property isn't a boolean, but of type [${javaTypeName(v)}]`);
  }

  optionalInt(name: string): number | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return undefined;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isInteger(n)) throw this.error(name, `property cannot be converted to an int [${String(v)}]`);
    return n;
  }

  requiredList(name: string): unknown[] {
    const v = this.raw(name);
    if (v === undefined || v === null) throw this.error(name, 'required property is missing');
    if (!Array.isArray(v)) throw this.error(name, `property isn't a list, but of type [${javaTypeName(v)}]`);
    return v;
  }

  optionalList(name: string): unknown[] | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw this.error(name, `property isn't a list, but of type [${javaTypeName(v)}]`);
    return v;
  }

  /** a string or a list of strings */
  stringOrList(name: string, required: boolean): string[] | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) {
      if (required) throw this.error(name, 'required property is missing');
      return undefined;
    }
    if (typeof v === 'string') return [v];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    throw this.error(name, `property isn't a list or string, but of type [${javaTypeName(v)}]`);
  }

  optionalMap(name: string): JsonObject | undefined {
    const v = this.raw(name);
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) {
      throw this.error(name, `property isn't a map, but of type [${javaTypeName(v)}]`);
    }
    return v as JsonObject;
  }

  requiredMap(name: string): JsonObject {
    const v = this.optionalMap(name);
    if (v === undefined) throw this.error(name, 'required property is missing');
    return v;
  }

  /** ES rejects unknown properties after the factory ran. */
  finish(): void {
    const unknown = Object.keys(this.config).filter((k) => !this.consumed.has(k));
    if (unknown.length > 0) {
      throw configError(
        this.type,
        this.tag,
        undefined,
        `processor [${this.type}] doesn't support one or more provided configuration parameters [${unknown.join(', ')}]`,
      );
    }
  }
}


/** Declares a factory whose builder reads its config through a ConfigReader; unknown keys are rejected. */
export function defineProcessor(
  type: string,
  build: (r: ConfigReader, tag: string | undefined, description: string | undefined, registry: ProcessorRegistry) => Omit<Processor, 'type' | 'tag' | 'description'>,
): ProcessorFactory {
  return {
    type,
    create(config, tag, description, registry) {
      const r = new ConfigReader(type, tag, config);
      const p = build(r, tag, description, registry);
      r.finish();
      return { type, tag, description, execute: p.execute.bind(p) };
    },
  };
}

// ---------------------------------------------------------------------------------- SPI conformance

/** A core-common SPI factory used where the lib expects its own factory type (the runtime document is the same object). */
export function asProcessorFactory(f: IngestProcessorFactory | ProcessorFactory): ProcessorFactory {
  return f as unknown as ProcessorFactory;
}

// compile-time checks: the lib's processors and factories satisfy the public SPI
const spiProcessorCheck = (p: Processor): IngestProcessor => p;
const spiFactoryCheck = (f: ProcessorFactory): IngestProcessorFactory => f;
void spiProcessorCheck;
void spiFactoryCheck;
