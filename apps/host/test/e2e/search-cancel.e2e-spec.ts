/**
 * A long search on one shard (one segment) is cancellable while its query phase runs: the phase pauses for
 * the event loop every few milliseconds, so `_tasks` answers meanwhile, `POST /_tasks/{id}/_cancel` stops it
 * mid-segment with ES's task_cancelled_exception, and a client that closes its connection stops it too.
 * The script makes the uncancelled search take longer (20 s to minutes, with the load) than the bound
 * checked here, and a pause point (every 256 docs) come well within it.
 */
import { request as httpRequest } from 'node:http';
import { startE2eHost, type E2eHost } from './helpers.js';

jest.setTimeout(120_000);

const DOCS = 30_000;
const SLOW_SEARCH = {
  size: 1,
  query: {
    script_score: {
      query: { match_all: {} },
      script: { source: 'double s = 0; for (int i = 0; i < params.n; ++i) { s += Math.sqrt(i + doc["n"].value); } return s;', params: { n: 300 } },
    },
  },
};
/** the cancel must take effect well before the uncancelled search could have ended */
const BOUND_MS = 10_000;

async function call(base: string, method: string, path: string, body?: unknown, ndjson = false): Promise<{ status: number; json: any }> {
  const r = await fetch(base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': ndjson ? 'application/x-ndjson' : 'application/json' },
    body: body === undefined ? undefined : ndjson ? (body as string) : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : undefined };
}

/** the running search task's `node:id`, polled through `_tasks` (answered while the search runs) */
async function searchTaskId(base: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const r = await call(base, 'GET', '/_tasks?actions=indices:data/read/search&detailed=true');
    for (const node of Object.values<any>(r.json.nodes ?? {})) {
      const ids = Object.keys(node.tasks);
      if (ids.length > 0) return ids[0]!;
    }
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('the search task never showed up in _tasks');
}

async function searchTasks(base: string): Promise<number> {
  const r = await call(base, 'GET', '/_tasks?actions=indices:data/read/search');
  return Object.values<any>(r.json.nodes ?? {}).reduce((n, node) => n + Object.keys(node.tasks).length, 0);
}

describe('a long one-shard search is cancelled mid-shard', () => {
  let host: E2eHost;
  beforeAll(async () => {
    host = await startE2eHost();
    expect((await call(host.url, 'PUT', '/slow', { settings: { number_of_shards: 1 }, mappings: { properties: { n: { type: 'long' } } } })).status).toBe(200);
    for (let start = 0; start < DOCS; start += 5000) {
      const lines: string[] = [];
      for (let i = start; i < start + 5000; i++) lines.push('{"index":{}}', JSON.stringify({ n: i }));
      const r = await call(host.url, 'POST', '/slow/_bulk', lines.join('\n') + '\n', true);
      expect(r.json.errors).toBe(false);
    }
    await call(host.url, 'POST', '/slow/_forcemerge?max_num_segments=1');
    await call(host.url, 'POST', '/slow/_refresh');
    const stats = await call(host.url, 'GET', '/slow/_stats/segments');
    expect(stats.json.indices.slow.primaries.segments.count).toBe(1);
  });
  afterAll(async () => {
    await host.close();
  });

  it('by POST /_tasks/{id}/_cancel: task_cancelled_exception, soon', async () => {
    const t0 = Date.now();
    const running = call(host.url, 'POST', '/slow/_search', SLOW_SEARCH);
    const id = await searchTaskId(host.url);
    const seenMs = Date.now() - t0;
    const cancelledAt = Date.now();
    const cancel = await call(host.url, 'POST', `/_tasks/${id}/_cancel`);
    expect(cancel.status).toBe(200);
    const r = await running;
    const afterCancelMs = Date.now() - cancelledAt;
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error: {
        root_cause: [{ type: 'task_cancelled_exception', reason: 'task cancelled [by user request]' }],
        type: 'task_cancelled_exception',
        reason: 'task cancelled [by user request]',
      },
      status: 400,
    });
    expect(afterCancelMs).toBeLessThan(BOUND_MS);
    expect(seenMs).toBeLessThan(BOUND_MS);
    expect(await searchTasks(host.url)).toBe(0);
  });

  it('by the client closing its connection: the search stops, the node keeps serving', async () => {
    const body = JSON.stringify(SLOW_SEARCH);
    const url = new URL('/slow/_search', host.url);
    const req = httpRequest({ hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } });
    req.on('error', () => undefined);
    req.end(body);
    await searchTaskId(host.url);
    const closedAt = Date.now();
    req.destroy();
    while ((await searchTasks(host.url)) > 0) {
      if (Date.now() - closedAt > BOUND_MS) throw new Error('the search kept running after its client left');
      await new Promise((res) => setTimeout(res, 25));
    }
    expect(Date.now() - closedAt).toBeLessThan(BOUND_MS);
    const count = await call(host.url, 'GET', '/slow/_count');
    expect(count.json.count).toBe(DOCS);
  });
});
