import { Container } from 'inversify';
import { ExtensionPoints, SettingsRegistry, Tokens, type Clock, type IndexStatsContributor, type NodeStatsContributor, type SettingDef } from '@strata/core-common';
import { EngineTokens, InMemoryMetadataStore, type EngineEventListener } from '@strata/core-engine';
import { RequestCacheService, requestCacheConfigFrom, type CacheableShardSearch } from './request-cache.service.js';
import { requestCacheModule } from './request-cache.module.js';
import { indexCacheEnabled, resolveMemorySize } from './request-cache.settings.js';

function search(over: Partial<CacheableShardSearch> = {}): CacheableShardSearch {
  return {
    index: 'logs',
    shard: 0,
    readerKey: 'u#1',
    generation: 1,
    mappingVersion: 1,
    rawBody: '{"size":0,"aggs":{"s":{"terms":{"field":"status"}}}}',
    source: { size: 0, aggs: { s: { terms: { field: 'status' } } } },
    indexEnabled: true,
    size: 0,
    scroll: false,
    profile: false,
    ...over,
  };
}

function fakeClock(start = Date.UTC(2026, 0, 1, 10)): Clock & { t: number } {
  const c = { t: start, now: () => c.t, nanoTime: () => BigInt(c.t) * 1_000_000n };
  return c;
}

function container(settings: Record<string, unknown> = {}, clock: Clock = fakeClock()) {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(Tokens.HostConfig).toConstantValue({ settings });
  c.bind(Tokens.Clock).toConstantValue(clock);
  c.load(requestCacheModule);
  return c;
}

