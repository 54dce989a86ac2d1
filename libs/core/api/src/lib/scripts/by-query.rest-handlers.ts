/**
 * `POST /{index}/_update_by_query`, `POST /{index}/_delete_by_query`, `POST /_reindex` and the task APIs
 * (`GET /_tasks`, `GET /_tasks/{task_id}`, `POST /_tasks/{task_id}/_cancel`, `POST /_tasks/_cancel`).
 */
import { inject, injectable } from 'inversify';
import {
  EsError,
  Errors,
  RestResponses,
  DEFAULT_INDICES_OPTIONS,
  TaskManager,
  Tokens,
  indicesOptionsOf,
  route,
  wildcardRegExp,
  type Clock,
  type RestHandler,
  type RestRequest,
  type RestResponse,
  type ScriptService,
  type Task,
  type TaskInfo,
} from '@strata/core-common';
import { ByQueryRunner, EngineTokens, parseConflicts, type ByQueryKind, type ByQueryRequest, type DocumentService, type SearchService } from '@strata/core-engine';
import { NODE_INFO, NODE_ROLES, type NodeInfo } from '../cluster/node-info.js';

const ACTIONS: Record<ByQueryKind, string> = {
  update: 'indices:data/write/update/byquery',
  delete: 'indices:data/write/delete/byquery',
  reindex: 'indices:data/write/reindex',
};

const COMMON_PARAMS = [
  'conflicts', 'max_docs', 'refresh', 'wait_for_completion', 'scroll_size', 'slices', 'requests_per_second', 'timeout',
  'wait_for_active_shards', 'scroll', 'search_timeout', 'routing', 'expand_wildcards', 'ignore_unavailable', 'allow_no_indices',
  'pipeline', 'preference', 'request_cache', 'version', 'stats', 'terminate_after', 'analyzer', 'analyze_wildcard',
  'default_operator', 'df', 'lenient', 'q', 'search_type', 'sort', '_source', '_source_excludes', '_source_includes', 'size', 'from',
];

function taskJson(node: NodeInfo, t: TaskInfo, detailed: boolean, runningNanos?: number): Record<string, unknown> {
  const o: Record<string, unknown> = { node: node.id, id: t.id, type: 'transport', action: t.action };
  if (t.status) o['status'] = t.status;
  if (detailed || t.action !== 'cluster:monitor/tasks/lists') o['description'] = t.description;
  o['start_time_in_millis'] = t.startTimeMillis;
  o['running_time_in_nanos'] = runningNanos ?? Number(process.hrtime.bigint() - t.startNanos);
  o['cancellable'] = t.cancellable;
  if (t.cancellable) o['cancelled'] = t.cancelled;
  if (t.parentTaskId !== undefined) o['parent_task_id'] = t.parentTaskId;
  o['headers'] = {};
  return o;
}

function parseTaskId(node: NodeInfo, raw: string): number {
  const i = raw.lastIndexOf(':');
  const n = i < 0 ? NaN : Number(raw.slice(i + 1));
  if (i <= 0 || !Number.isInteger(n) || n < 0) throw Errors.illegalArgument(`malformed task id ${raw}`);
  if (raw.slice(0, i) !== node.id) return -1;
  return n;
}

/** `group_by=parents`: tasks by id, a child listed under its parent's `children` when the parent is listed too */
function tasksByParent(entries: ReadonlyArray<readonly [string, Record<string, unknown>]>): Record<string, unknown> {
  const ids = new Set(entries.map(([id]) => id));
  const out: Record<string, Record<string, unknown>> = {};
  for (const [id, t] of entries) {
    const parent = t['parent_task_id'];
    if (typeof parent === 'string' && ids.has(parent)) continue;
    out[id] = { ...t };
  }
  for (const [, t] of entries) {
    const parent = t['parent_task_id'];
    if (typeof parent !== 'string' || !out[parent]) continue;
    ((out[parent]['children'] ??= []) as unknown[]).push(t);
  }
  return { tasks: out };
}

/** a list-tasks response grouped by node (`nodes: {id: {name, ..., tasks}}`), empty when there are no tasks */
function tasksByNode(node: NodeInfo, entries: ReadonlyArray<readonly [string, Record<string, unknown>]>): Record<string, unknown> {
  const ip = node.host;
  return {
    nodes: entries.length === 0 ? {} : { [node.id]: { name: node.name, transport_address: `${ip}:9300`, host: ip, ip: `${ip}:9300`, roles: [...NODE_ROLES], tasks: Object.fromEntries(entries) } },
  };
}

