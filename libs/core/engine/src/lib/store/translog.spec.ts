import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Translog, encodeOp, encodeFrame, decodeOps } from './translog.js';
import { crc32, crc32Js } from './crc32.js';

describe('crc32', () => {
  it('matches the IEEE check value', () => {
    const data = Buffer.from('123456789');
    expect(crc32(data)).toBe(0xcbf43926);
    expect(crc32Js(data)).toBe(0xcbf43926);
  });
});

describe('translog', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tlog-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('round-trips index, delete and noop ops', async () => {
    const t = new Translog(dir);
    t.open();
    t.append({ op: 'index', seqNo: 0, primaryTerm: 1, version: 1, id: 'a', routing: 'r', source: Buffer.from('{"x":1}') });
    t.append({ op: 'delete', seqNo: 1, primaryTerm: 1, version: 2, id: 'a' });
    t.append({ op: 'noop', seqNo: 2, primaryTerm: 1, version: 0, id: '' });
    await t.sync();
    expect(t.isSynced).toBe(true);
    t.close();
    const t2 = new Translog(dir);
    const { ops, tornFiles } = t2.readAll();
    expect(tornFiles).toBe(0);
    expect(ops.map((o) => [o.op, o.seqNo, o.id, o.version])).toEqual([
      ['index', 0, 'a', 1],
      ['delete', 1, 'a', 2],
      ['noop', 2, '', 0],
    ]);
    expect(ops[0].routing).toBe('r');
    expect(Buffer.from(ops[0].source!).toString()).toBe('{"x":1}');
  });

  it('ignores a torn tail and a corrupt record', () => {
    const a = encodeOp({ op: 'index', seqNo: 0, primaryTerm: 1, version: 1, id: 'a', source: Buffer.from('{}') });
    const b = encodeOp({ op: 'index', seqNo: 1, primaryTerm: 1, version: 1, id: 'b', source: Buffer.from('{}') });
    const torn = Buffer.concat([a, b.subarray(0, b.length - 3)]);
    const r = decodeOps(torn);
    expect(r.ops.map((o) => o.id)).toEqual(['a']);
    expect(r.torn).toBe(true);
    expect(r.validBytes).toBe(a.length);
    const corrupt = Buffer.concat([a, b]);
    corrupt[a.length + 12] ^= 0x01;
    expect(decodeOps(corrupt).ops.map((o) => o.id)).toEqual(['a']);
    // a multi-op frame is all or nothing
    const frame = encodeFrame([
      { op: 'index', seqNo: 2, primaryTerm: 1, version: 1, id: 'c', source: Buffer.from('{}') },
      { op: 'delete', seqNo: 3, primaryTerm: 1, version: 2, id: 'c', routing: 'ü' },
    ]);
    const ok = decodeOps(Buffer.concat([a, frame]));
    expect(ok.ops.map((o) => [o.id, o.op, o.routing])).toEqual([['a', 'index', undefined], ['c', 'index', undefined], ['c', 'delete', 'ü']]);
    expect(decodeOps(Buffer.concat([a, frame.subarray(0, frame.length - 1)])).ops.map((o) => o.id)).toEqual(['a']);
  });

  it('encodes ops as they are appended: one frame per write, the bytes encodeFrame gives, sizes exact', () => {
    const t = new Translog(dir);
    t.open();
    const file = path.join(dir, 'translog', 'translog-1.tlog');
    // enough ops (and a large source) for the pending buffer to grow several times
    const batch1 = Array.from({ length: 3000 }, (_, i) => ({ op: 'index' as const, seqNo: i, primaryTerm: 1, version: 1, id: `d${i}`, routing: i % 7 === 0 ? 'ü' : undefined, source: Buffer.from(`{"n":${i}}`) }));
    batch1.push({ op: 'index', seqNo: 3000, primaryTerm: 1, version: 1, id: 'big', routing: undefined, source: Buffer.alloc(5 * 1024 * 1024, 120) });
    const frame1 = encodeFrame(batch1);
    for (const op of batch1) t.append(op);
    // appended, not written: counted in the sizes as the frame's records
    expect(t.sizeInBytes).toBe(frame1.length - 8);
    expect(t.isSynced).toBe(false);
    t.writePending();
    expect(fs.readFileSync(file).equals(frame1)).toBe(true);
    expect(t.sizeInBytes).toBe(frame1.length);
    // a later batch is a frame of its own, after the first
    const batch2 = [{ op: 'delete' as const, seqNo: 3001, primaryTerm: 2, version: 3, id: 'd1' }];
    for (const op of batch2) t.append(op);
    t.syncNow();
    expect(t.isSynced).toBe(true);
    expect(fs.readFileSync(file).equals(Buffer.concat([frame1, encodeFrame(batch2)]))).toBe(true);
    t.close();
    const back = new Translog(dir).readAll();
    expect(back.ops.map((o) => o.id)).toEqual([...batch1.map((o) => o.id), 'd1']);
    expect(back.ops[3000].source!.length).toBe(5 * 1024 * 1024);
  });

  it('rolls generations and trims old ones', () => {
    const t = new Translog(dir);
    expect(t.open()).toBe(1);
    t.append({ op: 'delete', seqNo: 0, primaryTerm: 1, version: 1, id: 'a' });
    const g = t.roll();
    expect(g).toBe(2);
    t.append({ op: 'delete', seqNo: 1, primaryTerm: 1, version: 1, id: 'b' });
    t.syncNow();
    expect(t.generations()).toEqual([1, 2]);
    t.trimBelow(2);
    expect(t.generations()).toEqual([2]);
    expect(t.readAll().ops.map((o) => o.id)).toEqual(['b']);
    t.close();
    // reopening never appends to an existing file
    const t2 = new Translog(dir);
    expect(t2.open()).toBe(3);
    t2.close();
  });
});
