import { statfsSync } from 'node:fs';
import { inject, injectable, optional } from 'inversify';
import {
  Errors,
  parseExpandWildcards,
  RestResponses,
  Tokens,
  route,
  type HostConfig,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  wildcardRegExp,
} from '@strata/core-common';
import { EngineTokens, ThreadPool, type SearchService } from '@strata/core-engine';
import { buildSearchRequest } from '../search/search-request-builder.js';
import { ClusterView, worse, type Health } from './cluster-view.js';
import { CAT_PARAMS, renderCat, type CatColumn, type CatRow } from './cat-table.js';
import { NODE_INFO, NodeInfo, VERSION } from './node-info.js';
import { listSegments } from './segments.rest-handler.js';

function hms(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19);
}

/** `expand_wildcards` of a cat request (default `all`, as the cat APIs) */
function expandOptions(req: RestRequest) {
  return parseExpandWildcards(req.param('expand_wildcards'), { open: true, closed: true, hidden: true });
}

/** `GET /_cat`: the list of cat endpoints. */
@injectable()
export class CatRestHandler implements RestHandler {
  readonly name = 'cat_action';
  readonly routes = [route('GET', '/_cat', 'cluster:monitor/cat')];
  readonly params = [];
  handle(): RestResponse {
    return RestResponses.text(
      200,
      ['=^.^=', '/_cat/aliases', '/_cat/aliases/{alias}', '/_cat/count', '/_cat/count/{index}', '/_cat/health', '/_cat/indices', '/_cat/indices/{index}', '/_cat/nodes', '/_cat/shards', '/_cat/shards/{index}', '/_cat/segments', '/_cat/segments/{index}', '/_cat/master', '/_cat/plugins', '/_cat/allocation', '/_cat/thread_pool', '/_cat/thread_pool/{thread_pools}'].join('\n') + '\n',
    );
  }
}

const INDICES_COLUMNS: CatColumn[] = [
  { name: 'health', aliases: ['h'], desc: 'current health status' },
  { name: 'status', aliases: ['s'], desc: 'open/close status' },
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
  { name: 'uuid', aliases: ['id'], desc: 'index uuid' },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], numeric: true, desc: 'number of primary shards' },
  { name: 'rep', aliases: ['r', 'shards.replica', 'shardsReplica'], numeric: true, desc: 'number of replica shards' },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], numeric: true, desc: 'available docs' },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], numeric: true, desc: 'deleted docs' },
  { name: 'store.size', aliases: ['ss', 'storeSize'], numeric: true, bytes: true, desc: 'store size of primaries & replicas' },
  { name: 'pri.store.size', numeric: true, bytes: true, desc: 'store size of primaries' },
  { name: 'dataset.size', numeric: true, bytes: true, desc: 'total size of dataset' },
  { name: 'creation.date', aliases: ['cd'], numeric: true, default: false, desc: 'index creation date (millisecond value)' },
  { name: 'creation.date.string', aliases: ['cds'], default: false, desc: 'index creation date (as string)' },
  { name: 'indexing.index_total', aliases: ['iito', 'indexingIndexTotal'], numeric: true, default: false, desc: 'number of indexing ops' },
  { name: 'search.fetch_current', aliases: ['sfc', 'searchFetchCurrent'], numeric: true, default: false, desc: 'current fetch phase ops' },
  { name: 'search.fetch_time', aliases: ['sfti', 'searchFetchTime'], numeric: true, time: true, default: false, desc: 'time spent in fetch phase' },
  { name: 'search.fetch_total', aliases: ['sfto', 'searchFetchTotal'], numeric: true, default: false, desc: 'total fetch ops' },
  { name: 'search.open_contexts', aliases: ['so', 'searchOpenContexts'], numeric: true, default: false, desc: 'open search contexts' },
  { name: 'search.query_current', aliases: ['sqc', 'searchQueryCurrent'], numeric: true, default: false, desc: 'current query phase ops' },
  { name: 'search.query_time', aliases: ['sqti', 'searchQueryTime'], numeric: true, time: true, default: false, desc: 'time spent in query phase' },
  { name: 'search.query_total', aliases: ['sqto', 'searchQueryTotal'], numeric: true, default: false, desc: 'total query phase ops' },
  { name: 'search.scroll_current', aliases: ['scc', 'searchScrollCurrent'], numeric: true, default: false, desc: 'open scroll contexts' },
  { name: 'search.scroll_time', aliases: ['scti', 'searchScrollTime'], numeric: true, time: true, default: false, desc: 'time scroll contexts held open' },
  { name: 'search.scroll_total', aliases: ['scto', 'searchScrollTotal'], numeric: true, default: false, desc: 'completed scroll contexts' },
  { name: 'refresh.total', aliases: ['rto', 'refreshTotal'], numeric: true, default: false, desc: 'total refreshes' },
  { name: 'segments.count', aliases: ['sc', 'segmentsCount'], numeric: true, default: false, desc: 'number of segments' },
];

