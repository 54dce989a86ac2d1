/**
 * The indexing buffer: accumulates ParsedDocuments into growable per-term postings and per-field
 * doc-value columns, then freezes them into an immutable SegmentData of typed arrays.
 */
import type { ParsedDocument } from '../mapper/parsed-document.js';
import { encodeNorm } from '../util/small-float.js';
import type { InvertedFieldData, SegmentData } from './segment.js';
import { newLiveDocs, clearBit } from './live-docs.js';

const POSITION_INCREMENT_GAP = 100;
type IndexOptions = 'docs' | 'freqs' | 'positions';

class InvertedFieldBuffer {
  readonly termIds = new Map<string, number>();
  readonly termDocs: number[][] = [];
  readonly termFreqs: number[][] = [];
  readonly termPositions: number[][] = [];
  readonly lastDoc: number[] = [];
  /** field length per doc (token count, overlaps discounted) when norms are on */
  lengths: number[] | null = null;
  constructor(public options: IndexOptions) {}
}

class PairColumn {
  readonly docs: number[] = [];
  readonly values: number[] = [];
}

class StringPairColumn {
  readonly docs: number[] = [];
  readonly values: string[] = [];
}

export interface StoredMeta {
  seqNo: number;
  primaryTerm: number;
  version: number;
}

export class SegmentBuilder {
  private readonly inverted = new Map<string, InvertedFieldBuffer>();
  private readonly numeric = new Map<string, PairColumn>();
  private readonly points = new Map<string, PairColumn>();
  private readonly sorted = new Map<string, StringPairColumn>();
  private readonly ids: string[] = [];
  private routing: Array<string | null> | null = null;
  private readonly sources: Array<Uint8Array | null> = [];
  private sourceBytesTotal = 0;
  private readonly seqNos: number[] = [];
  private readonly terms: number[] = [];
  private readonly versions: number[] = [];
  private deleted: number[] = [];
  private approxBytes = 0;
  /** per-doc scratch: last position seen per field (for multi-valued position gaps) */
  private readonly docLastPos = new Map<string, number>();

  get numDocs(): number {
    return this.ids.length;
  }
  get ramBytesUsed(): number {
    return this.approxBytes;
  }
  get numDeleted(): number {
    return this.deleted.length;
  }

  /** adds a document; returns its buffer-local doc id */
  add(doc: ParsedDocument, meta: StoredMeta): number {
    const d = this.ids.length;
    this.ids.push(doc.id);
    if (doc.routing !== undefined && doc.routing !== null) {
      if (!this.routing) this.routing = new Array<string | null>(d).fill(null);
      this.routing.push(doc.routing);
    } else if (this.routing) this.routing.push(null);
    this.sources.push(doc.source);
    if (doc.source) this.sourceBytesTotal += doc.source.length;
    this.seqNos.push(meta.seqNo);
    this.terms.push(meta.primaryTerm);
    this.versions.push(meta.version);
    let bytes = 64 + (doc.source ? doc.source.length : 0) + doc.id.length * 2;

    this.docLastPos.clear();
    let hasIdField = false;
    for (const f of doc.fields) {
      if (f.name === '_id') hasIdField = true;
      if (f.tokens && f.tokens.length > 0) bytes += this.invert(d, f.name, f.tokens, f.indexOptions ?? 'docs', !!f.norms);
      else if (f.norms && f.tokens) this.invert(d, f.name, f.tokens, f.indexOptions ?? 'docs', true);
      if (f.numericValues) {
        let c = this.numeric.get(f.name);
        if (!c) this.numeric.set(f.name, (c = new PairColumn()));
        for (const v of f.numericValues) {
          c.docs.push(d);
          c.values.push(v);
        }
        bytes += f.numericValues.length * 16;
      }
      if (f.pointValues) {
        let c = this.points.get(f.name);
        if (!c) this.points.set(f.name, (c = new PairColumn()));
        for (const v of f.pointValues) {
          c.docs.push(d);
          c.values.push(v);
        }
        bytes += f.pointValues.length * 16;
      }
      if (f.keywordValues) {
        let c = this.sorted.get(f.name);
        if (!c) this.sorted.set(f.name, (c = new StringPairColumn()));
        for (const v of f.keywordValues) {
          c.docs.push(d);
          c.values.push(v);
          bytes += 16 + v.length;
        }
      }
    }
    if (!hasIdField) this.invert(d, '_id', [{ term: doc.id, position: 0 }], 'docs', false);
    this.approxBytes += bytes;
    return d;
  }

