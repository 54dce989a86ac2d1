/**
 * Index-level access of the calling principal, decided by the security library (`Authorizer`) and honoured
 * by the core without knowing roles or privileges:
 * - the authorizer checks the names a request states explicitly and puts an IndicesAccess on the request;
 * - core-http copies it into the request context, so the index-name resolver expands wildcards, `_all` and
 *   alias patterns only to what the caller may use (Elasticsearch's "authorized indices");
 * - handlers of composite requests (`_bulk`, `_mget`, `_msearch`) check each item with `allowedFor` and
 *   report denied items with `denied`, as Elasticsearch fails single items with a 403.
 * Without a security library (or with security off) nothing is set and everything is allowed.
 */
import type { EsError } from './errors.js';
import { RequestContexts } from './request-context.js';

export interface IndicesAccess {
  /** whether the request's action may run on `name` (an index, alias or data stream; backing indices follow their stream) */
  allowed(name: string): boolean;
  /** whether `action` may run on `name` (items of composite requests) */
  allowedFor(action: string, name: string): boolean;
  /** the 403 `security_exception` Elasticsearch answers for `action` on `names` */
  denied(action: string, names: readonly string[]): EsError;
}

/** the indices access of the request being handled, if any (undefined: everything is allowed) */
export function currentIndicesAccess(): IndicesAccess | undefined {
  return RequestContexts.current()?.indicesAccess;
}

/**
 * The names an index expression states explicitly — what must be authorized one by one. Patterns, `_all`
 * and `-exclusions` are left out (the resolver expands patterns only to authorized names); date-math names
 * (`<logs-{now/d}>`) are resolved with `resolveDateMath`.
 */
export function explicitIndexNames(expression: readonly string[] | string | undefined, resolveDateMath: (name: string) => string): string[] {
  if (expression === undefined) return [];
  const parts = typeof expression === 'string' ? expression.split(',') : expression.flatMap((e) => e.split(','));
  const out: string[] = [];
  for (let part of parts) {
    part = part.trim();
    if (!part || part.startsWith('-') || part === '_all') continue;
    if (part.startsWith('<')) part = resolveDateMath(part);
    if (part.includes('*')) continue;
    out.push(part);
  }
  return out;
}

/**
 * For composite requests: throws the 403 Elasticsearch answers when the current caller may not run `action`
 * on one of the names `expression` states explicitly. Nothing happens without an IndicesAccess.
 */
export function checkIndicesAccess(action: string, expression: readonly string[] | string | undefined, resolveDateMath: (name: string) => string): void {
  const access = currentIndicesAccess();
  if (!access) return;
  const denied = explicitIndexNames(expression, resolveDateMath).filter((n) => !access.allowedFor(action, n));
  if (denied.length) throw access.denied(action, denied);
}