/** the `search.*` columns of _cat/indices from the index's `search` stats section (times in millis) */
function searchColumns(search: Record<string, number> | undefined): CatRow {
  const row: CatRow = {};
  for (const k of ['fetch_current', 'fetch_total', 'open_contexts', 'query_current', 'query_total', 'scroll_current', 'scroll_total']) row[`search.${k}`] = Number(search?.[k] ?? 0);
  for (const k of ['fetch', 'query', 'scroll']) row[`search.${k}_time`] = Number(search?.[`${k}_time_in_millis`] ?? 0);
  return row;
}

/** `GET /_cat/indices[/{index}]` */
@injectable()
export class CatIndicesRestHandler implements RestHandler {
  readonly name = 'cat_indices_action';
  readonly routes = [
    route('GET', '/_cat/indices', 'indices:monitor/stats'),
    route('GET', '/_cat/indices/{index}', 'indices:monitor/stats'),
  ];
  readonly params = CAT_PARAMS;

  constructor(@inject(ClusterView) private readonly cluster: ClusterView) {}

  handle(req: RestRequest): RestResponse {
    const wanted = req.param('health');
    if (wanted !== undefined && !['green', 'yellow', 'red'].includes(wanted)) {
      throw Errors.illegalArgument(`unknown health status [${wanted}]`);
    }
    const names = this.cluster.resolve(req.optionalPathParam('index'), {
      expandWildcards: expandOptions(req),
      allowNoIndices: true,
      allowClosed: true,
    });
    const rows: CatRow[] = [];
    for (const name of names) {
      const meta = this.cluster.indexMetadata(name);
      if (!meta) continue;
      const h = this.cluster.indexHealth(meta);
      if (wanted && h.status !== wanted) continue;
      const st = meta.state === 'open' ? this.cluster.indexStats(name) : undefined;
      const size = st?.store?.size_in_bytes;
      rows.push({
        health: h.status,
        status: meta.state,
        index: name,
        uuid: meta.uuid,
        pri: meta.numberOfShards,
        rep: meta.numberOfReplicas,
        'docs.count': meta.state === 'open' ? (st?.docs?.count ?? 0) : undefined,
        'docs.deleted': meta.state === 'open' ? (st?.docs?.deleted ?? 0) : undefined,
        'store.size': meta.state === 'open' ? (size ?? 0) : undefined,
        'pri.store.size': meta.state === 'open' ? (size ?? 0) : undefined,
        'dataset.size': meta.state === 'open' ? (size ?? 0) : undefined,
        'creation.date': meta.creationDate,
        'creation.date.string': new Date(meta.creationDate).toISOString(),
        'indexing.index_total': Number(st?.indexing?.['index_total'] ?? 0),
        ...searchColumns(st?.search),
        'refresh.total': Number(st?.refresh?.['total'] ?? 0),
        'segments.count': Number(st?.segments?.['count'] ?? 0),
      });
    }
    return renderCat(req, INDICES_COLUMNS, rows);
  }
}

const HEALTH_COLUMNS: CatColumn[] = [
  { name: 'epoch', aliases: ['t', 'time'], numeric: true },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'] },
  { name: 'cluster', aliases: ['cl'] },
  { name: 'status', aliases: ['st'] },
  { name: 'node.total', aliases: ['nt', 'nodeTotal'], numeric: true },
  { name: 'node.data', aliases: ['nd', 'nodeData'], numeric: true },
  { name: 'shards', aliases: ['t', 'sh', 'shards.total', 'shardsTotal'], numeric: true },
  { name: 'pri', aliases: ['p', 'shards.primary', 'shardsPrimary'], numeric: true },
  { name: 'relo', aliases: ['r', 'shards.relocating', 'shardsRelocating'], numeric: true },
  { name: 'init', aliases: ['i', 'shards.initializing', 'shardsInitializing'], numeric: true },
  { name: 'unassign', aliases: ['u', 'shards.unassigned', 'shardsUnassigned'], numeric: true },
  { name: 'unassign.pri', aliases: ['up', 'shards.unassigned.primary', 'shardsUnassignedPrimary'], numeric: true },
  { name: 'pending_tasks', aliases: ['pt', 'pendingTasks'], numeric: true },
  { name: 'max_task_wait_time', aliases: ['mtwt', 'maxTaskWaitTime'], numeric: true },
  { name: 'active_shards_percent', aliases: ['asp', 'activeShardsPercent'], numeric: true },
];

