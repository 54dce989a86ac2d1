import { PRODUCT_VERSION } from '@strata/core-common';

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

  /** the address the monitoring APIs show for the node (127.0.0.1 when bound to every interface) */
  get ip(): string {
    return this.host === '0.0.0.0' ? '127.0.0.1' : this.host;
  }
}

export const NODE_INFO = Symbol.for('strata.api.NodeInfo');

/** The Elasticsearch version this service reports. */
export const VERSION = {
  number: PRODUCT_VERSION.number,
  build_flavor: 'default',
  build_type: 'tar',
  build_hash: PRODUCT_VERSION.buildHash,
  build_date: '2024-12-11T12:08:05.663969764Z',
  build_snapshot: false,
  lucene_version: '9.12.0',
  minimum_wire_compatibility_version: '7.17.0',
  minimum_index_compatibility_version: '7.0.0',
} as const;

export const NODE_ROLES = ['data', 'data_content', 'data_hot', 'ingest', 'master'] as const;
