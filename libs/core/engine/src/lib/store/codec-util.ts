/**
 * Building blocks of the on-disk formats: growable byte output, varints (LEB128, zig-zag for signed values),
 * blocked number columns (constant / delta varint / frame-of-reference bit packing / raw doubles, chosen per
 * block), prefix-coded string blocks, and the file header (codec name + version) and checksum footer every
 * file carries.
 */
import * as fs from 'node:fs';
import { storeFs } from './directory.js';
import { crc32, crc32Zeros } from './crc32.js';

export class CorruptIndexException extends Error {
  /** the exception's type as Elasticsearch names Lucene's (allocation explain's `store_exception`) */
  esType = 'corrupt_index_exception';
  constructor(msg: string) {
    super(msg);
    this.name = 'CorruptIndexException';
  }
}

/** a file written in a format version this build cannot read (Lucene's IndexFormatTooOld/NewException) */
export class IndexFormatException extends CorruptIndexException {
  constructor(resource: string, version: number | string, min: number, max: number) {
    super(`Format version is not supported (resource ${resource}): ${version} (needs to be between ${min} and ${max})`);
    this.name = 'IndexFormatException';
    this.esType = typeof version === 'number' && version > max ? 'index_format_too_new_exception' : 'index_format_too_old_exception';
  }
}

// ------------------------------------------------------------------ byte output / input

