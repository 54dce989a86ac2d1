/**
 * Stored fields (`<segment>.src`, codec `StrataStoredFields` version 2): `_id`, routing and `_source` of
 * consecutive documents packed into blocks of about 60 KB and compressed (raw deflate), each block read
 * whole through the block cache. The block table (first doc, file offset of each block) stays resident.
 *
 *   header | block... | meta: JSON + table (number blocks) | footer (meta offset, meta crc, magic, file crc)
 *
 * Version 1 was the raw `_source` bytes without header or footer, addressed by offsets kept in the older
 * single-file segment (`SourceFile`); it is still read for segments of that format.
 */
import * as zlib from 'node:zlib';
import { LastBlock, type BlockCache } from '../store/block-cache.js';
import {
  ByteReader,
  ByteWriter,
  ChecksumFileWriter,
  CorruptIndexException,
  FOOTER_LENGTH,
  RandomAccessFile,
  checkHeader,
  decodeUtf16,
  encodeUtf8,
  parseFooter,
  readHeader,
  readNumberList,
  writeHeader,
  writeNumberList,
} from '../store/codec-util.js';
import { crc32 } from '../store/crc32.js';

export const STORED_CODEC = 'StrataStoredFields';
export const STORED_VERSION = 2;
const BLOCK_TARGET = 60 * 1024;
const MAX_BLOCK_DOCS = 1024;
const LEVEL = 3;

const F_SOURCE = 1;
const F_ROUTING = 2;
const F_ID16 = 4;

export class StoredFieldsWriter {
  private readonly out: ChecksumFileWriter;
  private docs = 0;
  private readonly firstDocs: number[] = [];
  private readonly offsets: number[] = [];
  private heads = new ByteWriter(4096);
  private body = new ByteWriter(BLOCK_TARGET + 8192);
  private inBlock = 0;
  rawBytes = 0;

  /** `holeBytes` (tests): zeros left as a hole after the header, so every block sits beyond them */
  constructor(
    readonly path: string,
    holeBytes = 0,
  ) {
    this.out = new ChecksumFileWriter(path);
    const h = new ByteWriter(64);
    writeHeader(h, STORED_CODEC, STORED_VERSION);
    this.out.write(h.result());
    if (holeBytes > 0) this.out.hole(holeBytes);
  }

  add(id: string, routing: string | null, source: Uint8Array | null): void {
    let flags = 0;
    let idBytes: Uint8Array;
    const wf = (id as unknown as { isWellFormed?: () => boolean }).isWellFormed?.call(id) ?? true;
    if (wf) idBytes = encodeUtf8(id);
    else {
      flags |= F_ID16;
      idBytes = Buffer.from(id, 'utf16le');
    }
    if (source) flags |= F_SOURCE;
    const rBytes = routing !== null ? encodeUtf8(routing) : null;
    if (rBytes) flags |= F_ROUTING;
    const h = this.heads;
    h.vint(flags);
    h.vint(idBytes.length);
    if (rBytes) h.vint(rBytes.length);
    if (source) h.vint(source.length);
    this.body.bytes(idBytes);
    if (rBytes) this.body.bytes(rBytes);
    if (source) this.body.bytes(source);
    this.inBlock++;
    this.docs++;
    if (this.body.len >= BLOCK_TARGET || this.inBlock >= MAX_BLOCK_DOCS) this.flushBlock();
  }

  /** docs added since the last block was written */
  get pendingDocs(): number {
    return this.inBlock;
  }

  /** bytes of the docs added since the last block was written, before compression */
  get pendingBytes(): number {
    return this.heads.len + this.body.len;
  }

  /** writes the docs added so far as a block of their own */
  flush(): void {
    this.flushBlock();
  }

  /**
   * Appends a block of another stored fields file as it is (a merge of docs none of which were deleted): no
   * decompression, no compression. Only between blocks: no doc may be pending.
   */
  addRawBlock(block: RawStoredBlock): void {
    if (this.inBlock !== 0) throw new Error('a raw block cannot follow docs pending in a block');
    this.firstDocs.push(this.docs);
    this.offsets.push(this.out.offset);
    this.out.write(block.bytes);
    this.docs += block.docs;
    this.rawBytes += block.rawLength;
  }

