import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryMetadataStore } from '../cluster/metadata-store.js';
import { FakeMapperService, indexMetadata } from '../action/document/testing/fakes.js';
import { IndicesServiceImpl } from './indices-service.js';
import { simpleParse } from './testing/simple-parser.js';
import type { EngineEventListener } from '../spi.js';

describe('IndicesService', () => {
  let dir: string;
  let store: InMemoryMetadataStore;
  let svc: IndicesServiceImpl;
  const events: string[] = [];
  const listener: EngineEventListener = {
    onIndexCreated: (i) => events.push(`created:${i}`),
    onIndexDeleted: (i) => events.push(`deleted:${i}`),
    onRefresh: (i, s, g) => events.push(`refresh:${i}/${s}@${g}`),
    onMappingUpdate: (i, v) => events.push(`mapping:${i}@${v}`),
  };
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'indices-'));
    store = new InMemoryMetadataStore();
    events.length = 0;
    svc = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } }, [listener]);
  });
  afterEach(() => {
    svc.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('follows metadata: create, settings, mapping, close/reopen, delete', async () => {
    await store.update((d) => {
      d.indices['a'] = indexMetadata('a', { numberOfShards: 2, primaryTerms: [1, 1], settings: { 'index.refresh_interval': '-1' } });
    });
    const uuid = store.current().indices['a'].uuid;
    expect(svc.shards('a').map((s) => s.shardId)).toEqual([0, 1]);
    expect(events).toEqual(['created:a']);
    expect(fs.existsSync(path.join(dir, 'indices', uuid, '1'))).toBe(true);
    const s0 = svc.shard('a', 0);
    s0.indexDoc({ id: '1', opType: 'index', doc: simpleParse({ x: 'one' }, '1') });
    await svc.refreshIndex('a');
    expect(events).toContain('refresh:a/0@2');
    // dynamic settings reach the shards
    await store.update((d) => {
      d.indices['a'].settings = { 'index.refresh_interval': '5s', 'index.translog.durability': 'async' };
      d.indices['a'].settingsVersion++;
    });
    const cfg = (s0 as unknown as { cfg: { refreshIntervalMs: number; durability: string } }).cfg;
    expect(cfg.refreshIntervalMs).toBe(5000);
    expect(cfg.durability).toBe('async');
    await store.update((d) => {
      d.indices['a'].mappingVersion++;
    });
    expect(events).toContain('mapping:a@2');
    // close flushes and releases the shards; reopen recovers them
    await store.update((d) => {
      d.indices['a'].state = 'close';
    });
    expect(s0.isClosed).toBe(true);
    expect(() => svc.shards('a')).toThrow('closed');
    await store.update((d) => {
      d.indices['a'].state = 'open';
    });
    expect(svc.shard('a', 0).get('1').found).toBe(true);
    expect(svc.indexStats('a')['docs']).toEqual({ count: 1, deleted: 0 });
    // delete removes the data
    await store.update((d) => {
      delete d.indices['a'];
    });
    expect(events).toContain('deleted:a');
    expect(fs.existsSync(path.join(dir, 'indices', uuid))).toBe(false);
    expect(() => svc.shards('a')).toThrow('no such index [a]');
  });

  it('recovers every existing index at construction', async () => {
    await store.update((d) => {
      d.indices['b'] = indexMetadata('b');
    });
    svc.shard('b', 0).indexDoc({ id: 'k', opType: 'index', doc: simpleParse({ y: 2 }, 'k') });
    await svc.shard('b', 0).sync();
    // simulate a crash: a second service over the same data without closing the first
    const again = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } });
    try {
      expect(again.shard('b', 0).get('k').found).toBe(true);
      expect(again.indexNames()).toEqual(['b']);
    } finally {
      again.close();
    }
  });
});