/** `GET /_cat/health` */
@injectable()
export class CatHealthRestHandler implements RestHandler {
  readonly name = 'cat_health_action';
  readonly routes = [route('GET', '/_cat/health', 'cluster:monitor/health')];
  readonly params = [...CAT_PARAMS, 'ts'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    let status: Health = 'green';
    let pri = 0;
    let active = 0;
    let unassigned = 0;
    let unassignedPri = 0;
    for (const meta of this.cluster.allIndices()) {
      const h = this.cluster.indexHealth(meta);
      status = worse(status, h.status);
      pri += h.activePrimary;
      active += h.active;
      unassigned += h.unassigned;
      unassignedPri += h.unassignedPrimary;
    }
    const now = Date.now();
    const total = active + unassigned;
    const cols = req.boolParam('ts', true) ? HEALTH_COLUMNS : HEALTH_COLUMNS.slice(2);
    return renderCat(req, cols, [
      {
        epoch: Math.floor(now / 1000),
        timestamp: hms(now),
        cluster: this.node.clusterName,
        status,
        'node.total': 1,
        'node.data': 1,
        shards: active,
        pri,
        relo: 0,
        init: 0,
        unassign: unassigned,
        'unassign.pri': unassignedPri,
        pending_tasks: 0,
        max_task_wait_time: '-',
        active_shards_percent: `${(total === 0 ? 100 : (active / total) * 100).toFixed(1)}%`,
      },
    ]);
  }
}

const COUNT_COLUMNS: CatColumn[] = [
  { name: 'epoch', aliases: ['t', 'time'], numeric: true },
  { name: 'timestamp', aliases: ['ts', 'hms', 'hhmmss'] },
  { name: 'count', aliases: ['dc', 'docs.count', 'docsCount'], numeric: true },
];

/**
 * `GET /_cat/count[/{index}]`: a count search, as in Elasticsearch (the documents of the last refresh; hidden
 * nested documents are not counted, unlike `docs.count` of `_cat/indices`, which comes from the segments)
 */
@injectable()
export class CatCountRestHandler implements RestHandler {
  readonly name = 'cat_count_action';
  readonly routes = [
    route('GET', '/_cat/count', 'indices:data/read/search'),
    route('GET', '/_cat/count/{index}', 'indices:data/read/search'),
  ];
  readonly params = CAT_PARAMS;

  constructor(@inject(EngineTokens.SearchService) private readonly search: SearchService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const count = (await this.search.count(buildSearchRequest(req, this.search, undefined)))['count'] as number;
    const now = Date.now();
    return renderCat(req, COUNT_COLUMNS, [{ epoch: Math.floor(now / 1000), timestamp: hms(now), count }]);
  }
}

const ALIAS_COLUMNS: CatColumn[] = [
  { name: 'alias', aliases: ['a'] },
  { name: 'index', aliases: ['i', 'idx'] },
  { name: 'filter', aliases: ['f', 'fi'] },
  { name: 'routing.index', aliases: ['ri', 'routingIndex'] },
  { name: 'routing.search', aliases: ['rs', 'routingSearch'] },
  { name: 'is_write_index', aliases: ['w', 'isWriteIndex'] },
];

/** `GET /_cat/aliases[/{name}]` */
@injectable()
export class CatAliasesRestHandler implements RestHandler {
  readonly name = 'cat_aliases_action';
  readonly routes = [
    route('GET', '/_cat/aliases', 'indices:admin/aliases/get'),
    route('GET', '/_cat/aliases/{name}', 'indices:admin/aliases/get'),
  ];
  readonly params = CAT_PARAMS;

  constructor(@inject(ClusterView) private readonly cluster: ClusterView) {}

