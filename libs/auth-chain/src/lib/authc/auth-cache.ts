/**
 * A cache of successful authentications, so a salted-hash check (bcrypt, PBKDF2) does not cost every
 * request. Keyed by a SHA-256 of a random per-process secret followed by the Authorization header (the header
 * itself is never kept; a one-shot hash costs a fifth of an HMAC object per request); entries expire with the realm's `cache.ttl` or the credential's own expiry, and the
 * whole cache is dropped whenever users, roles, keys, tokens or the security files change.
 */
import { hash, randomBytes } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { LRUCache } from 'lru-cache';
import { Tokens, systemClock, type Clock } from '@strata/core-common';
import { SecurityStore } from '../store/security-store.js';
import type { Authentication } from './authentication.js';
import { FileRealmFiles } from './file-realm-files.js';

interface Entry {
  auth: Authentication;
  expiresAt: number;
}

@injectable()
export class AuthCache {
  /** prefixed to each header before it is hashed */
  private readonly secret = randomBytes(32).toString('base64');
  private readonly entries = new LRUCache<string, Entry>({ max: 100_000 });
  private readonly clock: Clock;
  hits = 0;
  misses = 0;

  constructor(
    @inject(SecurityStore) store: SecurityStore,
    @inject(FileRealmFiles) files: FileRealmFiles,
    @inject(Tokens.Clock) @optional() clock?: Clock,
  ) {
    this.clock = clock ?? systemClock;
    store.onChange(() => this.clear());
    files.onChange(() => this.clear());
  }

  keyOf(header: string): string {
    return hash('sha256', this.secret + header, 'base64');
  }

  get(key: string): Authentication | undefined {
    const e = this.entries.get(key);
    if (!e) {
      this.misses++;
      return undefined;
    }
    if (e.expiresAt <= this.clock.now()) {
      this.entries.delete(key);
      this.misses++;
      return undefined;
    }
    this.hits++;
    return e.auth;
  }

  set(key: string, auth: Authentication, ttlMs: number): void {
    const now = this.clock.now();
    const expiresAt = Math.min(now + ttlMs, auth.expiresAt ?? Number.MAX_SAFE_INTEGER);
    if (expiresAt > now && ttlMs > 0) this.entries.set(key, { auth: Object.freeze(auth), expiresAt });
  }

  /**
   * The authentication of a credential header: from the cache, else `compute` (a hashed check) whose
   * success is cached for `ttlMs` (bounded by the credential's own expiry).
   */
  async through(header: string, ttlMs: number, compute: () => Promise<Authentication>): Promise<{ auth: Authentication; cached: boolean }> {
    const key = this.keyOf(header);
    const hit = this.get(key);
    if (hit) return { auth: hit, cached: true };
    const auth = await compute();
    this.set(key, auth, ttlMs);
    return { auth, cached: false };
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
