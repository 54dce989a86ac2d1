/**
 * Sequence matching as a per-join-key state machine fed with events in (timestamp, tiebreaker, doc) order.
 *
 * - Each positive stage keeps at most one pending partial match per key: a newer match replaces the older
 *   one (Elasticsearch's SequenceGroup.trimBefore takes the most recent candidate and drops older ones).
 * - An event is tried against the stages from the last to the first, so it never advances a sequence twice.
 * - `with maxspan`: a candidate whose start is more than maxspan before the event is dropped.
 * - `until`: an until event for a key drops the key's pending matches.
 * - Missing events `![...]` are decided as Elasticsearch does: an event of an interior missing stage strictly
 *   between its neighbours' timestamps discards the sequence; leading / trailing ones (the latest before the
 *   start, the earliest after the end) discard it unless they lie further apart than maxspan.
 * Memory: pending matches are bounded by the keys in flight; the breaker accounts for them.
 */
import type { Plan, RExpr, Stage } from '../analysis/resolved.js';
import { compileFilter, compile, type Compiled } from '../expression/evaluator.js';
import { compareValues, type Value } from '../expression/values.js';
import type { MemoryBreaker, Sequence, SourceEvent } from './model.js';

interface Candidate {
  key: Value[];
  keyStr: string;
  /** events of the positive stages matched so far */
  hits: SourceEvent[];
  startTs: number;
  lastTs: number;
  lastSeq: number;
  /** earliest event timestamp of each interior missing stage seen after the pending stage's event */
  taint?: Map<number, number>;
  discarded?: boolean;
  leadingTs?: number | null;
}

interface Completed {
  key: Value[];
  keyStr: string;
  hits: SourceEvent[];
  lastSeq: number;
  startTs: number;
  lastTs: number;
}

interface TrailingCheck extends Completed {
  leadingTs: number | null;
}

interface KeyFn {
  fns: Compiled[];
  /** true: a null value is a valid key (optional `?` field) */
  nullable: boolean[];
}

const CANDIDATE_BYTES = 160;
const HIT_BYTES = 48;

export function compareKeys(a: readonly Value[], b: readonly Value[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    const c = compareValues(x, y);
    if (c !== null && c !== 0) return c;
    if (c === null) {
      const sx = typeof x + String(x);
      const sy = typeof y + String(y);
      if (sx !== sy) return sx < sy ? -1 : 1;
    }
  }
  return 0;
}

/**
 * The key functions of a stage: field keys read their formatted (`fields` API) values for sequences, their
 * raw values (dates as epoch millis, as a composite aggregation keys them) for samples.
 */
export function keyFunctions(keys: readonly RExpr[], raw = false): KeyFn & { multi: Array<((ev: SourceEvent) => readonly Value[]) | null> } {
  const fns: Compiled[] = [];
  const nullable: boolean[] = [];
  const multi: Array<((ev: SourceEvent) => readonly Value[]) | null> = [];
  for (const k of keys) {
    nullable.push(k.k === 'field' && k.optional);
    if (k.k === 'field' && !k.unmapped) {
      const path = k.exact;
      multi.push(raw ? (ev) => ev.values(path) as Value[] : (ev) => ev.keyValues(path) as Value[]);
      fns.push(() => null);
    } else {
      multi.push(null);
      fns.push(compile(k));
    }
  }
  return { fns, nullable, multi };
}

/** every key combination of an event (cartesian product of multi-valued keys, duplicates removed), or [] */
export function eventKeys(kf: ReturnType<typeof keyFunctions>, ev: SourceEvent): Value[][] {
  const n = kf.fns.length;
  if (n === 0) return [[]];
  if (n === 1 && kf.multi[0]) {
    // the common case: one field key
    const raw = kf.multi[0](ev);
    if (raw.length === 1 && raw[0] !== null && raw[0] !== undefined) return [[raw[0]]];
  }
  let combos: Value[][] = [[]];
  for (let i = 0; i < n; i++) {
    let vals: Value[];
    const m = kf.multi[i];
    if (m) {
      const raw = m(ev).filter((v) => v !== null && v !== undefined);
      vals = [...new Map(raw.map((v) => [typeof v + ':' + String(v), v])).values()];
    } else {
      const v = kf.fns[i]!(ev);
      vals = v === null ? [] : [v];
    }
    if (vals.length === 0) {
      if (!kf.nullable[i]) return [];
      vals = [null];
    }
    if (vals.length === 1) {
      for (const c of combos) c.push(vals[0]!);
    } else {
      const next: Value[][] = [];
      for (const v of vals) for (const c of combos) next.push([...c, v]);
      combos = next;
    }
  }
  return combos;
}

