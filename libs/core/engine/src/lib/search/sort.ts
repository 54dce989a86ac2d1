/**
 * Sort specification (parsed from the request, plain data) and its per-shard compiled form:
 * per-leaf comparable keys and Elasticsearch's formatting of `hits.hits[].sort` values.
 */
import { EsError, Errors, RawJson, compareUtf8, integerJson } from '@strata/core-common';
import { ExactLongs, exactLongLiteral, isExactLongType } from '../index/exact-longs.js';
import type { LeafReaderContext } from '../index/leaf-reader.js';
import { numericReader, ordinalsReader } from '../index/doc-values-reader.js';
import type { MappedFieldType } from '../mapper/mapped-field-type.js';
import { ScriptContexts, type ScriptService } from '@strata/core-common';
import { parseScriptRef } from '@strata/core-painless';
import { bindLeaf, compileSearchScript, toNumber } from '../script/search-scripts.js';
import type { NestedLookup } from '../mapper/mapping.js';
import { nestedPathDocs, parentDocs } from './nested/nested-bitsets.js';

export type SortOrder = 'asc' | 'desc';
export type SortMode = 'min' | 'max' | 'avg' | 'sum' | 'median';

export interface SortSpec {
  field: string;
  order: SortOrder;
  missing?: string | number | boolean;
  mode?: SortMode;
  unmappedType?: string;
  numericType?: 'long' | 'double' | 'date' | 'date_nanos';
  format?: string;
  /** `_script` sort: the script (source + params) and its type */
  script?: { json: unknown; type: 'number' | 'string' };
  /** sort by values of nested objects */
  nested?: NestedSortSpec;
}

/** `nested: {path, filter, max_children, nested}` of a field sort (ES NestedSortBuilder) */
export interface NestedSortSpec {
  path: string;
  /** query JSON selecting the nested objects whose values count */
  filter?: unknown;
  /** at most this many objects per document count (top level only) */
  maxChildren?: number;
  nested?: NestedSortSpec;
}

function parseNestedSort(v: unknown): NestedSortSpec {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[nested] failed to parse field [nested]');
  const o = v as Record<string, unknown>;
  const out: Partial<NestedSortSpec> = {};
  for (const [k, x] of Object.entries(o)) {
    if (k === 'path') out.path = String(x);
    else if (k === 'filter') out.filter = x;
    else if (k === 'max_children') {
      const n = typeof x === 'number' ? x : Number(x);
      if (!Number.isInteger(n)) throw Errors.parsing('[nested] failed to parse field [max_children]');
      out.maxChildren = n;
    } else if (k === 'nested') out.nested = parseNestedSort(x);
    else throw Errors.parsing(`[nested] unknown field [${k}]`);
  }
  if (out.path === undefined) throw Errors.illegalArgument('[nested] requires [path] field');
  return out as NestedSortSpec;
}


const SORT_KEYS = new Set(['order', 'missing', 'mode', 'unmapped_type', 'numeric_type', 'format', 'nested', 'nested_path', 'nested_filter']);

function parseOne(field: string, v: unknown): SortSpec {
  const def: SortOrder = field === '_score' ? 'desc' : 'asc';
  if (v === undefined) return { field, order: def };
  if (typeof v === 'string') return { field, order: parseOrder(v) };
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const spec: SortSpec = { field, order: def };
    for (const [k, val] of Object.entries(o)) {
      if (!SORT_KEYS.has(k)) throw Errors.parsing(`[field_sort] unknown field [${k}] did you mean [${closest(k)}]?`);
      if (k === 'order') spec.order = parseOrder(String(val));
      else if (k === 'missing') spec.missing = val as string | number;
      else if (k === 'mode') {
        const m = String(val).toLowerCase();
        if (!['min', 'max', 'avg', 'sum', 'median'].includes(m)) throw Errors.illegalArgument(`Unknown MultiValueMode [${m}]`);
        spec.mode = m as SortMode;
      } else if (k === 'unmapped_type') spec.unmappedType = String(val);
      else if (k === 'numeric_type') {
        const n = String(val);
        if (!['long', 'double', 'date', 'date_nanos'].includes(n)) {
          throw Errors.illegalArgument(`invalid value for [numeric_type], must be [long, double, date, date_nanos], got ${n}`);
        }
        spec.numericType = n as SortSpec['numericType'];
      } else if (k === 'format') spec.format = String(val);
      else if (k === 'nested') spec.nested = parseNestedSort(val);
    }
    return spec;
  }
  throw Errors.parsing(`[sort] unexpected value for [${field}]`);
}

