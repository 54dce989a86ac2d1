import { inject, injectable } from 'inversify';
import { Errors, INDICES_OPTIONS_PARAMS, indicesOptionsOf, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import type { IndexMetadata, ShardSegments } from '@strata/core-engine';
import { ClusterView } from './cluster-view.js';
import { humanize } from './human.js';
import { NODE_INFO, NodeInfo, VERSION } from './node-info.js';

/** the segments of the started shards of one open index, and how many shard copies the index has */
export interface IndexSegmentsListing {
  index: string;
  meta: IndexMetadata;
  /** primaries and replicas (unassigned ones included), as `_shards.total` counts them */
  copies: number;
  shards: ShardSegments[];
}

/**
 * The indices of a segments request (`_segments`, `_cat/segments`) and their segments. Elasticsearch resolves
 * them strictly, open only, closed forbidden: a closed index the expression reaches (named, or matched with
 * `expand_wildcards=closed`) fails with index_closed_exception, or is left out with `ignore_unavailable`.
 */
export function listSegments(cluster: ClusterView, req: RestRequest): IndexSegmentsListing[] {
  const options = indicesOptionsOf(req);
  const expression = req.optionalPathParam('index');
  const names = cluster.resolve(expression, { ...options, allowClosed: true });
  const out: IndexSegmentsListing[] = [];
  for (const index of names) {
    const meta = cluster.indexMetadata(index);
    if (!meta) continue;
    if (meta.state !== 'open') {
      if (options.ignoreUnavailable) continue;
      throw Errors.indexClosed(index, meta.uuid);
    }
    out.push({ index, meta, copies: meta.numberOfShards * (1 + cluster.effectiveReplicas(meta)), shards: cluster.indexSegments(index) ?? [] });
  }
  if (out.length === 0 && names.length > 0 && !options.allowNoIndices) throw Errors.indexNotFound(expression ?? '_all');
  return out;
}

/**
 * The segment attributes Elasticsearch 8.17 reports for an index's codec (its stored fields format and mode):
 * `default` is Lucene's BEST_SPEED stored fields, `best_compression` the zstd ones.
 */
export function codecAttributes(meta: IndexMetadata): Record<string, string> {
  switch (String(meta.settings['index.codec'] ?? 'default')) {
    case 'best_compression':
      return { 'Zstd814StoredFieldsFormat.mode': 'BEST_COMPRESSION' };
    case 'legacy_best_compression':
      return { 'Lucene90StoredFieldsFormat.mode': 'BEST_COMPRESSION' };
    default:
      return { 'Lucene90StoredFieldsFormat.mode': 'BEST_SPEED' };
  }
}

/** `GET /_segments`, `GET /{index}/_segments` (Elasticsearch's indices.segments) */
@injectable()
export class IndicesSegmentsRestHandler implements RestHandler {
  readonly name = 'indices_segments_action';
  readonly routes = [route('GET', '/_segments', 'indices:monitor/segments'), route('GET', '/{index}/_segments', 'indices:monitor/segments')];
  readonly params = [...INDICES_OPTIONS_PARAMS, 'verbose'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    // `verbose` (Lucene's memory tree) reports nothing since Elasticsearch 8: accepted, validated, ignored
    req.boolParam('verbose', false);
    let total = 0;
    let successful = 0;
    const indices: Record<string, unknown> = {};
    for (const l of listSegments(this.cluster, req)) {
      total += l.copies;
      successful += l.shards.length;
      if (l.shards.length === 0) continue;
      const attributes = codecAttributes(l.meta);
      const shards: Record<string, unknown> = {};
      for (const s of l.shards) {
        const segments: Record<string, unknown> = {};
        for (const g of s.segments) {
          segments[g.name] = {
            generation: g.generation,
            num_docs: g.numDocs,
            deleted_docs: g.deletedDocs,
            size_in_bytes: g.sizeInBytes,
            committed: g.committed,
            search: g.search,
            version: VERSION.lucene_version,
            compound: false,
            attributes: { ...attributes },
          };
        }
        shards[String(s.shardId)] = [
          {
            routing: { state: 'STARTED', primary: true, node: this.node.id },
            num_committed_segments: s.segments.filter((g) => g.committed).length,
            num_search_segments: s.segments.filter((g) => g.search).length,
            segments,
          },
        ];
      }
      indices[l.index] = { shards };
    }
    const body = { _shards: { total, successful, failed: 0 }, indices };
    return RestResponses.ok(req.boolParam('human', false) ? humanize(body) : body);
  }
}
