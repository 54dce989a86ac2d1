/**
 * Runtime fields: the mapping's `runtime` section and the search body's `runtime_mappings`.
 * A runtime field is a normal MappedFieldType (not indexed, with doc values) whose doc values a
 * RuntimeLeafReader computes on demand — by running the field's script (`emit`) or, without a script,
 * from the `_source` value of the same name — so term/terms/range/exists queries, sorts, aggregations and
 * `fields` work on it unchanged. A runtime field shadows a mapped field of the same name.
 */
import { EsError, ScriptContexts, type ScriptService } from '@strata/core-common';
import { PainlessDateTime, painlessToString, ScriptDocValues, unbox } from '@strata/core-painless';
import type { DirectoryReader, LeafReader, LeafReaderContext, NumericDocValues, PointIndex, Postings, SortedSetDocValues, TermsDict, FieldStats } from '../index/leaf-reader.js';
import type { MappedFieldType, RuntimeFieldSpec } from '../mapper/mapped-field-type.js';
import { buildFieldType, isPlainObject, type Json, type MappingContext } from '../mapper/mapping.js';
import { DateFieldType, parseNumber } from '../mapper/field-types.js';
import { LeafScriptVars, type RuntimeValuesSource } from './doc-lookup.js';

export const RUNTIME_FIELD_TYPES = ['boolean', 'composite', 'date', 'double', 'geo_point', 'ip', 'keyword', 'long'] as const;

const PARAMS_BY_TYPE: Record<string, string[]> = {
  date: ['type', 'script', 'format', 'locale', 'on_script_error', 'meta'],
  composite: ['type', 'script', 'fields', 'on_script_error', 'meta'],
};
const DEFAULT_PARAMS = ['type', 'script', 'on_script_error', 'meta'];

/** the maximum number of values a runtime field may emit for one document (ES AbstractFieldScript) */
export const MAX_EMITTED_VALUES = 100;

function mpe(reason: string, cause?: Error): EsError {
  return new EsError('mapper_parsing_exception', 400, reason, cause ? { cause } : {});
}

/** builds the field types of a `runtime` object (mapping section or request runtime_mappings) */
export function buildRuntimeFieldTypes(defs: Json | undefined, ctx: MappingContext, scripts: ScriptService, where: 'mapping' | 'request' | 'aggregation' = 'mapping'): Map<string, MappedFieldType> {
  const out = new Map<string, MappedFieldType>();
  if (!defs) return out;
  for (const [name, raw] of Object.entries(defs)) {
    if (raw === null) continue;
    if (!isPlainObject(raw)) throw mpe(`Expected map for runtime field [${name}] definition but got a ${typeof raw}`);
    const def = raw as Json;
    const type = def['type'];
    if (type === undefined) throw mpe(`No type specified for runtime field [${name}]`);
    if (!(RUNTIME_FIELD_TYPES as readonly string[]).includes(String(type))) {
      throw mpe(`No handler for type [${String(type)}] declared on runtime field [${name}]`);
    }
    const t = String(type);
    const allowed = where === 'aggregation' ? [...(PARAMS_BY_TYPE[t] ?? DEFAULT_PARAMS), '$agg'] : (PARAMS_BY_TYPE[t] ?? DEFAULT_PARAMS);
    for (const k of Object.keys(def)) {
      if (!allowed.includes(k)) throw mpe(`unknown parameter [${k}] on runtime field [${name}] of type [${t}]`);
    }
    if (where === 'aggregation') {
      const ref = scripts.parse(def['script'], 'script');
      const agg = (def['$agg'] ?? {}) as { field?: string };
      const spec: RuntimeFieldSpec = { type: t, script: scripts.compile(ref, ScriptContexts.AGGS), params: ref.params, def, returns: agg.field !== undefined ? { field: agg.field } : {} };
      out.set(name, withRuntime(concreteType(name, t, def, ctx), spec));
      continue;
    }
    let script;
    let params: Record<string, unknown> = {};
    if (def['script'] !== undefined) {
      const ref = scripts.parse(def['script'], 'script');
      params = ref.params;
      try {
        script = scripts.compile(ref, ScriptContexts.runtimeField(t));
      } catch (e) {
        if (where === 'mapping' && e instanceof EsError && e.type === 'script_exception') throw mpe(e.reason, e);
        throw e;
      }
    }
    if (t === 'composite') {
      if (!script) throw mpe(`composite runtime field [${name}] must declare a [script]`);
      const fields = def['fields'];
      if (!isPlainObject(fields) || Object.keys(fields).length === 0) throw mpe(`composite runtime field [${name}] must declare its [fields]`);
      const subTypes: Record<string, string> = {};
      for (const [sub, sdef] of Object.entries(fields)) {
        const st = isPlainObject(sdef) ? String((sdef as Json)['type']) : '';
        if (!(RUNTIME_FIELD_TYPES as readonly string[]).includes(st) || st === 'composite') throw mpe(`No handler for type [${st}] declared on runtime field [${name}.${sub}]`);
        subTypes[sub] = st;
      }
      const parentSpec: RuntimeFieldSpec = { type: 'composite', script, params, fields: subTypes, def };
      out.set(name, withRuntime(buildFieldType(name, { type: 'object' }, ctx), parentSpec));
      for (const [sub, st] of Object.entries(subTypes)) {
        const sdef = (fields as Json)[sub] as Json;
        const full = `${name}.${sub}`;
        const spec: RuntimeFieldSpec = { type: st, params, parent: name, def: sdef };
        out.set(full, withRuntime(concreteType(full, st, sdef, ctx), spec));
      }
      continue;
    }
    if (def['fields'] !== undefined) throw mpe(`unknown parameter [fields] on runtime field [${name}] of type [${t}]`);
    const spec: RuntimeFieldSpec = { type: t, script, params, def };
    out.set(name, withRuntime(concreteType(name, t, def, ctx), spec));
  }
  return out;
}

