/**
 * CONTRACT: the engine services, their DI tokens and the minimal interfaces other slices rely on.
 * Owners extend these interfaces (adding members is fine; changing or removing members needs every
 * consumer to keep compiling).
 */
import type { DirectoryReader } from './index/leaf-reader.js';
import type { ClusterMetadata, IndexMetadata, MetadataStore } from './cluster/metadata.js';
import type { MappedFieldType } from './mapper/mapped-field-type.js';
import type { ParseResult } from './mapper/parsed-document.js';
import type { NestedLookup } from './mapper/mapping.js';
import type { Analyzer } from './analysis/analyzer.js';
import type { IndicesOptions } from './spi.js';

export const EngineTokens = {
  MetadataStore: Symbol.for('strata.engine.MetadataStore'),
  MapperService: Symbol.for('strata.engine.MapperService'),
  AnalysisRegistry: Symbol.for('strata.engine.AnalysisRegistry'),
  IndexNameExpressionResolver: Symbol.for('strata.engine.IndexNameExpressionResolver'),
  MetadataIndexService: Symbol.for('strata.engine.MetadataIndexService'),
  IndicesService: Symbol.for('strata.engine.IndicesService'),
  DocumentService: Symbol.for('strata.engine.DocumentService'),
  SearchService: Symbol.for('strata.engine.SearchService'),
  QueryParserRegistry: Symbol.for('strata.engine.QueryParserRegistry'),
  /** ThreadPool (threadpool/thread-pool.ts): the bounded write and search executors */
  ThreadPool: Symbol.for('strata.engine.ThreadPool'),
  /** IndexingPressure (threadpool/indexing-pressure.ts): bytes of writes in flight, `indexing_pressure.memory.limit` */
  IndexingPressure: Symbol.for('strata.engine.IndexingPressure'),
  /** DiskUsageProbe (cluster/disk-threshold-monitor.ts): total/available bytes of path.data */
  DiskUsageProbe: Symbol.for('strata.engine.DiskUsageProbe'),
} as const;

export type { MetadataStore };

// ------------------------------------------------------------------ mapping (owner: mapper)

export interface DocumentMapper {
  /**
   * parses _source into indexable fields; dynamic mapping yields `dynamicMappingUpdate`.
   * `rawSource` (optional): the original JSON text/bytes of the source; stored as-is as `_source` when the
   * mapping has no `_source` includes/excludes (saves re-serialising, and keeps the client's formatting like ES).
   */
  parse(source: Record<string, unknown>, id: string, routing?: string, rawSource?: string | Uint8Array): ParseResult;
}

export interface MapperService {
  /** validates a mappings body (index creation / templates) and returns it normalised; throws mapper_parsing_exception */
  parseMappings(mappings: unknown, indexSettings: Record<string, unknown>): Record<string, unknown>;
  /** merges an update into existing mappings; throws illegal_argument_exception on conflicts */
  merge(existing: Record<string, unknown>, update: unknown, indexSettings: Record<string, unknown>): Record<string, unknown>;
  /** the document mapper of the index at its current mapping version (cached per version) */
  documentMapper(index: IndexMetadata): DocumentMapper;
  /**
   * whether a parse thread, which knows only the built-in field types, parses this index's documents as
   * `documentMapper` does (no field of a plugin's type); absent: never
   */
  parsableInThread?(index: IndexMetadata): boolean;
  /** the search-time field type (handles multi-fields `a.keyword`, object paths, runtime section later) */
  fieldType(index: IndexMetadata, field: string): MappedFieldType | undefined;
  /** concrete mapped leaf field names matching a pattern with `*` wildcards */
  matchingFieldNames(index: IndexMetadata, pattern: string): string[];
  /** the `nested` fields of the index mapping (ES NestedLookup) */
  nestedLookup?(index: IndexMetadata): NestedLookup;
  /** field types of a request's `runtime_mappings` (scripts compiled); throws on a bad definition */
  runtimeFieldTypes?(index: IndexMetadata | undefined, defs: Record<string, unknown>, where?: 'request' | 'aggregation'): Map<string, MappedFieldType>;
  /** whether the index mapping declares runtime fields */
  hasRuntimeFields?(index: IndexMetadata): boolean;
}

export interface AnalysisRegistry {
  /** built-in (standard, simple, whitespace, keyword, stop, ...) or custom from index settings */
  analyzer(name: string, indexSettings?: Record<string, unknown>): Analyzer | undefined;
  /** keyword normalizer (lowercase, asciifolding, custom from settings) */
  normalizer(name: string, indexSettings?: Record<string, unknown>): Analyzer | undefined;
}

// ------------------------------------------------------------------ names (owner: cluster metadata)

export interface IndexNameExpressionResolver {
  /**
   * Resolves a target expression (comma list, wildcards, `-exclusions`, `_all`, aliases, data streams via
   * IndexNameResolver contributions) to concrete open index names, honouring IndicesOptions and
   * throwing index_not_found_exception like Elasticsearch.
   */
  concreteIndices(expression: string | string[] | undefined, options: IndicesOptions, purpose?: 'read' | 'write'): string[];
  /** the single concrete index a write to `name` goes to (alias with write index, data stream write index) */
  writeIndex(name: string): string | undefined;
  /**
   * The alias filter query to apply when searching `index` through `expression` (undefined: no filter), as ES
   * does for filtered aliases; `{bool:{should:[...]}}` when several filtered aliases lead to the index.
   */
  aliasFilter?(index: string, expression: string | string[] | undefined): Record<string, unknown> | undefined;
  /** search routing values imposed by aliases in `expression` on `index`, if any */
  aliasSearchRouting?(index: string, expression: string | string[] | undefined): string[] | undefined;
  /** true when `name` is a data stream (through the IndexNameResolver contributions) */
  isDataStream?(name: string): boolean;
  /** the data stream (a name an IndexNameResolver owns) `index` is a backing index of, if any */
  dataStreamOf?(index: string): string | undefined;
}