  handle(req: RestRequest): RestResponse {
    const filter = req.optionalPathParam('name')?.split(',');
    const matches = (a: string): boolean =>
      !filter ||
      filter.some((f) => f === '_all' || wildcardRegExp(f).test(a));
    const rows: CatRow[] = [];
    for (const meta of this.cluster.allIndices()) {
      for (const [alias, a] of Object.entries(meta.aliases ?? {})) {
        if (!matches(alias)) continue;
        rows.push({
          alias,
          index: meta.name,
          filter: a.filter ? '*' : '-',
          'routing.index': a.index_routing ?? '-',
          'routing.search': a.search_routing ?? '-',
          is_write_index: a.is_write_index === undefined ? '-' : String(a.is_write_index),
        });
      }
    }
    rows.sort((x, y) => String(x['alias']).localeCompare(String(y['alias'])) || String(x['index']).localeCompare(String(y['index'])));
    return renderCat(req, ALIAS_COLUMNS, rows);
  }
}

const SHARDS_COLUMNS: CatColumn[] = [
  { name: 'index', aliases: ['i', 'idx'] },
  { name: 'shard', aliases: ['s', 'sh'], numeric: true },
  { name: 'prirep', aliases: ['p', 'pr', 'primaryOrReplica'] },
  { name: 'state', aliases: ['st'] },
  { name: 'docs', aliases: ['d', 'dc'], numeric: true },
  { name: 'store', aliases: ['sto'], numeric: true, bytes: true },
  { name: 'dataset', numeric: true, bytes: true },
  { name: 'ip' },
  { name: 'node', aliases: ['n'] },
  { name: 'unassigned.reason', aliases: ['ur'], default: false, desc: 'reason shard became unassigned' },
  { name: 'unassigned.at', aliases: ['ua'], default: false, desc: 'time shard became unassigned (UTC)' },
  { name: 'unassigned.details', aliases: ['ud'], default: false, desc: 'additional details as to why the shard became unassigned' },
];

/**
 * `GET /_cat/shards[/{index}]`: primaries STARTED on this node (UNASSIGNED, ALLOCATION_FAILED when the shard
 * failed to open), replicas UNASSIGNED (single node).
 */
@injectable()
export class CatShardsRestHandler implements RestHandler {
  readonly name = 'cat_shards_action';
  readonly routes = [
    route('GET', '/_cat/shards', 'indices:monitor/stats'),
    route('GET', '/_cat/shards/{index}', 'indices:monitor/stats'),
  ];
  readonly params = CAT_PARAMS;

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = this.cluster.resolve(req.optionalPathParam('index'), { expandWildcards: expandOptions(req) });
    const rows: CatRow[] = [];
    const ip = this.node.ip;
    for (const name of names) {
      const meta = this.cluster.indexMetadata(name);
      if (!meta || meta.state !== 'open') continue;
      const st = this.cluster.indexStats(name);
      const failures = new Map(this.cluster.shardFailures(name).map((f) => [f.shardId, f]));
      const perShard = (n: number | undefined): number | undefined =>
        n === undefined ? undefined : Math.round(n / Math.max(1, meta.numberOfShards - failures.size));
      for (let s = 0; s < meta.numberOfShards; s++) {
        const f = failures.get(s);
        if (f) {
          rows.push({
            index: name,
            shard: s,
            prirep: 'p',
            state: 'UNASSIGNED',
            'unassigned.reason': 'ALLOCATION_FAILED',
            'unassigned.at': new Date(f.at).toISOString(),
            'unassigned.details': `failed shard on node [${this.node.id}]: failed recovery, failure ${f.reason}`,
          });
          for (let r = 0; r < this.cluster.effectiveReplicas(meta); r++) {
            rows.push({ index: name, shard: s, prirep: 'r', state: 'UNASSIGNED', 'unassigned.reason': 'INDEX_CREATED' });
          }
          continue;
        }
        rows.push({
          index: name,
          shard: s,
          prirep: 'p',
          state: 'STARTED',
          docs: perShard(st?.docs?.count ?? 0),
          store: perShard(st?.store?.size_in_bytes ?? 0),
          dataset: perShard(st?.store?.size_in_bytes ?? 0),
          ip,
          node: this.node.name,
        });
        for (let r = 0; r < this.cluster.effectiveReplicas(meta); r++) {
          rows.push({ index: name, shard: s, prirep: 'r', state: 'UNASSIGNED', 'unassigned.reason': 'INDEX_CREATED' });
        }
      }
    }
    return renderCat(req, SHARDS_COLUMNS, rows);
  }
}

