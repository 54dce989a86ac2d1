/**
 * Core index and cluster setting definitions (contributed through ExtensionPoints.Setting).
 * Storage (refresh_interval, translog.*, action.auto_create_index), ingest (default/final pipeline),
 * request cache and the host (node settings) register their own.
 */
import { Errors, SettingParsers, setting, type SettingDef } from '@strata/core-common';

const bool = (key: string) => SettingParsers.boolean(key);
const int = (key: string, min = -Infinity, max = Infinity) => SettingParsers.int(key, min, max);
const any = SettingParsers.any();

function stringList(key: string) {
  return (raw: unknown): string[] => {
    if (Array.isArray(raw)) return raw.map(String);
    if (typeof raw === 'string') return raw.split(',').map((s) => s.trim()).filter(Boolean);
    throw Errors.illegalArgument(`Failed to parse value [${String(raw)}] for setting [${key}]`);
  };
}

function autoExpand(raw: unknown): string {
  const s = String(raw);
  if (s === 'false' || /^\d+-(\d+|all)$/.test(s)) return s;
  throw Errors.illegalArgument(`failed to parse [index.auto_expand_replicas] from value: [${s}] at index -1`);
}

/** index settings users may not set (ES: "private index setting [x] can not be set explicitly") */
export const PRIVATE_INDEX_SETTINGS = ['index.uuid', 'index.creation_date', 'index.version.created', 'index.provided_name', 'index.version.upgraded', 'index.resize.source.name', 'index.resize.source.uuid'];

