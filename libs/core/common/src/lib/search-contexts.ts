/**
 * Open search contexts (points in time, scrolls, async searches) as one list, whoever owns them.
 * Each feature that keeps contexts across requests binds a SearchContextProvider to
 * ExtensionPoints.SearchContextProvider; the `/_strata/search_contexts` API and the console's live view
 * read them all through this contract without importing the features.
 */
export interface SearchContextInfo {
  /** the id the owning API uses (a PIT id, a scroll id, an async search id): opaque */
  id: string;
  /** `point_in_time`, `scroll`, `async_eql`, ... (unique per provider) */
  kind: string;
  /** the indices (or other targets) the context reads */
  indices: string[];
  /** epoch millis of creation */
  openedAt: number;
  /** the keep-alive last asked for, in millis */
  keepAliveMs: number;
  /** epoch millis when it expires unless used or extended */
  expiresAt: number;
  /** the user that opened it (undefined with security off) */
  owner?: string;
  /** the request that opened it */
  origin?: { method: string; url: string; opaqueId?: string };
  /** a request is using it right now / the search is still running */
  running?: boolean;
  /** kind-specific details (scroll: hits returned so far, ...) */
  details?: Record<string, unknown>;
}

export interface SearchContextProvider {
  /** the kinds this provider lists, e.g. ['point_in_time', 'scroll'] */
  readonly kinds: readonly string[];
  /** the contexts open now (expired ones are not listed) */
  list(): SearchContextInfo[] | Promise<SearchContextInfo[]>;
  /** closes the context with this id if this provider owns it; returns whether it freed one */
  close(id: string): boolean | Promise<boolean>;
}
