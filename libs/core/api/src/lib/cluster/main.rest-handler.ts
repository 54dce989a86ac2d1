import { inject, injectable } from 'inversify';
import { RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { ClusterView } from './cluster-view.js';
import { NODE_INFO, NodeInfo, VERSION } from './node-info.js';

/** `GET /` and `HEAD /`: the banner clients probe before anything else. */
@injectable()
export class MainRestHandler implements RestHandler {
  readonly name = 'main_action';
  readonly routes = [route('GET', '/', 'cluster:monitor/main'), route('HEAD', '/', 'cluster:monitor/main')];
  readonly params = [];

  constructor(
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(ClusterView) private readonly cluster: ClusterView,
  ) {}

  handle(_req: RestRequest): RestResponse {
    // HEAD gets the same answer: Koa sends the headers (Content-Length included) without the body
    // ES RestMainAction pretty-prints unless the request has a `pretty` parameter (`?pretty=false` disables it)
    return {
      ...RestResponses.ok({
        name: this.node.name,
        cluster_name: this.node.clusterName,
        cluster_uuid: this.cluster.clusterUuid(),
        version: { ...VERSION },
        tagline: 'You Know, for Search',
      }),
      prettyByDefault: true,
    };
  }
}
