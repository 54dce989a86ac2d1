/**
 * Built-in roles (ReservedRolesStore) and the fixed role of each service account (ElasticServiceAccounts),
 * reduced to the privileges that mean something on this service. Reserved roles cannot be changed or
 * deleted through the role API.
 */
import type { IndicesPrivileges, RoleDescriptor } from './role-descriptor.js';

const RESERVED = { _reserved: true };

function idx(names: string[], privileges: string[], allowRestricted = false): IndicesPrivileges {
  return { names, privileges, allow_restricted_indices: allowRestricted };
}

function role(cluster: string[], indices: IndicesPrivileges[], extra: Partial<RoleDescriptor> = {}): RoleDescriptor {
  return { cluster, indices, applications: [], run_as: [], metadata: { ...RESERVED }, ...extra };
}

const MONITORING_BULK = 'cluster:admin/xpack/monitoring/bulk';
const OBSERVABILITY_DATA = ['logs-*', 'metrics-*', 'traces-*', 'synthetics-*', 'profiling-*'];

const KIBANA_SYSTEM = role(
  [
    'monitor',
    'manage_index_templates',
    MONITORING_BULK,
    'manage_saml',
    'manage_token',
    'manage_oidc',
    'manage_enrich',
    'manage_pipeline',
    'manage_ilm',
    'manage_transform',
    'manage_own_api_key',
    'grant_api_key',
    'cluster:admin/xpack/security/api_key/invalidate',
    'cluster:admin/xpack/security/privilege/builtin/get',
    'cluster:admin/xpack/security/user/has_privileges',
    'cancel_task',
  ],
  [
    idx(['.kibana*', '.reporting-*', '.apm-agent-configuration', '.apm-custom-link', '.apm-source-map'], ['all'], true),
    idx(['.monitoring-*'], ['read', 'read_cross_cluster']),
    idx(['.management-beats'], ['create_index', 'read', 'write']),
    idx(['.ml-anomalies*', '.ml-stats-*'], ['read']),
    idx(['.ml-annotations*', '.ml-notifications*'], ['read', 'write']),
    idx(['apm-*', ...OBSERVABILITY_DATA], ['read', 'read_cross_cluster', 'view_index_metadata']),
    idx(['.fleet-*'], ['all'], true),
    idx(['.logs-endpoint.*', 'logs-endpoint.*', '.lists-*', '.items-*', '.siem-signals-*', '.alerts-*', '.internal.alerts-*'], ['all']),
  ],
);

export const RESERVED_ROLES: ReadonlyMap<string, RoleDescriptor> = new Map<string, RoleDescriptor>([
  [
    'superuser',
    role(
      ['all'],
      [idx(['*'], ['all'], false), idx(['*'], ['monitor', 'read', 'view_index_metadata', 'read_cross_cluster'], true)],
      { applications: [{ application: '*', privileges: ['*'], resources: ['*'] }], run_as: ['*'] },
    ),
  ],
  ['kibana_system', KIBANA_SYSTEM],
  ['kibana_admin', role([], [], { applications: [{ application: 'kibana-.kibana', privileges: ['all'], resources: ['*'] }] })],
  ['kibana_user', role([], [], { applications: [{ application: 'kibana-.kibana', privileges: ['all'], resources: ['*'] }], metadata: { ...RESERVED, _deprecated: true } })],
  [
    'viewer',
    role([], [idx(['*'], ['read', 'view_index_metadata'])], {
      applications: [{ application: 'kibana-.kibana', privileges: ['read'], resources: ['*'] }],
    }),
  ],
  [
    'editor',
    role([], [idx(['*'], ['read', 'view_index_metadata']), idx(['observability-annotations', '.siem-signals*', '.lists*', '.items*', '.alerts*'], ['read', 'view_index_metadata', 'write', 'maintenance'])], {
      applications: [{ application: 'kibana-.kibana', privileges: ['all'], resources: ['*'] }],
    }),
  ],
  [
    'monitoring_user',
    role(['cluster:monitor/main', 'cluster:monitor/xpack/info', 'cluster:monitor/xpack/usage'], [idx(['.monitoring-*', 'metrics-*.elasticsearch*', 'metrics-*.kibana*', 'metrics-*.logstash*', 'metrics-*.beats*', 'metrics-*.enterprisesearch*'], ['read', 'read_cross_cluster'])]),
  ],
  [
    'remote_monitoring_agent',
    role(['manage_index_templates', 'manage_ingest_pipelines', 'monitor', 'cluster:monitor/xpack/watcher/watch/get', 'cluster:admin/xpack/watcher/watch/put', 'cluster:admin/xpack/watcher/watch/delete'], [
      idx(['.monitoring-*'], ['all']),
      idx(['metricbeat-*', 'metrics-*'], ['index', 'create_index', 'view_index_metadata', 'indices:admin/aliases']),
    ]),
  ],
  ['remote_monitoring_collector', role(['monitor'], [idx(['*'], ['monitor']), idx(['.kibana*'], ['read'])])],
  ['ingest_admin', role(['manage_index_templates', 'manage_pipeline'], [])],
  ['logstash_system', role(['monitor', MONITORING_BULK], [])],
  ['logstash_admin', role(['manage_logstash_pipelines'], [idx(['.logstash*'], ['create', 'delete', 'index', 'manage', 'read'], true)])],
  ['beats_system', role(['monitor', MONITORING_BULK], [idx(['.monitoring-beats-*'], ['create_index', 'create_doc'])])],
  ['beats_admin', role([], [idx(['.management-beats'], ['all'])])],
  ['apm_system', role(['monitor', MONITORING_BULK], [idx(['.monitoring-beats-*'], ['create_index', 'create_doc'])])],
  ['apm_user', role([], [idx(['apm-*', 'logs-apm.*', 'metrics-apm.*', 'traces-apm.*'], ['read', 'view_index_metadata'])], { metadata: { ...RESERVED, _deprecated: true } })],
  ['transport_client', role(['transport_client'], [])],
  ['snapshot_user', role(['create_snapshot', 'cluster:admin/repository/get'], [idx(['*'], ['view_index_metadata'], true)])],
  ['enrich_user', role(['manage_enrich', 'manage_ingest_pipelines', 'monitor'], [idx(['.enrich-*'], ['manage', 'read', 'write'])])],
  ['machine_learning_admin', role(['manage_ml'], [idx(['.ml-anomalies*', '.ml-notifications*', '.ml-state*', '.ml-meta*', '.ml-stats-*'], ['view_index_metadata', 'read']), idx(['.ml-annotations*'], ['view_index_metadata', 'read', 'write'])])],
  ['machine_learning_user', role(['monitor_ml'], [idx(['.ml-anomalies*', '.ml-notifications*'], ['view_index_metadata', 'read']), idx(['.ml-annotations*'], ['view_index_metadata', 'read', 'write'])])],
  ['transform_admin', role(['manage_transform'], [idx(['.transform-notifications-*', '.data-frame-notifications-*', '.transform-notifications-read'], ['view_index_metadata', 'read'])])],
  ['transform_user', role(['monitor_transform'], [idx(['.transform-notifications-*', '.data-frame-notifications-*', '.transform-notifications-read'], ['view_index_metadata', 'read'])])],
  ['watcher_admin', role(['manage_watcher'], [idx(['.watches', '.triggered_watches', '.watcher-history-*'], ['read'])])],
  ['watcher_user', role(['monitor_watcher'], [idx(['.watches'], ['read']), idx(['.watcher-history-*'], ['read'])])],
  ['rollup_admin', role(['manage_rollup'], [])],
  ['rollup_user', role(['monitor_rollup'], [])],
  ['reporting_user', role([], [], { metadata: { ...RESERVED, _deprecated: true } })],
]);

