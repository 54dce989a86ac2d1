/**
 * Building a shard directory out of existing commits, file by file (segment files are immutable, so they
 * are hard-linked when possible): the target of a shrink takes the segments of several source shards.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ensureDir, linkOrCopyFile, writeFileAtomic } from '../store/directory.js';
import type { CommitPoint, IndexCommitRef } from './index-shard.js';
import { encodeStateFile } from '../store/state-file.js';

export const COMMIT_POINT_FILE = 'commit.json';

/**
 * Writes into `targetDir` one commit holding every segment of `sources` (renamed `_0`, `_1`, ... so names
 * from different source shards do not collide) and their live docs; the commit is written last, atomically.
 * The local checkpoint is the highest of the sources' (ES takes the max sequence number of the sources).
 */
export function writeShardFromCommits(targetDir: string, sources: readonly IndexCommitRef[]): CommitPoint {
  ensureDir(targetDir);
  const segments: CommitPoint['segments'] = [];
  let counter = 0;
  let maxSeqNo = -1;
  for (const src of sources) {
    maxSeqNo = Math.max(maxSeqNo, src.commit.maxSeqNo, src.commit.localCheckpoint);
    for (const s of src.commit.segments) {
      const name = `_${(counter++).toString(36)}`;
      linkOrCopyFile(path.join(src.dir, `${s.name}.seg`), path.join(targetDir, `${name}.seg`));
      const srcFile = path.join(src.dir, `${s.name}.src`);
      if (fs.existsSync(srcFile)) linkOrCopyFile(srcFile, path.join(targetDir, `${name}.src`));
      if (s.delGen >= 0) linkOrCopyFile(path.join(src.dir, `${s.name}_${s.delGen}.liv`), path.join(targetDir, `${name}_${s.delGen}.liv`));
      segments.push({ name, delGen: s.delGen });
    }
  }
  const commit: CommitPoint = {
    version: 1,
    generation: 1,
    segments,
    localCheckpoint: maxSeqNo,
    maxSeqNo,
    translogGeneration: 1,
    segmentCounter: counter,
  };
  writeFileAtomic(path.join(targetDir, COMMIT_POINT_FILE), encodeStateFile(commit));
  return commit;
}
