/**
 * DI wiring of search: the QueryParserRegistry (built-in clauses registered through
 * ExtensionPoints.QueryParser like any feature's), the SearchService and the search settings.
 */
import { availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { ContainerModule } from 'inversify';
import { ExtensionPoints, SettingParsers, memorySizeSetting, parseMemorySize, setting, TaskManager, Tokens, type HostConfig, type SettingDef, type SettingsRegistry } from '@strata/core-common';
import { PainlessScriptService } from '@strata/core-painless';
import { EngineTokens } from './services.js';
import type { MetadataStore } from './cluster/metadata.js';
import { BUILTIN_QUERY_PARSERS } from './query-dsl/builtin-parsers.js';
import { QueryParserRegistry, type QueryParser } from './query-dsl/query-parser.js';
import { SearchService } from './action/search/search-service.js';
import { MaxClauseCount } from './search/boolean-query.js';
import { NODE_FILTER_CACHE } from './search/filter-cache.js';

/** search-owned settings (index.max_result_window is registered with the core index settings) */
/** search.max_buckets: the most buckets one search may build (too_many_buckets_exception past it) */
export const MAX_BUCKETS_SETTING = setting({
  key: 'search.max_buckets',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 65536,
  parse: SettingParsers.int('search.max_buckets', 0),
});

/** script.max_compilations_rate: dynamic compilations allowed per window ("150/5m", "unlimited", "use-context" = 150/5m) */
export const MAX_COMPILATIONS_RATE_SETTING = setting({
  key: 'script.max_compilations_rate',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 'use-context',
  parse: (raw: unknown): string => {
    const v = String(raw);
    if (v !== 'unlimited' && v !== 'use-context' && !/^\d+\/\d+(ms|s|m|h|d)$/.test(v)) {
      throw new Error(`failed to parse [${v}]`);
    }
    return v;
  },
});
/** script.painless.regex.enabled: true, false or limited (the default: regexes are allowed) */
export const REGEX_ENABLED_SETTING = setting({
  key: 'script.painless.regex.enabled',
  scope: 'node',
  dynamic: false,
  defaultValue: 'limited',
  parse: SettingParsers.oneOf('script.painless.regex.enabled', ['true', 'false', 'limited']),
});
/** script.cache.max_size: compiled scripts kept */
export const SCRIPT_CACHE_SIZE_SETTING = setting({
  key: 'script.cache.max_size',
  scope: 'node',
  dynamic: false,
  defaultValue: 3000,
  parse: SettingParsers.int('script.cache.max_size', 0),
});

/** indices.query.max_nested_depth: how deep queries may nest (bool in bool in ...) */
export const MAX_NESTED_DEPTH_SETTING = setting({
  key: 'indices.query.max_nested_depth',
  scope: 'node',
  dynamic: false,
  defaultValue: 30,
  parse: SettingParsers.int('indices.query.max_nested_depth', 1),
});
/** indices.query.bool.max_clause_count: Lucene's max clause count (by default derived from heap and search pool) */
export const MAX_CLAUSE_COUNT_SETTING = setting({
  key: 'indices.query.bool.max_clause_count',
  scope: 'node',
  dynamic: false,
  defaultValue: defaultMaxClauseCount(),
  parse: SettingParsers.int('indices.query.bool.max_clause_count', 1),
});

/**
 * Elasticsearch 8's default max clause count: 64K clauses per GB of heap shared by the search pool
 * (cores * 3 / 2 + 1 threads), at least 1024.
 */
export function defaultMaxClauseCount(): number {
  const heapGb = Math.floor(getHeapStatistics().heap_size_limit / 1024 ** 3);
  const pool = Math.floor((availableParallelism() * 3) / 2) + 1;
  return Math.max(1024, Math.floor((heapGb * 64 * 1024) / (Math.floor((pool * 3) / 2) + 1)));
}

/** indices.queries.cache.size: the node's filter cache (doc sets of filters per segment), 10% of the heap by default */
export const QUERIES_CACHE_SIZE_SETTING = memorySizeSetting('indices.queries.cache.size', '10%', { scope: 'node', dynamic: false });
/** indices.queries.cache.count: entries of the node's filter cache at most */
export const QUERIES_CACHE_COUNT_SETTING = setting({
  key: 'indices.queries.cache.count',
  scope: 'node',
  dynamic: false,
  defaultValue: 10000,
  parse: SettingParsers.int('indices.queries.cache.count', 1),
});

export const SEARCH_SETTINGS: readonly SettingDef[] = [
  QUERIES_CACHE_SIZE_SETTING as SettingDef,
  QUERIES_CACHE_COUNT_SETTING as SettingDef,
  MAX_NESTED_DEPTH_SETTING as SettingDef,
  MAX_CLAUSE_COUNT_SETTING as SettingDef,
  MAX_BUCKETS_SETTING as SettingDef,
  MAX_COMPILATIONS_RATE_SETTING as SettingDef,
  REGEX_ENABLED_SETTING as SettingDef,
  SCRIPT_CACHE_SIZE_SETTING as SettingDef,
];

export const searchModule = new ContainerModule((options) => {
  for (const p of BUILTIN_QUERY_PARSERS) options.bind(ExtensionPoints.QueryParser).toConstantValue(p);
  options
    .bind(EngineTokens.QueryParserRegistry)
    .toDynamicValue((ctx) => {
      const registry = new QueryParserRegistry(ctx.getAll<QueryParser>(ExtensionPoints.QueryParser, { optional: true }) ?? []);
      const node = ctx.get<HostConfig>(Tokens.HostConfig, { optional: true })?.settings ?? {};
      const depth = node[MAX_NESTED_DEPTH_SETTING.key];
      if (depth !== undefined) registry.maxNestedDepth = MAX_NESTED_DEPTH_SETTING.parse(depth);
      const clauses = node[MAX_CLAUSE_COUNT_SETTING.key];
      MaxClauseCount.value = clauses === undefined ? MAX_CLAUSE_COUNT_SETTING.defaultValue : MAX_CLAUSE_COUNT_SETTING.parse(clauses);
      const cacheSize = node[QUERIES_CACHE_SIZE_SETTING.key] ?? QUERIES_CACHE_SIZE_SETTING.defaultValue;
      const cacheCount = node[QUERIES_CACHE_COUNT_SETTING.key];
      NODE_FILTER_CACHE.configure(
        parseMemorySize(cacheSize, QUERIES_CACHE_SIZE_SETTING.key),
        cacheCount === undefined ? QUERIES_CACHE_COUNT_SETTING.defaultValue : QUERIES_CACHE_COUNT_SETTING.parse(cacheCount),
      );
      return registry;
    })
    .inSingletonScope();
  options
    .bind(Tokens.ScriptService)
    .toDynamicValue((ctx) => {
      const host = ctx.get<HostConfig>(Tokens.HostConfig, { optional: true });
      const node = host?.settings ?? {};
      const svc = new PainlessScriptService({
        regexEnabled: String(node['script.painless.regex.enabled'] ?? 'limited') !== 'false',
        cacheMaxSize: Number(node['script.cache.max_size'] ?? 3000),
        maxCompilationsRate: String(node['script.max_compilations_rate'] ?? 'use-context'),
      });
      const store = ctx.get<MetadataStore>(EngineTokens.MetadataStore, { optional: true });
      if (store) {
        svc.setStoredScriptLookup((id) => {
          const all = store.current().custom['stored_scripts'] as Record<string, { lang: string; source: string }> | undefined;
          return all && Object.prototype.hasOwnProperty.call(all, id) ? all[id] : undefined;
        });
      }
      const registry = ctx.get<SettingsRegistry>(Tokens.SettingsRegistry, { optional: true });
      registry?.onUpdate('script.max_compilations_rate', (v) => svc.setMaxCompilationsRate(v === null || v === undefined ? 'use-context' : String(v)));
      return svc;
    })
    .inSingletonScope();
  options.bind(Tokens.TaskManager).toConstantValue(new TaskManager());
  options.bind(SearchService).toSelf().inSingletonScope();
  options.bind(EngineTokens.SearchService).toService(SearchService);
  for (const s of SEARCH_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
