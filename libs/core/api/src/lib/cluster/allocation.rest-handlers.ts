import { inject, injectable, optional } from 'inversify';
import { EngineTokens, type IndexMetadata, type IndicesService, type ShardFailureInfo } from '@strata/core-engine';
import { EsError, Errors, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { ClusterView } from './cluster-view.js';
import { NODE_INFO, NODE_ROLES, NodeInfo } from './node-info.js';

const NO_VALID_COPY_EXPLANATION =
  "Elasticsearch can't allocate this shard because all the copies of its data in the cluster are stale or corrupt. " +
  'Elasticsearch will allocate this shard when a node containing a good copy of its data joins the cluster. ' +
  'If no such node is available, restore this index from a recent snapshot.';
const NOT_ALLOWED_EXPLANATION =
  "Elasticsearch isn't allowed to allocate this shard to any of the nodes in the cluster. Choose a node to which you " +
  'expect this shard to be allocated, find this node in the node-by-node explanation, and address the reasons which ' +
  'prevent Elasticsearch from allocating this shard there.';
const RANDOM_NOTE =
  'No shard was specified in the explain API request, so this response explains a randomly chosen unassigned shard. ' +
  'There may be other unassigned shards in this cluster which cannot be assigned for different reasons. It may not be ' +
  'possible to assign this shard until one of the other shards is assigned correctly. To explain the allocation of ' +
  'other shards (whether assigned or unassigned) you must specify the target shard in the request to this API.';

interface Target {
  meta: IndexMetadata;
  shard: number;
  primary: boolean;
}

/**
 * `GET|POST /_cluster/allocation/explain`: why a shard is where it is. On one node the reasons are few: a
 * primary that failed to open (ALLOCATION_FAILED, its files stale or corrupt), replicas that can never be
 * assigned (same_shard), and started primaries.
 */
@injectable()
export class AllocationExplainRestHandler implements RestHandler {
  readonly name = 'cluster_allocation_explain_action';
  readonly routes = [
    route('GET', '/_cluster/allocation/explain', 'cluster:monitor/allocation/explain'),
    route('POST', '/_cluster/allocation/explain', 'cluster:monitor/allocation/explain'),
  ];
  readonly params = ['include_yes_decisions', 'include_disk_info', 'master_timeout'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  handle(req: RestRequest): RestResponse {
    req.boolParam('include_yes_decisions', false);
    req.boolParam('include_disk_info', false);
    req.timeParam('master_timeout');
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    for (const k of Object.keys(body)) {
      if (!['index', 'shard', 'primary', 'current_node'].includes(k)) {
        throw Errors.xContentParse(`[cluster/allocation/explain] unknown field [${k}]`);
      }
    }
    const named = body['index'] !== undefined || body['shard'] !== undefined || body['primary'] !== undefined;
    let target: Target | undefined;
    if (named) {
      const problems: string[] = [];
      if (typeof body['index'] !== 'string') problems.push('index must be specified');
      if (typeof body['shard'] !== 'number') problems.push('shard must be specified');
      if (typeof body['primary'] !== 'boolean') problems.push('primary must be specified');
      if (problems.length) throw Errors.actionRequestValidation(problems);
      const [name] = this.cluster.resolve(String(body['index']), { ignoreUnavailable: false, allowNoIndices: false });
      const meta = name === undefined ? undefined : this.cluster.indexMetadata(name);
      if (!meta) throw Errors.indexNotFound(String(body['index']));
      const shard = Number(body['shard']);
      if (!Number.isInteger(shard) || shard < 0 || shard >= meta.numberOfShards) {
        throw Errors.illegalArgument(`No shard was found for [${meta.name}][${shard}]`);
      }
      target = { meta, shard, primary: body['primary'] === true };
    } else {
      target = this.firstUnassigned();
      if (!target) {
        throw Errors.illegalArgument(
          'unable to find any unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,include_yes_decisions?=false]]',
        );
      }
    }
    const out = this.explain(target);
    return RestResponses.ok(named ? out : { note: RANDOM_NOTE, ...out });
  }

  /** unassigned primaries (failed to open) first, then replicas, in index order */
  private firstUnassigned(): Target | undefined {
    const open = this.cluster.allIndices().filter((m) => m.state === 'open');
    for (const meta of open) {
      const f = this.cluster.shardFailures(meta.name)[0];
      if (f) return { meta, shard: f.shardId, primary: true };
    }
    for (const meta of open) if (this.cluster.effectiveReplicas(meta) > 0) return { meta, shard: 0, primary: false };
    return undefined;
  }

  private nodeRef(): Record<string, unknown> {
    return { id: this.node.id, name: this.node.name, transport_address: this.transportAddress() };
  }

  private transportAddress(): string {
    const host = this.node.ip;
    return `${host}:9300`;
  }

  private decision(extra: Record<string, unknown>): Record<string, unknown> {
    return {
      node_id: this.node.id,
      node_name: this.node.name,
      transport_address: this.transportAddress(),
      node_attributes: {},
      roles: [...NODE_ROLES],
      ...extra,
    };
  }

  private explain(t: Target): Record<string, unknown> {
    const head = { index: t.meta.name, shard: t.shard, primary: t.primary };
    if (t.meta.state !== 'open') {
      return {
        ...head,
        current_state: 'unassigned',
        unassigned_info: { reason: 'INDEX_CLOSED', at: new Date(t.meta.creationDate).toISOString(), last_allocation_status: 'no_attempt' },
        can_allocate: 'no',
        allocate_explanation: NOT_ALLOWED_EXPLANATION,
      };
    }
    const failure: ShardFailureInfo | undefined = this.cluster.shardFailures(t.meta.name).find((f) => f.shardId === t.shard);
    if (t.primary && failure) {
      return {
        ...head,
        current_state: 'unassigned',
        unassigned_info: {
          reason: 'ALLOCATION_FAILED',
          at: new Date(failure.at).toISOString(),
          failed_allocation_attempts: failure.failedAttempts,
          details: `failed shard on node [${this.node.id}]: failed recovery, failure ${failure.reason}`,
          last_allocation_status: 'no_valid_shard_copy',
        },
        can_allocate: 'no_valid_shard_copy',
        allocate_explanation: NO_VALID_COPY_EXPLANATION,
        node_allocation_decisions: [
          this.decision({
            node_decision: 'no',
            store: { in_sync: true, allocation_id: `${t.meta.uuid.slice(0, 8)}-${t.shard}`, store_exception: storeException(failure) },
          }),
        ],
      };
    }
    if (!t.primary) {
      return {
        ...head,
        current_state: 'unassigned',
        unassigned_info: { reason: 'INDEX_CREATED', at: new Date(t.meta.creationDate).toISOString(), last_allocation_status: 'no_attempt' },
        can_allocate: 'no',
        allocate_explanation: NOT_ALLOWED_EXPLANATION,
        node_allocation_decisions: [
          this.decision({
            node_decision: 'no',
            deciders: [
              {
                decider: 'same_shard',
                decision: 'NO',
                explanation: `a copy of this shard is already allocated to this node [[${t.meta.name}][${t.shard}], node[${this.node.id}], [P], s[STARTED]]`,
              },
            ],
          }),
        ],
      };
    }
    return {
      ...head,
      current_state: 'started',
      current_node: { ...this.nodeRef(), weight_ranking: 1 },
      can_remain_on_current_node: 'yes',
      can_rebalance_cluster: 'no',
      can_rebalance_to_other_node: 'no',
      rebalance_explanation: 'Elasticsearch cannot rebalance this shard to another node since there is no other node in the cluster.',
    };
  }
}

function storeException(f: ShardFailureInfo): Record<string, unknown> {
  return { type: f.type, reason: f.reason };
}

/**
 * `POST /_cluster/reroute`: on one node the only useful command is `retry_failed=true`, which tries again to
 * open the shards that failed to open (after the cause, e.g. a full disk or a bad file, was dealt with).
 */
@injectable()
export class ClusterRerouteRestHandler implements RestHandler {
  readonly name = 'cluster_reroute_action';
  readonly routes = [route('POST', '/_cluster/reroute', 'cluster:admin/reroute')];
  readonly params = ['retry_failed', 'dry_run', 'explain', 'metric', 'master_timeout', 'timeout'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(EngineTokens.IndicesService) @optional() private readonly indices: IndicesService | undefined,
  ) {}

  handle(req: RestRequest): RestResponse {
    const retry = req.boolParam('retry_failed', false);
    const dryRun = req.boolParam('dry_run', false);
    req.boolParam('explain', false);
    req.timeParam('master_timeout');
    req.timeParam('timeout');
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    for (const k of Object.keys(body)) {
      if (k !== 'commands') throw Errors.xContentParse(`[cluster_reroute] unknown field [${k}]`);
    }
    const commands = body['commands'];
    if (commands !== undefined && (!Array.isArray(commands) || commands.length > 0)) {
      throw new EsError('illegal_argument_exception', 400, 'reroute commands are not supported on a single node; use retry_failed=true');
    }
    if (retry && !dryRun) this.indices?.retryFailedShards?.();
    const out: Record<string, unknown> = { acknowledged: true };
    const metric = req.param('metric');
    if (metric !== 'none') out['state'] = { cluster_uuid: this.cluster.clusterUuid() };
    return RestResponses.ok(out);
  }
}
