/**
 * Stored (async) EQL searches: running ones in memory with their AbortController, every stored one also as a
 * file under `<path.data>/eql_async/` (written atomically), so results survive a restart. A search is visible
 * only to the user who started it; `keep_alive` deletes it when it passes, even while it runs.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, fsyncSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { contextOwner, Errors, sameOwner, type Clock, type ContextOwner, type Principal } from '@strata/core-common';

export interface StoredSearch {
  id: string;
  /** who started it (undefined: security was off) */
  owner?: ContextOwner;
  startTime: number;
  expirationTime: number;
  running: boolean;
  partial: boolean;
  /** the search response body (without id / is_partial / is_running) once complete */
  response?: Record<string, unknown>;
  /** a failure: HTTP status and error body */
  error?: { status: number; body: Record<string, unknown> };
  completionStatus?: number;
  /** the targets of the request (as written) */
  indices?: string[];
  /** the keep_alive last asked for, in millis */
  keepAliveMs?: number;
  /** the request that started it */
  origin?: { method: string; url: string; opaqueId?: string };
}

interface Live {
  entry: StoredSearch;
  controller?: AbortController;
  done?: Promise<void>;
}

const ID_RE = /^[A-Za-z0-9_-]{20,64}$/;

/** the owner recorded for a search started by `principal` */
export function ownerOf(principal: Principal | undefined): ContextOwner | undefined {
  return contextOwner(principal);
}

export class AsyncSearchStore {
  private readonly entries = new Map<string, Live>();
  private readonly dir?: string;

  constructor(
    private readonly clock: Clock,
    dataPath?: string,
  ) {
    if (dataPath) {
      this.dir = join(dataPath, 'eql_async');
      this.load();
    }
  }

  private load(): void {
    if (!this.dir || !existsSync(this.dir)) return;
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith('.json')) {
        if (f.endsWith('.tmp')) rmSync(join(this.dir, f), { force: true });
        continue;
      }
      try {
        const entry = JSON.parse(readFileSync(join(this.dir, f), 'utf8')) as StoredSearch;
        if (entry.running) {
          // the node stopped while it ran: what was found is lost, the search ends as a partial failure
          entry.running = false;
          entry.partial = true;
          entry.completionStatus = 500;
          entry.error = {
            status: 500,
            body: errorBody('search_phase_execution_exception', 'the node stopped before the search completed', 500),
          };
          this.persist(entry);
        }
        this.entries.set(entry.id, { entry });
      } catch {
        rmSync(join(this.dir, f), { force: true });
      }
    }
  }

  private persist(entry: StoredSearch): void {
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `${entry.id}.json`);
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, JSON.stringify(entry));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  }

  private unlink(id: string): void {
    if (this.dir) rmSync(join(this.dir, `${id}.json`), { force: true });
  }

  newId(): string {
    return randomBytes(27).toString('base64url');
  }

  create(entry: StoredSearch, controller?: AbortController): void {
    this.entries.set(entry.id, { entry, controller });
    this.persist(entry);
  }

  /** records the outcome of a search that ran in the background */
  complete(id: string, outcome: { response?: Record<string, unknown>; error?: { status: number; body: Record<string, unknown> }; partial: boolean }): void {
    const live = this.entries.get(id);
    if (!live) return;
    const e = live.entry;
    e.running = false;
    e.partial = outcome.partial;
    if (outcome.response) e.response = outcome.response;
    if (outcome.error) e.error = outcome.error;
    e.completionStatus = outcome.error ? outcome.error.status : 200;
    live.controller = undefined;
    this.persist(e);
  }

  setDone(id: string, done: Promise<void>): void {
    const live = this.entries.get(id);
    if (live) live.done = done;
  }

  /** the stored search for this caller, or resource_not_found_exception */
  get(id: string, principal: Principal | undefined): Live {
    if (!ID_RE.test(id)) throw Errors.illegalArgument(`invalid id: [${id}]`);
    this.reap();
    const live = this.entries.get(id);
    if (!live) throw Errors.resourceNotFound(id);
    if (!sameOwner(live.entry.owner, principal)) throw Errors.resourceNotFound(id);
    return live;
  }

  extend(id: string, keepAliveMs: number): void {
    const live = this.entries.get(id);
    if (!live) return;
    live.entry.expirationTime = this.clock.now() + keepAliveMs;
    live.entry.keepAliveMs = keepAliveMs;
    this.persist(live.entry);
  }

  /** deletes (and cancels, when running) a stored search */
  delete(id: string, principal: Principal | undefined): void {
    const live = this.get(id, principal);
    this.remove(live);
  }

  /** every stored search whose keep_alive has not passed, whoever owns it */
  all(): StoredSearch[] {
    this.reap();
    return [...this.entries.values()].map((l) => l.entry);
  }

  /** deletes (cancelling when running) the search with this id, whoever owns it; false when there is none */
  close(id: string): boolean {
    const live = this.entries.get(id);
    if (!live) return false;
    this.remove(live);
    return true;
  }

  private remove(live: Live): void {
    live.controller?.abort(Errors.resourceNotFound(live.entry.id));
    this.entries.delete(live.entry.id);
    this.unlink(live.entry.id);
  }

  /** drops every search whose keep_alive has passed (cancelling running ones); returns how many */
  reap(): number {
    const now = this.clock.now();
    let n = 0;
    for (const live of [...this.entries.values()]) {
      if (live.entry.expirationTime <= now) {
        this.remove(live);
        n++;
      }
    }
    return n;
  }

  /** cancels running searches (node shutdown); their files stay, marked running, and end as failures at the next start */
  stop(): void {
    for (const live of this.entries.values()) live.controller?.abort(new Error('node shutting down'));
  }

  get size(): number {
    return this.entries.size;
  }
}

export function errorBody(type: string, reason: string, status: number): Record<string, unknown> {
  return { error: { root_cause: [{ type, reason }], type, reason }, status };
}