export function keyString(key: readonly Value[]): string {
  if (key.length === 1) {
    const v = key[0]!;
    if (typeof v === 'string') return 's' + v;
    if (typeof v === 'number') return 'n' + v;
  }
  return 'j' + JSON.stringify(key.map((v) => (typeof v === 'number' ? ['n', v] : v)));
}

interface StageRuntime {
  stage: Stage;
  filter: (ev: SourceEvent) => boolean;
  keys: ReturnType<typeof keyFunctions>;
}

export interface SequenceMatcherOptions {
  plan: Plan;
  breaker: MemoryBreaker;
  /** stop once this many sequences are confirmed (head); undefined: match all */
  headLimit?: number;
  /** keep only the last N confirmed sequences (tail); undefined: keep all */
  tailLimit?: number;
}

export class SequenceMatcher {
  private readonly stages: StageRuntime[];
  private readonly until?: StageRuntime;
  private readonly positive: number[];
  private readonly maxspan: number;
  /** per positive position (except the last): key → candidate */
  private readonly pending: Array<Map<string, Candidate>>;
  /** interior missing stage index → [previous positive position, next positive position] */
  private readonly gaps = new Map<number, [number, number]>();
  private readonly leading: number[] = [];
  private readonly trailing: number[] = [];
  /** leading missing stages: key → latest two distinct timestamps seen */
  private readonly leadingSeen = new Map<string, { cur: number; prev: number | null }>();
  private readonly trailingChecks = new Map<string, TrailingCheck[]>();
  private trailingCount = 0;
  private completed: Completed[] = [];
  private confirmed = 0;
  private seq = 0;
  private bytes = 0;
  private lastTs = -Infinity;

  constructor(private readonly opts: SequenceMatcherOptions) {
    const plan = opts.plan;
    this.stages = plan.stages.map((s) => ({ stage: s, filter: stageFilter(s), keys: keyFunctions(s.keys) }));
    if (plan.until) this.until = { stage: plan.until, filter: stageFilter(plan.until), keys: keyFunctions(plan.until.keys) };
    this.positive = plan.stages.map((s, i) => (s.missing ? -1 : i)).filter((i) => i >= 0);
    this.maxspan = plan.maxspanMs;
    this.pending = this.positive.map(() => new Map());
    const first = this.positive[0]!;
    const last = this.positive[this.positive.length - 1]!;
    plan.stages.forEach((s, i) => {
      if (!s.missing) return;
      if (i < first) this.leading.push(i);
      else if (i > last) this.trailing.push(i);
      else {
        const prev = this.positive.filter((p) => p < i).length - 1;
        this.gaps.set(i, [prev, prev + 1]);
      }
    });
  }

  /** true when the head limit is reached and nothing earlier can still complete */
  get done(): boolean {
    return this.opts.headLimit !== undefined && this.confirmed >= this.opts.headLimit && this.trailingCount === 0;
  }

  private account(delta: number): void {
    if (delta === 0) return;
    this.bytes += delta;
    this.opts.breaker.adjust('sequence_inflight', delta);
  }