export class ByteWriter {
  buf: Uint8Array;
  len = 0;
  constructor(cap = 1024) {
    this.buf = new Uint8Array(cap);
  }
  private grow(need: number): void {
    if (this.len + need <= this.buf.length) return;
    let n = this.buf.length * 2;
    while (n < this.len + need) n *= 2;
    const b = new Uint8Array(n);
    b.set(this.buf.subarray(0, this.len));
    this.buf = b;
  }
  byte(v: number): void {
    this.grow(1);
    this.buf[this.len++] = v;
  }
  /** unsigned varint, any non-negative safe integer */
  vint(v: number): void {
    this.grow(8);
    const b = this.buf;
    if (v < 0x80000000) {
      while (v >= 0x80) {
        b[this.len++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      b[this.len++] = v;
      return;
    }
    while (v >= 0x80) {
      b[this.len++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    b[this.len++] = v;
  }
  /** zig-zag signed varint (|v| < 2^52) */
  zlong(v: number): void {
    this.vint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  u32(v: number): void {
    this.grow(4);
    this.buf[this.len++] = v & 0xff;
    this.buf[this.len++] = (v >>> 8) & 0xff;
    this.buf[this.len++] = (v >>> 16) & 0xff;
    this.buf[this.len++] = (v >>> 24) & 0xff;
  }
  f64(v: number): void {
    this.grow(8);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 8).setFloat64(0, v, true);
    this.len += 8;
  }
  bytes(b: Uint8Array): void {
    this.grow(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }
  /**
   * `s` from char `from` on as UTF-8, after its byte length (vint): an ASCII string is copied char by char,
   * without the substring and the encoded array a term would otherwise cost
   */
  utf8From(s: string, from: number): void {
    const n = s.length;
    let i = from;
    while (i < n && s.charCodeAt(i) < 0x80) i++;
    if (i < n) {
      const bytes = enc.encode(from === 0 ? s : s.slice(from));
      this.vint(bytes.length);
      this.bytes(bytes);
      return;
    }
    this.vint(n - from);
    this.grow(n - from);
    const b = this.buf;
    let at = this.len;
    for (let j = from; j < n; j++) b[at++] = s.charCodeAt(j);
    this.len = at;
  }
  reset(): void {
    this.len = 0;
  }
  result(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

export class ByteReader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    pos = 0,
  ) {
    this.pos = pos;
  }
  byte(): number {
    if (this.pos >= this.buf.length) throw new CorruptIndexException('read past the end of a block');
    return this.buf[this.pos++];
  }
  vint(): number {
    const b = this.buf;
    let p = this.pos;
    let x = b[p++];
    if (x < 0x80) {
      this.pos = p;
      return x;
    }
    let v = x & 0x7f;
    let shift = 7;
    for (;;) {
      if (p >= b.length) throw new CorruptIndexException('read past the end of a block');
      x = b[p++];
      if (shift < 28) v |= (x & 0x7f) << shift;
      else v += (x & 0x7f) * 2 ** shift;
      if (x < 0x80) break;
      shift += 7;
      if (shift > 63) throw new CorruptIndexException('malformed varint');
    }
    this.pos = p;
    return v;
  }
  zlong(): number {
    const z = this.vint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }
  u32(): number {
    const b = this.buf;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  }
  f64(): number {
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }
  bytes(n: number): Uint8Array {
    if (this.pos + n > this.buf.length) throw new CorruptIndexException('read past the end of a block');
    const r = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return r;
  }
}

// ------------------------------------------------------------------ number blocks

const M_CONST = 0;
const M_DELTA = 1;
const M_FOR = 2;
const M_RAW = 3;
const LIMIT = 2 ** 51;

function vintLen(z: number): number {
  if (z < 0x80) return 1;
  if (z < 0x4000) return 2;
  if (z < 0x200000) return 3;
  if (z < 0x10000000) return 4;
  let n = 4;
  z = Math.floor(z / 0x10000000);
  while (z > 0) {
    n++;
    z = Math.floor(z / 128);
  }
  return n;
}

function bitsFor(range: number): number {
  let b = 0;
  while (b < 32 && range >= 2 ** b) b++;
  return b;
}

/** appends one block of numbers, in the smallest of: constant, delta varints, bit-packed, raw doubles */
export function writeNumberBlock(out: ByteWriter, v: ArrayLike<number>, from: number, to: number): void {
  const n = to - from;
  out.vint(n);
  let integral = true;
  let min = Infinity;
  let max = -Infinity;
  for (let i = from; i < to; i++) {
    const x = v[i];
    if (!Number.isInteger(x) || x > LIMIT || x < -LIMIT || Object.is(x, -0)) {
      integral = false;
      break;
    }
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (!integral) {
    out.byte(M_RAW);
    for (let i = from; i < to; i++) out.f64(v[i]);
    return;
  }
  if (n === 0 || min === max) {
    out.byte(M_CONST);
    out.zlong(n === 0 ? 0 : min);
    return;
  }
  const range = max - min;
  const bits = range < 2 ** 32 ? bitsFor(range) : 64;
  const forLen = bits <= 32 ? Math.ceil((n * bits) / 8) + 1 : Infinity;
  let deltaLen = 0;
  let prev = 0;
  for (let i = from; i < to; i++) {
    const d = v[i] - prev;
    deltaLen += vintLen(d >= 0 ? d * 2 : -d * 2 - 1);
    prev = v[i];
  }
  if (deltaLen <= forLen) {
    out.byte(M_DELTA);
    prev = 0;
    for (let i = from; i < to; i++) {
      out.zlong(v[i] - prev);
      prev = v[i];
    }
    return;
  }
  out.byte(M_FOR);
  out.zlong(min);
  out.byte(bits);
  let acc = 0;
  let accBits = 0;
  for (let i = from; i < to; i++) {
    let x = v[i] - min;
    let left = bits;
    while (left > 0) {
      const take = Math.min(left, 8 - accBits);
      acc |= (x & ((1 << take) - 1)) << accBits;
      x = take >= 32 ? 0 : x >>> take;
      accBits += take;
      left -= take;
      if (accBits === 8) {
        out.byte(acc);
        acc = 0;
        accBits = 0;
      }
    }
  }
  if (accBits > 0) out.byte(acc);
}

/** decodes one number block into `dst` at `at`; returns the number of values */
export function readNumberBlock(inp: ByteReader, dst: { [i: number]: number }, at: number): number {
  const n = inp.vint();
  const mode = inp.byte();
  if (mode === M_RAW) {
    const b = inp.bytes(n * 8);
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (let i = 0; i < n; i++) dst[at + i] = dv.getFloat64(i * 8, true);
  } else if (mode === M_CONST) {
    const c = inp.zlong();
    for (let i = 0; i < n; i++) dst[at + i] = c;
  } else if (mode === M_DELTA) {
    let prev = 0;
    for (let i = 0; i < n; i++) {
      prev += inp.zlong();
      dst[at + i] = prev;
    }
  } else if (mode === M_FOR) {
    const min = inp.zlong();
    const bits = inp.byte();
    const b = inp.buf;
    let p = inp.pos;
    let bitPos = 0;
    for (let i = 0; i < n; i++) {
      let x = 0;
      let got = 0;
      while (got < bits) {
        const avail = 8 - bitPos;
        const take = Math.min(avail, bits - got);
        x |= ((b[p] >>> bitPos) & ((1 << take) - 1)) << got;
        got += take;
        bitPos += take;
        if (bitPos === 8) {
          bitPos = 0;
          p++;
        }
      }
      dst[at + i] = min + (x >>> 0);
    }
    inp.pos = p + (bitPos > 0 ? 1 : 0);
    if (inp.pos > b.length) throw new CorruptIndexException('read past the end of a block');
  } else throw new CorruptIndexException(`unknown number block mode ${mode}`);
  return n;
}

/** a list of numbers (length, then blocks of 4096) */
export function writeNumberList(out: ByteWriter, v: ArrayLike<number>): void {
  out.vint(v.length);
  for (let i = 0; i < v.length; i += 4096) writeNumberBlock(out, v, i, Math.min(v.length, i + 4096));
}

export function readNumberList(inp: ByteReader): Float64Array {
  const n = inp.vint();
  const out = new Float64Array(n);
  let at = 0;
  while (at < n) at += readNumberBlock(inp, out, at);
  return out;
}

// ------------------------------------------------------------------ varint runs (postings)

/** ascending ints as deltas */
export function writeDeltaInts(out: ByteWriter, v: ArrayLike<number>, from: number, to: number): void {
  let prev = 0;
  for (let i = from; i < to; i++) {
    out.vint(v[i] - prev);
    prev = v[i];
  }
}

export function readDeltaInts(inp: ByteReader, dst: Uint32Array, at: number, n: number): void {
  let prev = 0;
  for (let i = 0; i < n; i++) {
    prev += inp.vint();
    dst[at + i] = prev;
  }
}

export function readInts(inp: ByteReader, dst: Uint32Array, at: number, n: number): void {
  for (let i = 0; i < n; i++) dst[at + i] = inp.vint();
}

// ------------------------------------------------------------------ strings

const utf8 = new TextDecoder('utf-8', { fatal: false });
const enc = new TextEncoder();

function wellFormed(s: string): boolean {
  const f = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  if (f) return f.call(s);
  return !/[\ud800-\udfff]/.test(s) || /^(?:[^\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/.test(s);
}

/** a prefix-coded block of strings (UTF-8; UTF-16 when a string is not well-formed Unicode) */
export function writeStringBlock(out: ByteWriter, s: readonly string[], from: number, to: number): void {
  let wide = false;
  for (let i = from; i < to; i++) if (!wellFormed(s[i])) wide = true;
  out.byte(wide ? 1 : 0);
  out.vint(to - from);
  let prev = '';
  for (let i = from; i < to; i++) {
    const t = s[i];
    let p = 0;
    const lim = Math.min(prev.length, t.length);
    while (p < lim && prev.charCodeAt(p) === t.charCodeAt(p)) p++;
    // never split a surrogate pair between prefix and suffix
    if (!wide && p > 0 && p < t.length) {
      const c = t.charCodeAt(p - 1);
      if (c >= 0xd800 && c <= 0xdbff) p--;
    }
    out.vint(p);
    if (wide) {
      const bytes = Buffer.from(t.slice(p), 'utf16le');
      out.vint(bytes.length);
      out.bytes(bytes);
    } else out.utf8From(t, p);
    prev = t;
  }
}

export function readStringBlock(inp: ByteReader, dst: string[]): number {
  const wide = inp.byte() === 1;
  const n = inp.vint();
  let prev = '';
  for (let i = 0; i < n; i++) {
    const p = inp.vint();
    const len = inp.vint();
    const b = inp.bytes(len);
    const suffix = len === 0 ? '' : wide ? decodeUtf16(b) : utf8.decode(b);
    const t = p === 0 ? suffix : prev.slice(0, p) + suffix;
    dst.push(t);
    prev = t;
  }
  return n;
}

/**
 * UTF-16LE bytes as the string they were made from, unpaired surrogates included (what the writers use UTF-16
 * for; a TextDecoder would turn those into U+FFFD)
 */
export function decodeUtf16(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf16le');
}

export function encodeUtf8(s: string): Uint8Array {
  return enc.encode(s);
}

// ------------------------------------------------------------------ header and footer

export const CODEC_MAGIC = 0x3fd76c17;
export const FOOTER_MAGIC = ~CODEC_MAGIC >>> 0;
export const FOOTER_LENGTH = 24;

export function writeHeader(out: ByteWriter, codec: string, version: number): void {
  out.u32(CODEC_MAGIC);
  const name = Buffer.from(codec, 'latin1');
  out.byte(name.length);
  out.bytes(name);
  out.u32(version);
}

export interface FileHeader {
  codec: string;
  version: number;
  length: number;
}

/** the header of a file, when it has one (older files start otherwise: null) */
export function readHeader(buf: Uint8Array): FileHeader | null {
  if (buf.length < 9) return null;
  const r = new ByteReader(buf);
  if (r.u32() !== CODEC_MAGIC) return null;
  const n = r.byte();
  if (buf.length < 5 + n + 4) throw new CorruptIndexException('truncated file header');
  const codec = Buffer.from(r.bytes(n)).toString('latin1');
  const version = r.u32();
  return { codec, version, length: r.pos };
}

/**
 * checks the header of `file` against the expected codec and supported versions; returns the version.
 * A different codec is corruption, an unsupported version a clear IndexFormatException.
 */
export function checkHeader(h: FileHeader | null, resource: string, codec: string, min: number, max: number): number {
  if (!h) throw new CorruptIndexException(`codec header mismatch: no header (resource ${resource})`);
  if (h.codec !== codec) throw new CorruptIndexException(`codec mismatch: actual codec=${h.codec} vs expected codec=${codec} (resource ${resource})`);
  if (h.version < min || h.version > max) throw new IndexFormatException(resource, h.version, min, max);
  return h.version;
}

export interface Footer {
  metaOffset: number;
  metaLength: number;
  metaCrc: number;
  fileCrc: number;
}

/** footer: u32 meta offset (low), u32 (high), u32 meta length, u32 meta crc, u32 magic, u32 crc of all before */
export function footerBytes(metaOffset: number, metaLength: number, metaCrc: number): Uint8Array {
  const b = Buffer.alloc(FOOTER_LENGTH - 4);
  b.writeUInt32LE(metaOffset % 2 ** 32, 0);
  b.writeUInt32LE(Math.floor(metaOffset / 2 ** 32), 4);
  b.writeUInt32LE(metaLength, 8);
  b.writeUInt32LE(metaCrc >>> 0, 12);
  b.writeUInt32LE(FOOTER_MAGIC, 16);
  return b;
}

export function parseFooter(b: Uint8Array, fileLength: number, resource: string): Footer {
  if (b.length !== FOOTER_LENGTH) throw new CorruptIndexException(`misplaced codec footer (file truncated?) (resource ${resource})`);
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (dv.getUint32(16, true) !== FOOTER_MAGIC) {
    throw new CorruptIndexException(`codec footer mismatch (file truncated?): actual footer=${dv.getUint32(16, true)} vs expected footer=${FOOTER_MAGIC} (resource ${resource})`);
  }
  const metaOffset = dv.getUint32(0, true) + dv.getUint32(4, true) * 2 ** 32;
  const metaLength = dv.getUint32(8, true);
  if (metaOffset + metaLength > fileLength - FOOTER_LENGTH) throw new CorruptIndexException(`file metadata out of bounds (resource ${resource})`);
  return { metaOffset, metaLength, metaCrc: dv.getUint32(12, true), fileCrc: dv.getUint32(20, true) };
}

// ------------------------------------------------------------------ file output with a running checksum

export class ChecksumFileWriter {
  private fd: number;
  private crc = 0;
  /** logical length written so far (buffered bytes included) */
  offset = 0;
  /** where the next flushed byte goes (positioned writes: a hole leaves the file offset behind) */
  private filePos = 0;
  private pending = new ByteWriter(1 << 16);
  constructor(readonly path: string) {
    this.fd = storeFs.openSync(path, 'w');
  }
  write(b: Uint8Array): void {
    if (b.length === 0) return;
    // bytes reach the file in the order they were written: pending bytes always go first
    if (this.pending.len + b.length > 1 << 16 || b.length >= 1 << 15) this.flushPending();
    if (b.length >= 1 << 15) this.writeNow(b);
    else this.pending.bytes(b);
    this.offset += b.length;
  }
  /**
   * `n` zero bytes without writing them: a hole in a sparse file, covered by the file checksum. Tests use it to
   * put a segment's sections beyond 2^32 bytes without writing gigabytes (readers never read the hole).
   */
  hole(n: number): void {
    this.flushPending();
    this.crc = crc32Zeros(this.crc, n);
    this.filePos += n;
    this.offset += n;
    storeFs.ftruncateSync(this.fd, this.filePos);
  }
  private flushPending(): void {
    if (this.pending.len > 0) {
      this.writeNow(this.pending.result());
      this.pending.reset();
    }
  }
  private writeNow(b: Uint8Array): void {
    this.crc = crc32(b, this.crc);
    let o = 0;
    while (o < b.length) o += storeFs.writeSync(this.fd, b, o, b.length - o, this.filePos + o);
    this.filePos += b.length;
  }
  /** appends the meta section and the footer, closes; returns the file length */
  finish(meta: Uint8Array, fsync: boolean): number {
    const metaOffset = this.offset;
    this.write(meta);
    this.write(footerBytes(metaOffset, meta.length, crc32(meta)));
    this.flushPending();
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(this.crc >>> 0, 0);
    this.writeNow(tail);
    this.offset += 4;
    if (fsync) storeFs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
    this.fd = -1;
    return this.offset;
  }
  abort(): void {
    if (this.fd >= 0) {
      try {
        fs.closeSync(this.fd);
      } catch {
        /* ignore */
      }
      this.fd = -1;
    }
    fs.rmSync(this.path, { force: true });
  }
}

/** positioned reads of an immutable file (kept open; reopened lazily after close) */
export class RandomAccessFile {
  private fd: number;
  readonly length: number;
  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'r');
    this.length = fs.fstatSync(this.fd).size;
  }
  read(pos: number, len: number): Uint8Array {
    if (pos < 0 || pos + len > this.length) throw new CorruptIndexException(`read past EOF: ${pos}+${len} > ${this.length} (resource ${this.path})`);
    if (this.fd < 0) this.fd = fs.openSync(this.path, 'r');
    const buf = Buffer.allocUnsafe(len);
    let off = 0;
    while (off < len) {
      const n = fs.readSync(this.fd, buf, off, len - off, pos + off);
      if (n <= 0) throw new CorruptIndexException(`short read of ${this.path} at ${pos + off}`);
      off += n;
    }
    return buf;
  }
  /** reads [pos, pos+len) into dst at off (no allocation: streamed reads reuse one buffer) */
  readInto(pos: number, dst: Uint8Array, off: number, len: number): void {
    if (pos < 0 || pos + len > this.length) throw new CorruptIndexException(`read past EOF: ${pos}+${len} > ${this.length} (resource ${this.path})`);
    if (this.fd < 0) this.fd = fs.openSync(this.path, 'r');
    let done = 0;
    while (done < len) {
      const n = fs.readSync(this.fd, dst, off + done, len - done, pos + done);
      if (n <= 0) throw new CorruptIndexException(`short read of ${this.path} at ${pos + done}`);
      done += n;
    }
  }
  fsync(): void {
    if (this.fd < 0) this.fd = fs.openSync(this.path, 'r');
    storeFs.fsyncSync(this.fd);
  }
  close(): void {
    if (this.fd >= 0) {
      try {
        fs.closeSync(this.fd);
      } catch {
        /* ignore */
      }
      this.fd = -1;
    }
  }
}

/** checksum of a whole file compared with its footer (streams it in 1 MB chunks) */
export function verifyFileChecksum(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < FOOTER_LENGTH) throw new CorruptIndexException(`file too short to hold a footer (resource ${file})`);
    const buf = Buffer.allocUnsafe(1 << 20);
    let crc = 0;
    let pos = 0;
    const end = size - 4;
    while (pos < end) {
      const n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - pos), pos);
      if (n <= 0) throw new CorruptIndexException(`short read (resource ${file})`);
      crc = crc32(buf.subarray(0, n), crc);
      pos += n;
    }
    fs.readSync(fd, buf, 0, 4, end);
    const stored = buf.readUInt32LE(0);
    if (stored !== crc >>> 0) {
      throw new CorruptIndexException(`checksum failed (hardware problem?) : expected=${stored.toString(16)} actual=${(crc >>> 0).toString(16)} (resource ${file})`);
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The same check off the request path: the file read in chunks with asynchronous reads, yielding to the
 * event loop between chunks; `stop()` true ends it early (the shard closed). A file gone before it could be
 * opened (merged away) is not an error.
 */
export async function verifyFileChecksumInBackground(file: string, stop: () => boolean, chunk = 1 << 20): Promise<void> {
  let fh: fs.promises.FileHandle;
  try {
    fh = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  try {
    const size = (await fh.stat()).size;
    if (size < FOOTER_LENGTH) throw new CorruptIndexException(`file too short to hold a footer (resource ${file})`);
    const buf = Buffer.allocUnsafe(chunk);
    let crc = 0;
    let pos = 0;
    const end = size - 4;
    while (pos < end) {
      if (stop()) return;
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
      if (bytesRead <= 0) throw new CorruptIndexException(`short read (resource ${file})`);
      crc = crc32(buf.subarray(0, bytesRead), crc);
      pos += bytesRead;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await fh.read(buf, 0, 4, end);
    const stored = buf.readUInt32LE(0);
    if (stored !== crc >>> 0) {
      throw new CorruptIndexException(`checksum failed (hardware problem?) : expected=${stored.toString(16)} actual=${(crc >>> 0).toString(16)} (resource ${file})`);
    }
  } finally {
    await fh.close();
  }
}
