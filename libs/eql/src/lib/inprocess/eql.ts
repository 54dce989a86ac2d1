/**
 * In-process EQL: the parser, analyzer and matchers over an array or an async iterable of plain event
 * objects, without the service.
 *
 *   import { eql } from '@strata/eql';
 *   const res = await eql('sequence by host.id [process where process.name == "cmd.exe"] [network where true]', events);
 *   res.hits.sequences  // [{ join_keys: [...], events: [{ _index, _id, _source }, ...] }]
 */
import { EsError } from '@strata/core-common';
import { analyze } from '../analysis/analyzer.js';
import type { Plan } from '../analysis/resolved.js';
import type { FieldInfo, Schema } from '../analysis/schema.js';
import { execute, type EqlResult } from '../execution/executor.js';
import { MemorySource } from '../execution/memory-source.js';
import { NO_BREAKER, type MemoryBreaker } from '../execution/model.js';
import { parseEql } from '../parser/parser.js';

export interface EqlOptions {
  /** default `event.category` */
  eventCategoryField?: string;
  /** default `@timestamp`; values are epoch millis or ISO-8601 strings */
  timestampField?: string;
  tiebreakerField?: string;
  /** default 10 */
  size?: number;
  /** default `tail` */
  resultPosition?: 'head' | 'tail';
  /** samples; default 1 */
  maxSamplesPerKey?: number;
  /** events handed to the matchers at a time (default 1000) */
  fetchSize?: number;
  /** field types (Elasticsearch mapping types by field name); without it every field exists and is typed by its values */
  fieldTypes?: Record<string, string>;
  /** field used as `_id` of returned events (default: position in the input) */
  idField?: string;
  /** `_index` of returned events (default `""`) */
  index?: string;
  signal?: AbortSignal;
  /** memory accounting for sequences and samples */
  breaker?: MemoryBreaker;
}

export interface EqlResponse {
  took: number;
  timed_out: boolean;
  hits: {
    total: { value: number; relation: 'eq' | 'gte' };
    events?: Array<Record<string, unknown>>;
    sequences?: Array<{ join_keys?: unknown[]; events: Array<Record<string, unknown>> }>;
  };
}

/** a schema over explicit field types; other fields are dynamic */
function inProcessSchema(timestampField: string, fieldTypes?: Record<string, string>): Schema {
  const known = fieldTypes ?? {};
  return {
    dynamic: fieldTypes === undefined,
    field(name: string): FieldInfo | undefined {
      const t = known[name];
      if (t !== undefined) return { name, path: name, type: t };
      if (name === timestampField) return { name, path: name, type: 'date' };
      return fieldTypes === undefined ? { name, path: name, type: 'dynamic' } : undefined;
    },
    fieldNames: () => Object.keys(known),
  };
}

/** parses and checks a query for in-process use (throws parsing_exception / verification_exception) */
export function compileEql(query: string, options: EqlOptions = {}): Plan {
  if (typeof query !== 'string' || query.trim().length === 0) throw new EsError('illegal_argument_exception', 400, 'query is null or empty');
  const timestampField = options.timestampField ?? '@timestamp';
  const schema = inProcessSchema(timestampField, options.fieldTypes);
  return analyze(parseEql(query), schema, {
    eventCategoryField: options.eventCategoryField ?? 'event.category',
    timestampField,
    tiebreakerField: options.tiebreakerField,
  });
}

export async function eql(query: string, events: Iterable<unknown> | AsyncIterable<unknown>, options: EqlOptions = {}): Promise<EqlResponse> {
  const started = Date.now();
  const plan = compileEql(query, options);
  const size = options.size ?? 10;
  if (!(size > 0)) throw new EsError('illegal_argument_exception', 400, 'size must be greater than 0');
  const source = new MemorySource(events, {
    timestampField: options.timestampField ?? '@timestamp',
    eventCategoryField: options.eventCategoryField ?? 'event.category',
    tiebreakerField: options.tiebreakerField,
    idField: options.idField,
    index: options.index,
    batchSize: options.fetchSize,
    timestampOptional: plan.type === 'sample',
  });
  const result = await execute(plan, source, {
    size: Math.floor(size),
    resultPosition: options.resultPosition ?? 'tail',
    maxSamplesPerKey: options.maxSamplesPerKey ?? 1,
    breaker: options.breaker ?? NO_BREAKER,
    signal: options.signal,
  });
  return toResponse(result, Date.now() - started);
}

export function toResponse(result: EqlResult, took: number): EqlResponse {
  const hits: EqlResponse['hits'] = { total: result.total };
  if (result.kind === 'events') hits.events = result.events;
  else hits.sequences = result.sequences;
  return { took, timed_out: false, hits };
}
