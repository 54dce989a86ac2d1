/**
 * Data streams as they live in cluster metadata (`custom.data_stream`, name → DataStreamMetadata), with
 * Elasticsearch's backing index naming and the helpers every part of the feature reads them with.
 */
import { DateFormatter } from '@strata/core-common';
import { DATA_STREAM_TIMESTAMP_FIELD, type ClusterMetadata } from '@strata/core-engine';
import { isObj, type Json } from '../util.js';

export const DATA_STREAM_SECTION = 'data_stream';
/** the field every document of a data stream holds (core's backing-index mappings check it as documents are parsed) */
export const TIMESTAMP_FIELD = DATA_STREAM_TIMESTAMP_FIELD;

export interface BackingIndex {
  index_name: string;
  index_uuid: string;
}

export interface DataStreamLifecycle {
  enabled?: boolean;
  /** time value as given (`7d`) */
  data_retention?: string;
}

export interface DataStreamMetadata {
  name: string;
  timestamp_field: { name: string };
  /** oldest first; the last one is the write index */
  indices: BackingIndex[];
  generation: number;
  _meta?: Json;
  hidden: boolean;
  system: boolean;
  replicated: boolean;
  allow_custom_routing: boolean;
  /** lazy rollover pending: the next write rolls the stream over first */
  rollover_on_write?: boolean;
  lifecycle?: DataStreamLifecycle;
}

export function dataStreams(md: ClusterMetadata): Record<string, DataStreamMetadata> {
  const s = md.custom[DATA_STREAM_SECTION];
  return isObj(s) ? (s as unknown as Record<string, DataStreamMetadata>) : {};
}

/** the mutable section of a draft */
export function draftDataStreams(d: ClusterMetadata): Record<string, DataStreamMetadata> {
  if (!isObj(d.custom[DATA_STREAM_SECTION])) d.custom[DATA_STREAM_SECTION] = {};
  return d.custom[DATA_STREAM_SECTION] as unknown as Record<string, DataStreamMetadata>;
}

export function writeIndexOf(ds: DataStreamMetadata): string {
  return ds.indices[ds.indices.length - 1].index_name;
}

/** the data stream a (backing) index belongs to */
export function parentDataStream(md: ClusterMetadata, index: string): DataStreamMetadata | undefined {
  for (const ds of Object.values(dataStreams(md))) if (ds.indices.some((b) => b.index_name === index)) return ds;
  return undefined;
}

/** `.ds-<stream>-<yyyy.MM.dd>-<generation, 6 digits>` (ES DataStream.getDefaultBackingIndexName) */
export function backingIndexName(stream: string, generation: number, epochMillis: number): string {
  const date = DateFormatter.of('yyyy.MM.dd').format(epochMillis);
  return `.ds-${stream}-${date}-${String(generation).padStart(6, '0')}`;
}