describe('RequestCacheService', () => {
  it('caches a size-0 search and counts hit and miss', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ({ totalHits: 5, aggs: { s: [1, 2] }, n: ++runs });
    expect(await svc.execute(search(), next)).toEqual({ totalHits: 5, aggs: { s: [1, 2] }, n: 1 });
    expect(await svc.execute(search(), next)).toEqual({ totalHits: 5, aggs: { s: [1, 2] }, n: 1 });
    expect(runs).toBe(1);
    expect(svc.cache.stats('logs')).toMatchObject({ hitCount: 1, missCount: 1 });
  });

  it('a body with another key order misses', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    await svc.execute(search(), next);
    await svc.execute(search({ rawBody: '{"aggs":{"s":{"terms":{"field":"status"}}},"size":0}' }), next);
    expect(runs).toBe(2);
    expect(svc.cache.stats('logs')).toMatchObject({ hitCount: 0, missCount: 2 });
  });

  it('a new reader generation or mapping version misses; eager drops free memory', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    await svc.execute(search(), next);
    await svc.execute(search({ readerKey: 'u#2', generation: 2 }), next);
    expect(runs).toBe(2);
    expect(svc.cache.size).toBe(2);
    svc.onRefresh('logs', 0, 2);
    expect(svc.cache.size).toBe(1);
    await svc.execute(search({ readerKey: 'u#2', generation: 2, mappingVersion: 2 }), next);
    expect(runs).toBe(3);
    svc.onMappingUpdate('logs', 2);
    expect(svc.cache.size).toBe(1);
    expect(await svc.execute(search({ readerKey: 'u#2', generation: 2, mappingVersion: 2 }), next)).toBe(3);
  });

  it('bypasses the cache for not-cacheable searches without counting', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    const cases: Array<[Partial<CacheableShardSearch>, string]> = [
      [{ size: 10 }, 'size_not_zero'],
      [{ requestCache: false }, 'disabled_by_request'],
      [{ indexEnabled: false }, 'disabled_by_index_setting'],
      [{ scroll: true }, 'scroll'],
      [{ profile: true }, 'profile'],
      [{ searchType: 'dfs_query_then_fetch' }, 'dfs'],
      [{ nonDeterministic: true }, 'non_deterministic'],
      [{ source: { query: { range: { t: { gte: 'now-1h' } } } } }, 'non_deterministic'],
    ];
    for (const [over, reason] of cases) {
      await svc.execute(search(over), next);
      await svc.execute(search(over), next);
      expect(svc.lastBypassReason).toBe(reason);
    }
    expect(runs).toBe(cases.length * 2);
    expect(svc.cache.size).toBe(0);
    expect(svc.cache.totalStats()).toEqual({ memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 });
  });

  it('request_cache=true caches size > 0 and overrides a disabled index', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    await svc.execute(search({ size: 10, requestCache: true, indexEnabled: false }), next);
    await svc.execute(search({ size: 10, requestCache: true, indexEnabled: false }), next);
    expect(runs).toBe(1);
  });

  it('does not cache timed-out shard results', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ({ timedOut: true, n: ++runs });
    await svc.execute(search(), next);
    await svc.execute(search(), next);
    expect(runs).toBe(2);
  });

  it('URL params that change the result are part of the key', async () => {
    const svc = container().get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    await svc.execute(search({ rawBody: '', source: undefined, params: { q: 'status:200', size: '0' } }), next);
    await svc.execute(search({ rawBody: '', source: undefined, params: { q: 'status:200', size: '0', pretty: 'true' } }), next);
    await svc.execute(search({ rawBody: '', source: undefined, params: { q: 'status:404', size: '0' } }), next);
    expect(runs).toBe(2);
  });

  it('rounded now is cached within its bucket only', async () => {
    const clock = fakeClock(Date.UTC(2026, 0, 1, 10, 0));
    const svc = container({}, clock).get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    const s = search({ source: { size: 0, query: { range: { t: { gte: 'now-1h/h' } } } }, rawBody: '{"q":1}' });
    await svc.execute(s, next);
    clock.t += 30 * 60_000;
    expect(await svc.execute(s, next)).toBe(1);
    clock.t += 31 * 60_000;
    expect(await svc.execute(s, next)).toBe(2);
  });

  it('expires entries with indices.requests.cache.expire', async () => {
    const clock = fakeClock();
    const svc = container({ 'indices.requests.cache.expire': '1m' }, clock).get(RequestCacheService);
    let runs = 0;
    const next = async () => ++runs;
    await svc.execute(search(), next);
    clock.t += 30_000;
    await svc.execute(search(), next);
    expect(runs).toBe(1);
    clock.t += 31_000;
    await svc.execute(search(), next);
    expect(runs).toBe(2);
    expect(svc.cache.stats('logs').evictions).toBe(1);
  });

  it('is sized from indices.requests.cache.size', () => {
    expect(requestCacheConfigFrom({}, 1000_000).maxSizeBytes).toBe(10_000);
    expect(requestCacheConfigFrom({ 'indices.requests.cache.size': '2%' }, 1000_000).maxSizeBytes).toBe(20_000);
    expect(requestCacheConfigFrom({ 'indices.requests.cache.size': '10kb' }).maxSizeBytes).toBe(10_240);
    expect(requestCacheConfigFrom({ 'indices.requests.cache.size': 2048 }).maxSizeBytes).toBe(2048);
    expect(requestCacheConfigFrom({ 'indices.requests.cache.expire': '10s' }).ttlMs).toBe(10_000);
    expect(resolveMemorySize('0.5%', 2000)).toBe(10);
    const svc = container({ 'indices.requests.cache.size': '1kb' }).get(RequestCacheService);
    expect(svc.cache.maxSizeBytes).toBe(1024);
  });

  it('rejects invalid size settings with ES errors', () => {
    expect(() => requestCacheConfigFrom({ 'indices.requests.cache.size': '120%' })).toThrow(
      expect.objectContaining({ type: 'parse_exception', reason: 'percentage should be in [0-100], got [120]' }),
    );
    expect(() => requestCacheConfigFrom({ 'indices.requests.cache.size': 'x%' })).toThrow(
      expect.objectContaining({ type: 'parse_exception', reason: 'failed to parse [x] as a double' }),
    );
    expect(() => requestCacheConfigFrom({ 'indices.requests.cache.size': 'lots' })).toThrow(
      expect.objectContaining({ type: 'illegal_argument_exception' }),
    );
    expect(() => requestCacheConfigFrom({ 'indices.requests.cache.expire': 'soon' })).toThrow(
      expect.objectContaining({ type: 'illegal_argument_exception' }),
    );
  });

  it('indexCacheEnabled reads the flat setting', () => {
    expect(indexCacheEnabled(undefined)).toBe(true);
    expect(indexCacheEnabled({ 'index.requests.cache.enable': false })).toBe(false);
    expect(indexCacheEnabled({ 'index.requests.cache.enable': 'false' })).toBe(false);
    expect(indexCacheEnabled({ 'index.requests.cache.enable': true })).toBe(true);
  });
});