const SEGMENTS_COLUMNS: CatColumn[] = [
  { name: 'index', aliases: ['i', 'idx'], desc: 'index name' },
  { name: 'shard', aliases: ['s', 'sh'], desc: 'shard name' },
  { name: 'prirep', aliases: ['p', 'pr', 'primaryOrReplica'], desc: 'primary or replica' },
  { name: 'ip', desc: 'ip of node where it lives' },
  { name: 'id', default: false, desc: 'unique id of node where it lives' },
  { name: 'segment', aliases: ['seg'], desc: 'segment name' },
  { name: 'generation', aliases: ['g', 'gen'], numeric: true, desc: 'segment generation' },
  { name: 'docs.count', aliases: ['dc', 'docsCount'], numeric: true, desc: 'number of docs in segment' },
  { name: 'docs.deleted', aliases: ['dd', 'docsDeleted'], numeric: true, desc: 'number of deleted docs in segment' },
  { name: 'size', aliases: ['si'], numeric: true, bytes: true, desc: 'segment size in bytes' },
  { name: 'size.memory', aliases: ['sm', 'sizeMemory'], numeric: true, desc: 'segment memory in bytes' },
  { name: 'committed', aliases: ['ic', 'isCommitted'], desc: 'is segment committed' },
  { name: 'searchable', aliases: ['is', 'isSearchable'], desc: 'is segment searched' },
  { name: 'version', aliases: ['v', 'ver'], desc: 'version' },
  { name: 'compound', aliases: ['ico', 'isCompound'], desc: 'is segment compound' },
];

/**
 * `GET /_cat/segments[/{index}]`: one row per segment of each started shard, as `_segments` lists them
 * (`size.memory` is 0, as Elasticsearch 8 reports it)
 */
@injectable()
export class CatSegmentsRestHandler implements RestHandler {
  readonly name = 'cat_segments_action';
  readonly routes = [
    route('GET', '/_cat/segments', 'indices:monitor/segments'),
    route('GET', '/_cat/segments/{index}', 'indices:monitor/segments'),
  ];
  readonly params = CAT_PARAMS;

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    const rows: CatRow[] = [];
    for (const l of listSegments(this.cluster, req)) {
      for (const s of l.shards) {
        for (const g of s.segments) {
          rows.push({
            index: l.index,
            shard: s.shardId,
            prirep: 'p',
            ip: this.node.ip,
            id: this.node.id,
            segment: g.name,
            generation: g.generation,
            'docs.count': g.numDocs,
            'docs.deleted': g.deletedDocs,
            size: g.sizeInBytes,
            'size.memory': 0,
            committed: String(g.committed),
            searchable: String(g.search),
            version: VERSION.lucene_version,
            compound: 'false',
          });
        }
      }
    }
    return renderCat(req, SEGMENTS_COLUMNS, rows);
  }
}

const NODES_COLUMNS: CatColumn[] = [
  { name: 'ip', aliases: ['i'] },
  { name: 'heap.percent', aliases: ['hp', 'heapPercent'], numeric: true },
  { name: 'ram.percent', aliases: ['rp', 'ramPercent'], numeric: true },
  { name: 'cpu', numeric: true },
  { name: 'load_1m', aliases: ['l'], numeric: true },
  { name: 'load_5m', aliases: ['l'], numeric: true },
  { name: 'load_15m', aliases: ['l'], numeric: true },
  { name: 'node.role', aliases: ['r', 'role', 'nodeRole'] },
  { name: 'master', aliases: ['m'] },
  { name: 'name', aliases: ['n'] },
  { name: 'id', aliases: ['nodeId'], default: false },
  { name: 'version', aliases: ['v'], default: false },
];

/** `GET /_cat/nodes` */
@injectable()
export class CatNodesRestHandler implements RestHandler {
  readonly name = 'cat_nodes_action';
  readonly routes = [route('GET', '/_cat/nodes', 'cluster:monitor/nodes/info')];
  readonly params = [...CAT_PARAMS, 'full_id'];

