/**
 * Mapping definitions: validation/normalisation of mapping JSON, merging of updates, and compilation into
 * mappers with their MappedFieldTypes. The normalised JSON is what `GET _mapping` returns.
 */
import { EsError, Errors, simpleMatch } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import { DateFormatter } from '@strata/core-common';
import type { AnalysisRegistry } from '../services.js';
import type { MappedFieldType } from './mapped-field-type.js';
import type { FieldMapperContext, FieldMapperType } from './field-mapper-type.js';
import {
  BooleanFieldType,
  ConstantKeywordFieldType,
  DateFieldType,
  IpFieldType,
  KeywordFieldType,
  NUMERIC_TYPES,
  NumberFieldType,
  OpaqueFieldType,
  TextFieldType,
  parseBoolean,
  parseNumber,
} from './field-types.js';
import { parseIpBytes } from './ip.js';

export type Json = Record<string, unknown>;
export type Dynamic = 'true' | 'false' | 'strict' | 'runtime';

export function isPlainObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Java's Map/List toString, used in ES error messages ("[foo : {a=b}]"). */
export function javaString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(javaString).join(', ')}]`;
  if (typeof v === 'object') return `{${Object.entries(v as Json).map(([k, x]) => `${k}=${javaString(x)}`).join(', ')}}`;
  return String(v);
}

function mpe(reason: string, cause?: EsError | Error): EsError {
  return Errors.mapperParsing(reason, cause);
}

// ------------------------------------------------------------------ parameter tables

const COMMON = ['type', 'meta', 'copy_to', 'fields', 'store', 'boost', 'script', 'on_script_error'];
const NUMERIC_PARAMS = [...COMMON, 'coerce', 'doc_values', 'ignore_malformed', 'index', 'null_value', 'time_series_dimension', 'time_series_metric'];
const PARAMS: Record<string, readonly string[]> = {
  keyword: [...COMMON, 'ignore_above', 'normalizer', 'null_value', 'doc_values', 'index', 'similarity', 'eager_global_ordinals', 'index_options', 'norms', 'split_queries_on_whitespace', 'time_series_dimension'],
  text: [...COMMON, 'analyzer', 'search_analyzer', 'search_quote_analyzer', 'index_options', 'norms', 'position_increment_gap', 'index', 'fielddata', 'fielddata_frequency_filter', 'index_prefixes', 'index_phrases', 'similarity', 'term_vector', 'eager_global_ordinals'],
  match_only_text: ['type', 'meta', 'fields', 'copy_to'],
  date: [...COMMON, 'format', 'locale', 'ignore_malformed', 'null_value', 'doc_values', 'index', 'print_format'],
  date_nanos: [...COMMON, 'format', 'locale', 'ignore_malformed', 'null_value', 'doc_values', 'index', 'print_format'],
  boolean: [...COMMON, 'doc_values', 'index', 'null_value', 'ignore_malformed'],
  ip: [...COMMON, 'doc_values', 'ignore_malformed', 'index', 'null_value', 'time_series_dimension'],
  scaled_float: [...NUMERIC_PARAMS, 'scaling_factor'],
  flattened: ['type', 'meta', 'copy_to', 'depth_limit', 'doc_values', 'eager_global_ordinals', 'ignore_above', 'index', 'index_options', 'null_value', 'similarity', 'split_queries_on_whitespace', 'time_series_dimensions'],
  wildcard: ['type', 'meta', 'copy_to', 'fields', 'ignore_above', 'null_value', 'doc_values'],
  constant_keyword: ['type', 'meta', 'value'],
  alias: ['type', 'path'],
  version: ['type', 'meta', 'fields', 'copy_to', 'store'],
  geo_point: [...COMMON, 'ignore_malformed', 'ignore_z_value', 'null_value', 'doc_values', 'index'],
  binary: ['type', 'meta', 'doc_values', 'store', 'copy_to'],
  token_count: [...COMMON, 'analyzer', 'enable_position_increments', 'doc_values', 'index', 'null_value'],
};
for (const t of NUMERIC_TYPES) if (t !== 'scaled_float') PARAMS[t] = NUMERIC_PARAMS;
PARAMS['search_as_you_type'] = [...PARAMS['text'], 'max_shingle_size'];
PARAMS['annotated_text'] = PARAMS['text'];
PARAMS['counted_keyword'] = PARAMS['keyword'];

/**
 * Types accepted in mappings (kept in `_source`, not indexed or searchable here): any parameters.
 */
export const ACCEPT_ONLY_TYPES = new Set([
  'geo_shape', 'shape', 'point', 'dense_vector', 'sparse_vector', 'rank_feature', 'rank_features', 'completion',
  'integer_range', 'long_range', 'float_range', 'double_range', 'date_range', 'ip_range', 'histogram', 'percolator',
  'murmur3', 'aggregate_metric_double', 'semantic_text',
]);
/** text-like types indexed as text */
export const TEXT_LIKE_TYPES = new Set(['text', 'match_only_text', 'search_as_you_type', 'annotated_text']);

const OBJECT_PARAMS = new Set(['type', 'properties', 'dynamic', 'enabled', 'subobjects']);
const NESTED_PARAMS = new Set([...OBJECT_PARAMS, 'include_in_parent', 'include_in_root']);
const ROOT_PARAMS = new Set([
  'properties', 'dynamic', 'date_detection', 'numeric_detection', 'dynamic_date_formats', 'dynamic_templates', '_source',
  '_routing', '_meta', 'runtime', 'enabled', 'subobjects', '_field_names', '_data_stream_timestamp', '_doc_count',
]);
const RUNTIME_TYPES = new Set(['boolean', 'composite', 'date', 'double', 'geo_point', 'ip', 'keyword', 'long', 'lookup']);

/** parameters that a mapping update may change */
const UPDATABLE = new Set(['ignore_above', 'meta', 'search_analyzer', 'search_quote_analyzer', 'ignore_malformed', 'eager_global_ordinals', 'boost', 'fielddata', 'copy_to', 'time_series_dimension', 'coerce', 'null_value_updatable_never']);

export const DEFAULT_DYNAMIC_DATE_FORMATS = ['strict_date_optional_time', 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd||epoch_millis'];

export interface MappingContext extends FieldMapperContext {
  readonly analysis: AnalysisRegistry;
  readonly extensions: ReadonlyMap<string, FieldMapperType>;
}

function boolParam(field: string, param: string, v: unknown): boolean {
  try {
    return parseBoolean(v === '' ? 'invalid' : v);
  } catch {
    throw mpe(`Cannot parse value [${javaString(v)}] as only [true] or [false] are allowed for [${param}] of field [${field}]`);
  }
}

function parseDynamic(v: unknown, where: string): Dynamic {
  if (v === true || v === 'true') return 'true';
  if (v === false || v === 'false') return 'false';
  if (v === 'strict' || v === 'runtime') return v;
  throw mpe(`Could not convert [${where}.dynamic] to boolean`);
}

// ------------------------------------------------------------------ normalisation

export interface NormalizeState {
  ctx: MappingContext;
}

/** Validates a root mapping and returns its normalised form (dots expanded, `type: object` dropped). */
export function normalizeRootMapping(input: unknown, ctx: MappingContext): Json {
  if (input === undefined || input === null) return {};
  if (!isPlainObject(input)) throw mpe('Expected map for property [mappings] on field [_doc] but got a class java.lang.String');
  const unsupported = Object.entries(input).filter(([k]) => !ROOT_PARAMS.has(k));
  if (unsupported.length) {
    throw mpe(`Root mapping definition has unsupported parameters:  ${unsupported.map(([k, v]) => `[${k} : ${javaString(v)}]`).join(' ')}`);
  }
  const out: Json = {};
  const st: NormalizeState = { ctx };
  for (const [k, v] of Object.entries(input)) {
    switch (k) {
      case 'properties':
        out[k] = normalizeProperties(v, '', st, 1);
        break;
      case 'dynamic':
        parseDynamic(v, '_doc');
        out[k] = String(v);
        break;
      case 'date_detection':
      case 'numeric_detection':
        out[k] = boolParam('_doc', k, v);
        break;
      case 'dynamic_date_formats': {
        const arr = Array.isArray(v) ? v : [v];
        for (const f of arr) {
          try {
            DateFormatter.of(String(f));
          } catch (e) {
            throw mpe((e as EsError).reason ?? String(e));
          }
        }
        out[k] = arr.map(String);
        break;
      }
      case 'dynamic_templates':
        out[k] = normalizeDynamicTemplates(v);
        break;
      case '_source': {
        if (!isPlainObject(v)) throw mpe('[_source] must be an object');
        const s: Json = {};
        for (const [sk, sv] of Object.entries(v)) {
          if (sk === 'enabled') s[sk] = boolParam('_source', sk, sv);
          else if (sk === 'includes' || sk === 'excludes') s[sk] = (Array.isArray(sv) ? sv : [sv]).map(String);
          else if (sk === 'mode') s[sk] = String(sv);
          else throw mpe(`unknown parameter [${sk}] on metadata field [_source]`);
        }
        out[k] = s;
        break;
      }
      case '_routing': {
        if (!isPlainObject(v)) throw mpe('[_routing] must be an object');
        const r: Json = {};
        for (const [rk, rv] of Object.entries(v)) {
          if (rk === 'required') r[rk] = boolParam('_routing', rk, rv);
          else throw mpe(`unknown parameter [${rk}] on metadata field [_routing]`);
        }
        out[k] = r;
        break;
      }
      case '_meta':
        if (!isPlainObject(v)) throw mpe('[_meta] must be an object');
        out[k] = v;
        break;
      case 'runtime':
        out[k] = normalizeRuntime(v);
        break;
      case 'enabled':
        if (!boolParam('_doc', k, v)) throw mpe('the root object mapping cannot be disabled');
        out[k] = true;
        break;
      default:
        out[k] = v;
    }
  }
  return out;
}

function normalizeRuntime(v: unknown): Json {
  if (!isPlainObject(v)) throw mpe('runtime must be a map type');
  const out: Json = {};
  for (const [name, def] of Object.entries(v)) {
    if (def === null) {
      out[name] = null;
      continue;
    }
    if (!isPlainObject(def)) throw mpe(`Expected map for runtime field [${name}] definition but got a ${typeof def}`);
    const type = def['type'];
    if (type === undefined) throw mpe(`No type specified for runtime field [${name}]`);
    if (!RUNTIME_TYPES.has(String(type))) throw mpe(`No handler for type [${String(type)}] declared on runtime field [${name}]`);
    // scripts are stored as Script objects: {source, lang[, params, options]}
    const sc = def['script'];
    if (typeof sc === 'string') out[name] = { ...def, script: { source: sc, lang: 'painless' } };
    else if (isPlainObject(sc) && sc['lang'] === undefined && sc['id'] === undefined) out[name] = { ...def, script: { ...sc, lang: 'painless' } };
    else out[name] = def;
  }
  return out;
}

function normalizeDynamicTemplates(v: unknown): Json[] {
  if (!Array.isArray(v)) throw mpe('Dynamic template syntax error. An array of named objects is expected.');
  return v.map((t) => {
    if (!isPlainObject(t) || Object.keys(t).length !== 1) throw mpe('Dynamic template syntax error. An array of named objects is expected.');
    const [name, body] = Object.entries(t)[0];
    if (!isPlainObject(body)) throw mpe(`Dynamic template syntax error. An array of named objects is expected.`);
    const known = new Set(['match', 'unmatch', 'path_match', 'path_unmatch', 'match_mapping_type', 'unmatch_mapping_type', 'match_pattern', 'mapping', 'runtime']);
    for (const k of Object.keys(body)) if (!known.has(k)) throw mpe(`Illegal dynamic template parameter: [${k}]`);
    if (body['mapping'] === undefined && body['runtime'] === undefined) {
      throw mpe(`template [${name}] must have either mapping or runtime set`);
    }
    return { [name]: body };
  });
}

function normalizeProperties(v: unknown, prefix: string, st: NormalizeState, depth: number): Json {
  if (!isPlainObject(v)) throw mpe(`Expected map for property [properties] on field [${prefix || '_doc'}] but got a ${typeof v}`);
  const out: Json = {};
  for (const [rawName, def] of Object.entries(v)) {
    // ObjectMapper.TypeParser.validateFieldName: IllegalArgumentExceptions
    if (rawName === '') throw Errors.illegalArgument('field name cannot be an empty string');
    if (rawName.trim() === '') throw Errors.illegalArgument('field name cannot contain only whitespaces');
    if (!isPlainObject(def)) {
      throw mpe(`Expected map for property [fields] on field [${prefix + rawName}] but got a class java.lang.${typeof def === 'string' ? 'String' : typeof def === 'number' ? 'Integer' : 'Object'}`);
    }
    // dotted names become object paths
    const parts = rawName.split('.');
    if (parts.some((p) => p === '')) throw mpe(`field name cannot contain only dots or be empty: [${rawName}]`);
    let target = out;
    let path = prefix;
    for (let i = 0; i < parts.length - 1; i++) {
      path += parts[i];
      let obj = target[parts[i]] as Json | undefined;
      if (!obj) {
        obj = { properties: {} };
        target[parts[i]] = obj;
      } else if (!isPlainObject(obj['properties'])) {
        if (obj['type'] !== 'object') throw mpe(`can't merge a non object mapping [${path}] with an object mapping`);
        delete obj['type'];
        obj['properties'] = {};
      }
      target = obj['properties'] as Json;
      path += '.';
    }
    const leaf = parts[parts.length - 1];
    const full = path + leaf;
    const norm = normalizeField(full, def, st, depth + parts.length - 1);
    if (target[leaf] !== undefined) target[leaf] = mergeField(full, target[leaf] as Json, norm, st.ctx);
    else target[leaf] = norm;
  }
  return sortKeysDeep(out);
}

