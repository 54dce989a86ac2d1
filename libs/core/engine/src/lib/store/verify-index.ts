/**
 * The `verify` tool's engine side (Lucene's CheckIndex, read-only): walks a data path (or one shard
 * directory) and checks every commit point, every segment file (header, codec version, footer and the
 * checksum of every byte; the older single-file format by its own checksum) and every live-docs file. It
 * never writes. One result per shard.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { decodeStateFile } from './state-file.js';
import { decodeLiveDocs, verifySegmentChecksum } from './segment-codec.js';
import { verifySegmentFiles, SEGMENT_BLOCK_FORMAT } from '../index/disk-segment.js';

export interface ShardVerifyResult {
  dir: string;
  ok: boolean;
  segments: Array<{ name: string; version: number; files: string[] }>;
  problems: string[];
}

interface Commit {
  segments: Array<{ name: string; delGen: number }>;
}

export function verifyShardDir(dir: string): ShardVerifyResult {
  const res: ShardVerifyResult = { dir, ok: true, segments: [], problems: [] };
  const fail = (msg: string): void => {
    res.ok = false;
    res.problems.push(msg);
  };
  let commit: Commit;
  try {
    commit = decodeStateFile<Commit>(fs.readFileSync(path.join(dir, 'commit.json')), `commit point of ${dir}`);
  } catch (err) {
    fail(`commit.json: ${errText(err)}`);
    return res;
  }
  for (const s of commit.segments ?? []) {
    try {
      const v = verifySegmentFiles(dir, s.name);
      if (v.version < SEGMENT_BLOCK_FORMAT) {
        const c = verifySegmentChecksum(fs.readFileSync(path.join(dir, `${s.name}.seg`)));
        if (c !== 'ok') fail(`${s.name}.seg: checksum of the older writer (${c}); the node rewrites it at open`);
        v.files.push(`${s.name}.src`);
      }
      res.segments.push({ name: s.name, version: v.version, files: v.files });
    } catch (err) {
      fail(`${s.name}: ${errText(err)}`);
    }
    if (s.delGen >= 0) {
      const liv = `${s.name}_${s.delGen}.liv`;
      try {
        decodeLiveDocs(fs.readFileSync(path.join(dir, liv)));
      } catch (err) {
        fail(`${liv}: ${errText(err)}`);
      }
    }
  }
  return res;
}

/** every shard directory (one holding a commit.json) under `root` (a data path, an index or a shard) */
export function findShardDirs(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (fs.existsSync(path.join(d, 'commit.json'))) {
      out.push(d);
      return;
    }
    if (depth > 4) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) if (e.isDirectory() && e.name !== 'translog') walk(path.join(d, e.name), depth + 1);
  };
  walk(root, 0);
  return out.sort();
}

function errText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