function concreteType(name: string, type: string, def: Json, ctx: MappingContext): MappedFieldType {
  const d: Json = { type, index: false, doc_values: true };
  if (type === 'date' && def['format'] !== undefined) d['format'] = def['format'];
  return buildFieldType(name, d, ctx);
}

function withRuntime(ft: MappedFieldType, spec: RuntimeFieldSpec): MappedFieldType {
  Object.defineProperty(ft, 'runtime', { value: spec, enumerable: false });
  if (spec.type !== 'composite' && spec.type !== 'geo_point') Object.defineProperty(ft, 'hasDocValues', { value: true });
  return ft;
}

// ------------------------------------------------------------------------------------------ evaluation

function getPath(source: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  const walk = (node: unknown, parts: string[], i: number): void => {
    if (node === null || node === undefined) return;
    if (Array.isArray(node)) {
      for (const x of node) walk(x, parts, i);
      return;
    }
    if (i === parts.length) {
      out.push(node);
      return;
    }
    if (typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    // dotted keys ("a.b": 1) as well as nested objects
    for (let j = parts.length; j > i; j--) {
      const key = parts.slice(i, j).join('.');
      if (Object.prototype.hasOwnProperty.call(o, key)) walk(o[key], parts, j);
    }
  };
  walk(source, path.split('.'), 0);
  return out;
}

/** a value from _source or an `emit` argument converted to doc-value form; undefined when malformed */
function toDocValue(ft: MappedFieldType, type: string, v: unknown, fromScript: boolean): unknown {
  if (v === null || v === undefined) return undefined;
  switch (type) {
    case 'long':
    case 'double':
      if (fromScript) {
        if (typeof v !== 'number') throw new EsError('class_cast_exception', 400, `Cannot cast from [${javaType(v)}] to [${type}].`, { plain: true });
        return type === 'long' ? Math.trunc(v) : v;
      }
      try {
        return parseNumber(type, v);
      } catch {
        return undefined;
      }
    case 'boolean':
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (fromScript) throw new EsError('class_cast_exception', 400, `Cannot cast from [${javaType(v)}] to [boolean].`, { plain: true });
      if (v === 'true') return 1;
      if (v === 'false' || v === '') return 0;
      return undefined;
    case 'date':
      if (fromScript) {
        if (typeof v !== 'number') throw new EsError('class_cast_exception', 400, `Cannot cast from [${javaType(v)}] to [long].`, { plain: true });
        return v;
      }
      try {
        return (ft as DateFieldType).parseIndexValue(v);
      } catch {
        return undefined;
      }
    case 'keyword':
      if (fromScript && typeof v !== 'string') throw new EsError('class_cast_exception', 400, `Cannot cast from [${javaType(v)}] to [java.lang.String].`, { plain: true });
      return typeof v === 'object' ? undefined : painlessToString(v);
    case 'ip':
      try {
        return ft.termValue(String(v));
      } catch (e) {
        if (fromScript) throw e;
        return undefined;
      }
    case 'geo_point':
      return geoPoint(v);
  }
  return undefined;
}

function geoPoint(v: unknown): { lat: number; lon: number } | undefined {
  if (Array.isArray(v) && v.length >= 2 && typeof v[0] === 'number' && typeof v[1] === 'number') return { lat: v[1], lon: v[0] };
  if (typeof v === 'string') {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(v);
    if (m) return { lat: Number(m[1]), lon: Number(m[2]) };
    return undefined;
  }
  if (isPlainObject(v)) {
    const o = v as Json;
    if (typeof o['lat'] === 'number' && typeof o['lon'] === 'number') return { lat: o['lat'], lon: o['lon'] };
    if (o['type'] === 'Point' && Array.isArray(o['coordinates'])) return { lat: Number(o['coordinates'][1]), lon: Number(o['coordinates'][0]) };
  }
  return undefined;
}

/** an aggregation script's returned value in doc-value form (numbers, dates, strings; null is no value) */
function scriptResultValue(ft: MappedFieldType, type: string, v: unknown): unknown {
  if (v === null || v === undefined) return undefined;
  if (type === 'keyword') return painlessToString(v);
  if (v instanceof PainlessDateTime) v = v.millis;
  switch (type) {
    case 'long':
    case 'double':
    case 'date':
      if (typeof v === 'number') return type === 'long' ? Math.trunc(v) : v;
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
      throw new EsError('class_cast_exception', 400, `Cannot cast ${javaType(v)} to java.lang.Number`, { plain: true });
    case 'boolean':
      return v === true ? 1 : v === false ? 0 : undefined;
    case 'ip':
      return ft.termValue(String(v));
  }
  return painlessToString(v);
}

function javaType(v: unknown): string {
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  return v === null ? 'null' : 'java.util.HashMap';
}

function tooManyValues(name: string, n: number): EsError {
  return new EsError('illegal_argument_exception', 400, `Runtime field [${name}] is emitting [${n}] values while the maximum number of values allowed is [${MAX_EMITTED_VALUES}]`, { plain: true });
}

/**
 * A segment reader that also serves runtime fields: their doc values are computed once per reader for the
 * whole segment when a query, sort or aggregation asks for them, and per document for scripts and fetch.
 */
export class RuntimeLeafReader implements LeafReader, RuntimeValuesSource {
  private readonly memo = new Map<string, { doc: number; values: readonly unknown[] }>();
  private readonly numeric = new Map<string, NumericDocValues | null>();
  private readonly sorted = new Map<string, SortedSetDocValues | null>();
  private readonly evaluating: string[] = [];

  constructor(
    readonly base: LeafReader,
    private readonly fieldType: (name: string) => MappedFieldType | undefined,
  ) {}

  get segmentName(): string {
    return this.base.segmentName;
  }
  get maxDoc(): number {
    return this.base.maxDoc;
  }
  get numDocs(): number {
    return this.base.numDocs;
  }
  get liveDocs(): Uint32Array | null {
    return this.base.liveDocs;
  }
  get delGen(): number {
    return this.base.delGen;
  }
  isLive(doc: number): boolean {
    return this.base.isLive(doc);
  }
  fieldNames(): string[] {
    return this.base.fieldNames();
  }
  terms(field: string): TermsDict | null {
    return this.runtimeType(field) ? null : this.base.terms(field);
  }
  postings(field: string, term: string): Postings | null {
    return this.runtimeType(field) ? null : this.base.postings(field, term);
  }
  fieldStats(field: string): FieldStats | null {
    return this.runtimeType(field) ? null : this.base.fieldStats(field);
  }
  norms(field: string): Uint8Array | null {
    return this.runtimeType(field) ? null : this.base.norms(field);
  }
  pointIndex(field: string): PointIndex | null {
    return this.runtimeType(field) ? null : this.base.pointIndex(field);
  }
  id(doc: number): string {
    return this.base.id(doc);
  }
  routing(doc: number): string | undefined {
    return this.base.routing(doc);
  }
  source(doc: number): Uint8Array | null {
    return this.base.source(doc);
  }
  seqNo(doc: number): number {
    return this.base.seqNo(doc);
  }
  primaryTerm(doc: number): number {
    return this.base.primaryTerm(doc);
  }
  version(doc: number): number {
    return this.base.version(doc);
  }

  private runtimeType(field: string): MappedFieldType | undefined {
    const ft = this.fieldType(field);
    return ft?.runtime ? ft : undefined;
  }

  numericDocValues(field: string): NumericDocValues | null {
    const ft = this.runtimeType(field);
    if (!ft) return this.base.numericDocValues(field);
    if (ft.kind !== 'numeric' && ft.kind !== 'date' && ft.kind !== 'boolean') return null;
    let dv = this.numeric.get(field);
    if (dv === undefined) {
      const max = this.maxDoc;
      const offsets = new Uint32Array(max + 1);
      let values = new Float64Array(Math.max(16, max));
      let n = 0;
      for (let d = 0; d < max; d++) {
        offsets[d] = n;
        if (!this.isLive(d)) continue;
        const vs = this.runtimeValues(field, d)!;
        if (n + vs.length > values.length) {
          const grown = new Float64Array(Math.max(values.length * 2, n + vs.length));
          grown.set(values);
          values = grown;
        }
        const start = n;
        for (const v of vs) values[n++] = v as number;
        if (vs.length > 1) values.subarray(start, n).sort();
      }
      offsets[max] = n;
      dv = { offsets, values: values.subarray(0, n) };
      this.numeric.set(field, dv);
    }
    return dv;
  }

  sortedSetDocValues(field: string): SortedSetDocValues | null {
    const ft = this.runtimeType(field);
    if (!ft) return this.base.sortedSetDocValues(field);
    if (ft.kind !== 'keyword' && ft.kind !== 'ip') return null;
    let dv = this.sorted.get(field);
    if (dv === undefined) {
      const max = this.maxDoc;
      const perDoc: Array<readonly unknown[] | undefined> = new Array(max);
      const termSet = new Set<string>();
      for (let d = 0; d < max; d++) {
        if (!this.isLive(d)) continue;
        const vs = this.runtimeValues(field, d)!;
        if (vs.length > 0) {
          perDoc[d] = vs;
          for (const v of vs) termSet.add(v as string);
        }
      }
      const terms = [...termSet].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      const ordOf = new Map<string, number>();
      terms.forEach((t, i) => ordOf.set(t, i));
      const offsets = new Uint32Array(max + 1);
      const ords: number[] = [];
      for (let d = 0; d < max; d++) {
        offsets[d] = ords.length;
        const vs = perDoc[d];
        if (!vs) continue;
        const os = [...new Set(vs.map((v) => ordOf.get(v as string)!))].sort((a, b) => a - b);
        for (const o of os) ords.push(o);
      }
      offsets[max] = ords.length;
      dv = { offsets, ords: Uint32Array.from(ords), terms };
      this.sorted.set(field, dv);
    }
    return dv;
  }

  /** values of a runtime field for one document in doc-value form (emit order) */
  runtimeValues(field: string, doc: number): readonly unknown[] | undefined {
    const ft = this.runtimeType(field);
    if (!ft) return undefined;
    const m = this.memo.get(field);
    if (m && m.doc === doc) return m.values;
    const values = this.evaluate(field, ft, doc);
    this.memo.set(field, { doc, values });
    return values;
  }

  private evaluate(field: string, ft: MappedFieldType, doc: number): readonly unknown[] {
    const spec = ft.runtime!;
    if (spec.parent !== undefined) {
      const parent = this.runtimeType(spec.parent);
      if (!parent) return [];
      const all = this.runtimeValues(spec.parent, doc)![0] as Record<string, unknown[]> | undefined;
      return all?.[field.slice(spec.parent.length + 1)] ?? [];
    }
    if (this.evaluating.includes(field)) {
      throw new EsError('illegal_argument_exception', 400, `Cyclic dependency detected while resolving runtime fields: ${[...this.evaluating, field].join(' -> ')}`, { plain: true });
    }
    if (spec.returns && spec.script) return this.evaluateReturns(field, ft, spec, doc);
    if (!spec.script) {
      const vars = this.scriptVars();
      vars.setDocument(doc);
      const out: unknown[] = [];
      for (const v of getPath(vars.sourceLookup.source(), field)) {
        const dv = toDocValue(ft, spec.type, v, false);
        if (dv !== undefined) out.push(dv);
      }
      return out;
    }
    this.evaluating.push(field);
    try {
      const vars = this.scriptVars(spec.params);
      vars.setDocument(doc);
      const out: unknown[] = [];
      let emit: (...a: unknown[]) => void;
      if (spec.type === 'composite') {
        const byField: Record<string, unknown[]> = {};
        const fields = spec.fields!;
        const put = (sub: string, v: unknown) => {
          const st = fields[sub];
          if (st === undefined) return;
          const subFt = this.fieldType(`${field}.${sub}`)!;
          for (const x of Array.isArray(v) ? v : [v]) {
            const dv = toDocValue(subFt, st, x, true);
            if (dv === undefined) continue;
            const arr = (byField[sub] ??= []);
            if (arr.length >= MAX_EMITTED_VALUES) throw tooManyValues(`${field}.${sub}`, arr.length + 1);
            arr.push(dv);
          }
        };
        emit = (a: unknown, b?: unknown) => {
          if (typeof a === 'string' && b !== undefined) put(a, b);
          else if (a !== null && typeof a === 'object') for (const [k, v] of Object.entries(a as Record<string, unknown>)) put(k, v);
          else throw new EsError('illegal_argument_exception', 400, `composite runtime field [${field}] must emit a map`, { plain: true });
        };
        spec.script.run({ doc: vars.doc, params: vars.params, emit });
        return [byField];
      }
      if (spec.type === 'geo_point') {
        emit = (lat: unknown, lon: unknown) => {
          if (out.length >= MAX_EMITTED_VALUES) throw tooManyValues(field, out.length + 1);
          if (typeof lat !== 'number' || typeof lon !== 'number') throw new EsError('class_cast_exception', 400, `Cannot cast from [${javaType(typeof lat !== 'number' ? lat : lon)}] to [double].`, { plain: true });
          out.push({ lat, lon });
        };
      } else {
        emit = (v: unknown) => {
          if (out.length >= MAX_EMITTED_VALUES) throw tooManyValues(field, out.length + 1);
          const dv = toDocValue(ft, spec.type, v, true);
          if (dv !== undefined) out.push(dv);
        };
      }
      spec.script.run({ doc: vars.doc, params: vars.params, emit });
      return out;
    } finally {
      this.evaluating.pop();
    }
  }

  /** an aggregation script: the returned value (or list of values) are the field's values */
  private evaluateReturns(field: string, ft: MappedFieldType, spec: RuntimeFieldSpec, doc: number): readonly unknown[] {
    const vars = this.scriptVars(spec.params);
    vars.setDocument(doc);
    const out: unknown[] = [];
    const add = (r: unknown) => {
      const list = r instanceof ScriptDocValues ? r.values : Array.isArray(r) ? r : r instanceof Set ? [...r] : [r];
      for (const x of list) {
        // a keyword (ES: the KEYWORD values source of a script without value_type) takes the value's Java
        // toString, so a double keeps its `.0` and a date prints as java.time does
        const v = scriptResultValue(ft, spec.type, spec.type === 'keyword' ? x : unbox(x));
        if (v !== undefined) out.push(v);
      }
    };
    const script = spec.script!;
    if (spec.returns!.field !== undefined) {
      const values = (vars.doc.get(spec.returns!.field) as { values: readonly unknown[] }).values;
      for (const v of values) add(script.run({ doc: vars.doc, params: vars.params, _value: v }));
    } else add(script.run({ doc: vars.doc, params: vars.params }));
    void field;
    return out;
  }

  private readonly paramVars = new Map<Readonly<Record<string, unknown>>, LeafScriptVars>();
  private scriptVars(params: Readonly<Record<string, unknown>> = {}): LeafScriptVars {
    let v = this.paramVars.get(params);
    if (!v) {
      v = new LeafScriptVars(this, this.fieldType, params);
      this.paramVars.set(params, v);
    }
    return v;
  }
}

/** a reader whose leaves serve runtime fields; everything else is the wrapped reader's */
export class RuntimeDirectoryReader implements DirectoryReader {
  readonly leaves: readonly LeafReaderContext[];
  constructor(
    readonly inner: DirectoryReader,
    fieldType: (name: string) => MappedFieldType | undefined,
  ) {
    this.leaves = inner.leaves.map((l) => ({ reader: new RuntimeLeafReader(l.reader, fieldType), docBase: l.docBase, ord: l.ord }));
  }
  get maxDoc(): number {
    return this.inner.maxDoc;
  }
  get numDocs(): number {
    return this.inner.numDocs;
  }
  get generation(): number {
    return this.inner.generation;
  }
  get cacheKey(): string {
    return this.inner.cacheKey;
  }
  get mappingVersion(): number {
    return this.inner.mappingVersion;
  }
  incRef(): void {
    this.inner.incRef();
  }
  decRef(): void {
    this.inner.decRef();
  }
}

/** `fields` / docvalue_fields output of one runtime field value (dates formatted, ips decoded, geo as GeoJSON) */
export function runtimeDisplayValue(ft: MappedFieldType, v: unknown, format?: string): unknown {
  if (ft.runtime?.type === 'geo_point') {
    const g = v as { lat: number; lon: number };
    return { type: 'Point', coordinates: [g.lon, g.lat] };
  }
  if (ft.kind === 'date') return ft.formatValue(v as number, format);
  if (ft.kind === 'boolean') return v === 1;
  return ft.valueForDisplay(v as string | number);
}
