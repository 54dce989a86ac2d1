import { inject, injectable, multiInject, optional } from 'inversify';
import { Errors, ExtensionPoints, RestResponses, route, type RestHandler, type RestRequest, type RestResponse, type XPackFeature } from '@strata/core-common';
import { ClusterView } from './cluster-view.js';
import { NODE_INFO, NodeInfo, VERSION } from './node-info.js';

/** the features Elasticsearch 8 lists under GET /_xpack (a basic license) */
const ES_FEATURES = [
  'aggregate_metric', 'analytics', 'archive', 'ccr', 'data_streams', 'data_tiers', 'enrich', 'enterprise_search', 'eql', 'esql',
  'frozen_indices', 'graph', 'ilm', 'logstash', 'ml', 'monitoring', 'rollup', 'searchable_snapshots', 'security', 'slm', 'spatial',
  'sql', 'transform', 'universal_profiling', 'voting_only', 'watcher',
];

const CATEGORIES = ['build', 'license', 'features'];

/**
 * `GET /_xpack`, `GET /_xpack/usage` and `GET /_license` (basic license). A feature is `available` and `enabled`
 * only when a loaded library contributes it (ExtensionPoints.XPackFeature); the others are listed as absent.
 */
@injectable()
export class XPackRestHandler implements RestHandler {
  readonly name = 'xpack_info_action';
  readonly routes = [
    route('GET', '/_xpack', 'cluster:monitor/xpack/info'),
    route('GET', '/_xpack/usage', 'cluster:monitor/xpack/usage'),
    route('GET', '/_license', 'cluster:monitor/xpack/license/get'),
  ];
  readonly params = ['categories', 'accept_enterprise', 'local', 'human', 'master_timeout'];
  private readonly features: ReadonlyMap<string, XPackFeature>;

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @multiInject(ExtensionPoints.XPackFeature) @optional() features: XPackFeature[] = [],
  ) {
    this.features = new Map((features ?? []).map((f) => [f.name, f]));
  }

  /** every feature name, sorted as Elasticsearch renders them, with what the loaded libraries say */
  private featureStates(): Array<[string, { available: boolean; enabled: boolean }, XPackFeature | undefined]> {
    const names = [...new Set([...ES_FEATURES, ...this.features.keys()])].sort();
    return names.map((n) => {
      const f = this.features.get(n);
      return [n, { available: f !== undefined, enabled: f !== undefined && f.enabled() }, f];
    });
  }

  handle(req: RestRequest): RestResponse {
    const uid = this.cluster.clusterUuid();
    const issued = this.node.startedAt;
    if (req.route.path === '/_license') {
      return RestResponses.ok({
        license: {
          status: 'active',
          uid,
          type: 'basic',
          issue_date: new Date(issued).toISOString(),
          issue_date_in_millis: issued,
          max_nodes: 1000,
          max_resource_units: null,
          issued_to: this.node.clusterName,
          issuer: 'elasticsearch',
          start_date_in_millis: -1,
        },
      });
    }
    if (req.route.path === '/_xpack/usage') {
      const usage: Record<string, unknown> = {};
      for (const [name, state, f] of this.featureStates()) usage[name] = { ...state, ...(f?.usage?.() ?? {}) };
      return RestResponses.ok(usage);
    }
    const categories = req.listParam('categories', CATEGORIES)!;
    // XPackInfoRequest.Category.toSet: `_all`, `_none`, else the enum constant
    for (const c of categories) {
      if (!CATEGORIES.includes(c) && c !== '_all' && c !== '_none') {
        throw Errors.illegalArgument(`No enum constant org.elasticsearch.protocol.xpack.XPackInfoRequest.Category.${c.toUpperCase()}`);
      }
    }
    const all = categories[0] === '_all';
    if (categories[0] === '_none') categories.length = 0;
    const body: Record<string, unknown> = {};
    if (all || categories.includes('build')) body['build'] = { hash: VERSION.build_hash, date: VERSION.build_date };
    if (all || categories.includes('license')) body['license'] = { uid, type: 'basic', mode: 'basic', status: 'active' };
    if (all || categories.includes('features')) body['features'] = Object.fromEntries(this.featureStates().map(([n, state]) => [n, state]));
    if (req.boolParam('human', true)) body['tagline'] = 'You know, for X';
    return RestResponses.ok(body);
  }
}
