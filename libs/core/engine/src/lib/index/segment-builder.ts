/**
 * The indexing buffer: accumulates ParsedDocuments into flat, growable typed-array streams
 * (term id, doc, position per token; (doc, value) pairs per doc-values field), then freezes them into an
 * immutable SegmentData with counting sorts — no object per posting, no array per term.
 */
import type { ParsedDocument, ParsedField } from '../mapper/parsed-document.js';
import { encodeNorm } from '../util/small-float.js';
import type { InvertedFieldData, SegmentData } from './segment.js';
import { newLiveDocs, clearBit } from './live-docs.js';
import { F_KEYWORDS, F_NORMS, F_NUMERIC, F_OPTIONS_SHIFT, F_POINTS, F_TOKENS, INDEX_OPTIONS, STRING_TABLE_MAX_STRINGS, type PackedChunk, type PackedRef } from './packed-documents.js';
import { FloatColumn, IntColumn, StringIds } from './growable-columns.js';

const POSITION_INCREMENT_GAP = 100;
type IndexOptions = 'docs' | 'freqs' | 'positions';

class InvertedFieldBuffer {
  /** the field's distinct terms (`terms`: term id → term) */
  readonly termIds = new StringIds();
  readonly terms: string[] = this.termIds.strings;
  readonly tokTerm = new IntColumn();
  readonly tokDoc = new IntColumn();
  readonly tokPos: IntColumn | null;
  /** field length per doc (token count, overlaps discounted) when norms are on */
  lengths: IntColumn | null = null;
  /**
   * a doc indexed the field without norms (its mapping had them disabled): the segment has none for it, as
   * Lucene omits a field's norms in a segment once one doc omits them
   */
  omitNorms = false;
  /** last doc that added tokens, and its highest position (multi-valued position gaps) */
  lastDoc = -1;
  lastPos = -1;
  constructor(public options: IndexOptions) {
    this.tokPos = options === 'positions' ? new IntColumn() : null;
  }
}

class NumericColumn {
  readonly docs = new IntColumn();
  readonly values = new FloatColumn();
}

class OrdinalColumn {
  /** the column's distinct values (`terms`: term id → value) */
  termIds = new StringIds();
  terms: string[] = this.termIds.strings;
  readonly docs = new IntColumn();
  readonly ids = new IntColumn();
  /**
   * keyword fields whose doc values equal their indexed terms share the inverted field's term ids
   * (one hash lookup and one sort instead of two); null once a doc breaks the equality
   */
  shared: InvertedFieldBuffer | null = null;
  /** was shared once: its dictionary may hold terms no doc value uses (dropped at build) */
  wasShared = false;
}

/** a keyword column stops sharing the inverted field's term ids: it gets a dictionary of its own */
function unshare(c: OrdinalColumn): void {
  const sh = c.shared!;
  c.termIds = sh.termIds.clone();
  c.terms = c.termIds.strings;
  c.shared = null;
  c.wasShared = true;
}

function sameTerms(tokens: ReadonlyArray<{ term: string }>, values: readonly string[]): boolean {
  if (tokens.length !== values.length) return false;
  for (let i = 0; i < values.length; i++) if (tokens[i].term !== values[i]) return false;
  return true;
}

export interface StoredMeta {
  seqNo: number;
  primaryTerm: number;
  version: number;
}

export class SegmentBuilder {
  private readonly inverted = new Map<string, InvertedFieldBuffer>();
  private readonly numeric = new Map<string, NumericColumn>();
  private readonly points = new Map<string, NumericColumn>();
  private readonly sorted = new Map<string, OrdinalColumn>();
  private readonly ids: string[] = [];
  private routing: Array<string | null> | null = null;
  /** `_ignored` values of buffered docs (realtime get); segments answer from their doc values */
  private ignored: Map<number, readonly string[]> | null = null;
  private readonly sources: Array<Uint8Array | null> = [];
  private sourceBytesTotal = 0;
  private readonly seqNos = new FloatColumn();
  private readonly terms = new FloatColumn();
  private readonly versions = new FloatColumn();
  private deleted: number[] = [];
  private approxBytes = 0;
  /** root doc → first doc of its block, for roots with nested documents */
  private blockFirst: Map<number, number> | null = null;
  /**
   * per parse thread (`PackedChunk.thread`) of the packed chunks read, most recently used last: the string table
   * (`PackedChunk.strings`) of its last chunk, and per field the table's strings' term ids in this buffer (id + 1;
   * 0: not looked up yet), so each string of a table is hashed once per field and buffer instead of once per token
   * (or per chunk)
   */
  private packedTables = new Map<number, PackedTermIds>();
  /** the entry of the packed chunk last read */
  private packedChunk: PackedChunk | null = null;
  private packed: PackedTermIds | null = null;
  /** bytes of the term id arrays in `packedTables` (at most `packedTermIdsMaxBytes`) */
  private packedBytes = 0;
  /** times those arrays were dropped for the budget */
  packedTermIdResets = 0;

  /** `packedTermIdsMaxBytes`: the budget of the term id arrays of packed chunks (smaller in tests) */
  constructor(private readonly packedTermIdsMaxBytes = PACKED_TERM_IDS_MAX_BYTES) {}

