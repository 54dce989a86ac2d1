/** Builds the QueryParseContext for one concrete index (or a syntax-only context without an index). */
import type { Analyzer } from '../analysis/analyzer.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { NestedLookup } from '../mapper/mapping.js';
import type { Query } from '../search/query.js';
import type { QueryParseContext, QueryParserRegistry } from './query-parser.js';

export interface ParseContextDeps {
  registry: QueryParserRegistry;
  index?: IndexMetadata;
  fieldType(index: IndexMetadata, name: string): MappedFieldType | undefined;
  matchingFieldNames(index: IndexMetadata, pattern: string): string[];
  analyzer?(name: string, indexSettings?: Record<string, unknown>): Analyzer | undefined;
  /** the nested fields of the index mapping */
  nestedLookup?(index: IndexMetadata): NestedLookup;
  nowMillis: number;
}

export interface ParseContextHandle extends QueryParseContext {
  readonly nowUsed: boolean;
}

export function createParseContext(deps: ParseContextDeps): ParseContextHandle {
  let nowUsed = false;
  const idx = deps.index;
  const ftCache = new Map<string, MappedFieldType | undefined>();
  const named = new Map<string, Query>();
  const scope: string[] = [];
  let nested: NestedLookup | undefined;
  const ctx: ParseContextHandle = {
    namedQueries: named,
    get nowUsed() {
      return nowUsed;
    },
    index: idx,
    indexName: idx?.name ?? '_na_',
    parseInnerQuery(json: unknown): Query {
      return deps.registry.parse(json, ctx);
    },
    fieldType(name: string) {
      if (!idx) return undefined;
      if (ftCache.has(name)) return ftCache.get(name);
      const ft = deps.fieldType(idx, name);
      ftCache.set(name, ft);
      return ft;
    },
    matchingFieldNames(pattern: string) {
      return idx ? deps.matchingFieldNames(idx, pattern) : [];
    },
    nowMillis() {
      return deps.nowMillis;
    },
    markNowUsed() {
      nowUsed = true;
    },
    analyzer(name: string) {
      return deps.analyzer?.(name, idx?.settings);
    },
    get nestedLookup() {
      nested ??= idx && deps.nestedLookup ? deps.nestedLookup(idx) : NestedLookup.EMPTY;
      return nested;
    },
    nestedScope() {
      return scope[scope.length - 1];
    },
    withNestedScope<T>(path: string, fn: () => T): T {
      scope.push(path);
      try {
        return fn();
      } finally {
        scope.pop();
      }
    },
    defaultFields() {
      const v = idx?.settings['index.query.default_field'];
      if (v === undefined || v === null) return ['*'];
      return Array.isArray(v) ? v.map(String) : String(v).split(',');
    },
  };
  return ctx;
}