  /** feeds the next event (events must come in ordinal order) */
  push(ev: SourceEvent): void {
    const seq = this.seq++;
    this.lastTs = ev.ts;
    if (this.trailingCount > 0 && this.maxspan > 0) this.expireTrailing(ev.ts);
    const nPos = this.positive.length;
    // missing stages first: they look at what happened before this event
    for (const [stageIdx, [prevPos]] of this.gaps) {
      const st = this.stages[stageIdx]!;
      if (!st.filter(ev)) continue;
      for (const key of eventKeys(st.keys, ev)) {
        const c = this.pending[prevPos]!.get(keyString(key));
        if (c && ev.ts > c.lastTs) {
          c.taint ??= new Map();
          if (!c.taint.has(stageIdx)) c.taint.set(stageIdx, ev.ts);
        }
      }
    }
    for (const stageIdx of this.trailing) {
      const st = this.stages[stageIdx]!;
      if (!st.filter(ev)) continue;
      for (const key of eventKeys(st.keys, ev)) this.trailingEvent(keyString(key), ev.ts);
    }
    // positive stages, last to first
    const completedNow: Completed[] = [];
    for (let p = nPos - 1; p >= 0; p--) {
      const st = this.stages[this.positive[p]!]!;
      if (!st.filter(ev)) continue;
      for (const key of eventKeys(st.keys, ev)) {
        const ks = keyString(key);
        let cand: Candidate;
        if (p === 0) {
          cand = { key, keyStr: ks, hits: [ev], startTs: ev.ts, lastTs: ev.ts, lastSeq: seq };
          if (this.leading.length > 0) cand.leadingTs = this.leadingTs(ks, ev.ts);
        } else {
          const prev = this.pending[p - 1]!.get(ks);
          if (!prev || prev.lastSeq >= seq) continue;
          this.pending[p - 1]!.delete(ks);
          this.account(-(CANDIDATE_BYTES + HIT_BYTES * prev.hits.length));
          if (this.maxspan > 0 && ev.ts - prev.startTs > this.maxspan) continue;
          // interior missing stages between p-1 and p
          if (prev.taint) {
            for (const [stageIdx, ts] of prev.taint) {
              const gap = this.gaps.get(stageIdx)!;
              if (gap[1] === p && ts < ev.ts) prev.discarded = true;
            }
            prev.taint = undefined;
          }
          cand = { ...prev, hits: [...prev.hits, ev], lastTs: ev.ts, lastSeq: seq };
        }
        if (p === nPos - 1) {
          if (!cand.discarded) completedNow.push({ key: cand.key, keyStr: ks, hits: cand.hits, lastSeq: seq, startTs: cand.startTs, lastTs: cand.lastTs });
          if (cand.discarded) continue;
          if (this.trailing.length > 0 && !(this.leading.length > 0 && (cand.leadingTs ?? null) === null)) {
            this.addTrailingCheck({ ...completedNow.pop()!, leadingTs: cand.leadingTs ?? null });
            continue;
          }
          if (this.leading.length > 0 && !leadingKept(cand.leadingTs ?? null, null, cand, this.maxspan)) completedNow.pop();
        } else {
          const map = this.pending[p]!;
          const old = map.get(ks);
          if (old) this.account(-(CANDIDATE_BYTES + HIT_BYTES * old.hits.length));
          map.set(ks, cand);
          this.account(CANDIDATE_BYTES + HIT_BYTES * cand.hits.length + ks.length * 2);
        }
      }
    }
    // until: drops what is pending for the key, the matches this very event made included
    if (this.until && this.until.filter(ev)) {
      for (const key of eventKeys(this.until.keys, ev)) {
        const ks = keyString(key);
        for (const map of this.pending) {
          const c = map.get(ks);
          if (c) {
            map.delete(ks);
            this.account(-(CANDIDATE_BYTES + HIT_BYTES * c.hits.length));
          }
        }
      }
    }
    // leading missing stages: remember when they were last seen (after the starts above)
    for (const stageIdx of this.leading) {
      const st = this.stages[stageIdx]!;
      if (!st.filter(ev)) continue;
      for (const key of eventKeys(st.keys, ev)) {
        const ks = keyString(key);
        const e = this.leadingSeen.get(ks);
        if (!e) {
          this.leadingSeen.set(ks, { cur: ev.ts, prev: null });
          this.account(64 + ks.length * 2);
        } else if (e.cur !== ev.ts) {
          e.prev = e.cur;
          e.cur = ev.ts;
        }
      }
    }
    if (completedNow.length > 0) {
      completedNow.sort((a, b) => compareKeys(a.key, b.key));
      for (const c of completedNow) this.confirm(c);
    }
    if (this.maxspan > 0 && seq % 4096 === 4095) this.expire(ev.ts);
  }

  /** the latest leading-missing event strictly before `ts` for the key */
  private leadingTs(ks: string, ts: number): number | null {
    const e = this.leadingSeen.get(ks);
    if (!e) return null;
    if (e.cur < ts) return e.cur;
    return e.prev !== null && e.prev < ts ? e.prev : null;
  }

  private addTrailingCheck(c: TrailingCheck): void {
    let list = this.trailingChecks.get(c.keyStr);
    if (!list) this.trailingChecks.set(c.keyStr, (list = []));
    list.push(c);
    this.trailingCount++;
    this.account(CANDIDATE_BYTES + HIT_BYTES * c.hits.length);
  }

  private trailingEvent(ks: string, ts: number): void {
    const list = this.trailingChecks.get(ks);
    if (!list) return;
    const keep: TrailingCheck[] = [];
    for (const c of list) {
      if (ts <= c.lastTs) {
        keep.push(c);
        continue;
      }
      this.trailingCount--;
      this.account(-(CANDIDATE_BYTES + HIT_BYTES * c.hits.length));
      if (leadingKept(c.leadingTs, ts, c, this.maxspan, this.leading.length > 0, true)) this.confirm(c);
    }
    if (keep.length) this.trailingChecks.set(ks, keep);
    else this.trailingChecks.delete(ks);
  }