  /** bytes held in the term id arrays of packed chunks' string tables */
  get packedTermIdBytes(): number {
    return this.packedBytes;
  }

  get numDocs(): number {
    return this.ids.length;
  }
  get ramBytesUsed(): number {
    return this.approxBytes;
  }
  get numDeleted(): number {
    return this.deleted.length;
  }

  /**
   * adds a document with its hidden nested documents (stored first, as one block); returns the buffer-local
   * doc id of the root document
   */
  add(doc: ParsedDocument, meta: StoredMeta): number {
    if (doc.packed) return this.addPacked(doc, doc.packed, meta);
    const nested = doc.nested;
    if (nested && nested.length > 0) {
      const first = this.ids.length;
      for (const n of nested) this.addOne(doc.id, doc.routing, null, n.fields, meta);
      const root = this.addOne(doc.id, doc.routing, doc.source, doc.fields, meta);
      (this.blockFirst ??= new Map()).set(root, first);
      return root;
    }
    return this.addOne(doc.id, doc.routing, doc.source, doc.fields, meta);
  }

  /** first buffer doc of the block a root document closes (itself when it has no nested documents) */
  blockStart(root: number): number {
    return this.blockFirst?.get(root) ?? root;
  }

  /** a new doc's stored fields; returns the doc */
  private newDoc(id: string, routing: string | undefined, source: Uint8Array | null, meta: StoredMeta): number {
    const d = this.ids.length;
    this.ids.push(id);
    if (routing !== undefined && routing !== null) {
      if (!this.routing) this.routing = new Array<string | null>(d).fill(null);
      this.routing.push(routing);
    } else if (this.routing) this.routing.push(null);
    this.sources.push(source);
    if (source) this.sourceBytesTotal += source.length;
    this.seqNos.push(meta.seqNo);
    this.terms.push(meta.primaryTerm);
    this.versions.push(meta.version);
    return d;
  }

  private addOne(id: string, routing: string | undefined, source: Uint8Array | null, fields: readonly ParsedField[], meta: StoredMeta): number {
    const d = this.newDoc(id, routing, source, meta);
    let bytes = 96 + (source ? source.length : 0) + id.length * 2;
    bytes += this.addFields(d, fields);
    this.approxBytes += bytes + 16;
    return d;
  }

  private addFields(d: number, fields: readonly ParsedField[]): number {
    let bytes = 0;
    for (let fi = 0; fi < fields.length; fi++) {
      const f = fields[fi];
      // `_id` is indexed from the stored ids when the segment is built (no per-doc hashing)
      if (f.tokens && f.name !== '_id') bytes += this.invert(d, f.name, f.tokens, f.indexOptions ?? 'docs', !!f.norms);
      const nv = f.numericValues;
      if (nv && nv.length) bytes += this.addValues(this.numeric, f.name, d, nv, 0, nv.length);
      const pv = f.pointValues;
      if (pv && pv.length) bytes += this.addValues(this.points, f.name, d, pv, 0, pv.length);
      const kv = f.keywordValues;
      if (kv && kv.length) {
        if (f.name === '_ignored') (this.ignored ??= new Map()).set(d, kv);
        let c = this.sorted.get(f.name);
        const tk = f.tokens;
        const fb = tk && f.name !== '_id' ? this.inverted.get(f.name) : undefined;
        const canShare = fb !== undefined && tk !== undefined && sameTerms(tk, kv);
        if (!c) {
          c = new OrdinalColumn();
          if (canShare && fb.tokTerm.length === kv.length) c.shared = fb; // first doc of the field
          this.sorted.set(f.name, c);
        }
        if (c.shared && (!canShare || c.shared !== fb)) unshare(c);
        if (c.shared) {
          const col = c.shared.tokTerm;
          const base = col.length - kv.length;
          for (let i = 0; i < kv.length; i++) {
            c.docs.push(d);
            c.ids.push(col.data[base + i]);
          }
        } else {
          for (let i = 0; i < kv.length; i++) {
            const v = kv[i];
            const n = c.terms.length;
            const id = termIdOf(c, v);
            if (c.terms.length > n) bytes += 48 + v.length * 2;
            c.docs.push(d);
            c.ids.push(id);
          }
        }
        bytes += kv.length * 8;
      }
    }
    return bytes;
  }

  private addValues(m: Map<string, NumericColumn>, name: string, d: number, vals: ArrayLike<number>, from: number, to: number): number {
    let c = m.get(name);
    if (!c) m.set(name, (c = new NumericColumn()));
    for (let i = from; i < to; i++) {
      c.docs.push(d);
      c.values.push(vals[i]);
    }
    return (to - from) * 12;
  }

