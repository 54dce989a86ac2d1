/**
 * DI wiring of search: the QueryParserRegistry (built-in clauses registered through
 * ExtensionPoints.QueryParser like any feature's), the SearchService and the search settings.
 */
import { ContainerModule } from 'inversify';
import { ExtensionPoints, SettingParsers, setting, type SettingDef } from '@strata/core-common';
import { EngineTokens } from './services.js';
import { BUILTIN_QUERY_PARSERS } from './query-dsl/builtin-parsers.js';
import { QueryParserRegistry, type QueryParser } from './query-dsl/query-parser.js';
import { SearchService } from './action/search/search-service.js';

/** search-owned settings (index.max_result_window is registered with the core index settings) */
/** search.max_buckets: the most buckets one search may build (too_many_buckets_exception past it) */
export const MAX_BUCKETS_SETTING = setting({
  key: 'search.max_buckets',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 65536,
  parse: SettingParsers.int('search.max_buckets', 0),
});

export const SEARCH_SETTINGS: readonly SettingDef[] = [MAX_BUCKETS_SETTING as SettingDef];

export const searchModule = new ContainerModule((options) => {
  for (const p of BUILTIN_QUERY_PARSERS) options.bind(ExtensionPoints.QueryParser).toConstantValue(p);
  options
    .bind(EngineTokens.QueryParserRegistry)
    .toDynamicValue((ctx) => new QueryParserRegistry(ctx.getAll<QueryParser>(ExtensionPoints.QueryParser, { optional: true }) ?? []))
    .inSingletonScope();
  options.bind(SearchService).toSelf().inSingletonScope();
  options.bind(EngineTokens.SearchService).toService(SearchService);
  for (const s of SEARCH_SETTINGS) options.bind(ExtensionPoints.Setting).toConstantValue(s);
});
