import { readdirSync, statfsSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem, arch, platform, release, availableParallelism } from 'node:os';
import { inject, injectable, multiInject, optional } from 'inversify';
import {
  Errors,
  ExtensionPoints,
  RestResponses,
  Tokens,
  route,
  type HostConfig,
  type NodeStatsContributor,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  wildcardRegExp,
} from '@strata/core-common';
import { EngineTokens, NODE_FILTER_CACHE, ThreadPool } from '@strata/core-engine';
import { ClusterView } from './cluster-view.js';
import { humanize } from './human.js';
import { NODE_INFO, NODE_ROLES, NodeInfo, VERSION } from './node-info.js';
import { addSections, indexMetricOfSection, indexSections, sectionOfIndexMetric } from './stats-sections.js';

function nodeMatches(node: NodeInfo, filter: string | undefined): boolean {
  if (filter === undefined || filter === '_all' || filter === '_local' || filter === '_master' || filter === '*') return true;
  return filter.split(',').some((f) => {
    if (f === '_all' || f === '_local' || f === '_master' || f === '*') return true;
    if (f.includes(':')) return true; // attribute/role filters: a single node has every role
    const re = wildcardRegExp(f);
    return re.test(node.id) || re.test(node.name) || re.test(node.host);
  });
}

function addressParts(node: NodeInfo, config: HostConfig | undefined): { ip: string; publish: string } {
  const ip = node.host === '0.0.0.0' || node.host === '' ? '127.0.0.1' : node.host;
  const publish = node.publishAddress ?? `${ip}:${String(config?.settings['http.port'] ?? 9200)}`;
  return { ip, publish };
}

function osStats(): Record<string, unknown> {
  const total = totalmem();
  const free = freemem();
  const [l1, l5, l15] = loadavg();
  return {
    timestamp: Date.now(),
    cpu: { percent: Math.min(100, Math.round((l1 / Math.max(1, cpus().length)) * 100)), load_average: { '1m': l1, '5m': l5, '15m': l15 } },
    mem: {
      total_in_bytes: total,
      adjusted_total_in_bytes: total,
      free_in_bytes: free,
      used_in_bytes: total - free,
      free_percent: Math.round((free / total) * 100),
      used_percent: Math.round(((total - free) / total) * 100),
    },
  };
}

function processStats(): Record<string, unknown> {
  const mem = process.memoryUsage();
  const cpu = process.cpuUsage();
  return {
    timestamp: Date.now(),
    open_file_descriptors: openFileDescriptors(),
    max_file_descriptors: -1,
    cpu: { percent: 0, total_in_millis: Math.round((cpu.user + cpu.system) / 1000) },
    mem: { total_virtual_in_bytes: mem.rss, resident_in_bytes: mem.rss },
  };
}

function fsStats(dataPath: string): Record<string, unknown> {
  try {
    const st = statfsSync(dataPath);
    const total = st.blocks * st.bsize;
    const free = st.bfree * st.bsize;
    const available = st.bavail * st.bsize;
    const entry = { total_in_bytes: total, free_in_bytes: free, available_in_bytes: available };
    return { timestamp: Date.now(), total: entry, data: [{ path: dataPath, ...entry }] };
  } catch {
    return { timestamp: Date.now(), total: {}, data: [] };
  }
}

/** the process's open file descriptors (Linux /proc), -1 where unknown */
function openFileDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length - 1;
  } catch {
    return -1;
  }
}

function jvmStats(node: NodeInfo): Record<string, unknown> {
  const mem = process.memoryUsage();
  return {
    timestamp: Date.now(),
    uptime_in_millis: Date.now() - node.startedAt,
    mem: {
      heap_used_in_bytes: mem.heapUsed,
      heap_used_percent: Math.round((mem.heapUsed / Math.max(1, mem.heapTotal)) * 100),
      heap_committed_in_bytes: mem.heapTotal,
      heap_max_in_bytes: mem.heapTotal,
      non_heap_used_in_bytes: mem.external + mem.arrayBuffers,
      non_heap_committed_in_bytes: mem.external + mem.arrayBuffers,
    },
  };
}

/** `GET /_nodes[/{node_id}]`: node info (sniffing clients read http.publish_address). */
@injectable()
export class NodesInfoRestHandler implements RestHandler {
  readonly name = 'nodes_info_action';
  readonly routes = [
    route('GET', '/_nodes', 'cluster:monitor/nodes/info'),
    route('GET', '/_nodes/{node_id}', 'cluster:monitor/nodes/info'),
    route('GET', '/_nodes/{node_id}/{metric}', 'cluster:monitor/nodes/info'),
  ];
  readonly params = ['flat_settings', 'timeout', 'master_timeout'];

  constructor(
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(Tokens.HostConfig) @optional() private readonly config: HostConfig | undefined,
    @inject(EngineTokens.ThreadPool) @optional() private readonly threadPool?: ThreadPool,
  ) {}

