/**
 * Merges segments into one, dropping deleted docs. Written as a generator that yields between
 * slices of work so the shard can run it on the main thread without blocking indexing for long.
 */
import type { InvertedFieldData, SegmentData } from './segment.js';
import { isLiveBit } from './live-docs.js';
import { readSourceRange } from './segment.js';

/** receives the merged segment's `_source` bytes in order (a file writer); without it they stay in memory */
export interface SourceSink {
  write(bytes: Uint8Array): void;
}

const COPY_CHUNK = 4 * 1024 * 1024;

export interface MergeInput {
  data: SegmentData;
  liveDocs: Uint32Array | null;
}

export interface MergeResult {
  data: SegmentData;
  /** per input: old doc → new doc, or -1 when dropped */
  docMaps: Int32Array[];
}

/** runs a merge generator to completion synchronously (tests, small merges) */
export function mergeSync(name: string, inputs: MergeInput[], sink?: SourceSink): MergeResult {
  const it = mergeSegments(name, inputs, sink);
  for (;;) {
    const r = it.next();
    if (r.done) return r.value;
  }
}

export function* mergeSegments(name: string, inputs: MergeInput[], sink?: SourceSink): Generator<void, MergeResult, void> {
  const docMaps: Int32Array[] = [];
  let maxDoc = 0;
  for (const inp of inputs) {
    const m = new Int32Array(inp.data.maxDoc);
    for (let d = 0; d < inp.data.maxDoc; d++) m[d] = isLiveBit(inp.liveDocs, d) ? maxDoc++ : -1;
    docMaps.push(m);
  }
  yield;
  // ---- stored fields
  const ids = new Array<string>(maxDoc);
  let anyRouting = false;
  for (const inp of inputs) if (inp.data.routing) anyRouting = true;
  const routing: Array<string | null> | null = anyRouting ? new Array<string | null>(maxDoc).fill(null) : null;
  const seqNos = new Float64Array(maxDoc);
  const primaryTerms = new Float64Array(maxDoc);
  const versions = new Float64Array(maxDoc);
  let srcTotal = 0;
  for (let s = 0; s < inputs.length; s++) {
    const d = inputs[s].data;
    const m = docMaps[s];
    for (let i = 0; i < d.maxDoc; i++) if (m[i] >= 0) srcTotal += d.sourceStarts[i + 1] - d.sourceStarts[i];
  }
  const sourceBytes = sink ? null : new Uint8Array(srcTotal);
  const sourceStarts = new Uint32Array(maxDoc + 1);
  let sourceMissing: Uint8Array | null = null;
  let off = 0;
  let maxSeqNo = -1;
  for (let s = 0; s < inputs.length; s++) {
    const d = inputs[s].data;
    const m = docMaps[s];
    let runStart = -1; // first doc of the current run of live docs
    const flushRun = (endDoc: number): void => {
      if (runStart < 0) return;
      let a = d.sourceStarts[runStart];
      const b = d.sourceStarts[endDoc];
      while (a < b) {
        const e = Math.min(b, a + COPY_CHUNK);
        const bytes = readSourceRange(d, a, e);
        if (sink) sink.write(bytes);
        else sourceBytes!.set(bytes, off);
        off += e - a;
        a = e;
      }
      runStart = -1;
    };
    for (let i = 0; i < d.maxDoc; i++) {
      const nd = m[i];
      if (nd < 0) {
        flushRun(i);
        continue;
      }
      if (runStart < 0) runStart = i;
      ids[nd] = d.ids[i];
      if (routing && d.routing) routing[nd] = d.routing[i];
      seqNos[nd] = d.seqNos[i];
      if (d.seqNos[i] > maxSeqNo) maxSeqNo = d.seqNos[i];
      primaryTerms[nd] = d.primaryTerms[i];
      versions[nd] = d.versions[i];
      sourceStarts[nd] = off + (d.sourceStarts[i] - d.sourceStarts[runStart]);
      if (d.sourceMissing && d.sourceMissing[i]) {
        if (!sourceMissing) sourceMissing = new Uint8Array(maxDoc);
        sourceMissing[nd] = 1;
      }
    }
    flushRun(d.maxDoc);
    yield;
  }
  sourceStarts[maxDoc] = off;

  // ---- inverted fields
  const fieldNames = new Set<string>();
  for (const inp of inputs) for (const f of inp.data.inverted.keys()) fieldNames.add(f);
  const inverted = new Map<string, InvertedFieldData>();
  let size = (sourceBytes?.byteLength ?? 0) + sourceStarts.byteLength + maxDoc * 40;
  for (const field of fieldNames) {
    const f = yield* mergeInverted(field, inputs, docMaps, maxDoc);
    size += f.docs.byteLength + (f.freqs?.byteLength ?? 0) + (f.positions?.byteLength ?? 0) + (f.norms?.byteLength ?? 0);
    inverted.set(field, f);
    yield;
  }
  // ---- numeric doc values
  const numeric = new Map<string, { offsets: Uint32Array; values: Float64Array }>();
  const numNames = new Set<string>();
  for (const inp of inputs) for (const f of inp.data.numeric.keys()) numNames.add(f);
  for (const field of numNames) {
    const { offsets, total } = mergedOffsets(inputs.map((inp) => inp.data.numeric.get(field)), docMaps, maxDoc);
    const values = new Float64Array(total);
    for (let s = 0; s < inputs.length; s++) {
      const dv = inputs[s].data.numeric.get(field);
      if (!dv) continue;
      const m = docMaps[s];
      for (let i = 0; i < m.length; i++) if (m[i] >= 0) values.set(dv.values.subarray(dv.offsets[i], dv.offsets[i + 1]), offsets[m[i]]);
    }
    size += values.byteLength + offsets.byteLength;
    numeric.set(field, { offsets, values });
    yield;
  }
  // ---- points
  const points = new Map<string, { values: Float64Array; docs: Uint32Array }>();
  const pointNames = new Set<string>();
  for (const inp of inputs) for (const f of inp.data.points.keys()) pointNames.add(f);
  for (const field of pointNames) {
    const p = yield* mergePoints(inputs.map((inp) => inp.data.points.get(field)), docMaps);
    size += p.values.byteLength + p.docs.byteLength;
    points.set(field, p);
    yield;
  }
  // ---- sorted set doc values
  const sortedSet = new Map<string, { offsets: Uint32Array; ords: Uint32Array; terms: string[] }>();
  const ssNames = new Set<string>();
  for (const inp of inputs) for (const f of inp.data.sortedSet.keys()) ssNames.add(f);
  for (const field of ssNames) {
    const srcs = inputs.map((i) => i.data.sortedSet.get(field));
    const { terms, maps } = yield* mergeTermLists(srcs.map((s) => s?.terms ?? []));
    const { offsets, total } = mergedOffsets(srcs, docMaps, maxDoc);
    const ords = new Uint32Array(total);
    for (let s = 0; s < inputs.length; s++) {
      const dv = srcs[s];
      if (!dv) continue;
      const m = docMaps[s];
      const om = maps[s];
      for (let i = 0; i < m.length; i++) if (m[i] >= 0) {
        let o = offsets[m[i]];
        for (let k = dv.offsets[i]; k < dv.offsets[i + 1]; k++) ords[o++] = om[dv.ords[k]];
      }
    }
    size += ords.byteLength + offsets.byteLength;
    sortedSet.set(field, { offsets, ords, terms });
    yield;
  }
  return {
    data: {
      name,
      maxDoc,
      inverted,
      numeric,
      points,
      sortedSet,
      ids,
      routing,
      sourceBytes,
      sourceStarts,
      sourceMissing,
      seqNos,
      primaryTerms,
      versions,
      maxSeqNo,
      sizeInBytes: size,
    },
    docMaps,
  };
}

