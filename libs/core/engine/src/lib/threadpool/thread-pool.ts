/**
 * Bounded executors, as Elasticsearch's fixed thread pools: `write` (shard-level bulk and single-document
 * writes) and `search` (shard query phases). A task runs when one of `size` slots is free, otherwise it waits
 * in a FIFO queue of at most `queue_size` tasks; past that it is rejected with 429
 * `es_rejected_execution_exception` instead of letting memory grow. `queue_size: -1` is unbounded.
 *
 * Node runs JavaScript on one thread, so a slot is not an OS thread: it is a task in flight (a bulk
 * applying its items and waiting for its translog fsync, a shard query waiting on an interceptor).
 */
import { availableParallelism } from 'node:os';
import { EsError, SettingParsers, setting, type SettingDef } from '@strata/core-common';

export interface ThreadPoolStats {
  threads: number;
  queue: number;
  active: number;
  rejected: number;
  largest: number;
  completed: number;
}

export interface ThreadPoolInfo {
  type: 'fixed';
  size: number;
  queue_size: number;
}

export class FixedExecutor {
  private active = 0;
  private largest = 0;
  private completed = 0;
  private rejected = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly name: string,
    readonly size: number,
    readonly queueSize: number,
    private readonly nodeName: string,
  ) {}

  /** runs `task` in a slot (now or after queueing); throws es_rejected_execution_exception when the queue is full */
  async execute<T>(describe: string | (() => string), task: () => Promise<T> | T): Promise<T> {
    await this.acquire(describe);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** takes a slot (waiting in the queue if needed); the caller must call release() */
  acquire(describe: string | (() => string)): Promise<void> | void {
    if (this.active < this.size) {
      this.active++;
      if (this.active > this.largest) this.largest = this.active;
      return;
    }
    if (this.queueSize >= 0 && this.waiting.length >= this.queueSize) {
      this.rejected++;
      throw this.rejection(typeof describe === 'string' ? describe : describe());
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** frees a slot: the next queued task (if any) takes it over */
  release(): void {
    this.completed++;
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  stats(): ThreadPoolStats {
    return {
      threads: Math.max(this.largest, Math.min(this.size, this.active)),
      queue: this.waiting.length,
      active: this.active,
      rejected: this.rejected,
      largest: this.largest,
      completed: this.completed,
    };
  }

  info(): ThreadPoolInfo {
    return { type: 'fixed', size: this.size, queue_size: this.queueSize };
  }

  private rejection(task: string): EsError {
    return new EsError(
      'es_rejected_execution_exception',
      429,
      `rejected execution of ${task} on EsThreadPoolExecutor[name = ${this.nodeName}/${this.name}, queue capacity = ${this.queueSize}, ` +
        `org.elasticsearch.common.util.concurrent.EsThreadPoolExecutor[Running, pool size = ${this.size}, active threads = ${this.active}, ` +
        `queued tasks = ${this.waiting.length}, completed tasks = ${this.completed}]]`,
    );
  }
}

const processors = (): number => Math.max(1, availableParallelism());

/** ES defaults: write = allocated processors, queue 10000; search = processors * 3 / 2 + 1, queue 1000 */
export const THREAD_POOL_SETTINGS: readonly SettingDef[] = [
  setting({ key: 'thread_pool.write.size', scope: 'node', dynamic: false, defaultValue: processors(), parse: SettingParsers.int('thread_pool.write.size', 1, processors() + 1) }),
  setting({ key: 'thread_pool.write.queue_size', scope: 'node', dynamic: false, defaultValue: 10000, parse: SettingParsers.int('thread_pool.write.queue_size', -1) }),
  setting({ key: 'thread_pool.search.size', scope: 'node', dynamic: false, defaultValue: Math.floor((processors() * 3) / 2) + 1, parse: SettingParsers.int('thread_pool.search.size', 1) }),
  setting({ key: 'thread_pool.search.queue_size', scope: 'node', dynamic: false, defaultValue: 1000, parse: SettingParsers.int('thread_pool.search.queue_size', -1) }),
] as SettingDef[];

/** other pools Elasticsearch lists; they have no bounded work here and report idle */
const IDLE_POOLS = ['analyze', 'flush', 'force_merge', 'generic', 'get', 'management', 'refresh', 'snapshot', 'warmer'];

/** the node's executors, built from node settings */
export class ThreadPool {
  readonly write: FixedExecutor;
  readonly search: FixedExecutor;

  constructor(settings: Record<string, unknown> = {}, nodeName = 'strata') {
    const get = (key: string): number => {
      const def = THREAD_POOL_SETTINGS.find((s) => s.key === key)!;
      const raw = settings[key];
      return raw === undefined || raw === null ? (def.defaultValue as number) : (def.parse(raw) as number);
    };
    this.write = new FixedExecutor('write', get('thread_pool.write.size'), get('thread_pool.write.queue_size'), nodeName);
    this.search = new FixedExecutor('search', get('thread_pool.search.size'), get('thread_pool.search.queue_size'), nodeName);
  }

  /** `_nodes/stats/thread_pool`: every pool, sorted by name */
  stats(): Record<string, ThreadPoolStats> {
    const out: Record<string, ThreadPoolStats> = {};
    const idle = processors();
    for (const name of [...IDLE_POOLS, 'search', 'write'].sort()) {
      if (name === 'search') out[name] = this.search.stats();
      else if (name === 'write') out[name] = this.write.stats();
      else out[name] = { threads: 0, queue: 0, active: 0, rejected: 0, largest: idle, completed: 0 };
    }
    return out;
  }

  /** `_cat/thread_pool` rows: name, type, size, queue_size and the stats */
  rows(): Array<ThreadPoolStats & { name: string; type: string; size: number; queue_size: number }> {
    const stats = this.stats();
    return Object.keys(stats).map((name) => {
      const ex = name === 'search' ? this.search : name === 'write' ? this.write : undefined;
      const size = ex ? ex.size : processors();
      const queueSize = ex ? ex.queueSize : -1;
      return { name, type: ex ? 'fixed' : 'scaling', size, queue_size: queueSize, ...stats[name]! };
    });
  }
}
