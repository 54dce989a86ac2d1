import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Koa from 'koa';
import { Container, ContainerModule } from 'inversify';
import {
  Errors,
  ExtensionPoints,
  HierarchyCircuitBreakerService,
  RequestContexts,
  SettingParsers,
  SettingsRegistry,
  Tokens,
  nodeNameOf,
  setting,
  systemClock,
  type FeatureModule,
  type HostConfig,
  type HttpsServerOptions,
  type IdGenerator,
  type LifecycleComponent,
  type Logger,
  type NodeIdentity,
  type SettingDef,
} from '@strata/core-common';
import { EngineTokens, InMemoryMetadataStore, clusterModule, searchModule, storageModule } from '@strata/core-engine';
import { HTTP_MAX_HEADER_SIZE, HTTP_MAX_INITIAL_LINE_LENGTH, HttpPipeline, httpModule, installClientErrorHandler } from '@strata/core-http';
import { clusterApiModule } from './cluster/index.js';
import { documentsApiModule } from './documents/index.js';
import { indicesApiModule } from './indices/index.js';
import { searchApiModule } from './search/index.js';
import { snapshotsApiModule } from './snapshots/snapshots.rest-handlers.js';
import { NodeInfo, NODE_INFO } from './cluster/node-info.js';

/**
 * A port or an Elasticsearch port range (`9200-9300`: the first free one is bound). Returns the single
 * port as a number, a range as `[from, to]`.
 */
export function parsePortRange(raw: unknown, key: string): number | [number, number] {
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  const m = /^(\d+)(?:-(\d+))?$/.exec(text);
  const a = m ? Number(m[1]) : NaN;
  const b = m && m[2] !== undefined ? Number(m[2]) : a;
  if (!m || a > 65535 || b > 65535 || b < a) {
    throw Errors.illegalArgument(`Failed to parse value [${String(raw)}] for setting [${key}]: expected a port or a port range`);
  }
  return a === b ? a : [a, b];
}

