/**
 * `POST|PUT /_security/service/{namespace}/{service}/credential/token[/{name}]`,
 * `DELETE /_security/service/{namespace}/{service}/credential/token/{name}`,
 * `GET /_security/service[/{namespace}[/{service}]]`, `GET /_security/service/{namespace}/{service}/credential`.
 */
import { inject, injectable } from 'inversify';
import { RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { AuditTrail } from '../audit/audit-trail.js';
import { roleDescriptorToJson } from '../authz/role-descriptor.js';
import { SecurityConfig } from '../security-config.js';
import { ServiceAccountService } from '../service/service-account-service.js';
import { caller, refreshParam, requireSecurity } from './security-rest.js';
import { SecurityActions as A } from './security-actions.js';

function accountOf(req: RestRequest): string {
  return `${req.pathParam('namespace')}/${req.pathParam('service')}`;
}

@injectable()
export class CreateServiceTokenRestHandler implements RestHandler {
  readonly name = 'xpack_security_create_service_account_token';
  readonly routes = [
    route('POST', '/_security/service/{namespace}/{service}/credential/token/{name}', A.CREATE_SERVICE_TOKEN),
    route('PUT', '/_security/service/{namespace}/{service}/credential/token/{name}', A.CREATE_SERVICE_TOKEN),
    route('POST', '/_security/service/{namespace}/{service}/credential/token', A.CREATE_SERVICE_TOKEN),
  ];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ServiceAccountService) private readonly accounts: ServiceAccountService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    refreshParam(req);
    const account = accountOf(req);
    const token = await this.accounts.createToken(account, req.optionalPathParam('name'), caller(req));
    this.audit.securityConfigChange(caller(req), 'create', { service_token: { namespace: req.pathParam('namespace'), service: req.pathParam('service'), name: token.name } }, req);
    return RestResponses.ok({ created: true, token });
  }
}

@injectable()
export class DeleteServiceTokenRestHandler implements RestHandler {
  readonly name = 'xpack_security_delete_service_account_token';
  readonly routes = [route('DELETE', '/_security/service/{namespace}/{service}/credential/token/{name}', A.DELETE_SERVICE_TOKEN)];
  readonly params = ['refresh'];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ServiceAccountService) private readonly accounts: ServiceAccountService,
    @inject(AuditTrail) private readonly audit: AuditTrail,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    requireSecurity(this.config);
    refreshParam(req);
    const found = await this.accounts.deleteToken(accountOf(req), req.pathParam('name'));
    if (found) this.audit.securityConfigChange(caller(req), 'delete', { service_token: { namespace: req.pathParam('namespace'), service: req.pathParam('service'), name: req.pathParam('name') } }, req);
    return RestResponses.json(found ? 200 : 404, { found });
  }
}

@injectable()
export class GetServiceAccountsRestHandler implements RestHandler {
  readonly name = 'xpack_security_get_service_accounts';
  readonly routes = [
    route('GET', '/_security/service', A.GET_SERVICE_ACCOUNT),
    route('GET', '/_security/service/{namespace}', A.GET_SERVICE_ACCOUNT),
    route('GET', '/_security/service/{namespace}/{service}', A.GET_SERVICE_ACCOUNT),
  ];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ServiceAccountService) private readonly accounts: ServiceAccountService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const ns = req.optionalPathParam('namespace');
    const svc = req.optionalPathParam('service');
    const out: Record<string, unknown> = {};
    for (const a of this.accounts.accounts()) {
      const [n, s] = a.principal.split('/');
      if ((ns !== undefined && n !== ns) || (svc !== undefined && s !== svc)) continue;
      out[a.principal] = { role_descriptor: roleDescriptorToJson(a.role) };
    }
    return RestResponses.ok(out);
  }
}

@injectable()
export class GetServiceCredentialsRestHandler implements RestHandler {
  readonly name = 'xpack_security_get_service_account_credentials';
  readonly routes = [route('GET', '/_security/service/{namespace}/{service}/credential', A.GET_SERVICE_CREDENTIALS)];

  constructor(
    @inject(SecurityConfig) private readonly config: SecurityConfig,
    @inject(ServiceAccountService) private readonly accounts: ServiceAccountService,
  ) {}

  handle(req: RestRequest): RestResponse {
    requireSecurity(this.config);
    const account = accountOf(req);
    const indexed = this.accounts.indexTokenNames(account);
    const files = this.accounts.fileTokenNames(account);
    return RestResponses.ok({
      service_account: account,
      count: indexed.length + files.length,
      tokens: Object.fromEntries(indexed.map((n) => [n, {}])),
      nodes_credentials: {
        _nodes: { total: 1, successful: 1, failed: 0 },
        file_tokens: Object.fromEntries(files.map((n) => [n, { nodes: [this.config.nodeName] }])),
      },
    });
  }
}

export const SERVICE_ACCOUNT_HANDLERS = [CreateServiceTokenRestHandler, DeleteServiceTokenRestHandler, GetServiceAccountsRestHandler, GetServiceCredentialsRestHandler];