function closest(k: string): string {
  return k.startsWith('o') ? 'order' : k.startsWith('m') ? 'missing' : 'order';
}

function parseOrder(s: string): SortOrder {
  const l = s.toLowerCase();
  if (l === 'asc' || l === 'desc') return l;
  throw Errors.illegalArgument(`Unknown SortOrder [${s}]`);
}

/** parses the `sort` of a search body (string, object or array of them) */
export function parseSort(json: unknown): SortSpec[] {
  if (json === undefined || json === null) return [];
  const items = Array.isArray(json) ? json : [json];
  const out: SortSpec[] = [];
  for (const it of items) {
    if (typeof it === 'string') out.push(parseOne(it, undefined));
    else if (it && typeof it === 'object') {
      const entries = Object.entries(it as Record<string, unknown>);
      if (entries.length !== 1) throw Errors.parsing(`[sort] expected a single field per sort object, found [${entries.length}]`);
      const [f, v] = entries[0]!;
      if (f === '_geo_distance') throw Errors.parsing(`sort [${f}] is not supported`);
      if (f === '_script') {
        out.push(parseScriptSort(v));
        continue;
      }
      out.push(parseOne(f, v));
    } else throw Errors.parsing(`[sort] unexpected token in sort: ${JSON.stringify(it)}`);
  }
  return out;
}

function parseScriptSort(v: unknown): SortSpec {
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw Errors.parsing('[_script] sort expects an object');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!['type', 'script', 'order', 'mode', 'nested'].includes(k)) throw Errors.parsing(`[_script] unknown field [${k}]`);
  const type = String(o['type'] ?? '');
  if (type !== 'number' && type !== 'string') throw Errors.parsing('[_script] script sort requires [type] to be [number] or [string]');
  if (o['script'] === undefined) throw Errors.parsing('[_script] script sort requires a [script]');
  parseScriptRef(o['script']);
  const spec: SortSpec = { field: '_script', order: o['order'] === undefined ? 'asc' : parseOrder(String(o['order'])), script: { json: o['script'], type } };
  if (o['nested'] !== undefined) spec.nested = parseNestedSort(o['nested']);
  return spec;
}

/** parses the URL `sort` param: `a:asc,b,_score` */
export function parseSortParam(param: string): SortSpec[] {
  return param
    .split(',')
    .filter((s) => s.length > 0)
    .map((s) => {
      const i = s.lastIndexOf(':');
      return i > 0 ? parseOne(s.substring(0, i), s.substring(i + 1)) : parseOne(s, undefined);
    });
}

export function isScoreSort(sort: readonly SortSpec[]): boolean {
  return sort.length === 0 || (sort.length === 1 && sort[0]!.field === '_score' && sort[0]!.order === 'desc');
}

export function sortNeedsScores(sort: readonly SortSpec[]): boolean {
  return sort.length === 0 || sort.some((s) => s.field === '_score');
}

// ------------------------------------------------------------------ compiled (per shard)

/** a bigint: a long / unsigned_long value beyond 2^53 read exactly (compares with numbers as numbers do) */
export type SortKey = number | bigint | string | null;
export type LeafKeyFn = (doc: number) => SortKey;

export interface CompiledSortField {
  readonly spec: SortSpec;
  readonly kind: 'score' | 'doc' | 'shard_doc' | 'number' | 'string';
  /** -1 for desc */
  readonly reverse: 1 | -1;
  /** for string keys: whether missing (null) sorts first */
  readonly missingFirst: boolean;
  /** per leaf: key for a segment-local doc (number/string kinds only) */
  leaf(ctx: LeafReaderContext): LeafKeyFn;
  /** the value shown in hits.hits[].sort */
  display(key: SortKey): unknown;
  /** converts a search_after value into a key */
  afterKey(v: unknown): SortKey;
}

/** Long.MAX_VALUE as a double (2^63), what JSON clients read it as */
const LONG_MAX = 2 ** 63;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const LONG_MAX_EXACT = 2n ** 63n - 1n;
const LONG_MIN_EXACT = -(2n ** 63n);
const ULONG_MAX_EXACT = 2n ** 64n - 1n;

