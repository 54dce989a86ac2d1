/**
 * Append-only, checksummed operation log of one shard.
 * Files `translog-<generation>.tlog` hold frames `u32 length | u32 crc32(payload) | payload`; a frame is the
 * batch of ops written together (one request), each a binary record (op, seq_no, term, version, id, routing,
 * source). Appends are buffered; `sync()` writes one frame and fsyncs (group commit: concurrent callers share
 * one fsync). A torn or corrupt tail frame is detected by length/checksum and ignored on read — it was never
 * acknowledged, since acks follow the frame's fsync.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { EsError } from '@strata/core-common';
import { crc32 } from './crc32.js';
import { ensureDir, fsyncDir, removeQuietly, storeFs } from './directory.js';

export type TranslogOpType = 'index' | 'delete' | 'noop';

export interface TranslogOp {
  op: TranslogOpType;
  seqNo: number;
  primaryTerm: number;
  version: number;
  id: string;
  routing?: string;
  /** original `_source` bytes (index ops); decoded ops hold a view into the translog file's bytes */
  source?: Uint8Array | null;
}

const FILE_RE = /^translog-(\d+)\.tlog$/;
const OP_CODE: Record<TranslogOpType, number> = { index: 1, delete: 2, noop: 3 };
const OP_NAME: Record<number, TranslogOpType> = { 1: 'index', 2: 'delete', 3: 'noop' };
const FIXED = 1 + 8 + 8 + 8 + 4 + 4 + 4;

function recordSize(op: TranslogOp): number {
  return (
    FIXED +
    Buffer.byteLength(op.id, 'utf8') +
    (op.routing !== undefined ? Buffer.byteLength(op.routing, 'utf8') : 0) +
    (op.source ? op.source.length : 0)
  );
}

function writeRecord(b: Buffer, p: number, op: TranslogOp): number {
  b[p] = OP_CODE[op.op];
  b.writeDoubleLE(op.seqNo, p + 1);
  b.writeDoubleLE(op.primaryTerm, p + 9);
  b.writeDoubleLE(op.version, p + 17);
  p += 25;
  const idLen = b.write(op.id, p + 4, 'utf8');
  b.writeUInt32LE(idLen, p);
  p += 4 + idLen;
  if (op.routing !== undefined) {
    const rl = b.write(op.routing, p + 4, 'utf8');
    b.writeInt32LE(rl, p);
    p += 4 + rl;
  } else {
    b.writeInt32LE(-1, p);
    p += 4;
  }
  const src = op.source;
  if (src) {
    b.writeInt32LE(src.length, p);
    b.set(src, p + 4);
    p += 4 + src.length;
  } else {
    b.writeInt32LE(-1, p);
    p += 4;
  }
  return p;
}

/**
 * Encodes ops as one checksummed frame: `u32 length | u32 crc32(payload) | payload`; the payload is the
 * concatenated binary records. A frame is all-or-nothing on recovery (acks follow the frame's fsync).
 */
export function encodeFrame(ops: readonly TranslogOp[]): Buffer {
  let size = 0;
  for (const op of ops) size += recordSize(op);
  const b = Buffer.allocUnsafe(FRAME_HEADER_BYTES + size);
  let p = FRAME_HEADER_BYTES;
  for (const op of ops) p = writeRecord(b, p, op);
  b.writeUInt32LE(size, 0);
  b.writeUInt32LE(crc32(b.subarray(FRAME_HEADER_BYTES, FRAME_HEADER_BYTES + size)), 4);
  return b;
}

/** a frame's header: u32 payload length, u32 crc32 of the payload */
const FRAME_HEADER_BYTES = 8;
/** the buffer of pending records starts this large, and goes back to it after a write left it beyond PENDING_KEEP_BYTES */
const PENDING_INITIAL_BYTES = 4 * 1024;
const PENDING_KEEP_BYTES = 4 * 1024 * 1024;

/** a single op as its own frame */
export function encodeOp(op: TranslogOp): Buffer {
  return encodeFrame([op]);
}

function decodeRecords(payload: Buffer, ops: TranslogOp[]): boolean {
  let p = 0;
  const tmp: TranslogOp[] = [];
  while (p < payload.length) {
    if (p + FIXED > payload.length) return false;
    const code = payload[p];
    const name = OP_NAME[code];
    if (!name) return false;
    const seqNo = payload.readDoubleLE(p + 1);
    const primaryTerm = payload.readDoubleLE(p + 9);
    const version = payload.readDoubleLE(p + 17);
    p += 25;
    const idLen = payload.readUInt32LE(p);
    p += 4;
    if (p + idLen > payload.length) return false;
    const id = payload.toString('utf8', p, p + idLen);
    p += idLen;
    const rl = payload.readInt32LE(p);
    p += 4;
    let routing: string | undefined;
    if (rl >= 0) {
      if (p + rl > payload.length) return false;
      routing = payload.toString('utf8', p, p + rl);
      p += rl;
    }
    const sl = payload.readInt32LE(p);
    p += 4;
    let source: Uint8Array | null | undefined;
    if (sl >= 0) {
      if (p + sl > payload.length) return false;
      // a view into the file's bytes: recovery copies only the sources it indexes (most are replaced later)
      source = payload.subarray(p, p + sl);
      p += sl;
    }
    const op: TranslogOp = { op: name, seqNo, primaryTerm, version, id };
    if (routing !== undefined) op.routing = routing;
    if (source !== undefined) op.source = source;
    tmp.push(op);
  }
  for (const o of tmp) ops.push(o);
  return true;
}

