/** File helpers for a shard directory: atomic writes, fsync, listing. Synchronous on purpose (small, ordered I/O). */
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The file-system calls of the write path (translog appends and fsyncs, segment, live-docs and commit files).
 * Everything that writes shard data goes through this object, so tests can swap an entry to inject ENOSPC or
 * EIO at any write or fsync and prove that nothing acknowledged is lost.
 */
export const storeFs = {
  openSync: (file: fs.PathLike, flags: fs.OpenMode): number => fs.openSync(file, flags),
  /** `position` null: at the file's current offset */
  writeSync: (fd: number, buf: Uint8Array, offset = 0, length = buf.byteLength - offset, position: number | null = null): number =>
    fs.writeSync(fd, buf, offset, length, position),
  fsyncSync: (fd: number): void => fs.fsyncSync(fd),
  fsync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void): void => fs.fsync(fd, cb),
  ftruncateSync: (fd: number, len: number): void => fs.ftruncateSync(fd, len),
  renameSync: (from: fs.PathLike, to: fs.PathLike): void => fs.renameSync(from, to),
};

export function ensureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
}

export function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* some platforms cannot fsync a directory */
  }
}

/** write temp + fsync + rename + fsync dir */
export function writeFileAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = storeFs.openSync(tmp, 'w');
  let done = false;
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.byteLength) off += storeFs.writeSync(fd, buf, off, buf.byteLength - off);
    storeFs.fsyncSync(fd);
    done = true;
  } finally {
    fs.closeSync(fd);
    if (!done) fs.rmSync(tmp, { force: true });
  }
  storeFs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

export function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true, recursive: true });
  } catch {
    /* ignore */
  }
}

export function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

export function dirSize(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fileSize(p);
  }
  return total;
}

/** the data directory of an index: `<path.data>/indices/<index uuid>` (one sub-directory per shard) */
export function indexDataDir(dataPath: string, indexUuid: string): string {
  return path.join(dataPath, 'indices', indexUuid);
}

/**
 * Places `src` at `dest` without copying when possible: a hard link (segment files are immutable, so
 * sharing them is safe, as Lucene's hard-linking directory does for shrink), else a copy; fsynced.
 */
export function linkOrCopyFile(src: string, dest: string): void {
  try {
    fs.linkSync(src, dest);
    return;
  } catch {
    /* another file system, or links unsupported: copy */
  }
  fs.copyFileSync(src, dest);
  const fd = fs.openSync(dest, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