  /** trailing checks whose window has passed are kept */
  private expireTrailing(now: number): void {
    for (const [ks, list] of this.trailingChecks) {
      const keep: TrailingCheck[] = [];
      for (const c of list) {
        const anchor = this.leading.length > 0 && c.leadingTs !== null ? c.leadingTs : c.startTs;
        if (now - anchor > this.maxspan && now > c.lastTs) {
          this.trailingCount--;
          this.account(-(CANDIDATE_BYTES + HIT_BYTES * c.hits.length));
          this.confirm(c);
        } else keep.push(c);
      }
      if (keep.length) this.trailingChecks.set(ks, keep);
      else this.trailingChecks.delete(ks);
    }
  }

  /** pending matches that can no longer complete within maxspan are dropped */
  private expire(now: number): void {
    for (const map of this.pending) {
      for (const [ks, c] of map) {
        if (now - c.startTs > this.maxspan) {
          map.delete(ks);
          this.account(-(CANDIDATE_BYTES + HIT_BYTES * c.hits.length));
        }
      }
    }
    if (this.leading.length > 0) {
      for (const [ks, e] of this.leadingSeen) {
        if (now - e.cur > this.maxspan) {
          this.leadingSeen.delete(ks);
          this.account(-(64 + ks.length * 2));
        }
      }
    }
  }

  private confirm(c: Completed): void {
    this.completed.push(c);
    this.confirmed++;
    this.account(CANDIDATE_BYTES + HIT_BYTES * c.hits.length);
    const tail = this.opts.tailLimit;
    if (tail !== undefined && this.completed.length > Math.max(2 * tail, 64)) {
      this.sortCompleted();
      const drop = this.completed.length - tail;
      const dropped = this.completed.splice(0, drop);
      this.account(-dropped.reduce((s, x) => s + CANDIDATE_BYTES + HIT_BYTES * x.hits.length, 0));
    }
  }

  private sortCompleted(): void {
    this.completed.sort((a, b) => a.lastSeq - b.lastSeq || compareKeys(a.key, b.key));
  }

  /** end of the stream: the remaining trailing checks found nothing after their sequence */
  finish(): Sequence[] {
    for (const list of this.trailingChecks.values()) {
      for (const c of list) if (leadingKept(c.leadingTs, null, c, this.maxspan, this.leading.length > 0, true)) this.confirm(c);
    }
    this.trailingChecks.clear();
    this.trailingCount = 0;
    this.sortCompleted();
    let list = this.completed;
    if (this.opts.tailLimit !== undefined) list = list.slice(-this.opts.tailLimit);
    if (this.opts.headLimit !== undefined) list = list.slice(0, this.opts.headLimit);
    const stages = this.opts.plan.stages;
    return list.map((c) => {
      const events: Array<SourceEvent | null> = [];
      let h = 0;
      for (const s of stages) events.push(s.missing ? null : c.hits[h++]!);
      return { joinKeys: c.key, events };
    });
  }

  /** bytes currently accounted */
  get memory(): number {
    return this.bytes;
  }

  get lastTimestamp(): number {
    return this.lastTs;
  }
}

/**
 * Elasticsearch's decision for sequences with leading/trailing missing stages: kept unless the missing
 * events found lie within maxspan of the sequence.
 */
function leadingKept(
  lastLeading: number | null,
  firstTrailing: number | null,
  c: { startTs: number; lastTs: number },
  maxspan: number,
  hasLeading = true,
  hasTrailing = false,
): boolean {
  const bigger = (from: number | null, to: number | null): boolean => {
    if (from === null || to === null) return true;
    return maxspan > 0 && to - from > maxspan;
  };
  if (firstTrailing === null && lastLeading === null) return true;
  if (lastLeading === null && hasLeading) return true;
  if (firstTrailing === null && hasTrailing) return true;
  if (hasLeading && hasTrailing) return bigger(lastLeading, firstTrailing);
  if (hasLeading) return bigger(lastLeading, c.lastTs);
  return bigger(c.startTs, firstTrailing);
}

/** the full filter of a stage: its category and condition */
export function stageFilter(stage: Stage): (ev: SourceEvent) => boolean {
  const cond = compileFilter(stage.condition);
  if (stage.category === null) return cond;
  const category = stage.category;
  return (ev) => {
    const cats = ev.values(CATEGORY_PATH);
    let ok = false;
    for (const c of cats) if (c === category) ok = true;
    return ok && cond(ev);
  };
}

/** the pseudo-path under which sources expose the event category values */
export const CATEGORY_PATH = '\u0000category';
