import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SourceFile, writeSourceFile } from './segment.js';

describe('SourceFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'strata-src-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // 5,000 records of varying length, concatenated; starts[i]..starts[i+1] is record i
  const records = Array.from({ length: 5000 }, (_, i) => Buffer.from(JSON.stringify({ i, pad: 'x'.repeat(i % 300) })));
  const starts = [0];
  for (const r of records) starts.push(starts[starts.length - 1]! + r.length);
  const path = join(dir, '_0.src');
  writeSourceFile(path, records);

  it('reads every record exactly, sequentially (read-ahead) and backwards (exact reads)', () => {
    const f = new SourceFile(path);
    for (let i = 0; i < records.length; i++) {
      expect(Buffer.from(f.read(starts[i]!, starts[i + 1]!)).equals(records[i]!)).toBe(true);
    }
    for (let i = records.length - 1; i >= 0; i -= 7) {
      expect(Buffer.from(f.read(starts[i]!, starts[i + 1]!)).equals(records[i]!)).toBe(true);
    }
    f.close();
  });

  it('keeps earlier results valid after the read-ahead block moves on, and handles the file tail', () => {
    const f = new SourceFile(path);
    const first = f.read(starts[0]!, starts[1]!);
    const kept = Buffer.from(first);
    for (let i = 1; i < records.length; i++) f.read(starts[i]!, starts[i + 1]!);
    expect(Buffer.from(first).equals(kept)).toBe(true);
    const last = records.length - 1;
    expect(Buffer.from(f.read(starts[last]!, starts[last + 1]!)).equals(records[last]!)).toBe(true);
    expect(f.read(starts[3]!, starts[3]!).length).toBe(0);
    expect(() => f.read(starts[last + 1]!, starts[last + 1]! + 10)).toThrow('short read');
    f.close();
  });
});
