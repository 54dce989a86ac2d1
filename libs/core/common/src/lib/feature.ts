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
