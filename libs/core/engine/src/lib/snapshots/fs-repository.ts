/**
 * A shared-file-system snapshot repository (ES `fs` type), laid out like a blob store:
 *
 * - `index.latest`: the current generation N; `index-N`: the repository data (snapshots, index ids),
 *   written as a new generation before `index.latest` moves (a snapshot exists once listed there)
 * - `snap-<uuid>.dat`: a snapshot's info; `meta-<uuid>.dat`: its global metadata
 * - `indices/<index id>/meta-<uuid>.dat`: the metadata of one index in one snapshot
 * - `indices/<index id>/<shard>/snap-<uuid>.dat`: the shard manifest (its files and the blobs holding them)
 * - `indices/<index id>/<shard>/__<blob>`: file contents. Blobs are immutable and shared by every snapshot
 *   whose manifest names them: a file already in the repository is not copied again (incremental).
 *
 * Every metadata file is JSON with a crc32 footer; every blob's crc32 is in the manifest and verified on
 * restore. Files are written temp + fsync + rename.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { crc32 } from '../store/crc32.js';
import { ensureDir, fsyncDir, removeQuietly, writeFileAtomic } from '../store/directory.js';
import { decodeStateFile, encodeStateFile } from '../store/state-file.js';
import { CorruptIndexException } from '../store/segment-codec.js';

export interface RepoSnapshotEntry {
  name: string;
  uuid: string;
  state: 'SUCCESS' | 'PARTIAL' | 'FAILED';
  start_time: number;
  end_time: number;
  indices: string[];
  data_streams: string[];
}

export interface RepositoryData {
  /** stable id of the repository (kept across generations) */
  uuid: string;
  generation: number;
  snapshots: RepoSnapshotEntry[];
  /** index name → its id in the repository and the snapshots holding it */
  indices: Record<string, { id: string; snapshots: string[] }>;
}

export interface ShardFileEntry {
  /** the file name in the shard directory */
  name: string;
  /** the blob holding it, under the shard's folder */
  blob: string;
  length: number;
  crc32: number;
}

export interface ShardManifest {
  /** uuid of the index the files come from (files are reused only within one index incarnation) */
  index_uuid: string;
  files: ShardFileEntry[];
  /** base64 of the shard's `commit.json` at snapshot time */
  commit: string;
  num_docs: number;
  /** statistics of this snapshot of the shard */
  incremental_file_count: number;
  incremental_size_in_bytes: number;
  start_time: number;
  time_in_millis: number;
}

const COPY_CHUNK = 1 << 20;

export function randomBlobId(): string {
  return randomBytes(16).toString('base64url');
}

export class FsRepository {
  constructor(readonly location: string) {}

  // ------------------------------------------------------------------ repository data

  private latestFile(): string {
    return path.join(this.location, 'index.latest');
  }

  /** the current repository data (an empty one for a new repository) */
  readRepositoryData(): RepositoryData {
    let gen: number;
    try {
      gen = Number(fs.readFileSync(this.latestFile(), 'utf8').trim());
    } catch {
      gen = -1;
    }
    if (!Number.isInteger(gen) || gen < 0) return { uuid: '_na_', generation: -1, snapshots: [], indices: {} };
    return decodeStateFile<RepositoryData>(fs.readFileSync(path.join(this.location, `index-${gen}`)), `repository data index-${gen}`);
  }

  /** writes generation `data.generation + 1` and makes it current; returns the written data */
  writeRepositoryData(data: RepositoryData): RepositoryData {
    ensureDir(this.location);
    const next: RepositoryData = { ...data, uuid: data.uuid === '_na_' ? randomBlobId() : data.uuid, generation: data.generation + 1 };
    writeFileAtomic(path.join(this.location, `index-${next.generation}`), encodeStateFile(next));
    writeFileAtomic(this.latestFile(), String(next.generation));
    if (data.generation >= 0) removeQuietly(path.join(this.location, `index-${data.generation}`));
    return next;
  }

  // ------------------------------------------------------------------ metadata blobs

  writeJson(rel: string, value: unknown): void {
    const file = path.join(this.location, rel);
    ensureDir(path.dirname(file));
    writeFileAtomic(file, encodeStateFile(value));
  }

  readJson<T>(rel: string): T {
    return decodeStateFile<T>(fs.readFileSync(path.join(this.location, rel)), rel);
  }

  exists(rel: string): boolean {
    return fs.existsSync(path.join(this.location, rel));
  }

  remove(rel: string): void {
    removeQuietly(path.join(this.location, rel));
  }

  abs(rel: string): string {
    return path.join(this.location, rel);
  }

  list(rel: string): string[] {
    try {
      return fs.readdirSync(path.join(this.location, rel));
    } catch {
      return [];
    }
  }

  // ------------------------------------------------------------------ file blobs

  /**
   * Copies a file into a new blob under `dir` in chunks (yielding between them, so the node keeps serving),
   * computing its crc32; returns the blob name and checksum.
   */
  async copyIn(src: string, dir: string): Promise<{ blob: string; length: number; crc32: number }> {
    const blob = `__${randomBlobId()}`;
    const destDir = path.join(this.location, dir);
    ensureDir(destDir);
    const dest = path.join(destDir, blob);
    const tmp = `${dest}.tmp`;
    const inFd = await fs.promises.open(src, 'r');
    const outFd = await fs.promises.open(tmp, 'w');
    let crc = 0;
    let length = 0;
    try {
      const buf = Buffer.allocUnsafe(COPY_CHUNK);
      for (;;) {
        const { bytesRead } = await inFd.read(buf, 0, COPY_CHUNK, length);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        crc = crc32(chunk, crc);
        await outFd.write(chunk);
        length += bytesRead;
      }
      await outFd.sync();
    } finally {
      await inFd.close();
      await outFd.close();
    }
    await fs.promises.rename(tmp, dest);
    fsyncDir(destDir);
    return { blob, length, crc32: crc };
  }

  /**
   * Copies a blob out to `dest` in chunks (yielding between them), checking its length and crc32 against the
   * manifest entry on the way: one read of the blob, and a corrupt blob never becomes an index file.
   */
  async copyOut(dir: string, f: ShardFileEntry, dest: string): Promise<void> {
    const src = path.join(this.location, dir, f.blob);
    const inFd = await fs.promises.open(src, 'r');
    const outFd = await fs.promises.open(dest, 'w');
    let crc = 0;
    let length = 0;
    try {
      const buf = Buffer.allocUnsafe(COPY_CHUNK);
      for (;;) {
        const { bytesRead } = await inFd.read(buf, 0, COPY_CHUNK, length);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        crc = crc32(chunk, crc);
        await outFd.write(chunk);
        length += bytesRead;
      }
      await outFd.sync();
    } finally {
      await inFd.close();
      await outFd.close();
    }
    if (length !== f.length || crc !== f.crc32) {
      throw new CorruptIndexException(`checksum failed for [${f.name}] in blob [${dir}/${f.blob}]: expected length ${f.length} crc32 ${f.crc32}, got ${length} ${crc}`);
    }
  }

  /**
   * Links `dest` to a blob (a shared_cache mount: the index is served from the repository); the blob's length
   * is checked, its content is read (and checksummed by the segment codec) only when the shard opens it.
   */
  linkOut(dir: string, f: ShardFileEntry, dest: string): void {
    const src = path.join(this.location, dir, f.blob);
    const size = fs.statSync(src).size;
    if (size !== f.length) throw new CorruptIndexException(`length of blob [${dir}/${f.blob}] for [${f.name}] is ${size}, expected ${f.length}`);
    fs.symlinkSync(src, dest);
  }
}