// ------------------------------------------------------------------ index metadata changes (owner: cluster metadata)

export interface CreateIndexRequest {
  settings?: unknown;
  mappings?: unknown;
  aliases?: unknown;
}

/** Options of MetadataIndexService.createIndex for the features that create indices (data streams, restore, shrink). */
export interface CreateIndexOptions {
  /** match templates against this name instead of the index's (a data stream's backing indices use the stream's) */
  templateName?: string;
  /** creating a data stream backing index: a data-stream template may apply (it refuses plain indices) */
  dataStreamBackingIndex?: boolean;
  /** apply no template (restore, shrink and mount copy a source index's metadata) */
  skipTemplates?: boolean;
  /** private settings (index.resize.source.*, ...) set by the engine itself, not validated as user input */
  privateSettings?: Record<string, unknown>;
  /** feature-owned per-index state (IndexMetadata.custom) */
  custom?: Record<string, Record<string, unknown>>;
  /** creation date of the index (a restored index keeps its source's) */
  creationDate?: number;
  /** primary terms per shard (restored indices continue their source's terms) */
  primaryTerms?: number[];
  /**
   * Fills the shard directories of the new index (uuid given) before it is published: its shards then
   * recover from those files (restore, shrink, mount). A failure aborts the creation and removes them.
   */
  populate?(uuid: string): Promise<void> | void;
  /** more changes made in the same atomic metadata update (a data stream's new generation, an alias swap) */
  apply?(draft: ClusterMetadata, created: IndexMetadata): void;
}

export interface DeleteIndicesOptions {
  /** more changes made in the same atomic metadata update, before MetadataParticipants are consulted */
  apply?(draft: ClusterMetadata): void;
}

/**
 * Every change of index metadata goes through here (validated, then persisted via MetadataStore).
 * The storage engine's IndicesService reacts to MetadataStore.onChange: it opens shards of new indices
 * and deletes the data of removed ones (like ES's IndicesClusterStateService).
 */
export interface MetadataIndexService {
  /** validates name, settings (SettingsRegistry, scope index), mappings (MapperService), aliases; applies templates if any */
  createIndex(name: string, request: CreateIndexRequest, cause?: string, options?: CreateIndexOptions): Promise<IndexMetadata>;
  deleteIndices(names: string[], options?: DeleteIndicesOptions): Promise<void>;
  /** merges a mapping update into the indices (PUT _mapping and dynamic updates); bumps mappingVersion when changed */
  putMapping(indices: string[], mapping: unknown): Promise<void>;
  /** validates and applies (dynamic) settings; bumps settingsVersion */
  updateSettings(indices: string[], settings: unknown): Promise<void>;
}

// ------------------------------------------------------------------ shards (owner: storage engine)

export interface IndexShard {
  readonly index: string;
  readonly indexUuid: string;
  readonly shardId: number;
  /** the current searchable reader, incRef'ed: callers must decRef() when done */
  acquireReader(): DirectoryReader;
  refresh(reason?: string): Promise<void>;
  /** search statistics (`indices.search` of _stats): a query / fetch / suggest phase starts on the shard */
  searchPhaseStarted?(phase: 'query' | 'fetch' | 'suggest'): void;
  /** the phase ended after `nanos`; only completed phases count in the totals */
  searchPhaseEnded?(phase: 'query' | 'fetch' | 'suggest', nanos: number, completed: boolean): void;
  /** a reader context (scroll or point in time) holds the shard */
  readerContextOpened?(scroll: boolean): void;
  /** a reader context released the shard after being open `openMillis` */
  readerContextFreed?(scroll: boolean, openMillis: number): void;
}

/** a shard of an open index that could not be opened (ES: an unassigned primary after ALLOCATION_FAILED) */
export interface ShardFailureInfo {
  index: string;
  indexUuid: string;
  shardId: number;
  /** the failure, e.g. `CorruptIndexException: segment checksum mismatch` */
  reason: string;
  /** its type as Elasticsearch names it, e.g. `corrupt_index_exception`, `index_format_too_old_exception` */
  type: string;
  /** epoch millis of the last attempt */
  at: number;
  failedAttempts: number;
}

/**
 * One segment of a shard as the segments APIs list it (Elasticsearch's `Segment`): of the shard's current reader
 * (`search`), of its last commit (`committed`), or both.
 */
export interface ShardSegment {
  /** `_0`, `_1a`, … */
  name: string;
  /** the number in the name, base 36 */
  generation: number;
  /** live documents at Lucene level: hidden nested documents count */
  numDocs: number;
  deletedDocs: number;
  /** the segment's files on disk; its size in memory while only in memory */
  sizeInBytes: number;
  committed: boolean;
  search: boolean;
}

/** the segments of one started shard, by generation */
export interface ShardSegments {
  shardId: number;
  segments: ShardSegment[];
}

export interface IndicesService {
  /** started shard handles of an open index (throws index_not_found_exception); failed shards are left out */
  shards(index: string): IndexShard[];
  indexMetadata(index: string): IndexMetadata;
  /** the shard of an open index; a shard that failed to open throws (503 no_shard_available_action_exception by default) */
  shard?(index: string, shardId: number, unavailable?: (failure: ShardFailureInfo) => Error): IndexShard;
  /** shards of open indices that failed to open (all indices when `index` is omitted) */
  shardFailures?(index?: string): ShardFailureInfo[];
  /** tries again to open failed shards; returns how many opened */
  retryFailedShards?(): number;
  /** the segments of each started shard of an open index (read-only: refreshes nothing) */
  indexSegments?(index: string): ShardSegments[];
}
