/**
 * Test support: a segment as a reader sees it, in memory or written in the current format to a temporary
 * directory and reopened from there — specs run their cases in both modes (`mode`, set per `describe.each`).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DiskSegment, writeSegment } from '../disk-segment.js';
import { MemorySegment, type SegmentData } from '../segment.js';
import type { SegmentCore } from '../segment-core.js';

export class SegmentModes {
  mode: 'memory' | 'disk' = 'memory';
  /** where segments are written (`remove` deletes it) */
  readonly dir: string;
  private counter = 0;

  /** `dirPrefix`: of the temporary directory; `namePrefix`: of the names segments are written under */
  constructor(
    dirPrefix: string,
    private readonly namePrefix: string,
  ) {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), dirPrefix));
  }

  /** a name not given before by this helper (`prefix` and a counter shared by every name it gives) */
  name(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  /** `data` in memory, or written and reopened (mode `disk`) */
  core(data: SegmentData): SegmentCore {
    const mem = new MemorySegment(data);
    if (this.mode === 'memory') return mem;
    const name = this.name(this.namePrefix);
    writeSegment(this.dir, new MemorySegment({ ...data, name }));
    return new DiskSegment(this.dir, name);
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
