/**
 * DI multi-injection tokens: the only way features talk to the rest of the system.
 * Namespaced with Symbol.for so that a library loaded twice still matches.
 *
 * Interfaces of contributions that involve engine types (QueryParser, FieldMapperType,
 * ShardSearchInterceptor, CoordinatorSearchInterceptor, IndexRequestInterceptor, IndexNameResolver,
 * EngineEventListener) are declared in @strata/core-engine; the REST, settings, auth and
 * lifecycle contracts live here.
 */
export const ExtensionPoints = {
  /** RestHandler (rest.ts) */
  RestHandler: Symbol.for('strata.ext.RestHandler'),
  /** QueryParser (core-engine) */
  QueryParser: Symbol.for('strata.ext.QueryParser'),
  /** FieldMapperType (core-engine) */
  FieldMapperType: Symbol.for('strata.ext.FieldMapperType'),
  /** AggregationTypeParser (core-engine): aggregation types contributed by features (children, parent) */
  AggregationType: Symbol.for('strata.ext.AggregationType'),
  /** IngestProcessorFactory (core-common ingest-spi.ts) */
  IngestProcessor: Symbol.for('strata.ext.IngestProcessor'),
  /** IndexRequestInterceptor (core-engine) */
  IndexRequestInterceptor: Symbol.for('strata.ext.IndexRequestInterceptor'),
  /** ShardSearchInterceptor (core-engine) */
  ShardSearchInterceptor: Symbol.for('strata.ext.ShardSearchInterceptor'),
  /** CoordinatorSearchInterceptor (core-engine) */
  CoordinatorSearchInterceptor: Symbol.for('strata.ext.CoordinatorSearchInterceptor'),
  /** SearchSourceExtension (core-engine) */
  SearchSourceExtension: Symbol.for('strata.ext.SearchSourceExtension'),
  /** IndexNameResolver (core-engine) */
  IndexNameResolver: Symbol.for('strata.ext.IndexNameResolver'),
  /** MetadataParticipant (core-engine): takes part in index deletions (data streams) */
  MetadataParticipant: Symbol.for('strata.ext.MetadataParticipant'),
  /** EngineEventListener (core-engine) */
  EngineEventListener: Symbol.for('strata.ext.EngineEventListener'),
  /** Authenticator (auth.ts) */
  Authenticator: Symbol.for('strata.ext.Authenticator'),
  /** SettingDef (settings.ts) */
  Setting: Symbol.for('strata.ext.Setting'),
  /** LifecycleComponent (lifecycle.ts) */
  LifecycleComponent: Symbol.for('strata.ext.LifecycleComponent'),
  /** NodeStatsContributor (stats.ts): sections of GET /_nodes/stats */
  NodeStatsContributor: Symbol.for('strata.ext.NodeStatsContributor'),
  /** IndexStatsContributor (stats.ts): sections of GET /_stats */
  IndexStatsContributor: Symbol.for('strata.ext.IndexStatsContributor'),
  /** SearchContextProvider (search-contexts.ts): open PITs, scrolls, async searches, listed and closed together */
  SearchContextProvider: Symbol.for('strata.ext.SearchContextProvider'),
  /** XPackFeature (feature.ts): a licensed feature a loaded library provides (GET /_xpack, /_xpack/usage) */
  XPackFeature: Symbol.for('strata.ext.XPackFeature'),
} as const;

/** Single (non-multi) service tokens shared across libs. */
export const Tokens = {
  /** HostConfig */
  HostConfig: Symbol.for('strata.HostConfig'),
  /** Clock */
  Clock: Symbol.for('strata.Clock'),
  /** Logger (pino-compatible) */
  Logger: Symbol.for('strata.Logger'),
  /** SettingsRegistry */
  SettingsRegistry: Symbol.for('strata.SettingsRegistry'),
  /** CircuitBreakerService (breakers.ts): the node's memory circuit breakers (bound by core-http) */
  CircuitBreakerService: Symbol.for('strata.CircuitBreakerService'),
  /** Authorizer */
  Authorizer: Symbol.for('strata.Authorizer'),
  /** IdGenerator */
  IdGenerator: Symbol.for('strata.IdGenerator'),
  /** HttpsServerOptions (feature.ts), optional: when bound to a value the node serves HTTPS only */
  HttpsServerOptions: Symbol.for('strata.HttpsServerOptions'),
  /** ScriptService (script-spi.ts): the shared Painless engine */
  ScriptService: Symbol.for('strata.ScriptService'),
  /** TaskManager (tasks.ts): running tasks and stored task results */
  TaskManager: Symbol.for('strata.TaskManager'),
  /** NodeIdentity (feature.ts): this node's id and name, bound by the host when the node is created */
  NodeIdentity: Symbol.for('strata.NodeIdentity'),
} as const;