  handle(req: RestRequest): RestResponse {
    let filter = req.optionalPathParam('node_id');
    let metrics: string[] | undefined = req.optionalPathParam('metric')?.split(',');
    const INFO_METRICS = ['settings', 'os', 'process', 'jvm', 'thread_pool', 'transport', 'http', 'plugins', 'ingest', 'aggregations', 'indices', 'remote_cluster_server'];
    // `/_nodes/http` means metrics of all nodes, as in Elasticsearch
    if (filter !== undefined && metrics === undefined && filter.split(',').every((f) => INFO_METRICS.includes(f) || f === '_all')) {
      metrics = filter.split(',');
      filter = undefined;
    }
    const node = this.node;
    const { ip, publish } = addressParts(node, this.config);
    const nodes: Record<string, unknown> = {};
    if (nodeMatches(node, filter)) {
      const full: Record<string, unknown> = {
        name: node.name,
        transport_address: `${ip}:9300`,
        host: ip,
        ip,
        version: VERSION.number,
        transport_version: 8797000,
        index_version: 8518000,
        component_versions: {},
        build_flavor: VERSION.build_flavor,
        build_type: VERSION.build_type,
        build_hash: VERSION.build_hash,
        total_indexing_buffer: 0,
        roles: [...NODE_ROLES],
        attributes: {},
        settings: {
          cluster: { name: node.clusterName },
          node: { name: node.name },
          path: { data: [String(this.config?.settings['path.data'] ?? '')] },
          http: { port: String(this.config?.settings['http.port'] ?? 9200) },
          network: { host: node.host },
        },
        os: {
          refresh_interval_in_millis: 1000,
          name: platform() === 'linux' ? 'Linux' : platform(),
          pretty_name: platform(),
          arch: arch(),
          version: release(),
          available_processors: availableParallelism(),
          allocated_processors: availableParallelism(),
        },
        process: { refresh_interval_in_millis: 1000, id: process.pid, mlockall: false },
        jvm: { pid: process.pid, version: process.version, vm_name: 'Node.js', vm_version: process.versions.v8, start_time_in_millis: node.startedAt },
        http: {
          bound_address: [publish],
          publish_address: publish,
          max_content_length_in_bytes: Number(this.config?.settings['http.max_content_length'] ?? 104857600) || 104857600,
        },
        plugins: [],
        modules: [],
        ingest: { processors: [] },
        thread_pool: Object.fromEntries(
          (this.threadPool ?? new ThreadPool()).rows().map((r) => [
            r.name,
            r.type === 'fixed' ? { type: 'fixed', size: r.size, queue_size: r.queue_size } : { type: 'scaling', core: 1, max: r.size, keep_alive: '5m', queue_size: -1 },
          ]),
        ),
      };
      if (metrics && !metrics.includes('_all')) {
        for (const m of INFO_METRICS) if (!metrics.includes(m)) delete full[m];
        for (const m of metrics) {
          if (!INFO_METRICS.includes(m)) {
            throw Errors.illegalArgument(`request [${req.path}] contains unrecognized metric: [${m}]`);
          }
        }
      }
      nodes[node.id] = full;
    }
    const n = Object.keys(nodes).length;
    return RestResponses.ok({ _nodes: { total: n, successful: n, failed: 0 }, cluster_name: node.clusterName, nodes });
  }
}

const NODE_STAT_METRICS = [
  'indices',
  'os',
  'process',
  'jvm',
  'thread_pool',
  'fs',
  'transport',
  'http',
  'breaker',
  'script',
  'discovery',
  'ingest',
  'adaptive_selection',
  'script_cache',
  'indexing_pressure',
  'repositories',
  'allocations',
];

/** the metric that selects a section: `breaker` answers under `breakers`, the others under their own name */
function metricOfSection(section: string): string {
  return section === 'breakers' ? 'breaker' : section;
}

/** `GET /_nodes/stats[/{metric}[/{index_metric}]]` and `/_nodes/{node_id}/stats[/{metric}]`. */
@injectable()
export class NodesStatsRestHandler implements RestHandler {
  readonly name = 'nodes_stats_action';
  readonly routes = [
    route('GET', '/_nodes/stats', 'cluster:monitor/nodes/stats'),
    route('GET', '/_nodes/stats/{metric}', 'cluster:monitor/nodes/stats'),
    route('GET', '/_nodes/stats/{metric}/{index_metric}', 'cluster:monitor/nodes/stats'),
    route('GET', '/_nodes/{node_id}/stats', 'cluster:monitor/nodes/stats'),
    route('GET', '/_nodes/{node_id}/stats/{metric}', 'cluster:monitor/nodes/stats'),
    route('GET', '/_nodes/{node_id}/stats/{metric}/{index_metric}', 'cluster:monitor/nodes/stats'),
  ];
  readonly params = [
    'level',
    'timeout',
    'master_timeout',
    'fields',
    'completion_fields',
    'fielddata_fields',
    'groups',
    'types',
    'include_segment_file_sizes',
    'include_unloaded_segments',
  ];
  private readonly contributors: NodeStatsContributor[];

