import type { PackedRef } from '../index/packed-documents.js';

/**
 * CONTRACT (produced by the document parser of the mapper; consumed by the storage engine's IndexWriter).
 * Plain data, structured-clone safe.
 */

export interface IndexedToken {
  term: string;
  position: number;
}

/** One field of a parsed document, as the index writer needs it. Several entries may share a name (arrays). */
export interface ParsedField {
  /** full dotted path, e.g. `user.name` or `message.keyword` */
  name: string;
  /** terms for the inverted index (text: analysed tokens with positions; keyword/ip/boolean/_id: one term per value) */
  tokens?: IndexedToken[];
  /** what the inverted index records for this field */
  indexOptions?: 'docs' | 'freqs' | 'positions';
  /** record a norm (field length = number of tokens over all values) — text fields */
  norms?: boolean;
  /** numeric doc values (see NumericDocValues for encodings) */
  numericValues?: number[];
  /** numeric points (for range/term queries on numeric, date, boolean fields) */
  pointValues?: number[];
  /** keyword doc values (keyword, ip-encoded, ...) */
  keywordValues?: string[];
}

/**
 * One object of a `nested` field, indexed as its own hidden document (Lucene block join): it carries the
 * `_nested_path` term and the root's `_id`, has no `_source`, and is stored right before its parent.
 */
export interface NestedDocument {
  /** full path of the nested field, e.g. `comments` or `comments.replies` */
  path: string;
  fields: ParsedField[];
}

export interface ParsedDocument {
  id: string;
  routing?: string;
  /** UTF-8 JSON of _source as it will be stored (after source filtering rules of the mapping); null if _source disabled */
  source: Uint8Array | null;
  fields: ParsedField[];
  /**
   * hidden nested documents of this document in block order: every nested document comes after its own
   * nested children and before its parent (post-order), the root document itself follows the last one
   */
  nested?: NestedDocument[];
  /**
   * the fields (and nested documents) packed by a parse thread: the indexing buffer reads them from the chunk;
   * `fields` then holds only what the event loop adds (`_routing`), `nested` is absent
   */
  packed?: PackedRef;
}

/** Result of parsing: the document and, when dynamic mapping added fields, the mapping delta to merge first. */
export interface ParseResult {
  doc: ParsedDocument;
  /** a `{properties:{...}}` mapping fragment to merge into the index mapping before the doc is indexed */
  dynamicMappingUpdate?: Record<string, unknown>;
}
