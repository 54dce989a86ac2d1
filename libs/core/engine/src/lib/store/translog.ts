/**
 * Append-only, checksummed operation log of one shard.
 * Files `translog-<generation>.tlog`; each record is `u32 length | u32 crc32(payload) | payload`, the payload
 * being `u32 metaLength | meta JSON | source bytes`. Appends go to an in-memory buffer; `sync()` writes them
 * and fsyncs (group commit: concurrent callers share one fsync). A torn or corrupt tail is detected by the
 * length/checksum and ignored on read.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from './crc32.js';
import { ensureDir, fsyncDir, removeQuietly } from './directory.js';

export type TranslogOpType = 'index' | 'delete' | 'noop';

export interface TranslogOp {
  op: TranslogOpType;
  seqNo: number;
  primaryTerm: number;
  version: number;
  id: string;
  routing?: string;
  /** original `_source` bytes (index ops) */
  source?: Uint8Array | null;
}

interface Meta {
  o: 'i' | 'd' | 'n';
  s: number;
  t: number;
  v: number;
  id: string;
  r?: string;
}

const FILE_RE = /^translog-(\d+)\.tlog$/;

export function encodeOp(op: TranslogOp): Buffer {
  const meta: Meta = { o: op.op === 'index' ? 'i' : op.op === 'delete' ? 'd' : 'n', s: op.seqNo, t: op.primaryTerm, v: op.version, id: op.id };
  if (op.routing !== undefined) meta.r = op.routing;
  const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
  const src = op.source ?? null;
  const payloadLen = 4 + metaBytes.length + (src ? src.length : 0);
  const rec = Buffer.allocUnsafe(8 + payloadLen);
  rec.writeUInt32LE(payloadLen, 0);
  rec.writeUInt32LE(metaBytes.length, 8);
  metaBytes.copy(rec, 12);
  if (src) rec.set(src, 12 + metaBytes.length);
  rec.writeUInt32LE(crc32(rec.subarray(8)), 4);
  return rec;
}

/** decodes every valid record of a file's bytes; stops at the first torn/corrupt record */
export function decodeOps(buf: Uint8Array): { ops: TranslogOp[]; validBytes: number; torn: boolean } {
  const ops: TranslogOp[] = [];
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  let p = 0;
  while (p < b.length) {
    if (p + 8 > b.length) return { ops, validBytes: p, torn: true };
    const len = b.readUInt32LE(p);
    const crc = b.readUInt32LE(p + 4);
    if (len < 4 || p + 8 + len > b.length) return { ops, validBytes: p, torn: true };
    const payload = b.subarray(p + 8, p + 8 + len);
    if (crc32(payload) !== crc) return { ops, validBytes: p, torn: true };
    const metaLen = payload.readUInt32LE(0);
    if (4 + metaLen > len) return { ops, validBytes: p, torn: true };
    let meta: Meta;
    try {
      meta = JSON.parse(payload.subarray(4, 4 + metaLen).toString('utf8')) as Meta;
    } catch {
      return { ops, validBytes: p, torn: true };
    }
    const op: TranslogOp = {
      op: meta.o === 'i' ? 'index' : meta.o === 'd' ? 'delete' : 'noop',
      seqNo: meta.s,
      primaryTerm: meta.t,
      version: meta.v,
      id: meta.id,
    };
    if (meta.r !== undefined) op.routing = meta.r;
    if (meta.o === 'i') op.source = new Uint8Array(payload.subarray(4 + metaLen));
    ops.push(op);
    p += 8 + len;
  }
  return { ops, validBytes: p, torn: false };
}

export class Translog {
  private readonly dir: string;
  private generation = 1;
  private fd = -1;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private written = 0; // bytes written to the current file
  private synced = 0; // bytes of the current file known durable
  private inflight: Promise<void> | null = null;
  private opsSinceRoll = 0;
  private bytesOlderGens = 0;
  private closed = false;

  constructor(shardDir: string) {
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
    this.fd = fs.openSync(this.file(this.generation), 'a');
    this.written = 0;
    this.synced = 0;
    this.opsSinceRoll = 0;
    fsyncDir(this.dir);
  }

  get currentGeneration(): number {
    return this.generation;
  }

  append(op: TranslogOp): void {
    const rec = encodeOp(op);
    this.pending.push(rec);
    this.pendingBytes += rec.length;
    this.opsSinceRoll++;
  }

  /** writes buffered records to the OS (no fsync) */
  writePending(): void {
    if (this.pending.length === 0 || this.fd < 0) return;
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    let off = 0;
    while (off < buf.length) off += fs.writeSync(this.fd, buf, off, buf.length - off);
    this.written += buf.length;
  }

  /** true when everything appended is durable */
  get isSynced(): boolean {
    return this.pending.length === 0 && this.synced >= this.written;
  }

  /** writes and fsyncs everything appended so far; concurrent callers share fsyncs */
  async sync(): Promise<void> {
    this.writePending();
    const target = this.written;
    const fd = this.fd;
    while (this.synced < target && this.fd === fd && !this.closed) {
      if (this.inflight) {
        await this.inflight;
        continue;
      }
      const upTo = this.written;
      this.inflight = new Promise<void>((resolve, reject) => {
        fs.fsync(fd, (err) => {
          this.inflight = null;
          if (err) reject(err);
          else {
            if (this.fd === fd) this.synced = Math.max(this.synced, upTo);
            resolve();
          }
        });
      });
      await this.inflight;
    }
  }

  /** synchronous write + fsync (flush, close) */
  syncNow(): void {
    this.writePending();
    if (this.fd >= 0 && this.synced < this.written) {
      fs.fsyncSync(this.fd);
      this.synced = this.written;
    }
  }

  /** starts a new generation (the caller commits, then trims older ones) */
  roll(): number {
    this.syncNow();
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.bytesOlderGens += this.written;
    this.generation++;
    this.openGeneration();
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
      this.syncNow();
    } finally {
      if (this.fd >= 0) fs.closeSync(this.fd);
      this.fd = -1;
      this.closed = true;
    }
  }
}
