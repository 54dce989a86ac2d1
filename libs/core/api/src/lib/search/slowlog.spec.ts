/**
 * Search and indexing slow logs through the whole node: thresholds are dynamic index settings, a
 * slow operation is logged at the level of the highest threshold it crossed, with Elasticsearch's fields.
 */
import type { Logger } from '@strata/core-common';
import { startApiTestNode, type ApiTestNode } from '../testing/api-test-node.js';

class MemoryLogger implements Logger {
  readonly entries: Array<{ level: string; obj: unknown; msg?: string }> = [];
  info(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'info', obj, msg });
  }
  warn(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'warn', obj, msg });
  }
  error(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'error', obj, msg });
  }
  debug(obj: unknown, msg?: string): void {
    this.entries.push({ level: 'debug', obj, msg });
  }
}

describe('slow logs', () => {
  let node: ApiTestNode;
  const logger = new MemoryLogger();
  const host = {
    request: async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(node.base + path, {
        method,
        headers: { ...headers, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : undefined };
    },
  };
  const slow = (name: string) =>
    logger.entries.filter((e) => (e.obj as Record<string, unknown>)['log.logger'] === name).map((e) => ({ level: e.level, msg: e.msg, obj: e.obj as Record<string, unknown> }));

  beforeAll(async () => {
    node = await startApiTestNode({ prefix: 'strata-slowlog-', logger });
    await host.request('PUT', '/quiet', {});
    const r = await host.request('PUT', '/loud', {
      settings: {
        'index.indexing.slowlog.threshold.index.warn': '10s',
        'index.indexing.slowlog.threshold.index.info': '0ms',
        'index.indexing.slowlog.source': 12,
        'index.search.slowlog.threshold.query.warn': '0ms',
        'index.search.slowlog.threshold.fetch.debug': '0ms',
      },
    });
    expect(r.status).toBe(200);
  });
  afterAll(() => node?.close());

  it('logs index operations over the threshold, with id, routing and a truncated source', async () => {
    await host.request('PUT', '/quiet/_doc/1', { a: 1 });
    await host.request('PUT', '/loud/_doc/7?routing=r1', { message: 'hello slow world' });
    const lines = slow('index.indexing.slowlog.index');
    expect(lines).toHaveLength(1);
    const uuid = (await host.request('GET', '/loud/_settings')).body.loud.settings.index.uuid;
    expect(lines[0]).toMatchObject({
      level: 'info',
      msg: `[loud/${uuid}]`,
      obj: {
        'event.dataset': 'elasticsearch.index_indexing_slowlog',
        'elasticsearch.slowlog.id': '7',
        'elasticsearch.slowlog.routing': 'r1',
        'elasticsearch.slowlog.source': '{"message":"',
      },
    });
    expect(lines[0]!.obj['elasticsearch.slowlog.took_millis']).toEqual(expect.any(Number));
  });

  it('logs shard query (warn) and fetch (debug) phases with the request source and hits', async () => {
    await host.request('POST', '/_refresh');
    await host.request('POST', '/quiet/_search', { query: { match_all: {} } });
    await host.request('POST', '/loud/_search', { query: { match: { message: 'hello' } } }, { 'X-Opaque-Id': 'q-9' });
    const q = slow('index.search.slowlog.query');
    expect(q).toHaveLength(1);
    expect(q[0]).toMatchObject({
      level: 'warn',
      msg: '[loud][0]',
      obj: {
        'event.dataset': 'elasticsearch.index_search_slowlog',
        'elasticsearch.slowlog.source': '{"query":{"match":{"message":"hello"}}}',
        'elasticsearch.slowlog.total_hits': '1 hits',
        'elasticsearch.slowlog.total_shards': 1,
        'elasticsearch.slowlog.search_type': 'QUERY_THEN_FETCH',
        'elasticsearch.slowlog.id': 'q-9',
      },
    });
    const f = slow('index.search.slowlog.fetch');
    expect(f.map((l) => [l.level, l.msg])).toEqual([['debug', '[loud][0]']]);
  });

  it('turns off with -1 (dynamic)', async () => {
    const r = await host.request('PUT', '/loud/_settings', { 'index.search.slowlog.threshold.query.warn': '-1' });
    expect(r.status).toBe(200);
    const before = slow('index.search.slowlog.query').length;
    await host.request('POST', '/loud/_search', {});
    expect(slow('index.search.slowlog.query').length).toBe(before);
  });
});
