/**
 * Samples: for every join key present in all of the sample's filters (keys in ascending order, a null key —
 * allowed only for optional `?` fields — first), up to `max_samples_per_key` combinations of distinct events,
 * one per filter, in no particular time order (Elasticsearch's SampleIterator: a composite aggregation over the
 * keys, then the first hits of each filter per key and a backtracking pick of distinct events).
 */
import type { Plan } from '../analysis/resolved.js';
import type { Value } from '../expression/values.js';
import type { MemoryBreaker, SampleResult, SourceEvent } from './model.js';
import { compareKeys, eventKeys, keyFunctions, keyString, stageFilter } from './sequence-matcher.js';

interface Bucket {
  key: Value[];
  perStage: SourceEvent[][];
}

export class SampleMatcher {
  private readonly stages: Array<{ filter: (ev: SourceEvent) => boolean; keys: ReturnType<typeof keyFunctions> }>;
  private readonly buckets = new Map<string, Bucket>();
  private readonly perStageLimit: number;

  constructor(
    plan: Plan,
    private readonly maxSamplesPerKey: number,
    private readonly breaker: MemoryBreaker,
  ) {
    this.stages = plan.stages.map((s) => ({ filter: stageFilter(s), keys: keyFunctions(s.keys, true) }));
    this.perStageLimit = plan.stages.length * maxSamplesPerKey;
  }

  push(ev: SourceEvent): void {
    const n = this.stages.length;
    for (let i = 0; i < n; i++) {
      const st = this.stages[i]!;
      if (!st.filter(ev)) continue;
      for (const key of eventKeys(st.keys, ev)) {
        const ks = keyString(key);
        let b = this.buckets.get(ks);
        if (!b) {
          b = { key, perStage: Array.from({ length: n }, () => []) };
          this.buckets.set(ks, b);
          this.breaker.adjust('sample_inflight', 120 + ks.length * 2 + 24 * n);
        }
        const list = b.perStage[i]!;
        if (list.length < this.perStageLimit && !list.includes(ev)) {
          list.push(ev);
          this.breaker.adjust('sample_inflight', 48);
        }
      }
    }
  }

  finish(limit: number): SampleResult[] {
    const keys = [...this.buckets.values()].filter((b) => b.perStage.every((l) => l.length > 0));
    keys.sort((a, b) => compareKeys(a.key, b.key));
    const out: SampleResult[] = [];
    for (const b of keys) {
      if (out.length >= limit) break;
      for (const combo of pickDistinct(b.perStage, this.maxSamplesPerKey)) {
        if (out.length >= limit) break;
        out.push({ joinKeys: b.key, events: combo });
      }
    }
    return out;
  }
}

/** backtracking choice of one distinct event per filter, up to `max` combinations */
export function pickDistinct<T>(lists: T[][], max: number): T[][] {
  const result: T[][] = [];
  const partial: T[] = [];
  const visit = (i: number): boolean => {
    for (const x of lists[i]!) {
      if (partial.includes(x)) continue;
      partial.push(x);
      if (i === lists.length - 1) {
        result.push([...partial]);
        if (result.length === max) return true;
      } else if (visit(i + 1)) return true;
      partial.pop();
    }
    return false;
  };
  if (lists.length > 0) visit(0);
  return result;
}
