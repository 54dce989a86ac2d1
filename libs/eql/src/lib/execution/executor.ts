/**
 * Runs an analyzed plan over an EventSource: basic queries, sequences and samples, with the head/tail pipes
 * and the request's size / result_position.
 */
import type { Plan, Stage } from '../analysis/resolved.js';
import { applyOps, limitOps } from './limits.js';
import { checkAborted, yieldToEventLoop, type EventSource, type MemoryBreaker, type RenderedEvent, type SourceEvent, type TotalHits } from './model.js';
import { SampleMatcher } from './sample-matcher.js';
import { SequenceMatcher } from './sequence-matcher.js';
import type { Value } from '../expression/values.js';

export interface ExecuteOptions {
  size: number;
  resultPosition: 'head' | 'tail';
  maxSamplesPerKey: number;
  breaker: MemoryBreaker;
  signal?: AbortSignal;
}

export interface RenderedSequence {
  join_keys?: Value[];
  events: RenderedEvent[];
}

export type EqlResult =
  | { kind: 'events'; total: TotalHits; events: RenderedEvent[] }
  | { kind: 'sequences'; total: TotalHits; sequences: RenderedSequence[] };

export const MISSING_EVENT: RenderedEvent = Object.freeze({ _index: '', _id: '', missing: true });

export async function execute(plan: Plan, source: EventSource, opts: ExecuteOptions): Promise<EqlResult> {
  // samples come in join-key order; size takes the first of them whatever the result position
  const ops = limitOps(plan.pipes, opts.size, plan.type === 'sample' ? 'head' : opts.resultPosition);
  const first = ops[0]!;
  if (plan.type === 'event') {
    await yieldToEventLoop();
    const { events, total } = await source.events(plan.stages[0]!, first.n, first.kind === 'tail', opts.signal);
    const window = applyOps(events, ops.slice(1));
    checkAborted(opts.signal);
    return { kind: 'events', total, events: await source.render(window, opts.signal) };
  }
  if (plan.type === 'sequence') {
    const matcher = new SequenceMatcher({
      plan,
      breaker: opts.breaker,
      headLimit: first.kind === 'head' ? first.n : undefined,
      tailLimit: first.kind === 'tail' ? first.n : undefined,
    });
    const filters: Stage[] = [...new Set(plan.stages)];
    if (plan.until) filters.push(plan.until);
    if (first.n > 0) {
      outer: for await (const batch of source.stream(filters, opts.signal)) {
        await yieldToEventLoop();
        checkAborted(opts.signal);
        for (const ev of batch) {
          matcher.push(ev);
          if (matcher.done) break outer;
        }
      }
    }
    const sequences = applyOps(matcher.finish(), ops.slice(1));
    const rendered = await renderAll(source, sequences.map((s) => s.events), opts.signal);
    return {
      kind: 'sequences',
      total: { value: sequences.length, relation: 'eq' },
      sequences: sequences.map((s, i) => ({ ...(plan.stages[0]!.keys.length > 0 ? { join_keys: s.joinKeys } : {}), events: rendered[i]! })),
    };
  }
  // sample
  const matcher = new SampleMatcher(plan, opts.maxSamplesPerKey, opts.breaker);
  if (first.n > 0) {
    for await (const batch of source.scan([...plan.stages], opts.signal)) {
      await yieldToEventLoop();
      checkAborted(opts.signal);
      for (const ev of batch) matcher.push(ev);
    }
  }
  const samples = applyOps(matcher.finish(first.kind === 'head' ? first.n : Number.MAX_SAFE_INTEGER), first.kind === 'head' ? ops.slice(1) : ops);
  const rendered = await renderAll(source, samples.map((s) => s.events), opts.signal);
  return {
    kind: 'sequences',
    total: { value: samples.length, relation: 'eq' },
    sequences: samples.map((s, i) => ({ ...(plan.stages[0]!.keys.length > 0 ? { join_keys: s.joinKeys } : {}), events: rendered[i]! })),
  };
}

/** renders each distinct event once; null entries are missing events */
async function renderAll(source: EventSource, groups: Array<Array<SourceEvent | null>>, signal?: AbortSignal): Promise<RenderedEvent[][]> {
  const distinct = new Map<SourceEvent, number>();
  for (const g of groups) for (const e of g) if (e && !distinct.has(e)) distinct.set(e, distinct.size);
  const rendered = distinct.size ? await source.render([...distinct.keys()], signal) : [];
  return groups.map((g) => g.map((e) => (e ? rendered[distinct.get(e)!]! : { ...MISSING_EVENT })));
}
