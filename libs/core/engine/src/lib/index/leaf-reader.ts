/**
 * CONTRACT (owned by the storage engine; consumed by search, aggregations, paging, request cache).
 * Read side of one immutable segment, in Lucene's vocabulary. All arrays are segment-local and
 * must never be mutated by consumers. Doc ids are 0..maxDoc-1 within the segment.
 */

import type { PostingsBlockReader, PostingsPass } from './segment-core.js';

/** Postings of one term in one field. docs ascending; deleted docs are included (check liveness). */
export interface Postings {
  readonly docFreq: number;
  readonly docs: Uint32Array;
  /** term frequency per entry of docs; null when the field indexes docs only (keyword, _id) → freq 1 */
  readonly freqs: Uint32Array | null;
  /** positions of entry i (not doc id!): a view; null when positions are not indexed */
  positions(i: number): Uint32Array | null;
  /**
   * the positions of every entry, entry after entry, as one view (a segment that holds them so); absent =
   * `positions(i)` entry by entry
   */
  allPositions?(): Uint32Array | null;
  /** sum of freqs (total term frequency) */
  readonly totalTermFreq: number;
}

/** Sorted term dictionary of one field in one segment. Ordinals are 0..size-1 in ascending (UTF-16 code unit) order. */
export interface TermsDict {
  readonly size: number;
  term(ord: number): string;
  /** exact ordinal of term or -1 */
  ord(term: string): number;
  /** the smallest ordinal whose term >= target (size if none) */
  seekCeil(target: string): number;
  postings(ord: number): Postings;
  docFreq(ord: number): number;
  /**
   * the ordinals of ascending terms (-1 for an absent one) in one walk along the dictionary, each block
   * read once (translog replay looks up thousands of sorted `_id`s); absent = use `ord` per term
   */
  ordsOfSorted?(terms: readonly string[], out: Int32Array): void;
  /**
   * one pass over a term's postings block by block, read straight from the file (merges: bounded memory
   * whatever the term's doc freq); absent = `postings(ord)` whole
   */
  readPostings?(ord: number, pass: PostingsPass): PostingsBlockReader;
}

/** Per-field statistics used by BM25 (Lucene's CollectionStatistics, per segment). */
export interface FieldStats {
  /** number of docs (including deleted) that have at least one term in the field */
  docCount: number;
  sumTotalTermFreq: number;
  sumDocFreq: number;
}

/**
 * Multi-valued numeric doc values (Lucene SortedNumericDocValues): values of doc d are
 * values[offsets[d] .. offsets[d+1]), ascending. long/integer/short/byte/date (epoch millis),
 * date_nanos (epoch nanos as number, precision loss above 2^53 accepted), double/float/half_float,
 * scaled_float (the scaled long), boolean (0/1).
 */
export interface NumericDocValues {
  readonly offsets: Uint32Array;
  /** the whole column (a segment on disk decodes it on first access: prefer valueBlocks when present) */
  readonly values: Float64Array;
  /** true when every doc has exactly one value (offsets are the identity); absent = unknown */
  readonly singleValued?: boolean;
  /** block-level access to `values` (segments on disk): only the blocks touched are decoded */
  readonly valueBlocks?: NumberBlocks;
  /** per-doc access block by block (segments on disk): read through `docValuesReader`, not by hand */
  readonly docBlocks?: DocBlocks;
}

/**
 * Doc values of a segment on disk, block by block: the values (or ordinals) column, and for a multi-valued
 * field the per-doc counts column with the resident index of the first value of each counts block. A reader
 * of one doc decodes (through the block cache) the counts block of the doc and the values block(s) it needs.
 */
export interface DocBlocks<T extends Float64Array | Uint32Array = Float64Array> {
  readonly values: NumberBlocks<T>;
  /** null: single-valued (one value per doc, value i belongs to doc i) */
  readonly counts: NumberBlocks<Uint32Array> | null;
  /** index of the first value of counts block b (resident once computed); only when counts is not null */
  countStart(b: number): number;
}

/**
 * A column of numbers read block by block through the node's block cache (segments on disk). Blocks hold
 * `blockSize` values (a power of two), the last one fewer; the min/max of every block stay resident, so a
 * search can skip blocks without reading them.
 */
