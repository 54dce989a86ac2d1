/** REST handlers of the document APIs: _doc, _create, _source, _update, _mget, _bulk, _refresh, _flush, _forcemerge. */
import { inject, injectable, optional } from 'inversify';
import { EsError, Errors, RestResponses, Tokens, indicesOptionsOf, locateJsonPath, positionOf, route, type Logger, type RestHandler, type TaskManager, type RestRequest, type RestResponse } from '@strata/core-common';
import {
  EngineTokens,
  UPDATE_BODY_FIELDS,
  parseBulkLinesSliced,
  type DocumentService,
  type IndexNameExpressionResolver,
  type UpdateRequest,
} from '@strata/core-engine';
import { DocumentActions as A } from './document-actions.js';
import { NODE_INFO, NodeInfo } from '../cluster/node-info.js';
import {
  longParam,
  refreshParam,
  requireBody,
  requireTerminatingNewline,
  sourceParams,
  timeoutParam,
  versionTypeParam,
} from './rest-params.js';

const WRITE_COMMON = ['refresh', 'routing', 'timeout', 'wait_for_active_shards', 'master_timeout'];

@injectable()
export class IndexDocRestHandler implements RestHandler {
  readonly name = 'document_index';
  readonly routes = [
    route('PUT', '/{index}/_doc/{id}', A.INDEX),
    route('POST', '/{index}/_doc/{id}', A.INDEX),
    route('POST', '/{index}/_doc', A.INDEX),
    route('PUT', '/{index}/_create/{id}', A.INDEX),
    route('POST', '/{index}/_create/{id}', A.INDEX),
  ];
  readonly params = [
    ...WRITE_COMMON,
    'version',
    'version_type',
    'if_seq_no',
    'if_primary_term',
    'op_type',
    'pipeline',
    'require_alias',
    'require_data_stream',
    'include_source_on_error',
    'list_executed_pipelines',
  ];

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const index = req.pathParam('index');
    const id = req.optionalPathParam('id');
    const isCreate = req.route.path.includes('/_create/');
    let opType: 'index' | 'create' = isCreate || id === undefined ? 'create' : 'index';
    const op = req.param('op_type');
    if (op !== undefined) {
      if (op === 'create') opType = 'create';
      else if (op === 'index') {
        if (isCreate) throw Errors.illegalArgument('opType must be \'create\', found: [index]');
        opType = 'index';
      } else throw Errors.illegalArgument(`opType must be 'create' or 'index', found: [${op}]`);
    }
    const refresh = refreshParam(req);
    timeoutParam(req);
    const body = requireBody(req);
    const r = await this.docs.index(
      {
        index,
        id,
        routing: req.param('routing') || undefined,
        opType,
        source: body,
        pipeline: req.param('pipeline'),
        version: longParam(req, 'version'),
        versionType: versionTypeParam(req),
        ifSeqNo: longParam(req, 'if_seq_no'),
        ifPrimaryTerm: longParam(req, 'if_primary_term'),
        requireAlias: req.boolParam('require_alias', false),
        requireDataStream: req.boolParam('require_data_stream', false),
        attributes: {},
      },
      { refresh, rawSource: req.rawBody() },
    );
    const headers = r.status === 201 ? { Location: `/${encodeURIComponent(index)}/_doc/${encodeURIComponent(String(r.body['_id']))}` } : undefined;
    return RestResponses.json(r.status, r.body, headers);
  }
}

const GET_PARAMS = ['routing', 'preference', 'realtime', 'refresh', 'stored_fields', '_source', '_source_includes', '_source_excludes', '_source_include', '_source_exclude', 'version', 'version_type'];

@injectable()
export class GetDocRestHandler implements RestHandler {
  readonly name = 'document_get';
  readonly routes = [route('GET', '/{index}/_doc/{id}', A.GET), route('HEAD', '/{index}/_doc/{id}', A.GET)];
  readonly params = GET_PARAMS;

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const src = sourceParams(req);
    const head = req.method === 'HEAD';
    const r = await this.docs.get({
      index: req.pathParam('index'),
      id: req.pathParam('id'),
      routing: req.param('routing') || undefined,
      realtime: req.boolParam('realtime', true),
      refresh: req.boolParam('refresh', false),
      fetchSource: head ? false : src.fetch,
      sourceFilter: src.filter,
      storedFields: req.listParam('stored_fields'),
      version: longParam(req, 'version'),
      versionType: versionTypeParam(req),
      rawSource: true,
    });
    if (head) return RestResponses.empty(r.status);
    return RestResponses.json(r.status, r.body);
  }
}

