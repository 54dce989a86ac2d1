/**
 * The registry of open reader contexts (points in time and scrolls). A context holds one
 * DirectoryReader per target shard (incRef'ed), never a copy of hits, and releases them when it is
 * freed or expires. Kept behind a small interface so a shared registry can replace it later.
 */
import { RequestContexts, contextOwner, currentRequestOrigin, type ContextOwner, type Principal } from '@strata/core-common';
import type { DirectoryReader, SearchRequest, ShardTarget } from '@strata/core-engine';

export type ContextKind = 'pit' | 'scroll';

export interface ScrollState {
  /** the search to continue (scroll removed, aggregations removed after the first page) */
  request: SearchRequest;
  /** sort values of the last hit returned (with the internal tiebreaker), undefined before the first page */
  after?: unknown[];
  /** hits.total of the first page, repeated on every page */
  total?: unknown;
  /** number of sort values the user asked for (the rest is the internal tiebreaker) */
  userSortLength: number;
  /** the user asked for no sort (hits carry no `sort`) */
  unsorted: boolean;
  /** hits returned so far */
  returned: number;
  /** `size` of each page */
  size: number;
  /** hits of the last page returned (a full page means the next one is worth computing ahead) */
  lastCount: number;
  /** the next page, computed (or being computed) ahead of its request: at most one per scroll */
  ahead?: ScrollAhead;
}

/** a scroll page computed ahead of its request (paging.service.ts); the registry releases it with the context */
export interface ScrollAhead {
  /** the `after` it continues from: it answers only the request that continues from there */
  readonly from: unknown[] | undefined;
  /** the page, or undefined when it was not kept (failed, over the memory budget, context gone) */
  page: Promise<unknown>;
  /** gives back the memory it holds; idempotent */
  release(): void;
}

export interface ReaderContext {
  readonly id: number;
  readonly kind: ContextKind;
  readonly readers: Map<string, DirectoryReader>;
  readonly targets: ShardTarget[];
  keepAliveMs: number;
  expiresAt: number;
  /** requests currently using the context: it is not reaped while in use */
  inUse: number;
  scroll?: ScrollState;
  readonly openedAt: number;
  /** the user and request that opened it (from the request context; none outside a request) */
  readonly owner?: string;
  /** who opened it (undefined with security off): only that principal may use or free it (sameOwner) */
  readonly ownedBy?: ContextOwner;
  readonly origin?: { method: string; url: string; opaqueId?: string };
}

/** told when a context starts and stops holding its shards (the shards' search statistics) */
export interface ReaderContextListener {
  opened(ctx: ReaderContext): void;
  freed(ctx: ReaderContext, openMillis: number): void;
}

export class ContextRegistry {
  private nextId = 1;
  private readonly contexts = new Map<number, ReaderContext>();

  constructor(private readonly listener?: ReaderContextListener) {}

  create(
    kind: ContextKind,
    readers: Map<string, DirectoryReader>,
    targets: ShardTarget[],
    keepAliveMs: number,
    now: number,
    principal: Principal | undefined = RequestContexts.current()?.principal,
  ): ReaderContext {
    const origin = currentRequestOrigin();
    const ownedBy = contextOwner(principal);
    const ctx: ReaderContext = {
      ...(ownedBy ? { ownedBy } : {}),
      id: this.nextId++,
      kind,
      readers,
      targets,
      keepAliveMs,
      expiresAt: now + keepAliveMs,
      inUse: 0,
      openedAt: now,
      ...(origin?.owner ? { owner: origin.owner } : {}),
      ...(origin ? { origin: { method: origin.method, url: origin.url, ...(origin.opaqueId ? { opaqueId: origin.opaqueId } : {}) } } : {}),
    };
    this.contexts.set(ctx.id, ctx);
    this.listener?.opened(ctx);
    return ctx;
  }

  get(id: number): ReaderContext | undefined {
    return this.contexts.get(id);
  }

  /** a live context, or undefined when missing or expired (an expired one is freed on the spot) */
  live(id: number, now: number): ReaderContext | undefined {
    const ctx = this.contexts.get(id);
    if (!ctx) return undefined;
    if (ctx.inUse === 0 && ctx.expiresAt <= now) {
      this.free(id, now);
      return undefined;
    }
    return ctx;
  }

  extend(ctx: ReaderContext, keepAliveMs: number, now: number): void {
    ctx.keepAliveMs = keepAliveMs;
    ctx.expiresAt = now + keepAliveMs;
  }

  /** frees a context and releases its readers; returns whether it existed */
  free(id: number, now: number): boolean {
    const ctx = this.contexts.get(id);
    if (!ctx) return false;
    this.contexts.delete(id);
    if (ctx.scroll?.ahead) {
      ctx.scroll.ahead.release();
      ctx.scroll.ahead = undefined;
    }
    for (const r of ctx.readers.values()) r.decRef();
    ctx.readers.clear();
    this.listener?.freed(ctx, Math.max(0, now - ctx.openedAt));
    return true;
  }

  /** ids of the open contexts of a kind */
  ids(kind: ContextKind): number[] {
    const out: number[] = [];
    for (const c of this.contexts.values()) if (c.kind === kind) out.push(c.id);
    return out;
  }

  /** frees every context of a kind; returns how many */
  freeAll(kind: ContextKind, now: number): number {
    let n = 0;
    for (const ctx of [...this.contexts.values()]) {
      if (ctx.kind === kind && this.free(ctx.id, now)) n++;
    }
    return n;
  }

  /** frees expired contexts that no request is using; returns how many */
  reap(now: number): number {
    let n = 0;
    for (const ctx of [...this.contexts.values()]) {
      if (ctx.inUse === 0 && ctx.expiresAt <= now && this.free(ctx.id, now)) n++;
    }
    return n;
  }

  /** the open contexts (expired ones excluded) */
  list(now: number): ReaderContext[] {
    return [...this.contexts.values()].filter((c) => c.inUse > 0 || c.expiresAt > now);
  }

  count(kind?: ContextKind): number {
    if (!kind) return this.contexts.size;
    let n = 0;
    for (const c of this.contexts.values()) if (c.kind === kind) n++;
    return n;
  }

  /** frees everything (shutdown) */
  clear(now: number): void {
    for (const id of [...this.contexts.keys()]) this.free(id, now);
  }
}