export interface NumberBlocks<T extends Float64Array | Uint32Array = Float64Array> {
  readonly size: number;
  readonly blockSize: number;
  readonly numBlocks: number;
  min(b: number): number;
  max(b: number): number;
  /** the decoded values of block b (cached; never mutate) */
  block(b: number): T;
}

/**
 * Multi-valued keyword doc values (Lucene SortedSetDocValues): ordinals of doc d are
 * ords[offsets[d] .. offsets[d+1]), ascending and unique; terms[ord] is the value. Ordinals are segment-local.
 * Used for keyword, ip (sortable encoded form) and text `fielddata`-free keyword subfields.
 */
export interface SortedSetDocValues {
  /** the whole columns (a segment on disk decodes them on first access: prefer `docBlocks` via `docValuesReader`) */
  readonly offsets: Uint32Array;
  readonly ords: Uint32Array;
  readonly terms: readonly string[];
  /** true when every doc has exactly one value; absent = unknown */
  readonly singleValued?: boolean;
  /** per-doc ordinals block by block (segments on disk) */
  readonly docBlocks?: DocBlocks<Uint32Array>;
  /**
   * values per ordinal over the whole column (deleted docs included), counted once and cached (segments on
   * disk); read through `ordinalCounts` in index/doc-values-reader.ts, never mutate
   */
  ordCounts?(): Int32Array;
}

/**
 * A points-like index for numeric fields: all (value, doc) pairs sorted by value, then doc.
 * A range query binary-searches the bounds and visits only the matching slice, so cost follows matches.
 */
export interface PointIndex {
  /** the whole columns (a segment on disk decodes them on first access: prefer `blocks` when present) */
  readonly values: Float64Array;
  readonly docs: Uint32Array;
  /** block-level access (segments on disk): binary search over the resident block bounds, decode only the blocks touched */
  readonly blocks?: { readonly values: NumberBlocks; readonly docs: NumberBlocks<Uint32Array> };
}

export interface LeafReader {
  /** stable name of the segment, e.g. "_3"; with the live-docs generation forms the cache key */
  readonly segmentName: string;
  readonly maxDoc: number;
  /** number of live docs */
  readonly numDocs: number;
  /** bitset over maxDoc (bit set = live); null means every doc is live */
  readonly liveDocs: Uint32Array | null;
  /** increments whenever live docs change; readers built on the same segment share the name */
  readonly delGen: number;
  /**
   * identity of the immutable segment core (Lucene's core cache key): per-segment structures that do not
   * depend on deletes (nested block bitsets, join ordinals) are cached on it; absent = cache on the reader
   */
  readonly coreCacheKey?: object;
  isLive(doc: number): boolean;

  /** names of indexed fields (inverted index) present in this segment */
  fieldNames(): string[];
  terms(field: string): TermsDict | null;
  postings(field: string, term: string): Postings | null;
  fieldStats(field: string): FieldStats | null;
  /** Lucene SmallFloat-encoded field lengths (see util/small-float.ts), one byte per doc; null if no norms */
  norms(field: string): Uint8Array | null;

  numericDocValues(field: string): NumericDocValues | null;
  sortedSetDocValues(field: string): SortedSetDocValues | null;
  pointIndex(field: string): PointIndex | null;

  /** stored fields */
  id(doc: number): string;
  routing(doc: number): string | undefined;
  /** raw `_source` bytes (UTF-8 JSON), or null when _source is disabled */
  source(doc: number): Uint8Array | null;
  seqNo(doc: number): number;
  primaryTerm(doc: number): number;
  version(doc: number): number;
}

export interface LeafReaderContext {
  readonly reader: LeafReader;
  /** doc id offset of this leaf inside its DirectoryReader */
  readonly docBase: number;
  /** position of this leaf in DirectoryReader.leaves */
  readonly ord: number;
}

/**
 * A point-in-time view of one shard: a fixed list of segments with their live docs.
 * Immutable; paging (PIT, scroll) and the request cache hold on to it.
 */
export interface DirectoryReader {
  readonly leaves: readonly LeafReaderContext[];
  readonly maxDoc: number;
  readonly numDocs: number;
  /** monotonically increasing per shard; a new value after every refresh that changed anything */
  readonly generation: number;
  /** unique identity of this reader (shard uuid + generation), usable as a cache key */
  readonly cacheKey: string;
  /** mapping version of the index when this reader was opened */
  readonly mappingVersion: number;
  /** reference counting: segment files are deleted only when no reader uses them */
  incRef(): void;
  decRef(): void;
}
