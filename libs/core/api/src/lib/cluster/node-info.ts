/** Identity of this node, bound by createNode (persisted id under path.data). */
export class NodeInfo {
  readonly startedAt = Date.now();
  /** the bound HTTP address, set by the host once listening */
  publishAddress?: string;
  /** HTTP connection counters, maintained by the host's server (`_nodes/stats/http`) */
  readonly http = { currentOpen: 0, totalOpened: 0 };

  constructor(
    readonly id: string,
    readonly name: string,
    readonly clusterName: string,
    readonly host: string,
  ) {}
}

export const NODE_INFO = Symbol.for('strata.api.NodeInfo');

/** The Elasticsearch version this service reports. */
export const VERSION = {
  number: '8.17.0',
  build_flavor: 'default',
  build_type: 'tar',
  build_hash: '2b6a7fed44faa321997703718f07ee0420804b41',
  build_date: '2024-12-11T12:08:05.663969764Z',
  build_snapshot: false,
  lucene_version: '9.12.0',
  minimum_wire_compatibility_version: '7.17.0',
  minimum_index_compatibility_version: '7.0.0',
} as const;

export const NODE_ROLES = ['data', 'data_content', 'data_hot', 'ingest', 'master'] as const;
