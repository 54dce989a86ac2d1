/**
 * Durability of nested blocks: a child process indexes documents with nested objects (updates and deletes
 * included) and is kill -9'ed; after recovery (commit + translog replay) every acknowledged operation is there,
 * every block is whole, and the same holds after a graceful restart.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { checkBlocks, nestedCrashModel, parseNestedBytes } from './testing/nested-model.js';
import { bundleCrashChild, runChildUntilKilled } from './testing/child-bundle.js';

jest.setTimeout(60_000);

function check(shard: IndexShardImpl, ops: number): void {
  shard.refreshInternal('check');
  const reader = shard.acquireReader();
  try {
    expect(checkBlocks(reader, nestedCrashModel(ops))).toEqual([]);
  } finally {
    reader.decRef();
  }
}

describe('nested blocks: crash (kill -9) and graceful restart', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nested-crash-'));
    bundle = bundleCrashChild('nested-crash-child.ts', dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every acknowledged operation survives with whole blocks', async () => {
    const data = path.join(dir, 'shard');
    let acked = 0;
    await runChildUntilKilled([bundle, data], (line) => {
      const m = /^ACK (\d+)$/.exec(line);
      if (m) acked = Number(m[1]);
      return acked >= 3000;
    });
    expect(fs.readdirSync(data).some((f) => f.endsWith('.seg'))).toBe(true);
    let shard = new IndexShardImpl({ index: 'nested', indexUuid: 'nested-uuid', shardId: 0, dir: data, parse: parseNestedBytes, manualScheduling: true });
    // every op up to the recovered checkpoint is applied, and every acknowledged one is among them
    const ops = shard.localCheckpoint + 1;
    try {
      expect(ops).toBeGreaterThanOrEqual(acked);
      check(shard, ops);
      shard.forceMerge(1);
      check(shard, ops);
    } finally {
      shard.close();
    }
    shard = new IndexShardImpl({ index: 'nested', indexUuid: 'nested-uuid', shardId: 0, dir: data, parse: parseNestedBytes, manualScheduling: true });
    try {
      check(shard, ops);
    } finally {
      shard.close();
    }
  });
});
