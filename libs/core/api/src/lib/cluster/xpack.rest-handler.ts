import { inject, injectable } from 'inversify';
import { RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { ClusterView } from './cluster-view.js';
import { NODE_INFO, NodeInfo, VERSION } from './node-info.js';

/** `GET /_xpack` and `GET /_license`: minimal answers for clients that probe them (basic license). */
@injectable()
export class XPackRestHandler implements RestHandler {
  readonly name = 'xpack_info_action';
  readonly routes = [
    route('GET', '/_xpack', 'cluster:monitor/xpack/info'),
    route('GET', '/_license', 'cluster:monitor/xpack/license/get'),
  ];
  readonly params = ['categories', 'accept_enterprise', 'local'];

  constructor(
    @inject(ClusterView) private readonly cluster: ClusterView,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}

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
    const feature = (available: boolean) => ({ available, enabled: available });
    return RestResponses.ok({
      build: { hash: VERSION.build_hash, date: VERSION.build_date },
      license: { uid, type: 'basic', mode: 'basic', status: 'active' },
      features: {
        eql: feature(true),
        security: feature(true),
        ilm: feature(true),
        data_streams: feature(true),
        ml: feature(false),
        watcher: feature(false),
        graph: feature(false),
        monitoring: feature(false),
        sql: feature(false),
        transform: feature(false),
      },
      tagline: 'You know, for X',
    });
  }
}