  private flushBlock(): void {
    if (this.inBlock === 0) return;
    const raw = new ByteWriter(this.heads.len + this.body.len + 16);
    raw.vint(this.inBlock);
    raw.vint(this.heads.len);
    raw.bytes(this.heads.result());
    raw.bytes(this.body.result());
    const bytes = raw.result();
    this.rawBytes += bytes.length;
    const comp = zlib.deflateRawSync(bytes, { level: LEVEL });
    this.firstDocs.push(this.docs - this.inBlock);
    this.offsets.push(this.out.offset);
    const pre = new ByteWriter(16);
    pre.vint(bytes.length);
    pre.u32(crc32(comp));
    this.out.write(pre.result());
    this.out.write(comp);
    this.heads.reset();
    this.body.reset();
    this.inBlock = 0;
  }

  get numDocs(): number {
    return this.docs;
  }

  /** returns the file length */
  finish(fsync = false): number {
    this.flushBlock();
    const tableAt = this.out.offset;
    const t = new ByteWriter(1024);
    writeNumberList(t, this.firstDocs);
    writeNumberList(t, this.offsets);
    this.out.write(t.result());
    const meta = Buffer.from(JSON.stringify({ maxDoc: this.docs, blocks: this.firstDocs.length, table: [tableAt, t.len], end: tableAt }), 'utf8');
    return this.out.finish(meta, fsync);
  }

  abort(): void {
    this.out.abort();
  }
}

/** a block of a stored fields file as written (length, checksum, compressed docs), for a merge to copy */
export interface RawStoredBlock {
  docs: number;
  /** bytes of the block decompressed */
  rawLength: number;
  bytes: Uint8Array;
}

/** a segment's stored fields block by block as written (segments on disk), for a merge to copy */
export interface StoredBlocks {
  readonly numBlocks: number;
  firstDoc(b: number): number;
  docsIn(b: number): number;
  rawBlock(b: number): RawStoredBlock;
}

/** a merge copies a block as it is when it is at least this full (smaller ones are re-packed with their neighbours) */
export function worthCopying(block: RawStoredBlock): boolean {
  return block.rawLength >= BLOCK_TARGET / 2 || block.docs >= MAX_BLOCK_DOCS / 2;
}

/** a stored fields writer's block size target, in bytes before compression */
export const STORED_BLOCK_TARGET = BLOCK_TARGET;

interface DecodedBlock {
  first: number;
  n: number;
  data: Uint8Array;
  flags: Uint8Array;
  idStart: Uint32Array;
  idLen: Uint32Array;
  rStart: Uint32Array;
  rLen: Uint32Array;
  sStart: Uint32Array;
  sLen: Uint32Array;
}

const utf8 = new TextDecoder();

export class StoredFieldsReader implements StoredBlocks {
  private readonly file: RandomAccessFile;
  readonly maxDoc: number;
  private readonly firstDocs: Float64Array;
  private readonly offsets: Float64Array;
  private readonly end: number;
  readonly ramBytesUsed: number;
  private readonly last: LastBlock<DecodedBlock>;

  constructor(
    readonly path: string,
    private readonly cache: BlockCache,
    private readonly uid: string,
  ) {
    this.last = new LastBlock(cache, (b) => this.decode(b));
    this.file = new RandomAccessFile(path);
    try {
      const len = this.file.length;
      const head = this.file.read(0, Math.min(len, 64));
      checkHeader(readHeader(head), path, STORED_CODEC, STORED_VERSION, STORED_VERSION);
      if (len < FOOTER_LENGTH + 8) throw new CorruptIndexException(`file too short (resource ${path})`);
      const f = parseFooter(this.file.read(len - FOOTER_LENGTH, FOOTER_LENGTH), len, path);
      const metaBytes = this.file.read(f.metaOffset, f.metaLength);
      if (crc32(metaBytes) !== f.metaCrc) throw new CorruptIndexException(`checksum failed for the file metadata (resource ${path})`);
      const meta = JSON.parse(Buffer.from(metaBytes).toString('utf8')) as { maxDoc: number; blocks: number; table: [number, number]; end: number };
      this.maxDoc = meta.maxDoc;
      this.end = meta.end;
      const t = new ByteReader(this.file.read(meta.table[0], meta.table[1]));
      this.firstDocs = readNumberList(t);
      this.offsets = readNumberList(t);
      if (this.firstDocs.length !== meta.blocks || this.offsets.length !== meta.blocks) throw new CorruptIndexException(`stored fields block table is inconsistent (resource ${path})`);
      this.ramBytesUsed = this.firstDocs.byteLength + this.offsets.byteLength + 256;
    } catch (err) {
      this.file.close();
      if (err instanceof SyntaxError) throw new CorruptIndexException(`unreadable stored fields metadata (resource ${path})`);
      throw err;
    }
  }

  get numBlocks(): number {
    return this.firstDocs.length;
  }

  /** the first doc of block b */
  firstDoc(b: number): number {
    return this.firstDocs[b];
  }