  constructor(@inject(NODE_INFO) private readonly node: NodeInfo) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const os = await import('node:os');
    const mem = process.memoryUsage();
    const [l1, l5, l15] = os.loadavg();
    const total = os.totalmem();
    return renderCat(req, NODES_COLUMNS, [
      {
        ip: this.node.ip,
        'heap.percent': Math.round((mem.heapUsed / Math.max(1, mem.heapTotal)) * 100),
        'ram.percent': Math.round(((total - os.freemem()) / total) * 100),
        cpu: Math.min(100, Math.round((l1 / Math.max(1, os.cpus().length)) * 100)),
        load_1m: l1.toFixed(2),
        load_5m: l5.toFixed(2),
        load_15m: l15.toFixed(2),
        'node.role': 'dhim',
        master: '*',
        name: this.node.name,
        id: req.boolParam('full_id', false) ? this.node.id : this.node.id.slice(0, 4),
        version: '8.17.0',
      },
    ]);
  }
}

const MASTER_COLUMNS: CatColumn[] = [{ name: 'id' }, { name: 'host', aliases: ['h'] }, { name: 'ip' }, { name: 'node', aliases: ['n'] }];
const PLUGINS_COLUMNS: CatColumn[] = [
  { name: 'id', default: false },
  { name: 'name', aliases: ['n'] },
  { name: 'component', aliases: ['c'] },
  { name: 'version', aliases: ['v'] },
  { name: 'description', aliases: ['d'], default: false },
];
const ALLOCATION_COLUMNS: CatColumn[] = [
  { name: 'shards', aliases: ['s'], numeric: true },
  { name: 'shards.undesired', numeric: true },
  { name: 'write_load.forecast', numeric: true },
  { name: 'disk.indices.forecast', numeric: true, bytes: true },
  { name: 'disk.indices', aliases: ['di', 'diskIndices'], numeric: true, bytes: true },
  { name: 'disk.used', aliases: ['du', 'diskUsed'], numeric: true, bytes: true },
  { name: 'disk.avail', aliases: ['da', 'diskAvail'], numeric: true, bytes: true },
  { name: 'disk.total', aliases: ['dt', 'diskTotal'], numeric: true, bytes: true },
  { name: 'disk.percent', aliases: ['dp', 'diskPercent'], numeric: true },
  { name: 'host', aliases: ['h'] },
  { name: 'ip' },
  { name: 'node', aliases: ['n'] },
  { name: 'node.role', aliases: ['r', 'role', 'nodeRole'] },
];

/** `GET /_cat/master`, `/_cat/plugins` (none), `/_cat/allocation` for the single node */
@injectable()
export class CatNodeLevelRestHandler implements RestHandler {
  readonly name = 'cat_node_level_action';
  readonly routes = [
    route('GET', '/_cat/master', 'cluster:monitor/state'),
    route('GET', '/_cat/plugins', 'cluster:monitor/nodes/info'),
    route('GET', '/_cat/allocation', 'cluster:monitor/state'),
    route('GET', '/_cat/allocation/{node_id}', 'cluster:monitor/state'),
  ];
  readonly params = [...CAT_PARAMS, 'include_bootstrap'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(Tokens.HostConfig) @optional() private readonly config: HostConfig | undefined,
  ) {}

  handle(req: RestRequest): RestResponse {
    const ip = this.node.ip;
    if (req.route.path === '/_cat/master') {
      return renderCat(req, MASTER_COLUMNS, [{ id: this.node.id, host: ip, ip, node: this.node.name }]);
    }
    if (req.route.path === '/_cat/plugins') return renderCat(req, PLUGINS_COLUMNS, []);
    let shards = 0;
    let size = 0;
    for (const meta of this.cluster.allIndices()) {
      if (meta.state !== 'open') continue;
      shards += meta.numberOfShards;
      size += this.cluster.indexStats(meta.name)?.store?.size_in_bytes ?? 0;
    }
    const rows: CatRow[] = [];
    const filter = req.optionalPathParam('node_id');
    if (!filter || filter === '_all' || filter === '_local' || filter === this.node.name || filter === this.node.id) {
      let total: number | undefined;
      let avail: number | undefined;
      try {
        const st = statfsSync(String(this.config?.settings['path.data'] ?? '.'));
        total = st.blocks * st.bsize;
        avail = st.bavail * st.bsize;
      } catch {
        /* unknown */
      }
      const used = total !== undefined && avail !== undefined ? total - avail : undefined;
      rows.push({
        shards,
        'shards.undesired': 0,
        'write_load.forecast': '0.0',
        'disk.indices.forecast': size,
        'disk.indices': size,
        'disk.used': used,
        'disk.avail': avail,
        'disk.total': total,
        'disk.percent': total && used !== undefined ? Math.round((used / total) * 100) : undefined,
        host: ip,
        ip,
        node: this.node.name,
        'node.role': 'dhim',
      });
    }
    return renderCat(req, ALLOCATION_COLUMNS, rows);
  }
}