  /** the same as `add` for a document packed by a parse thread (same columns, same term ids) */
  private addPacked(doc: ParsedDocument, ref: PackedRef, meta: StoredMeta): number {
    const chunk = ref.chunk;
    if (this.packedChunk !== chunk) {
      this.packedChunk = chunk;
      const tables = this.packedTables;
      let t = tables.get(chunk.thread);
      tables.delete(chunk.thread);
      // another table of the thread (a new generation): its ids are other strings
      if (!t || t.strings !== chunk.strings) {
        if (t) this.packedBytes -= termIdsBytes(t);
        t = { strings: chunk.strings, inv: new Map(), ord: new Map() };
      }
      tables.set(chunk.thread, t);
      if (tables.size > MAX_PACKED_TABLES) {
        const oldest = tables.keys().next().value as number;
        this.packedBytes -= termIdsBytes(tables.get(oldest)!);
        tables.delete(oldest);
      }
      this.packed = t;
    }
    const ints = chunk.ints;
    const cur = { p: ref.at, q: ints[ref.at - 1] };
    const nNested = ints[cur.p++];
    const first = this.ids.length;
    for (let i = 0; i < nNested; i++) {
      const d = this.newDoc(doc.id, doc.routing, null, meta);
      this.approxBytes += 96 + doc.id.length * 2 + this.addPackedFields(d, chunk, cur) + 16;
    }
    const source = doc.source;
    const d = this.newDoc(doc.id, doc.routing, source, meta);
    // the fields the event loop added (`_routing`), then the packed ones
    let bytes = 96 + (source ? source.length : 0) + doc.id.length * 2 + this.addFields(d, doc.fields);
    bytes += this.addPackedFields(d, chunk, cur);
    this.approxBytes += bytes + 16;
    if (nNested > 0) (this.blockFirst ??= new Map()).set(d, first);
    return d;
  }

  private addPackedFields(d: number, chunk: PackedChunk, cur: { p: number; q: number }): number {
    const ints = chunk.ints;
    const strings = chunk.strings;
    let p = cur.p;
    let bytes = 0;
    const n = ints[p++];
    for (let k = 0; k < n; k++) {
      const name = strings[ints[p++]];
      const flags = ints[p++];
      let tokAt = -1;
      let nTok = 0;
      if (flags & F_TOKENS) {
        nTok = ints[p++];
        tokAt = p;
        p += nTok * 2;
        bytes += this.invertPacked(d, name, chunk, tokAt, nTok, INDEX_OPTIONS[(flags >> F_OPTIONS_SHIFT) & 3], (flags & F_NORMS) !== 0);
      }
      if (flags & F_NUMERIC) {
        const nn = ints[p++];
        bytes += this.addValues(this.numeric, name, d, chunk.nums, cur.q, cur.q + nn);
        cur.q += nn;
      }
      if (flags & F_POINTS) {
        const nn = ints[p++];
        bytes += this.addValues(this.points, name, d, chunk.nums, cur.q, cur.q + nn);
        cur.q += nn;
      }
      if (flags & F_KEYWORDS) {
        const nk = ints[p++];
        const kvAt = p;
        p += nk;
        if (name === '_ignored') {
          const kv: string[] = [];
          for (let i = 0; i < nk; i++) kv.push(strings[ints[kvAt + i]]);
          (this.ignored ??= new Map()).set(d, kv);
        }
        let c = this.sorted.get(name);
        const fb = tokAt >= 0 ? this.inverted.get(name) : undefined;
        // the same strings of one chunk have the same index: equal terms ⇔ equal indexes
        let canShare = fb !== undefined && nTok === nk;
        for (let i = 0; canShare && i < nk; i++) if (ints[tokAt + 2 * i] !== ints[kvAt + i]) canShare = false;
        if (!c) {
          c = new OrdinalColumn();
          if (canShare && fb!.tokTerm.length === nk) c.shared = fb!; // first doc of the field
          this.sorted.set(name, c);
        }
        if (c.shared && (!canShare || c.shared !== fb)) unshare(c);
        if (c.shared) {
          const col = c.shared.tokTerm;
          const base = col.length - nk;
          for (let i = 0; i < nk; i++) {
            c.docs.push(d);
            c.ids.push(col.data[base + i]);
          }
        } else {
          const cache = this.packedTermIds(this.packed!.ord, name, strings.length);
          for (let i = 0; i < nk; i++) {
            const si = ints[kvAt + i];
            let id = cache[si] - 1;
            if (id < 0) {
              const v = strings[si];
              const n = c.terms.length;
              id = termIdOf(c, v);
              if (c.terms.length > n) bytes += 48 + v.length * 2;
              cache[si] = id + 1;
            }
            c.docs.push(d);
            c.ids.push(id);
          }
        }
        bytes += nk * 8;
      }
    }
    cur.p = p;
    return bytes;
  }

  /** the id, version, seq_no and primary term a buffered doc was written with */
  docId(doc: number): string {
    return this.ids[doc]!;
  }
  docVersion(doc: number): { version: number; seqNo: number; primaryTerm: number } {
    return { version: this.versions.data[doc]!, seqNo: this.seqNos.data[doc]!, primaryTerm: this.terms.data[doc]! };
  }

  /** stored fields of a buffered doc (realtime get) */
  storedSource(doc: number): Uint8Array | null {
    return this.sources[doc] ?? null;
  }
  storedRouting(doc: number): string | undefined {
    return this.routing?.[doc] ?? undefined;
  }
  /** the `_ignored` field names of a buffered doc (realtime get) */
  storedIgnored(doc: number): readonly string[] | undefined {
    return this.ignored?.get(doc);
  }