/** decodes every valid frame of a file's bytes; stops at the first torn/corrupt frame */
export function decodeOps(buf: Uint8Array): { ops: TranslogOp[]; validBytes: number; torn: boolean } {
  const ops: TranslogOp[] = [];
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  let p = 0;
  while (p < b.length) {
    if (p + 8 > b.length) return { ops, validBytes: p, torn: true };
    const len = b.readUInt32LE(p);
    const crc = b.readUInt32LE(p + 4);
    if (p + 8 + len > b.length) return { ops, validBytes: p, torn: true };
    const payload = b.subarray(p + 8, p + 8 + len);
    if (crc32(payload) !== crc) return { ops, validBytes: p, torn: true };
    if (!decodeRecords(payload, ops)) return { ops, validBytes: p, torn: true };
    p += 8 + len;
  }
  return { ops, validBytes: p, torn: false };
}

export class Translog {
  private readonly dir: string;
  private generation = 1;
  private fd = -1;
  /**
   * The ops appended since the last write, encoded as they come (spread over a bulk's slices rather than all
   * at its end: 5,000 ops took 5-8 ms): the next frame, its header left for `writePending` to fill in.
   */
  private pendingBuf = Buffer.allocUnsafe(PENDING_INITIAL_BYTES);
  private pendingLen = FRAME_HEADER_BYTES;
  private pendingOps = 0;
  private written = 0; // bytes written to the current file
  private synced = 0; // bytes of the current file known durable
  private inflight: Promise<void> | null = null;
  private opsSinceRoll = 0;
  /** increments per opened file, so an fsync of a previous file never marks the current one synced */
  private fileSeq = 0;
  private bytesOlderGens = 0;
  private closed = false;
  /**
   * Set when an fsync failed: what reached the disk is unknown (the kernel may have dropped the dirty pages),
   * so the translog accepts nothing more until the shard is reopened and recovers from what is on disk.
   */
  private tragedy: Error | null = null;

  /**
   * `onTragicEvent` is called once, when the translog fails (an fsync or a write it cannot undo failed):
   * the shard must then be failed and recovered from what is on disk (Elasticsearch's tragic event).
   */
  constructor(
    shardDir: string,
    private readonly onTragicEvent?: (err: Error) => void,
  ) {
    this.dir = path.join(shardDir, 'translog');
    ensureDir(this.dir);
  }

  /** existing generations in ascending order */
  generations(): number[] {
    return fs
      .readdirSync(this.dir)
      .map((f) => FILE_RE.exec(f))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
  }

  private file(gen: number): string {
    return path.join(this.dir, `translog-${gen}.tlog`);
  }

  /** reads every valid op of every generation >= minGen (recovery) */
  readAll(minGen = 0): { ops: TranslogOp[]; tornFiles: number } {
    const ops: TranslogOp[] = [];
    let tornFiles = 0;
    for (const g of this.generations()) {
      if (g < minGen) continue;
      const r = decodeOps(fs.readFileSync(this.file(g)));
      if (r.torn) tornFiles++;
      for (const o of r.ops) ops.push(o);
    }
    return { ops, tornFiles };
  }

  /**
   * Opens a fresh generation for writing, after the existing ones (never appends to a file that may
   * have a torn tail). Returns the new generation.
   */
  open(): number {
    const gens = this.generations();
    this.generation = (gens.length ? gens[gens.length - 1] : 0) + 1;
    this.bytesOlderGens = 0;
    for (const g of gens) {
      try {
        this.bytesOlderGens += fs.statSync(this.file(g)).size;
      } catch {
        /* ignore */
      }
    }
    this.openGeneration();
    return this.generation;
  }

  private openGeneration(): void {
    this.fd = storeFs.openSync(this.file(this.generation), 'a');
    this.fileSeq++;
    this.written = 0;
    this.synced = 0;
    this.opsSinceRoll = 0;
    fsyncDir(this.dir);
  }

  get currentGeneration(): number {
    return this.generation;
  }

  /** the first failure makes the translog tragic: it takes no more writes, and the shard is told */
  private fail(err: Error): void {
    if (this.tragedy) return;
    this.tragedy = err;
    this.onTragicEvent?.(err);
  }

  /** the error that failed the translog, or null */
  get tragicException(): Error | null {
    return this.tragedy;
  }

  /** throws while the translog cannot take writes (a failed fsync) */
  ensureWritable(): void {
    if (this.tragedy) throw translogFailure(this.dir, 'is failed after an fsync error, the shard must be reopened', this.tragedy);
  }

