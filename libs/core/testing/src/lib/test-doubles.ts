import type { Clock, IdGenerator, Logger } from '@strata/core-common';

/** A clock tests move by hand (`advance`) instead of sleeping. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2024, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  nanoTime(): bigint {
    return BigInt(this.ms) * 1_000_000n;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

/** Predictable ids: `id-1`, `id-2`, ... */
export class SequentialIdGenerator implements IdGenerator {
  private n = 0;
  constructor(private readonly prefix = 'id-') {}
  next(): string {
    return `${this.prefix}${++this.n}`;
  }
}

/** A logger that keeps entries in memory (for assertions) and prints nothing. */
export class MemoryLogger implements Logger {
  readonly entries: Array<{ level: string; obj: unknown; msg?: string }> = [];
  info(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'error', obj, msg });
  }
  debug(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'debug', obj, msg });
  }
}
