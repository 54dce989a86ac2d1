/** A point-in-time, refcounted view of a shard: a fixed list of segment readers. */
import type { DirectoryReader, LeafReaderContext } from './leaf-reader.js';
import type { SegmentReader } from './segment.js';

export class ShardDirectoryReader implements DirectoryReader {
  readonly leaves: readonly LeafReaderContext[];
  readonly maxDoc: number;
  readonly numDocs: number;
  private refs = 1;

  constructor(
    readers: readonly SegmentReader[],
    readonly generation: number,
    readonly cacheKey: string,
    readonly mappingVersion: number,
    private readonly onClose?: () => void,
  ) {
    let base = 0;
    let live = 0;
    const leaves: LeafReaderContext[] = [];
    readers.forEach((reader, ord) => {
      leaves.push({ reader, docBase: base, ord });
      base += reader.maxDoc;
      live += reader.numDocs;
    });
    this.leaves = leaves;
    this.maxDoc = base;
    this.numDocs = live;
  }

  get segmentReaders(): SegmentReader[] {
    return this.leaves.map((l) => l.reader as SegmentReader);
  }

  get refCount(): number {
    return this.refs;
  }

  incRef(): void {
    if (this.refs <= 0) throw new Error(`reader ${this.cacheKey} is already closed`);
    this.refs++;
  }

  /** like incRef but returns false when already closed */
  tryIncRef(): boolean {
    if (this.refs <= 0) return false;
    this.refs++;
    return true;
  }

  decRef(): void {
    if (this.refs <= 0) return;
    this.refs--;
    if (this.refs === 0) this.onClose?.();
  }
}
