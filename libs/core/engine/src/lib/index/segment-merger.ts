/**
 * Merges segments into one, dropping deleted docs: `MergedSource` is a lazy view of the merged segment that
 * the segment writer streams from file to file — stored fields doc by doc, postings term by term (a k-way
 * merge of the inputs' term dictionaries), doc values and points one field at a time. Blocks of nested
 * documents stay whole: live docs keep their order and a block is deleted whole.
 */
import type { NumericDocValues, PointIndex, SortedSetDocValues } from './leaf-reader.js';
import { isLiveBit } from './live-docs.js';
import type { InvertedFieldData, SegmentData } from './segment.js';
import { MemorySegment } from './segment.js';
import type { InvertedFieldInfo, SegmentCore, SegmentSource, TermPostings } from './segment-core.js';

export interface MergeInput {
  data: SegmentCore;
  liveDocs: Uint32Array | null;
}

export class MergedSource implements SegmentSource {
  readonly maxDoc: number;
  readonly maxSeqNo: number;
  readonly hasRouting: boolean;
  /** per input: old doc → new doc, or -1 when dropped */
  readonly docMaps: Int32Array[];
  private readonly bases: number[] = [];
  private readonly olds: Uint32Array[] = [];

  constructor(
    readonly name: string,
    private readonly inputs: readonly MergeInput[],
  ) {
    const docMaps: Int32Array[] = [];
    let maxDoc = 0;
    let maxSeqNo = -1;
    for (const inp of inputs) {
      const m = new Int32Array(inp.data.maxDoc);
      this.bases.push(maxDoc);
      const start = maxDoc;
      for (let d = 0; d < inp.data.maxDoc; d++) m[d] = isLiveBit(inp.liveDocs, d) ? maxDoc++ : -1;
      const old = new Uint32Array(maxDoc - start);
      for (let d = 0; d < inp.data.maxDoc; d++) if (m[d] >= 0) old[m[d] - start] = d;
      this.olds.push(old);
      docMaps.push(m);
      if (inp.data.maxSeqNo > maxSeqNo) maxSeqNo = inp.data.maxSeqNo;
    }
    this.docMaps = docMaps;
    this.maxDoc = maxDoc;
    this.maxSeqNo = maxSeqNo;
    this.hasRouting = inputs.some((i) => i.data.hasRouting);
  }

  private locate(doc: number): [SegmentCore, number] {
    let s = this.bases.length - 1;
    while (s > 0 && this.bases[s] > doc) s--;
    return [this.inputs[s].data, this.olds[s][doc - this.bases[s]]];
  }

  id(doc: number): string {
    const [c, d] = this.locate(doc);
    return c.id(d);
  }
  routing(doc: number): string | null {
    const [c, d] = this.locate(doc);
    return c.routing(d);
  }
  source(doc: number): Uint8Array | null {
    const [c, d] = this.locate(doc);
    return c.source(d);
  }
  seqNo(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.seqNo(d);
  }
  primaryTerm(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.primaryTerm(d);
  }
  version(doc: number): number {
    const [c, d] = this.locate(doc);
    return c.version(d);
  }

  private union(names: (c: SegmentCore) => string[]): string[] {
    const out = new Set<string>();
    for (const i of this.inputs) for (const n of names(i.data)) out.add(n);
    return [...out];
  }

  invertedFields(): string[] {
    return this.union((c) => c.invertedFields());
  }
  fieldInfo(field: string): InvertedFieldInfo | null {
    let info: InvertedFieldInfo | null = null;
    for (const i of this.inputs) {
      const f = i.data.fieldInfo(field);
      if (!f) continue;
      info = info ? { freqs: info.freqs || f.freqs, positions: info.positions || f.positions, norms: info.norms || f.norms } : { ...f };
    }
    return info;
  }
  norms(field: string): Uint8Array | null {
    let out: Uint8Array | null = null;
    this.inputs.forEach((inp, s) => {
      const n = inp.data.norms(field);
      if (!n) return;
      out ??= new Uint8Array(this.maxDoc);
      const m = this.docMaps[s];
      for (let i = 0; i < m.length; i++) if (m[i] >= 0) out[m[i]] = n[i];
    });
    return out;
  }

