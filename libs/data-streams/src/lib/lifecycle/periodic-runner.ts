/**
 * A pass that runs every poll interval of the injected clock (a dynamic cluster setting): a real-time timer
 * checks once a second whether the interval passed on the clock, so tests that move a ManualClock drive it,
 * and `runOnce()` runs a pass now (concurrent callers share the pass in flight).
 */
import { parseTimeValue, type Clock } from '@strata/core-common';
import type { ClusterMetadata, MetadataStore } from '@strata/core-engine';

const CHECK_MS = 1000;

export abstract class PeriodicRunner {
  private timer: NodeJS.Timeout | null = null;
  private lastRun = Number.NEGATIVE_INFINITY;
  private running: Promise<void> | null = null;
  protected stopped = false;

  protected constructor(
    protected readonly store: MetadataStore,
    protected readonly clock: Clock,
    private readonly pollSetting: string,
    private readonly defaultPollMs: number,
  ) {}

  protected abstract pass(): Promise<void>;

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => {
      if (!this.stopped && !this.running && this.clock.now() - this.lastRun >= this.pollInterval()) void this.runOnce();
    }, CHECK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.running) await this.running.catch(() => undefined);
  }

  /** the poll interval setting (transient over persistent, else the default) */
  pollInterval(md: ClusterMetadata = this.store.current()): number {
    const raw = md.transientSettings[this.pollSetting] ?? md.persistentSettings[this.pollSetting];
    if (raw === undefined || raw === null) return this.defaultPollMs;
    try {
      return parseTimeValue(raw, this.pollSetting);
    } catch {
      return this.defaultPollMs;
    }
  }

  runOnce(): Promise<void> {
    if (this.running) return this.running;
    this.lastRun = this.clock.now();
    this.running = this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
