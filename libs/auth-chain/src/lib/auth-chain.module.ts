import { ContainerModule } from 'inversify';
import { ExtensionPoints, Tokens, type FeatureModule, type XPackFeature } from '@strata/core-common';
import { ApiKeyService } from './apikey/api-key-service.js';
import { ApiKeyAuthenticator } from './apikey/api-key.authenticator.js';
import { AuditTrail } from './audit/audit-trail.js';
import { AuthCache } from './authc/auth-cache.js';
import { FileRealmFiles } from './authc/file-realm-files.js';
import { RealmChain, ReservedRealm } from './authc/realms.js';
import { RealmsAuthenticator } from './authc/realms.authenticator.js';
import { RolesService } from './authz/roles-service.js';
import { SecurityAuthorizer } from './authz/security-authorizer.js';
import { ElasticPasswordBootstrap } from './bootstrap/elastic-password.js';
import { API_KEY_HANDLERS } from './rest/api-keys.rest-handlers.js';
import { AuthenticateRestHandler } from './rest/authenticate.rest-handler.js';
import { SERVICE_ACCOUNT_HANDLERS } from './rest/service-accounts.rest-handlers.js';
import { TOKEN_HANDLERS } from './rest/tokens.rest-handlers.js';
import { PRIVILEGE_HANDLERS } from './rest/privileges.rest-handlers.js';
import { ROLE_HANDLERS } from './rest/roles.rest-handlers.js';
import { USER_HANDLERS } from './rest/users.rest-handlers.js';
import { SecurityConfig } from './security-config.js';
import { securitySettings } from './security.settings.js';
import { httpsOptions } from './tls/http-ssl.js';
import { ServiceAccountService } from './service/service-account-service.js';
import { ServiceAccountAuthenticator } from './service/service-account.authenticator.js';
import { SecurityStore } from './store/security-store.js';
import { ExpiredCredentialsRemover } from './token/expired-remover.js';
import { TokenService } from './token/token-service.js';
import { TokenAuthenticator } from './token/token.authenticator.js';

/**
 * The auth-chain feature: security on by default (`xpack.security.enabled`), the authenticator chain
 * (service accounts 10, token service 20, API keys 30, realms 100) through the core's Authenticator
 * extension point, the authorizer (Tokens.Authorizer) and the `/_security` APIs.
 */
export const authChainModule = new ContainerModule(({ bind, rebind, isBound }) => {
  const services: Array<new (...args: never[]) => unknown> = [
    SecurityConfig,
    SecurityStore,
    FileRealmFiles,
    AuthCache,
    ReservedRealm,
    RealmChain,
    RolesService,
    AuditTrail,
    ElasticPasswordBootstrap,
    ApiKeyService,
    TokenService,
    ServiceAccountService,
    ExpiredCredentialsRemover,
  ];
  for (const cls of services) bind(cls).toSelf().inSingletonScope();
  bind(ExtensionPoints.LifecycleComponent).toService(FileRealmFiles);
  bind(ExtensionPoints.LifecycleComponent).toService(AuditTrail);
  bind(ExtensionPoints.LifecycleComponent).toService(ElasticPasswordBootstrap);
  bind(ExtensionPoints.LifecycleComponent).toService(ExpiredCredentialsRemover);
  bind(ExtensionPoints.Authenticator).to(ServiceAccountAuthenticator).inSingletonScope();
  bind(ExtensionPoints.Authenticator).to(TokenAuthenticator).inSingletonScope();
  bind(ExtensionPoints.Authenticator).to(ApiKeyAuthenticator).inSingletonScope();
  bind(ExtensionPoints.Authenticator).to(RealmsAuthenticator).inSingletonScope();
  if (isBound(Tokens.Authorizer)) rebind(Tokens.Authorizer).to(SecurityAuthorizer).inSingletonScope();
  else bind(Tokens.Authorizer).to(SecurityAuthorizer).inSingletonScope();
  const handlers: Array<new (...args: never[]) => unknown> = [
    AuthenticateRestHandler,
    ...USER_HANDLERS,
    ...ROLE_HANDLERS,
    ...PRIVILEGE_HANDLERS,
    ...API_KEY_HANDLERS,
    ...TOKEN_HANDLERS,
    ...SERVICE_ACCOUNT_HANDLERS,
  ];
  for (const h of handlers) bind(ExtensionPoints.RestHandler).to(h).inSingletonScope();
  for (const s of securitySettings) bind(ExtensionPoints.Setting).toConstantValue(s);
  // GET /_xpack: security is available with this library, enabled as `xpack.security.enabled` says
  bind(ExtensionPoints.XPackFeature).toDynamicValue((ctx): XPackFeature => {
    const config = ctx.get(SecurityConfig);
    return { name: 'security', enabled: () => config.enabled };
  });
  // `xpack.security.http.ssl.*`: the host serves HTTPS when enabled (undefined: plain HTTP)
  bind(Tokens.HttpsServerOptions)
    .toDynamicValue((ctx) => httpsOptions(ctx.get(SecurityConfig)))
    .inSingletonScope();
});

export const authChainFeature: FeatureModule = { name: 'auth-chain', module: authChainModule };
