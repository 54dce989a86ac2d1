/**
 * Parsed documents in a packed, structured-clone-cheap form: what a parse thread hands back to the event loop
 * for a chunk of a bulk's documents (see mapper/parse-task.ts). One table of the chunk's distinct strings (terms,
 * keyword values, field names), one Int32 stream of the documents' fields, one Float64 stream of their numeric and
 * point values, one byte array of their sources — a handful of arrays instead of an object per field and per token.
 *
 * The indexing buffer reads a packed document directly (`SegmentBuilder.add` of a ParsedDocument with `packed`):
 * it resolves each distinct string of the chunk once per field into its own term id instead of hashing every
 * token, and fills the same columns `add` fills from a ParsedDocument — the same buffer either way.
 *
 * Not packed: `_id` fields (the buffer indexes ids from its stored ids) — the event loop knows the id; `_routing`
 * (added by the event loop, which knows the routing).
 */
import type { ParsedDocument, ParsedField } from '../mapper/parsed-document.js';
import { distinctId, FloatColumn, IntColumn } from './growable-columns.js';

/** a chunk of packed documents (plain data: typed arrays and one string array) */
export interface PackedChunk {
  /** the chunk's distinct strings */
  strings: string[];
  /** the documents' fields (layout: see `packDocument`) */
  ints: Int32Array;
  /** numeric doc values and point values */
  nums: Float64Array;
  /** the documents' sources, one after the other */
  src: Uint8Array;
  /** per document: its offset in `ints`, or -1 when it was not packed (it is parsed on the event loop) */
  docAt: Int32Array;
}

/** a packed document of a chunk (`ParsedDocument.packed`) */
export interface PackedRef {
  chunk: PackedChunk;
  /** offset of the document in `chunk.ints` (after its source's start and length and its first value in `nums`) */
  at: number;
}

export const F_TOKENS = 1;
export const F_NORMS = 2;
export const F_NUMERIC = 4;
export const F_POINTS = 8;
export const F_KEYWORDS = 16;
/** indexOptions in bits 5–6: 0 docs, 1 freqs, 2 positions */
export const F_OPTIONS_SHIFT = 5;

export const INDEX_OPTIONS = ['docs', 'freqs', 'positions'] as const;

/** packs parsed documents into one chunk (null: the document is not packed) */
export class ChunkPacker {
  private readonly ids = new Map<string, number>();
  private readonly strings: string[] = [];
  private readonly ints = new IntColumn(4096);
  private readonly nums = new FloatColumn(1024);
  private readonly sources: Uint8Array[] = [];
  private srcBytes = 0;
  private readonly docAt: number[] = [];

  private str(s: string): number {
    return distinctId(this.ids, this.strings, s);
  }

  skip(): void {
    this.docAt.push(-1);
  }

  /**
   * layout: srcStart, srcLength (-1: no source), first value in `nums`, then (at `docAt`) nNested,
   * (nFields, fields…) per nested doc, nFields, fields…; a field: name, flags, [nTokens, (term, position)…],
   * [nNumeric] [nPoints] (their values follow each other in `nums`), [nKeywords, keyword…]
   */
  add(doc: ParsedDocument): void {
    const ints = this.ints;
    const src = doc.source;
    ints.push(this.srcBytes);
    if (src) {
      this.sources.push(src);
      ints.push(src.length);
      this.srcBytes += src.length;
    } else ints.push(-1);
    ints.push(this.nums.length);
    this.docAt.push(ints.length);
    const nested = doc.nested ?? [];
    ints.push(nested.length);
    for (const n of nested) this.fields(n.fields);
    this.fields(doc.fields);
  }

