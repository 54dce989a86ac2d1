/** REST handlers of the ingest API. */
import { inject, injectable } from 'inversify';
import { EsError, RestResponses, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { IngestService } from '../ingest.service.js';
import { simulate } from '../simulate.js';
import { GROK_PATTERNS } from '../grok/grok-patterns.js';
import { IngestActions } from './ingest-actions.js';

@injectable()
export class PutPipelineRestHandler implements RestHandler {
  readonly name = 'ingest_put_pipeline';
  readonly routes = [route('PUT', '/_ingest/pipeline/{id}', IngestActions.PUT_PIPELINE)];
  readonly params = ['if_version', 'master_timeout', 'timeout'];

  constructor(@inject(IngestService) private readonly ingest: IngestService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const id = req.pathParam('id');
    const masterTimeout = req.timeParam('master_timeout', '30s');
    req.timeParam('timeout', '30s');
    const ifVersion = req.intParam('if_version');
    const body = req.hasBody() ? req.objectBody(true) : undefined;
    if (!body) throw new EsError('parse_exception', 400, 'request body or source parameter is required');
    await this.ingest.put(id, body, ifVersion, masterTimeout);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetPipelineRestHandler implements RestHandler {
  readonly name = 'ingest_get_pipeline';
  readonly routes = [
    route('GET', '/_ingest/pipeline', IngestActions.GET_PIPELINE),
    route('GET', '/_ingest/pipeline/{id}', IngestActions.GET_PIPELINE),
  ];
  readonly params = ['master_timeout', 'summary'];

  constructor(@inject(IngestService) private readonly ingest: IngestService) {}

  handle(req: RestRequest): RestResponse {
    req.timeParam('master_timeout', '30s');
    const summary = req.boolParam('summary', false);
    const id = req.optionalPathParam('id');
    const found = this.ingest.get(id);
    if (Object.keys(found).length === 0) return RestResponses.json(404, {});
    if (summary) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(found)) out[k] = {};
      return RestResponses.ok(out);
    }
    return RestResponses.ok(found);
  }
}

@injectable()
export class DeletePipelineRestHandler implements RestHandler {
  readonly name = 'ingest_delete_pipeline';
  readonly routes = [route('DELETE', '/_ingest/pipeline/{id}', IngestActions.DELETE_PIPELINE)];
  readonly params = ['master_timeout', 'timeout'];

  constructor(@inject(IngestService) private readonly ingest: IngestService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const masterTimeout = req.timeParam('master_timeout', '30s');
    req.timeParam('timeout', '30s');
    await this.ingest.delete(req.pathParam('id'), masterTimeout);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class SimulatePipelineRestHandler implements RestHandler {
  readonly name = 'ingest_simulate_pipeline';
  readonly routes = [
    route('GET', '/_ingest/pipeline/_simulate', IngestActions.SIMULATE_PIPELINE),
    route('POST', '/_ingest/pipeline/_simulate', IngestActions.SIMULATE_PIPELINE),
    route('GET', '/_ingest/pipeline/{id}/_simulate', IngestActions.SIMULATE_PIPELINE),
    route('POST', '/_ingest/pipeline/{id}/_simulate', IngestActions.SIMULATE_PIPELINE),
  ];
  readonly params = ['verbose'];

  constructor(@inject(IngestService) private readonly ingest: IngestService) {}

  handle(req: RestRequest): RestResponse {
    const verbose = req.boolParam('verbose', false);
    const body = req.hasBody() ? req.objectBody(true) : undefined;
    return RestResponses.ok(simulate(this.ingest, body, req.optionalPathParam('id'), verbose));
  }
}

@injectable()
export class GrokPatternsRestHandler implements RestHandler {
  readonly name = 'ingest_processor_grok_get';
  readonly routes = [route('GET', '/_ingest/processor/grok', IngestActions.GET_GROK_PATTERNS)];
  readonly params = ['s', 'ecs_compatibility'];

  handle(req: RestRequest): RestResponse {
    const sorted = req.boolParam('s', false);
    const ecs = req.param('ecs_compatibility') ?? 'disabled';
    if (ecs !== 'disabled' && ecs !== 'v1') {
      throw new EsError('illegal_argument_exception', 400, `unsupported ECS compatibility mode [${ecs}]`);
    }
    const keys = Object.keys(GROK_PATTERNS);
    if (sorted) keys.sort();
    const patterns: Record<string, string> = {};
    for (const k of keys) patterns[k] = GROK_PATTERNS[k];
    return RestResponses.ok({ patterns });
  }
}
