import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InMemoryMetadataStore } from '../cluster/metadata-store.js';
import { FakeMapperService, indexMetadata } from '../action/document/testing/fakes.js';
import { IndicesServiceImpl } from './indices-service.js';
import { simpleParse } from './testing/simple-parser.js';
import { storeFs } from '../store/directory.js';
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

  it('a graceful stop lets the write thread finish the refreshed segments and commits them (not written twice)', async () => {
    await store.update((d) => {
      d.indices['w'] = indexMetadata('w', { numberOfShards: 1, primaryTerms: [1], settings: { 'index.refresh_interval': '-1' } });
    });
    const uuid = store.current().indices['w'].uuid;
    const s0 = svc.shard('w', 0);
    for (let i = 0; i < 2000; i++) s0.indexDoc({ id: String(i), opType: 'index', doc: simpleParse({ x: `doc ${i}` }, String(i)) });
    await svc.refreshIndex('w');
    await svc.stop();
    // the segment the thread wrote (`_0`) is the one committed: close did not take it over under a new name
    const files = fs.readdirSync(path.join(dir, 'indices', uuid, '0')).filter((f) => f.endsWith('.seg'));
    expect(files).toEqual(['_0.seg']);
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

  describe('a shard whose translog failed (EIO / ENOSPC on fsync) is recovered from disk', () => {
    const orig = { ...storeFs };
    afterEach(() => Object.assign(storeFs, orig));
    const ioError = (code: string): NodeJS.ErrnoException => Object.assign(new Error(`${code}: i/o error, fsync`), { code });
    const tick = () => new Promise<void>((r) => setImmediate(r));

    it.each(['EIO', 'ENOSPC'])('%s: the failed write is refused, acknowledged ones survive, writes work again', async (code) => {
      await store.update((d) => {
        d.indices['t'] = indexMetadata('t', { settings: { 'index.refresh_interval': '-1' } });
      });
      const s0 = svc.shard('t', 0);
      const src = (n: number) => simpleParse({ n }, `d${n}`);
      for (let n = 0; n < 20; n++) s0.indexDoc({ id: `d${n}`, opType: 'index', doc: src(n) });
      s0.flush();
      for (let n = 20; n < 40; n++) s0.indexDoc({ id: `d${n}`, opType: 'index', doc: src(n) });
      s0.deleteDoc({ id: 'd3' });
      await s0.sync(); // acknowledged: 0..39 without d3, 20..39 only in the translog
      // the next fsync fails: that write is not acknowledged and the translog is tragic
      storeFs.fsync = (_fd, cb) => setImmediate(() => cb(ioError(code)));
      s0.indexDoc({ id: 'd40', opType: 'index', doc: src(40) });
      await expect(s0.sync()).rejects.toMatchObject({ type: 'translog_exception', status: 500 });
      Object.assign(storeFs, orig);
      expect(() => s0.indexDoc({ id: 'd41', opType: 'index', doc: src(41) })).toThrow(/translog/);
      await tick();
      // failed and recovered from disk: a new shard object with every acknowledged write
      const s1 = svc.shard('t', 0);
      expect(s1).not.toBe(s0);
      expect(s0.isClosed).toBe(true);
      expect(svc.shardFailures('t')).toEqual([]);
      for (let n = 0; n < 40; n++) {
        const g = s1.get(`d${n}`);
        expect([n, g.found, g.found ? JSON.parse(Buffer.from(g.source!).toString()).n : null]).toEqual([n, n !== 3, n !== 3 ? n : null]);
      }
      expect(s1.get('d41').found).toBe(false);
      // d40 reached the file before the failed fsync: it may come back or not, never anything else
      const d40 = s1.get('d40');
      if (d40.found) expect(JSON.parse(Buffer.from(d40.source!).toString()).n).toBe(40);
      // writes are accepted again, and survive another recovery
      s1.indexDoc({ id: 'd42', opType: 'index', doc: src(42) });
      await s1.sync();
      const again = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } });
      try {
        expect(again.shard('t', 0).get('d42').found).toBe(true);
        expect(again.shard('t', 0).get('d39').found).toBe(true);
      } finally {
        again.close();
      }
    });

    it('a recovery that fails too leaves the shard unassigned until retry_failed', async () => {
      await store.update((d) => {
        d.indices['u'] = indexMetadata('u', { settings: { 'index.refresh_interval': '-1' } });
      });
      const s0 = svc.shard('u', 0);
      s0.indexDoc({ id: 'a', opType: 'index', doc: simpleParse({ n: 1 }, 'a') });
      await s0.sync();
      storeFs.fsync = (_fd, cb) => setImmediate(() => cb(ioError('EIO')));
      storeFs.openSync = () => {
        throw ioError('EIO');
      };
      s0.indexDoc({ id: 'b', opType: 'index', doc: simpleParse({ n: 2 }, 'b') });
      await expect(s0.sync()).rejects.toMatchObject({ type: 'translog_exception' });
      await tick();
      expect(svc.shardFailures('u').map((f) => [f.shardId, f.failedAttempts])).toEqual([[0, 1]]);
      expect(() => svc.shard('u', 0)).toThrow(/shard/);
      Object.assign(storeFs, orig);
      expect(svc.retryFailedShards()).toBe(1);
      expect(svc.shard('u', 0).get('a').found).toBe(true);
    });
  });
});
