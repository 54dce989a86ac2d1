import { NDJSON, startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

/** _update_by_query, _delete_by_query, _reindex and the task APIs (black box) */
describe('by-query APIs, reindex and tasks', () => {
  let api: ApiTestNode;
  const call = (method: string, path: string, body?: unknown, contentType?: string) => api.call(method, path, body, contentType);
  const load = async (index: string, n: number) => {
    const lines = Array.from({ length: n }, (_, i) => [JSON.stringify({ index: { _index: index, _id: String(i + 1) } }), JSON.stringify({ n: i + 1, kind: i % 2 === 0 ? 'odd' : 'even' })]).flat().join('\n') + '\n';
    const r = await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    if (r.status !== 200 || r.body.errors) throw new Error(r.text);
  };
  const src = async (index: string) => {
    const r = await call('POST', `/${index}/_search`, { size: 100, sort: [{ n: 'asc' }] });
    return r.body.hits.hits.map((h: any) => [h._id, h._source]);
  };
  /** GET /_tasks/{id} until it reports the task completed */
  const completed = async (id: string): Promise<any> => {
    let got: any;
    for (let i = 0; i < 200; i++) {
      got = await call('GET', `/_tasks/${id}`);
      if (got.body.completed) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    return got;
  };
  const counts = (b: any) => ({ total: b.total, updated: b.updated, created: b.created, deleted: b.deleted, batches: b.batches, version_conflicts: b.version_conflicts, noops: b.noops, failures: b.failures });

  beforeAll(async () => {
    api = await startApiTestNode({ prefix: 'strata-byquery-', settings: { 'node.name': 'n1' } });
  });
  afterAll(() => api.close());

  it('_update_by_query: query + script with ctx.op, max_docs, conflicts, the response shape', async () => {
    await load('u', 6);
    const r = await call('POST', '/u/_update_by_query?refresh=true', {
      query: { term: { kind: 'odd' } },
      script: { source: "if (ctx._source.n == 5) { ctx.op = 'noop' } else if (ctx._source.n == 3) { ctx.op = 'delete' } else { ctx._source.n *= params.f; ctx._source.seen = true }", params: { f: 10 } },
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['took', 'timed_out', 'total', 'updated', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'failures']);
    expect(counts(r.body)).toEqual({ total: 3, updated: 1, created: undefined, deleted: 1, batches: 1, version_conflicts: 0, noops: 1, failures: [] });
    expect(r.body.retries).toEqual({ bulk: 0, search: 0 });
    expect(await src('u')).toEqual([
      ['2', { n: 2, kind: 'even' }],
      ['4', { n: 4, kind: 'even' }],
      ['5', { n: 5, kind: 'odd' }],
      ['6', { n: 6, kind: 'even' }],
      ['1', { n: 10, kind: 'odd', seen: true }],
    ]);
    const limited = await call('POST', '/u/_update_by_query?refresh=true&max_docs=2&scroll_size=1', { script: 'ctx._source.m = 1' });
    expect(counts(limited.body)).toMatchObject({ total: 2, updated: 2, batches: 2 });
    const bad = await call('POST', '/u/_update_by_query', { script: 'ctx._source.x.y = 1' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ type: 'script_exception', reason: 'runtime error', caused_by: { type: 'null_pointer_exception' } });
    expect((await call('POST', '/u/_update_by_query?conflicts=maybe', {})).body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'conflicts may only be "proceed" or "abort" but was [maybe]' });
  });

  it('_delete_by_query: query required, deletes exactly the matches', async () => {
    await load('d', 5);
    const r = await call('POST', '/d/_delete_by_query?refresh=true', { query: { range: { n: { gte: 3 } } } });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['took', 'timed_out', 'total', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'failures']);
    expect(counts(r.body)).toMatchObject({ total: 3, deleted: 3, batches: 1, version_conflicts: 0, noops: 0, failures: [] });
    expect((await src('d')).map((x: any[]) => x[0])).toEqual(['1', '2']);
    const noQuery = await call('POST', '/d/_delete_by_query', {});
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.error).toMatchObject({ type: 'action_request_validation_exception', reason: 'Validation Failed: 1: query is missing;' });
  });

  it('_reindex: query, script, op_type create and conflicts', async () => {
    await load('r1', 4);
    const r = await call('POST', '/_reindex?refresh=true', {
      source: { index: 'r1', query: { term: { kind: 'even' } } },
      dest: { index: 'r2' },
      script: { source: "ctx._source.copied = true; ctx._id = 'c' + ctx._id" },
    });
    expect(r.status).toBe(200);
    expect(counts(r.body)).toEqual({ total: 2, updated: 0, created: 2, deleted: 0, batches: 1, version_conflicts: 0, noops: 0, failures: [] });
    expect(await src('r2')).toEqual([
      ['c2', { n: 2, kind: 'even', copied: true }],
      ['c4', { n: 4, kind: 'even', copied: true }],
    ]);
    const again = await call('POST', '/_reindex?refresh=true', { source: { index: 'r1' }, dest: { index: 'r3', op_type: 'create' } });
    expect(counts(again.body)).toMatchObject({ total: 4, created: 4 });
    const conflict = await call('POST', '/_reindex', { source: { index: 'r1' }, dest: { index: 'r3', op_type: 'create' } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.version_conflicts).toBe(4);
    expect(conflict.body.failures[0]).toMatchObject({ index: 'r3', id: '1', status: 409, cause: { type: 'version_conflict_engine_exception' } });
    const proceed = await call('POST', '/_reindex', { conflicts: 'proceed', source: { index: 'r1' }, dest: { index: 'r3', op_type: 'create' } });
    expect(proceed.status).toBe(200);
    expect(counts(proceed.body)).toMatchObject({ total: 4, created: 0, version_conflicts: 4, failures: [] });
    const self = await call('POST', '/_reindex', { source: { index: 'r1' }, dest: { index: 'r1' } });
    expect(self.body.error).toMatchObject({ type: 'action_request_validation_exception', reason: 'Validation Failed: 1: reindex cannot write into an index its reading from [r1];' });
  });

  it('wait_for_completion=false runs a task; GET /_tasks/{id} returns its stored result', async () => {
    await load('t', 3);
    const r = await call('POST', '/t/_update_by_query?wait_for_completion=false&refresh=true', { script: 'ctx._source.t = 1' });
    expect(r.status).toBe(200);
    expect(r.body.task).toMatch(/^[^:]+:\d+$/);
    const got = await completed(r.body.task);
    expect(got.status).toBe(200);
    expect(got.body.completed).toBe(true);
    expect(got.body.task).toMatchObject({ id: Number(r.body.task.split(':')[1]), type: 'transport', action: 'indices:data/write/update/byquery', description: 'update-by-query [t]', cancellable: true, cancelled: false });
    expect(got.body.task.status).toMatchObject({ total: 3, updated: 3 });
    expect(counts(got.body.response)).toMatchObject({ total: 3, updated: 3, failures: [] });
    const node = r.body.task.split(':')[0];
    expect((await call('GET', `/_tasks/${node}:999999`)).body.error).toMatchObject({ type: 'resource_not_found_exception', reason: `task [${node}:999999] isn't running and hasn't stored its results` });
    expect((await call('GET', '/_tasks/nonsense')).body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'malformed task id nonsense' });
    const list = await call('GET', '/_tasks?detailed=true');
    const tasks = Object.values(list.body.nodes as Record<string, any>)[0].tasks;
    expect(Object.values(tasks).map((t: any) => t.action)).toEqual(['cluster:monitor/tasks/lists']);
    const none = await call('GET', '/_tasks?group_by=none&actions=*byquery');
    expect(none.body).toEqual({ tasks: [] });
  });

  it('a running task can be cancelled; it stops between batches and says so', async () => {
    await load('c', 40);
    const r = await call('POST', '/c/_update_by_query?wait_for_completion=false&scroll_size=1', { script: 'int x = 0; for (int i = 0; i < 200000; i++) { x += i } ctx._source.x = x' });
    const id = r.body.task;
    const cancel = await call('POST', `/_tasks/${id}/_cancel`);
    expect(cancel.status).toBe(200);
    const t = Object.values(Object.values(cancel.body.nodes as Record<string, any>)[0].tasks)[0] as any;
    expect(t).toMatchObject({ action: 'indices:data/write/update/byquery', cancellable: true, cancelled: true });
    const got = await completed(id);
    expect(got.body.completed).toBe(true);
    expect(got.body.response.canceled).toBe('by user request');
    expect(got.body.response.total).toBeLessThan(40);
    expect((await call('POST', `/_tasks/${id}/_cancel`)).body.error).toMatchObject({ type: 'resource_not_found_exception', reason: `task [${id}] is not found` });
  });

  it('slices=N and auto run that many slices: every document once, the slices array in the response and the task status', async () => {
    const lines = Array.from({ length: 30 }, (_, i) => [JSON.stringify({ index: { _index: 's', _id: String(i + 1) } }), JSON.stringify({ n: i + 1 })]).flat().join('\n') + '\n';
    await call('PUT', '/s', { settings: { number_of_shards: 3, number_of_replicas: 0 } });
    await call('POST', '/_bulk?refresh=true', lines, NDJSON);
    const r = await call('POST', '/s/_update_by_query?slices=4&refresh=true', { script: 'ctx._source.n += 100' });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(['took', 'timed_out', 'total', 'updated', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis', 'slices', 'failures']);
    expect(r.body.total).toBe(30);
    expect(r.body.updated).toBe(30);
    expect(r.body.slices.map((x: any) => x.slice_id)).toEqual([0, 1, 2, 3]);
    expect(r.body.slices.reduce((a: number, x: any) => a + x.updated, 0)).toBe(30);
    expect(r.body.slices.filter((x: any) => x.total > 0).length).toBeGreaterThan(1);
    expect(Object.keys(r.body.slices[0])).toEqual(['slice_id', 'total', 'updated', 'deleted', 'batches', 'version_conflicts', 'noops', 'retries', 'throttled_millis', 'requests_per_second', 'throttled_until_millis']);
    const sum = await call('POST', '/s/_search', { size: 0, aggs: { s: { sum: { field: 'n' } } } });
    expect(sum.body.aggregations.s.value).toBe(465 + 3000);
    // auto: one slice per shard; max_docs is shared by the slices
    const auto = await call('POST', '/s/_delete_by_query?slices=auto&max_docs=7&refresh=true', { query: { match_all: {} } });
    expect(auto.body.slices).toHaveLength(3);
    expect(auto.body.slices.map((x: any) => x.total).every((t: number) => t <= 3)).toBe(true);
    expect(auto.body.deleted).toBe(auto.body.slices.reduce((a: number, x: any) => a + x.deleted, 0));
    expect((await call('GET', '/s/_count')).body.count).toBe(30 - auto.body.deleted);
    // a running sliced request: the slices are child tasks of its task
    const running = await call('POST', '/s/_update_by_query?slices=2&scroll_size=1&requests_per_second=0.01&wait_for_completion=false', { query: { match_all: {} } });
    const parent = running.body.task;
    await new Promise((res) => setTimeout(res, 100));
    const listed = await call('GET', '/_tasks?detailed=true&actions=*byquery&group_by=parents');
    const entry = listed.body.tasks[parent];
    expect(entry.children.map((c: any) => [c.parent_task_id, c.status.slice_id, c.description])).toEqual([
      [parent, 0, 'update-by-query [s]'],
      [parent, 1, 'update-by-query [s]'],
    ]);
    expect(entry.status.slices.map((x: any) => x.slice_id)).toEqual([0, 1]);
    const children = await call('GET', `/_tasks?parent_task_id=${parent}&group_by=none`);
    expect(children.body.tasks).toHaveLength(2);
    await call('POST', `/_tasks/${parent}/_cancel`);
    const done = await completed(parent);
    expect(done.body.response.canceled).toBe('by user request');
    expect((await call('GET', `/_tasks?parent_task_id=${parent}&group_by=none`)).body.tasks).toEqual([]);
    const bad = await call('POST', '/s/_update_by_query?slices=0');
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: '[slices] must be a positive integer or the string "auto", but was [0]' });
  });

  it('requests_per_second throttles between batches; _rethrottle speeds a running request up', async () => {
    await load('th', 6);
    const bad = await call('POST', '/th/_update_by_query?requests_per_second=0');
    expect(bad.body.error).toMatchObject({ type: 'illegal_argument_exception', reason: '[requests_per_second] must be a float greater than 0. Use -1 to disable throttling.' });
    // 6 docs, batches of 2 at 4 docs/s: two waits of 0.5 s
    const t0 = Date.now();
    const r = await call('POST', '/th/_update_by_query?scroll_size=2&requests_per_second=4&refresh=true', { script: 'ctx._source.x = 1' });
    const took = Date.now() - t0;
    expect(r.body.updated).toBe(6);
    expect(r.body.requests_per_second).toBe(4);
    expect(took).toBeGreaterThanOrEqual(900);
    expect(r.body.throttled_millis).toBeGreaterThanOrEqual(900);
    // 1 doc per 100 s would take minutes: rethrottle to unlimited and it finishes at once
    const slow = await call('POST', '/th/_update_by_query?scroll_size=1&requests_per_second=0.01&wait_for_completion=false', { script: 'ctx._source.y = 1' });
    const id = slow.body.task;
    await new Promise((res) => setTimeout(res, 100));
    const running = await call('GET', `/_tasks/${id}`);
    expect(running.body.completed).toBe(false);
    expect(running.body.task.status.requests_per_second).toBe(0.01);
    expect(running.body.task.status.throttled_until_millis).toBeGreaterThan(1000);
    const re = await call('POST', `/_update_by_query/${id}/_rethrottle?requests_per_second=-1`);
    expect(re.status).toBe(200);
    const t = Object.values(Object.values(re.body.nodes as Record<string, any>)[0].tasks)[0] as any;
    expect(t).toMatchObject({ action: 'indices:data/write/update/byquery' });
    expect(t.status.requests_per_second).toBe(-1);
    const got = await completed(id);
    expect(got.body.completed).toBe(true);
    expect(got.body.response.updated).toBe(6);
    expect((await call('POST', `/_update_by_query/${id}/_rethrottle?requests_per_second=5`)).body.error).toMatchObject({ type: 'resource_not_found_exception', reason: `task [${id}] is missing` });
    expect((await call('POST', `/_reindex/${id}/_rethrottle`)).body.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'requests_per_second is a required parameter' });
  });
});
