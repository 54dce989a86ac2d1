/**
 * CONTRACT (owned by cluster metadata; consumed by everything). Cluster metadata is one versioned,
 * immutable snapshot persisted atomically behind MetadataStore, so a shared store can replace it later.
 */
export interface AliasMetadata {
  filter?: Record<string, unknown>;
  index_routing?: string;
  search_routing?: string;
  is_write_index?: boolean;
  is_hidden?: boolean;
}

export interface IndexMetadata {
  name: string;
  uuid: string;
  /** flat, validated index settings with `index.` prefix; only explicitly set ones (defaults come from the registry) */
  settings: Record<string, unknown>;
  /** the mapping as Elasticsearch returns it under `mappings` (`{dynamic?, properties, runtime?, _source?, ...}`) */
  mappings: Record<string, unknown>;
  mappingVersion: number;
  settingsVersion: number;
  aliasesVersion: number;
  aliases: Record<string, AliasMetadata>;
  state: 'open' | 'close';
  numberOfShards: number;
  numberOfReplicas: number;
  creationDate: number;
  /** primary term per shard */
  primaryTerms: number[];
  /**
   * feature-owned per-index state that lives and dies with the index (ES IndexMetadata custom data):
   * `ilm` (lifecycle execution state), `rollover_info`, ...
   */
  custom?: Record<string, Record<string, unknown>>;
}

export interface ClusterMetadata {
  /** increments on every change */
  version: number;
  clusterUuid: string;
  indices: Record<string, IndexMetadata>;
  /** persistent cluster settings (flat) */
  persistentSettings: Record<string, unknown>;
  /** transient cluster settings (flat; not persisted across restarts) */
  transientSettings: Record<string, unknown>;
  /** feature-owned sections: `ingest` (pipelines), `index_template`, `component_template`, `ilm`, `security`, ... */
  custom: Record<string, unknown>;
}

export interface MetadataStore {
  /** the current snapshot (never mutate it) */
  current(): ClusterMetadata;
  /**
   * Applies fn to a draft copy and persists the result atomically (write temp, fsync, rename).
   * fn may throw to abort (nothing changes). Serialised: one update at a time.
   */
  update(fn: (draft: ClusterMetadata) => void): Promise<ClusterMetadata>;
  onChange(listener: (next: ClusterMetadata, prev: ClusterMetadata) => void): void;
}
