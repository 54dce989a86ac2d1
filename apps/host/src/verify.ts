/**
 * `node apps/host/dist/main.cjs verify [path]` (`npm run verify -- [path]`): checks, read-only, every shard
 * under a data path (default `./data`), an index directory or one shard directory — commit points, segment
 * files (header, format version, footer, checksum of every byte) and live docs. Prints one line per shard
 * and a JSON summary; exit code 0 when everything is intact, 1 when anything is corrupt, 2 when nothing was found.
 */
import { findShardDirs, verifyShardDir } from '@strata/core-engine';

export function runVerify(args: readonly string[]): number {
  let root = './data';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-E' && args[i + 1]?.startsWith('path.data=')) root = args[++i]!.slice('path.data='.length);
    else if (!a.startsWith('-')) root = a;
  }
  const dirs = findShardDirs(root);
  if (dirs.length === 0) {
    process.stderr.write(`strata verify: no shard (commit.json) under ${root}\n`);
    return 2;
  }
  let bad = 0;
  let segments = 0;
  for (const d of dirs) {
    const r = verifyShardDir(d);
    segments += r.segments.length;
    if (!r.ok) bad++;
    const versions = [...new Set(r.segments.map((s) => s.version))].join(',') || '-';
    process.stdout.write(`${r.ok ? 'OK     ' : 'CORRUPT'} ${d} (${r.segments.length} segments, format ${versions})\n`);
    for (const p of r.problems) process.stdout.write(`        ${p}\n`);
  }
  process.stdout.write(`${JSON.stringify({ shards: dirs.length, corrupt_shards: bad, segments })}\n`);
  return bad > 0 ? 1 : 0;
}