/** runs a by-query action directly or, with wait_for_completion=false, as a task whose result is stored */
async function runAsTask(tasks: TaskManager, node: NodeInfo, req: RestRequest, kind: ByQueryKind, description: string, run: (task: Task) => Promise<Record<string, unknown>>): Promise<RestResponse> {
  const wait = req.boolParam('wait_for_completion', true);
  const task = tasks.register(ACTIONS[kind], description, { cancellable: true });
  if (!wait) {
    void run(task).then(
      (response) => tasks.unregister(task, { response, store: true }),
      (error) => tasks.unregister(task, { error: error instanceof EsError ? error.toObject() : { type: 'exception', reason: String(error) }, store: true }),
    );
    return RestResponses.ok({ task: `${node.id}:${task.id}` });
  }
  try {
    const body = await run(task);
    const failures = body['failures'] as Array<Record<string, unknown>>;
    const status = failures.length > 0 ? Math.max(...failures.map((f) => Number(f['status'] ?? 500))) : 200;
    return RestResponses.json(status, body);
  } finally {
    tasks.unregister(task);
  }
}

function byQueryRequest(req: RestRequest, body: Record<string, unknown>, allowScript: boolean): ByQueryRequest {
  for (const k of Object.keys(body)) {
    if (!['query', 'script', 'max_docs', 'conflicts', 'slice', 'size'].includes(k) || (k === 'script' && !allowScript)) {
      throw Errors.parsing(`Unknown key for a ${typeof body[k] === 'object' ? 'START_OBJECT' : 'VALUE_STRING'} in [${k}].`);
    }
  }
  const idx = req.optionalPathParam('index');
  const maxDocs = body['max_docs'] ?? (req.param('max_docs') !== undefined ? Number(req.param('max_docs')) : undefined);
  if (maxDocs !== undefined && (!Number.isInteger(Number(maxDocs)) || Number(maxDocs) <= 0)) {
    throw Errors.actionRequestValidation([`maxDocs should be greater than 0 if the request is limited to some number of documents or -1 if it isn't but it was [${String(maxDocs)}]`]);
  }
  const q = req.param('q');
  return {
    indices: idx === undefined ? undefined : idx.split(','),
    indicesOptions: indicesOptionsOf(req),
    query: body['query'] ?? (q !== undefined ? { query_string: { query: q, ...(req.param('df') ? { default_field: req.param('df') } : {}) } } : undefined),
    ...(req.param('routing') !== undefined ? { routing: req.param('routing')!.split(',') } : {}),
    script: body['script'],
    conflicts: parseConflicts(body['conflicts'] ?? req.param('conflicts')),
    ...(maxDocs !== undefined ? { maxDocs: Number(maxDocs) } : {}),
    batchSize: req.intParam('scroll_size', 1000) ?? 1000,
    refresh: req.boolParam('refresh', false),
    ...(req.param('pipeline') !== undefined ? { pipeline: req.param('pipeline')! } : {}),
    ...workParams(req),
  };
}

/** `slices` and `requests_per_second` (AbstractBaseReindexRestHandler) */
function workParams(req: RestRequest): Pick<ByQueryRequest, 'slices' | 'requestsPerSecond'> {
  const out: Pick<ByQueryRequest, 'slices' | 'requestsPerSecond'> = {};
  const slices = req.param('slices');
  if (slices !== undefined) {
    if (slices === 'auto') out.slices = 'auto';
    else {
      const n = /^-?\d+$/.test(slices) ? Number(slices) : NaN;
      if (!(n >= 1)) throw Errors.illegalArgument(`[slices] must be a positive integer or the string "auto", but was [${slices}]`);
      out.slices = n;
    }
  }
  const rps = requestsPerSecond(req);
  if (rps !== undefined) out.requestsPerSecond = rps;
  return out;
}

/** `requests_per_second`: a float > 0, or -1 for no throttle (Infinity) */
function requestsPerSecond(req: RestRequest): number | undefined {
  const v = req.param('requests_per_second');
  if (v === undefined) return undefined;
  const n = v.trim() === '' ? NaN : Number(v);
  if (n === -1) return Infinity;
  if (!(n > 0)) throw Errors.illegalArgument('[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.');
  return n;
}