export const CORE_INDEX_SETTINGS: readonly SettingDef[] = [
  setting({ key: 'index.number_of_shards', scope: 'index', dynamic: false, finalSetting: true, defaultValue: 1, parse: int('index.number_of_shards', 1, 1024) }),
  setting({ key: 'index.number_of_replicas', scope: 'index', dynamic: true, defaultValue: 1, parse: int('index.number_of_replicas', 0) }),
  setting({ key: 'index.number_of_routing_shards', scope: 'index', dynamic: false, finalSetting: true, defaultValue: 1, parse: int('index.number_of_routing_shards', 1, 1048576) }),
  setting({ key: 'index.routing_partition_size', scope: 'index', dynamic: false, finalSetting: true, defaultValue: 1, parse: int('index.routing_partition_size', 1) }),
  setting({ key: 'index.max_result_window', scope: 'index', dynamic: true, defaultValue: 10000, parse: int('index.max_result_window', 1) }),
  setting({ key: 'index.queries.cache.enabled', scope: 'index', dynamic: false, defaultValue: true, parse: bool('index.queries.cache.enabled') }),
  setting({ key: 'index.max_inner_result_window', scope: 'index', dynamic: true, defaultValue: 100, parse: int('index.max_inner_result_window', 1) }),
  setting({ key: 'index.max_slices_per_scroll', scope: 'index', dynamic: true, defaultValue: 1024, parse: int('index.max_slices_per_scroll', 1) }),
  setting({ key: 'index.max_rescore_window', scope: 'index', dynamic: true, defaultValue: 10000, parse: int('index.max_rescore_window', 1) }),
  setting({ key: 'index.max_docvalue_fields_search', scope: 'index', dynamic: true, defaultValue: 100, parse: int('index.max_docvalue_fields_search', 0) }),
  setting({ key: 'index.max_script_fields', scope: 'index', dynamic: true, defaultValue: 32, parse: int('index.max_script_fields', 0) }),
  setting({ key: 'index.max_ngram_diff', scope: 'index', dynamic: true, defaultValue: 1, parse: int('index.max_ngram_diff', 0) }),
  setting({ key: 'index.max_shingle_diff', scope: 'index', dynamic: true, defaultValue: 3, parse: int('index.max_shingle_diff', 0) }),
  setting({ key: 'index.max_terms_count', scope: 'index', dynamic: true, defaultValue: 65536, parse: int('index.max_terms_count', 1) }),
  setting({ key: 'index.max_regex_length', scope: 'index', dynamic: true, defaultValue: 1000, parse: int('index.max_regex_length', 1) }),
  setting({ key: 'index.max_refresh_listeners', scope: 'index', dynamic: true, defaultValue: 1000, parse: int('index.max_refresh_listeners', 0) }),
  setting({ key: 'index.highlight.max_analyzed_offset', scope: 'index', dynamic: true, defaultValue: 1000000, parse: int('index.highlight.max_analyzed_offset', 1) }),
  setting({ key: 'index.hidden', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.hidden') }),
  setting({ key: 'index.codec', scope: 'index', dynamic: false, defaultValue: 'default', parse: SettingParsers.oneOf('index.codec', ['default', 'best_compression', 'legacy_default', 'legacy_best_compression', 'lucene_default']) }),
  setting({ key: 'index.analysis', scope: 'index', dynamic: false, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.similarity', scope: 'index', dynamic: false, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.mapping.total_fields.limit', scope: 'index', dynamic: true, defaultValue: 1000, parse: int('index.mapping.total_fields.limit', 0) }),
  setting({ key: 'index.mapping.total_fields.ignore_dynamic_beyond_limit', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.mapping.total_fields.ignore_dynamic_beyond_limit') }),
  setting({ key: 'index.mapping.depth.limit', scope: 'index', dynamic: true, defaultValue: 20, parse: int('index.mapping.depth.limit', 1) }),
  setting({ key: 'index.mapping.nested_fields.limit', scope: 'index', dynamic: true, defaultValue: 50, parse: int('index.mapping.nested_fields.limit', 0) }),
  setting({ key: 'index.mapping.nested_objects.limit', scope: 'index', dynamic: true, defaultValue: 10000, parse: int('index.mapping.nested_objects.limit', 0) }),
  setting({ key: 'index.mapping.field_name_length.limit', scope: 'index', dynamic: true, defaultValue: Number.MAX_SAFE_INTEGER, parse: int('index.mapping.field_name_length.limit', 1) }),
  setting({ key: 'index.mapping.dimension_fields.limit', scope: 'index', dynamic: true, defaultValue: 32768, parse: int('index.mapping.dimension_fields.limit', 0) }),
  setting({ key: 'index.mapping.ignore_malformed', scope: 'index', dynamic: false, defaultValue: false, parse: bool('index.mapping.ignore_malformed') }),
  setting({ key: 'index.mapping.coerce', scope: 'index', dynamic: false, defaultValue: true, parse: bool('index.mapping.coerce') }),
  setting({ key: 'index.blocks.read_only', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.blocks.read_only') }),
  setting({ key: 'index.blocks.read_only_allow_delete', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.blocks.read_only_allow_delete') }),
  setting({ key: 'index.blocks.read', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.blocks.read') }),
  setting({ key: 'index.blocks.write', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.blocks.write') }),
  setting({ key: 'index.blocks.metadata', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.blocks.metadata') }),
  setting({ key: 'index.auto_expand_replicas', scope: 'index', dynamic: true, defaultValue: 'false', parse: autoExpand }),
  setting({ key: 'index.priority', scope: 'index', dynamic: true, defaultValue: 1, parse: int('index.priority', 0) }),
  setting({ key: 'index.routing', scope: 'index', dynamic: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.query.default_field', scope: 'index', dynamic: true, defaultValue: ['*'], parse: stringList('index.query.default_field') }),
  setting({ key: 'index.query_string.lenient', scope: 'index', dynamic: true, defaultValue: false, parse: bool('index.query_string.lenient') }),
  setting({ key: 'index.sort', scope: 'index', dynamic: false, finalSetting: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.search.slowlog', scope: 'index', dynamic: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.indexing.slowlog', scope: 'index', dynamic: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.merge', scope: 'index', dynamic: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.store', scope: 'index', dynamic: false, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'index.unassigned.node_left.delayed_timeout', scope: 'index', dynamic: true, defaultValue: '1m', parse: SettingParsers.string() }),
  setting({ key: 'index.write.wait_for_active_shards', scope: 'index', dynamic: true, defaultValue: '1', parse: SettingParsers.string() }),
  setting({ key: 'index.shard.check_on_startup', scope: 'index', dynamic: false, defaultValue: 'false', parse: SettingParsers.string() }),
  setting({ key: 'index.load_fixed_bitset_filters_eagerly', scope: 'index', dynamic: false, defaultValue: true, parse: bool('index.load_fixed_bitset_filters_eagerly') }),
  setting({ key: 'index.format', scope: 'index', dynamic: false, defaultValue: 0, parse: int('index.format', 0) }),
  setting({ key: 'index.verified_before_close', scope: 'index', dynamic: false, defaultValue: false, parse: bool('index.verified_before_close') }),
  ...PRIVATE_INDEX_SETTINGS.map((key) => setting({ key, scope: 'index', dynamic: false, defaultValue: undefined, parse: any })),
];

export const CORE_CLUSTER_SETTINGS: readonly SettingDef[] = [
  setting({ key: 'action.destructive_requires_name', scope: 'cluster', dynamic: true, defaultValue: true, parse: bool('action.destructive_requires_name') }),
  setting({ key: 'cluster.max_shards_per_node', scope: 'cluster', dynamic: true, defaultValue: 1000, parse: int('cluster.max_shards_per_node', 1) }),
  setting({ key: 'cluster.blocks.read_only', scope: 'cluster', dynamic: true, defaultValue: false, parse: bool('cluster.blocks.read_only') }),
  setting({ key: 'cluster.blocks.read_only_allow_delete', scope: 'cluster', dynamic: true, defaultValue: false, parse: bool('cluster.blocks.read_only_allow_delete') }),
  setting({ key: 'cluster.routing.allocation', scope: 'cluster', dynamic: true, prefix: true, defaultValue: undefined, parse: any }),
  setting({ key: 'cluster.indices.close.enable', scope: 'cluster', dynamic: true, defaultValue: true, parse: bool('cluster.indices.close.enable') }),
];
