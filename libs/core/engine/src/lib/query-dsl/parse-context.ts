/** Builds the QueryParseContext for one concrete index (or a syntax-only context without an index). */
import { wildcardRegExp, type ScriptService } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import type { DirectoryReader } from '../index/leaf-reader.js';
import { RuntimeDirectoryReader } from '../script/runtime-fields.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { NestedLookup } from '../mapper/mapping.js';
import type { Query } from '../search/query.js';
import type { InnerHitsDefinition } from '../search/inner-hits.js';
import { Errors } from '@strata/core-common';
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
  scripts?: ScriptService;
  /** runtime fields of the request (`runtime_mappings`), shadowing the index's */
  runtimeFields?: ReadonlyMap<string, MappedFieldType>;
  /** whether the index mapping has runtime fields */
  hasMappingRuntime?(index: IndexMetadata): boolean;
}

export interface ParseContextHandle extends QueryParseContext {
  readonly nowUsed: boolean;
  /** the reader searches of this context use: one that also serves runtime fields when there are any */
  wrapReader(reader: DirectoryReader): DirectoryReader;
}

export function createParseContext(deps: ParseContextDeps): ParseContextHandle {
  let nowUsed = false;
  const idx = deps.index;
  const ftCache = new Map<string, MappedFieldType | undefined>();
  const named = new Map<string, Query>();
  const scope: string[] = [];
  const topInnerHits: InnerHitsDefinition[] = [];
  let innerHitsScope: InnerHitsDefinition[] = topInnerHits;
  let nested: NestedLookup | undefined;
  const runtime = deps.runtimeFields;
  const wrapped = new WeakMap<DirectoryReader, DirectoryReader>();
  const ctx: ParseContextHandle = {
    scripts: deps.scripts,
    wrapReader(reader: DirectoryReader): DirectoryReader {
      if (!(runtime && runtime.size > 0) && !(idx && deps.hasMappingRuntime?.(idx))) return reader;
      let w = wrapped.get(reader);
      if (!w) {
        w = new RuntimeDirectoryReader(reader, (n) => ctx.fieldType(n));
        wrapped.set(reader, w);
      }
      return w;
    },
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
      const ft = runtime?.get(name) ?? deps.fieldType(idx, name);
      ftCache.set(name, ft);
      return ft;
    },
    matchingFieldNames(pattern: string) {
      const mapped = idx ? deps.matchingFieldNames(idx, pattern) : [];
      if (!runtime || runtime.size === 0) return mapped;
      const re = wildcardRegExp(pattern);
      const extra = [...runtime.keys()].filter((n) => (pattern.includes('*') ? re.test(n) : n === pattern) && runtime.get(n)!.runtime?.type !== 'composite');
      return [...new Set([...mapped, ...extra])].sort();
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
    get innerHits() {
      return topInnerHits;
    },
    addInnerHits(def: InnerHitsDefinition) {
      if (innerHitsScope.some((d) => d.name === def.name)) throw Errors.illegalArgument(`[inner_hits] already contains an entry for key [${def.name}]`);
      innerHitsScope.push(def);
    },
    collectInnerHits<T>(fn: () => T) {
      const saved = innerHitsScope;
      const mine: InnerHitsDefinition[] = [];
      innerHitsScope = mine;
      try {
        return { result: fn(), innerHits: mine };
      } finally {
        innerHitsScope = saved;
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