  /** marks a buffered doc deleted (applied when the segment is built) */
  delete(doc: number): void {
    this.deleted.push(doc);
  }

  /** the buffer of an inverted field (made on its first token), with a norms column when the field has norms */
  private fieldBuffer(name: string, options: IndexOptions, norms: boolean): InvertedFieldBuffer {
    let fb = this.inverted.get(name);
    if (!fb) {
      fb = new InvertedFieldBuffer(options);
      this.inverted.set(name, fb);
    }
    if (!norms) {
      fb.omitNorms = true;
      fb.lengths = null;
    } else if (!fb.lengths && !fb.omitNorms) fb.lengths = new IntColumn();
    return fb;
  }

  /** after a doc's tokens of a field: its last position (the next value's gap) and its length for the norms */
  private endOfField(fb: InvertedFieldBuffer, d: number, maxPos: number, length: number): void {
    fb.lastDoc = d;
    fb.lastPos = maxPos;
    const L = fb.lengths;
    if (L) {
      while (L.length <= d) L.push(-1);
      L.data[d] = (L.data[d] < 0 ? 0 : L.data[d]) + length;
    }
  }

  private invert(
    d: number,
    name: string,
    tokens: ReadonlyArray<{ term: string; position: number }>,
    options: IndexOptions,
    norms: boolean,
  ): number {
    const fb = this.fieldBuffer(name, options, norms);
    const n = tokens.length;
    let posOffset = 0;
    const last = fb.lastDoc === d ? fb.lastPos : undefined;
    if (last !== undefined && n > 0 && tokens[0].position <= last) {
      posOffset = last + POSITION_INCREMENT_GAP + 1 - tokens[0].position;
    }
    let bytes = n * 12;
    let length = 0;
    let prevPos = -1;
    let maxPos = last ?? -1;
    const tokTerm = fb.tokTerm;
    const tokDoc = fb.tokDoc;
    const tokPos = fb.tokPos;
    for (let i = 0; i < n; i++) {
      const t = tokens[i];
      const pos = t.position + posOffset;
      if (pos !== prevPos) length++;
      prevPos = pos;
      if (pos > maxPos) maxPos = pos;
      const nt = fb.terms.length;
      const id = termIdOf(fb, t.term);
      if (fb.terms.length > nt) bytes += 48 + t.term.length * 2;
      tokTerm.push(id);
      tokDoc.push(d);
      if (tokPos) tokPos.push(pos);
    }
    this.endOfField(fb, d, maxPos, length);
    return bytes;
  }

  /** the field's term ids of a table with `n` strings (grown when the table has grown since) */
  private packedTermIds(m: Map<string, Int32Array>, field: string, n: number): Int32Array {
    const a = m.get(field);
    if (a && a.length >= n) return a;
    const len = Math.max(n, a ? Math.min(a.length * 2, STRING_TABLE_MAX_STRINGS) : 0);
    if (this.packedBytes + 4 * (len - (a ? a.length : 0)) > this.packedTermIdsMaxBytes) {
      // over the budget: every table's arrays go (the caller's map included), this one starts afresh
      for (const t of this.packedTables.values()) {
        t.inv.clear();
        t.ord.clear();
      }
      this.packedBytes = 0;
      this.packedTermIdResets++;
      const g = new Int32Array(n);
      m.set(field, g);
      this.packedBytes += 4 * n;
      return g;
    }
    const g = new Int32Array(len);
    if (a) g.set(a);
    m.set(field, g);
    this.packedBytes += 4 * (len - (a ? a.length : 0));
    return g;
  }

  /** `invert` of a packed field's tokens (`nTok` (term, position) pairs at `at` in the chunk's ints) */
  private invertPacked(d: number, name: string, chunk: PackedChunk, at: number, n: number, options: IndexOptions, norms: boolean): number {
    const fb = this.fieldBuffer(name, options, norms);
    const ints = chunk.ints;
    let posOffset = 0;
    const last = fb.lastDoc === d ? fb.lastPos : undefined;
    if (last !== undefined && n > 0 && ints[at + 1] <= last) {
      posOffset = last + POSITION_INCREMENT_GAP + 1 - ints[at + 1];
    }
    let bytes = n * 12;
    let length = 0;
    let prevPos = -1;
    let maxPos = last ?? -1;
    const cache = this.packedTermIds(this.packed!.inv, name, chunk.strings.length);
    // the columns are written in place (room made once for the field's tokens)
    const base = fb.tokTerm.length;
    const tokTerm = fb.tokTerm.reserve(n);
    const tokDoc = fb.tokDoc.reserve(n);
    const tokPos = fb.tokPos ? fb.tokPos.reserve(n) : null;
    for (let i = 0; i < n; i++) {
      const si = ints[at + 2 * i];
      const pos = ints[at + 2 * i + 1] + posOffset;
      if (pos !== prevPos) length++;
      prevPos = pos;
      if (pos > maxPos) maxPos = pos;
      let id = cache[si] - 1;
      if (id < 0) {
        const term = chunk.strings[si];
        const nt = fb.terms.length;
        id = termIdOf(fb, term);
        if (fb.terms.length > nt) bytes += 48 + term.length * 2;
        cache[si] = id + 1;
      }
      tokTerm[base + i] = id;
      tokDoc[base + i] = d;
      if (tokPos) tokPos[base + i] = pos;
    }
    fb.tokTerm.length = base + n;
    fb.tokDoc.length = base + n;
    if (fb.tokPos) fb.tokPos.length = base + n;
    this.endOfField(fb, d, maxPos, length);
    return bytes;
  }

