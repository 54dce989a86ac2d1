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
