/** Test helpers (used by specs only). */
import { InMemoryMetadataStore } from '@strata/core-engine';
import type { Clock } from '@strata/core-common';
import { IngestDocument, type JsonObject } from '../ingest-document.js';
import { IngestService } from '../ingest.service.js';
import { BUILTIN_PROCESSORS } from '../processors/index.js';
import type { ExecutionContext, Processor, ProcessorResult } from '../processor.js';

export const FIXED_NOW = Date.UTC(2024, 4, 17, 10, 11, 12, 345);

export const fixedClock: Clock = { now: () => FIXED_NOW, nanoTime: () => 0n };

export function newService(): { service: IngestService; store: InMemoryMetadataStore } {
  const store = new InMemoryMetadataStore();
  const service = new IngestService(store, [...BUILTIN_PROCESSORS], fixedClock);
  return { service, store };
}

export function doc(source: JsonObject, meta: JsonObject = { _index: 'idx', _id: '1' }): IngestDocument {
  return IngestDocument.create(structuredClone(source), meta, new Date(FIXED_NOW).toISOString());
}

const shared = newService().service;

/** builds one configured processor from `{type: config}` and runs it on a document */
export function run(config: JsonObject, source: JsonObject, ctx?: ExecutionContext): ProcessorResult {
  const p: Processor = shared.registry.create(config);
  return p.execute(doc(source), ctx ?? shared.executionContext());
}

export function create(config: JsonObject): Processor {
  return shared.registry.create(config);
}

/** the error thrown by fn (fails the test when nothing is thrown) */
export function thrown(fn: () => unknown): { type: string; reason: string; metadata: Record<string, unknown>; status: number } {
  try {
    fn();
  } catch (e) {
    const err = (e as { cause?: unknown }).cause && (e as Error).name !== 'EsError' ? (e as { cause: unknown }).cause : e;
    return err as { type: string; reason: string; metadata: Record<string, unknown>; status: number };
  }
  throw new Error('expected an error');
}
