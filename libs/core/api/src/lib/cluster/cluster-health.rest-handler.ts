import { inject, injectable } from 'inversify';
import {
  Errors,
  RestResponses,
  route,
  type RestHandler,
  type RestRequest,
  type RestResponse,
} from '@strata/core-common';
import { ClusterView, healthAtLeast, worse, type Health, type IndexHealth } from './cluster-view.js';
import { NODE_INFO, NodeInfo } from './node-info.js';

const STATUSES: Health[] = ['green', 'yellow', 'red'];

/** `GET /_cluster/health[/{index}]` for a single node: replicas can never be assigned → yellow. */
@injectable()
export class ClusterHealthRestHandler implements RestHandler {
  readonly name = 'cluster_health_action';
  readonly routes = [
    route('GET', '/_cluster/health', 'cluster:monitor/health'),
    route('GET', '/_cluster/health/{index}', 'cluster:monitor/health'),
  ];
  readonly params = [
    'level',
    'local',
    'master_timeout',
    'timeout',
    'wait_for_active_shards',
    'wait_for_events',
    'wait_for_nodes',
    'wait_for_no_initializing_shards',
    'wait_for_no_relocating_shards',
    'wait_for_status',
    'expand_wildcards',
    'return_200_for_cluster_health_timeout',
  ];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const level = req.param('level') ?? 'cluster';
    if (!['cluster', 'indices', 'shards'].includes(level)) {
      throw Errors.illegalArgument(`level must be one of [cluster, indices, shards] but was [${level}]`);
    }
    const waitFor = req.param('wait_for_status') as Health | undefined;
    if (waitFor !== undefined && !STATUSES.includes(waitFor)) {
      throw Errors.illegalArgument(`unknown cluster health status [${waitFor}]`);
    }
    const timeout = req.timeParam('timeout', '30s') ?? 30_000;
    req.timeParam('master_timeout');
    req.boolParam('local', false);
    const deadline = Date.now() + timeout;
    for (;;) {
      const body = this.compute(req.optionalPathParam('index'), level);
      const satisfied = body.missing === 0 && (waitFor === undefined || healthAtLeast(body.status, waitFor));
      // like Elasticsearch, a missing index or an unmet wait_for_status waits (the index may be created
      // meanwhile) until the timeout, then answers 408 with timed_out
      if (satisfied || Date.now() >= deadline) {
        const timedOut = !satisfied;
        const status = timedOut && !req.boolParam('return_200_for_cluster_health_timeout', false) ? 408 : 200;
        const rest = { ...body.rest };
        if (req.boolParam('human', false)) {
          // ES puts the readable forms right before the raw values
          const out: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(rest)) {
            if (k === 'task_max_waiting_in_queue_millis') out['task_max_waiting_in_queue'] = `${Number(v)}ms`;
            if (k === 'active_shards_percent_as_number') out['active_shards_percent'] = `${Number(v).toFixed(1)}%`;
            out[k] = v;
          }
          return RestResponses.json(status, { ...body.body, timed_out: timedOut, ...out });
        }
        return RestResponses.json(status, { ...body.body, timed_out: timedOut, ...rest });
      }
      await new Promise((r) => setTimeout(r, Math.min(100, Math.max(1, deadline - Date.now()))));
    }
  }

  private compute(
    expression: string | undefined,
    level: string,
  ): { status: Health; missing: number; body: Record<string, unknown>; rest: Record<string, unknown> } {
    let missing = 0;
    let names: string[];
    if (expression === undefined) names = this.cluster.allIndices().map((m) => m.name);
    else {
      names = [];
      for (const part of expression.split(',')) {
        try {
          names.push(...this.cluster.resolve(part, { ignoreUnavailable: false, allowNoIndices: true, allowClosed: true }));
        } catch {
          missing++;
        }
      }
      names = [...new Set(names)];
    }
    const healths: IndexHealth[] = [];
    for (const n of names) {
      const meta = this.cluster.indexMetadata(n);
      if (meta) healths.push(this.cluster.indexHealth(meta));
    }
    let status: Health = missing > 0 ? 'red' : 'green';
    let activePrimary = 0;
    let active = 0;
    let unassigned = 0;
    let unassignedPrimary = 0;
    for (const h of healths) {
      status = worse(status, h.status);
      activePrimary += h.activePrimary;
      active += h.active;
      unassigned += h.unassigned;
      unassignedPrimary += h.unassignedPrimary;
    }
    const total = active + unassigned;
    const rest: Record<string, unknown> = {
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: activePrimary,
      active_shards: active,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: unassigned,
      unassigned_primary_shards: unassignedPrimary,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: total === 0 ? 100.0 : (active / total) * 100,
    };
    if (level === 'indices' || level === 'shards') {
      const indices: Record<string, unknown> = {};
      for (const h of healths) {
        const o: Record<string, unknown> = {
          status: h.status,
          number_of_shards: h.shards,
          number_of_replicas: h.replicas,
          active_primary_shards: h.activePrimary,
          active_shards: h.active,
          relocating_shards: 0,
          initializing_shards: 0,
          unassigned_shards: h.unassigned,
          unassigned_primary_shards: h.unassignedPrimary,
        };
        if (level === 'shards') {
          const shards: Record<string, unknown> = {};
          const replicas = this.cluster.effectiveReplicas(h.meta);
          const open = h.meta.state === 'open';
          for (let i = 0; i < h.shards; i++) {
            const failed = h.failures.has(i);
            const primaryActive = open && !failed;
            shards[String(i)] = {
              status: failed ? 'red' : open && replicas > 0 ? 'yellow' : 'green',
              primary_active: primaryActive,
              active_shards: primaryActive ? 1 : 0,
              relocating_shards: 0,
              initializing_shards: 0,
              unassigned_shards: open ? replicas + (failed ? 1 : 0) : 0,
              unassigned_primary_shards: failed ? 1 : 0,
            };
          }
          o['shards'] = shards;
        }
        indices[h.name] = o;
      }
      rest['indices'] = indices;
    }
    return { status, missing, body: { cluster_name: this.node.clusterName, status }, rest };
  }
}