/**
 * k-way merge of sorted term lists (k is small); returns the union and per-list old ord → new ord maps.
 * Yields every 50k terms so a big dictionary (e.g. `_id`) does not block the event loop.
 */
function* mergeTermLists(lists: readonly (readonly string[])[]): Generator<void, { terms: string[]; maps: Uint32Array[] }, void> {
  const k = lists.length;
  const pos = new Array<number>(k).fill(0);
  const maps = lists.map((l) => new Uint32Array(l.length));
  const terms: string[] = [];
  let work = 0;
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
    for (let i = 0; i < k; i++) {
      if (pos[i] < lists[i].length && lists[i][pos[i]] === min) maps[i][pos[i]++] = ord;
    }
    if (++work >= 50_000) {
      work = 0;
      yield;
    }
  }
  return { terms, maps };
}

function* mergeInverted(
  field: string,
  inputs: MergeInput[],
  docMaps: Int32Array[],
  maxDoc: number,
): Generator<void, InvertedFieldData, void> {
  const srcs = inputs.map((i) => i.data.inverted.get(field));
  let withFreqs = false;
  let withPos = false;
  let withNorms = false;
  for (const s of srcs) {
    if (!s) continue;
    if (s.freqs) withFreqs = true;
    if (s.positions) withPos = true;
    if (s.norms) withNorms = true;
  }
  const { terms, maps } = yield* mergeTermLists(srcs.map((s) => s?.terms ?? []));
  // upper bounds for array sizes
  let cap = 0;
  let capPos = 0;
  for (const s of srcs) {
    if (!s) continue;
    cap += s.docs.length;
    if (s.positions) capPos += s.positions.length;
    else if (s.freqs) for (let i = 0; i < s.freqs.length; i++) capPos += s.freqs[i];
    else capPos += s.docs.length;
  }
  // reverse map: new ord → (for each source) old ord
  const rev: Int32Array[] = srcs.map(() => new Int32Array(terms.length).fill(-1));
  for (let s = 0; s < srcs.length; s++) {
    const m = maps[s];
    for (let o = 0; o < m.length; o++) rev[s][m[o]] = o;
  }
  let docs = new Uint32Array(cap);
  let freqs = withFreqs ? new Uint32Array(cap) : null;
  let posStarts = withPos ? new Uint32Array(terms.length + 1) : null;
  let positions = withPos ? new Uint32Array(capPos) : null;
  const postingStarts = new Uint32Array(terms.length + 1);
  let p = 0;
  let pp = 0;
  let sumTotalTermFreq = 0;
  const hasDoc = new Uint8Array(maxDoc);
  let docCount = 0;
  const finalTerms: string[] = [];
  let work = 0;
  for (let o = 0; o < terms.length; o++) {
    const startP = p;
    const startPP = pp;
    for (let s = 0; s < srcs.length; s++) {
      const src = srcs[s];
      const oo = rev[s][o];
      if (!src || oo < 0) continue;
      const m = docMaps[s];
      // running offset into the source term's positions block
      let srcOff = src.posStarts ? src.posStarts[oo] : 0;
      for (let k = src.postingStarts[oo]; k < src.postingStarts[oo + 1]; k++) {
        const nd = m[src.docs[k]];
        const srcFr = src.freqs ? src.freqs[k] : 1;
        const a = srcOff;
        srcOff += srcFr;
        if (nd < 0) continue;
        docs[p] = nd;
        if (!hasDoc[nd]) {
          hasDoc[nd] = 1;
          docCount++;
        }
        const fr = src.freqs ? src.freqs[k] : 1;
        if (freqs) freqs[p] = fr;
        sumTotalTermFreq += fr;
        if (positions) {
          if (src.posStarts && src.positions) {
            positions.set(src.positions.subarray(a, a + srcFr), pp);
            pp += srcFr;
          } else {
            // the source indexed no positions for this field: pad so freq and positions agree
            for (let x = 0; x < fr; x++) positions[pp++] = 0;
          }
        }
        p++;
        work++;
      }
    }
    if (p > startP) {
      postingStarts[finalTerms.length] = startP;
      if (posStarts) posStarts[finalTerms.length] = startPP;
      finalTerms.push(terms[o]);
    }
    if (work > 200_000) {
      work = 0;
      yield;
    }
  }
  const outTerms = finalTerms;
  postingStarts[outTerms.length] = p;
  if (posStarts) posStarts[outTerms.length] = pp;
  docs = docs.slice(0, p);
  if (freqs) freqs = freqs.slice(0, p);
  if (posStarts) posStarts = posStarts.slice(0, outTerms.length + 1);
  if (positions) positions = positions.slice(0, pp);
  let norms: Uint8Array | null = null;
  if (withNorms) {
    norms = new Uint8Array(maxDoc);
    for (let s = 0; s < srcs.length; s++) {
      const n = srcs[s]?.norms;
      if (!n) continue;
      const m = docMaps[s];
      for (let i = 0; i < m.length; i++) if (m[i] >= 0) norms[m[i]] = n[i];
    }
  }
  return {
    terms: outTerms,
    postingStarts: postingStarts.slice(0, outTerms.length + 1),
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

/**
 * Per-document value offsets of a merged doc-values field: each live document keeps its value count under its
 * new doc id (`docMaps`, -1 = deleted); `total` is the number of values.
 */
function mergedOffsets(
  srcs: readonly ({ offsets: Uint32Array } | undefined)[],
  docMaps: Int32Array[],
  maxDoc: number,
): { offsets: Uint32Array; total: number } {
  const offsets = new Uint32Array(maxDoc + 1);
  let total = 0;
  for (let s = 0; s < srcs.length; s++) {
    const dv = srcs[s];
    if (!dv) continue;
    const m = docMaps[s];
    for (let i = 0; i < m.length; i++) if (m[i] >= 0) {
      const c = dv.offsets[i + 1] - dv.offsets[i];
      offsets[m[i] + 1] = c;
      total += c;
    }
  }
  for (let d = 0; d < maxDoc; d++) offsets[d + 1] += offsets[d];
  return { offsets, total };
}

/** k-way merge of per-segment point lists (each sorted by value, then doc; doc maps are monotonic) */
function* mergePoints(
  srcs: ReadonlyArray<{ values: Float64Array; docs: Uint32Array } | undefined>,
  docMaps: Int32Array[],
): Generator<void, { values: Float64Array; docs: Uint32Array }, void> {
  let cap = 0;
  for (const p of srcs) if (p) cap += p.docs.length;
  const values = new Float64Array(cap);
  const docs = new Uint32Array(cap);
  const k = srcs.length;
  const pos = new Array<number>(k).fill(0);
  // skip deleted heads
  const advance = (i: number): void => {
    const p = srcs[i];
    if (!p) return;
    const m = docMaps[i];
    while (pos[i] < p.docs.length && m[p.docs[pos[i]]] < 0) pos[i]++;
  };
  for (let i = 0; i < k; i++) advance(i);
  let w = 0;
  let work = 0;
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
    if (++work >= 100_000) {
      work = 0;
      yield;
    }
  }
  return { values: w === cap ? values : values.slice(0, w), docs: w === cap ? docs : docs.slice(0, w) };
}
