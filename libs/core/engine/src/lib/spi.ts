/**
 * Extension-point contracts that involve engine types. Tokens are in @strata/core-common ExtensionPoints.
 */
import type { EsError, IndicesOptions } from '@strata/core-common';
import type { ClusterMetadata, IndexMetadata } from './cluster/metadata.js';

// ---------------------------------------------------------------- write path

/** A single-document write request as it enters the write path (REST index/create, _bulk index/create items, update upserts). */
export interface IndexRequest {
  /** the target as given (index, alias or data stream name); interceptors may rewrite it */
  index: string;
  id?: string;
  routing?: string;
  opType: 'index' | 'create';
  /** parsed _source; interceptors may replace it */
  source: Record<string, unknown>;
  /** `?pipeline=` / bulk item `pipeline` */
  pipeline?: string;
  version?: number;
  versionType?: 'internal' | 'external' | 'external_gte';
  ifSeqNo?: number;
  ifPrimaryTerm?: number;
  requireAlias?: boolean;
  requireDataStream?: boolean;
  /** free-form per-request state (e.g. which pipelines already ran) */
  attributes: Record<string, unknown>;
}

/**
 * IndexRequest attribute an interceptor sets (to true) when it runs an ingest pipeline on the request, even
 * if the pipeline then fails or drops the document: the `_bulk` response then reports `ingest_took`.
 */
export const INGEST_PIPELINE_RAN = 'ingest.pipeline_ran';

export type InterceptResult =
  | { kind: 'continue'; request: IndexRequest }
  | { kind: 'drop' }
  | { kind: 'fail'; error: EsError };

export interface IndexRequestContext {
  /** metadata of a concrete index, if it exists */
  indexMetadata(name: string): IndexMetadata | undefined;
  /** whether the target names an existing index, alias or data stream */
  exists(name: string): boolean;
}

/**
 * Runs before a document is routed and parsed (ingest ~100, data-streams ~200). An interceptor that has nothing
 * to wait for answers synchronously: a bulk asks every interceptor for every document, and a promise per
 * document and interceptor is event-loop time taken from the bulk.
 */
export interface IndexRequestInterceptor {
  readonly name: string;
  readonly order: number;
  intercept(request: IndexRequest, ctx: IndexRequestContext): InterceptResult | Promise<InterceptResult>;
}

// ---------------------------------------------------------------- index name resolution

/** the one definition lives in core-common (parsed there by indicesOptionsFromParams) */
export type { IndicesOptions } from '@strata/core-common';

/** Lets a feature (data streams) resolve names the core does not know. */
export interface IndexNameResolver {
  readonly order: number;
  /**
   * Returns the concrete indices for `name` (a single expression without commas; may contain wildcards),
   * or undefined when this resolver does not own the name.
   */
  resolve(name: string, options: IndicesOptions, purpose: 'read' | 'write'): string[] | undefined;
  /** all names this resolver can expand wildcards against (e.g. data stream names) */
  names?(): string[];
  /** true when `name` is a data stream this resolver owns (writes other than op_type create are refused) */
  isDataStream?(name: string): boolean;
  /** the data streams this resolver owns, for listings (`_resolve/index`) */
  dataStreams?(): DataStreamDescription[];
}

export interface DataStreamDescription {
  name: string;
  /** oldest first; the last is the write index */
  backingIndices: string[];
  timestampField: string;
  hidden: boolean;
}

// ---------------------------------------------------------------- metadata participants

/** Takes part in metadata changes the core makes (ExtensionPoints.MetadataParticipant). */
export interface MetadataParticipant {
  readonly name: string;
  /**
   * Called inside the atomic metadata update that removes `names` (DELETE index, alias remove_index):
   * throw an EsError to refuse the deletion, or adjust `draft` (e.g. drop backing indices from a stream).
   */
  onDeleteIndices?(names: readonly string[], draft: ClusterMetadata): void;
}

// ---------------------------------------------------------------- engine events

export interface EngineEventListener {
  onRefresh?(index: string, shard: number, generation: number): void;
  onMappingUpdate?(index: string, mappingVersion: number): void;
  onIndexDeleted?(index: string, uuid: string): void;
  onIndexCreated?(index: string, uuid: string): void;
}