/**
 * What the by-query REST handlers share: one runner (so `_rethrottle` reaches the running requests), the
 * task manager and the node.
 */
@injectable()
export class ByQueryActions {
  readonly runner: ByQueryRunner;

  constructor(
    @inject(EngineTokens.SearchService) search: SearchService,
    @inject(EngineTokens.DocumentService) docs: DocumentService,
    @inject(Tokens.ScriptService) scripts: ScriptService,
    @inject(Tokens.TaskManager) readonly tasks: TaskManager,
    @inject(NODE_INFO) readonly node: NodeInfo,
    @inject(Tokens.Clock) clock: Clock,
  ) {
    this.runner = new ByQueryRunner(search, docs, scripts, () => clock.now());
  }

  run(req: RestRequest, kind: ByQueryKind, description: string, r: ByQueryRequest): Promise<RestResponse> {
    return runAsTask(this.tasks, this.node, req, kind, description, (task) =>
      this.runner.run(kind, r, task, {
        // the slices of a sliced request are child tasks of it, as in Elasticsearch
        start: () => this.tasks.register(ACTIONS[kind], description, { cancellable: true, parentTaskId: `${this.node.id}:${task.id}` }),
        cancel: (t, reason) => void this.tasks.cancel(t.id, reason),
        end: (t) => this.tasks.unregister(t),
      }),
    );
  }
}

@injectable()
export class UpdateByQueryRestHandler implements RestHandler {
  constructor(@inject(ByQueryActions) private readonly actions: ByQueryActions) {}

  readonly name = 'update_by_query_action';
  readonly routes = [route('POST', '/{index}/_update_by_query', ACTIONS.update)];
  readonly params = COMMON_PARAMS;
  async handle(req: RestRequest): Promise<RestResponse> {
    const r = byQueryRequest(req, req.objectBody(false) ?? {}, true);
    return this.actions.run(req, 'update', `update-by-query [${req.pathParam('index')}]`, r);
  }
}

@injectable()
export class DeleteByQueryRestHandler implements RestHandler {
  constructor(@inject(ByQueryActions) private readonly actions: ByQueryActions) {}

  readonly name = 'delete_by_query_action';
  readonly routes = [route('POST', '/{index}/_delete_by_query', ACTIONS.delete)];
  readonly params = COMMON_PARAMS;
  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(false) ?? {};
    if (body['query'] === undefined && req.param('q') === undefined) throw Errors.actionRequestValidation(['query is missing']);
    const r = byQueryRequest(req, body, false);
    return this.actions.run(req, 'delete', `delete-by-query [${req.pathParam('index')}]`, r);
  }
}

@injectable()
export class ReindexRestHandler implements RestHandler {
  constructor(@inject(ByQueryActions) private readonly actions: ByQueryActions) {}