  *termIterator(field: string): Generator<TermPostings> {
    const info = this.fieldInfo(field);
    if (!info) return;
    const dicts = this.inputs.map((i) => i.data.terms(field));
    const k = dicts.length;
    const pos = new Array<number>(k).fill(0);
    const heads: Array<string | undefined> = dicts.map((d) => (d && d.size > 0 ? d.term(0) : undefined));
    for (;;) {
      let min: string | undefined;
      for (let i = 0; i < k; i++) {
        const t = heads[i];
        if (t !== undefined && (min === undefined || t < min)) min = t;
      }
      if (min === undefined) return;
      const parts: Array<{ s: number; ord: number }> = [];
      for (let i = 0; i < k; i++) {
        if (heads[i] === min) {
          parts.push({ s: i, ord: pos[i] });
          pos[i]++;
          const d = dicts[i]!;
          heads[i] = pos[i] < d.size ? d.term(pos[i]) : undefined;
        }
      }
      let cap = 0;
      let capPos = 0;
      const ps = parts.map(({ s, ord }) => {
        const p = dicts[s]!.postings(ord);
        cap += p.docFreq;
        if (info.positions) {
          if (p.freqs) for (let x = 0; x < p.docFreq; x++) capPos += p.freqs[x];
          else capPos += p.docFreq;
        }
        return p;
      });
      const docs = new Uint32Array(cap);
      const freqs = info.freqs ? new Uint32Array(cap) : null;
      const positions = info.positions ? new Uint32Array(capPos) : null;
      let n = 0;
      let pp = 0;
      parts.forEach(({ s }, j) => {
        const p = ps[j];
        const m = this.docMaps[s];
        for (let x = 0; x < p.docFreq; x++) {
          const nd = m[p.docs[x]];
          if (nd < 0) continue;
          const fr = p.freqs ? p.freqs[x] : 1;
          docs[n] = nd;
          if (freqs) freqs[n] = fr;
          if (positions) {
            const src = p.positions(x);
            if (src) positions.set(src.subarray(0, fr), pp);
            // a source without positions for this field: zeros, so freq and positions agree
            pp += fr;
          }
          n++;
        }
      });
      if (n === 0) continue;
      yield {
        term: min,
        docs: n === cap ? docs : docs.slice(0, n),
        freqs: freqs ? (n === cap ? freqs : freqs.slice(0, n)) : null,
        positions: positions ? (pp === capPos ? positions : positions.slice(0, pp)) : null,
      };
    }
  }

  numericFields(): string[] {
    return this.union((c) => c.numericFields());
  }
  numeric(field: string): NumericDocValues | null {
    const srcs = this.inputs.map((i) => i.data.numeric(field));
    if (srcs.every((s) => !s)) return null;
    const { offsets, total } = mergedOffsets(srcs, this.docMaps, this.maxDoc);
    const values = new Float64Array(total);
    srcs.forEach((dv, s) => {
      if (!dv) return;
      const m = this.docMaps[s];
      for (let i = 0; i < m.length; i++) if (m[i] >= 0) values.set(dv.values.subarray(dv.offsets[i], dv.offsets[i + 1]), offsets[m[i]]);
    });
    return { offsets, values };
  }

  pointFields(): string[] {
    return this.union((c) => c.pointFields());
  }
  points(field: string): PointIndex | null {
    const srcs = this.inputs.map((i) => i.data.points(field));
    if (srcs.every((s) => !s)) return null;
    return mergePoints(srcs, this.docMaps);
  }

