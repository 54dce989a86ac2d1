import { AsyncLocalStorage } from 'node:async_hooks';
import type { IndicesAccess } from './access.js';
import type { RequestMemory } from './breakers.js';
import type { Principal } from './rest.js';

/**
 * What is known about the REST request being handled, available anywhere below the HTTP pipeline
 * without threading it through every call: the request id (logs), the originating method and path
 * (search-context listings), the authenticated principal (owners) and the response warnings
 * (deprecation `Warning` headers).
 */
export interface RequestContext {
  /** a process-unique id of this request (ECS `http.request.id`) */
  readonly id: string;
  readonly method: string;
  /** path and query string as received */
  readonly url: string;
  /** the client's X-Opaque-Id, if any */
  readonly opaqueId?: string;
  /** set by the pipeline once the authenticator chain has run */
  principal?: Principal;
  /** set by the pipeline when the authorizer restricts the caller's indices (see access.ts) */
  indicesAccess?: IndicesAccess;
  /** epoch millis when the request arrived */
  readonly startedAt: number;
  /** deprecation warnings to send back as `Warning` headers (deduplicated, in order) */
  readonly warnings: string[];
  /** the memory this request holds in the circuit breakers (released by the pipeline when it ends) */
  memory?: RequestMemory;
  /** aborted when the client disconnects before the response is written (made when first read) */
  readonly signal?: AbortSignal;
  /**
   * `fn` runs once when the client disconnects before the response is written (at once if it has); returns
   * what removes it. Cheaper than a listener on `signal` (searches stop early through it).
   */
  onClientGone?(fn: () => void): () => void;
  /**
   * run once the whole response has been handed to the connection (never if it was not: a failed write,
   * a client gone); work a request leaves for later starts there, e.g. a scroll's next page
   */
  afterResponse?: Array<() => void>;
}

const storage = new AsyncLocalStorage<RequestContext>();

export const RequestContexts = {
  /** runs `fn` with `ctx` as the current request context */
  run<T>(ctx: RequestContext, fn: () => T): T {
    return storage.run(ctx, fn);
  },
  /** the request being handled, undefined outside a request (start-up, reapers) */
  current(): RequestContext | undefined {
    return storage.getStore();
  },
};

/**
 * Records a deprecation warning for the current request; the pipeline sends it as
 * `Warning: 299 Elasticsearch-<version> "<message>"`, as Elasticsearch's HeaderWarning does.
 * Outside a request it does nothing.
 */
export function addDeprecationWarning(message: string): void {
  const ctx = storage.getStore();
  if (ctx && !ctx.warnings.includes(message)) ctx.warnings.push(message);
}

/** The originating request of something opened by the current request (`POST /logs/_pit?keep_alive=1m`). */
export function currentRequestOrigin(): { method: string; url: string; opaqueId?: string; owner?: string } | undefined {
  const ctx = storage.getStore();
  if (!ctx) return undefined;
  return {
    method: ctx.method,
    url: ctx.url,
    ...(ctx.opaqueId ? { opaqueId: ctx.opaqueId } : {}),
    ...(ctx.principal ? { owner: ctx.principal.username } : {}),
  };
}

/** The Elasticsearch version and build this service reports (banner, `Warning` headers). */
export const PRODUCT_VERSION = {
  number: '8.17.0',
  buildHash: '2b6a7fed44faa321997703718f07ee0420804b41',
} as const;

function nothingToRemove(): void {
  // no listener was added
}

/**
 * Runs `fn` once if the client of request `rc` disconnects before its response is written (at once if it has),
 * through `rc.onClientGone`, else a listener on `rc.signal` (a context made elsewhere, e.g. in tests); returns
 * what removes it. Without a request (or a way to tell) nothing is added.
 */
export function onClientGone(rc: RequestContext | undefined, fn: () => void): () => void {
  if (!rc) return nothingToRemove;
  if (rc.onClientGone) return rc.onClientGone(fn);
  const signal = rc.signal;
  if (!signal) return nothingToRemove;
  if (signal.aborted) {
    fn();
    return nothingToRemove;
  }
  signal.addEventListener('abort', fn, { once: true });
  return () => signal.removeEventListener('abort', fn);
}

/**
 * Whether a request's client went away before its response was written, told to listeners (what the HTTP
 * pipeline puts behind `RequestContext.onClientGone` and `signal`); the AbortSignal is made only when something
 * reads it (an AbortController and a listener on it cost several microseconds, on every request, and most
 * requests never look).
 */
export class ClientChannel {
  private gone = false;
  private listeners: Array<() => void> | null = null;
  private aborter: AbortController | null = null;

  close(): void {
    if (this.gone) return;
    this.gone = true;
    this.aborter?.abort();
    const l = this.listeners;
    this.listeners = null;
    if (l) for (const fn of l) fn();
  }

  get signal(): AbortSignal {
    if (!this.aborter) {
      this.aborter = new AbortController();
      if (this.gone) this.aborter.abort();
    }
    return this.aborter.signal;
  }

  onGone(fn: () => void): () => void {
    if (this.gone) {
      fn();
      return nothingToRemove;
    }
    (this.listeners ??= []).push(fn);
    return () => {
      const l = this.listeners;
      const i = l ? l.indexOf(fn) : -1;
      if (i >= 0) l!.splice(i, 1);
    };
  }
}
