/**
 * Lucene's term length limit: IndexWriter refuses a document with a term whose UTF-8 encoding is longer
 * than 32766 bytes (BYTE_BLOCK_SIZE - 2). Elasticsearch answers 400 illegal_argument_exception with a
 * max_bytes_length_exceeded_exception cause, and nothing is written.
 */
import { EsError, Errors } from '@strata/core-common';
import type { ParsedDocument } from '../mapper/parsed-document.js';

export const MAX_TERM_LENGTH = 32766;
/** a string of at most this many UTF-16 units cannot exceed the limit (3 UTF-8 bytes per unit at most) */
const SAFE_CHARS = Math.floor(MAX_TERM_LENGTH / 3);

/** Throws Lucene's "immense term" error for the first term over the limit; cheap when all terms are short. */
export function checkImmenseTerms(doc: ParsedDocument): void {
  for (const f of doc.fields) {
    // per field, in Lucene's order: the inverted index first, then doc values
    const tokens = f.tokens;
    if (tokens) {
      for (let i = 0; i < tokens.length; i++) {
        const term = tokens[i]!.term;
        if (term.length <= SAFE_CHARS) continue;
        const bytes = Buffer.byteLength(term, 'utf8');
        if (bytes > MAX_TERM_LENGTH) throw immenseTerm(f.name, term, bytes);
      }
    }
    const kv = f.keywordValues;
    if (kv) {
      for (let i = 0; i < kv.length; i++) {
        const v = kv[i]!;
        if (v.length > SAFE_CHARS && Buffer.byteLength(v, 'utf8') > MAX_TERM_LENGTH) throw docValueTooLarge(f.name);
      }
    }
  }
}

/** SortedSetDocValuesWriter: a doc value longer than 32766 bytes */
export function docValueTooLarge(field: string): EsError {
  return Errors.illegalArgument(`DocValuesField "${field}" is too large, must be <= ${MAX_TERM_LENGTH}`);
}

export function immenseTerm(field: string, term: string, bytes: number): EsError {
  // Java prints the prefix as signed bytes: '[97, 98, -61, -87, ...]...'
  const prefix = Array.from(Buffer.from(term, 'utf8').subarray(0, 30), (b) => (b > 127 ? b - 256 : b));
  const original = `bytes can be at most ${MAX_TERM_LENGTH} in length; got ${bytes}`;
  const reason = `Document contains at least one immense term in field="${field}" (whose UTF8 encoding is longer than the max length ${MAX_TERM_LENGTH}), all of which were skipped.  Please correct the analyzer to not produce such terms.  The prefix of the first immense term is: '[${prefix.join(', ')}]...', original message: ${original}`;
  // both are plain Java exceptions in ES: the IllegalArgumentException is its own root cause
  const root = Errors.illegalArgument(reason);
  return new EsError(root.type, root.status, reason, {
    cause: new EsError('max_bytes_length_exceeded_exception', 400, original),
    rootCauses: [root],
  });
}