@injectable()
export class GetSourceRestHandler implements RestHandler {
  readonly name = 'document_get_source';
  readonly routes = [route('GET', '/{index}/_source/{id}', A.GET), route('HEAD', '/{index}/_source/{id}', A.GET)];
  readonly params = GET_PARAMS.filter((p) => p !== 'stored_fields');

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    if (req.hasParam('stored_fields')) {
      throw Errors.actionRequestValidation(['stored_fields is not supported in this context']);
    }
    const src = sourceParams(req);
    const index = req.pathParam('index');
    const id = req.pathParam('id');
    const r = await this.docs.get({
      index,
      id,
      routing: req.param('routing') || undefined,
      realtime: req.boolParam('realtime', true),
      refresh: req.boolParam('refresh', false),
      fetchSource: true,
      sourceFilter: src.filter,
      version: longParam(req, 'version'),
      versionType: versionTypeParam(req),
      rawSource: true,
    });
    const head = req.method === 'HEAD';
    if (r.status === 404 || r.body['_source'] === undefined) {
      if (head) return RestResponses.empty(404);
      throw new EsError('resource_not_found_exception', 404, `Document not found [${String(r.body['_index'] ?? index)}]/[${id}]`);
    }
    if (head) return RestResponses.empty(200);
    return RestResponses.json(200, r.body['_source']);
  }
}

@injectable()
export class DeleteDocRestHandler implements RestHandler {
  readonly name = 'document_delete';
  readonly routes = [route('DELETE', '/{index}/_doc/{id}', A.DELETE)];
  readonly params = [...WRITE_COMMON, 'version', 'version_type', 'if_seq_no', 'if_primary_term'];

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    timeoutParam(req);
    const r = await this.docs.delete(
      {
        index: req.pathParam('index'),
        id: req.pathParam('id'),
        routing: req.param('routing') || undefined,
        version: longParam(req, 'version'),
        versionType: versionTypeParam(req),
        ifSeqNo: longParam(req, 'if_seq_no'),
        ifPrimaryTerm: longParam(req, 'if_primary_term'),
      },
      { refresh: refreshParam(req) },
    );
    return RestResponses.json(r.status, r.body);
  }
}

@injectable()
export class UpdateDocRestHandler implements RestHandler {
  readonly name = 'document_update';
  readonly routes = [route('POST', '/{index}/_update/{id}', A.UPDATE)];
  readonly params = [
    ...WRITE_COMMON,
    'retry_on_conflict',
    'if_seq_no',
    'if_primary_term',
    '_source',
    '_source_includes',
    '_source_excludes',
    'lang',
    'require_alias',
    'include_source_on_error',
  ];

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    timeoutParam(req);
    const body = requireBody(req);
    for (const k of Object.keys(body)) {
      if (!UPDATE_BODY_FIELDS.has(k)) {
        // ObjectParser names the unknown key's own position in the body
        const at = rawPosition(req, [k], 'key');
        throw Errors.xContentParse(`[UpdateRequest] unknown field [${k}]`, at.line, at.col);
      }
    }
    const src = sourceParams(req);
    let fetchSource = src.fetch;
    let sourceFilter = src.filter;
    const bs = body['_source'];
    if (bs !== undefined) {
      if (bs === false) fetchSource = false;
      else if (bs === true) fetchSource = true;
      else if (typeof bs === 'string' || Array.isArray(bs)) {
        fetchSource = true;
        sourceFilter = { includes: (Array.isArray(bs) ? bs : [bs]).map(String), excludes: [] };
      } else if (bs && typeof bs === 'object') {
        const o = bs as Record<string, unknown>;
        const inc = o['includes'] ?? o['include'];
        const exc = o['excludes'] ?? o['exclude'];
        fetchSource = true;
        sourceFilter = {
          includes: inc === undefined ? [] : (Array.isArray(inc) ? inc : [inc]).map(String),
          excludes: exc === undefined ? [] : (Array.isArray(exc) ? exc : [exc]).map(String),
        };
      }
    }
    const obj = (v: unknown, field: string): Record<string, unknown> | undefined => {
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'object' || Array.isArray(v)) {
        const at = rawPosition(req, [field], 'value');
        const token = Array.isArray(v) ? 'START_ARRAY' : typeof v === 'string' ? 'VALUE_STRING' : typeof v === 'boolean' ? 'VALUE_BOOLEAN' : 'VALUE_NUMBER';
        throw Errors.xContentParse(`[UpdateRequest] ${field} doesn't support values of type: ${token}`, at.line, at.col);
      }
      return v as Record<string, unknown>;
    };
    const ureq: UpdateRequest = {
      index: req.pathParam('index'),
      id: req.pathParam('id'),
      routing: req.param('routing') || undefined,
      doc: obj(body['doc'], 'doc'),
      upsert: obj(body['upsert'], 'upsert'),
      docAsUpsert: body['doc_as_upsert'] === true,
      detectNoop: body['detect_noop'] !== false,
      script: body['script'],
      scriptedUpsert: body['scripted_upsert'] === true,
      retryOnConflict: req.intParam('retry_on_conflict'),
      ifSeqNo: longParam(req, 'if_seq_no'),
      ifPrimaryTerm: longParam(req, 'if_primary_term'),
      requireAlias: req.boolParam('require_alias', false),
      fetchSource,
      sourceFilter,
    };
    const r = await this.docs.update(ureq, { refresh: refreshParam(req) });
    return RestResponses.json(r.status, r.body);
  }
}

