import { SettingParsers, setting, type SettingDef } from '@strata/core-common';

/**
 * Dynamic cluster settings that tools commonly set and that have no effect on a single embedded
 * node; accepted (validated, stored, reported) so that such PUT /_cluster/settings calls succeed.
 */
export const COMPAT_CLUSTER_SETTINGS: readonly SettingDef[] = [
  setting({
    key: 'indices.recovery.max_bytes_per_sec',
    scope: 'cluster',
    dynamic: true,
    defaultValue: 40 * 1024 * 1024,
    defaultRaw: '40mb',
    parse: SettingParsers.bytes('indices.recovery.max_bytes_per_sec'),
  }),
  setting({
    key: 'cluster.routing.rebalance.enable',
    scope: 'cluster',
    dynamic: true,
    defaultValue: 'all',
    parse: SettingParsers.oneOf('cluster.routing.rebalance.enable', ['all', 'primaries', 'replicas', 'none']),
  }),
  setting({
    key: 'search.default_search_timeout',
    scope: 'cluster',
    dynamic: true,
    defaultValue: -1,
    parse: SettingParsers.time('search.default_search_timeout'),
  }),
  setting({
    key: 'search.allow_expensive_queries',
    scope: 'cluster',
    dynamic: true,
    defaultValue: true,
    parse: SettingParsers.boolean('search.allow_expensive_queries'),
  }),
  setting({
    key: 'xpack.monitoring.collection.enabled',
    scope: 'cluster',
    dynamic: true,
    defaultValue: false,
    parse: SettingParsers.boolean('xpack.monitoring.collection.enabled'),
  }),
  setting({
    key: 'cluster.info.update.interval',
    scope: 'cluster',
    dynamic: true,
    defaultValue: 30_000,
    defaultRaw: '30s',
    parse: SettingParsers.time('cluster.info.update.interval'),
  }),
  // logger.<package> levels (`logger.org.elasticsearch.discovery: DEBUG`)
  setting({
    key: 'logger',
    scope: 'cluster',
    dynamic: true,
    prefix: true,
    defaultValue: '',
    parse: SettingParsers.oneOf('logger', ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'OFF', 'trace', 'debug', 'info', 'warn', 'error', 'off']),
  }),
];