  readonly name = 'reindex_action';
  readonly routes = [route('POST', '/_reindex', ACTIONS.reindex)];
  readonly params = ['refresh', 'wait_for_completion', 'slices', 'requests_per_second', 'timeout', 'wait_for_active_shards', 'scroll', 'max_docs', 'require_alias'];
  async handle(req: RestRequest): Promise<RestResponse> {
    const body = req.objectBody(true)!;
    for (const k of Object.keys(body)) {
      if (!['source', 'dest', 'script', 'conflicts', 'max_docs', 'size'].includes(k)) throw Errors.parsing(`[reindex] unknown field [${k}]`);
    }
    const src = body['source'] as Record<string, unknown> | undefined;
    const dest = body['dest'] as Record<string, unknown> | undefined;
    const errs: string[] = [];
    if (!src || src['index'] === undefined) errs.push('use _all if you really want to copy from all existing indexes');
    if (!dest || typeof dest['index'] !== 'string') errs.push('index must be specified');
    if (errs.length) throw Errors.actionRequestValidation(errs);
    for (const k of Object.keys(src!)) {
      if (!['index', 'query', 'size', '_source', 'max_docs', 'sort', 'slice', 'remote'].includes(k)) throw Errors.parsing(`[source] unknown field [${k}]`);
    }
    if (src!['remote'] !== undefined) throw Errors.illegalArgument('reindex from remote is not supported');
    for (const k of Object.keys(dest!)) {
      if (!['index', 'op_type', 'pipeline', 'routing', 'version_type'].includes(k)) throw Errors.parsing(`[dest] unknown field [${k}]`);
    }
    const opType = dest!['op_type'] === undefined ? 'index' : String(dest!['op_type']);
    if (opType !== 'index' && opType !== 'create') throw Errors.illegalArgument(`opType must be "create" or "index", found: [${opType}]`);
    const indices = (Array.isArray(src!['index']) ? (src!['index'] as unknown[]).map(String) : String(src!['index']).split(','));
    const destIndex = String(dest!['index']);
    if (indices.includes(destIndex)) throw Errors.actionRequestValidation([`reindex cannot write into an index its reading from [${destIndex}]`]);
    const maxDocs = body['max_docs'] ?? src!['max_docs'] ?? (req.param('max_docs') !== undefined ? Number(req.param('max_docs')) : undefined);
    const srcFields = src!['_source'];
    const r: ByQueryRequest = {
      indices,
      indicesOptions: DEFAULT_INDICES_OPTIONS,
      query: src!['query'],
      script: body['script'],
      conflicts: parseConflicts(body['conflicts']),
      ...(maxDocs !== undefined ? { maxDocs: Number(maxDocs) } : {}),
      batchSize: typeof src!['size'] === 'number' ? src!['size'] : 1000,
      refresh: req.boolParam('refresh', false),
      dest: {
        index: destIndex,
        opType: opType as 'index' | 'create',
        ...(dest!['pipeline'] !== undefined ? { pipeline: String(dest!['pipeline']) } : {}),
        ...(dest!['routing'] !== undefined ? { routing: String(dest!['routing']) } : {}),
        ...(dest!['version_type'] !== undefined ? { versionType: String(dest!['version_type']) as 'internal' | 'external' | 'external_gte' } : {}),
      },
      ...(Array.isArray(srcFields) ? { sourceFields: srcFields.map(String) } : typeof srcFields === 'string' ? { sourceFields: [srcFields] } : {}),
      ...workParams(req),
    };
    return this.actions.run(req, 'reindex', `reindex from [${indices.join(', ')}] to [${destIndex}]`, r);
  }
}

@injectable()
export class ListTasksRestHandler implements RestHandler {
  readonly name = 'list_tasks_action';
  readonly routes = [route('GET', '/_tasks', 'cluster:monitor/tasks/lists')];
  readonly params = ['actions', 'detailed', 'group_by', 'nodes', 'parent_task_id', 'timeout', 'wait_for_completion'];
  constructor(
    @inject(Tokens.TaskManager) private readonly tasks: TaskManager,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const groupBy = req.param('group_by') ?? 'nodes';
    if (!['nodes', 'parents', 'none'].includes(groupBy)) throw Errors.illegalArgument(`Unknown group by [${groupBy}]`);
    const detailed = req.boolParam('detailed', false) ?? false;
    const patterns = req.listParam('actions');
    const self = this.tasks.register('cluster:monitor/tasks/lists', '', { cancellable: false });
    try {
      let list = this.tasks.list();
      if (patterns && patterns.length > 0) list = list.filter((t) => patterns.some((p) => wildcardRegExp(p).test(t.action)));
      const parent = req.param('parent_task_id');
      if (parent !== undefined) list = list.filter((t) => t.parentTaskId === parent);
      const entries = list.map((t) => [`${this.node.id}:${t.id}`, taskJson(this.node, t, detailed)] as const);
      if (groupBy === 'none') return RestResponses.ok({ tasks: entries.map(([, t]) => t) });
      if (groupBy === 'parents') return RestResponses.ok(tasksByParent(entries));
      return RestResponses.ok(tasksByNode(this.node, entries));
    } finally {
      this.tasks.unregister(self);
    }
  }
}

