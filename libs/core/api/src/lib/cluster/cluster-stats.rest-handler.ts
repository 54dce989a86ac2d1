import { arch, availableParallelism, freemem, platform, totalmem } from 'node:os';
import { inject, injectable } from 'inversify';
import { RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { ClusterView, worse, type Health } from './cluster-view.js';
import { humanize } from './human.js';
import { NODE_INFO, NODE_ROLES, NodeInfo, VERSION } from './node-info.js';
import { addSections, indexSections } from './stats-sections.js';

/** `GET /_cluster/stats`: cluster-wide totals (monitoring tools and exporters read it). */
@injectable()
export class ClusterStatsRestHandler implements RestHandler {
  readonly name = 'cluster_stats_action';
  readonly routes = [
    route('GET', '/_cluster/stats', 'cluster:monitor/stats'),
    route('GET', '/_cluster/stats/nodes/{node_id}', 'cluster:monitor/stats'),
  ];
  readonly params = ['timeout', 'include_remotes'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    let status: Health = 'green';
    let count = 0;
    let primaries = 0;
    let total = 0;
    let sums: Record<string, unknown> = {};
    for (const meta of this.cluster.allIndices()) {
      const h = this.cluster.indexHealth(meta);
      status = worse(status, h.status);
      if (meta.state !== 'open') continue;
      count++;
      primaries += h.activePrimary;
      total += h.active;
      sums = addSections(sums, indexSections(meta.numberOfShards, this.cluster.indexStats(meta.name)));
    }
    const pick = (k: string): unknown => sums[k] ?? indexSections(0, undefined)[k];
    const mem = process.memoryUsage();
    const tm = totalmem();
    const fm = freemem();
    const body = {
      _nodes: { total: 1, successful: 1, failed: 0 },
      cluster_name: this.node.clusterName,
      cluster_uuid: this.cluster.clusterUuid(),
      timestamp: Date.now(),
      status,
      indices: {
        count,
        shards: {
          total,
          primaries,
          replication: primaries === 0 ? 0 : (total - primaries) / primaries,
          index: {
            shards: { min: count ? 1 : 0, max: count ? primaries : 0, avg: count ? total / count : 0 },
            primaries: { min: count ? 1 : 0, max: count ? primaries : 0, avg: count ? primaries / count : 0 },
            replication: { min: 0, max: 0, avg: 0 },
          },
        },
        docs: pick('docs'),
        store: pick('store'),
        fielddata: pick('fielddata'),
        query_cache: pick('query_cache'),
        completion: pick('completion'),
        segments: pick('segments'),
      },
      nodes: {
        count: Object.fromEntries([['total', 1], ...NODE_ROLES.map((r) => [r, 1])]),
        versions: [VERSION.number],
        os: {
          available_processors: availableParallelism(),
          allocated_processors: availableParallelism(),
          names: [{ name: platform() === 'linux' ? 'Linux' : platform(), count: 1 }],
          architectures: [{ arch: arch(), count: 1 }],
          mem: {
            total_in_bytes: tm,
            adjusted_total_in_bytes: tm,
            free_in_bytes: fm,
            used_in_bytes: tm - fm,
            free_percent: Math.round((fm / tm) * 100),
            used_percent: Math.round(((tm - fm) / tm) * 100),
          },
        },
        process: { cpu: { percent: 0 }, open_file_descriptors: { min: -1, max: -1, avg: 0 } },
        jvm: {
          max_uptime_in_millis: Date.now() - this.node.startedAt,
          versions: [{ version: process.version, vm_name: 'Node.js', vm_version: process.versions.v8, vm_vendor: 'OpenJS', count: 1 }],
          mem: { heap_used_in_bytes: mem.heapUsed, heap_max_in_bytes: mem.heapTotal },
          threads: 1,
        },
        plugins: [],
        network_types: { transport_types: {}, http_types: { koa: 1 } },
        discovery_types: { 'single-node': 1 },
        packaging_types: [{ flavor: 'default', type: VERSION.build_type, count: 1 }],
      },
    };
    return RestResponses.ok(req.boolParam('human', false) ? humanize(body) : body);
  }
}
