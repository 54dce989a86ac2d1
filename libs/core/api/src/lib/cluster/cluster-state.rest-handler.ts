import { inject, injectable } from 'inversify';
import {
  Errors,
  indicesOptionsOf,
  RestResponses,
  nestSettings,
  route,
  type RestHandler,
  type RestRequest,
  type RestResponse,
} from '@strata/core-common';
import type { IndexMetadata } from '@strata/core-engine';
import { ClusterView } from './cluster-view.js';
import { NODE_INFO, NODE_ROLES, NodeInfo } from './node-info.js';

const METRICS = ['version', 'master_node', 'blocks', 'nodes', 'metadata', 'routing_table', 'routing_nodes', 'customs'];

/** `GET /_cluster/state[/{metric}[/{index}]]`: the single node's view of the cluster (read by admin tools). */
@injectable()
export class ClusterStateRestHandler implements RestHandler {
  readonly name = 'cluster_state_action';
  readonly routes = [
    route('GET', '/_cluster/state', 'cluster:monitor/state'),
    route('GET', '/_cluster/state/{metric}', 'cluster:monitor/state'),
    route('GET', '/_cluster/state/{metric}/{index}', 'cluster:monitor/state'),
  ];
  readonly params = [
    'local',
    'master_timeout',
    'flat_settings',
    'wait_for_metadata_version',
    'wait_for_timeout',
    'ignore_unavailable',
    'allow_no_indices',
    'expand_wildcards',
  ];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    const metricParam = req.optionalPathParam('metric');
    const metrics = metricParam === undefined || metricParam === '_all' ? METRICS : metricParam.split(',');
    for (const m of metrics) {
      if (!METRICS.includes(m)) throw Errors.illegalArgument(`Unknown value for metric [${m}]`);
    }
    const flat = req.boolParam('flat_settings', false);
    const indexExpr = req.optionalPathParam('index');
    const names = this.cluster.resolve(indexExpr, indicesOptionsOf(req, { expandWildcards: { open: true, closed: true, hidden: indexExpr !== undefined } }));
    const indices = names.map((n) => this.cluster.indexMetadata(n)).filter((m): m is IndexMetadata => m !== undefined);
    const store = this.cluster.metadataStore();
    const md = store?.current();
    const body: Record<string, unknown> = { cluster_name: this.node.clusterName, cluster_uuid: this.cluster.clusterUuid() };
    const ip = this.node.ip;
    if (metrics.includes('version')) {
      body['version'] = md?.version ?? 0;
      body['state_uuid'] = `${this.cluster.clusterUuid().slice(0, 16)}${String(md?.version ?? 0).padStart(6, '0')}`;
    }
    if (metrics.includes('master_node')) body['master_node'] = this.node.id;
    if (metrics.includes('blocks')) body['blocks'] = {};
    if (metrics.includes('nodes')) {
      body['nodes'] = {
        [this.node.id]: {
          name: this.node.name,
          ephemeral_id: this.node.id,
          transport_address: `${ip}:9300`,
          external_id: this.node.name,
          attributes: {},
          roles: [...NODE_ROLES],
          version: '8.17.0',
          min_index_version: 7000099,
          max_index_version: 8518000,
        },
      };
    }
    if (metrics.includes('metadata')) {
      const out: Record<string, unknown> = {};
      for (const m of indices) {
        const settings: Record<string, unknown> = {
          'index.number_of_shards': String(m.numberOfShards),
          'index.number_of_replicas': String(m.numberOfReplicas),
          'index.uuid': m.uuid,
          'index.creation_date': String(m.creationDate),
          'index.provided_name': m.name,
          'index.version.created': '8518000',
        };
        for (const [k, v] of Object.entries(m.settings)) settings[k] = typeof v === 'object' && v !== null ? v : String(v);
        out[m.name] = {
          version: m.settingsVersion + m.mappingVersion + m.aliasesVersion,
          mapping_version: m.mappingVersion,
          settings_version: m.settingsVersion,
          aliases_version: m.aliasesVersion,
          routing_num_shards: m.numberOfShards,
          state: m.state,
          settings: flat ? settings : nestSettings(settings),
          mappings: { _doc: m.mappings },
          aliases: Object.keys(m.aliases ?? {}),
          primary_terms: Object.fromEntries(m.primaryTerms.map((t, i) => [String(i), t])),
          in_sync_allocations: Object.fromEntries(m.primaryTerms.map((_, i) => [String(i), [`${m.uuid.slice(0, 8)}-${i}`]])),
          rollover_info: {},
          system: false,
          timestamp_range: { shards: [] },
        };
      }
      body['metadata'] = {
        cluster_uuid: this.cluster.clusterUuid(),
        cluster_uuid_committed: true,
        cluster_coordination: { term: 1, last_committed_config: [this.node.id], last_accepted_config: [this.node.id], voting_config_exclusions: [] },
        templates: {},
        indices: out,
        'index-graveyard': { tombstones: [] },
      };
    }
    const shardsOf = (m: IndexMetadata) => {
      const replicas = this.cluster.effectiveReplicas(m);
      const list: Array<Record<string, unknown>> = [];
      const failures = new Map(this.cluster.shardFailures(m.name).map((f) => [f.shardId, f]));
      for (let s = 0; s < m.numberOfShards; s++) {
        const f = failures.get(s);
        if (f) {
          list.push({
            state: 'UNASSIGNED',
            primary: true,
            node: null,
            relocating_node: null,
            shard: s,
            index: m.name,
            recovery_source: { type: 'EXISTING_STORE', bootstrap_new_history_uuid: false },
            unassigned_info: {
              reason: 'ALLOCATION_FAILED',
              at: new Date(f.at).toISOString(),
              failed_attempts: f.failedAttempts,
              delayed: false,
              details: `failed shard on node [${this.node.id}]: failed recovery, failure ${f.reason}`,
              allocation_status: 'no_valid_shard_copy',
            },
          });
        } else list.push({ state: 'STARTED', primary: true, node: this.node.id, relocating_node: null, shard: s, index: m.name });
        for (let r = 0; r < replicas; r++) {
          list.push({
            state: 'UNASSIGNED',
            primary: false,
            node: null,
            relocating_node: null,
            shard: s,
            index: m.name,
            unassigned_info: { reason: 'INDEX_CREATED', at: new Date(m.creationDate).toISOString(), delayed: false, allocation_status: 'no_attempt' },
          });
        }
      }
      return list;
    };
    const open = indices.filter((m) => m.state === 'open');
    if (metrics.includes('routing_table')) {
      const rt: Record<string, unknown> = {};
      for (const m of open) {
        const shards: Record<string, unknown[]> = {};
        for (const s of shardsOf(m)) (shards[String(s['shard'])] ??= []).push(s);
        rt[m.name] = { shards };
      }
      body['routing_table'] = { indices: rt };
    }
    if (metrics.includes('routing_nodes')) {
      const all = open.flatMap(shardsOf);
      body['routing_nodes'] = {
        unassigned: all.filter((s) => s['state'] === 'UNASSIGNED'),
        nodes: { [this.node.id]: all.filter((s) => s['state'] === 'STARTED') },
      };
    }
    return RestResponses.ok(body);
  }
}