  constructor(
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(Tokens.HostConfig) @optional() private readonly config: HostConfig | undefined,
    @multiInject(ExtensionPoints.NodeStatsContributor) @optional() contributors: NodeStatsContributor[] | undefined = [],
    @inject(EngineTokens.ThreadPool) @optional() private readonly threadPool?: ThreadPool,
  ) {
    this.contributors = contributors ?? [];
  }

  handle(req: RestRequest): RestResponse {
    const human = req.boolParam('human', false);
    const known = [...new Set([...NODE_STAT_METRICS, ...this.contributors.map((c) => metricOfSection(c.section.split('.')[0]!))])];
    const metricParam = req.optionalPathParam('metric');
    const metrics = metricParam === undefined || metricParam === '_all' ? known : metricParam.split(',');
    const unknown = metrics.filter((m) => !known.includes(m));
    if (unknown.length > 0) {
      throw Errors.illegalArgument(
        `request [${req.path}] contains unrecognized metric${unknown.length > 1 ? 's' : ''}: [${unknown.join('], [')}]`,
      );
    }
    const indexMetricParam = req.optionalPathParam('index_metric');
    const indexMetrics = indexMetricParam === undefined || indexMetricParam === '_all' ? undefined : indexMetricParam.split(',');

    const node = this.node;
    const { ip } = addressParts(node, this.config);
    const sections: Record<string, Record<string, unknown>> = {};
    if (metrics.includes('indices')) {
      let indices: Record<string, unknown> = {};
      for (const meta of this.cluster.allIndices()) {
        const s = indexSections(meta.numberOfShards, this.cluster.indexStats(meta.name));
        delete s['shard_stats'];
        indices = addSections(indices, s);
      }
      if (Object.keys(indices).length === 0) {
        indices = indexSections(0, undefined);
        delete indices['shard_stats'];
      }
      // the filter cache is the node's (kept per segment core, not per index)
      indices['query_cache'] = NODE_FILTER_CACHE.stats();
      sections['indices'] = indices;
    }
    if (metrics.includes('os')) sections['os'] = osStats();
    if (metrics.includes('process')) sections['process'] = processStats();
    if (metrics.includes('jvm')) sections['jvm'] = jvmStats(node);
    if (metrics.includes('thread_pool')) sections['thread_pool'] = (this.threadPool ?? new ThreadPool()).stats() as unknown as Record<string, unknown>;
    if (metrics.includes('http')) {
      sections['http'] = { current_open: node.http.currentOpen, total_opened: node.http.totalOpened };
    }
    if (metrics.includes('fs')) sections['fs'] = fsStats(String(this.config?.settings['path.data'] ?? '.'));
    for (const c of this.contributors) {
      const [top, ...rest] = c.section.split('.');
      if (!metrics.includes(metricOfSection(top!))) continue;
      let target = (sections[top] ??= {});
      for (let i = 0; i < rest.length - 1; i++) {
        target = (target[rest[i]] ??= {}) as Record<string, unknown>;
      }
      const stats = c.stats({ human });
      if (rest.length === 0) Object.assign(target, stats);
      else {
        const leaf = rest[rest.length - 1];
        const cur = target[leaf];
        target[leaf] = cur && typeof cur === 'object' ? { ...(cur as Record<string, unknown>), ...stats } : stats;
      }
    }
    if (indexMetrics && sections['indices']) {
      const filtered: Record<string, unknown> = {};
      for (const m of indexMetrics) {
        const section = sectionOfIndexMetric(m);
        if (indexMetricOfSection(section) !== m || sections['indices'][section] === undefined) {
          throw Errors.illegalArgument(`request [${req.path}] contains unrecognized index metric: [${m}]`);
        }
        filtered[section] = sections['indices'][section];
      }
      sections['indices'] = filtered;
    }
    const nodes: Record<string, unknown> = {};
    if (nodeMatches(node, req.optionalPathParam('node_id'))) {
      nodes[node.id] = {
        timestamp: Date.now(),
        name: node.name,
        transport_address: `${ip}:9300`,
        host: ip,
        ip: `${ip}:9300`,
        roles: [...NODE_ROLES],
        attributes: {},
        ...sections,
      };
    }
    const n = Object.keys(nodes).length;
    const body = { _nodes: { total: n, successful: n, failed: 0 }, cluster_name: node.clusterName, nodes };
    return RestResponses.ok(human ? humanize(body) : body);
  }
}