  sortedSetFields(): string[] {
    return this.union((c) => c.sortedSetFields());
  }
  sortedSet(field: string): SortedSetDocValues | null {
    const srcs = this.inputs.map((i) => i.data.sortedSet(field));
    if (srcs.every((s) => !s)) return null;
    const { terms, maps } = mergeTermLists(srcs.map((s) => s?.terms ?? []));
    const { offsets, total } = mergedOffsets(srcs, this.docMaps, this.maxDoc);
    const ords = new Uint32Array(total);
    srcs.forEach((dv, s) => {
      if (!dv) return;
      const m = this.docMaps[s];
      const om = maps[s];
      for (let i = 0; i < m.length; i++) {
        if (m[i] < 0) continue;
        let o = offsets[m[i]];
        for (let x = dv.offsets[i]; x < dv.offsets[i + 1]; x++) ords[o++] = om[dv.ords[x]];
      }
    });
    // drop dictionary terms only deleted docs used
    const used = new Uint8Array(terms.length);
    for (let i = 0; i < ords.length; i++) used[ords[i]] = 1;
    if (used.includes(0)) {
      const remap = new Uint32Array(terms.length);
      const kept: string[] = [];
      for (let o = 0; o < terms.length; o++) if (used[o]) remap[o] = kept.push(terms[o]) - 1;
      for (let i = 0; i < ords.length; i++) ords[i] = remap[ords[i]];
      return { offsets, ords, terms: kept };
    }
    return { offsets, ords, terms };
  }
}

/** k-way merge of sorted term lists (k is small); the union and per-list old ord → new ord maps */
function mergeTermLists(lists: readonly (readonly string[])[]): { terms: string[]; maps: Uint32Array[] } {
  const k = lists.length;
  const pos = new Array<number>(k).fill(0);
  const maps = lists.map((l) => new Uint32Array(l.length));
  const terms: string[] = [];
  for (;;) {
    let min: string | undefined;
    for (let i = 0; i < k; i++) {
      if (pos[i] < lists[i].length) {
        const t = lists[i][pos[i]];
        if (min === undefined || t < min) min = t;
      }
    }
    if (min === undefined) break;
    const ord = terms.length;
    terms.push(min);
    for (let i = 0; i < k; i++) if (pos[i] < lists[i].length && lists[i][pos[i]] === min) maps[i][pos[i]++] = ord;
  }
  return { terms, maps };
}

/** per-document value offsets of a merged doc-values field (`total` = number of values) */
function mergedOffsets(
  srcs: readonly ({ offsets: Uint32Array } | null)[],
  docMaps: Int32Array[],
  maxDoc: number,
): { offsets: Uint32Array; total: number } {
  const offsets = new Uint32Array(maxDoc + 1);
  let total = 0;
  srcs.forEach((dv, s) => {
    if (!dv) return;
    const m = docMaps[s];
    for (let i = 0; i < m.length; i++) {
      if (m[i] < 0) continue;
      const c = dv.offsets[i + 1] - dv.offsets[i];
      offsets[m[i] + 1] = c;
      total += c;
    }
  });
  for (let d = 0; d < maxDoc; d++) offsets[d + 1] += offsets[d];
  return { offsets, total };
}

/** k-way merge of per-segment point lists (each sorted by value, then doc; doc maps are monotonic) */
function mergePoints(srcs: ReadonlyArray<PointIndex | null>, docMaps: Int32Array[]): PointIndex {
  let cap = 0;
  for (const p of srcs) if (p) cap += p.docs.length;
  const values = new Float64Array(cap);
  const docs = new Uint32Array(cap);
  const k = srcs.length;
  const pos = new Array<number>(k).fill(0);
  const advance = (i: number): void => {
    const p = srcs[i];
    if (!p) return;
    const m = docMaps[i];
    while (pos[i] < p.docs.length && m[p.docs[pos[i]]] < 0) pos[i]++;
  };
  for (let i = 0; i < k; i++) advance(i);
  let w = 0;
  for (;;) {
    let best = -1;
    let bv = 0;
    let bd = 0;
    for (let i = 0; i < k; i++) {
      const p = srcs[i];
      if (!p || pos[i] >= p.docs.length) continue;
      const v = p.values[pos[i]];
      const d = docMaps[i][p.docs[pos[i]]];
      if (best < 0 || v < bv || (v === bv && d < bd)) {
        best = i;
        bv = v;
        bd = d;
      }
    }
    if (best < 0) break;
    values[w] = bv;
    docs[w++] = bd;
    pos[best]++;
    advance(best);
  }
  return { values: w === cap ? values : values.slice(0, w), docs: w === cap ? docs : docs.slice(0, w) };
}