  /** the number of docs of block b */
  docsIn(b: number): number {
    return (b + 1 < this.firstDocs.length ? this.firstDocs[b + 1] : this.maxDoc) - this.firstDocs[b];
  }

  /** block b as written (checked against its checksum, not decompressed), for a merge to copy */
  rawBlock(b: number): RawStoredBlock {
    const { bytes, rawLength } = this.readBlock(b);
    return { docs: this.docsIn(b), rawLength, bytes };
  }

  /** block b as written, its checksum checked: the whole block, its uncompressed length and compressed bytes */
  private readBlock(b: number): { bytes: Uint8Array; rawLength: number; comp: Uint8Array } {
    const start = this.offsets[b];
    const end = b + 1 < this.offsets.length ? this.offsets[b + 1] : this.end;
    const bytes = this.file.read(start, end - start);
    const r = new ByteReader(bytes);
    const rawLength = r.vint();
    const crc = r.u32();
    const comp = bytes.subarray(r.pos);
    if (crc32(comp) !== crc) throw new CorruptIndexException(`checksum failed for stored fields block ${b} (resource ${this.path})`);
    return { bytes, rawLength, comp };
  }

  private blockOf(doc: number): number {
    if (doc < 0 || doc >= this.maxDoc) throw new RangeError(`doc ${doc} out of bounds [0, ${this.maxDoc})`);
    const f = this.firstDocs;
    let lo = 0;
    let hi = f.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (f[mid] <= doc) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private block(b: number): DecodedBlock {
    return this.last.get(b);
  }

  private decode(b: number): DecodedBlock {
    return this.cache.get(`${this.uid}s${b}`, () => {
      const { bytes: raw, rawLength: rawLen, comp } = this.readBlock(b);
      let data: Uint8Array;
      try {
        data = zlib.inflateRawSync(comp);
      } catch {
        throw new CorruptIndexException(`undecodable stored fields block ${b} (resource ${this.path})`);
      }
      if (data.length !== rawLen) throw new CorruptIndexException(`stored fields block ${b} has the wrong length (resource ${this.path})`);
      const d = new ByteReader(data);
      const n = d.vint();
      const headLen = d.vint();
      const bodyAt = d.pos + headLen;
      const flags = new Uint8Array(n);
      const idStart = new Uint32Array(n);
      const idLen = new Uint32Array(n);
      const rStart = new Uint32Array(n);
      const rLen = new Uint32Array(n);
      const sStart = new Uint32Array(n);
      const sLen = new Uint32Array(n);
      let p = bodyAt;
      for (let i = 0; i < n; i++) {
        const fl = d.vint();
        flags[i] = fl;
        idLen[i] = d.vint();
        if (fl & F_ROUTING) rLen[i] = d.vint();
        if (fl & F_SOURCE) sLen[i] = d.vint();
        idStart[i] = p;
        p += idLen[i];
        rStart[i] = p;
        p += rLen[i];
        sStart[i] = p;
        p += sLen[i];
      }
      if (p !== data.length || d.pos !== bodyAt) throw new CorruptIndexException(`stored fields block ${b} is inconsistent (resource ${this.path})`);
      const value: DecodedBlock = { first: this.firstDocs[b], n, data, flags, idStart, idLen, rStart, rLen, sStart, sLen };
      return { value, bytes: data.length + n * 25 + 200, readBytes: raw.length };
    }, 'stored');
  }

  private at(doc: number): { blk: DecodedBlock; i: number } {
    const blk = this.block(this.blockOf(doc));
    const i = doc - blk.first;
    if (i >= blk.n) throw new CorruptIndexException(`doc ${doc} missing from its stored fields block (resource ${this.path})`);
    return { blk, i };
  }

  id(doc: number): string {
    const { blk, i } = this.at(doc);
    const b = blk.data.subarray(blk.idStart[i], blk.idStart[i] + blk.idLen[i]);
    return blk.flags[i] & F_ID16 ? decodeUtf16(b) : utf8.decode(b);
  }

  routing(doc: number): string | null {
    const { blk, i } = this.at(doc);
    if (!(blk.flags[i] & F_ROUTING)) return null;
    return utf8.decode(blk.data.subarray(blk.rStart[i], blk.rStart[i] + blk.rLen[i]));
  }

  source(doc: number): Uint8Array | null {
    const { blk, i } = this.at(doc);
    if (!(blk.flags[i] & F_SOURCE)) return null;
    return blk.data.subarray(blk.sStart[i], blk.sStart[i] + blk.sLen[i]);
  }

  fsync(): void {
    this.file.fsync();
  }

  close(): void {
    this.file.close();
  }
}
