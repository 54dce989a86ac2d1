import type { EngineIndexStats } from './cluster-view.js';

/** Zero-valued sections in Elasticsearch's order; engine numbers are merged over them. */
export function defaultSections(shards: number): Record<string, Record<string, unknown>> {
  return {
    docs: { count: 0, deleted: 0, total_size_in_bytes: 0 },
    shard_stats: { total_count: shards },
    store: { size_in_bytes: 0, total_data_set_size_in_bytes: 0, reserved_in_bytes: 0 },
    indexing: {
      index_total: 0,
      index_time_in_millis: 0,
      index_current: 0,
      index_failed: 0,
      delete_total: 0,
      delete_time_in_millis: 0,
      delete_current: 0,
      noop_update_total: 0,
      is_throttled: false,
      throttle_time_in_millis: 0,
      write_load: 0.0,
    },
    get: {
      total: 0,
      time_in_millis: 0,
      exists_total: 0,
      exists_time_in_millis: 0,
      missing_total: 0,
      missing_time_in_millis: 0,
      current: 0,
    },
    search: {
      open_contexts: 0,
      query_total: 0,
      query_time_in_millis: 0,
      query_current: 0,
      fetch_total: 0,
      fetch_time_in_millis: 0,
      fetch_current: 0,
      scroll_total: 0,
      scroll_time_in_millis: 0,
      scroll_current: 0,
      suggest_total: 0,
      suggest_time_in_millis: 0,
      suggest_current: 0,
    },
    merges: {
      current: 0,
      current_docs: 0,
      current_size_in_bytes: 0,
      total: 0,
      total_time_in_millis: 0,
      total_docs: 0,
      total_size_in_bytes: 0,
      total_stopped_time_in_millis: 0,
      total_throttled_time_in_millis: 0,
      total_auto_throttle_in_bytes: 0,
    },
    refresh: { total: 0, total_time_in_millis: 0, external_total: 0, external_total_time_in_millis: 0, listeners: 0 },
    flush: { total: 0, periodic: 0, total_time_in_millis: 0 },
    warmer: { current: 0, total: 0, total_time_in_millis: 0 },
    query_cache: { memory_size_in_bytes: 0, total_count: 0, hit_count: 0, miss_count: 0, cache_size: 0, cache_count: 0, evictions: 0 },
    fielddata: { memory_size_in_bytes: 0, evictions: 0 },
    completion: { size_in_bytes: 0 },
    segments: {
      count: 0,
      memory_in_bytes: 0,
      terms_memory_in_bytes: 0,
      stored_fields_memory_in_bytes: 0,
      term_vectors_memory_in_bytes: 0,
      norms_memory_in_bytes: 0,
      points_memory_in_bytes: 0,
      doc_values_memory_in_bytes: 0,
      index_writer_memory_in_bytes: 0,
      version_map_memory_in_bytes: 0,
      fixed_bit_set_memory_in_bytes: 0,
      max_unsafe_auto_id_timestamp: -1,
      file_sizes: {},
    },
    translog: {
      operations: 0,
      size_in_bytes: 0,
      uncommitted_operations: 0,
      uncommitted_size_in_bytes: 0,
      earliest_last_modified_age: 0,
    },
    request_cache: { memory_size_in_bytes: 0, evictions: 0, hit_count: 0, miss_count: 0 },
    recovery: { current_as_source: 0, current_as_target: 0, throttle_time_in_millis: 0 },
    bulk: { total_operations: 0, total_time_in_millis: 0, total_size_in_bytes: 0, avg_time_in_millis: 0, avg_size_in_bytes: 0 },
  };
}

/**
 * The section an index metric of a stats URL selects (`/_stats/merge`, `/_nodes/stats/indices/merge`): the
 * metric names are Elasticsearch's CommonStatsFlags rest names, and only `merge` differs from its section
 * (`merges`).
 */
export function sectionOfIndexMetric(metric: string): string {
  return metric === 'merge' ? 'merges' : metric;
}

/** the index metric that selects a section (the inverse of sectionOfIndexMetric) */
export function indexMetricOfSection(section: string): string {
  return section === 'merges' ? 'merge' : section;
}

/** the index metrics a stats URL may name */
export const INDEX_METRICS = Object.keys(defaultSections(1)).map(indexMetricOfSection);

/** engine stats merged over the defaults */
export function indexSections(shards: number, engine: EngineIndexStats | undefined): Record<string, Record<string, unknown>> {
  const out = defaultSections(shards);
  if (engine) {
    for (const [k, v] of Object.entries(engine)) {
      if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = { ...(out[k] ?? {}), ...(v as Record<string, unknown>) };
    }
  }
  if (out['docs'] && out['store'] && out['docs']['total_size_in_bytes'] === 0) {
    out['docs']['total_size_in_bytes'] = out['store']['size_in_bytes'];
  }
  if (out['store'] && out['store']['total_data_set_size_in_bytes'] === 0) {
    out['store']['total_data_set_size_in_bytes'] = out['store']['size_in_bytes'];
  }
  return out;
}

/** sums numbers of two section maps (booleans: or; objects: recursive) */
export function addSections(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    if (typeof v === 'number' && typeof cur === 'number') {
      out[k] = k.startsWith('max_') ? Math.max(cur, v) : cur + v;
    } else if (typeof v === 'boolean' && typeof cur === 'boolean') out[k] = cur || v;
    else if (v && typeof v === 'object' && !Array.isArray(v) && cur && typeof cur === 'object') {
      out[k] = addSections(cur as Record<string, unknown>, v as Record<string, unknown>);
    } else if (cur === undefined) out[k] = v;
  }
  return out;
}
