import { ContainerModule } from 'inversify';
import {
  BREAKER_SETTINGS,
  ExtensionPoints,
  HierarchyCircuitBreakerService,
  Tokens,
  type CircuitBreakerService,
  type HostConfig,
  type NodeStatsContributor,
  type SettingsRegistry,
} from '@strata/core-common';
import { AllowAllAuthorizer, AuthenticatorChain } from './auth.js';
import { HttpPipeline } from './http-pipeline.js';
import { CORS_SETTINGS } from './cors.js';
import { HTTP_COMPRESSION, HTTP_COMPRESSION_LEVEL, HTTP_MAX_CONTENT_LENGTH, HTTP_MAX_HEADER_SIZE, HTTP_MAX_INITIAL_LINE_LENGTH } from './http-settings.js';
import { RouteCatalog, RouteRegistry } from './route-registry.js';

/**
 * core-http bindings: route registry, authenticator chain, default allow-all authorizer (rebind
 * Tokens.Authorizer to replace it), the pipeline, and the `http.max_content_length` node setting.
 */
export const httpModule = new ContainerModule(({ bind }) => {
  bind(RouteCatalog).toSelf().inSingletonScope();
  bind(RouteRegistry).toSelf().inSingletonScope();
  bind(AuthenticatorChain).toSelf().inSingletonScope();
  bind(Tokens.Authorizer).to(AllowAllAuthorizer).inSingletonScope();
  bind(HttpPipeline).toSelf().inSingletonScope();
  bind(ExtensionPoints.Setting).toConstantValue(HTTP_MAX_CONTENT_LENGTH);
  bind(ExtensionPoints.Setting).toConstantValue(HTTP_COMPRESSION);
  bind(ExtensionPoints.Setting).toConstantValue(HTTP_COMPRESSION_LEVEL);
  bind(ExtensionPoints.Setting).toConstantValue(HTTP_MAX_HEADER_SIZE);
  bind(ExtensionPoints.Setting).toConstantValue(HTTP_MAX_INITIAL_LINE_LENGTH);
  for (const s of CORS_SETTINGS) bind(ExtensionPoints.Setting).toConstantValue(s);
  // circuit breakers: node settings at start, cluster-settings updates as they come
  for (const s of BREAKER_SETTINGS) bind(ExtensionPoints.Setting).toConstantValue(s);
  bind(Tokens.CircuitBreakerService)
    .toDynamicValue((ctx) => {
      const host = ctx.get<HostConfig>(Tokens.HostConfig, { optional: true });
      const service = new HierarchyCircuitBreakerService({ settings: host?.settings ?? {} });
      const registry = ctx.get<SettingsRegistry>(Tokens.SettingsRegistry, { optional: true });
      for (const key of HierarchyCircuitBreakerService.dynamicKeys) {
        registry?.onUpdate(key, (value) => service.apply(key, value ?? host?.settings?.[key]));
      }
      return service;
    })
    .inSingletonScope();
  bind(ExtensionPoints.NodeStatsContributor).toDynamicValue((ctx): NodeStatsContributor => {
    const service = ctx.get<CircuitBreakerService>(Tokens.CircuitBreakerService);
    return { section: 'breakers', stats: () => service.stats() as unknown as Record<string, unknown> };
  });
});
