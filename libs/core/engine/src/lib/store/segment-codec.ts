/**
 * Binary segment files: "STRSEG01" magic, u32 header length, JSON header (block table), 8-byte aligned
 * typed-array blocks, then a u32 CRC32 of everything before it. Files are written once, never modified.
 */
import * as fs from 'node:fs';
import type { InvertedFieldData, SegmentData } from '../index/segment.js';
import { crc32 } from './crc32.js';
import * as path from 'node:path';
import { fsyncDir, storeFs } from './directory.js';

const MAGIC = 'STRSEG03';
type Kind = 'u8' | 'u32' | 'f64' | 'json';
interface Block {
  k: string;
  t: Kind;
  o: number;
  n: number;
}

export { CorruptIndexException } from './codec-util.js';
import { CorruptIndexException } from './codec-util.js';

export interface EncodeOptions {
  /** embed in-memory `_source` bytes (tests, tools); the engine keeps them in a separate `.src` file */
  includeSource?: boolean;
}

/** the file as a list of parts (written one by one: no whole-file buffer) and its total size */
function layoutSegment(seg: SegmentData, opts: EncodeOptions): { parts: Uint8Array[]; total: number } {
  const blocks: Block[] = [];
  const parts: Uint8Array[] = [];
  let off = 0;
  const add = (k: string, v: Uint8Array | Uint32Array | Float64Array | unknown, t: Kind): void => {
    let bytes: Uint8Array;
    if (t === 'json') bytes = Buffer.from(JSON.stringify(v), 'utf8');
    else {
      const a = v as Uint8Array | Uint32Array | Float64Array;
      bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    }
    const pad = (8 - (off % 8)) % 8;
    if (pad) {
      parts.push(new Uint8Array(pad));
      off += pad;
    }
    blocks.push({ k, t, o: off, n: bytes.byteLength });
    parts.push(bytes);
    off += bytes.byteLength;
  };
  add('ids', seg.ids, 'json');
  if (seg.routing) add('routing', seg.routing, 'json');
  if (opts.includeSource && seg.sourceBytes) add('src', seg.sourceBytes, 'u8');
  add('srcStarts', seg.sourceStarts, 'u32');
  if (seg.sourceMissing) add('srcMissing', seg.sourceMissing, 'u8');
  add('seq', seg.seqNos, 'f64');
  add('term', seg.primaryTerms, 'f64');
  add('ver', seg.versions, 'f64');
  const inv: Record<string, unknown> = {};
  let i = 0;
  for (const [field, f] of seg.inverted) {
    const p = `i${i++}.`;
    inv[field] = { p, docCount: f.docCount, sttf: f.sumTotalTermFreq, sdf: f.sumDocFreq };
    add(p + 'terms', f.terms, 'json');
    add(p + 'ps', f.postingStarts, 'u32');
    add(p + 'docs', f.docs, 'u32');
    if (f.freqs) add(p + 'freqs', f.freqs, 'u32');
    if (f.posStarts) add(p + 'posStarts', f.posStarts, 'u32');
    if (f.positions) add(p + 'pos', f.positions, 'u32');
    if (f.norms) add(p + 'norms', f.norms, 'u8');
  }
  const num: Record<string, string> = {};
  for (const [field, dv] of seg.numeric) {
    const p = `n${i++}.`;
    num[field] = p;
    add(p + 'off', dv.offsets, 'u32');
    add(p + 'val', dv.values, 'f64');
  }
  const pts: Record<string, string> = {};
  for (const [field, pi] of seg.points) {
    const p = `p${i++}.`;
    pts[field] = p;
    add(p + 'val', pi.values, 'f64');
    add(p + 'docs', pi.docs, 'u32');
  }
  const ss: Record<string, string> = {};
  for (const [field, dv] of seg.sortedSet) {
    const p = `s${i++}.`;
    ss[field] = p;
    add(p + 'off', dv.offsets, 'u32');
    add(p + 'ords', dv.ords, 'u32');
    add(p + 'terms', dv.terms, 'json');
  }
  const header = Buffer.from(
    JSON.stringify({ name: seg.name, maxDoc: seg.maxDoc, maxSeqNo: seg.maxSeqNo, blocks, inv, num, pts, ss }),
    'utf8',
  );
  let headLen = 8 + 4 + header.length;
  const headPad = (8 - (headLen % 8)) % 8;
  headLen += headPad;
  const head = new Uint8Array(headLen);
  head.set(Buffer.from(MAGIC, 'latin1'), 0);
  new DataView(head.buffer).setUint32(8, header.length, true);
  head.set(header, 12);
  return { parts: [head, ...parts], total: headLen + off + 4 };
}

export function encodeSegment(seg: SegmentData, opts: EncodeOptions = {}): Uint8Array {
  const { parts, total } = layoutSegment(seg, opts);
  const out = new Uint8Array(total);
  let w = 0;
  for (const p of parts) {
    out.set(p, w);
    w += p.byteLength;
  }
  new DataView(out.buffer).setUint32(total - 4, crc32(out.subarray(0, total - 4)), true);
  return out;
}

