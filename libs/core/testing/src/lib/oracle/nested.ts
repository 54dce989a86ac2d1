/**
 * Nested objects in the oracle: an optional `nest` field mapped `nested` (sub-fields `nest.k` keyword,
 * `nest.v` long) whose objects are hidden documents. The model evaluates inner queries and aggregations on
 * one "object document" per object (its values under their full names, the root's id), never crossing
 * objects: a plain query on `nest.k` sees nothing at the root, a nested query needs one object that matches.
 */
import fc from 'fast-check';
import type { AggKind, QueryKind } from './kinds.js';
import type { Corpus, Json, ModelDoc, OracleField } from './model.js';
import { fieldValue } from './values.js';

export const NESTED_PATH = 'nest';
/** the sub-fields of the nested field (names relative to it) */
export const NESTED_FIELDS: readonly OracleField[] = [
  { name: 'k', type: 'keyword' },
  { name: 'v', type: 'long' },
];

/** the value of a nested field in a document: an array of objects (so partial updates replace it), or null */
export function nestedValue(fields: readonly OracleField[], path: string): fc.Arbitrary<unknown> {
  const rec: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) rec[f.name.substring(path.length + 1)] = fieldValue(f.type);
  return fc.oneof({ weight: 8, arbitrary: fc.array(fc.record(rec, { requiredKeys: [] }), { minLength: 0, maxLength: 3 }) }, { weight: 1, arbitrary: fc.constant(null) });
}

/** the root document an object document came from */
const rootOf = new WeakMap<ModelDoc, ModelDoc>();

/** one document per object of the nested field (null entries are no objects), as ES indexes them */
export function objectDocs(doc: ModelDoc, path: string): ModelDoc[] {
  const v = doc.source[path];
  const list = Array.isArray(v) ? v : v === null || v === undefined ? [] : [v];
  const out: ModelDoc[] = [];
  for (const o of list) {
    if (o === null || typeof o !== 'object' || Array.isArray(o)) continue;
    const source: Json = {};
    for (const [k, x] of Object.entries(o as Json)) source[`${path}.${k}`] = x;
    const d: ModelDoc = { id: doc.id, source };
    rootOf.set(d, doc);
    out.push(d);
  }
  return out;
}

const nestedQuery: QueryKind = {
  names: ['nested'],
  weight: 1,
  arbitrary(ctx, depth) {
    const paths = ctx.mapping.nested ?? [];
    if (paths.length === 0 || depth < 1) return null;
    return fc
      .record(
        {
          path: fc.constantFrom(...paths),
          // (a nested query on the path of the scope it is in is an error in Lucene/ES: not generated)
          query: ctx.query(depth - 1).filter((q) => !JSON.stringify(q).includes('"nested":')),
          score_mode: fc.constantFrom('avg', 'sum', 'min', 'max', 'none'),
          ignore_unmapped: fc.boolean(),
        },
        { requiredKeys: ['path', 'query'] },
      )
      .map((body) => ({ nested: body }));
  },
  matches(_name, body, doc, ctx) {
    const b = body as Json;
    return objectDocs(doc, String(b['path'])).some((o) => ctx.matches(b['query'] as Json, o));
  },
};

const nestedAgg: AggKind = {
  names: ['nested'],
  weight: 1,
  arbitrary(ctx, depth) {
    const paths = ctx.mapping.nested ?? [];
    if (paths.length === 0 || depth < 1) return null;
    const back = ctx.subAggs(depth - 1).map((subs) => (subs ? { reverse_nested: {}, aggs: subs } : { reverse_nested: {} }));
    return fc
      .record({ path: fc.constantFrom(...paths), subs: ctx.subAggs(depth - 1), back: fc.option(back, { nil: undefined, freq: 3 }) })
      .map(({ path, subs, back }) => {
        const aggs: Record<string, Json> = { ...(subs ?? {}), ...(back ? { back } : {}) };
        return Object.keys(aggs).length ? { nested: { path }, aggs } : { nested: { path } };
      });
  },
  evaluate(_t, body, subs, docs, ctx) {
    const path = String(body['path']);
    const objects: ModelDoc[] = docs.flatMap((d) => objectDocs(d, path));
    return { doc_count: objects.length, ...ctx.evaluateSubs(subs, objects) };
  },
};

/** only generated right under `nested` (by the nested kind): back to the distinct root documents */
const reverseNestedAgg: AggKind = {
  names: ['reverse_nested'],
  arbitrary: () => null,
  evaluate(_t, _body, subs, docs, ctx) {
    const roots: ModelDoc[] = [];
    const seen = new Set<ModelDoc>();
    for (const d of docs) {
      const r = rootOf.get(d);
      if (r && !seen.has(r)) {
        seen.add(r);
        roots.push(r);
      }
    }
    return { doc_count: roots.length, ...ctx.evaluateSubs(subs, roots as Corpus) };
  },
};

export const NESTED_QUERY_KINDS: readonly QueryKind[] = [nestedQuery];
export const NESTED_AGG_KINDS: readonly AggKind[] = [nestedAgg, reverseNestedAgg];