describe('requestCacheModule contributions', () => {
  it('registers settings that a SettingsRegistry accepts', () => {
    const c = container();
    const defs = c.getAll<SettingDef>(ExtensionPoints.Setting);
    const reg = new SettingsRegistry(defs);
    expect(reg.get('index.requests.cache.enable')).toMatchObject({ scope: 'index', dynamic: true, defaultValue: true });
    expect(reg.get('indices.requests.cache.size')).toMatchObject({ scope: 'node', dynamic: false, defaultValue: '1%' });
    expect(reg.get('indices.requests.cache.expire')).toMatchObject({ scope: 'node', dynamic: false });
    expect(reg.validate('index', { 'index.requests.cache.enable': 'false' })).toEqual({ 'index.requests.cache.enable': false });
    expect(() => reg.validate('index', { 'index.requests.cache.enable': 'maybe' })).toThrow(
      expect.objectContaining({
        type: 'illegal_argument_exception',
        reason: 'Failed to parse value [maybe] as only [true] or [false] are allowed for setting [index.requests.cache.enable].',
      }),
    );
    expect(reg.validate('index', { 'index.requests.cache.enable': false }, { update: true })).toEqual({
      'index.requests.cache.enable': false,
    });
  });

  it('stats contributors render ES shapes, with human sizes', async () => {
    const c = container();
    const svc = c.get(RequestCacheService);
    await svc.execute(search(), async () => ({ v: 'x'.repeat(2000) }));
    await svc.execute(search(), async () => ({ v: 'never' }));
    const node = c.getAll<NodeStatsContributor>(ExtensionPoints.NodeStatsContributor);
    const idx = c.getAll<IndexStatsContributor>(ExtensionPoints.IndexStatsContributor);
    expect(node.map((n) => n.section)).toEqual(['indices.request_cache']);
    expect(idx.map((n) => n.metric)).toEqual(['request_cache']);
    const bytes = svc.cache.stats('logs').memorySizeInBytes;
    expect(bytes).toBeGreaterThan(4000);
    expect(idx[0].indexStats('logs', { human: false })).toEqual({
      memory_size_in_bytes: bytes,
      evictions: 0,
      hit_count: 1,
      miss_count: 1,
    });
    const human = idx[0].indexStats('logs', { human: true });
    expect(Object.keys(human)).toEqual(['memory_size', 'memory_size_in_bytes', 'evictions', 'hit_count', 'miss_count']);
    expect(human['memory_size']).toBe(`${+(bytes / 1024).toFixed(1)}kb`);
    expect(idx[0].indexStats('other', { human: true })).toEqual({
      memory_size: '0b',
      memory_size_in_bytes: 0,
      evictions: 0,
      hit_count: 0,
      miss_count: 0,
    });
    expect(node[0].stats({ human: false })).toEqual({ memory_size_in_bytes: bytes, evictions: 0, hit_count: 1, miss_count: 1 });
  });

  it('the engine listener drops entries on refresh, mapping update and index deletion', async () => {
    const c = container();
    const svc = c.get(RequestCacheService);
    const [listener] = c.getAll<EngineEventListener>(ExtensionPoints.EngineEventListener);
    expect(listener).toBe(c.getAll<EngineEventListener>(ExtensionPoints.EngineEventListener)[0]);
    await svc.execute(search(), async () => 1);
    await svc.execute(search({ shard: 1, readerKey: 'v#1' }), async () => 1);
    listener.onRefresh!('logs', 0, 2);
    expect(svc.cache.size).toBe(1);
    listener.onMappingUpdate!('logs', 2);
    expect(svc.cache.size).toBe(0);
    await svc.execute(search({ mappingVersion: 2 }), async () => 1);
    listener.onIndexDeleted!('logs', 'uuid');
    expect(svc.cache.size).toBe(0);
    expect(svc.cache.stats('logs')).toEqual({ memorySizeInBytes: 0, evictions: 0, hitCount: 0, missCount: 0 });
    expect(svc.cache.totalStats().missCount).toBe(3);
  });
});

describe('RequestCacheService and the MetadataStore', () => {
  it('drops entries when an index is deleted or its mapping version grows', async () => {
    const store = new InMemoryMetadataStore();
    const im = (name: string, mappingVersion: number, uuid = `${name}-u`) => ({
      name,
      uuid,
      settings: {},
      mappings: {},
      mappingVersion,
      settingsVersion: 1,
      aliasesVersion: 1,
      aliases: {},
      state: 'open' as const,
      numberOfShards: 1,
      numberOfReplicas: 1,
      creationDate: 0,
      primaryTerms: [1],
    });
    await store.update((d) => {
      d.indices['logs'] = im('logs', 1);
      d.indices['other'] = im('other', 1);
    });
    const c = new Container({ defaultScope: 'Singleton' });
    c.bind(Tokens.HostConfig).toConstantValue({ settings: {} });
    c.bind(EngineTokens.MetadataStore).toConstantValue(store);
    c.load(requestCacheModule);
    const svc = c.get(RequestCacheService);
    await svc.execute(search(), async () => 1);
    await svc.execute(search({ index: 'other' }), async () => 1);
    expect(svc.cache.size).toBe(2);
    await store.update((d) => {
      d.indices['logs'] = { ...d.indices['logs'], settingsVersion: 2 };
    });
    expect(svc.cache.size).toBe(2);
    await store.update((d) => {
      d.indices['logs'] = { ...d.indices['logs'], mappingVersion: 2 };
    });
    expect(svc.cache.size).toBe(1);
    await svc.execute(search({ mappingVersion: 2 }), async () => 1);
    await store.update((d) => {
      delete d.indices['other'];
    });
    expect(svc.cache.size).toBe(1);
    expect(svc.cache.indices()).toEqual(['logs']);
    await store.update((d) => {
      d.indices['logs'] = im('logs', 1, 'new-uuid');
    });
    expect(svc.cache.size).toBe(0);
  });
});
