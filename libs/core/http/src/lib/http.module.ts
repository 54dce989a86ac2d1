import { ContainerModule } from 'inversify';
import { ExtensionPoints, Tokens } from '@strata/core-common';
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
});