  /** freezes the buffer into an immutable segment; returns the data and its initial live docs */
  build(name: string): { data: SegmentData; liveDocs: Uint32Array | null } {
    return { data: buildSegmentData(this.snapshot(false), name), liveDocs: this.liveDocs() };
  }

  /**
   * The buffer's contents as plain data (typed arrays, string arrays): what `buildSegmentData` freezes into a
   * segment. `detached`: every array is a copy of its own (nothing shared with the buffer, no spare capacity,
   * no view of a larger buffer), to hand to a worker thread by structured clone while the buffer stays
   * readable (realtime gets) and deletable; else the arrays are views of the buffer's columns.
   */
  snapshot(detached: boolean): BufferSnapshot {
    const maxDoc = this.ids.length;
    const cut = <T extends Int32Array | Float64Array>(a: T, n: number): T => (detached ? (a.slice(0, n) as T) : (a.subarray(0, n) as T));
    const inverted: BufferSnapshot['inverted'] = [];
    for (const [field, fb] of this.inverted) {
      inverted.push({
        field,
        options: fb.options,
        terms: detached ? fb.terms.slice() : fb.terms,
        termIds: detached ? null : fb.termIds,
        tokTerm: cut(fb.tokTerm.data, fb.tokTerm.length),
        tokDoc: cut(fb.tokDoc.data, fb.tokDoc.length),
        tokPos: fb.tokPos ? cut(fb.tokPos.data, fb.tokPos.length) : null,
        lengths: fb.lengths ? cut(fb.lengths.data, fb.lengths.length) : null,
      });
    }
    const column = (m: Map<string, NumericColumn>): BufferSnapshot['numeric'] =>
      [...m].map(([field, c]) => ({ field, docs: cut(c.docs.data, c.docs.length), values: cut(c.values.data, c.values.length) }));
    const sorted: BufferSnapshot['sorted'] = [];
    for (const [field, c] of this.sorted) {
      sorted.push({
        field,
        shared: c.shared !== null,
        wasShared: c.wasShared,
        terms: c.shared ? [] : detached ? c.terms.slice() : c.terms,
        termIds: detached || c.shared ? null : c.termIds,
        docs: cut(c.docs.data, c.docs.length),
        ids: cut(c.ids.data, c.ids.length),
      });
    }
    const sourceBytes = new Uint8Array(this.sourceBytesTotal);
    const sourceStarts = new Uint32Array(maxDoc + 1);
    let sourceMissing: Uint8Array | null = null;
    let off = 0;
    for (let d = 0; d < maxDoc; d++) {
      sourceStarts[d] = off;
      const s = this.sources[d];
      if (s) {
        sourceBytes.set(s, off);
        off += s.length;
      } else {
        if (!sourceMissing) sourceMissing = new Uint8Array(maxDoc);
        sourceMissing[d] = 1;
      }
    }
    sourceStarts[maxDoc] = off;
    return {
      maxDoc,
      inverted,
      numeric: column(this.numeric),
      points: column(this.points),
      sorted,
      ids: detached ? this.ids.slice() : this.ids,
      routing: this.routing && detached ? this.routing.slice() : this.routing,
      sourceBytes,
      sourceStarts,
      sourceMissing,
      seqNos: this.seqNos.data.slice(0, maxDoc),
      primaryTerms: this.terms.data.slice(0, maxDoc),
      versions: this.versions.data.slice(0, maxDoc),
    };
  }

  /** the live docs of a segment built from this buffer (null: every doc live); deletes made so far count */
  liveDocs(): Uint32Array | null {
    if (this.deleted.length === 0) return null;
    const liveDocs = newLiveDocs(this.ids.length);
    for (const d of this.deleted) clearBit(liveDocs, d);
    return liveDocs;
  }
}

/**
 * The memory of a detached snapshot's typed arrays (each its own), to move to a worker thread instead of copying
 * it: posting a 30,000-document buffer took 25-100 ms of the event loop by structured clone, 2-4 ms when its
 * arrays are moved (only the strings are copied). The snapshot's arrays are unusable here afterwards.
 */
export function snapshotTransferList(snap: BufferSnapshot): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const add = (a: ArrayBufferView | null): void => {
    // (not instanceof: typed arrays may come from another realm; a SharedArrayBuffer is not moved)
    if (a && Object.prototype.toString.call(a.buffer) === '[object ArrayBuffer]') out.add(a.buffer as ArrayBuffer);
  };
  for (const f of snap.inverted) [f.tokTerm, f.tokDoc, f.tokPos, f.lengths].forEach(add);
  for (const c of [...snap.numeric, ...snap.points]) [c.docs, c.values].forEach(add);
  for (const c of snap.sorted) [c.docs, c.ids].forEach(add);
  [snap.sourceBytes, snap.sourceStarts, snap.sourceMissing, snap.seqNos, snap.primaryTerms, snap.versions].forEach(add);
  return [...out];
}

