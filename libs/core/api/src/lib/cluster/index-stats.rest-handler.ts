import { inject, injectable, multiInject, optional } from 'inversify';
import {
  Errors,
  indicesOptionsOf,
  ExtensionPoints,
  RestResponses,
  route,
  type IndexStatsContributor,
  type RestHandler,
  type RestRequest,
  type RestResponse,
} from '@strata/core-common';
import { ClusterView } from './cluster-view.js';
import { humanize } from './human.js';
import { addSections, INDEX_METRICS, indexSections, sectionOfIndexMetric } from './stats-sections.js';

/** `GET /_stats[/{metric}]` and `GET /{index}/_stats[/{metric}]`. */
@injectable()
export class IndicesStatsRestHandler implements RestHandler {
  readonly name = 'indices_stats_action';
  readonly routes = [
    route('GET', '/_stats', 'indices:monitor/stats'),
    route('GET', '/_stats/{metric}', 'indices:monitor/stats'),
    route('GET', '/{index}/_stats', 'indices:monitor/stats'),
    route('GET', '/{index}/_stats/{metric}', 'indices:monitor/stats'),
  ];
  readonly params = [
    'level',
    'fields',
    'completion_fields',
    'fielddata_fields',
    'groups',
    'types',
    'include_segment_file_sizes',
    'include_unloaded_segments',
    'forbid_closed_indices',
    'expand_wildcards',
    'ignore_unavailable',
    'allow_no_indices',
  ];
  private readonly contributors: IndexStatsContributor[];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @multiInject(ExtensionPoints.IndexStatsContributor) @optional() contributors: IndexStatsContributor[] | undefined = [],
  ) {
    this.contributors = contributors ?? [];
  }

  handle(req: RestRequest): RestResponse {
    const human = req.boolParam('human', false);
    const level = req.param('level') ?? 'indices';
    if (!['cluster', 'indices', 'shards'].includes(level)) {
      throw Errors.illegalArgument(`level parameter must be one of [cluster] or [indices] or [shards] but was [${level}]`);
    }
    const known = [...new Set([...INDEX_METRICS, ...this.contributors.map((c) => c.metric)])];
    const metricParam = req.optionalPathParam('metric');
    let metrics = known;
    if (metricParam !== undefined && metricParam !== '_all') {
      metrics = metricParam.split(',');
      const unknown = metrics.filter((m) => !known.includes(m));
      if (unknown.length > 0) {
        throw Errors.illegalArgument(
          `request [${req.path}] contains unrecognized metric${unknown.length > 1 ? 's' : ''}: [${unknown.join('], [')}]`,
        );
      }
    }
    const names = this.cluster.resolve(req.optionalPathParam('index'), indicesOptionsOf(req));
    let total = 0;
    let successful = 0;
    let all: Record<string, unknown> = {};
    const indices: Record<string, unknown> = {};
    for (const name of names) {
      const meta = this.cluster.indexMetadata(name);
      if (!meta) continue;
      const health = this.cluster.indexHealth(meta);
      total += health.shards * (1 + health.replicas);
      successful += health.active;
      const sections: Record<string, unknown> = indexSections(health.shards, this.cluster.indexStats(name));
      for (const c of this.contributors) sections[c.metric] = c.indexStats(name, { human });
      const picked: Record<string, unknown> = {};
      for (const m of metrics) {
        const section = sectionOfIndexMetric(m);
        if (sections[section] !== undefined) picked[section] = sections[section];
      }
      all = addSections(all, picked);
      indices[name] = {
        uuid: meta.uuid,
        health: health.status,
        status: meta.state,
        primaries: picked,
        total: picked,
      };
    }
    const body: Record<string, unknown> = {
      _shards: { total, successful, failed: 0 },
      _all: { primaries: all, total: all },
    };
    if (level !== 'cluster') body['indices'] = indices;
    return RestResponses.ok(human ? humanize(body) : body);
  }
}