/**
 * A long sort value at the ends of the long range (the missing-value sentinels, or a double rounded up to 2^63)
 * written exactly as Long.MAX_VALUE / Long.MIN_VALUE; JS would print 9223372036854776000. Other large values
 * keep JS's shortest digits, the best guess at the long a double stands for.
 */
function longSortValue(n: number): RawJson {
  return new RawJson(n > 0 ? '9223372036854775807' : '-9223372036854775808');
}
const INTEGER_TYPES = new Set(['long', 'integer', 'short', 'byte', 'date', 'date_nanos', 'unsigned_long', 'boolean', 'scaled_float']);

function medianOf(values: Float64Array, s: number, e: number): number {
  const n = e - s;
  const mid = s + (n >> 1);
  return n % 2 === 1 ? values[mid]! : (values[mid - 1]! + values[mid]!) / 2;
}

/** what a shard provides to compile `nested` sorts */
export interface NestedSortContext {
  readonly lookup: NestedLookup;
  /** compiles a nested sort `filter` (query JSON) in the scope of a nested path to a per-leaf matcher */
  compileFilter(json: unknown, path: string): (leaf: LeafReaderContext) => (doc: number) => boolean;
}

export function compileSort(
  specs: readonly SortSpec[],
  fieldType: (name: string) => MappedFieldType | undefined,
  index: string,
  scripts?: ScriptService,
  nested?: NestedSortContext,
): CompiledSortField[] {
  return specs.map((spec) => compileOne(spec, fieldType, index, scripts, nested));
}

/**
 * The nested objects whose values a document sorts by: per leaf, root doc → the matching objects of the
 * innermost nested path (each level filtered, the top level capped by max_children); null without `nested`.
 */
function nestedSortDocs(
  spec: SortSpec,
  ctx: NestedSortContext | undefined,
  index: string,
): ((leaf: LeafReaderContext) => (doc: number) => number[]) | null {
  const lookup = ctx?.lookup;
  if (!spec.nested) {
    // ES FieldSortBuilder#validateMissingNestedPath
    if (lookup && spec.field !== '_script' && lookup.nestedParentOf(spec.field) !== null) {
      throw Errors.queryShard(`it is mandatory to set the [nested] context on the nested sort field: [${spec.field}].`, index);
    }
    return null;
  }
  const levels: Array<{ path: string; parent: string | null; filter: ((leaf: LeafReaderContext) => (doc: number) => boolean) | null; max: number }> = [];
  let parent: string | null = null;
  for (let n: NestedSortSpec | undefined = spec.nested; n; n = n.nested) {
    if (!lookup?.get(n.path)) throw Errors.queryShard(`[nested] failed to find nested object under path [${n.path}]`, index);
    if (n.maxChildren !== undefined && n.nested) throw Errors.queryShard('max_children is only supported on last level of nested sort', index);
    levels.push({ path: n.path, parent, filter: n.filter === undefined ? null : ctx!.compileFilter(n.filter, n.path), max: n.maxChildren ?? Infinity });
    parent = n.path;
  }
  return (leaf) => {
    const per = levels.map((l) => ({
      parents: parentDocs(leaf.reader, l.parent),
      children: nestedPathDocs(leaf.reader, l.path),
      match: l.filter ? l.filter(leaf) : null,
      max: l.max,
    }));
    return (doc) => {
      let docs = [doc];
      for (const l of per) {
        const next: number[] = [];
        if (!l.parents || !l.children) return next;
        for (const p of docs) {
          let taken = 0;
          for (let c = l.parents.prevSetBit(p - 1) + 1; c < p && taken < l.max; c++) {
            if (!l.children.get(c) || (l.match && !l.match(c))) continue;
            next.push(c);
            taken++;
          }
        }
        docs = next;
      }
      return docs;
    };
  };
}

