/**
 * REST: `_ilm/policy`, `_ilm/explain`, `_ilm/status|start|stop`, `_ilm/retry`, `_ilm/remove`, `_ilm/move`.
 */
import { inject, injectable } from 'inversify';
import { Errors, RestResponses, addDeprecationWarning, indicesOptionsFromParams, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { EngineTokens, type IndexNameExpressionResolver, type MetadataStore } from '@strata/core-engine';
import { IlmActions as A } from '../actions.js';
import { isObj, unknownField, type Json } from '../util.js';
import { IlmService, executionState } from './ilm-service.js';
import { PHASES } from './policy.js';

const TIMEOUTS = ['master_timeout', 'timeout'];

function resolveIndices(resolver: IndexNameExpressionResolver, req: RestRequest, expr: string): string[] {
  const opts = indicesOptionsFromParams((n) => req.param(n), { ignoreUnavailable: false, allowNoIndices: true, expandWildcards: { open: true, closed: true, hidden: false } });
  return resolver.concreteIndices(expr, opts, 'read');
}

@injectable()
export class PutLifecycleRestHandler implements RestHandler {
  readonly name = 'ilm_put_action';
  readonly routes = [route('PUT', '/_ilm/policy/{policy}', A.PUT)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    for (const k of Object.keys(body)) if (k !== 'policy') throw unknownField(req, 'put_lifecycle_request', k);
    const policy = body['policy'];
    if (isObj(policy) && isObj(policy['phases'])) {
      for (const [phase, def] of Object.entries(policy['phases'] as Json)) {
        const rollover = isObj(def) && isObj(def['actions']) ? (def['actions'] as Json)['rollover'] : undefined;
        if (isObj(rollover) && rollover['max_size'] !== undefined) {
          addDeprecationWarning(
            `Use of the [max_size] rollover condition found in phase [${phase}]. This condition has been deprecated in favour of the [max_primary_shard_size] condition and will be removed in a later version`,
          );
        }
      }
    }
    await this.ilm.putPolicy(req.pathParam('policy'), policy);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetLifecycleRestHandler implements RestHandler {
  readonly name = 'ilm_get_action';
  readonly routes = [route('GET', '/_ilm/policy', A.GET), route('GET', '/_ilm/policy/{policy}', A.GET)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  handle(req: RestRequest): RestResponse {
    const out: Json = {};
    for (const [name, p] of this.ilm.getPolicies(req.optionalPathParam('policy'))) {
      const phases: Json = {};
      for (const ph of PHASES) if (p.policy.phases[ph]) phases[ph] = p.policy.phases[ph];
      const policy: Json = { phases };
      if (p.policy._meta) policy['_meta'] = p.policy._meta;
      out[name] = { version: p.version, modified_date: new Date(p.modified_date).toISOString(), policy, in_use_by: this.ilm.inUseBy(name) };
    }
    return RestResponses.ok(out);
  }
}

@injectable()
export class DeleteLifecycleRestHandler implements RestHandler {
  readonly name = 'ilm_delete_action';
  readonly routes = [route('DELETE', '/_ilm/policy/{policy}', A.DELETE)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.ilm.deletePolicy(req.pathParam('policy'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class ExplainLifecycleRestHandler implements RestHandler {
  readonly name = 'ilm_explain_lifecycle_action';
  readonly routes = [route('GET', '/{index}/_ilm/explain', A.EXPLAIN)];
  readonly params = ['only_managed', 'only_errors', 'expand_wildcards', 'ignore_unavailable', 'allow_no_indices', 'human', 'master_timeout'];

  constructor(
    @inject(IlmService) private readonly ilm: IlmService,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const onlyManaged = req.boolParam('only_managed', false);
    const onlyErrors = req.boolParam('only_errors', false);
    const human = req.boolParam('human', false);
    const md = this.store.current();
    const out: Json = {};
    for (const n of resolveIndices(this.resolver, req, req.pathParam('index')).sort()) {
      const im = md.indices[n];
      if (!im) continue;
      const e = this.ilm.explain(im, human);
      if (onlyManaged && e['managed'] !== true) continue;
      if (onlyErrors && executionState(im)?.step !== 'ERROR') continue;
      out[n] = e;
    }
    return RestResponses.ok({ indices: out });
  }
}

@injectable()
export class IlmStatusRestHandler implements RestHandler {
  readonly name = 'ilm_get_status_action';
  readonly routes = [route('GET', '/_ilm/status', A.STATUS)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  handle(): RestResponse {
    return RestResponses.ok({ operation_mode: this.ilm.operationMode() });
  }
}

@injectable()
export class IlmStartStopRestHandler implements RestHandler {
  readonly name = 'ilm_start_stop_action';
  readonly routes = [route('POST', '/_ilm/start', A.START), route('POST', '/_ilm/stop', A.STOP)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.ilm.setOperationMode(req.path.endsWith('/_ilm/start') ? 'RUNNING' : 'STOPPING');
    return RestResponses.acknowledged();
  }
}

@injectable()
export class IlmRetryRestHandler implements RestHandler {
  readonly name = 'ilm_retry_action';
  readonly routes = [route('POST', '/{index}/_ilm/retry', A.RETRY)];
  readonly params = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices', ...TIMEOUTS];

  constructor(
    @inject(IlmService) private readonly ilm: IlmService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const names = resolveIndices(this.resolver, req, req.pathParam('index'));
    if (names.length === 0) throw Errors.indexNotFound(req.pathParam('index'));
    await this.ilm.retry(names);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class IlmRemovePolicyRestHandler implements RestHandler {
  readonly name = 'ilm_remove_policy_action';
  readonly routes = [route('POST', '/{index}/_ilm/remove', A.REMOVE)];
  readonly params = ['expand_wildcards', 'ignore_unavailable', 'allow_no_indices', ...TIMEOUTS];

  constructor(
    @inject(IlmService) private readonly ilm: IlmService,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const names = resolveIndices(this.resolver, req, req.pathParam('index'));
    const failed = await this.ilm.removePolicy(names);
    return RestResponses.ok({ has_failures: failed.length > 0, failed_indexes: failed });
  }
}

@injectable()
export class IlmMoveToStepRestHandler implements RestHandler {
  readonly name = 'ilm_move_to_step_action';
  readonly routes = [route('POST', '/_ilm/move/{index}', A.MOVE)];
  readonly params = TIMEOUTS;

  constructor(@inject(IlmService) private readonly ilm: IlmService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    const cur = body['current_step'];
    const next = body['next_step'];
    if (!isObj(cur) || !isObj(next)) throw Errors.xContentParse('Required [current_step, next_step]');
    if (typeof next['phase'] !== 'string') throw Errors.xContentParse('[next_step] phase is required');
    await this.ilm.moveToStep(
      req.pathParam('index'),
      { phase: String(cur['phase']), action: String(cur['action']), name: String(cur['name']) },
      { phase: next['phase'], action: typeof next['action'] === 'string' ? next['action'] : undefined, name: typeof next['name'] === 'string' ? next['name'] : undefined },
    );
    return RestResponses.acknowledged();
  }
}

export const ILM_REST_HANDLERS = [
  PutLifecycleRestHandler,
  GetLifecycleRestHandler,
  DeleteLifecycleRestHandler,
  ExplainLifecycleRestHandler,
  IlmStatusRestHandler,
  IlmStartStopRestHandler,
  IlmRetryRestHandler,
  IlmRemovePolicyRestHandler,
  IlmMoveToStepRestHandler,
];
