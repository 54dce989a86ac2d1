/**
 * A shard whose files cannot be read never makes its index vanish, and segments written by the older,
 * wrongly checksumming writer open with every document.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EsError } from '@strata/core-common';
import { FileMetadataStore } from '../cluster/metadata-store.js';
import { FakeMapperService, indexMetadata } from '../action/document/testing/fakes.js';
import { failureType, IndicesServiceImpl } from './indices-service.js';
import { IndexShardImpl } from './index-shard.js';
import { parseBytes, simpleParse } from './testing/simple-parser.js';
import { verifySegmentChecksum } from '../store/segment-codec.js';
import { SEGMENT_VERSION, verifySegmentFiles } from '../index/disk-segment.js';
import { CorruptIndexException, IndexFormatException } from '../store/codec-util.js';

const FIXTURE = path.join(__dirname, 'testing/legacy-crc-node');
const LEGACY_UUID = 'KbJXyMPuEajEu0Nyr6sE8w';

/** every file under dir with its sha256 (proves nothing was deleted or rewritten) */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

function sourceOf(shard: IndexShardImpl, id: string): unknown {
  const g = shard.get(id);
  return g.found ? JSON.parse(Buffer.from(g.source!).toString('utf8')) : undefined;
}

describe('segments written by the older writer (checksum restarted after an empty block)', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'legacy-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('open with every document once, with a warning, and are rewritten with a correct checksum', () => {
    const shardDir = path.join(dir, 'indices', LEGACY_UUID, '0');
    expect(verifySegmentChecksum(fs.readFileSync(path.join(shardDir, '_1.seg')))).toBe('legacy-empty-part');
    const warnings: unknown[] = [];
    const logger = { warn: (o: unknown, msg?: string) => warnings.push([o, msg]) };
    const open = () => new IndexShardImpl({ index: 'legacy', indexUuid: LEGACY_UUID, shardId: 0, dir: shardDir, parse: parseBytes, manualScheduling: true, logger });
    let s = open();
    expect(s.numDocs).toBe(3);
    expect(sourceOf(s, 'd1')).toEqual({ a: 1 });
    expect(sourceOf(s, 'd2')).toEqual({ a: 2, kw: 'x', t: 'second doc' });
    expect(sourceOf(s, 'd3')).toEqual({ kw: 'y' });
    expect(s.get('d1').version).toBe(2);
    expect(s.get('d3').seqNo).toBe(4);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toEqual([
      { shard: '[legacy][0]', segments: ['_1'] },
      'accepted segment files with the checksum of an older writer (empty block); rewriting them',
    ]);
    // the legacy file is gone: the committed segments are all of the current format with correct checksums
    const segs = fs.readdirSync(shardDir).filter((f) => f.endsWith('.seg'));
    expect(segs).not.toContain('_1.seg');
    expect(segs.length).toBeGreaterThan(0);
    for (const f of segs) expect(verifySegmentFiles(shardDir, f.slice(0, -4)).version).toBe(SEGMENT_VERSION);
    s.close();
    warnings.length = 0;
    s = open();
    expect(warnings).toEqual([]);
    expect(s.numDocs).toBe(3);
    expect(sourceOf(s, 'd1')).toEqual({ a: 1 });
    s.close();
  });
});

