/** Started after the container is built, stopped on shutdown (reapers, flushers, timers). */
export interface LifecycleComponent {
  readonly name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

/** Injected time source: tests advance it instead of sleeping. */
export interface Clock {
  now(): number;
  /** monotonic-ish nanoseconds for `took` measurements */
  nanoTime(): bigint;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  nanoTime: () => process.hrtime.bigint(),
};

export interface Logger {
  info(obj: unknown, msg?: string): void;
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
  debug(obj: unknown, msg?: string): void;
}

export interface IdGenerator {
  /** a 20-char base64url id like Elasticsearch's auto-generated ids */
  next(): string;
}
