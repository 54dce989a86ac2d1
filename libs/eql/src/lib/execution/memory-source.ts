/**
 * An EventSource over plain JavaScript objects: an array (sorted here by timestamp, tiebreaker, position) or
 * an async iterable already in timestamp order (checked as it streams, memory bounded by the matchers).
 */
import { DateFormatter, EsError } from '@strata/core-common';
import { extractValues } from '@strata/core-engine';
import type { Stage } from '../analysis/resolved.js';
import type { Value } from '../expression/values.js';
import { compareValues } from '../expression/values.js';
import { checkAborted, type EventSource, type RenderedEvent, type SourceEvent, type TotalHits } from './model.js';
import { CATEGORY_PATH, stageFilter } from './sequence-matcher.js';

export interface MemorySourceOptions {
  timestampField: string;
  eventCategoryField: string;
  tiebreakerField?: string;
  /** field holding an event id for `_id` (default: the position in the input) */
  idField?: string;
  /** `_index` of rendered events */
  index?: string;
  /** events handed to the matchers at a time */
  batchSize?: number;
  /** true: events without a timestamp are accepted (samples) */
  timestampOptional?: boolean;
}

const DATE_PARSER = DateFormatter.of('strict_date_optional_time||epoch_millis');

interface MemoryEvent extends SourceEvent {
  pos: number;
  source: Record<string, unknown>;
}

function invalidArgument(reason: string): EsError {
  return new EsError('invalid_argument_exception', 400, reason);
}

export class MemorySource implements EventSource {
  private position = 0;
  private readonly batchSize: number;

  constructor(
    private readonly input: Iterable<unknown> | AsyncIterable<unknown>,
    private readonly opts: MemorySourceOptions,
  ) {
    this.batchSize = opts.batchSize ?? 1000;
  }

  private toEvent(raw: unknown, requireTs: boolean): MemoryEvent {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new EsError('illegal_argument_exception', 400, `events must be objects, got [${raw === null ? 'null' : Array.isArray(raw) ? 'array' : typeof raw}]`);
    }
    const source = raw as Record<string, unknown>;
    const o = this.opts;
    const tsVals = extractValues(source, o.timestampField);
    let ts = NaN;
    if (tsVals.length === 1) {
      const v = tsVals[0];
      if (typeof v === 'number') ts = v;
      else if (typeof v === 'string') ts = DATE_PARSER.tryParse(v)?.millis ?? NaN;
    }
    if (Number.isNaN(ts) && requireTs) {
      throw invalidArgument(
        `Expected timestamp field [${o.timestampField}] to be mapped as [date] or [date_nanos] and to hold a single value but got [${tsVals.length === 1 ? String(tsVals[0]) : JSON.stringify(tsVals)}]`,
      );
    }
    let tb: Value = null;
    if (o.tiebreakerField) {
      const t = extractValues(source, o.tiebreakerField);
      if (t.length > 1) throw invalidArgument(`Expected tiebreaker field [${o.tiebreakerField}] to hold a single comparable value but got [${JSON.stringify(t)}]`);
      tb = (t[0] as Value | undefined) ?? null;
    }
    const pos = this.position++;
    const cache = new Map<string, readonly unknown[]>();
    const values = (path: string): readonly unknown[] => {
      let v = cache.get(path);
      if (!v) cache.set(path, (v = extractValues(source, path === CATEGORY_PATH ? o.eventCategoryField : path)));
      return v;
    };
    return { ts: Number.isNaN(ts) ? 0 : ts, tb, ref: source, pos, source, values, keyValues: values };
  }

  private async all(requireTs: boolean): Promise<MemoryEvent[]> {
    const out: MemoryEvent[] = [];
    if (Symbol.asyncIterator in (this.input as object)) {
      for await (const raw of this.input as AsyncIterable<unknown>) out.push(this.toEvent(raw, requireTs));
    } else {
      for (const raw of this.input as Iterable<unknown>) out.push(this.toEvent(raw, requireTs));
    }
    return out;
  }

  private static order(a: MemoryEvent, b: MemoryEvent): number {
    return a.ts - b.ts || compareTb(a.tb, b.tb) || a.pos - b.pos;
  }

  async events(stage: Stage, count: number, fromTail: boolean, signal?: AbortSignal): Promise<{ events: SourceEvent[]; total: TotalHits }> {
    const filter = stageFilter(stage);
    const all = (await this.all(true)).filter(filter);
    checkAborted(signal);
    all.sort(MemorySource.order);
    const events = fromTail ? (count === 0 ? [] : all.slice(-count)) : all.slice(0, count);
    return { events, total: { value: all.length, relation: 'eq' } };
  }

  async *stream(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]> {
    const fs = filters.map(stageFilter);
    const keep = (e: MemoryEvent) => fs.some((f) => f(e));
    if (!(Symbol.asyncIterator in (this.input as object))) {
      const all = (await this.all(true)).filter(keep).sort(MemorySource.order);
      for (let i = 0; i < all.length; i += this.batchSize) {
        checkAborted(signal);
        yield all.slice(i, i + this.batchSize);
      }
      return;
    }
    // async iterables stream through, in the order given (which must be timestamp order)
    let last: MemoryEvent | undefined;
    const ordered = (ev: MemoryEvent): boolean => {
      if (last && MemorySource.order(last, ev) > 0) {
        throw new EsError('illegal_argument_exception', 400, `events of an async iterable must come in [${this.opts.timestampField}] order; event [${ev.pos}] is out of order`);
      }
      last = ev;
      return keep(ev);
    };
    yield* this.batches(this.input as AsyncIterable<unknown>, true, ordered, signal);
  }

  async *scan(filters: Stage[], signal?: AbortSignal): AsyncIterable<SourceEvent[]> {
    const fs = filters.map(stageFilter);
    const it = Symbol.asyncIterator in (this.input as object) ? (this.input as AsyncIterable<unknown>) : toAsync(this.input as Iterable<unknown>);
    yield* this.batches(it, !this.opts.timestampOptional, (ev) => fs.some((f) => f(ev)), signal);
  }

  /** the input's events passing `keep`, `batchSize` at a time */
  private async *batches(it: AsyncIterable<unknown>, requireTs: boolean, keep: (ev: MemoryEvent) => boolean, signal?: AbortSignal): AsyncIterable<MemoryEvent[]> {
    let batch: MemoryEvent[] = [];
    for await (const raw of it) {
      const ev = this.toEvent(raw, requireTs);
      if (!keep(ev)) continue;
      batch.push(ev);
      if (batch.length >= this.batchSize) {
        checkAborted(signal);
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  }

  async render(events: SourceEvent[]): Promise<RenderedEvent[]> {
    return events.map((e) => {
      const m = e as MemoryEvent;
      const idv = this.opts.idField ? extractValues(m.source, this.opts.idField)[0] : undefined;
      return { _index: this.opts.index ?? '', _id: idv === undefined ? String(m.pos) : String(idv), _source: m.source };
    });
  }
}

function compareTb(a: Value, b: Value): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return compareValues(a, b) ?? 0;
}

async function* toAsync<T>(it: Iterable<T>): AsyncIterable<T> {
  for (const x of it) yield x;
}