function compileOne(
  spec: SortSpec,
  fieldType: (name: string) => MappedFieldType | undefined,
  index: string,
  scripts?: ScriptService,
  nestedCtx?: NestedSortContext,
): CompiledSortField {
  const reverse: 1 | -1 = spec.order === 'desc' ? -1 : 1;
  const base = { spec, reverse, missingFirst: false, leaf: () => () => null, afterKey: (v: unknown) => v as SortKey };
  if (spec.field === '_score') return { ...base, kind: 'score', display: (k) => k };
  if (spec.field === '_doc') return { ...base, kind: 'doc', display: (k) => k, afterKey: (v) => Number(v) };
  if (spec.field === '_shard_doc') return { ...base, kind: 'shard_doc', display: (k) => k, afterKey: (v) => Number(v) };
  if (spec.field === '_script' && spec.script) {
    const script = compileSearchScript(scripts, spec.script.json, ScriptContexts.SORT);
    const isString = spec.script.type === 'string';
    return {
      spec,
      kind: isString ? 'string' : 'number',
      reverse,
      missingFirst: false,
      leaf(ctx) {
        const run = bindLeaf(script, ctx.reader, fieldType);
        return (d) => {
          const v = run(d);
          if (isString) return v === null || v === undefined ? null : typeof v === 'string' ? v : String(v);
          return toNumber(v, 'sort script');
        };
      },
      display: (k) => k,
      afterKey: (v) => (isString ? (v === null || v === undefined ? null : String(v)) : Number(v)),
    };
  }
  const ft = fieldType(spec.field);
  let typeName: string;
  if (!ft) {
    if (!spec.unmappedType) {
      throw Errors.queryShard(`No mapping found for [${spec.field}] in order to sort on`, index);
    }
    typeName = spec.unmappedType;
  } else {
    typeName = ft.type;
    if (!ft.hasDocValues) {
      if (ft.kind === 'text') {
        throw Errors.illegalArgument(
          `Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [${spec.field}] in order to load field data by uninverting the inverted index. Note that this can use significant memory.`,
        );
      }
      throw Errors.illegalArgument(`Can't load fielddata on [${spec.field}] because fielddata is unsupported on fields of type [${ft.type}]. Use doc values instead.`);
    }
  }
  const kind = ft?.kind ?? (['keyword', 'ip', 'text'].includes(typeName) ? 'keyword' : 'numeric');
  const field = spec.field;
  const nestedDocs = nestedSortDocs(spec, nestedCtx, index);
  const missing = spec.missing ?? '_last';
  if (kind === 'keyword' || kind === 'ip' || kind === 'text') {
    const mode = spec.mode ?? (spec.order === 'desc' ? 'max' : 'min');
    // FieldSortBuilder: non-numeric field data only supports min/max
    if (mode !== 'min' && mode !== 'max') throw Errors.queryShard('we only support AVG, MEDIAN and SUM on number based fields', index);
    let missingKey: SortKey = null;
    let missingFirst = missing === '_first';
    if (missing !== '_first' && missing !== '_last') {
      missingKey = ft ? String(ft.termValue(missing)) : String(missing);
      missingFirst = false;
    }
    // for desc order `_last` means the nulls go after the smallest values
    return {
      spec,
      kind: 'string',
      reverse,
      missingFirst,
      leaf(ctx) {
        const dv = ctx.reader.sortedSetDocValues(field);
        if (!dv) return () => missingKey;
        const terms = dv.terms;
        // block by block on disk: only the blocks of the docs asked for are decoded
        const rd = ordinalsReader(dv);
        if (nestedDocs) {
          const docsOf = nestedDocs(ctx);
          return (doc) => {
            let best = -1;
            for (const c of docsOf(doc)) {
              const n = rd.advance(c);
              if (n === 0) continue;
              const o = rd.value(mode === 'min' ? 0 : n - 1);
              if (best < 0 || (mode === 'min' ? o < best : o > best)) best = o;
            }
            return best < 0 ? missingKey : terms[best]!;
          };
        }
        return (doc) => {
          const n = rd.advance(doc);
          if (n === 0) return missingKey;
          if (n === 1) return terms[rd.value(0)]!;
          // ords follow the dictionary's order; min/max are by UTF-8 bytes as in Lucene
          let best = terms[rd.value(0)]!;
          for (let i = 1; i < n; i++) {
            const t = terms[rd.value(i)]!;
            const c = compareUtf8(t, best);
            if (mode === 'min' ? c < 0 : c > 0) best = t;
          }
          return best;
        };
      },
      display: (k) => (k === null ? null : ft && ft.kind === 'ip' ? ft.valueForDisplay(k as string) : k),
      afterKey: (v) => (v === null || v === undefined ? null : ft && ft.kind === 'ip' ? String(ft.termValue(v)) : String(v)),
    };
  }
  // numeric family
  const mode = spec.mode ?? (spec.order === 'desc' ? 'max' : 'min');
  const isInt = ft ? ft.isInteger : INTEGER_TYPES.has(typeName);
  const isFloat = typeName === 'float' || typeName === 'half_float';
  const fromType = typeName === 'date_nanos' ? 'date_nanos' : typeName === 'date' ? 'date' : null;
  const conv =
    spec.numericType === 'date_nanos' && fromType === 'date'
      ? (v: number) => v * 1e6
      : spec.numericType === 'date' && fromType === 'date_nanos'
        ? (v: number) => Math.floor(Math.round(v / 1000) / 1000)
        : (v: number) => v;
  const scale = typeName === 'scaled_float' && ft?.scalingFactor ? ft.scalingFactor : 0;
  let missingKey: number;
  if (missing === '_last') missingKey = reverse === 1 ? Infinity : -Infinity;
  else if (missing === '_first') missingKey = reverse === 1 ? -Infinity : Infinity;
  else {
    const t = ft ? ft.termValue(missing) : Number(missing);
    missingKey = typeof t === 'number' ? t : Number(t);
    if (Number.isNaN(missingKey)) throw new EsError('number_format_exception', 400, `For input string: "${String(missing)}"`);
  }
  const intOut = isInt || spec.numericType === 'long' || spec.numericType === 'date' || spec.numericType === 'date_nanos';
  const exactLong = typeName !== 'unsigned_long';
  // unsigned_long sorts as Elasticsearch's shifted longs: the missing values' sentinels are 0 and 2^64-1, and
  // the values 0 and 2^64-1 tie with them (their keys are the sentinels' ±Infinity), so sort values given back
  // in search_after land exactly where they came from
  const unsignedEnds = !exactLong && !spec.numericType;
  const leafKeys = (ctx: LeafReaderContext): LeafKeyFn => {
    const dv = ctx.reader.numericDocValues(field);
    if (!dv) return () => missingKey;
    const ex = !spec.numericType && !nestedDocs && (mode === 'min' || mode === 'max') ? ExactLongs.of(ctx.reader, field, typeName) : null;
    if (ex) {
      // a segment holding longs beyond 2^53: the key of such a value is exact (index/exact-longs.ts)
      const rd = numericReader(dv);
      return (doc) => {
        const n = rd.advance(doc);
        if (n === 0) return missingKey;
        const v = rd.value(mode === 'min' ? 0 : n - 1);
        const x = ex.exact(doc, v, mode === 'min' ? 0 : n);
        // Long.MAX_VALUE / MIN_VALUE are the missing values' keys too (they tie, as in Elasticsearch)
        if (exactLong && typeof x === 'bigint' && (x === LONG_MAX_EXACT || x === LONG_MIN_EXACT)) return x > 0n ? Infinity : -Infinity;
        return x;
      };
    }
    const vb = dv.valueBlocks;
    if (vb && dv.singleValued && !nestedDocs) {
      // one value per doc, on disk: read the block of the doc (cached), not the whole column
      const shift = Math.log2(vb.blockSize);
      const mask = vb.blockSize - 1;
      let cb = -1;
      let block: Float64Array | null = null;
      return (doc) => {
        const b = doc >>> shift;
        if (b !== cb) {
          block = vb.block(b);
          cb = b;
        }
        let v = block![doc & mask]!;
        if (scale) v = v / scale;
        return conv(v);
      };
    }
    const rd = numericReader(dv);
    if (nestedDocs) {
      // MultiValueMode over the values of every selected nested object
      const docsOf = nestedDocs(ctx);
      return (doc) => {
        const all: number[] = [];
        for (const c of docsOf(doc)) {
          const n = rd.advance(c);
          for (let i = 0; i < n; i++) all.push(rd.value(i));
        }
        if (all.length === 0) return missingKey;
        let v: number;
        if (mode === 'min') v = Math.min(...all);
        else if (mode === 'max') v = Math.max(...all);
        else if (mode === 'median') {
          all.sort((a, b) => a - b);
          v = medianOf(Float64Array.from(all), 0, all.length);
        } else {
          let sum = 0;
          for (const x of all) sum += x;
          v = mode === 'avg' ? sum / all.length : sum;
          if (isInt && mode === 'avg') v = Math.round(v);
        }
        if (scale) v = v / scale;
        return conv(v);
      };
    }
    return (doc) => {
      const n = rd.advance(doc);
      if (n === 0) return missingKey;
      let v: number;
      // a doc's values are ascending
      if (n === 1 || mode === 'min') v = rd.value(0);
      else if (mode === 'max') v = rd.value(n - 1);
      else if (mode === 'median') v = n % 2 === 1 ? rd.value(n >> 1) : (rd.value((n >> 1) - 1) + rd.value(n >> 1)) / 2;
      else {
        let sum = 0;
        for (let i = 0; i < n; i++) sum += rd.value(i);
        v = mode === 'avg' ? sum / n : sum;
        if (isInt && mode === 'avg') v = Math.round(v);
      }
      if (scale) v = v / scale;
      return conv(v);
    };
  };
  return {
    spec,
    kind: 'number',
    reverse,
    missingFirst: false,
    leaf(ctx) {
      const keyOf = leafKeys(ctx);
      if (!unsignedEnds) return keyOf;
      return (doc) => {
        const k = keyOf(doc);
        return k === 0 ? -Infinity : k === ULONG_MAX_EXACT ? Infinity : k;
      };
    },
    display(k) {
      if (typeof k === 'bigint') return integerJson(k);
      const n = k as number;
      if (n === Infinity || n === -Infinity) {
        if (unsignedEnds) return n > 0 ? new RawJson('18446744073709551615') : 0;
        if (intOut) return exactLong ? longSortValue(n) : n > 0 ? LONG_MAX : -LONG_MAX;
        return n > 0 ? 'Infinity' : '-Infinity';
      }
      if (spec.format && ft) {
        const targetNanos = spec.numericType === 'date_nanos' || (!spec.numericType && fromType === 'date_nanos');
        if (fromType && spec.numericType && targetNanos !== (fromType === 'date_nanos')) {
          return ft.formatValue(fromType === 'date_nanos' ? n * 1e6 : Math.round(n / 1e6), spec.format);
        }
        return ft.formatValue(n, spec.format);
      }
      if (isFloat) return ft ? ft.valueForDisplay(n) : Math.fround(n);
      if (exactLong && intOut && (n >= LONG_MAX || n <= -LONG_MAX)) return longSortValue(n);
      return n;
    },
    afterKey(v) {
      if (isExactLongType(typeName) && !spec.numericType) {
        // an integer beyond 2^53 given exactly (digits in a string) is an exact key
        // (the ends of the long range, and values beyond the type's range, stay the missing values' keys)
        const x = exactLongLiteral(v);
        if (x !== undefined && (x > MAX_SAFE || x < -MAX_SAFE) && (exactLong ? x > LONG_MIN_EXACT && x < LONG_MAX_EXACT : x >= 0n && x < ULONG_MAX_EXACT)) return x;
        if (unsignedEnds && x === ULONG_MAX_EXACT) return Infinity;
      }
      if (v instanceof RawJson) v = v.value();
      if (v === null || v === undefined) return missingKey;
      if (unsignedEnds && (v === 0 || v === '0')) return -Infinity;
      if (typeof v === 'number') {
        if (v >= LONG_MAX) return intOut ? Infinity : v;
        if (v <= -LONG_MAX) return intOut ? -Infinity : v;
        return v;
      }
      if (v === 'Infinity') return Infinity;
      if (v === '-Infinity') return -Infinity;
      if (ft && ft.parseValue && (fromType || spec.format)) return conv(ft.parseValue(v, spec.format));
      const n = Number(v);
      if (Number.isNaN(n)) throw Errors.illegalArgument(`Failed to parse search_after value for field [${field}].`);
      return n;
    },
  };
}

/** compares two keys of one sort field: negative when a sorts before b */
export function compareKeys(f: CompiledSortField, a: SortKey, b: SortKey): number {
  if (f.kind === 'string') {
    if (a === b) return 0;
    if (a === null) return f.missingFirst ? -1 : 1;
    if (b === null) return f.missingFirst ? 1 : -1;
    return (compareUtf8(a as string, b as string) < 0 ? -1 : 1) * f.reverse;
  }
  const x = a as number;
  const y = b as number;
  return x < y ? -f.reverse : x > y ? f.reverse : 0;
}