interface SegmentHeader {
  name: string;
  maxDoc: number;
  maxSeqNo: number;
  blocks: Block[];
  inv: Record<string, { p: string; docCount: number; sttf: number; sdf: number }>;
  num: Record<string, string>;
  pts: Record<string, string>;
  ss: Record<string, string>;
}

/** the JSON header and where the blocks start; CorruptIndexException when it cannot be read */
function readHeader(buf: Uint8Array): { header: SegmentHeader; headLen: number } {
  if (buf.length < 16 || Buffer.from(buf.subarray(0, 8)).toString('latin1') !== MAGIC) {
    throw new CorruptIndexException('not a segment file (bad magic)');
  }
  const hlen = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(8, true);
  if (12 + hlen > buf.length - 4) throw new CorruptIndexException('segment header length out of bounds');
  let header: SegmentHeader;
  try {
    header = JSON.parse(Buffer.from(buf.subarray(12, 12 + hlen)).toString('utf8')) as SegmentHeader;
  } catch {
    throw new CorruptIndexException('unreadable segment header');
  }
  if (!header || !Array.isArray(header.blocks)) throw new CorruptIndexException('unreadable segment header');
  let headLen = 12 + hlen;
  headLen += (8 - (headLen % 8)) % 8;
  const dataLen = buf.length - 4 - headLen;
  for (const b of header.blocks) {
    if (!(b.o >= 0 && b.n >= 0 && b.o + b.n <= dataLen)) throw new CorruptIndexException(`segment block [${String(b.k)}] out of bounds`);
  }
  return { header, headLen };
}

/**
 * The checksums an older writer produced for this file. Before the fix of `crc32` for empty input, the
 * running CRC restarted at 0 after every empty typed-array block (a field whose values had all left the
 * indexing buffer, e.g. after an update), so the stored value is the CRC of the bytes after the last such
 * block. One candidate per empty non-JSON block; only consulted when the real checksum does not match.
 */
export function legacyEmptyPartCrcs(buf: Uint8Array): number[] {
  const { header, headLen } = readHeader(buf);
  const end = buf.length - 4;
  const starts = new Set<number>();
  for (const b of header.blocks) if (b.n === 0 && b.t !== 'json') starts.add(headLen + b.o);
  return [...starts].filter((s) => s <= end).map((s) => crc32(buf.subarray(s, end)));
}

export type SegmentChecksum = 'ok' | 'legacy-empty-part';

/** verifies the footer checksum; accepts the older writer's exact signature (see legacyEmptyPartCrcs) */
export function verifySegmentChecksum(buf: Uint8Array): SegmentChecksum {
  readHeader(buf);
  const stored = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(buf.length - 4, true);
  if (crc32(buf.subarray(0, buf.length - 4)) === stored) return 'ok';
  if (legacyEmptyPartCrcs(buf).includes(stored)) return 'legacy-empty-part';
  throw new CorruptIndexException('segment checksum mismatch');
}

export function decodeSegment(buf: Uint8Array, onChecksum?: (c: SegmentChecksum) => void): SegmentData {
  const checksum = verifySegmentChecksum(buf);
  onChecksum?.(checksum);
  const { header, headLen } = readHeader(buf);
  const table = new Map<string, Block>();
  for (const b of header.blocks) table.set(b.k, b);
  const raw = (k: string): Uint8Array | null => {
    const b = table.get(k);
    if (!b) return null;
    return buf.subarray(headLen + b.o, headLen + b.o + b.n);
  };
  const u8 = (k: string): Uint8Array | null => {
    const r = raw(k);
    return r ? new Uint8Array(r) : null;
  };
  const u32 = (k: string): Uint32Array | null => {
    const r = raw(k);
    if (!r) return null;
    const c = new Uint8Array(r); // copy → aligned
    return new Uint32Array(c.buffer, 0, c.byteLength / 4);
  };
  const f64 = (k: string): Float64Array | null => {
    const r = raw(k);
    if (!r) return null;
    const c = new Uint8Array(r);
    return new Float64Array(c.buffer, 0, c.byteLength / 8);
  };
  const json = <T>(k: string): T | null => {
    const r = raw(k);
    return r ? (JSON.parse(Buffer.from(r).toString('utf8')) as T) : null;
  };
  const inverted = new Map<string, InvertedFieldData>();
  const size = buf.length;
  for (const [field, m] of Object.entries(header.inv)) {
    inverted.set(field, {
      terms: json<string[]>(m.p + 'terms') ?? [],
      postingStarts: u32(m.p + 'ps')!,
      docs: u32(m.p + 'docs')!,
      freqs: u32(m.p + 'freqs'),
      posStarts: u32(m.p + 'posStarts'),
      positions: u32(m.p + 'pos'),
      norms: u8(m.p + 'norms'),
      docCount: m.docCount,
      sumTotalTermFreq: m.sttf,
      sumDocFreq: m.sdf,
    });
  }
  const numeric = new Map<string, { offsets: Uint32Array; values: Float64Array }>();
  for (const [field, p] of Object.entries(header.num)) numeric.set(field, { offsets: u32(p + 'off')!, values: f64(p + 'val')! });
  const points = new Map<string, { values: Float64Array; docs: Uint32Array }>();
  for (const [field, p] of Object.entries(header.pts)) points.set(field, { values: f64(p + 'val')!, docs: u32(p + 'docs')! });
  const sortedSet = new Map<string, { offsets: Uint32Array; ords: Uint32Array; terms: string[] }>();
  for (const [field, p] of Object.entries(header.ss)) {
    sortedSet.set(field, { offsets: u32(p + 'off')!, ords: u32(p + 'ords')!, terms: json<string[]>(p + 'terms') ?? [] });
  }
  return {
    name: header.name,
    maxDoc: header.maxDoc,
    inverted,
    numeric,
    points,
    sortedSet,
    ids: json<string[]>('ids') ?? [],
    routing: json<Array<string | null>>('routing'),
    sourceBytes: u8('src'),
    sourceFile: null,
    sourceStarts: u32('srcStarts')!,
    sourceMissing: u8('srcMissing'),
    seqNos: f64('seq')!,
    primaryTerms: f64('term')!,
    versions: f64('ver')!,
    maxSeqNo: header.maxSeqNo,
    sizeInBytes: size,
  };
}