/** any segment source as plain in-memory arrays (tests, tools) */
export function materialize(src: SegmentSource): SegmentData {
  const maxDoc = src.maxDoc;
  const inverted = new Map<string, InvertedFieldData>();
  for (const field of src.invertedFields()) {
    const info = src.fieldInfo(field)!;
    const terms: string[] = [];
    const starts: number[] = [0];
    const docs: number[] = [];
    const freqs: number[] = [];
    const posStarts: number[] = [0];
    const positions: number[] = [];
    const seen = new Uint8Array(maxDoc);
    let docCount = 0;
    let sttf = 0;
    for (const t of src.termIterator(field)) {
      terms.push(t.term);
      for (let i = 0; i < t.docs.length; i++) {
        docs.push(t.docs[i]);
        const fr = t.freqs ? t.freqs[i] : 1;
        if (info.freqs) freqs.push(fr);
        sttf += info.freqs ? fr : 1;
        if (!seen[t.docs[i]]) {
          seen[t.docs[i]] = 1;
          docCount++;
        }
      }
      if (t.positions) for (const p of t.positions) positions.push(p);
      starts.push(docs.length);
      posStarts.push(positions.length);
    }
    inverted.set(field, {
      terms,
      postingStarts: Uint32Array.from(starts),
      docs: Uint32Array.from(docs),
      freqs: info.freqs ? Uint32Array.from(freqs) : null,
      posStarts: info.positions ? Uint32Array.from(posStarts) : null,
      positions: info.positions ? Uint32Array.from(positions) : null,
      norms: info.norms ? src.norms(field) : null,
      docCount,
      sumTotalTermFreq: sttf,
      sumDocFreq: docs.length,
    });
  }
  const numeric = new Map<string, NumericDocValues>();
  for (const f of src.numericFields()) numeric.set(f, src.numeric(f)!);
  const points = new Map<string, PointIndex>();
  for (const f of src.pointFields()) points.set(f, src.points(f)!);
  const sortedSet = new Map<string, SortedSetDocValues>();
  for (const f of src.sortedSetFields()) sortedSet.set(f, src.sortedSet(f)!);
  const ids: string[] = [];
  const routing: Array<string | null> | null = src.hasRouting ? [] : null;
  const chunks: Uint8Array[] = [];
  const sourceStarts = new Uint32Array(maxDoc + 1);
  let sourceMissing: Uint8Array | null = null;
  let off = 0;
  const seqNos = new Float64Array(maxDoc);
  const primaryTerms = new Float64Array(maxDoc);
  const versions = new Float64Array(maxDoc);
  for (let d = 0; d < maxDoc; d++) {
    ids.push(src.id(d));
    routing?.push(src.routing(d));
    sourceStarts[d] = off;
    const s = src.source(d);
    if (s) {
      chunks.push(s);
      off += s.length;
    } else (sourceMissing ??= new Uint8Array(maxDoc))[d] = 1;
    seqNos[d] = src.seqNo(d);
    primaryTerms[d] = src.primaryTerm(d);
    versions[d] = src.version(d);
  }
  sourceStarts[maxDoc] = off;
  return {
    name: src.name,
    maxDoc,
    inverted,
    numeric,
    points,
    sortedSet,
    ids,
    routing,
    sourceBytes: Buffer.concat(chunks),
    sourceStarts,
    sourceMissing,
    seqNos,
    primaryTerms,
    versions,
    maxSeqNo: src.maxSeqNo,
    sizeInBytes: off + maxDoc * 40,
  };
}

/** merges in memory (tests, small merges): the merged segment and the doc maps */
export function mergeSync(name: string, inputs: MergeInput[]): { data: MemorySegment; docMaps: Int32Array[] } {
  const m = new MergedSource(name, inputs);
  return { data: new MemorySegment(materialize(m)), docMaps: m.docMaps };
}