/** an indexing buffer's contents as plain, structured-cloneable data (see `SegmentBuilder.snapshot`) */
export interface BufferSnapshot {
  maxDoc: number;
  inverted: Array<{
    field: string;
    options: IndexOptions;
    /** term id → term */
    terms: string[];
    /** term → term id (rebuilt from `terms` when absent) */
    termIds: StringIds | null;
    tokTerm: Int32Array;
    tokDoc: Int32Array;
    tokPos: Int32Array | null;
    /** field length per doc (-1: none); may be shorter than maxDoc */
    lengths: Int32Array | null;
  }>;
  numeric: Array<{ field: string; docs: Int32Array; values: Float64Array }>;
  points: Array<{ field: string; docs: Int32Array; values: Float64Array }>;
  sorted: Array<{
    field: string;
    /** the term ids are the inverted field's of the same name (its dictionary; `terms` is empty) */
    shared: boolean;
    /** was shared once: its dictionary may hold terms no doc value uses (dropped at build) */
    wasShared: boolean;
    terms: string[];
    termIds: StringIds | null;
    docs: Int32Array;
    ids: Int32Array;
  }>;
  ids: string[];
  routing: Array<string | null> | null;
  sourceBytes: Uint8Array;
  sourceStarts: Uint32Array;
  sourceMissing: Uint8Array | null;
  seqNos: Float64Array;
  primaryTerms: Float64Array;
  versions: Float64Array;
}

/**
 * Freezes a buffer's contents into an immutable segment (counting sorts, no object per posting): on the event
 * loop for a synchronous refresh, or in the segment write thread for a scheduled one — the same segment either way.
 */
export function buildSegmentData(snap: BufferSnapshot, name: string): SegmentData {
  const maxDoc = snap.maxDoc;
  const inverted = new Map<string, InvertedFieldData>();
  const sortedDicts = new Map<string, SortedTerms>();
  let size = 0;
  for (const fb of snap.inverted) {
    const dict = sortTerms(fb.terms, fb.termIds ?? StringIds.of(fb.terms));
    sortedDicts.set(fb.field, dict);
    const f = freezeInverted(fb, dict, maxDoc);
    size += f.docs.byteLength + (f.freqs?.byteLength ?? 0) + (f.positions?.byteLength ?? 0) + (f.posStarts?.byteLength ?? 0);
    size += (f.norms?.byteLength ?? 0) + f.terms.length * 48;
    inverted.set(fb.field, f);
  }
  const idField = freezeIds(snap.ids);
  inverted.set('_id', idField);
  size += idField.docs.byteLength + idField.postingStarts.byteLength;
  const numeric = new Map<string, { offsets: Uint32Array; values: Float64Array }>();
  for (const c of snap.numeric) {
    const dv = freezeNumeric(c, maxDoc);
    size += dv.values.byteLength + dv.offsets.byteLength;
    numeric.set(c.field, dv);
  }
  const points = new Map<string, { values: Float64Array; docs: Uint32Array }>();
  for (const c of snap.points) {
    const p = freezePoints(c.docs, c.values);
    size += p.values.byteLength + p.docs.byteLength;
    points.set(c.field, p);
  }
  const sortedSet = new Map<string, { offsets: Uint32Array; ords: Uint32Array; terms: string[] }>();
  for (const c of snap.sorted) {
    const s = freezeOrdinals(c, c.shared ? sortedDicts.get(c.field)! : null, maxDoc);
    size += s.ords.byteLength + s.offsets.byteLength + s.terms.length * 48;
    sortedSet.set(c.field, s);
  }
  size += snap.sourceBytes.byteLength + snap.sourceStarts.byteLength;
  const seqNos = snap.seqNos;
  let maxSeqNo = -1;
  for (let i = 0; i < maxDoc; i++) if (seqNos[i] > maxSeqNo) maxSeqNo = seqNos[i];
  return {
    name,
    maxDoc,
    inverted,
    numeric,
    points,
    sortedSet,
    ids: snap.ids,
    routing: snap.routing,
    sourceBytes: snap.sourceBytes,
    sourceStarts: snap.sourceStarts,
    sourceMissing: snap.sourceMissing,
    seqNos,
    primaryTerms: snap.primaryTerms,
    versions: snap.versions,
    maxSeqNo,
    sizeInBytes: size + maxDoc * 48,
  };
}

type SortedTerms = { sorted: string[]; ordOf: Uint32Array };

/** per field of a buffer: a parse thread's table's string ids → term ids in the buffer + 1 (0: not looked up yet) */
interface PackedTermIds {
  strings: readonly string[];
  inv: Map<string, Int32Array>;
  ord: Map<string, Int32Array>;
}