  /** stored fields of a buffered doc (realtime get) */
  storedSource(doc: number): Uint8Array | null {
    return this.sources[doc] ?? null;
  }
  storedRouting(doc: number): string | undefined {
    return this.routing?.[doc] ?? undefined;
  }

  /** marks a buffered doc deleted (applied when the segment is built) */
  delete(doc: number): void {
    this.deleted.push(doc);
  }

  private invert(
    d: number,
    name: string,
    tokens: ReadonlyArray<{ term: string; position: number }>,
    options: IndexOptions,
    norms: boolean,
  ): number {
    let fb = this.inverted.get(name);
    if (!fb) {
      fb = new InvertedFieldBuffer(options);
      this.inverted.set(name, fb);
    }
    if (norms && !fb.lengths) fb.lengths = [];
    const withFreqs = fb.options !== 'docs';
    const withPos = fb.options === 'positions';
    let posOffset = 0;
    const last = this.docLastPos.get(name);
    if (last !== undefined && tokens.length > 0 && tokens[0].position <= last) {
      posOffset = last + POSITION_INCREMENT_GAP + 1 - tokens[0].position;
    }
    let bytes = 0;
    let length = 0;
    let prevPos = -1;
    let maxPos = last ?? -1;
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i];
      const pos = t.position + posOffset;
      if (pos !== prevPos) length++;
      prevPos = pos;
      if (pos > maxPos) maxPos = pos;
      let id = fb.termIds.get(t.term);
      if (id === undefined) {
        id = fb.termDocs.length;
        fb.termIds.set(t.term, id);
        fb.termDocs.push([]);
        fb.termFreqs.push(withFreqs ? [] : (EMPTY as number[]));
        fb.termPositions.push(withPos ? [] : (EMPTY as number[]));
        fb.lastDoc.push(-1);
        bytes += 64 + t.term.length * 2;
      }
      if (fb.lastDoc[id] !== d) {
        fb.lastDoc[id] = d;
        fb.termDocs[id].push(d);
        if (withFreqs) fb.termFreqs[id].push(1);
        bytes += 8;
      } else if (withFreqs) {
        const fr = fb.termFreqs[id];
        fr[fr.length - 1]++;
      }
      if (withPos) {
        fb.termPositions[id].push(pos);
        bytes += 4;
      }
    }
    this.docLastPos.set(name, maxPos);
    if (fb.lengths) fb.lengths[d] = (fb.lengths[d] ?? 0) + length;
    return bytes;
  }

  /** freezes the buffer into an immutable segment; returns the data and its initial live docs */
  build(name: string): { data: SegmentData; liveDocs: Uint32Array | null } {
    const maxDoc = this.ids.length;
    const inverted = new Map<string, InvertedFieldData>();
    let size = 0;
    for (const [field, fb] of this.inverted) {
      const f = freezeInverted(fb, maxDoc);
      size += f.docs.byteLength + (f.freqs?.byteLength ?? 0) + (f.positions?.byteLength ?? 0) + (f.posStarts?.byteLength ?? 0);
      size += f.norms?.byteLength ?? 0;
      inverted.set(field, f);
    }
    const numeric = new Map<string, { offsets: Uint32Array; values: Float64Array }>();
    for (const [field, c] of this.numeric) {
      const dv = freezeNumeric(c, maxDoc);
      size += dv.values.byteLength + dv.offsets.byteLength;
      numeric.set(field, dv);
    }
    const points = new Map<string, { values: Float64Array; docs: Uint32Array }>();
    for (const [field, c] of this.points) {
      const p = freezePoints(c.docs, c.values);
      size += p.values.byteLength + p.docs.byteLength;
      points.set(field, p);
    }
    const sortedSet = new Map<string, { offsets: Uint32Array; ords: Uint32Array; terms: string[] }>();
    for (const [field, c] of this.sorted) {
      const s = freezeSortedSet(c, maxDoc);
      size += s.ords.byteLength + s.offsets.byteLength;
      sortedSet.set(field, s);
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
    size += sourceBytes.byteLength + sourceStarts.byteLength;
    let maxSeqNo = -1;
    for (const s of this.seqNos) if (s > maxSeqNo) maxSeqNo = s;
    const data: SegmentData = {
      name,
      maxDoc,
      inverted,
      numeric,
      points,
      sortedSet,
      ids: this.ids,
      routing: this.routing,
      sourceBytes,
      sourceStarts,
      sourceMissing,
      seqNos: Float64Array.from(this.seqNos),
      primaryTerms: Float64Array.from(this.terms),
      versions: Float64Array.from(this.versions),
      maxSeqNo,
      sizeInBytes: size + maxDoc * 40,
    };
    let liveDocs: Uint32Array | null = null;
    if (this.deleted.length > 0) {
      liveDocs = newLiveDocs(maxDoc);
      for (const d of this.deleted) clearBit(liveDocs, d);
    }
    return { data, liveDocs };
  }
}

