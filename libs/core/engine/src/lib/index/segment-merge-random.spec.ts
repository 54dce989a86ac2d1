import { SegmentBuilder } from './segment-builder.js';
import { SegmentReader } from './segment.js';
import { MergedSource, mergeSync } from './segment-merger.js';
import { DiskSegment, writeSegment } from './disk-segment.js';
import { simpleParse } from '../shard/testing/simple-parser.js';
import { decodeSegment, encodeSegment } from '../store/segment-codec.js';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemorySegment } from './segment.js';
import { dumpSegment as dump } from '../shard/testing/segment-dump.js';

function rng(seed: number) {
  return () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
}

describe('merge keeps results identical (randomised)', () => {
  for (const seed of [1, 7, 42]) {
    it(`seed ${seed}`, () => {
      const rand = rng(seed);
      const words = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta'];
      const docs = Array.from({ length: 300 }, (_, i) => {
        const src: Record<string, unknown> = {
          msg: Array.from({ length: 1 + Math.floor(rand() * 6) }, () => words[Math.floor(rand() * words.length)]).join(' '),
          n: Math.floor(rand() * 50),
        };
        if (rand() < 0.5) src['tag'] = [words[Math.floor(rand() * 8)], words[Math.floor(rand() * 8)]];
        if (rand() < 0.3) src['m'] = [rand() * 10, -rand()];
        return simpleParse(src, `d${i}`);
      });
      const deleted = new Set(docs.map((_, i) => i).filter(() => rand() < 0.2));
      // A: one segment
      const a = new SegmentBuilder();
      docs.forEach((d, i) => a.add(d, { seqNo: i, primaryTerm: 1, version: 1 }));
      for (const i of deleted) a.delete(i);
      const A = a.build('_a');
      // B: four segments, merged (through the codec, too)
      const parts = [0, 70, 150, 220, 300];
      const inputs = [];
      for (let p = 0; p < 4; p++) {
        const b = new SegmentBuilder();
        for (let i = parts[p]; i < parts[p + 1]; i++) b.add(docs[i], { seqNo: i, primaryTerm: 1, version: 1 });
        for (const i of deleted) if (i >= parts[p] && i < parts[p + 1]) b.delete(i - parts[p]);
        const built = b.build(`_b${p}`);
        inputs.push({ data: new MemorySegment(decodeSegment(encodeSegment(built.data, { includeSource: true }))), liveDocs: built.liveDocs });
      }
      const merged = mergeSync('_m', inputs);
      const ra = new SegmentReader(new MemorySegment(A.data), A.liveDocs, 1);
      const rb = new SegmentReader(merged.data, null, 0);
      expect(rb.numDocs).toBe(300 - deleted.size);
      expect(dump(rb)).toEqual(dump(ra));
      // the same through files: each input written in the current format and reopened, the merge streamed
      // from those files into a new segment's files
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'merge-src-'));
      try {
        const onDisk = inputs.map((inp, k) => {
          writeSegment(dir, new MemorySegment({ ...inp.data.data, name: `_in${k}` }));
          return { data: new DiskSegment(dir, `_in${k}`), liveDocs: inp.liveDocs };
        });
        writeSegment(dir, new MergedSource('_m2', onDisk));
        const m2 = new DiskSegment(dir, '_m2');
        expect(dump(new SegmentReader(m2, null, 0))).toEqual(dump(ra));
        for (const i of onDisk) i.data.close();
        m2.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
