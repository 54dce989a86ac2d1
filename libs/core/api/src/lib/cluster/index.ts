import { ContainerModule } from 'inversify';
import { ExtensionPoints, type XPackFeature } from '@strata/core-common';
import {
  CatAliasesRestHandler,
  CatCountRestHandler,
  CatHealthRestHandler,
  CatIndicesRestHandler,
  CatNodeLevelRestHandler,
  CatThreadPoolRestHandler,
  CatNodesRestHandler,
  CatRestHandler,
  CatSegmentsRestHandler,
  CatShardsRestHandler,
} from './cat.rest-handler.js';
import { AllocationExplainRestHandler, ClusterRerouteRestHandler } from './allocation.rest-handlers.js';
import { ClusterHealthRestHandler } from './cluster-health.rest-handler.js';
import { ClusterSettingsRestHandler } from './cluster-settings.rest-handler.js';
import { ClusterStateRestHandler } from './cluster-state.rest-handler.js';
import { ClusterStatsRestHandler } from './cluster-stats.rest-handler.js';
import { ClusterView } from './cluster-view.js';
import { COMPAT_CLUSTER_SETTINGS } from './compat-settings.js';
import { IndicesStatsRestHandler } from './index-stats.rest-handler.js';
import { MainRestHandler } from './main.rest-handler.js';
import { IndicesSegmentsRestHandler } from './segments.rest-handler.js';
import { ByQueryActions, CancelTaskRestHandler, DeleteByQueryRestHandler, GetTaskRestHandler, ListTasksRestHandler, ReindexRestHandler, RethrottleRestHandler, UpdateByQueryRestHandler } from '../scripts/by-query.rest-handlers.js';
import { DeleteStoredScriptRestHandler, GetStoredScriptRestHandler, PutStoredScriptRestHandler } from '../scripts/stored-scripts.rest-handlers.js';
import { NodesInfoRestHandler, NodesStatsRestHandler } from './nodes.rest-handler.js';
import { XPackRestHandler } from './xpack.rest-handler.js';
import { CloseSearchContextsRestHandler, ListSearchContextsRestHandler, SearchContexts } from './search-contexts.rest-handlers.js';

export { ClusterView, type EngineIndexStats, type Health } from './cluster-view.js';
export { NodeInfo, NODE_INFO, VERSION, NODE_ROLES } from './node-info.js';
export { renderCat, CAT_PARAMS, type CatColumn, type CatRow } from './cat-table.js';
export { humanize } from './human.js';
export { SearchContexts, SearchContextActions, renderContext } from './search-contexts.rest-handlers.js';
export { COMPAT_CLUSTER_SETTINGS } from './compat-settings.js';

/** The cluster/monitoring endpoints: /, health, cluster settings, nodes, stats, cat, xpack/license. */
export const clusterApiModule = new ContainerModule(({ bind }) => {
  bind(ClusterView).toSelf().inSingletonScope();
  bind(SearchContexts).toSelf().inSingletonScope();
  bind(ByQueryActions).toSelf().inSingletonScope();
  for (const s of COMPAT_CLUSTER_SETTINGS) bind(ExtensionPoints.Setting).toConstantValue(s);
  // core's own licensed feature: the analytics aggregations (boxplot, top_metrics, rate, multi_terms,
  // normalize) are in the engine, not in a feature library
  bind(ExtensionPoints.XPackFeature).toConstantValue({ name: 'analytics', enabled: () => true } satisfies XPackFeature);
  for (const h of [
    MainRestHandler,
    PutStoredScriptRestHandler,
    GetStoredScriptRestHandler,
    DeleteStoredScriptRestHandler,
    UpdateByQueryRestHandler,
    RethrottleRestHandler,
    DeleteByQueryRestHandler,
    ReindexRestHandler,
    ListTasksRestHandler,
    GetTaskRestHandler,
    CancelTaskRestHandler,
    ClusterHealthRestHandler,
    AllocationExplainRestHandler,
    ClusterRerouteRestHandler,
    ClusterSettingsRestHandler,
    ClusterStateRestHandler,
    ClusterStatsRestHandler,
    NodesInfoRestHandler,
    NodesStatsRestHandler,
    IndicesStatsRestHandler,
    IndicesSegmentsRestHandler,
    CatRestHandler,
    CatIndicesRestHandler,
    CatHealthRestHandler,
    CatCountRestHandler,
    CatAliasesRestHandler,
    CatShardsRestHandler,
    CatSegmentsRestHandler,
    CatNodesRestHandler,
    CatNodeLevelRestHandler,
    CatThreadPoolRestHandler,
    XPackRestHandler,
    ListSearchContextsRestHandler,
    CloseSearchContextsRestHandler,
  ]) {
    bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  }
});