/** Node settings the host itself reads; registered here unless another module already did. */
export const HOST_SETTINGS: readonly SettingDef[] = [
  setting({ key: 'http.port', scope: 'node', dynamic: false, defaultValue: 9200, parse: (raw: unknown) => parsePortRange(raw, 'http.port') }),
  setting({ key: 'network.host', scope: 'node', dynamic: false, defaultValue: '127.0.0.1', parse: SettingParsers.string() }),
  setting({ key: 'http.host', scope: 'node', dynamic: false, defaultValue: '', parse: SettingParsers.string() }),
  setting({ key: 'path.data', scope: 'node', dynamic: false, defaultValue: './data', parse: SettingParsers.string() }),
  setting({ key: 'path.logs', scope: 'node', dynamic: false, defaultValue: '', parse: SettingParsers.string() }),
  setting({ key: 'cluster.name', scope: 'node', dynamic: false, defaultValue: 'strata', parse: SettingParsers.string() }),
  setting({ key: 'node.name', scope: 'node', dynamic: false, defaultValue: '', parse: SettingParsers.string() }),
  // accepted for compatibility with Elasticsearch configurations (single node, no effect here)
  setting({
    key: 'discovery.type',
    scope: 'node',
    dynamic: false,
    defaultValue: 'single-node',
    parse: SettingParsers.oneOf('discovery.type', ['single-node', 'multi-node']),
  }),
  setting({ key: 'discovery.seed_hosts', scope: 'node', dynamic: false, defaultValue: [], parse: SettingParsers.any() }),
  setting({ key: 'cluster.initial_master_nodes', scope: 'node', dynamic: false, defaultValue: [], parse: SettingParsers.any() }),
  setting({ key: 'node.roles', scope: 'node', dynamic: false, defaultValue: [], parse: SettingParsers.any() }),
  setting({ key: 'bootstrap.memory_lock', scope: 'node', dynamic: false, defaultValue: false, parse: SettingParsers.boolean('bootstrap.memory_lock') }),
  // on by default, as in Elasticsearch 8 (takes effect when the auth-chain feature is loaded); the test
  // hosts (createTestHost, the e2e helpers) default it to false unless a test asks for security
  setting({ key: 'xpack.security.enabled', scope: 'node', dynamic: false, defaultValue: true, parse: SettingParsers.boolean('xpack.security.enabled') }),
  setting({ key: 'xpack.ml.enabled', scope: 'node', dynamic: false, defaultValue: false, parse: SettingParsers.boolean('xpack.ml.enabled') }),
  setting({
    key: 'logger.level',
    scope: 'node',
    dynamic: false,
    defaultValue: 'info',
    parse: SettingParsers.oneOf('logger.level', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']),
  }),
];

/** node settings whose defaults are written into HostConfig.settings (the others stay absent unless given) */
const FILLED_DEFAULTS = ['http.port', 'network.host', 'path.data', 'cluster.name', 'logger.level'];

export interface NodeOptions {
  /** flat node settings (defaults are filled in) */
  settings?: Record<string, unknown>;
  /** feature libraries to load */
  features?: readonly FeatureModule[];
  /** modules loaded last: rebind Clock, IdGenerator, ... for tests */
  overrides?: readonly ContainerModule[];
  /** a logger to use instead of pino (tests pass a silent one) */
  logger?: Logger;
  /** the configuration directory (HostConfig.configDir) */
  configDir?: string;
}

export interface StrataNode {
  readonly app: Koa;
  /** `https` when a feature bound Tokens.HttpsServerOptions (`xpack.security.http.ssl.enabled`), else `http` */
  readonly scheme: 'http' | 'https';
  /** a server for the app (HTTPS with the contributed TLS options); listen on it */
  createServer(): Server;
  readonly container: Container;
  readonly settings: Record<string, unknown>;
  /** starts lifecycle components (call once, before listening) */
  start(): Promise<void>;
  /** stops lifecycle components, closes shards and flushes; idempotent */
  close(): Promise<void>;
}

/** Elasticsearch-style 20-char base64url ids: time-ordered prefix, sequence and random bits. */
export class TimeBasedIdGenerator implements IdGenerator {
  private seq = randomBytes(3).readUIntBE(0, 3);
  private lastTs = 0;
  private readonly node = randomBytes(6);

  next(): string {
    let ts = Date.now();
    if (ts < this.lastTs) ts = this.lastTs;
    this.lastTs = ts;
    this.seq = (this.seq + 1) & 0xffffff;
    const b = Buffer.alloc(15);
    b.writeUIntBE(ts, 0, 6);
    b.writeUIntBE(this.seq, 6, 3);
    this.node.copy(b, 9);
    return b.toString('base64url');
  }
}

/** a logger that drops everything */
export const SILENT_LOGGER: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined };

/**
 * The node's logger: pino writing ECS JSON lines (`@elastic/ecs-pino-format`: `@timestamp`,
 * `log.level`, `message`, `ecs.version`), each line carrying the `http.request.id` of the request
 * it was written under.
 */
async function pinoLogger(level: string): Promise<Logger> {
  if (level === 'silent') return SILENT_LOGGER;
  const [{ pino }, { ecsFormat }] = await Promise.all([import('pino'), import('@elastic/ecs-pino-format')]);
  const log: unknown = pino({
    ...ecsFormat({ apmIntegration: false, serviceName: 'strata' }),
    level,
    mixin() {
      const rc = RequestContexts.current();
      return rc ? { 'http.request.id': rc.id } : {};
    },
  });
  return log as Logger;
}

/** Loads the node id persisted under path.data (created on first start), like ES's node id. */
function persistentNodeId(dataPath: string): string {
  const dir = join(dataPath, '_state');
  const file = join(dir, 'node.id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch {
    /* first start */
  }
  const id = randomBytes(16).toString('base64url').slice(0, 22);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, id + '\n');
  return id;
}

