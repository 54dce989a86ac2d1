/**
 * The task registry (ES TaskManager, in memory): long-running actions register a task, update its status,
 * check for cancellation between steps, and store their result when run with `wait_for_completion=false`.
 * `GET /_tasks`, `GET /_tasks/{id}` and `POST /_tasks/{id}/_cancel` read it; searches can register too.
 */

export interface TaskInfo {
  readonly id: number;
  readonly action: string;
  readonly description: string;
  readonly startTimeMillis: number;
  readonly startNanos: bigint;
  readonly cancellable: boolean;
  readonly parentTaskId?: string;
  cancelled: boolean;
  cancelReason?: string;
  /** action-specific progress (`status` of the task) */
  status?: Record<string, unknown>;
}

export interface StoredTaskResult {
  task: TaskInfo;
  runningNanos: number;
  response?: unknown;
  error?: unknown;
}

export interface Task extends TaskInfo {
  /** true once cancelled: the action stops at its next check */
  isCancelled(): boolean;
  onCancel(fn: (reason: string) => void): void;
}

export class TaskManager {
  private next = 1;
  private readonly running = new Map<number, Task & { listeners: Array<(reason: string) => void> }>();
  private readonly results = new Map<number, StoredTaskResult>();

  register(action: string, description: string, opts: { cancellable?: boolean; parentTaskId?: string } = {}): Task {
    const listeners: Array<(reason: string) => void> = [];
    const t = {
      id: this.next++,
      action,
      description,
      startTimeMillis: Date.now(),
      startNanos: process.hrtime.bigint(),
      cancellable: opts.cancellable !== false,
      ...(opts.parentTaskId !== undefined ? { parentTaskId: opts.parentTaskId } : {}),
      cancelled: false,
      listeners,
      isCancelled(): boolean {
        return t.cancelled;
      },
      onCancel(fn: (reason: string) => void): void {
        listeners.push(fn);
      },
    };
    this.running.set(t.id, t);
    return t;
  }

  /** the task ended; with `store` its result stays readable through GET /_tasks/{id} */
  unregister(task: Task, result?: { response?: unknown; error?: unknown; store?: boolean }): void {
    this.running.delete(task.id);
    if (result?.store) {
      this.results.set(task.id, { task, runningNanos: Number(process.hrtime.bigint() - task.startNanos), response: result.response, error: result.error });
    }
  }

  get(id: number): Task | undefined {
    return this.running.get(id);
  }

  result(id: number): StoredTaskResult | undefined {
    return this.results.get(id);
  }

  list(): Task[] {
    return [...this.running.values()];
  }

  /** cancels a running task; false when it is unknown or not cancellable */
  cancel(id: number, reason = 'by user request'): Task | undefined {
    const t = this.running.get(id);
    if (!t || !t.cancellable) return undefined;
    if (!t.cancelled) {
      t.cancelled = true;
      t.cancelReason = reason;
      for (const fn of t.listeners) fn(reason);
    }
    return t;
  }
}