const EMPTY: readonly number[] = Object.freeze([]) as readonly number[];

function freezeInverted(fb: InvertedFieldBuffer, maxDoc: number): InvertedFieldData {
  const terms = [...fb.termIds.keys()].sort();
  const n = terms.length;
  const withFreqs = fb.options !== 'docs';
  const withPos = fb.options === 'positions';
  let total = 0;
  let totalPos = 0;
  for (let i = 0; i < fb.termDocs.length; i++) {
    total += fb.termDocs[i].length;
    if (withPos) totalPos += fb.termPositions[i].length;
  }
  const postingStarts = new Uint32Array(n + 1);
  const docs = new Uint32Array(total);
  const freqs = withFreqs ? new Uint32Array(total) : null;
  const posStarts = withPos ? new Uint32Array(total + 1) : null;
  const positions = withPos ? new Uint32Array(totalPos) : null;
  let p = 0;
  let pp = 0;
  let sumTotalTermFreq = 0;
  const hasDoc = new Uint8Array(maxDoc);
  let docCount = 0;
  for (let o = 0; o < n; o++) {
    postingStarts[o] = p;
    const id = fb.termIds.get(terms[o])!;
    const tdocs = fb.termDocs[id];
    const tfreqs = fb.termFreqs[id];
    const tpos = fb.termPositions[id];
    let k = 0;
    for (let j = 0; j < tdocs.length; j++, p++) {
      const d = tdocs[j];
      docs[p] = d;
      if (!hasDoc[d]) {
        hasDoc[d] = 1;
        docCount++;
      }
      const fr = withFreqs ? tfreqs[j] : 1;
      if (freqs) freqs[p] = fr;
      sumTotalTermFreq += fr;
      if (posStarts && positions) {
        posStarts[p] = pp;
        for (let x = 0; x < fr; x++) positions[pp++] = tpos[k++];
      }
    }
  }
  postingStarts[n] = p;
  if (posStarts) posStarts[total] = pp;
  let norms: Uint8Array | null = null;
  if (fb.lengths) {
    norms = new Uint8Array(maxDoc);
    const L = fb.lengths;
    for (let d = 0; d < L.length; d++) {
      const l = L[d];
      if (l !== undefined) norms[d] = encodeNorm(l);
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
    sumDocFreq: total,
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
  // pairs are in doc order already: copy, then sort within each doc when multi-valued
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
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => valuesIn[a] - valuesIn[b] || docsIn[a] - docsIn[b]);
  const values = new Float64Array(n);
  const docs = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    values[i] = valuesIn[order[i]];
    docs[i] = docsIn[order[i]];
  }
  return { values, docs };
}

export function freezeSortedSet(c: { docs: ArrayLike<number>; values: readonly string[] }, maxDoc: number): {
  offsets: Uint32Array;
  ords: Uint32Array;
  terms: string[];
} {
  const uniq = new Map<string, number>();
  for (const v of c.values) if (!uniq.has(v)) uniq.set(v, 0);
  const terms = [...uniq.keys()].sort();
  for (let i = 0; i < terms.length; i++) uniq.set(terms[i], i);
  const n = c.docs.length;
  const counts = new Uint32Array(maxDoc + 1);
  // dedupe per doc: pairs are grouped by doc
  const tmpOrds: number[] = [];
  const tmpDocs: number[] = [];
  let i = 0;
  while (i < n) {
    const d = c.docs[i];
    let j = i;
    const ords: number[] = [];
    while (j < n && c.docs[j] === d) ords.push(uniq.get(c.values[j++])!);
    if (ords.length > 1) ords.sort((a, b) => a - b);
    let prev = -1;
    for (const o of ords) {
      if (o !== prev) {
        tmpOrds.push(o);
        tmpDocs.push(d);
        counts[d + 1]++;
      }
      prev = o;
    }
    i = j;
  }
  for (let d = 0; d < maxDoc; d++) counts[d + 1] += counts[d];
  return { offsets: counts, ords: Uint32Array.from(tmpOrds), terms };
}