/** Drops exact duplicates of a setting definition (warned); different definitions of one key throw. */
export function dedupeSettings(defs: readonly SettingDef[], logger: Logger): SettingDef[] {
  const byKey = new Map<string, SettingDef>();
  const out: SettingDef[] = [];
  for (const d of defs) {
    const prev = byKey.get(d.key);
    if (!prev) {
      byKey.set(d.key, d);
      out.push(d);
      continue;
    }
    if (prev === d) continue;
    const same =
      prev.scope === d.scope &&
      prev.dynamic === d.dynamic &&
      Boolean(prev.finalSetting) === Boolean(d.finalSetting) &&
      Boolean(prev.prefix) === Boolean(d.prefix) &&
      JSON.stringify(prev.defaultValue) === JSON.stringify(d.defaultValue);
    if (!same) throw new Error(`setting [${d.key}] is already registered with a different definition`);
    logger.warn({ setting: d.key }, 'setting registered twice with the same definition; keeping the first');
  }
  return out;
}

/**
 * Core modules loaded before the features: HTTP plumbing and the built-in APIs. The engine and API
 * modules of the other core slices are listed here as they land.
 */
export function coreModules(): ContainerModule[] {
  return [
    // engine: metadata/settings/mappings, storage (shards, documents), search
    clusterModule,
    storageModule,
    searchModule,
    // HTTP and the built-in REST APIs
    httpModule,
    clusterApiModule,
    indicesApiModule,
    documentsApiModule,
    searchApiModule,
    snapshotsApiModule,
  ];
}

/**
 * The composition root: one container (singleton scope) with configuration, clock, logger, ids,
 * the engine, the core APIs and the features; node settings validated through the SettingsRegistry.
 */