/** writes the segment file part by part (temp + fsync + rename); returns its size */
export function writeSegmentFile(file: string, seg: SegmentData, opts: EncodeOptions = {}): number {
  const it = writeSegmentFileSteps(file, seg, opts);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

/** the same, yielding after every ~8mb written (background flushes) */
export function* writeSegmentFileSteps(file: string, seg: SegmentData, opts: EncodeOptions = {}): Generator<void, number, void> {
  const { parts, total } = layoutSegment(seg, opts);
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = storeFs.openSync(tmp, 'w');
  let done = false;
  try {
    let crc = 0;
    let sinceYield = 0;
    for (const p of parts) {
      let o = 0;
      while (o < p.byteLength) o += storeFs.writeSync(fd, p, o, p.byteLength - o);
      crc = crc32(p, crc);
      sinceYield += p.byteLength;
      if (sinceYield >= 8 * 1024 * 1024) {
        sinceYield = 0;
        yield;
      }
    }
    const tail = Buffer.alloc(4);
    tail.writeUInt32LE(crc >>> 0, 0);
    storeFs.writeSync(fd, tail);
    storeFs.fsyncSync(fd);
    done = true;
  } finally {
    fs.closeSync(fd);
    if (!done) fs.rmSync(tmp, { force: true });
  }
  storeFs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
  return total;
}

/** the largest single-file (format 3) segment that can be read: it is read whole, as one buffer */
export const LEGACY_SEGMENT_MAX_BYTES = 2 ** 31 - 1;

/**
 * A single-file (format 3) segment too large to be read whole, hence to be migrated: refused before any byte
 * is read, the file left as it is (never misread as a shorter or corrupt file).
 */
export class LegacySegmentTooLargeException extends CorruptIndexException {
  constructor(
    readonly resource: string,
    readonly size: number,
  ) {
    super(
      `Format version 3 segment is too large to migrate (resource ${resource}): ${size} bytes, over the ${LEGACY_SEGMENT_MAX_BYTES} bytes ` +
        'a format 3 segment can have: this format is read whole into memory to be rewritten in the current format. ' +
        'The file is left as it is; restore the index from a snapshot, or reindex its documents from their source into a new index',
    );
    this.name = 'IndexFormatException';
    this.esType = 'index_format_too_old_exception';
  }
}

export function readSegmentFile(file: string, onChecksum?: (c: SegmentChecksum) => void): SegmentData {
  const size = fs.statSync(file).size;
  if (size > LEGACY_SEGMENT_MAX_BYTES) throw new LegacySegmentTooLargeException(file, size);
  return decodeSegment(fs.readFileSync(file), onChecksum);
}

/** live docs file: u32 maxDoc, u32 words..., u32 crc */
export function encodeLiveDocs(maxDoc: number, bits: Uint32Array): Uint8Array {
  const out = new Uint8Array(4 + bits.byteLength + 4);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, maxDoc, true);
  out.set(new Uint8Array(bits.buffer, bits.byteOffset, bits.byteLength), 4);
  dv.setUint32(out.length - 4, crc32(out.subarray(0, out.length - 4)), true);
  return out;
}

export function decodeLiveDocs(buf: Uint8Array): { maxDoc: number; bits: Uint32Array } {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  if (buf.length < 8 || crc32(buf.subarray(0, buf.length - 4)) !== dv.getUint32(buf.length - 4, true)) {
    throw new CorruptIndexException('live docs checksum mismatch');
  }
  const c = new Uint8Array(buf.subarray(4, buf.length - 4));
  return { maxDoc: dv.getUint32(0, true), bits: new Uint32Array(c.buffer, 0, c.byteLength / 4) };
}