/**
 * parse threads whose table's term ids a buffer keeps (beyond: the least recently read is dropped, and looked up
 * afresh if it comes back; threads replaced by new ones)
 */
const MAX_PACKED_TABLES = 8;

/**
 * the most a buffer keeps in term id arrays (each up to STRING_TABLE_MAX_STRINGS ids, per field and parse
 * thread): a mapping of many fields would otherwise hold one such array per field and thread (hundreds of MB
 * at the fields limit); past it the arrays are dropped and filled again as the next chunks are read
 */
const PACKED_TERM_IDS_MAX_BYTES = 8 * 1024 * 1024;

function termIdsBytes(t: PackedTermIds): number {
  let n = 0;
  for (const a of t.inv.values()) n += a.byteLength;
  for (const a of t.ord.values()) n += a.byteLength;
  return n;
}

/** the id of `term` in a field's dictionary of distinct terms (ids in first-seen order), added when new */
function termIdOf(dict: { readonly termIds: StringIds }, term: string): number {
  return dict.termIds.id(term);
}

/** term id → ordinal in sorted order (native string sort, then one lookup per unique term) */
function sortTerms(terms: string[], termIds: StringIds): SortedTerms {
  const sorted = terms.slice().sort();
  const ordOf = new Uint32Array(terms.length);
  for (let o = 0; o < sorted.length; o++) ordOf[termIds.get(sorted[o])] = o;
  return { sorted, ordOf };
}

function freezeInverted(fb: BufferSnapshot['inverted'][number], dict: SortedTerms, maxDoc: number): InvertedFieldData {
  const { sorted: terms, ordOf } = dict;
  const nTerms = terms.length;
  const nTok = fb.tokTerm.length;
  const tokTerm = fb.tokTerm;
  const tokDoc = fb.tokDoc;
  const tokPos = fb.tokPos;
  const withFreqs = fb.options !== 'docs';
  const withPos = fb.options === 'positions';
  // counting sort of token indexes by ordinal (stable → doc order, then position order)
  const start = new Uint32Array(nTerms + 1);
  for (let i = 0; i < nTok; i++) start[ordOf[tokTerm[i]] + 1]++;
  for (let o = 0; o < nTerms; o++) start[o + 1] += start[o];
  const fill = start.slice(0, nTerms);
  const byOrd = new Uint32Array(nTok);
  for (let i = 0; i < nTok; i++) byOrd[fill[ordOf[tokTerm[i]]]++] = i;
  // group each term's tokens by doc
  const docsTmp = new Uint32Array(nTok);
  const freqsTmp = withFreqs ? new Uint32Array(nTok) : null;
  const posStarts = withPos ? new Uint32Array(nTerms + 1) : null;
  const positions = withPos ? new Uint32Array(nTok) : null;
  const postingStarts = new Uint32Array(nTerms + 1);
  const hasDoc = new Uint8Array(maxDoc);
  let docCount = 0;
  let p = 0;
  let pp = 0;
  for (let o = 0; o < nTerms; o++) {
    postingStarts[o] = p;
    if (posStarts) posStarts[o] = pp;
    let lastDoc = -1;
    for (let k = start[o]; k < start[o + 1]; k++) {
      const ti = byOrd[k];
      const d = tokDoc[ti];
      if (d !== lastDoc) {
        lastDoc = d;
        docsTmp[p] = d;
        if (freqsTmp) freqsTmp[p] = 0;
        p++;
        if (!hasDoc[d]) {
          hasDoc[d] = 1;
          docCount++;
        }
      }
      if (freqsTmp) freqsTmp[p - 1]++;
      if (positions && tokPos) positions[pp++] = tokPos[ti];
    }
  }
  postingStarts[nTerms] = p;
  if (posStarts) posStarts[nTerms] = pp;
  const docs = p === nTok ? docsTmp : docsTmp.slice(0, p);
  const freqs = freqsTmp ? (p === nTok ? freqsTmp : freqsTmp.slice(0, p)) : null;
  let sumTotalTermFreq = 0;
  if (freqs) for (let i = 0; i < p; i++) sumTotalTermFreq += freqs[i];
  else sumTotalTermFreq = p;
  let norms: Uint8Array | null = null;
  if (fb.lengths) {
    norms = new Uint8Array(maxDoc);
    const L = fb.lengths;
    for (let d = 0; d < L.length; d++) {
      const l = L[d];
      if (l >= 0) norms[d] = encodeNorm(l);
    }
  }
  return {
    terms,
    postingStarts,
    docs,
    freqs,
    posStarts,
    positions,
    norms,
    docCount,
    sumTotalTermFreq,
    sumDocFreq: p,
  };
}

/** the `_id` inverted field (docs only) from the stored ids: a permutation sorted by id, then doc */
function freezeIds(ids: readonly string[]): InvertedFieldData {
  const n = ids.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if (!(ids[i - 1] < ids[i])) {
      sorted = false;
      break;
    }
  }
  if (!sorted) order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : a - b));
  const terms: string[] = [];
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const id = ids[order[i]];
    if (i === 0 || id !== ids[order[i - 1]]) {
      starts.push(i);
      terms.push(id);
    }
  }
  const postingStarts = new Uint32Array(terms.length + 1);
  for (let i = 0; i < starts.length; i++) postingStarts[i] = starts[i];
  postingStarts[terms.length] = n;
  return {
    terms,
    postingStarts,
    docs: order,
    freqs: null,
    posStarts: null,
    positions: null,
    norms: null,
    docCount: n,
    sumTotalTermFreq: n,
    sumDocFreq: n,
  };
}