  append(op: TranslogOp): void {
    this.ensureWritable();
    const need = this.pendingLen + recordSize(op);
    if (need > this.pendingBuf.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.pendingBuf.length * 2));
      this.pendingBuf.copy(grown, 0, 0, this.pendingLen);
      this.pendingBuf = grown;
    }
    this.pendingLen = writeRecord(this.pendingBuf, this.pendingLen, op);
    this.pendingOps++;
    this.opsSinceRoll++;
  }

  /** bytes of the records appended and not yet written */
  private get pendingBytes(): number {
    return this.pendingLen - FRAME_HEADER_BYTES;
  }

  /** writes buffered records to the OS (no fsync) */
  writePending(): void {
    this.ensureWritable();
    if (this.pendingOps === 0 || this.fd < 0) return;
    const size = this.pendingLen - FRAME_HEADER_BYTES;
    this.pendingBuf.writeUInt32LE(size, 0);
    this.pendingBuf.writeUInt32LE(crc32(this.pendingBuf.subarray(FRAME_HEADER_BYTES, this.pendingLen)), 4);
    const buf = this.pendingBuf.subarray(0, this.pendingLen);
    let off = 0;
    try {
      while (off < buf.length) off += storeFs.writeSync(this.fd, buf, off, buf.length - off);
    } catch (err) {
      // ENOSPC/EIO: the ops stay pending for the next attempt, and a partial frame is cut off again so that
      // later frames never follow a torn one (replay stops at the first bad frame)
      if (off > 0) {
        try {
          storeFs.ftruncateSync(this.fd, this.written);
        } catch (e) {
          this.fail(e as Error);
        }
      }
      throw translogFailure(this.dir, 'failed to write operations', err);
    }
    this.written += buf.length;
    this.pendingLen = FRAME_HEADER_BYTES;
    this.pendingOps = 0;
    // memory follows the configuration, not the largest bulk seen
    if (this.pendingBuf.length > PENDING_KEEP_BYTES) this.pendingBuf = Buffer.allocUnsafe(PENDING_INITIAL_BYTES);
  }

  /** true when everything appended is durable */
  get isSynced(): boolean {
    return this.pendingOps === 0 && this.synced >= this.written;
  }

  /** writes and fsyncs everything appended so far; concurrent callers share fsyncs */
  async sync(): Promise<void> {
    this.writePending();
    const target = this.written;
    const seq = this.fileSeq;
    while (this.synced < target && this.fileSeq === seq && !this.closed) {
      if (this.inflight) {
        await this.inflight;
        continue;
      }
      const upTo = this.written;
      const fd = this.fd;
      this.inflight = new Promise<void>((resolve, reject) => {
        storeFs.fsync(fd, (err) => {
          this.inflight = null;
          // the file was rolled (synced synchronously) or closed meanwhile: nothing left to do
          if (this.fileSeq !== seq || this.closed) return resolve();
          if (err) {
            this.fail(err);
            return reject(translogFailure(this.dir, 'failed to fsync', err));
          }
          this.synced = Math.max(this.synced, upTo);
          resolve();
        });
      });
      await this.inflight;
    }
  }

  /** synchronous write + fsync (flush, close) */
  syncNow(): void {
    this.writePending();
    if (this.fd >= 0 && this.synced < this.written) {
      try {
        storeFs.fsyncSync(this.fd);
      } catch (err) {
        this.fail(err as Error);
        throw translogFailure(this.dir, 'failed to fsync', err);
      }
      this.synced = this.written;
    }
  }

  /** starts a new generation (the caller commits, then trims older ones) */
  roll(): number {
    this.syncNow();
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
    this.bytesOlderGens += this.written;
    this.generation++;
    try {
      this.openGeneration();
    } catch (err) {
      // no file to append to (ENOSPC creating it): nothing more is accepted until the shard is reopened
      this.fail(err as Error);
      throw translogFailure(this.dir, 'failed to open a new generation', err);
    }
    return this.generation;
  }

  /** deletes generations below minGen */
  trimBelow(minGen: number): void {
    for (const g of this.generations()) if (g < minGen) removeQuietly(this.file(g));
    this.bytesOlderGens = 0;
    for (const g of this.generations()) {
      if (g !== this.generation) {
        try {
          this.bytesOlderGens += fs.statSync(this.file(g)).size;
        } catch {
          /* ignore */
        }
      }
    }
  }

  get sizeInBytes(): number {
    return this.bytesOlderGens + this.written + this.pendingBytes;
  }

  get uncommittedOps(): number {
    return this.opsSinceRoll;
  }

  get uncommittedBytes(): number {
    return this.written + this.pendingBytes;
  }

  close(): void {
    if (this.closed) return;
    try {
      // after a failed fsync nothing more is written: what is on disk is what recovery will find
      if (!this.tragedy) this.syncNow();
    } finally {
      if (this.fd >= 0) fs.closeSync(this.fd);
      this.fd = -1;
      this.closed = true;
    }
  }
}

/** translog_exception (500): the write or fsync the operation needed failed; nothing acknowledged is affected */
function translogFailure(dir: string, what: string, cause: unknown): EsError {
  const msg = cause instanceof Error ? cause.message : String(cause);
  return new EsError('translog_exception', 500, `translog [${dir}] ${what}: ${msg}`);
}
