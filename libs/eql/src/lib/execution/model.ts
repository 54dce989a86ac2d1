/**
 * The execution model shared by the in-process and the service event sources.
 */
import type { Stage } from '../analysis/resolved.js';
import type { EventValues } from '../expression/evaluator.js';
import type { Value } from '../expression/values.js';

/** one event as the matchers see it */
export interface SourceEvent extends EventValues {
  /** timestamp, epoch milliseconds */
  ts: number;
  /** tiebreaker value (null when none) */
  tb: Value;
  /** values as join keys render them (Elasticsearch's `fields` API formatting) */
  keyValues(path: string): readonly unknown[];
  /** opaque handle the source uses to render the event */
  ref: unknown;
}

export interface TotalHits {
  value: number;
  relation: 'eq' | 'gte';
}

/** an event as it appears in the response (`_index`, `_id`, `_source`, `fields`, or `missing: true`) */
export type RenderedEvent = Record<string, unknown>;

export interface EventSource {
  /**
   * Basic queries: the first (`fromTail` false) or last `count` events matching `stage`, in ascending
   * order, and the total number of matching events.
   */
  events(stage: Stage, count: number, fromTail: boolean, signal?: AbortSignal): Promise<{ events: SourceEvent[]; total: TotalHits }>;
  /** sequences: every event matching one of `filters`, in ascending (timestamp, tiebreaker, doc) order, in batches */
  stream(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]>;
  /** samples: every event matching one of `filters`, in index order (no timestamp needed), in batches */
  scan(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]>;
  /** renders result events (fetching what is needed) */
  render(events: SourceEvent[], signal?: AbortSignal): Promise<RenderedEvent[]>;
}

/** memory accounting of the matchers, guarded by a breaker (throws circuit_breaking_exception) */
export interface MemoryBreaker {
  /** adjusts the bytes held under `label`; throws when the limit would be exceeded */
  adjust(label: string, delta: number): void;
  /** releases everything this breaker accounted */
  release(): void;
}

export const NO_BREAKER: MemoryBreaker = { adjust: () => undefined, release: () => undefined };

export interface Sequence {
  joinKeys: Value[];
  /** per stage: the event, or null for a missing-event stage */
  events: Array<SourceEvent | null>;
}

export interface SampleResult {
  joinKeys: Value[];
  events: SourceEvent[];
}

export function checkAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    const r = signal.reason;
    throw r instanceof Error ? r : new Error('cancelled');
  }
}

/** lets other requests (and timers: wait_for_completion_timeout, cancellation) run between batches */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
