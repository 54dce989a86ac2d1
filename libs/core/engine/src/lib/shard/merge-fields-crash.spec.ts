/**
 * Durability of merged segments whose fields follow the live docs alone (fields by name; fields only deleted
 * docs had left out; doc values single-valued over the live docs): a child indexes docs whose early versions
 * carry fields and multi-valued numbers the later ones do not, merging as it goes, and is kill -9'ed. After
 * recovery, after a force merge, and after a graceful restart, every document is read back against the model
 * (found or not, source, the values of `n`, the docs with a term of `gone` and of `late`), and the merged
 * segment has exactly the fields of its live docs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { mergeFieldsModel } from './testing/merge-fields-model.js';
import { parseBytes } from './testing/simple-parser.js';
import { bundleCrashChild, runChildUntilKilled } from './testing/child-bundle.js';

jest.setTimeout(60_000);

function open(dir: string): IndexShardImpl {
  return new IndexShardImpl({ index: 'merge-fields', indexUuid: 'merge-fields-uuid', shardId: 0, dir, parse: parseBytes, manualScheduling: true });
}

/** every doc against the model after `ops` ops; `merged`: the shard holds one segment, whose fields are checked */
function check(shard: IndexShardImpl, ops: number, merged: boolean): void {
  const model = mergeFieldsModel(ops);
  const wrong: string[] = [];
  for (const [id, src] of model) {
    const g = shard.get(id);
    if (g.found !== (src !== null)) wrong.push(`${id}: found=${g.found}`);
    else if (src !== null && Buffer.from(g.source!).toString('utf8') !== JSON.stringify(src)) wrong.push(`${id}: source`);
  }
  expect(wrong).toEqual([]);
  const live = [...model.values()].filter((s): s is Record<string, unknown> => s !== null);
  shard.refreshInternal('check');
  const r = shard.acquireReader();
  try {
    expect(r.numDocs).toBe(live.length);
    let seen = 0;
    for (const leaf of r.leaves) {
      const lr = leaf.reader;
      const n = lr.numericDocValues('n');
      const withTerm = (f: string, term: string): Set<number> => {
        const t = lr.terms(f);
        const o = t ? t.ord(term) : -1;
        return new Set(o >= 0 ? Array.from(t!.postings(o).docs) : []);
      };
      const gone = withTerm('gone', 'old');
      const late = withTerm('late', 'new');
      for (let d = 0; d < lr.maxDoc; d++) {
        if (!lr.isLive(d)) continue;
        seen++;
        const id = lr.id(d);
        const src = model.get(id)!;
        const want = src['n'] === undefined ? [] : [src['n'] as number | number[]].flat().sort((a, b) => a - b);
        const got = n ? Array.from(n.values.subarray(n.offsets[d], n.offsets[d + 1])) : [];
        if (JSON.stringify(got) !== JSON.stringify(want)) wrong.push(`${id}: n ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
        if (gone.has(d) !== ('gone' in src)) wrong.push(`${id}: gone`);
        if (late.has(d) !== ('late' in src)) wrong.push(`${id}: late`);
      }
    }
    expect(wrong).toEqual([]);
    expect(seen).toBe(live.length);
    if (merged) {
      expect(r.leaves).toHaveLength(1);
      const lr = r.leaves[0].reader;
      const text = new Set<string>();
      const nums = new Set<string>();
      for (const s of live) for (const [k, v] of Object.entries(s)) (typeof v === 'string' ? text : nums).add(k);
      const fields = ['_id', ...[...text].flatMap((k) => [k, `${k}.keyword`])].sort();
      expect(lr.fieldNames()).toEqual(fields);
      // the early docs are all overwritten: their fields are gone, and `n` has one value per doc
      expect(fields).not.toContain('gone');
      expect(lr.numericDocValues('gone_n')).toBeNull();
      expect([...nums].sort()).toEqual(['n']);
      expect(lr.numericDocValues('n')!.singleValued).toBe(true);
    }
  } finally {
    r.decRef();
  }
}

describe('merged segments keep the fields of their live docs: crash (kill -9) and graceful restart', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-fields-crash-'));
    bundle = bundleCrashChild('merge-fields-crash-child.ts', dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every acknowledged operation survives, before and after a force merge and a restart', async () => {
    const data = path.join(dir, 'shard');
    let acked = 0;
    await runChildUntilKilled([bundle, data], (line) => {
      const m = /^ACK (\d+)$/.exec(line);
      if (m) acked = Number(m[1]);
      return acked >= 1600;
    });
    expect(fs.readdirSync(data).some((f) => f.endsWith('.seg'))).toBe(true);
    let shard = open(data);
    const ops = shard.localCheckpoint + 1;
    try {
      expect(ops).toBeGreaterThanOrEqual(acked);
      // the early docs that live on are in segments the merges kept (beside deleted docs with `gone`)
      expect([...mergeFieldsModel(ops).keys()].filter((id) => id.startsWith('keep') && shard.get(id).found)).toHaveLength(150);
      check(shard, ops, false);
      shard.forceMerge(1);
      shard.flush();
      check(shard, ops, true);
    } finally {
      shard.close();
    }
    shard = open(data);
    try {
      check(shard, ops, true);
    } finally {
      shard.close();
    }
  });
});
