import { Container } from 'inversify';
import { ExtensionPoints, Tokens } from '@strata/core-common';
import type { ShardSearchInterceptor } from '@strata/core-engine';
import { requestCacheModule } from './request-cache.module.js';
import { RequestCacheService } from './request-cache.service.js';
import {
  RequestCacheShardInterceptor,
  type ShardSearchContextView,
  type ShardSearchRequestView,
} from './request-cache.interceptor.js';

interface Result {
  index: string;
  shardId: number;
  shardIndex: number;
  hits: unknown[];
  totalHits?: { value: number; relation: string };
  maxScore: number | null;
  sortMeta: null;
  timedOut: boolean;
  aggregations?: Record<string, unknown>;
}

const BODY = '{"size":0,"aggs":{"by_status":{"terms":{"field":"status"}}}}';

function req(over: Partial<ShardSearchRequestView> & { size?: number } = {}): ShardSearchRequestView {
  const { size = 0, ...rest } = over;
  return {
    shardIndex: 0,
    numShards: 1,
    source: { size, profile: false, aggs: { by_status: { terms: { field: 'status' } } } } as ShardSearchRequestView['source'],
    rawBody: BODY,
    scroll: false,
    nowUsed: false,
    profile: false,
    ...rest,
  };
}

function ctx(generation = 1, over: Partial<ShardSearchContextView> = {}): ShardSearchContextView {
  return {
    index: 'logs',
    shardId: 0,
    indexMetadata: { mappingVersion: 1 },
    indexSettings: {},
    reader: { cacheKey: `uuid[0]#${generation}`, generation, mappingVersion: 1 },
    ...over,
  };
}

describe('RequestCacheShardInterceptor', () => {
  let interceptor: RequestCacheShardInterceptor;
  let svc: RequestCacheService;
  let runs: number;
  const next = async (): Promise<Result> => {
    runs++;
    return {
      index: 'logs',
      shardId: 0,
      shardIndex: 0,
      hits: [],
      totalHits: { value: 42, relation: 'eq' },
      maxScore: null,
      sortMeta: null,
      timedOut: false,
      aggregations: { by_status: { type: 'sterms', buckets: [{ key: '200', docCount: 40 }] } },
    };
  };

  beforeEach(() => {
    const c = new Container({ defaultScope: 'Singleton' });
    c.bind(Tokens.HostConfig).toConstantValue({ settings: {} });
    c.load(requestCacheModule);
    const all = c.getAll<RequestCacheShardInterceptor>(ExtensionPoints.ShardSearchInterceptor);
    expect(all).toHaveLength(1);
    interceptor = all[0];
    // compile-time check: the adapter satisfies the engine's ShardSearchInterceptor contract
    const asEngine: ShardSearchInterceptor = interceptor;
    expect(asEngine.name).toBe('request_cache');
    expect(asEngine.order).toBe(500);
    svc = c.get(RequestCacheService);
    runs = 0;
  });

  it('answers the second identical size-0 search from the cache with an equal result', async () => {
    const a = await interceptor.intercept(req(), ctx(), next);
    const b = await interceptor.intercept(req(), ctx(), next);
    expect(runs).toBe(1);
    expect(b).toEqual(a);
    expect(b).not.toBe(a);
    expect(svc.cache.stats('logs')).toMatchObject({ hitCount: 1, missCount: 1 });
  });

  it('misses after a refresh (new reader) and on a newer mapping', async () => {
    await interceptor.intercept(req(), ctx(1), next);
    await interceptor.intercept(req(), ctx(2), next);
    expect(runs).toBe(2);
    await interceptor.intercept(req(), ctx(2, { indexMetadata: { mappingVersion: 2 } }), next);
    expect(runs).toBe(3);
    await interceptor.intercept(req(), ctx(2, { indexMetadata: { mappingVersion: 2 } }), next);
    expect(runs).toBe(3);
  });

  it('hands back the caller shard position', async () => {
    await interceptor.intercept(req({ shardIndex: 0, numShards: 1 }), ctx(), next);
    const r = await interceptor.intercept(req({ shardIndex: 3, numShards: 4 }), ctx(), next);
    expect(runs).toBe(1);
    expect(r.shardIndex).toBe(3);
  });

  it('keys hits requests on the shard position', async () => {
    await interceptor.intercept(req({ size: 10, requestCache: true, shardIndex: 0 }), ctx(), next);
    await interceptor.intercept(req({ size: 10, requestCache: true, shardIndex: 1, numShards: 2 }), ctx(), next);
    await interceptor.intercept(req({ size: 10, requestCache: true, shardIndex: 1, numShards: 2 }), ctx(), next);
    expect(runs).toBe(2);
  });

  it('honours the index setting, request_cache and the flags', async () => {
    const off = ctx(1, { indexSettings: { 'index.requests.cache.enable': false } });
    await interceptor.intercept(req(), off, next);
    await interceptor.intercept(req(), off, next);
    expect(runs).toBe(2);
    await interceptor.intercept(req({ requestCache: true }), off, next);
    await interceptor.intercept(req({ requestCache: true }), off, next);
    expect(runs).toBe(3);
    for (const over of [{ requestCache: false }, { scroll: true }, { nowUsed: true }, { profile: true }, { size: 5 }, { searchType: 'dfs_query_then_fetch' }]) {
      const before = runs;
      await interceptor.intercept(req(over), ctx(), next);
      await interceptor.intercept(req(over), ctx(), next);
      expect(runs).toBe(before + 2);
    }
  });

  it('alias filters and different bodies are different keys', async () => {
    await interceptor.intercept(req(), ctx(), next);
    await interceptor.intercept(req({ aliasFilter: { term: { status: '404' } } }), ctx(), next);
    await interceptor.intercept(req({ rawBody: BODY.replace('"size":0,', '') + '' }), ctx(), next);
    expect(runs).toBe(3);
  });

  it('does not cache a timed-out shard result', async () => {
    const timedOut = async (): Promise<Result> => ({ ...(await next()), timedOut: true });
    await interceptor.intercept(req(), ctx(), timedOut);
    await interceptor.intercept(req(), ctx(), timedOut);
    expect(runs).toBe(2);
  });
});
