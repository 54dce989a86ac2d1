/**
 * `head`/`tail` pipes and the request's `size`/`result_position` as one list of window operations applied in
 * order to the ordered results. The first operation decides how results are collected (stop after the first
 * N, or keep the last N); the others are applied in memory.
 */
import type { Pipe } from '../parser/ast.js';

export interface LimitOp {
  kind: 'head' | 'tail';
  n: number;
}

export function limitOps(pipes: readonly Pipe[], size: number, resultPosition: 'head' | 'tail'): LimitOp[] {
  return [...pipes.map((p) => ({ kind: p.kind, n: p.count })), { kind: resultPosition, n: size }];
}

export function applyOps<T>(list: readonly T[], ops: readonly LimitOp[]): T[] {
  let out = [...list];
  for (const op of ops) out = op.kind === 'head' ? out.slice(0, op.n) : op.n === 0 ? [] : out.slice(-op.n);
  return out;
}

/** keeps the last `n` items pushed (tail collection with bounded memory) */
export class TailBuffer<T> {
  private readonly items: T[] = [];
  constructor(private readonly n: number) {}
  push(x: T): void {
    if (this.n <= 0) return;
    this.items.push(x);
    if (this.items.length > this.n * 2) this.items.splice(0, this.items.length - this.n);
  }
  toArray(): T[] {
    return this.items.slice(-this.n);
  }
  get size(): number {
    return Math.min(this.items.length, this.n);
  }
}