@injectable()
export class GetTaskRestHandler implements RestHandler {
  readonly name = 'get_task_action';
  readonly routes = [route('GET', '/_tasks/{task_id}', 'cluster:monitor/task/get')];
  readonly params = ['timeout', 'wait_for_completion'];
  constructor(
    @inject(Tokens.TaskManager) private readonly tasks: TaskManager,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const raw = req.pathParam('task_id');
    const id = parseTaskId(this.node, raw);
    const notFound = () => new EsError('resource_not_found_exception', 404, `task [${raw}] isn't running and hasn't stored its results`);
    if (req.boolParam('wait_for_completion', false)) {
      const timeout = req.timeParam('timeout', '30s') ?? 30_000;
      const deadline = Date.now() + timeout;
      while (this.tasks.get(id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (this.tasks.get(id)) throw new EsError('elasticsearch_timeout_exception', 408, `Timed out waiting for completion of task [${raw}]`);
    }
    const running = this.tasks.get(id);
    if (running) return RestResponses.ok({ completed: false, task: taskJson(this.node, running, true) });
    const done = this.tasks.result(id);
    if (!done) throw notFound();
    const body: Record<string, unknown> = { completed: true, task: taskJson(this.node, done.task, true, done.runningNanos) };
    if (done.error !== undefined) body['error'] = done.error;
    else body['response'] = done.response;
    return RestResponses.ok(body);
  }
}

@injectable()
export class CancelTaskRestHandler implements RestHandler {
  readonly name = 'cancel_tasks_action';
  readonly routes = [
    route('POST', '/_tasks/{task_id}/_cancel', 'cluster:admin/tasks/cancel'),
    route('POST', '/_tasks/_cancel', 'cluster:admin/tasks/cancel'),
  ];
  readonly params = ['actions', 'nodes', 'parent_task_id', 'wait_for_completion'];
  constructor(
    @inject(Tokens.TaskManager) private readonly tasks: TaskManager,
    @inject(NODE_INFO) private readonly node: NodeInfo,
  ) {}
  async handle(req: RestRequest): Promise<RestResponse> {
    const raw = req.optionalPathParam('task_id');
    let cancelled: TaskInfo[];
    if (raw !== undefined) {
      const id = parseTaskId(this.node, raw);
      const t = this.tasks.get(id);
      if (!t) throw new EsError('resource_not_found_exception', 404, `task [${raw}] is not found`);
      if (!t.cancellable) throw Errors.illegalArgument(`task [${raw}] doesn't support cancellation`);
      cancelled = [this.tasks.cancel(id)!];
    } else {
      const patterns = req.listParam('actions') ?? ['*'];
      cancelled = this.tasks
        .list()
        .filter((t) => t.cancellable && patterns.some((p) => wildcardRegExp(p).test(t.action)))
        .map((t) => this.tasks.cancel(t.id)!);
    }
    const entries = cancelled.map((t) => [`${this.node.id}:${t.id}`, taskJson(this.node, t, true)] as const);
    return RestResponses.ok(tasksByNode(this.node, entries));
  }
}

/**
 * `POST /_update_by_query/{task_id}/_rethrottle` (and `_delete_by_query`, `_reindex`): a new
 * `requests_per_second` for a running request, shared by its slices; answers the task as `GET /_tasks` does.
 */
@injectable()
export class RethrottleRestHandler implements RestHandler {
  readonly name = 'rethrottle_action';
  readonly routes = [
    route('POST', '/_update_by_query/{task_id}/_rethrottle', 'cluster:admin/reindex/rethrottle'),
    route('POST', '/_delete_by_query/{task_id}/_rethrottle', 'cluster:admin/reindex/rethrottle'),
    route('POST', '/_reindex/{task_id}/_rethrottle', 'cluster:admin/reindex/rethrottle'),
  ];
  readonly params = ['requests_per_second', 'group_by'];
  constructor(@inject(ByQueryActions) private readonly actions: ByQueryActions) {}
  handle(req: RestRequest): RestResponse {
    const rps = requestsPerSecond(req);
    if (rps === undefined) throw Errors.illegalArgument('requests_per_second is a required parameter');
    const groupBy = req.param('group_by') ?? 'nodes';
    if (!['nodes', 'parents', 'none'].includes(groupBy)) throw Errors.illegalArgument(`Unknown group by [${groupBy}]`);
    const { node, tasks, runner } = this.actions;
    const raw = req.pathParam('task_id');
    const id = parseTaskId(node, raw);
    const t = id < 0 ? undefined : tasks.get(id);
    if (!t) throw new EsError('resource_not_found_exception', 404, `task [${raw}] is missing`);
    if (!runner.rethrottle(id, rps)) throw Errors.illegalArgument(`task [${raw}] must be a reindex, update by query or delete by query task`);
    const entries = [[`${node.id}:${t.id}`, taskJson(node, t, true)] as const];
    if (groupBy === 'none') return RestResponses.ok({ tasks: entries.map(([, x]) => x) });
    if (groupBy === 'parents') return RestResponses.ok(tasksByParent(entries));
    return RestResponses.ok(tasksByNode(node, entries));
  }
}
