/**
 * exists: docs that have a value for the field. Uses, in order: `_field_names` postings (with the field's
 * postings where norms were dropped, see below), doc values (presence), norms (text fields), points, or the
 * union of the field's postings.
 */
import type { LeafReader } from '../index/leaf-reader.js';
import { pointAccess } from '../index/point-access.js';
import { numericReader, ordinalsReader, type DocValuesReader } from '../index/doc-values-reader.js';
import { DocIdSetBuilder, type DocIdSetIterator, SortedArrayIterator } from './doc-id-set.js';
import type { IndexSearcher } from './index-searcher.js';
import { ConstantScoreWeight, Query, type Weight } from './query.js';

export function existsIterator(reader: LeafReader, field: string): DocIdSetIterator | null {
  const fn = reader.postings('_field_names', field);
  const maxDoc = reader.maxDoc;
  if (fn && fn.docFreq > 0) {
    // fewer docs in `_field_names` than have terms of the field: a segment whose norms of the field were
    // dropped (disabled in the mapping, then buffered or merged with docs indexed without them) holds docs
    // indexed with norms, which have no `_field_names` term: those are found through the field's postings
    const st = reader.fieldStats(field);
    const dict = st && st.docCount > fn.docFreq ? reader.terms(field) : null;
    if (!dict) return new SortedArrayIterator(fn.docs);
    const b = new DocIdSetBuilder(maxDoc);
    b.addAll(fn.docs);
    for (let o = 0; o < dict.size; o++) b.addAll(dict.postings(o).docs);
    return b.build();
  }
  // presence in doc values, read block by block (segments on disk)
  const presence = (rd: DocValuesReader<Float64Array | Uint32Array>): DocIdSetIterator | null => {
    const b = new DocIdSetBuilder(maxDoc);
    let any = false;
    for (let d = 0; d < maxDoc; d++) {
      if (rd.advance(d) > 0) {
        b.add(d);
        any = true;
      }
    }
    return any ? b.build() : null;
  };
  const ndv = reader.numericDocValues(field);
  if (ndv) return presence(numericReader(ndv));
  const sdv = reader.sortedSetDocValues(field);
  if (sdv) return presence(ordinalsReader(sdv));
  const norms = reader.norms(field);
  if (norms) {
    const b = new DocIdSetBuilder(maxDoc);
    let any = false;
    for (let d = 0; d < maxDoc; d++) {
      if (norms[d] !== 0) {
        b.add(d);
        any = true;
      }
    }
    if (any) return b.build();
  }
  const pi = reader.pointIndex(field);
  const pa = pi ? pointAccess(pi) : null;
  if (pa && pa.size > 0) {
    const b = new DocIdSetBuilder(maxDoc);
    for (const docs of pa.docChunks(0, pa.size)) b.addAll(docs);
    return b.build();
  }
  const dict = reader.terms(field);
  if (dict && dict.size > 0) {
    const b = new DocIdSetBuilder(maxDoc);
    for (let o = 0; o < dict.size; o++) b.addAll(dict.postings(o).docs);
    return b.build();
  }
  return null;
}

export class FieldExistsQuery extends Query {
  /** fields: the concrete leaf fields (an object path expands to several) */
  constructor(readonly fields: readonly string[]) {
    super();
  }
  createWeight(_s: IndexSearcher, _n: boolean, boost: number): Weight {
    const fields = this.fields;
    return new ConstantScoreWeight(this, boost, (ctx) => {
      const its = fields.map((f) => existsIterator(ctx.reader, f)).filter((x): x is DocIdSetIterator => x !== null);
      if (its.length === 0) return null;
      if (its.length === 1) return its[0]!;
      const b = new DocIdSetBuilder(ctx.reader.maxDoc);
      for (const it of its) for (let d = it.nextDoc(); d !== 2147483647; d = it.nextDoc()) b.add(d);
      return b.build();
    });
  }
  toString(): string {
    return `FieldExistsQuery [field=${this.fields.join(',')}]`;
  }
}
