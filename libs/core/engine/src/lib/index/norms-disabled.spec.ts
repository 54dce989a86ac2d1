/**
 * Norms disabled on an existing field (the mapping update `norms: true → false`): a segment holds a field's
 * norms only when every doc that indexed the field had them, whether the segment is built from a buffer or
 * merged (Lucene: omitting norms is sticky). `exists` still finds the docs indexed with norms in a segment that
 * lost them (they have no `_field_names` term), and a segment without norms scores as one written without.
 */
import { SegmentModes } from './testing/segment-modes.js';
import { SegmentBuilder } from './segment-builder.js';
import { SegmentReader } from './segment.js';
import { mergeSync } from './segment-merger.js';
import type { SegmentCore } from './segment-core.js';
import type { ParsedDocument, ParsedField } from '../mapper/parsed-document.js';
import { encodeNorm } from '../util/small-float.js';
import { existsIterator } from '../search/exists-query.js';
import { newLiveDocs, clearBit } from './live-docs.js';

const segs = new SegmentModes('norms-spec-', '_n');
afterAll(() => segs.remove());

/** a doc with text field `t` (norms as its mapping says: without them it gets a `_field_names` term, as the parser does) */
function doc(id: string, text: string | null, norms: boolean): ParsedDocument {
  const fields: ParsedField[] = [{ name: '_id', tokens: [{ term: id, position: 0 }], indexOptions: 'docs' }];
  if (text !== null) {
    fields.push({ name: 't', tokens: text.split(' ').map((term, position) => ({ term, position })), indexOptions: 'positions', norms });
    if (!norms) fields.push({ name: '_field_names', tokens: [{ term: 't', position: 0 }], indexOptions: 'docs' });
  }
  fields.push({ name: 'other', tokens: [{ term: 'x', position: 0 }], indexOptions: 'docs' });
  fields.push({ name: '_field_names', tokens: [{ term: 'other', position: 0 }], indexOptions: 'docs' });
  return { id, source: new TextEncoder().encode(JSON.stringify({ id, t: text })), fields };
}

function build(docs: ParsedDocument[]): SegmentCore {
  const b = new SegmentBuilder();
  docs.forEach((d, i) => b.add(d, { seqNo: i, primaryTerm: 1, version: 1 }));
  return segs.core(b.build(segs.name('_b')).data);
}

function merge(...inputs: Array<[SegmentCore, Uint32Array | null] | SegmentCore>): SegmentCore {
  const ins = inputs.map((x) => (Array.isArray(x) ? { data: x[0], liveDocs: x[1] } : { data: x, liveDocs: null }));
  return segs.core(mergeSync(segs.name('_m'), ins).data.data);
}

/** ids of the live docs `exists` finds for `t` */
function existing(c: SegmentCore, live: Uint32Array | null = null): string[] {
  const r = new SegmentReader(c, live, 0);
  const it = existsIterator(r, 't');
  const out: string[] = [];
  if (it) for (let d = it.nextDoc(); d !== 2147483647; d = it.nextDoc()) if (r.isLive(d)) out.push(r.id(d));
  return out.sort();
}

const withNorms = [doc('a1', 'x y z', true), doc('a2', 'x', true), doc('a3', null, true)];
const without = [doc('b1', 'x y', false), doc('b2', 'y y y y', false), doc('b3', null, false)];

describe.each(['memory', 'disk'] as const)('norms disabled on an existing field (%s)', (mode) => {
  beforeAll(() => (segs.mode = mode));

  it('a segment built with norms keeps them; one built without has none; a buffer that mixed both has none', () => {
    const a = build(withNorms);
    expect(a.fieldInfo('t')).toEqual({ freqs: true, positions: true, norms: true });
    expect(Array.from(a.norms('t')!)).toEqual([encodeNorm(3), encodeNorm(1), 0]);
    const b = build(without);
    expect(b.fieldInfo('t')).toEqual({ freqs: true, positions: true, norms: false });
    expect(b.norms('t')).toBeNull();
    // docs indexed before the mapping update, then after it, in the same buffer (either order)
    for (const docs of [[...withNorms, ...without], [...without, ...withNorms]]) {
      const m = build(docs);
      expect(m.fieldInfo('t')).toEqual({ freqs: true, positions: true, norms: false });
      expect(m.norms('t')).toBeNull();
      expect(existing(m)).toEqual(['a1', 'a2', 'b1', 'b2']);
    }
    // other fields keep what they had
    expect(build([...withNorms, ...without]).fieldInfo('other')).toEqual({ freqs: false, positions: false, norms: false });
  });

  it('a merge of segments with and without norms has none; exists finds every doc that has the field', () => {
    const a = build(withNorms);
    const b = build(without);
    for (const m of [merge(a, b), merge(b, a)]) {
      expect(m.fieldInfo('t')).toEqual({ freqs: true, positions: true, norms: false });
      expect(m.norms('t')).toBeNull();
      expect(existing(m)).toEqual(['a1', 'a2', 'b1', 'b2']);
    }
    // merged again with a segment that has norms: still none (sticky)
    const again = merge(merge(a, b), build([doc('c1', 'x y', true)]));
    expect(again.norms('t')).toBeNull();
    expect(existing(again)).toEqual(['a1', 'a2', 'b1', 'b2', 'c1']);
    // deleted docs count: an input whose docs without norms are all deleted still drops them (as Lucene's field infos)
    const bDeleted = newLiveDocs(3);
    for (const d of [0, 1, 2]) clearBit(bDeleted, d);
    const m2 = merge(a, [b, bDeleted]);
    expect(m2.maxDoc).toBe(3);
    expect(m2.norms('t')).toBeNull();
    expect(existing(m2)).toEqual(['a1', 'a2']);
    // exists on a live-docs view of a mixed segment
    const m = merge(a, b);
    const live = newLiveDocs(6);
    clearBit(live, 0);
    clearBit(live, 3);
    expect(existing(m, live)).toEqual(['a2', 'b2']);
  });

  it('a merge of inputs that all have norms (or lack the field) keeps them', () => {
    const m = merge(build(withNorms), build([doc('c1', 'x y', true)]), build([doc('d1', null, false)]));
    expect(m.fieldInfo('t')).toEqual({ freqs: true, positions: true, norms: true });
    expect(Array.from(m.norms('t')!)).toEqual([encodeNorm(3), encodeNorm(1), 0, encodeNorm(2), 0]);
    expect(existing(m)).toEqual(['a1', 'a2', 'c1']);
  });

  it('a segment without norms, from a merge, holds what one built from the same docs without norms holds', () => {
    const m = merge(build(withNorms), build(without));
    const fresh = build([...withNorms, ...without].map((d) => doc(d.id, JSON.parse(new TextDecoder().decode(d.source!)).t, false)));
    const r1 = new SegmentReader(m, null, 0);
    const r2 = new SegmentReader(fresh, null, 0);
    expect(r1.fieldStats('t')).toEqual(r2.fieldStats('t'));
    expect(r1.norms('t')).toBeNull();
    expect(r2.norms('t')).toBeNull();
    for (const term of ['x', 'y', 'z']) {
      const p1 = r1.postings('t', term)!;
      const p2 = r2.postings('t', term)!;
      expect([Array.from(p1.docs), Array.from(p1.freqs!)]).toEqual([Array.from(p2.docs), Array.from(p2.freqs!)]);
    }
  });
});
