/**
 * A large force merge killed (kill -9) while the merge thread streams the merged segment's files, then the
 * same merge run to the end and the shard restarted gracefully: every time, every document is read back
 * against the model (found or not, its source, and the postings of a term in most documents), and nothing
 * but the commit's files is left once the shard is open.
 */
import { seededRandom } from '@strata/core-common';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IndexShardImpl } from './index-shard.js';
import { parseBytes, simpleParse } from './testing/simple-parser.js';
import { bundleCrashChild, childEnv } from './testing/child-bundle.js';

jest.setTimeout(120_000);


const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
const N = 24_000;

function open(dir: string): IndexShardImpl {
  return new IndexShardImpl({ index: 'merge-crash', indexUuid: 'merge-crash-uuid', shardId: 0, dir, parse: parseBytes, manualScheduling: true });
}

/** every doc against the model; the docs whose `msg` has `common`, from the postings of every segment */
function check(shard: IndexShardImpl, model: Map<string, string | null>): void {
  const wrong: string[] = [];
  const common = new Set<string>();
  for (const [id, src] of model) {
    const g = shard.get(id);
    if (g.found !== (src !== null)) wrong.push(`${id}: found=${g.found}`);
    else if (src !== null && Buffer.from(g.source!).toString('utf8') !== src) wrong.push(`${id}: source`);
    if (src !== null && (JSON.parse(src) as { msg: string }).msg.split(' ').includes('common')) common.add(id);
  }
  expect(wrong).toEqual([]);
  shard.refreshInternal('test');
  const r = shard.acquireReader();
  try {
    expect(r.numDocs).toBe([...model.values()].filter((s) => s !== null).length);
    const found = new Set<string>();
    for (const leaf of r.leaves) {
      const dict = leaf.reader.terms('msg')!;
      const p = dict.postings(dict.ord('common'));
      for (let i = 0; i < p.docFreq; i++) {
        const d = p.docs[i];
        if (!leaf.reader.isLive(d)) continue;
        const id = leaf.reader.id(d);
        if (found.has(id)) wrong.push(`${id}: twice`);
        found.add(id);
        const n = (JSON.parse(model.get(id)!) as { msg: string }).msg.split(' ').filter((w) => w === 'common').length;
        if (p.freqs![i] !== n) wrong.push(`${id}: freq ${p.freqs![i]} != ${n}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(found.size).toBe(common.size);
  } finally {
    r.decRef();
  }
}

describe('kill -9 during a large merge', () => {
  let dir: string;
  let bundle: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-crash-'));
    bundle = bundleCrashChild('merge-crash-child.ts', dir);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every document is back after the kill, after the merge is redone, and after a graceful restart', async () => {
    const data = path.join(dir, 'shard');
    const rand = seededRandom(99);
    const model = new Map<string, string | null>();
    // four committed segments whose `common` postings each span several 64 KB chunks, with deletes
    let shard = open(data);
    for (let i = 0; i < N; i++) {
      const msg = Array.from({ length: 5 + Math.floor(rand() * 50) }, () => (rand() < 0.5 ? 'common' : words[Math.floor(rand() * 8)])).join(' ');
      const src = { msg, n: i, tag: [words[i % 8], words[(i >> 3) % 8]] };
      const id = String(i);
      shard.indexDoc({ id, opType: 'index', doc: simpleParse(src, id) });
      model.set(id, JSON.stringify(src));
      if (i % 9 === 0 && i > 0) {
        const del = String(Math.floor(rand() * i));
        shard.deleteDoc({ id: del });
        model.set(del, null);
      }
      if ((i + 1) % (N / 4) === 0) {
        shard.refreshInternal('test');
        shard.flush();
      }
    }
    shard.close();
    const committed = new Set(fs.readdirSync(data));

    // kill -9 once the merged segment's `.seg` holds postings (past its doc columns), before the merge returned
    const child = spawn(process.execPath, [bundle, data], { stdio: ['ignore', 'pipe', 'inherit'], env: childEnv });
    const out: string[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(...c.toString().split('\n').filter(Boolean)));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_code, signal) => r(signal)));
    let killedAt = -1;
    for (;;) {
      const fresh = fs.readdirSync(data).filter((f) => f.endsWith('.seg') && !committed.has(f));
      const size = fresh.length === 1 ? fs.statSync(path.join(data, fresh[0])).size : 0;
      if (size >= 256 * 1024 && !out.includes('MERGED')) {
        killedAt = size;
        child.kill('SIGKILL');
        break;
      }
      if (out.includes('MERGED') || child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(await exited).toBe('SIGKILL');
    expect(out).toContain('MERGING');
    expect(out).not.toContain('MERGED');
    expect(killedAt).toBeGreaterThan(0);

    // reopened: the commit's four segments, every document, the half-written files gone
    shard = open(data);
    try {
      check(shard, model);
      for (const f of fs.readdirSync(data)) expect(committed.has(f) || f === 'translog').toBe(true);
      // the same merge, to the end this time
      shard.forceMerge(1);
      shard.flush();
      check(shard, model);
    } finally {
      shard.close();
    }
    // graceful restart onto the merged segment
    shard = open(data);
    try {
      expect(fs.readdirSync(data).filter((f) => f.endsWith('.seg'))).toHaveLength(1);
      check(shard, model);
    } finally {
      shard.close();
    }
  });
});
