import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { Container } from 'inversify';
import { Tokens } from '@strata/core-common';
import { HttpPipeline, httpModule } from '@strata/core-http';
import { DefaultIndexNameExpressionResolver, EngineTokens, FixedBitSet, InMemoryMetadataStore, NODE_FILTER_CACHE, type IndexMetadata } from '@strata/core-engine';
import { requestCacheModule } from '../request-cache.module.js';
import { RequestCacheService, type CacheableShardSearch } from '../request-cache.service.js';

function meta(name: string, over: Partial<IndexMetadata> = {}): IndexMetadata {
  return {
    name,
    uuid: `${name}-uuid`,
    settings: {},
    mappings: {},
    mappingVersion: 1,
    settingsVersion: 1,
    aliasesVersion: 1,
    aliases: {},
    state: 'open',
    numberOfShards: 1,
    numberOfReplicas: 1,
    creationDate: 0,
    primaryTerms: [1],
    ...over,
  };
}

function search(index: string, shard = 0): CacheableShardSearch {
  return {
    index,
    shard,
    readerKey: `${index}#${shard}#1`,
    generation: 1,
    mappingVersion: 1,
    rawBody: '{"size":0}',
    indexEnabled: true,
    size: 0,
    scroll: false,
    profile: false,
  };
}

const js = (r: Response): Promise<any> => r.json();

describe('POST /_cache/clear', () => {
  let server: Server;
  let url: string;
  let svc: RequestCacheService;

  beforeAll(async () => {
    const store = new InMemoryMetadataStore();
    await store.update((d) => {
      d.indices['logs'] = meta('logs', { numberOfShards: 2, primaryTerms: [1, 1] });
      d.indices['metrics'] = meta('metrics', { numberOfReplicas: 0 });
      d.indices['.hidden'] = meta('.hidden', { settings: { 'index.hidden': true } });
    });
    const c = new Container({ defaultScope: 'Singleton' });
    c.bind(Tokens.HostConfig).toConstantValue({ settings: {} });
    c.bind(EngineTokens.MetadataStore).toConstantValue(store);
    c.bind(EngineTokens.IndexNameExpressionResolver).to(DefaultIndexNameExpressionResolver);
    c.load(httpModule, requestCacheModule);
    svc = c.get(RequestCacheService);
    const app = new Koa();
    app.silent = true;
    app.use(c.get(HttpPipeline).middleware());
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  async function fill(): Promise<void> {
    svc.cache.clear();
    for (const s of [search('logs', 0), search('logs', 1), search('metrics')]) await svc.execute(s, async () => ({ n: 1 }));
  }
  const post = (path: string) => fetch(url + path, { method: 'POST' });

  it('clears one index and answers with the broadcast shard counts', async () => {
    await fill();
    const r = await post('/logs/_cache/clear?request=true');
    expect(r.status).toBe(200);
    expect(await js(r)).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
    expect(svc.cache.stats('logs').memorySizeInBytes).toBe(0);
    expect(svc.cache.stats('metrics').memorySizeInBytes).toBeGreaterThan(0);
  });

  it('clears all (visible) indices by default', async () => {
    await fill();
    const r = await post('/_cache/clear');
    expect(await js(r)).toEqual({ _shards: { total: 5, successful: 3, failed: 0 } });
    expect(svc.cache.size).toBe(0);
  });

  it('leaves the request cache alone when only another cache is named', async () => {
    await fill();
    expect(await js(await post('/metrics/_cache/clear?query=true'))).toEqual({ _shards: { total: 1, successful: 1, failed: 0 } });
    expect(await js(await post('/metrics/_cache/clear?fielddata=true&fields=a,b'))).toEqual({
      _shards: { total: 1, successful: 1, failed: 0 },
    });
    expect(svc.cache.stats('metrics').memorySizeInBytes).toBeGreaterThan(0);
    await post('/metrics/_cache/clear?query=true&request=true');
    expect(svc.cache.stats('metrics').memorySizeInBytes).toBe(0);
  });

  it('clears the node\'s filter cache when query=true or no cache is named, and only then', async () => {
    NODE_FILTER_CACHE.configure(1 << 20, 10);
    const keep = () => NODE_FILTER_CACHE.put({}, 'range', new FixedBitSet(64), 1);
    keep();
    await post('/metrics/_cache/clear?request=true');
    expect(NODE_FILTER_CACHE.size).toBe(1);
    await post('/metrics/_cache/clear?fielddata=true');
    expect(NODE_FILTER_CACHE.size).toBe(1);
    await post('/metrics/_cache/clear?query=true');
    expect(NODE_FILTER_CACHE.size).toBe(0);
    keep();
    await post('/_cache/clear');
    expect(NODE_FILTER_CACHE.size).toBe(0);
    NODE_FILTER_CACHE.configure(0, 0);
  });

  it('accepts comma lists and wildcards', async () => {
    await fill();
    expect(await js(await post('/logs,metrics/_cache/clear'))).toEqual({ _shards: { total: 5, successful: 3, failed: 0 } });
    expect(await js(await post('/met*/_cache/clear'))).toEqual({ _shards: { total: 1, successful: 1, failed: 0 } });
    expect(await js(await post('/nomatch*/_cache/clear'))).toEqual({ _shards: { total: 0, successful: 0, failed: 0 } });
  });

  it('answers index_not_found_exception for a missing index unless ignore_unavailable', async () => {
    const r = await post('/nope/_cache/clear');
    expect(r.status).toBe(404);
    const body = await js(r);
    expect(body.error.type).toBe('index_not_found_exception');
    expect(body.error.reason).toBe('no such index [nope]');
    const ok = await post('/nope,logs/_cache/clear?ignore_unavailable=true');
    expect(await js(ok)).toEqual({ _shards: { total: 4, successful: 2, failed: 0 } });
  });

  it('rejects unknown parameters and wrong methods as ES does', async () => {
    const r = await post('/logs/_cache/clear?bogus=1');
    expect(r.status).toBe(400);
    expect((await js(r)).error.type).toBe('illegal_argument_exception');
    const bad = await post('/logs/_cache/clear?request=maybe');
    expect(bad.status).toBe(400);
    expect((await js(bad)).error.type).toBe('illegal_argument_exception');
    const ew = await js(await post('/logs/_cache/clear?expand_wildcards=open,foo'));
    expect(ew.error).toMatchObject({ type: 'illegal_argument_exception', reason: 'No valid expand wildcard value [foo]' });
  });

  it('expands hidden indices only when asked (the shared indices-options parser)', async () => {
    await fill();
    expect(await js(await post('/*/_cache/clear?expand_wildcards=open,hidden'))).toEqual({ _shards: { total: 7, successful: 4, failed: 0 } });
    expect(await js(await post('/*/_cache/clear?expand_wildcards=all,none'))).toEqual({ _shards: { total: 0, successful: 0, failed: 0 } });
  });
});
