/**
 * REST: `/_data_stream` (create, get, delete, migrate, modify, stats, lifecycle) and `/{target}/_rollover`.
 */
import { inject, injectable } from 'inversify';
import { Errors, RestResponses, parseExpandWildcards, parseTimeValue, route, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { EngineTokens, type IndexMetadata, type MetadataStore } from '@strata/core-engine';
import { DataStreamActions as A } from '../actions.js';
import { isObj, unknownField, type Json } from '../util.js';
import { dataStreams } from './data-stream-metadata.js';
import { DataStreamService, renderLifecycle, type ExpandOptions } from './data-stream-service.js';
import { RolloverService, parseConditions } from '../rollover/rollover-service.js';

const TIMEOUTS = ['master_timeout', 'timeout'];

function expandOf(req: RestRequest, def: ExpandOptions = { open: true, closed: false, hidden: false }): ExpandOptions {
  return parseExpandWildcards(req.param('expand_wildcards'), def);
}

function ilmPolicy(im: IndexMetadata): string | undefined {
  const p = im.settings['index.lifecycle.name'];
  return typeof p === 'string' && p !== '' ? p : undefined;
}

@injectable()
export class CreateDataStreamRestHandler implements RestHandler {
  readonly name = 'create_data_stream_action';
  readonly routes = [route('PUT', '/_data_stream/{name}', A.CREATE)];
  readonly params = TIMEOUTS;

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.streams.create(req.pathParam('name'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetDataStreamsRestHandler implements RestHandler {
  readonly name = 'get_data_streams_action';
  readonly routes = [route('GET', '/_data_stream', A.GET), route('GET', '/_data_stream/{name}', A.GET)];
  readonly params = ['expand_wildcards', 'include_defaults', 'verbose', 'master_timeout'];

  constructor(
    @inject(DataStreamService) private readonly streams: DataStreamService,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = this.streams.resolveNames(req.optionalPathParam('name'), expandOf(req));
    const md = this.store.current();
    const all = dataStreams(md);
    return RestResponses.ok({ data_streams: names.map((n) => this.streams.render(all[n], md, ilmPolicy)) });
  }
}

@injectable()
export class DeleteDataStreamRestHandler implements RestHandler {
  readonly name = 'delete_data_stream_action';
  readonly routes = [route('DELETE', '/_data_stream/{name}', A.DELETE)];
  readonly params = ['expand_wildcards', ...TIMEOUTS];

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const names = this.streams.resolveNames(req.pathParam('name'), expandOf(req, { open: true, closed: true, hidden: false }));
    await this.streams.delete(names);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class MigrateToDataStreamRestHandler implements RestHandler {
  readonly name = 'migrate_to_data_stream_action';
  readonly routes = [route('POST', '/_data_stream/_migrate/{name}', A.MIGRATE)];
  readonly params = TIMEOUTS;

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    await this.streams.migrate(req.pathParam('name'));
    return RestResponses.acknowledged();
  }
}

@injectable()
export class ModifyDataStreamRestHandler implements RestHandler {
  readonly name = 'modify_data_stream_action';
  readonly routes = [route('POST', '/_data_stream/_modify', A.MODIFY)];
  readonly params = TIMEOUTS;

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true) ?? {};
    for (const k of Object.keys(body)) if (k !== 'actions') throw unknownField(req, 'data_stream_actions', k);
    if (!Array.isArray(body['actions']) || body['actions'].length === 0) throw Errors.actionRequestValidation(['must specify at least one data stream modification action']);
    const actions = (body['actions'] as unknown[]).map((a) => {
      if (!isObj(a) || Object.keys(a).length !== 1) throw Errors.xContentParse('[data_stream_actions] failed to parse field [actions]');
      const type = Object.keys(a)[0];
      if (type !== 'add_backing_index' && type !== 'remove_backing_index') throw unknownField(req, 'data_stream_actions', type);
      const inner = a[type];
      if (!isObj(inner)) throw Errors.xContentParse(`[${type}] failed to parse field [${type}]`);
      for (const k of Object.keys(inner)) if (k !== 'data_stream' && k !== 'index' && k !== 'failure_store') throw unknownField(req, type, k);
      if (typeof inner['data_stream'] !== 'string' || typeof inner['index'] !== 'string') {
        throw Errors.actionRequestValidation(['data stream name and index name are required']);
      }
      return { type: type as 'add_backing_index' | 'remove_backing_index', dataStream: inner['data_stream'], index: inner['index'] };
    });
    await this.streams.modify(actions);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class DataStreamsStatsRestHandler implements RestHandler {
  readonly name = 'data_stream_stats_action';
  readonly routes = [route('GET', '/_data_stream/_stats', A.STATS), route('GET', '/_data_stream/{name}/_stats', A.STATS)];
  readonly params = ['expand_wildcards', 'human'];

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  handle(req: RestRequest): RestResponse {
    const names = this.streams.resolveNames(req.optionalPathParam('name'), expandOf(req));
    return RestResponses.ok(this.streams.stats(names, req.boolParam('human', false)));
  }
}

// ---------------------------------------------------------------- data stream lifecycle

@injectable()
export class PutDataLifecycleRestHandler implements RestHandler {
  readonly name = 'put_data_lifecycle_action';
  readonly routes = [route('PUT', '/_data_stream/{name}/_lifecycle', A.LIFECYCLE_PUT)];
  readonly params = ['expand_wildcards', ...TIMEOUTS];

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    const lc: { enabled?: boolean; data_retention?: string } = {};
    for (const [k, v] of Object.entries(body)) {
      if (k === 'data_retention') {
        if (v === null) continue;
        if (typeof v !== 'string') throw Errors.xContentParse('[lifecycle] failed to parse field [data_retention]');
        const ms = parseTimeValue(v, 'data_retention');
        if (ms <= 0) throw Errors.illegalArgument(`Failed to parse value [${v}] for setting [data_retention] must be >= 1ms`);
        lc.data_retention = v;
      } else if (k === 'enabled') {
        if (typeof v !== 'boolean') throw Errors.xContentParse('[lifecycle] failed to parse field [enabled]');
        lc.enabled = v;
      } else if (k !== 'downsampling') throw unknownField(req, 'lifecycle', k);
    }
    const names = this.streams.resolveNames(req.pathParam('name'), expandOf(req));
    await this.streams.putLifecycle(names, lc);
    return RestResponses.acknowledged();
  }
}

@injectable()
export class GetDataLifecycleRestHandler implements RestHandler {
  readonly name = 'get_data_lifecycle_action';
  readonly routes = [route('GET', '/_data_stream/{name}/_lifecycle', A.LIFECYCLE_GET)];
  readonly params = ['expand_wildcards', 'include_defaults', 'master_timeout'];

  constructor(
    @inject(DataStreamService) private readonly streams: DataStreamService,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
  ) {}

  handle(req: RestRequest): RestResponse {
    const names = this.streams.resolveNames(req.pathParam('name'), expandOf(req));
    const all = dataStreams(this.store.current());
    return RestResponses.ok({
      data_streams: names.map((n) => {
        const o: Json = { name: n };
        const lc = all[n].lifecycle;
        if (lc) {
          const l = renderLifecycle(lc);
          if (lc.data_retention !== undefined) {
            l['effective_retention'] = lc.data_retention;
            l['retention_determined_by'] = 'data_stream_configuration';
          }
          o['lifecycle'] = l;
        }
        return o;
      }),
    });
  }
}

@injectable()
export class DeleteDataLifecycleRestHandler implements RestHandler {
  readonly name = 'delete_data_lifecycle_action';
  readonly routes = [route('DELETE', '/_data_stream/{name}/_lifecycle', A.LIFECYCLE_DELETE)];
  readonly params = ['expand_wildcards', ...TIMEOUTS];

  constructor(@inject(DataStreamService) private readonly streams: DataStreamService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const names = this.streams.resolveNames(req.pathParam('name'), expandOf(req));
    await this.streams.deleteLifecycle(names);
    return RestResponses.acknowledged();
  }
}

// ---------------------------------------------------------------- rollover

@injectable()
export class RolloverRestHandler implements RestHandler {
  readonly name = 'rollover_index_action';
  readonly routes = [route('POST', '/{alias}/_rollover', A.ROLLOVER), route('POST', '/{alias}/_rollover/{new_index}', A.ROLLOVER)];
  readonly params = ['dry_run', 'lazy', 'wait_for_active_shards', ...TIMEOUTS];

  constructor(@inject(RolloverService) private readonly rollovers: RolloverService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(false) ?? {}) : {};
    for (const k of Object.keys(body)) if (!['conditions', 'settings', 'mappings', 'aliases'].includes(k)) throw unknownField(req, 'rollover', k);
    const res = await this.rollovers.rollover({
      target: req.pathParam('alias'),
      newIndex: req.optionalPathParam('new_index'),
      conditions: parseConditions(body['conditions']),
      settings: body['settings'],
      mappings: body['mappings'],
      aliases: body['aliases'],
      dryRun: req.boolParam('dry_run', false),
      lazy: req.boolParam('lazy', false),
    });
    return RestResponses.ok(res);
  }
}

export const DATA_STREAM_REST_HANDLERS = [
  CreateDataStreamRestHandler,
  GetDataStreamsRestHandler,
  DeleteDataStreamRestHandler,
  MigrateToDataStreamRestHandler,
  ModifyDataStreamRestHandler,
  DataStreamsStatsRestHandler,
  PutDataLifecycleRestHandler,
  GetDataLifecycleRestHandler,
  DeleteDataLifecycleRestHandler,
  RolloverRestHandler,
];
