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
    let got: any;
    for (let i = 0; i < 100; i++) {
      got = await call('GET', `/_tasks/${r.body.task}`);
      if (got.body.completed) break;
      await new Promise((res) => setTimeout(res, 10));
    }
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
    let got: any;
    for (let i = 0; i < 200; i++) {
      got = await call('GET', `/_tasks/${id}`);
      if (got.body.completed) break;
      await new Promise((res) => setTimeout(res, 10));
    }
    expect(got.body.completed).toBe(true);
    expect(got.body.response.canceled).toBe('by user request');
    expect(got.body.response.total).toBeLessThan(40);
    expect((await call('POST', `/_tasks/${id}/_cancel`)).body.error).toMatchObject({ type: 'resource_not_found_exception', reason: `task [${id}] is not found` });
  });
});
