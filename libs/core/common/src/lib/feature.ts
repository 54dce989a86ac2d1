import { hostname } from 'node:os';
import type { ContainerModule } from 'inversify';

/** A feature library: a named ContainerModule the host loads. */
export interface FeatureModule {
  readonly name: string;
  readonly module: ContainerModule;
}

/** Host configuration after defaults, config file, environment and -E flags are merged. */
export interface HostConfig {
  /** flat node settings, e.g. { 'http.port': 9200, 'path.data': './data', 'cluster.name': 'strata' } */
  settings: Record<string, unknown>;
  /**
   * the configuration directory (`$STRATA_PATH_CONF`, else `./config`): strata.yml and the files features
   * read next to it (the security realm's `users`, `users_roles`, `roles.yml`, `service_tokens`)
   */
  configDir?: string;
}

/**
 * TLS of the HTTP server (node:https options), contributed by a feature through Tokens.HttpsServerOptions
 * (the security library maps `xpack.security.http.ssl.*` to it). Undefined: plain HTTP.
 */
export interface HttpsServerOptions {
  key?: Buffer | string;
  cert?: Buffer | string;
  ca?: Array<Buffer | string>;
  pfx?: Buffer;
  passphrase?: string;
  requestCert?: boolean;
  rejectUnauthorized?: boolean;
  minVersion?: 'TLSv1.3' | 'TLSv1.2' | 'TLSv1.1' | 'TLSv1';
  maxVersion?: 'TLSv1.3' | 'TLSv1.2' | 'TLSv1.1' | 'TLSv1';
}

/**
 * A licensed (X-Pack) feature that a loaded library provides, bound to ExtensionPoints.XPackFeature by that
 * library: `GET /_xpack` reports a feature `available` only when some library contributes it.
 */
export interface XPackFeature {
  /** the key under `features` of GET /_xpack (eql, security, ilm, data_streams, ...) */
  readonly name: string;
  /** whether the node's settings enable it (e.g. `xpack.security.enabled`) */
  enabled(): boolean;
  /** feature-specific fields of GET /_xpack/usage, next to `available` and `enabled` */
  usage?(): Record<string, unknown>;
}

/** This node's identity: the persistent node id and `node.name` (default: the host name, as Elasticsearch). */
export interface NodeIdentity {
  readonly id: string;
  readonly name: string;
}

/** `node.name` of the settings, else the host name (Elasticsearch's default node name) */
export function nodeNameOf(settings: Record<string, unknown> | undefined): string {
  const n = settings?.['node.name'];
  return n !== undefined && n !== null && String(n) !== '' ? String(n) : hostname();
}

/**
 * The bound NodeIdentity, or (a container without a node: unit tests) one whose id is the node name; every
 * library names the node through this, so `GET /`, `_nodes`, `_cat`, tasks and search ids agree.
 */
export function nodeIdentityOf(bound: NodeIdentity | undefined, config: HostConfig | undefined): NodeIdentity {
  if (bound) return bound;
  const name = nodeNameOf(config?.settings);
  return { id: String(config?.settings['node.id'] ?? name), name };
}