/** Elasticsearch serialises mappers sorted by name (properties and multi-fields). */
export function sortKeysDeep(props: Json): Json {
  const out: Json = {};
  for (const k of Object.keys(props).sort()) {
    const v = props[k];
    if (isPlainObject(v)) {
      const d: Json = { ...v };
      if (isPlainObject(d['properties'])) d['properties'] = sortKeysDeep(d['properties']);
      if (isPlainObject(d['fields'])) d['fields'] = sortKeysDeep(d['fields']);
      out[k] = d;
    } else out[k] = v;
  }
  return out;
}

function isObjectDef(def: Json): boolean {
  const t = def['type'];
  return t === undefined || t === 'object' || t === 'nested';
}

function checkDepth(name: string, depth: number, st: NormalizeState): void {
  const limit = Number(st.ctx.indexSettings['index.mapping.depth.limit'] ?? 20);
  if (depth > limit) throw Errors.illegalArgument(`Limit of mapping depth [${limit}] has been exceeded due to object field [${name}]`);
}

export function normalizeField(name: string, def: Json, st: NormalizeState, depth: number): Json {
  const typeRaw = def['type'];
  if (typeRaw !== undefined && typeof typeRaw !== 'string') throw mpe(`No handler for type [${javaString(typeRaw)}] declared on field [${name}]`);
  const type = typeRaw as string | undefined;
  if (type === undefined && !('properties' in def) && !(Object.keys(def).length === 1 && 'enabled' in def)) {
    throw mpe(`No type specified for field [${name}]`);
  }
  if (type === undefined || type === 'object' || type === 'nested') {
    checkDepth(name, depth, st);
    const allowed = type === 'nested' ? NESTED_PARAMS : OBJECT_PARAMS;
    const bad = Object.entries(def).filter(([k]) => !allowed.has(k));
    if (bad.length) {
      if (type === undefined && !('properties' in def)) {
        // a leaf definition without type
        throw mpe(`No type specified for field [${name}]`);
      }
      throw mpe(`Mapping definition for [${name}] has unsupported parameters:  ${bad.map(([k, v]) => `[${k} : ${javaString(v)}]`).join(' ')}`);
    }
    const out: Json = {};
    if (type === 'nested') out['type'] = 'nested';
    for (const [k, v] of Object.entries(def)) {
      if (k === 'type') continue;
      if (k === 'properties') out[k] = normalizeProperties(v, name + '.', st, depth + 1);
      else if (k === 'dynamic') {
        parseDynamic(v, name);
        out[k] = String(v);
      } else if (k === 'enabled' || k === 'include_in_parent' || k === 'include_in_root' || k === 'subobjects') out[k] = boolParam(name, k, v);
      else out[k] = v;
    }
    // ES renders an object without sub-fields as {"type":"object"} and omits the type otherwise
    if (type !== 'nested' && (!isPlainObject(out['properties']) || Object.keys(out['properties'] as Json).length === 0)) {
      delete out['properties'];
      return { type: 'object', ...out };
    }
    return out;
  }
  const ext = st.ctx.extensions.get(type);
  if (ext) {
    return ext.parse(name, def, st.ctx);
  }
  if (ACCEPT_ONLY_TYPES.has(type)) return { ...def };
  const allowed = PARAMS[type];
  if (!allowed) throw mpe(`No handler for type [${type}] declared on field [${name}]`);
  for (const k of Object.keys(def)) {
    if (!allowed.includes(k)) throw mpe(`unknown parameter [${k}] on mapper [${name}] of type [${type}]`);
  }
  const out: Json = { ...def };
  for (const k of ['index', 'doc_values', 'store', 'norms', 'coerce', 'ignore_malformed', 'eager_global_ordinals', 'fielddata', 'index_phrases', 'split_queries_on_whitespace', 'time_series_dimension']) {
    if (k in def) out[k] = boolParam(name, k, def[k]);
  }
  if ('ignore_above' in def) {
    const n = Number(def['ignore_above']);
    if (!Number.isInteger(n) || n < 0) throw mpe(`[ignore_above] must be positive, got [${String(def['ignore_above'])}]`);
    out['ignore_above'] = n;
  }
  if ('position_increment_gap' in def) {
    const n = Number(def['position_increment_gap']);
    if (!Number.isInteger(n) || n < 0) throw mpe(`[position_increment_gap] on field [${name}] must be >= 0`);
    out['position_increment_gap'] = n;
  }
  if ('copy_to' in def) {
    const c = def['copy_to'];
    out['copy_to'] = Array.isArray(c) ? c.map(String) : [String(c)];
  }
  if ('meta' in def && !isPlainObject(def['meta'])) throw mpe(`[meta] on mapper [${name}] of type [${type}] must be an object`);
  for (const k of ['analyzer', 'search_analyzer', 'search_quote_analyzer']) {
    if (k in def) {
      const an = String(def[k]);
      if (!st.ctx.analysis.analyzer(an, st.ctx.indexSettings)) throw mpe(`analyzer [${an}] has not been configured in mappings`);
    }
  }
  if ('search_analyzer' in def && !('analyzer' in def) && type === 'text') {
    // allowed: analyzer defaults to the index default
  }
  if ('normalizer' in def && def['normalizer'] !== null) {
    const nn = String(def['normalizer']);
    if (!st.ctx.analysis.normalizer(nn, st.ctx.indexSettings)) throw mpe(`normalizer [${nn}] not found for field [${name}]`);
  }
  if ('index_options' in def) {
    const io = String(def['index_options']);
    const ok = type === 'text' ? ['docs', 'freqs', 'positions', 'offsets'] : ['docs', 'freqs'];
    if (!ok.includes(io)) throw mpe(`Unknown value [${io}] for field [index_options] - accepted values are [${ok.join(', ')}]`);
  }
  if (type === 'date' || type === 'date_nanos') {
    if ('format' in def) {
      try {
        DateFormatter.of(String(def['format']));
      } catch (e) {
        throw mpe(`Error parsing [format] on field [${name}]: ${(e as EsError).reason}`, e as EsError);
      }
    }
  }
  if (type === 'scaled_float') {
    if (!('scaling_factor' in def)) throw mpe('Field [scaling_factor] is required');
    const f = Number(def['scaling_factor']);
    if (!Number.isFinite(f) || f <= 0) throw mpe(`[scaling_factor] must be a positive number, got [${String(def['scaling_factor'])}]`);
    out['scaling_factor'] = f;
  }
  if (type === 'alias') {
    if (typeof def['path'] !== 'string') throw mpe(`The [path] property must be specified for field [${name}].`);
  }
  if ('null_value' in def && def['null_value'] !== null) {
    try {
      validateNullValue(type, def['null_value'], out);
    } catch (e) {
      throw mpe(`Error parsing [null_value] on field [${name}]: ${(e as EsError).reason ?? (e as Error).message}`, e as EsError);
    }
  }
  if ('fields' in def) {
    const fields = def['fields'];
    if (!isPlainObject(fields)) throw mpe(`Expected map for property [fields] on field [${name}] but got a ${typeof fields}`);
    const fo: Json = {};
    for (const [sub, sd] of Object.entries(fields)) {
      if (!isPlainObject(sd)) throw mpe(`Expected map for property [fields] on field [${name}.${sub}]`);
      const st2 = sd['type'];
      if (st2 === undefined || st2 === 'object' || st2 === 'nested') throw mpe(`Type [${String(st2 ?? 'object')}] cannot be used in multi field`);
      fo[sub] = normalizeField(`${name}.${sub}`, sd, st, depth);
    }
    out['fields'] = sortKeysDeep(fo);
  }
  return out;
}