describe('a shard that fails to open', () => {
  let dir: string;
  let svc: IndicesServiceImpl | undefined;
  afterEach(() => {
    svc?.close();
    svc = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function twoShardIndex(): Promise<{ uuid: string }> {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'failed-shard-'));
    const store = new FileMetadataStore(dir);
    svc = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } });
    await store.update((d) => {
      d.indices['t'] = indexMetadata('t', { numberOfShards: 2, primaryTerms: [1, 1], settings: { 'index.refresh_interval': '-1' } });
    });
    for (let i = 0; i < 20; i++) {
      const shard = svc.shard('t', i % 2);
      shard.indexDoc({ id: `d${i}`, opType: 'index', doc: simpleParse({ n: i, s: `v${i}` }, `d${i}`) });
    }
    svc.flushIndex('t');
    svc.close();
    return { uuid: store.current().indices['t'].uuid };
  }

  it('keeps the index, its other shards and every file; reports the failure; retries on request', async () => {
    const { uuid } = await twoShardIndex();
    const shardDir = path.join(dir, 'indices', uuid, '1');
    const seg = fs.readdirSync(shardDir).find((f) => f.endsWith('.seg'))!;
    const good = fs.readFileSync(path.join(shardDir, seg));
    const bad = Buffer.from(good);
    bad[bad.length - 30] ^= 0x55;
    fs.writeFileSync(path.join(shardDir, seg), bad);
    const before = snapshot(dir);
    const reason = `CorruptIndexException: checksum failed for the segment metadata (resource ${path.join(shardDir, seg)})`;

    const errors: unknown[] = [];
    const logger = { error: (o: unknown, m?: string) => errors.push([o, m]), warn: () => undefined, info: () => undefined, debug: () => undefined };
    const store = new FileMetadataStore(dir);
    svc = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } }, [], logger);
    expect(Object.keys(store.current().indices)).toEqual(['t']);
    expect(svc.shards('t').map((s) => s.shardId)).toEqual([0]);
    expect(svc.shardFailures()).toEqual([
      { index: 't', indexUuid: uuid, shardId: 1, reason, type: 'corrupt_index_exception', at: expect.any(Number), failedAttempts: 1 },
    ]);
    expect(errors).toEqual([[{ index: 't', shard: 1, err: reason }, 'failed to open shard; it stays unassigned and its files are kept']]);
    expect(svc.shard('t', 0).numDocs).toBe(10);
    let err: unknown;
    try {
      svc.shard('t', 1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EsError);
    expect((err as EsError).toBody()).toEqual({
      status: 503,
      error: {
        root_cause: [
          { type: 'no_shard_available_action_exception', reason: `[t][1] shard failed to open: ${reason}`, index_uuid: uuid, shard: '1', index: 't' },
        ],
        type: 'no_shard_available_action_exception',
        reason: `[t][1] shard failed to open: ${reason}`,
        index_uuid: uuid,
        shard: '1',
        index: 't',
      },
    });
    expect(svc.indexStats('t')['docs']).toEqual({ count: 10, deleted: 0 });
    expect(svc.flushIndex('t')).toEqual({ total: 4, successful: 1, failed: 0 });
    expect(snapshot(dir)['indices/' + uuid + '/1/' + seg]).toBe(before['indices/' + uuid + '/1/' + seg]);
    for (const [f, h] of Object.entries(before)) if (f.includes(`/${uuid}/1/`)) expect(snapshot(dir)[f]).toBe(h);

    // nothing changes until the file is good again; then a retry opens the shard with all its documents
    expect(svc.retryFailedShards()).toBe(0);
    expect(svc.shardFailures()[0]!.failedAttempts).toBe(2);
    fs.writeFileSync(path.join(shardDir, seg), good);
    expect(svc.retryFailedShards()).toBe(1);
    expect(svc.shardFailures()).toEqual([]);
    expect(svc.shards('t').map((s) => s.shardId)).toEqual([0, 1]);
    expect(svc.shard('t', 1).numDocs).toBe(10);
    expect(svc.indexStats('t')['docs']).toEqual({ count: 20, deleted: 0 });
  });

  it('fails a started shard when the background checksum pass finds a flipped byte, keeping its files', async () => {
    const { uuid } = await twoShardIndex();
    const shardDir = path.join(dir, 'indices', uuid, '1');
    const src = fs.readdirSync(shardDir).find((f) => f.endsWith('.src'))!;
    const good = fs.readFileSync(path.join(shardDir, src));
    const bad = Buffer.from(good);
    bad[Math.floor(good.length / 3)] ^= 0x08; // inside the `_source` blocks: opening does not read them
    fs.writeFileSync(path.join(shardDir, src), bad);
    const before = snapshot(dir);
    const warnings: unknown[] = [];
    const errors: unknown[] = [];
    const logger = { error: (o: unknown, m?: string) => errors.push([o, m]), warn: (o: unknown, m?: string) => warnings.push([o, m]), info: () => undefined, debug: () => undefined };
    const store = new FileMetadataStore(dir);
    svc = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } }, [], logger);
    // the shard starts (start-up reads headers, footers and metadata only), then the pass fails it
    const shard = svc.shard('t', 1);
    expect(shard.numDocs).toBe(10);
    const failure = await shard.checksumVerification();
    expect(failure).toBeInstanceOf(CorruptIndexException);
    const reason = `CorruptIndexException: ${failure!.message}`;
    expect(reason.startsWith('CorruptIndexException: checksum failed (hardware problem?) : expected=')).toBe(true);
    expect(reason.endsWith(`(resource ${path.join(shardDir, src)})`)).toBe(true);
    expect(await svc.shard('t', 0).checksumVerification()).toBeNull();
    expect(shard.isClosed).toBe(true);
    expect(svc.shards('t').map((s) => s.shardId)).toEqual([0]);
    expect(svc.shardFailures()).toEqual([{ index: 't', indexUuid: uuid, shardId: 1, reason, type: 'corrupt_index_exception', at: expect.any(Number), failedAttempts: 1 }]);
    expect(errors).toEqual([[{ index: 't', shard: 1, err: reason }, 'shard failed: corrupt segment file; it stays unassigned and its files are kept']]);
    expect(() => svc!.shard('t', 1)).toThrow(`[t][1] shard failed to open: ${reason}`);
    // segment files untouched (opening rolls the translog generation and commit of both shards, as always)
    const segFiles = (m: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(m).filter(([f]) => /\.(seg|src)$/.test(f)));
    expect(segFiles(snapshot(dir))).toEqual(segFiles(before));
    expect(Object.keys(segFiles(before))).toHaveLength(4);
    // a good file again: a retry opens the shard with every document and the pass finds nothing
    fs.writeFileSync(path.join(shardDir, src), good);
    expect(svc.retryFailedShards()).toBe(1);
    expect(svc.shard('t', 1).numDocs).toBe(10);
    expect(await svc.shard('t', 1).checksumVerification()).toBeNull();
    expect(svc.shardFailures()).toEqual([]);
  });

  it('can still be deleted with its index, files and all', async () => {
    const { uuid } = await twoShardIndex();
    fs.writeFileSync(path.join(dir, 'indices', uuid, '0', 'commit.json'), '{"version":1,"gen');
    const store = new FileMetadataStore(dir);
    svc = new IndicesServiceImpl(store, new FakeMapperService(), { settings: { 'path.data': dir } });
    expect(svc.shardFailures().map((f) => [f.shardId, f.reason])).toEqual([[0, 'CorruptIndexException: commit point of [t][0] is not readable JSON']]);
    await store.update((d) => {
      delete d.indices['t'];
    });
    expect(fs.existsSync(path.join(dir, 'indices', uuid))).toBe(false);
    expect(svc.shardFailures()).toEqual([]);
    expect(() => svc!.shards('t')).toThrow('no such index [t]');
  });
});

