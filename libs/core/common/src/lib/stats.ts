/** Contributes a section to GET /_nodes/stats (e.g. `ingest`, `indices.request_cache`). */
export interface NodeStatsContributor {
  /** dotted path of the section inside the node object, e.g. `ingest` or `indices.request_cache` */
  readonly section: string;
  stats(opts: { human: boolean }): Record<string, unknown>;
}

/** Contributes a metric to GET /_stats and /{index}/_stats (e.g. `request_cache`). */
export interface IndexStatsContributor {
  readonly metric: string;
  /** per index (primaries == total on a single node) */
  indexStats(index: string, opts: { human: boolean }): Record<string, unknown>;
}