@injectable()
export class MgetRestHandler implements RestHandler {
  readonly name = 'document_mget';
  readonly routes = [
    route('GET', '/_mget', A.MGET),
    route('POST', '/_mget', A.MGET),
    route('GET', '/{index}/_mget', A.MGET),
    route('POST', '/{index}/_mget', A.MGET),
  ];
  readonly params = GET_PARAMS.filter((p) => p !== 'version' && p !== 'version_type');

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.hasBody() ? (req.objectBody(true) as Record<string, unknown>) : {};
    const src = sourceParams(req);
    const r = await this.docs.mget(body, {
      index: req.optionalPathParam('index'),
      routing: req.param('routing') || undefined,
      realtime: req.boolParam('realtime', true),
      refresh: req.boolParam('refresh', false),
      fetchSource: src.fetch,
      sourceFilter: src.filter,
      storedFields: req.listParam('stored_fields'),
      rawSource: true,
    });
    return RestResponses.ok(r);
  }
}

@injectable()
export class BulkRestHandler implements RestHandler {
  readonly name = 'document_bulk';
  readonly routes = [
    route('POST', '/_bulk', A.BULK),
    route('PUT', '/_bulk', A.BULK),
    route('POST', '/{index}/_bulk', A.BULK),
    route('PUT', '/{index}/_bulk', A.BULK),
  ];
  readonly params = [
    ...WRITE_COMMON,
    'pipeline',
    'require_alias',
    'require_data_stream',
    '_source',
    '_source_includes',
    '_source_excludes',
    'list_executed_pipelines',
    'include_source_on_error',
    'type',
  ];

  constructor(@inject(EngineTokens.DocumentService) private readonly docs: DocumentService) {}

  async handle(req: RestRequest): Promise<RestResponse> {
    const refresh = refreshParam(req);
    timeoutParam(req);
    const src = sourceParams(req);
    if (!req.hasBody()) throw new EsError('parse_exception', 400, 'request body is required');
    requireTerminatingNewline(req.rawBody());
    const lines = req.ndjsonLines();
    const invalidUtf8 = req.invalidUtf8Lines?.();
    const items = await parseBulkLinesSliced(lines, {
      index: req.optionalPathParam('index'),
      ...(invalidUtf8 ? { invalidUtf8 } : {}),
      routing: req.param('routing') || undefined,
      pipeline: req.param('pipeline'),
      requireAlias: req.hasParam('require_alias') ? req.boolParam('require_alias', false) : undefined,
      fetchSource: src.fetch,
      sourceFilter: src.filter,
      // index/create sources are parsed when their item runs, or by a parse thread
    }, undefined, true);
    const r = await this.docs.bulk(items, { refresh });
    return RestResponses.ok(r);
  }
}

abstract class BroadcastHandler {
  constructor(protected readonly resolver: IndexNameExpressionResolver) {}

  protected targets(req: RestRequest): string[] {
    const expr = req.optionalPathParam('index');
    return this.resolver.concreteIndices(expr ?? '_all', indicesOptionsOf(req), 'read');
  }
}

@injectable()
export class RefreshRestHandler extends BroadcastHandler implements RestHandler {
  readonly name = 'indices_refresh';
  readonly routes = [
    route('POST', '/_refresh', A.REFRESH),
    route('GET', '/_refresh', A.REFRESH),
    route('POST', '/{index}/_refresh', A.REFRESH),
    route('GET', '/{index}/_refresh', A.REFRESH),
  ];
  readonly params = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards'];