/** builds multi-valued numeric doc values from (doc, value) pairs appended in doc order */
export function freezeNumeric(c: { docs: ArrayLike<number>; values: ArrayLike<number> }, maxDoc: number): {
  offsets: Uint32Array;
  values: Float64Array;
} {
  const n = c.docs.length;
  const offsets = new Uint32Array(maxDoc + 1);
  for (let i = 0; i < n; i++) offsets[c.docs[i] + 1]++;
  for (let d = 0; d < maxDoc; d++) offsets[d + 1] += offsets[d];
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = c.values[i];
  for (let d = 0; d < maxDoc; d++) {
    const s = offsets[d];
    const e = offsets[d + 1];
    if (e - s > 1) values.subarray(s, e).sort();
  }
  return { offsets, values };
}

export function freezePoints(docsIn: ArrayLike<number>, valuesIn: ArrayLike<number>): { values: Float64Array; docs: Uint32Array } {
  const n = docsIn.length;
  // sort (value, doc) pairs: values are mostly distinct numbers; sort an index permutation by value then doc
  const vals = Float64Array.from(valuesIn as ArrayLike<number>);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  let sortedAlready = true;
  for (let i = 1; i < n; i++) {
    if (vals[i] < vals[i - 1] || (vals[i] === vals[i - 1] && docsIn[i] < docsIn[i - 1])) {
      sortedAlready = false;
      break;
    }
  }
  if (!sortedAlready) order.sort((a, b) => vals[a] - vals[b] || docsIn[a] - docsIn[b]);
  const values = new Float64Array(n);
  const docs = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    values[i] = vals[order[i]];
    docs[i] = docsIn[order[i]];
  }
  return { values, docs };
}

/** `sharedDict`: the sorted dictionary of the inverted field whose term ids the column shares */
function freezeOrdinals(c: BufferSnapshot['sorted'][number], sharedDict: SortedTerms | null, maxDoc: number): { offsets: Uint32Array; ords: Uint32Array; terms: string[] } {
  if (c.wasShared) compactOrdinals(c);
  const { sorted: terms, ordOf } = sharedDict ?? sortTerms(c.terms, c.termIds ?? StringIds.of(c.terms));
  const n = c.docs.length;
  const docs = c.docs;
  const ids = c.ids;
  const offsets = new Uint32Array(maxDoc + 1);
  const ords = new Uint32Array(n);
  let w = 0;
  let i = 0;
  while (i < n) {
    const d = docs[i];
    let j = i;
    while (j < n && docs[j] === d) ords[w + (j - i)] = ordOf[ids[j++]];
    let len = j - i;
    if (len > 1) {
      const seg = ords.subarray(w, w + len);
      seg.sort();
      // dedupe in place
      let u = 1;
      for (let k = 1; k < len; k++) if (seg[k] !== seg[u - 1]) seg[u++] = seg[k];
      len = u;
    }
    offsets[d + 1] = len;
    w += len;
    i = j;
  }
  for (let d = 0; d < maxDoc; d++) offsets[d + 1] += offsets[d];
  return { offsets, ords: w === n ? ords : ords.slice(0, w), terms };
}

/** drops dictionary terms that no doc value uses (left over from sharing the inverted dictionary) */
function compactOrdinals(c: BufferSnapshot['sorted'][number]): void {
  const used = new Uint8Array(c.terms.length);
  const ids = c.ids;
  for (let j = 0; j < c.ids.length; j++) used[ids[j]] = 1;
  if (used.every((u) => u === 1)) return;
  const remap = new Int32Array(c.terms.length).fill(-1);
  const dict = new StringIds();
  for (let i = 0; i < c.terms.length; i++) if (used[i]) remap[i] = dict.id(c.terms[i]);
  for (let j = 0; j < c.ids.length; j++) ids[j] = remap[ids[j]];
  c.terms = dict.strings;
  c.termIds = dict;
}

/** builds sorted-set doc values from (doc, term) pairs grouped by doc (used by tests and tools) */
export function freezeSortedSet(c: { docs: ArrayLike<number>; values: readonly string[] }, maxDoc: number): {
  offsets: Uint32Array;
  ords: Uint32Array;
  terms: string[];
} {
  const col = new OrdinalColumn();
  for (let i = 0; i < c.docs.length; i++) {
    const v = c.values[i];
    col.docs.push(c.docs[i]);
    col.ids.push(termIdOf(col, v));
  }
  const snap = { field: '', shared: false, wasShared: false, terms: col.terms, termIds: col.termIds, docs: col.docs.data.subarray(0, col.docs.length), ids: col.ids.data.subarray(0, col.ids.length) };
  return freezeOrdinals(snap, null, maxDoc);
}