describe('a segment of the single-file format 3 larger than 2 GiB', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'legacy-large-'));
    fs.cpSync(FIXTURE, dir, { recursive: true });
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is refused with a message naming the file and what to do, before any byte is read, and nothing is changed', () => {
    const shardDir = path.join(dir, 'indices', LEGACY_UUID, '0');
    const seg = path.join(shardDir, '_1.seg');
    const size = fs.statSync(seg).size;
    const before = snapshot(shardDir);
    const open = () => new IndexShardImpl({ index: 'legacy', indexUuid: LEGACY_UUID, shardId: 0, dir: shardDir, parse: parseBytes, manualScheduling: true, logger: { warn: () => undefined } });
    const readFileSync = jest.spyOn(fs, 'readFileSync');
    try {
      // a sparse file: the fixture's bytes followed by a hole up to 2^31 bytes (one past the limit), or past 4 GiB
      for (const len of [2 ** 31, 2 ** 32 + 5]) {
        fs.truncateSync(seg, len);
        readFileSync.mockClear();
        let err: unknown;
        try {
          open();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(CorruptIndexException);
        expect((err as Error).name).toBe('IndexFormatException');
        expect(failureType(err)).toBe('index_format_too_old_exception');
        expect((err as Error).message).toBe(
          `Format version 3 segment is too large to migrate (resource ${seg}): ${len} bytes, over the 2147483647 bytes a format 3 segment can have: ` +
            'this format is read whole into memory to be rewritten in the current format. The file is left as it is; restore the index from a snapshot, ' +
            'or reindex its documents from their source into a new index',
        );
        expect(readFileSync.mock.calls.some(([f]) => f === seg)).toBe(false);
        expect(fs.statSync(seg).size).toBe(len);
      }
    } finally {
      readFileSync.mockRestore();
    }
    // back to its own size, the untouched file opens with every document
    fs.truncateSync(seg, size);
    expect(snapshot(shardDir)).toEqual(before);
    const s = open();
    expect(s.numDocs).toBe(3);
    expect(sourceOf(s, 'd2')).toEqual({ a: 2, kw: 'x', t: 'second doc' });
    s.close();
  });
});

describe('shard failure types (allocation explain store_exception)', () => {
  it('are the types Elasticsearch gives Lucene\'s exceptions, an EsError its own, anything else `exception`', () => {
    expect(failureType(new CorruptIndexException('checksum failed'))).toBe('corrupt_index_exception');
    expect(failureType(new IndexFormatException('f.seg', 9, 4, 6))).toBe('index_format_too_new_exception');
    expect(failureType(new IndexFormatException('f.seg', 2, 4, 6))).toBe('index_format_too_old_exception');
    expect(failureType(new EsError('illegal_state_exception', 500, 'x'))).toBe('illegal_state_exception');
    expect(failureType(new Error('disk'))).toBe('exception');
    expect(failureType('text')).toBe('exception');
  });
});
