/**
 * Property test: whatever sequence of index / update / delete / refresh / flush / merge / restart operations
 * runs, every nested block stays whole (hidden docs right before their root, deleted or live together) and
 * the live roots equal the model. A short seeded run is part of `npm test`; longer runs:
 * `NESTED_PROP_RUNS=500 NESTED_PROP_SEED=7 npx jest -c libs/core/engine/jest.config.cjs nested-blocks`.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { IndexShardImpl } from './index-shard.js';
import { checkBlocks, nestedSource, parseNested, parseNestedBytes, type NestedSource } from './testing/nested-model.js';

type Op =
  | { t: 'index'; id: number; comments: number; replies: number; refresh: boolean }
  | { t: 'delete'; id: number }
  | { t: 'refresh' | 'flush' | 'force_merge' | 'merge_once' | 'restart' | 'expunge' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('index' as const), id: fc.integer({ min: 0, max: 11 }), comments: fc.integer({ min: 0, max: 3 }), replies: fc.integer({ min: 0, max: 2 }), refresh: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 11 }) }) },
  { weight: 3, arbitrary: fc.constantFrom<Op>({ t: 'refresh' }, { t: 'flush' }, { t: 'force_merge' }, { t: 'merge_once' }, { t: 'restart' }, { t: 'expunge' }) },
);

const RUNS = Number(process.env['NESTED_PROP_RUNS'] ?? 20);
const SEED = Number(process.env['NESTED_PROP_SEED'] ?? 20240614);

describe('nested blocks survive every write path', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nested-blocks-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('updates, deletes, merges, flushes and restarts never split a block', () => {
    let merges = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40, size: 'max' }), (ops) => {
        const d = fs.mkdtempSync(path.join(dir, 'run-'));
        const open = () =>
          new IndexShardImpl({ index: 'nested', indexUuid: 'nested-uuid', shardId: 0, dir: d, parse: parseNestedBytes, manualScheduling: true, mergePolicy: { segsPerTier: 2, floorSegmentDocs: 1 } });
        let shard = open();
        const model = new Map<string, NestedSource>();
        let seq = 0;
        try {
          for (const op of ops) {
            switch (op.t) {
              case 'index': {
                const id = String(op.id);
                const src = nestedSource(`v${seq++}`, op.comments, op.replies);
                shard.indexDoc({ id, opType: 'index', doc: parseNested(src, id) });
                model.set(id, src);
                if (op.refresh) shard.refreshInternal('test');
                break;
              }
              case 'delete':
                shard.deleteDoc({ id: String(op.id) });
                model.delete(String(op.id));
                break;
              case 'refresh':
                shard.refreshInternal('test');
                break;
              case 'flush':
                shard.flush();
                break;
              case 'force_merge':
                shard.forceMerge(1);
                break;
              case 'expunge':
                shard.forceMerge(1, true);
                break;
              case 'merge_once':
                shard.refreshInternal('test');
                shard.mergeOnce();
                break;
              case 'restart':
                merges += shard.stats().mergesTotal;
                shard.close(true);
                shard = open();
                break;
            }
          }
          shard.refreshInternal('check');
          const reader = shard.acquireReader();
          try {
            const problems = checkBlocks(reader, model);
            if (problems.length) throw new Error(problems.join('\n'));
          } finally {
            reader.decRef();
          }
          // realtime gets find the root documents
          for (const [id, src] of model) {
            const g = shard.get(id);
            if (!g.found || Buffer.from(g.source!).toString() !== JSON.stringify(src)) throw new Error(`get [${id}]`);
          }
        } finally {
          merges += shard.stats().mergesTotal;
          if (!shard.isClosed) shard.close(false);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
    // the runs did merge segments (natural and forced)
    expect(merges).toBeGreaterThanOrEqual(RUNS / 2);
  });
});
