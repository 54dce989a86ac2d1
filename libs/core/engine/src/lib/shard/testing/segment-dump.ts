/** Tests of the storage engine: a canonical per-live-doc view of everything a segment stores, to compare two segments. */
import type { SegmentReader } from '../../index/segment.js';

/** a canonical per-live-doc view of everything a segment stores */
export function dumpSegment(r: SegmentReader, numericFields = ['n', 'm'], keywordFields = ['tag.keyword', 'msg.keyword']): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (let d = 0; d < r.maxDoc; d++) if (r.isLive(d)) out[r.id(d)] = { src: Buffer.from(r.source(d)!).toString(), seq: r.seqNo(d), ver: r.version(d), inv: {}, num: {}, pts: {}, ss: {} };
  // by name: the order of a segment's fields is no part of what it stores (an in-memory segment lists them as they came)
  for (const f of [...r.fieldNames()].sort()) {
    const t = r.terms(f)!;
    for (let o = 0; o < t.size; o++) {
      const p = t.postings(o);
      for (let i = 0; i < p.docFreq; i++) {
        const d = p.docs[i];
        if (!r.isLive(d)) continue;
        const inv = out[r.id(d)]['inv'] as Record<string, unknown[]>;
        (inv[f] ??= []).push([t.term(o), p.freqs ? p.freqs[i] : 1, p.positions(i) ? Array.from(p.positions(i)!) : null]);
      }
    }
    const norms = r.norms(f);
    if (norms) for (let d = 0; d < r.maxDoc; d++) if (r.isLive(d)) (out[r.id(d)]['inv'] as Record<string, unknown>)[`${f}#norm`] = norms[d];
  }
  for (const f of numericFields) {
    const dv = r.numericDocValues(f);
    if (dv) for (let d = 0; d < r.maxDoc; d++) if (r.isLive(d)) (out[r.id(d)]['num'] as Record<string, unknown>)[f] = Array.from(dv.values.subarray(dv.offsets[d], dv.offsets[d + 1]));
    const pts = r.pointIndex(f);
    if (pts) {
      let prev = -Infinity;
      for (let i = 0; i < pts.values.length; i++) {
        if (pts.values[i] < prev) throw new Error(`points of ${f} out of order at ${i}`);
        prev = pts.values[i];
        const d = pts.docs[i];
        if (r.isLive(d)) ((out[r.id(d)]['pts'] as Record<string, number[]>)[f] ??= []).push(pts.values[i]);
      }
    }
  }
  for (const f of keywordFields) {
    const ss = r.sortedSetDocValues(f);
    if (ss) for (let d = 0; d < r.maxDoc; d++) if (r.isLive(d)) (out[r.id(d)]['ss'] as Record<string, unknown>)[f] = Array.from(ss.ords.subarray(ss.offsets[d], ss.offsets[d + 1])).map((o) => ss.terms[o]);
  }
  return out;
}