  constructor(
    @inject(EngineTokens.DocumentService) private readonly docs: DocumentService,
    @inject(EngineTokens.IndexNameExpressionResolver) resolver: IndexNameExpressionResolver,
  ) {
    super(resolver);
  }

  async handle(req: RestRequest): Promise<RestResponse> {
    return RestResponses.ok(await this.docs.refresh(this.targets(req)));
  }
}

@injectable()
export class FlushRestHandler extends BroadcastHandler implements RestHandler {
  readonly name = 'indices_flush';
  readonly routes = [
    route('POST', '/_flush', A.FLUSH),
    route('GET', '/_flush', A.FLUSH),
    route('POST', '/{index}/_flush', A.FLUSH),
    route('GET', '/{index}/_flush', A.FLUSH),
  ];
  readonly params = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'force', 'wait_if_ongoing'];

  constructor(
    @inject(EngineTokens.DocumentService) private readonly docs: DocumentService,
    @inject(EngineTokens.IndexNameExpressionResolver) resolver: IndexNameExpressionResolver,
  ) {
    super(resolver);
  }

  handle(req: RestRequest): RestResponse {
    req.boolParam('force', false);
    req.boolParam('wait_if_ongoing', true);
    return RestResponses.ok(this.docs.flush(this.targets(req)));
  }
}

/**
 * `POST /{index}/_forcemerge`, `POST /_forcemerge` (ES indices.forcemerge): max_num_segments (default -1: the
 * merges the policy selects), only_expunge_deletes, flush (default true), wait_for_completion (default true;
 * false answers `{"task": ...}` at once and merges in the background).
 */
@injectable()
export class ForceMergeRestHandler extends BroadcastHandler implements RestHandler {
  readonly name = 'force_merge_action';
  readonly routes = [route('POST', '/_forcemerge', A.FORCE_MERGE), route('POST', '/{index}/_forcemerge', A.FORCE_MERGE)];
  readonly params = ['ignore_unavailable', 'allow_no_indices', 'expand_wildcards', 'max_num_segments', 'only_expunge_deletes', 'flush', 'wait_for_completion'];

  constructor(
    @inject(EngineTokens.DocumentService) private readonly docs: DocumentService,
    @inject(EngineTokens.IndexNameExpressionResolver) resolver: IndexNameExpressionResolver,
    @inject(NODE_INFO) private readonly node: NodeInfo,
    @inject(Tokens.TaskManager) private readonly tasks: TaskManager,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    super(resolver);
  }

  async handle(req: RestRequest): Promise<RestResponse> {
    const maxNumSegments = req.intParam('max_num_segments', -1)!;
    const onlyExpungeDeletes = req.boolParam('only_expunge_deletes', false);
    const flush = req.boolParam('flush', true);
    const wait = req.boolParam('wait_for_completion', true);
    if (onlyExpungeDeletes && maxNumSegments !== -1) {
      throw Errors.actionRequestValidation([
        'cannot set only_expunge_deletes and max_num_segments at the same time, those two parameters are mutually exclusive',
      ]);
    }
    const targets = this.targets(req);
    const opts = { maxNumSegments, onlyExpungeDeletes, flush };
    if (wait) return RestResponses.ok(await this.docs.forceMerge(targets, opts));
    // a task like ES's: listed by GET /_tasks while it runs, its result stored for GET /_tasks/{id}
    const description = `Force-merge indices ${JSON.stringify(targets)}, maxSegments[${maxNumSegments}], onlyExpungeDeletes[${onlyExpungeDeletes}], flush[${flush}]`;
    const task = this.tasks.register(A.FORCE_MERGE, description, { cancellable: false });
    const taskId = `${this.node.id}:${task.id}`;
    setImmediate(async () => {
      try {
        this.tasks.unregister(task, { response: await this.docs.forceMerge(targets, opts), store: true });
      } catch (err) {
        this.logger?.warn({ err, task: taskId }, 'force merge failed');
        this.tasks.unregister(task, { error: err instanceof EsError ? err.toObject() : { type: 'exception', reason: String(err) }, store: true });
      }
    });
    return RestResponses.ok({ task: taskId });
  }
}

/** line/col of a key or value of the raw body (Jackson's token location), [1:2] when it cannot be found */
function rawPosition(req: RestRequest, path: string[], which: 'key' | 'value'): { line: number; col: number } {
  const raw = req.rawBody();
  const loc = locateJsonPath(raw, path);
  return loc ? positionOf(raw, which === 'key' ? loc.key : loc.value) : { line: 1, col: 2 };
}
