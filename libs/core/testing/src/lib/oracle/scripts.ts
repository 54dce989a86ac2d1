/**
 * Scripts and runtime fields in the oracle (Painless, in core):
 *
 * - the `script` query, with a few Painless shapes over doc values: `doc[f].value` is the smallest value of
 *   a multi-valued number and the first keyword in sorted (UTF-8) order; `doc[f].size()` counts every
 *   value of a number (sorted numeric doc values keep duplicates) but distinct keywords (sorted set doc
 *   values); a document without values has size 0. The query scores every match with its boost (1).
 * - runtime fields: a mapping may carry `rt_n` (long, twice the smallest `n`) and `rt_kw` (keyword, the first
 *   `kw` with `-r` appended); every search of such a case sends them as `runtime_mappings`, and every
 *   registered kind (queries, aggregations, sorts) may use them like mapped fields. The model computes their
 *   values into each document's source before evaluating (`withRuntimeFields`).
 */
import fc from 'fast-check';
import type { QueryKind } from './kinds.js';
import { compareUtf8, storedNumber, valuesOf, type Json, type ModelDoc, type OracleField, type OracleMapping } from './model.js';
import { KEYWORDS, scalarValue } from './values.js';

const one = <T>(x: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...x);

/** the values `doc[f]` holds in a script, in doc-value order (numbers sorted with duplicates, keywords distinct) */
function docValues(f: OracleField, doc: ModelDoc): Array<number | string> {
  const vs = valuesOf(doc, f.name);
  if (f.type === 'keyword') return [...new Set(vs.map(String))].sort(compareUtf8);
  return vs.map((v) => storedNumber(f.type, v)).sort((a, b) => a - b);
}

const NUMERIC = ['long', 'integer', 'double', 'float'] as const;

type ScriptShape = 'gt' | 'size' | 'eq';

const SOURCES: Record<ScriptShape, (f: string) => string> = {
  gt: (f) => `doc['${f}'].size() > 0 && doc['${f}'].value > params.x`,
  size: (f) => `doc['${f}'].size() >= params.c`,
  eq: (f) => `doc['${f}'].size() > 0 && doc['${f}'].value == params.v`,
};

function shapeOf(source: string): ScriptShape {
  if (source.includes('params.x')) return 'gt';
  if (source.includes('params.c')) return 'size';
  return 'eq';
}

const scriptQuery: QueryKind = {
  names: ['script'],
  arbitrary(ctx) {
    const nums = ctx.fields(...NUMERIC).filter((f) => !f.runtime);
    const kws = ctx.fields('keyword').filter((f) => !f.runtime);
    const q = (shape: ScriptShape, f: OracleField, params: Json): Json => ({ script: { script: { source: SOURCES[shape](f.name), params } } });
    const options: Array<fc.Arbitrary<Json>> = [];
    if (nums.length) {
      options.push(one(nums).chain((f) => fc.oneof(scalarValue(f.type), fc.integer({ min: -6, max: 14 }).map((k) => k / 2)).map((x) => q('gt', f, { x }))));
    }
    if (nums.length || kws.length) {
      options.push(one([...nums, ...kws]).chain((f) => fc.integer({ min: 0, max: 3 }).map((c) => q('size', f, { c }))));
    }
    if (kws.length) options.push(one(kws).chain((f) => one(KEYWORDS).map((v) => q('eq', f, { v }))));
    return options.length ? fc.oneof(...options) : null;
  },
  matches(_n, body, doc, ctx) {
    const script = (body as Json)['script'] as Json;
    const source = String(script['source']);
    const params = script['params'] as Json;
    const field = /doc\['([^']+)'\]/.exec(source)![1]!;
    const f = ctx.mapping.fields.find((x) => x.name === field)!;
    const vs = docValues(f, doc);
    switch (shapeOf(source)) {
      case 'gt':
        return vs.length > 0 && (vs[0] as number) > Number(params['x']);
      case 'size':
        return vs.length >= Number(params['c']);
      case 'eq':
        return vs.length > 0 && vs[0] === params['v'];
    }
  },
  score() {
    return 1;
  },
};

export const SCRIPT_QUERY_KINDS: readonly QueryKind[] = [scriptQuery];

// ------------------------------------------------------------------------------------------ runtime fields

interface RuntimeDef {
  /** the mapped field it reads, which must be in the mapping */
  from: string;
  type: 'long' | 'keyword';
  script: string;
  /** the values the script emits for a document (`doc[from].value`: the first doc value) */
  values(doc: ModelDoc, from: OracleField): unknown[];
}

export const RUNTIME_FIELDS: Record<string, RuntimeDef> = {
  rt_n: {
    from: 'n',
    type: 'long',
    script: "if (doc['n'].size() > 0) { emit(doc['n'].value * 2); }",
    values: (doc, from) => docValues(from, doc).slice(0, 1).map((v) => (v as number) * 2),
  },
  rt_kw: {
    from: 'kw',
    type: 'keyword',
    script: "if (doc['kw'].size() > 0) { emit(doc['kw'].value + '-r'); }",
    values: (doc, from) => docValues(from, doc).slice(0, 1).map((v) => `${v}-r`),
  },
};

/** the runtime fields a mapping can carry (those whose source field it maps) */
export function runtimeFieldsFor(mapping: OracleMapping): OracleField[] {
  return Object.entries(RUNTIME_FIELDS)
    .filter(([, def]) => mapping.fields.some((f) => f.name === def.from && !f.nested))
    .map(([name, def]) => ({ name, type: def.type, runtime: true }));
}

/** the `runtime_mappings` of a search over the mapping; undefined when it has no runtime field */
export function runtimeMappings(mapping: OracleMapping): Json | undefined {
  const rts = mapping.fields.filter((f) => f.runtime);
  if (rts.length === 0) return undefined;
  return Object.fromEntries(rts.map((f) => [f.name, { type: f.type, script: { source: RUNTIME_FIELDS[f.name]!.script } }]));
}

/** the document as the model evaluates it: its runtime fields' values computed into its source */
export function withRuntimeFields(doc: ModelDoc, mapping: OracleMapping): ModelDoc {
  const rts = mapping.fields.filter((f) => f.runtime);
  if (rts.length === 0) return doc;
  const source = { ...doc.source };
  for (const f of rts) {
    const def = RUNTIME_FIELDS[f.name]!;
    const vs = def.values(doc, mapping.fields.find((x) => x.name === def.from)!);
    if (vs.length) source[f.name] = vs.length === 1 ? vs[0] : vs;
  }
  return { id: doc.id, source };
}