  private fields(fields: readonly ParsedField[]): void {
    const ints = this.ints;
    const countAt = ints.length;
    ints.push(0);
    let count = 0;
    for (const f of fields) {
      if (f.name === '_id' || f.name === '_routing') continue;
      count++;
      const tk = f.tokens;
      const nv = f.numericValues;
      const pv = f.pointValues;
      const kv = f.keywordValues;
      let flags = 0;
      if (tk) flags |= F_TOKENS | (INDEX_OPTIONS.indexOf(f.indexOptions ?? 'docs') << F_OPTIONS_SHIFT);
      if (f.norms) flags |= F_NORMS;
      if (nv && nv.length) flags |= F_NUMERIC;
      if (pv && pv.length) flags |= F_POINTS;
      if (kv && kv.length) flags |= F_KEYWORDS;
      ints.push(this.str(f.name));
      ints.push(flags);
      if (tk) {
        ints.push(tk.length);
        for (let i = 0; i < tk.length; i++) {
          ints.push(this.str(tk[i].term));
          ints.push(tk[i].position);
        }
      }
      for (const vals of [nv, pv]) {
        if (!vals || !vals.length) continue;
        ints.push(vals.length);
        for (let i = 0; i < vals.length; i++) this.nums.push(vals[i]);
      }
      if (kv && kv.length) {
        ints.push(kv.length);
        for (let i = 0; i < kv.length; i++) ints.push(this.str(kv[i]));
      }
    }
    ints.data[countAt] = count;
  }

  finish(): PackedChunk {
    const src = new Uint8Array(this.srcBytes);
    let off = 0;
    for (const s of this.sources) {
      src.set(s, off);
      off += s.length;
    }
    return {
      strings: this.strings,
      ints: this.ints.data.slice(0, this.ints.length),
      nums: this.nums.data.slice(0, this.nums.length),
      src,
      docAt: Int32Array.from(this.docAt),
    };
  }
}

/**
 * The ParsedDocument of a chunk's `i`-th document for the shard (null when it was not packed): no fields of its
 * own (the buffer reads them from the chunk), its source a view of the chunk's bytes.
 */
export function packedDocument(chunk: PackedChunk, i: number, id: string, routing: string | undefined): ParsedDocument | null {
  const at = chunk.docAt[i];
  if (at < 0) return null;
  const start = chunk.ints[at - 3];
  const len = chunk.ints[at - 2];
  const source = len < 0 ? null : Buffer.from(chunk.src.buffer, chunk.src.byteOffset + start, len);
  const fields: ParsedField[] = routing === undefined ? [] : [{ name: '_routing', tokens: [{ term: routing, position: 0 }], indexOptions: 'docs' }];
  return { id, routing, source, fields, packed: { chunk, at } };
}

/** the nested documents' fields, then the root's, decoded back into ParsedFields (tests; the slow reading) */
export function unpackFields(ref: PackedRef): { nested: ParsedField[][]; root: ParsedField[] } {
  const { chunk } = ref;
  const ints = chunk.ints;
  let p = ref.at;
  let q = ints[p - 1];
  const readFields = (): ParsedField[] => {
    const out: ParsedField[] = [];
    const n = ints[p++];
    for (let k = 0; k < n; k++) {
      const name = chunk.strings[ints[p++]];
      const flags = ints[p++];
      const f: ParsedField = { name };
      if (flags & F_TOKENS) {
        const nt = ints[p++];
        f.tokens = [];
        for (let i = 0; i < nt; i++) f.tokens.push({ term: chunk.strings[ints[p++]], position: ints[p++] });
        f.indexOptions = INDEX_OPTIONS[(flags >> F_OPTIONS_SHIFT) & 3];
      }
      if (flags & F_NORMS) f.norms = true;
      if (flags & F_NUMERIC) {
        const nn = ints[p++];
        f.numericValues = Array.from(chunk.nums.subarray(q, q + nn));
        q += nn;
      }
      if (flags & F_POINTS) {
        const nn = ints[p++];
        f.pointValues = Array.from(chunk.nums.subarray(q, q + nn));
        q += nn;
      }
      if (flags & F_KEYWORDS) {
        const nk = ints[p++];
        f.keywordValues = [];
        for (let i = 0; i < nk; i++) f.keywordValues.push(chunk.strings[ints[p++]]);
      }
      out.push(f);
    }
    return out;
  };
  const nested: ParsedField[][] = [];
  const nn = ints[p++];
  for (let i = 0; i < nn; i++) nested.push(readFields());
  return { nested, root: readFields() };
}