const THREAD_POOL_COLUMNS: CatColumn[] = [
  { name: 'node_name', aliases: ['nn'], desc: 'node name' },
  { name: 'node_id', aliases: ['id'], default: false, desc: 'persistent node id' },
  { name: 'ephemeral_node_id', aliases: ['eid'], default: false, desc: 'ephemeral node id' },
  { name: 'pid', aliases: ['p'], numeric: true, default: false, desc: 'process id' },
  { name: 'host', aliases: ['h'], default: false, desc: 'host name' },
  { name: 'ip', aliases: ['i'], default: false, desc: 'ip address' },
  { name: 'port', aliases: ['po'], numeric: true, default: false, desc: 'bound transport port' },
  { name: 'name', aliases: ['n'], desc: 'thread pool name' },
  { name: 'type', aliases: ['t'], default: false, desc: 'thread pool type' },
  { name: 'active', aliases: ['a'], numeric: true, desc: 'number of active threads' },
  { name: 'pool_size', aliases: ['psz'], numeric: true, default: false, desc: 'number of threads' },
  { name: 'queue', aliases: ['q'], numeric: true, desc: 'number of tasks currently in queue' },
  { name: 'queue_size', aliases: ['qs'], numeric: true, default: false, desc: 'maximum number of tasks permitted in queue' },
  { name: 'rejected', aliases: ['r'], numeric: true, desc: 'number of rejected tasks' },
  { name: 'largest', aliases: ['l'], numeric: true, default: false, desc: 'highest number of seen active threads' },
  { name: 'completed', aliases: ['c'], numeric: true, default: false, desc: 'number of completed tasks' },
  { name: 'core', aliases: ['cr'], numeric: true, default: false, desc: 'core number of threads in a scaling thread pool' },
  { name: 'max', aliases: ['mx'], numeric: true, default: false, desc: 'maximum number of threads in a scaling thread pool' },
  { name: 'size', aliases: ['sz'], numeric: true, default: false, desc: 'number of threads in a fixed thread pool' },
  { name: 'keep_alive', aliases: ['ka'], default: false, desc: 'thread keep alive time' },
];

/** `GET /_cat/thread_pool[/{thread_pool_patterns}]`: the node's pools, their queues and rejections */
@injectable()
export class CatThreadPoolRestHandler implements RestHandler {
  readonly name = 'cat_thread_pool_action';
  readonly routes = [
    route('GET', '/_cat/thread_pool', 'cluster:monitor/nodes/stats'),
    route('GET', '/_cat/thread_pool/{thread_pool_patterns}', 'cluster:monitor/nodes/stats'),
  ];
  readonly params = [...CAT_PARAMS];

  constructor(
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(EngineTokens.ThreadPool) @optional() private readonly pool?: ThreadPool,
  ) {}

  handle(req: RestRequest): RestResponse {
    const patterns = (req.optionalPathParam('thread_pool_patterns') ?? '*').split(',').map((p) => wildcardRegExp(p));
    const ip = this.node.ip;
    const rows: CatRow[] = (this.pool ?? new ThreadPool())
      .rows()
      .filter((r) => patterns.some((re) => re.test(r.name)))
      .map((r) => ({
        node_name: this.node.name,
        node_id: this.node.id,
        ephemeral_node_id: this.node.id,
        pid: process.pid,
        host: ip,
        ip,
        port: 9300,
        name: r.name,
        type: r.type,
        active: r.active,
        pool_size: r.threads,
        queue: r.queue,
        queue_size: r.queue_size,
        rejected: r.rejected,
        largest: r.largest,
        completed: r.completed,
        core: r.type === 'scaling' ? 1 : null,
        max: r.type === 'scaling' ? r.size : null,
        size: r.type === 'fixed' ? r.size : null,
        keep_alive: r.type === 'scaling' ? '5m' : null,
      }));
    return renderCat(req, THREAD_POOL_COLUMNS, rows);
  }
}
