import { inject, injectable } from 'inversify';
import { RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { authenticateResponse, type Authentication } from '../authc/authentication.js';
import { securityDisabled } from '../authc/auth-errors.js';
import { SecurityConfig } from '../security-config.js';
import { SecurityActions } from './security-actions.js';

/** `GET /_security/_authenticate`: who the credentials of this request are */
@injectable()
export class AuthenticateRestHandler implements RestHandler {
  readonly name = 'security_authenticate_action';
  readonly routes = [route('GET', '/_security/_authenticate', SecurityActions.AUTHENTICATE)];
  readonly params = ['with_profile_uid'];

  constructor(@inject(SecurityConfig) private readonly config: SecurityConfig) {}

  handle(req: RestRequest): RestResponse {
    if (!this.config.enabled) throw securityDisabled();
    req.boolParam('with_profile_uid', false);
    return RestResponses.ok(authenticateResponse(req.principal as Authentication));
  }
}