function validateNullValue(type: string, v: unknown, def: Json): void {
  if (NUMERIC_TYPES.has(type)) parseNumber(type === 'scaled_float' ? 'double' : type, v, def['coerce'] !== false);
  else if (type === 'boolean') parseBoolean(v);
  else if (type === 'ip') {
    if (!parseIpBytes(String(v))) throw Errors.illegalArgument(`'${String(v)}' is not an IP string literal.`);
  } else if (type === 'date' || type === 'date_nanos') {
    const f = DateFormatter.of(String(def['format'] ?? 'strict_date_optional_time||epoch_millis'));
    f.parseMillis(String(v));
  }
}

// ------------------------------------------------------------------ merge

function defaultOf(type: string, param: string): unknown {
  switch (param) {
    case 'index':
    case 'doc_values':
      return true;
    case 'store':
      return false;
    case 'norms':
      // text-like fields have norms unless told otherwise (match_only_text has none), keyword-like ones do not
      return TEXT_LIKE_TYPES.has(type) && type !== 'match_only_text';
    case 'analyzer':
      return 'default';
    case 'index_options':
      return type === 'text' ? 'positions' : 'docs';
    case 'position_increment_gap':
      return 100;
    case 'format':
      return type === 'date_nanos' ? 'strict_date_optional_time_nanos||epoch_millis' : 'strict_date_optional_time||epoch_millis';
    default:
      return undefined;
  }
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function mergeField(name: string, existing: Json, update: Json, ctx: MappingContext): Json {
  const eObj = isObjectDef(existing);
  const uObj = isObjectDef(update);
  if (eObj && uObj) {
    const eNested = existing['type'] === 'nested';
    const uNested = update['type'] === 'nested';
    if (eNested && !uNested) throw Errors.illegalArgument(`can't merge a nested mapping [${name}] with a non-nested mapping`);
    if (!eNested && uNested) throw Errors.illegalArgument(`can't merge a non-nested mapping [${name}] with a nested mapping`);
    return mergeObject(name, existing, update, ctx);
  }
  if (eObj !== uObj) {
    if (eObj) throw Errors.illegalArgument(`can't merge a non object mapping [${name}] with an object mapping`);
    throw Errors.illegalArgument(`can't merge a non object mapping [${name}] with an object mapping`);
  }
  const et = String(existing['type']);
  const ut = String(update['type']);
  if (et !== ut) throw Errors.illegalArgument(`mapper [${name}] cannot be changed from type [${et}] to [${ut}]`);
  const ext = ctx.extensions.get(et);
  if (ext) {
    if (ext.merge) return ext.merge(name, existing, update);
    if (!same(existing, update)) throw Errors.illegalArgument(`Mapper for [${name}] conflicts with existing mapper:\n\tCannot update parameter of [${et}] field`);
    return existing;
  }
  const conflicts: string[] = [];
  const out: Json = { type: et };
  const keys = new Set([...Object.keys(existing), ...Object.keys(update)]);
  for (const k of keys) {
    if (k === 'type' || k === 'fields') continue;
    const ev = existing[k];
    const uv = update[k];
    if (UPDATABLE.has(k)) {
      if (uv !== undefined) out[k] = uv;
      else if (k === 'copy_to' && ev !== undefined) out[k] = ev;
      continue;
    }
    if (k === 'norms') {
      // norms may be disabled on an existing field (true → false), never enabled again (Elasticsearch's
      // TextParams.norms merge validator); the segments written before keep theirs until merged away
      const e2 = ev === undefined ? defaultOf(et, k) : ev;
      const u2 = uv === undefined ? defaultOf(et, k) : uv;
      if (e2 !== u2 && !(e2 === true && u2 === false)) conflicts.push(`Cannot update parameter [norms] from [${javaString(e2)}] to [${javaString(u2)}]`);
      else if (uv !== undefined) out[k] = uv;
      else if (ev !== undefined) out[k] = ev;
      continue;
    }
    if (k === 'value' && et === 'constant_keyword') {
      if (ev !== undefined && uv !== undefined && !same(ev, uv)) conflicts.push(`Cannot update parameter [value] from [${javaString(ev)}] to [${javaString(uv)}]`);
      const v = ev ?? uv;
      if (v !== undefined) out[k] = v;
      continue;
    }
    const e2 = ev === undefined ? defaultOf(et, k) : ev;
    const u2 = uv === undefined ? defaultOf(et, k) : uv;
    if (!same(e2, u2)) {
      conflicts.push(`Cannot update parameter [${k}] from [${javaString(e2 ?? 'null')}] to [${javaString(u2 ?? 'null')}]`);
      continue;
    }
    if (uv !== undefined) out[k] = uv;
    else if (ev !== undefined) out[k] = ev;
  }
  if (conflicts.length) {
    throw Errors.illegalArgument(`Mapper for [${name}] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
  }
  const ef = existing['fields'] as Json | undefined;
  const uf = update['fields'] as Json | undefined;
  if (ef || uf) {
    const fo: Json = { ...(ef ?? {}) };
    for (const [k, v] of Object.entries(uf ?? {})) {
      fo[k] = fo[k] ? mergeField(`${name}.${k}`, fo[k] as Json, v as Json, ctx) : v;
    }
    out['fields'] = sortKeysDeep(fo);
  }
  return out;
}

function mergeObject(name: string, existing: Json, update: Json, ctx: MappingContext): Json {
  const out: Json = { ...existing };
  for (const [k, v] of Object.entries(update)) {
    if (k === 'properties') continue;
    if (k === 'enabled' && existing['enabled'] !== undefined && existing['enabled'] !== v) {
      throw Errors.illegalArgument(`the [enabled] parameter can't be updated for the object mapping [${name}]`);
    }
    if (k === 'enabled' && existing['enabled'] === undefined && v === false) {
      throw Errors.illegalArgument(`the [enabled] parameter can't be updated for the object mapping [${name}]`);
    }
    out[k] = v;
  }
  const ep = (existing['properties'] as Json | undefined) ?? {};
  const up = (update['properties'] as Json | undefined) ?? {};
  if (existing['properties'] !== undefined || update['properties'] !== undefined) {
    const props: Json = { ...ep };
    for (const [k, v] of Object.entries(up)) {
      const full = name ? `${name}.${k}` : k;
      props[k] = props[k] ? mergeField(full, props[k] as Json, v as Json, ctx) : v;
    }
    out['properties'] = sortKeysDeep(props);
  }
  if (out['type'] === 'object') {
    if (isPlainObject(out['properties']) && Object.keys(out['properties'] as Json).length > 0) delete out['type'];
    else delete out['properties'];
  }
  return out;
}

/** Merges a normalised update into normalised existing root mappings. */
export function mergeRootMappings(existing: Json, update: Json, ctx: MappingContext): Json {
  const out: Json = { ...existing };
  for (const [k, v] of Object.entries(update)) {
    switch (k) {
      case 'properties':
        break;
      case '_source': {
        const es = (existing['_source'] as Json | undefined) ?? {};
        const us = v as Json;
        const ee = es['enabled'] ?? true;
        const ue = us['enabled'] ?? true;
        if (ee !== ue) {
          throw Errors.illegalArgument(`Mapper for [_source] conflicts with existing mapper:\n\tCannot update parameter [enabled] from [${String(ee)}] to [${String(ue)}]`);
        }
        out[k] = { ...es, ...us };
        break;
      }
      case '_routing': {
        const er = ((existing['_routing'] as Json | undefined) ?? {})['required'] ?? false;
        const ur = (v as Json)['required'] ?? false;
        if (er !== ur) {
          throw Errors.illegalArgument(`Mapper for [_routing] conflicts with existing mapper:\n\tCannot update parameter [required] from [${String(er)}] to [${String(ur)}]`);
        }
        out[k] = v;
        break;
      }
      case 'runtime': {
        const rt: Json = { ...((existing['runtime'] as Json | undefined) ?? {}) };
        for (const [rk, rv] of Object.entries(v as Json)) {
          if (rv === null) delete rt[rk];
          else rt[rk] = rv;
        }
        out[k] = rt;
        break;
      }
      case 'dynamic_templates': {
        const merged: Json[] = [...((existing['dynamic_templates'] as Json[] | undefined) ?? [])];
        for (const t of v as Json[]) {
          const n = Object.keys(t)[0];
          const i = merged.findIndex((x) => Object.keys(x)[0] === n);
          if (i >= 0) merged[i] = t;
          else merged.push(t);
        }
        out[k] = merged;
        break;
      }
      default:
        out[k] = v;
    }
  }
  if (update['properties'] !== undefined) {
    const props: Json = { ...((existing['properties'] as Json | undefined) ?? {}) };
    for (const [k, v] of Object.entries(update['properties'] as Json)) {
      props[k] = props[k] ? mergeField(k, props[k] as Json, v as Json, ctx) : v;
    }
    out['properties'] = sortKeysDeep(props);
  }
  return out;
}

// ------------------------------------------------------------------ compiled form

export interface LeafMapper {
  readonly kind: 'leaf';
  readonly name: string;
  readonly type: string;
  readonly def: Json;
  readonly ft: MappedFieldType;
  readonly multiFields: LeafMapper[];
  readonly copyTo: string[];
  readonly ext?: FieldMapperType;
  readonly extraTypes: MappedFieldType[];
  /** precomputed indexing options */
  readonly index: boolean;
  readonly docValues: boolean;
}

export interface ObjectMapper {
  readonly kind: 'object';
  readonly name: string;
  readonly nested: boolean;
  /** nested only: its fields are also indexed in the parent / root document */
  readonly includeInParent?: boolean;
  readonly includeInRoot?: boolean;
  readonly enabled: boolean;
  readonly dynamic?: Dynamic;
  readonly children: Map<string, Mapper>;
}

export interface AliasMapper {
  readonly kind: 'alias';
  readonly name: string;
  readonly path: string;
}

export type Mapper = LeafMapper | ObjectMapper | AliasMapper;

export interface DynamicTemplate {
  name: string;
  match?: string[];
  unmatch?: string[];
  pathMatch?: string[];
  pathUnmatch?: string[];
  matchMappingType?: string[];
  unmatchMappingType?: string[];
  regex: boolean;
  mapping?: Json;
  runtime?: Json;
}

export interface CompiledMapping {
  readonly json: Json;
  readonly root: ObjectMapper;
  readonly dynamic: Dynamic;
  readonly dateDetection: boolean;
  readonly numericDetection: boolean;
  readonly dynamicDateFormats: string[];
  readonly dynamicTemplates: DynamicTemplate[];
  readonly sourceEnabled: boolean;
  readonly sourceIncludes: string[];
  readonly sourceExcludes: string[];
  readonly routingRequired: boolean;
  /**
   * `_data_stream_timestamp.enabled` (a data stream's backing indices): every document holds one `@timestamp`
   * (ES DataStreamTimestampFieldMapper)
   */
  readonly dataStreamTimestamp: boolean;
  /** every searchable field type by full name (leaves, multi-fields, aliases, extension extras) */
  readonly fieldTypes: Map<string, MappedFieldType>;
  /** leaf mappers by full path (for copy_to) */
  readonly leaves: Map<string, LeafMapper>;
  /** flattened field names (sub-keys resolve to keyword types) */
  readonly flattened: Map<string, LeafMapper>;
  readonly runtime: Json;
  /** fields + objects + multi-fields + aliases + runtime fields (index.mapping.total_fields.limit) */
  readonly totalFields: number;
  /** the `nested` object fields by full path (ES NestedLookup) */
  readonly nested: NestedLookup;
}

/** one `nested` field of a mapping */
export interface NestedMapperInfo {
  readonly path: string;
  /** the nearest enclosing nested field, null when its parent documents are the root documents */
  readonly parentPath: string | null;
  readonly includeInParent: boolean;
  readonly includeInRoot: boolean;
}

/** The nested fields of a mapping (Elasticsearch's NestedLookup). */
export class NestedLookup {
  static readonly EMPTY = new NestedLookup(new Map());
  constructor(readonly mappers: ReadonlyMap<string, NestedMapperInfo>) {}
  get hasNested(): boolean {
    return this.mappers.size > 0;
  }
  get(path: string): NestedMapperInfo | undefined {
    return this.mappers.get(path);
  }
  /** the innermost nested field that `field` (a field or object path) lies inside, null when none */
  nestedParentOf(field: string): string | null {
    let best: string | null = null;
    for (const p of this.mappers.keys()) {
      if (field.length > p.length && field.startsWith(p) && field.charCodeAt(p.length) === 46 && (best === null || p.length > best.length)) best = p;
    }
    return best;
  }
}

function listOf(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  return Array.isArray(v) ? v.map(String) : [String(v)];
}

export function buildFieldType(name: string, def: Json, ctx: MappingContext): MappedFieldType {
  const type = String(def['type']);
  const index = def['index'] !== false;
  const docValues = def['doc_values'] !== false;
  const params = def;
  switch (type) {
    case 'keyword':
    case 'wildcard':
    case 'counted_keyword':
    case 'version': {
      const nn = def['normalizer'] as string | undefined;
      const normalizer = nn ? ctx.analysis.normalizer(nn, ctx.indexSettings) : undefined;
      const kwAnalyzer = normalizer ?? ctx.analysis.analyzer('keyword');
      return new KeywordFieldType({ name, type, searchable: index, hasDocValues: docValues, hasNorms: def['norms'] === true, params, normalizer, indexAnalyzer: kwAnalyzer, searchAnalyzer: kwAnalyzer });
    }
    case 'text':
    case 'search_as_you_type':
    case 'annotated_text':
    case 'match_only_text': {
      const an = def['analyzer'] as string | undefined;
      const indexAnalyzer: Analyzer | undefined = an ? ctx.analysis.analyzer(an, ctx.indexSettings) : ctx.analysis.analyzer('default', ctx.indexSettings);
      const san = def['search_analyzer'] as string | undefined;
      const searchAnalyzer = san
        ? ctx.analysis.analyzer(san, ctx.indexSettings)
        : an
          ? indexAnalyzer
          : (ctx.analysis.analyzer('default_search', ctx.indexSettings) ?? indexAnalyzer);
      return new TextFieldType({
        name,
        type,
        searchable: index,
        hasDocValues: false,
        hasNorms: type !== 'match_only_text' && index && def['norms'] !== false,
        params,
        indexAnalyzer: withGap(indexAnalyzer, def['position_increment_gap']),
        searchAnalyzer,
      });
    }
    case 'date':
    case 'date_nanos':
      return new DateFieldType({ name, type, searchable: index, hasDocValues: docValues, params, format: def['format'] as string | undefined });
    case 'boolean':
      return new BooleanFieldType({ name, type, searchable: index, hasDocValues: docValues, params });
    case 'ip':
      return new IpFieldType({ name, type, searchable: index, hasDocValues: docValues, params });
    case 'constant_keyword':
      return new ConstantKeywordFieldType({ name, type, searchable: true, hasDocValues: false, params });
    case 'token_count': {
      const an = def['analyzer'] as string | undefined;
      const analyzer = an ? ctx.analysis.analyzer(an, ctx.indexSettings) : ctx.analysis.analyzer('default', ctx.indexSettings);
      return new TokenCountFieldType({ name, type, searchable: index, hasDocValues: docValues, params, indexAnalyzer: analyzer });
    }
    case 'flattened': {
      const kw = ctx.analysis.analyzer('keyword');
      return new KeywordFieldType({ name, type, searchable: index, hasDocValues: docValues, params, indexAnalyzer: kw, searchAnalyzer: kw });
    }
    default:
      if (NUMERIC_TYPES.has(type)) {
        return new NumberFieldType({ name, type, searchable: index, hasDocValues: docValues, params, scalingFactor: def['scaling_factor'] as number | undefined });
      }
      return new OpaqueFieldType({ name, type, searchable: false, hasDocValues: false, params });
  }
}

/**
 * token_count: an integer field holding the number of tokens (positions) the `analyzer` produces for the value;
 * searchable and aggregatable like an `integer`.
 */
export class TokenCountFieldType extends NumberFieldType {
  override readonly isInteger: boolean = true;
  override termValue(value: unknown): number {
    if (typeof value === 'number' && !Number.isInteger(value)) return value;
    if (typeof value === 'string' && /^\s*-?\d*\.\d+\s*$/.test(value)) return Number(value);
    return parseNumber('integer', value, true);
  }
  /** the count ES indexes (TokenCountFieldMapper.countPositions): positions with increments, else tokens */
  countTokens(text: string): number {
    const an = this.indexAnalyzer;
    if (!an) return 0;
    const toks = an.analyze(text);
    if (toks.length === 0) return 0;
    if (this.params['enable_position_increments'] === false) {
      let n = 0;
      let last = -1;
      for (const t of toks) {
        if (t.position !== last) n++;
        last = t.position;
      }
      return n;
    }
    let max = 0;
    for (const t of toks) if (t.position > max) max = t.position;
    return max + 1;
  }
}

function withGap(a: Analyzer | undefined, gap: unknown): Analyzer | undefined {
  if (!a || gap === undefined) return a;
  const g = Number(gap);
  return { name: a.name, positionIncrementGap: g, analyze: (t: string) => a.analyze(t) };
}

function compileLeaf(name: string, def: Json, ctx: MappingContext, out: CompiledMapping): LeafMapper {
  const type = String(def['type']);
  const ext = ctx.extensions.get(type);
  let ft: MappedFieldType;
  let extraTypes: MappedFieldType[] = [];
  if (ext) {
    const all = ext.fieldTypes(name, def, ctx);
    ft = all[0] ?? new OpaqueFieldType({ name, type, searchable: false, hasDocValues: false, params: def });
    extraTypes = all.slice(1);
  } else ft = buildFieldType(name, def, ctx);
  const multiFields: LeafMapper[] = [];
  const fields = def['fields'] as Json | undefined;
  if (fields) {
    for (const [sub, sd] of Object.entries(fields)) {
      const mf = compileLeaf(`${name}.${sub}`, sd as Json, ctx, out);
      multiFields.push(mf);
    }
  }
  const leaf: LeafMapper = {
    kind: 'leaf',
    name,
    type,
    def,
    ft,
    multiFields,
    copyTo: listOf(def['copy_to']) ?? [],
    ext,
    extraTypes,
    index: def['index'] !== false,
    docValues: def['doc_values'] !== false,
  };
  out.fieldTypes.set(name, ft);
  for (const x of extraTypes) out.fieldTypes.set(x.name, x);
  out.leaves.set(name, leaf);
  if (type === 'flattened') out.flattened.set(name, leaf);
  (out as { totalFields: number }).totalFields++;
  return leaf;
}

function compileObject(
  name: string,
  def: Json,
  ctx: MappingContext,
  out: CompiledMapping,
  aliases: AliasMapper[],
  nestedParent: string | null,
  nested: Map<string, NestedMapperInfo>,
): ObjectMapper {
  const isNested = def['type'] === 'nested';
  const includeInParent = def['include_in_parent'] === true;
  const includeInRoot = def['include_in_root'] === true;
  if (isNested) nested.set(name, { path: name, parentPath: nestedParent, includeInParent, includeInRoot });
  const childNestedParent = isNested ? name : nestedParent;
  const children = new Map<string, Mapper>();
  const props = (def['properties'] as Json | undefined) ?? {};
  for (const [k, v] of Object.entries(props)) {
    const full = name ? `${name}.${k}` : k;
    const d = v as Json;
    if (isObjectDef(d)) {
      children.set(k, compileObject(full, d, ctx, out, aliases, childNestedParent, nested));
      (out as { totalFields: number }).totalFields++;
    } else if (d['type'] === 'alias') {
      const a: AliasMapper = { kind: 'alias', name: full, path: String(d['path']) };
      children.set(k, a);
      aliases.push(a);
      (out as { totalFields: number }).totalFields++;
    } else children.set(k, compileLeaf(full, d, ctx, out));
  }
  return {
    kind: 'object',
    name,
    nested: isNested,
    ...(isNested ? { includeInParent, includeInRoot } : {}),
    enabled: def['enabled'] !== false,
    dynamic: def['dynamic'] === undefined ? undefined : parseDynamic(def['dynamic'], name),
    children,
  };
}

export function compileMapping(json: Json, ctx: MappingContext): CompiledMapping {
  const src = (json['_source'] as Json | undefined) ?? {};
  const out: CompiledMapping = {
    json,
    root: undefined as unknown as ObjectMapper,
    dynamic: json['dynamic'] === undefined ? 'true' : parseDynamic(json['dynamic'], '_doc'),
    dateDetection: json['date_detection'] !== false,
    numericDetection: json['numeric_detection'] === true,
    dynamicDateFormats: (json['dynamic_date_formats'] as string[] | undefined) ?? DEFAULT_DYNAMIC_DATE_FORMATS,
    dynamicTemplates: ((json['dynamic_templates'] as Json[] | undefined) ?? []).map(compileTemplate),
    sourceEnabled: src['enabled'] !== false,
    sourceIncludes: (src['includes'] as string[] | undefined) ?? [],
    sourceExcludes: (src['excludes'] as string[] | undefined) ?? [],
    routingRequired: ((json['_routing'] as Json | undefined) ?? {})['required'] === true,
    dataStreamTimestamp: ((json['_data_stream_timestamp'] as Json | undefined) ?? {})['enabled'] === true,
    fieldTypes: new Map(),
    leaves: new Map(),
    flattened: new Map(),
    runtime: (json['runtime'] as Json | undefined) ?? {},
    totalFields: 0,
    nested: NestedLookup.EMPTY,
  };
  const aliases: AliasMapper[] = [];
  const nested = new Map<string, NestedMapperInfo>();
  (out as { root: ObjectMapper }).root = compileObject('', { properties: json['properties'] ?? {}, dynamic: json['dynamic'] }, ctx, out, aliases, null, nested);
  if (nested.size > 0) (out as { nested: NestedLookup }).nested = new NestedLookup(nested);
  for (const a of aliases) {
    const target = out.fieldTypes.get(a.path);
    if (!target) {
      const isAlias = aliases.some((x) => x.name === a.path);
      throw mpe(
        isAlias
          ? `Invalid [path] value [${a.path}] for field alias [${a.name}]: an alias cannot refer to another alias.`
          : a.path === a.name
            ? `Invalid [path] value [${a.path}] for field alias [${a.name}]: an alias cannot refer to itself.`
            : `Invalid [path] value [${a.path}] for field alias [${a.name}]: an alias must refer to an existing field in the mappings.`,
      );
    }
    out.fieldTypes.set(a.name, target);
  }
  (out as { totalFields: number }).totalFields += Object.keys(out.runtime).length;
  return out;
}

function compileTemplate(t: Json): DynamicTemplate {
  const [name, b] = Object.entries(t)[0] as [string, Json];
  return {
    name,
    match: listOf(b['match']),
    unmatch: listOf(b['unmatch']),
    pathMatch: listOf(b['path_match']),
    pathUnmatch: listOf(b['path_unmatch']),
    matchMappingType: listOf(b['match_mapping_type']),
    unmatchMappingType: listOf(b['unmatch_mapping_type']),
    regex: b['match_pattern'] === 'regex',
    mapping: b['mapping'] as Json | undefined,
    runtime: b['runtime'] as Json | undefined,
  };
}

/** `*` wildcard match (Regex.simpleMatch). */
export { simpleMatch };

/**
 * The checks ES makes once a mapping is parsed (MappingLookup / doValidate, errors not wrapped as parse errors):
 * at most one field of a singleton extension type (join), `index.mapping.nested_fields.limit` and
 * `index.mapping.total_fields.limit`.
 */
export function checkTotalFields(c: CompiledMapping, settings: Record<string, unknown>, added = 0): void {
  // at most one field of a singleton extension type in the whole mapping (ES: join's doValidate)
  const singletons = new Map<FieldMapperType, string[]>();
  for (const leaf of c.leaves.values()) {
    if (!leaf.ext?.singleton) continue;
    const names = singletons.get(leaf.ext) ?? [];
    names.push(leaf.name);
    singletons.set(leaf.ext, names);
  }
  for (const [ext, names] of singletons) {
    if (names.length > 1) throw ext.singletonError?.(names) ?? mpe(`Only one [${ext.type}] field can be defined per index, got [${names.join(', ')}]`);
  }

  const nestedLimit = Number(settings['index.mapping.nested_fields.limit'] ?? 50);
  if (c.nested.mappers.size > nestedLimit) throw Errors.illegalArgument(`Limit of nested fields [${nestedLimit}] has been exceeded`);
  const limit = Number(settings['index.mapping.total_fields.limit'] ?? 1000);
  if (c.totalFields > limit) {
    throw Errors.illegalArgument(`Limit of total fields [${limit}] has been exceeded${added ? ` while adding new fields [${added}]` : ''}`);
  }
}