// ------------------------------------------------------------------ service accounts

export interface ServiceAccountDef {
  /** `namespace/service` */
  readonly principal: string;
  readonly role: RoleDescriptor;
}

function serviceRole(cluster: string[], indices: IndicesPrivileges[]): RoleDescriptor {
  return { cluster, indices, applications: [], run_as: [], metadata: {} };
}

export const SERVICE_ACCOUNTS: ReadonlyMap<string, ServiceAccountDef> = new Map(
  (
    [
      {
        principal: 'elastic/fleet-server',
        role: serviceRole(
          ['monitor', 'manage_own_api_key', 'read_fleet_secrets', 'cluster:admin/xpack/connector/*'],
          [
            idx(['logs-*', 'metrics-*', 'traces-*', '.logs-endpoint.diagnostic.collection-*', '.logs-endpoint.action.responses-*', '.logs-endpoint.heartbeat-*'], ['write', 'create_index', 'auto_configure']),
            idx(['profiling-*'], ['read', 'write']),
            idx(['traces-apm.sampled-*'], ['read', 'monitor', 'maintenance']),
            idx(['.fleet-secrets*'], ['read'], true),
            idx(
              ['.fleet-actions*', '.fleet-agents*', '.fleet-artifacts*', '.fleet-enrollment-api-keys*', '.fleet-policies*', '.fleet-policies-leader*', '.fleet-servers*', '.fleet-fileds*'],
              ['read', 'write', 'monitor', 'create_index', 'auto_configure', 'maintenance'],
              true,
            ),
            idx(['synthetics-*'], ['read', 'write', 'create_index', 'auto_configure']),
          ],
        ),
      },
      { principal: 'elastic/kibana', role: { ...KIBANA_SYSTEM, metadata: {} } },
      {
        principal: 'elastic/enterprise-search-server',
        role: serviceRole(
          ['manage', 'manage_security'],
          [
            idx(['.ent-search-*', '.monitoring-ent-search-*', 'metricbeat-ent-search-*', 'enterprise-search-*', 'logs-app_search.analytics-default', 'logs-enterprise_search.api-default', 'logs-app_search.search_relevance_suggestions-default', 'logs-crawler-default', 'logs-workplace_search.analytics-default', 'logs-workplace_search.content_events-default', '.elastic-connectors*'], [
              'manage',
              'read',
              'write',
            ], true),
          ],
        ),
      },
    ] as ServiceAccountDef[]
  ).map((d) => [d.principal, d]),
);