export async function createNode(options: NodeOptions = {}): Promise<StrataNode> {
  const settings: Record<string, unknown> = { ...(options.settings ?? {}) };
  for (const def of HOST_SETTINGS) {
    if (settings[def.key] === undefined && FILLED_DEFAULTS.includes(def.key)) settings[def.key] = def.defaultValue;
  }
  settings['path.data'] = resolve(String(settings['path.data']));
  const config: HostConfig = { settings };
  if (options.configDir !== undefined) config.configDir = resolve(options.configDir);
  // silent under jest unless a level is configured explicitly
  const level = options.settings?.['logger.level'] ?? (process.env['JEST_WORKER_ID'] ? 'silent' : settings['logger.level']);
  const logger = options.logger ?? (await pinoLogger(String(level ?? 'info')));

  const container = new Container({ defaultScope: 'Singleton' });
  container.bind(Tokens.HostConfig).toConstantValue(config);
  container.bind(Tokens.Clock).toConstantValue(systemClock);
  container.bind(Tokens.Logger).toConstantValue(logger);
  container.bind(Tokens.IdGenerator).toConstantValue(new TimeBasedIdGenerator());

  await container.loadAsync(...coreModules(), ...(options.features ?? []).map((f) => f.module));
  // one registry from every contribution; the same definition contributed twice by two core slices
  // (same key, scope, dynamic flag and default) is tolerated with a warning, a real conflict fails the boot
  const buildRegistry = (defs: SettingDef[]): SettingsRegistry => new SettingsRegistry(dedupeSettings(defs, logger));
  if (container.isBound(Tokens.SettingsRegistry)) {
    container
      .rebind(Tokens.SettingsRegistry)
      .toDynamicValue((ctx) => buildRegistry(ctx.getAll<SettingDef>(ExtensionPoints.Setting, { optional: true }) ?? []))
      .inSingletonScope();
  } else {
    container
      .bind(Tokens.SettingsRegistry)
      .toDynamicValue((ctx) => buildRegistry(ctx.getAll<SettingDef>(ExtensionPoints.Setting, { optional: true }) ?? []))
      .inSingletonScope();
  }
  if (!container.isBound(EngineTokens.MetadataStore)) {
    // until the cluster-metadata module is loaded: an in-memory store keeps the APIs answering
    container.bind(EngineTokens.MetadataStore).toConstantValue(new InMemoryMetadataStore());
  }
  if (options.overrides?.length) await container.loadAsync(...options.overrides);

  // node settings: unknown keys fail fast, values must parse
  const registry = container.get<SettingsRegistry>(Tokens.SettingsRegistry);
  // exact keys: a prefix family (`logger.*` cluster levels) must not hide a node setting (`logger.level`)
  const known = new Set(registry.all().map((d) => d.key));
  for (const def of HOST_SETTINGS) if (!known.has(def.key)) registry.register(def);
  for (const [key, value] of Object.entries(settings)) {
    const def = registry.get(key);
    if (!def || def.scope === 'index') {
      throw new Error(
        `unknown setting [${key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings`,
      );
    }
    try {
      def.parse(value);
    } catch (e) {
      throw new Error(`invalid value for setting [${key}]: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }

  const dataPath = String(settings['path.data']);
  const nodeId = persistentNodeId(dataPath);
  const info = new NodeInfo(nodeId, nodeNameOf(settings), String(settings['cluster.name']), String(settings['network.host']));
  container.bind(NODE_INFO).toConstantValue(info);
  // one node name everywhere: the engine, tasks, paging ids and the thread pools read it from here
  container.bind(Tokens.NodeIdentity).toConstantValue({ id: info.id, name: info.name } satisfies NodeIdentity);

  // resolve the HTTP pipeline now: duplicate routes fail at boot, not at the first request
  const pipeline = container.get(HttpPipeline);
  const app = new Koa();
  app.proxy = false;
  app.silent = true;
  app.on('error', (err: unknown) => logger.debug({ err: String(err) }, 'http error'));
  app.use(pipeline.middleware());

  // TLS options are read (and their files checked) now, so a bad configuration fails the start
  const tls = container.isBound(Tokens.HttpsServerOptions) ? container.get<HttpsServerOptions | undefined>(Tokens.HttpsServerOptions) : undefined;
  let started: LifecycleComponent[] = [];
  let closed = false;
  return {
    app,
    container,
    settings,
    scheme: tls ? 'https' : 'http',
    createServer(): Server {
      const rawHeader = settings[HTTP_MAX_HEADER_SIZE.key];
      const rawLine = settings[HTTP_MAX_INITIAL_LINE_LENGTH.key];
      const limits = {
        maxHeaderSize: rawHeader === undefined ? HTTP_MAX_HEADER_SIZE.defaultValue : HTTP_MAX_HEADER_SIZE.parse(rawHeader),
        maxInitialLineLength: rawLine === undefined ? HTTP_MAX_INITIAL_LINE_LENGTH.defaultValue : HTTP_MAX_INITIAL_LINE_LENGTH.parse(rawLine),
      };
      // Node counts the request line into the header size: leave room for a request line at its own limit
      const options = { maxHeaderSize: limits.maxHeaderSize + limits.maxInitialLineLength };
      const server = tls
        ? (createHttpsServer({ ...tls, ...options }, app.callback()) as unknown as Server)
        : createHttpServer(options, app.callback());
      installClientErrorHandler(server, limits);
      return server;
    },
    async start() {
      // open every index's shards (recovery) before the first request
      if (container.isBound(EngineTokens.IndicesService)) container.get(EngineTokens.IndicesService);
      // circuit-breaker limits persisted by _cluster/settings in an earlier run (transient ones win, as in ES)
      if (container.isBound(Tokens.CircuitBreakerService) && container.isBound(EngineTokens.MetadataStore)) {
        const breakers = container.get<HierarchyCircuitBreakerService>(Tokens.CircuitBreakerService);
        const md = container.get<{ current(): { persistentSettings: Record<string, unknown>; transientSettings: Record<string, unknown> } }>(EngineTokens.MetadataStore).current();
        for (const key of HierarchyCircuitBreakerService.dynamicKeys) {
          const v = md.transientSettings[key] ?? md.persistentSettings[key];
          if (v !== undefined && v !== null) breakers.apply(key, v);
        }
      }
      const components = container.getAll<LifecycleComponent>(ExtensionPoints.LifecycleComponent, { optional: true }) ?? [];
      for (const c of components) {
        await c.start();
        started.push(c);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const c of started.reverse()) {
        try {
          await c.stop();
        } catch (e) {
          logger.warn({ err: String(e), component: c.name }, 'failed to stop component');
        }
      }
      started = [];
      if (container.isBound(EngineTokens.IndicesService)) {
        const svc = container.get<{ close?: () => Promise<void> | void }>(EngineTokens.IndicesService);
        try {
          await svc.close?.();
        } catch (e) {
          logger.warn({ err: String(e) }, 'failed to close shards');
        }
      }
      await container.unbindAllAsync();
    },
  };
}
