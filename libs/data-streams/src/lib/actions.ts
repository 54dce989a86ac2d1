/** Action names of the data-streams feature (Elasticsearch's), checked by authorization. */
export const DataStreamActions = {
  CREATE: 'indices:admin/data_stream/create',
  GET: 'indices:admin/data_stream/get',
  DELETE: 'indices:admin/data_stream/delete',
  MIGRATE: 'indices:admin/data_stream/migrate',
  MODIFY: 'indices:admin/data_stream/modify',
  STATS: 'indices:monitor/data_stream/stats',
  LIFECYCLE_PUT: 'indices:admin/data_stream/lifecycle/put',
  LIFECYCLE_GET: 'indices:admin/data_stream/lifecycle/get',
  LIFECYCLE_DELETE: 'indices:admin/data_stream/lifecycle/delete',
  LIFECYCLE_EXPLAIN: 'indices:admin/data_stream/lifecycle/explain',
  ROLLOVER: 'indices:admin/rollover',
} as const;

export const TemplateActions = {
  INDEX_PUT: 'indices:admin/index_template/put',
  INDEX_GET: 'indices:admin/index_template/get',
  INDEX_DELETE: 'indices:admin/index_template/delete',
  SIMULATE_INDEX: 'indices:admin/index_template/simulate_index',
  SIMULATE: 'indices:admin/index_template/simulate',
  COMPONENT_PUT: 'cluster:admin/component_template/put',
  COMPONENT_GET: 'cluster:admin/component_template/get',
  COMPONENT_DELETE: 'cluster:admin/component_template/delete',
  LEGACY_PUT: 'indices:admin/template/put',
  LEGACY_GET: 'indices:admin/template/get',
  LEGACY_DELETE: 'indices:admin/template/delete',
} as const;

export const IlmActions = {
  PUT: 'cluster:admin/ilm/put',
  GET: 'cluster:admin/ilm/get',
  DELETE: 'cluster:admin/ilm/delete',
  EXPLAIN: 'indices:admin/ilm/explain',
  STATUS: 'cluster:admin/ilm/operation_mode/get',
  START: 'cluster:admin/ilm/start',
  STOP: 'cluster:admin/ilm/stop',
  RETRY: 'indices:admin/ilm/retry',
  REMOVE: 'indices:admin/ilm/remove_policy',
  MOVE: 'cluster:admin/ilm/_move/post',
} as const;
