/**
 * Field processors: set, append, remove, rename, convert, lowercase, uppercase, trim, split, join, gsub,
 * urldecode, bytes, json, dot_expander, fail, drop.
 */
import { EsError, Errors, UserRegex, parseUserJson } from '@strata/core-common';
import { deepClone, hasOwn, isObject, javaTypeName, setOwn, type IngestDocument, type JsonObject } from '../ingest-document.js';
import { compileTemplate, compileValueSource, escaperFor, renderValue, type Escaper, type Template } from '../template.js';
import { defineProcessor, type ConfigReader, type ProcessorFactory } from '../processor.js';

const MEDIA_TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded'];

function readMediaType(r: ConfigReader): Escaper | undefined {
  const mt = r.optionalString('media_type', 'application/json')!;
  if (!MEDIA_TYPES.includes(mt)) {
    throw r.error('media_type', `property does not contain a supported media type [${mt}]`);
  }
  return escaperFor(mt);
}

function fieldTemplate(r: ConfigReader, name = 'field'): Template {
  const f = r.requiredString(name);
  try {
    return compileTemplate(f);
  } catch (e) {
    throw r.error(name, (e as Error).message);
  }
}

/** cached path for constant templates */
function pathOf(t: Template, doc: IngestDocument): string {
  return t.isConstant ? t.source : t.render(doc);
}

// ------------------------------------------------------------------------------------------ set

export const setProcessor: ProcessorFactory = defineProcessor('set', (r) => {
  const field = fieldTemplate(r);
  const hasValue = r.config['value'] !== undefined;
  const copyFrom = r.optionalString('copy_from');
  if (copyFrom !== undefined && hasValue) {
    throw r.error('copy_from', 'cannot set both `copy_from` and `value` in the same processor');
  }
  const rawValue = r.raw('value');
  if (copyFrom === undefined && !hasValue) throw r.error('value', 'required property is missing');
  const override = r.bool('override', true);
  const ignoreEmpty = r.bool('ignore_empty_value', false);
  const esc = readMediaType(r);
  const value = hasValue ? compileValueSource(rawValue, esc) : undefined;
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      if (!override && doc.hasField(path)) {
        const existing = doc.getFieldValue(path, true);
        if (existing !== null && existing !== undefined) return doc;
      }
      let v: unknown;
      // SetProcessor: with ignore_empty_value a missing copy_from field is an empty value, not an error
      if (copyFrom !== undefined) v = deepClone(doc.getFieldValue(copyFrom, ignoreEmpty));
      else v = value!.copy(doc);
      if (ignoreEmpty && (v === null || v === undefined || v === '')) return doc;
      doc.setFieldValue(path, v);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ append

export const appendProcessor: ProcessorFactory = defineProcessor('append', (r) => {
  const field = fieldTemplate(r);
  if (r.config['value'] === undefined || r.config['value'] === null) {
    r.raw('value');
    throw r.error('value', 'required property is missing');
  }
  const rawValue = r.raw('value');
  const allowDuplicates = r.bool('allow_duplicates', true);
  const value = compileValueSource(rawValue, readMediaType(r));
  return {
    execute(doc) {
      doc.appendFieldValue(pathOf(field, doc), value.copy(doc), allowDuplicates);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ remove

export const removeProcessor: ProcessorFactory = defineProcessor('remove', (r) => {
  const hasField = r.has('field');
  const hasKeep = r.has('keep');
  if (hasField && hasKeep) throw r.error(undefined, 'Only one of [field] and [keep] can be set');
  if (!hasField && !hasKeep) throw r.error('field', 'required property is missing');
  const fields = (r.stringOrList('field', false) ?? []).map((f) => compileTemplate(f));
  const keep = (r.stringOrList('keep', false) ?? []).map((f) => compileTemplate(f));
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc) {
      if (keep.length > 0) {
        const keepPaths = keep.map((k) => pathOf(k, doc));
        for (const key of Object.keys(doc.source)) {
          if (!keepPaths.some((k) => k === key || k.startsWith(key + '.'))) delete doc.source[key];
        }
        return doc;
      }
      for (const f of fields) {
        const path = pathOf(f, doc);
        if (['_index', '_version', '_version_type', '_id'].includes(path)) {
          throw Errors.illegalArgument(`cannot remove metadata field [${path}]`);
        }
        doc.removeField(path, ignoreMissing);
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ rename

export const renameProcessor: ProcessorFactory = defineProcessor('rename', (r) => {
  const field = fieldTemplate(r);
  const target = fieldTemplate(r, 'target_field');
  const ignoreMissing = r.bool('ignore_missing', false);
  const override = r.bool('override', false);
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      const targetPath = pathOf(target, doc);
      if (!doc.hasField(path, true)) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`field [${path}] doesn't exist`);
      }
      if (doc.hasField(targetPath, true) && !override) {
        throw Errors.illegalArgument(`field [${targetPath}] already exists`);
      }
      const value = doc.getFieldValue(path);
      doc.removeField(path);
      try {
        doc.setFieldValue(targetPath, value);
      } catch (e) {
        doc.setFieldValue(path, value);
        throw e;
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ convert

const CONVERT_TYPES = ['integer', 'long', 'float', 'double', 'boolean', 'string', 'ip', 'auto'] as const;
type ConvertType = (typeof CONVERT_TYPES)[number];

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export function isIp(s: string): boolean {
  if (IPV4.test(s)) return true;
  if (!s.includes(':')) return false;
  try {
    return new URL(`http://[${s.replace(/%.*$/, '')}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

function parseInteger(s: string, type: 'integer' | 'long'): number {
  const t = s.trim() === s ? s : '';
  let n: number;
  if (/^[+-]?0[xX][0-9a-fA-F]+$/.test(t)) n = Number.parseInt(t, 16);
  else if (/^[+-]?\d+$/.test(t)) n = Number(t);
  else throw Errors.illegalArgument(`unable to convert [${s}] to ${type}`);
  if (type === 'integer' && (n > 2147483647 || n < -2147483648)) throw Errors.illegalArgument(`unable to convert [${s}] to integer`);
  return n;
}

function parseFloating(s: string, type: 'float' | 'double'): number {
  const t = s.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(t) && !/^[+-]?(Infinity|NaN)$/.test(t)) {
    throw Errors.illegalArgument(`unable to convert [${s}] to ${type}`);
  }
  return Number(t.replace(/[fFdD]$/, ''));
}

function convertOne(v: unknown, type: ConvertType): unknown {
  const s = typeof v === 'string' ? v : renderValue(v);
  switch (type) {
    case 'integer':
    case 'long':
      if (typeof v === 'number' && Number.isInteger(v)) return v;
      return parseInteger(s, type);
    case 'float':
    case 'double':
      if (typeof v === 'number') return v;
      return parseFloating(s, type);
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (s.toLowerCase() === 'true') return true;
      if (s.toLowerCase() === 'false') return false;
      throw Errors.illegalArgument(`[${s}] is not a boolean value, cannot convert to boolean`);
    case 'string':
      return s;
    case 'ip':
      if (isIp(s)) return s;
      throw Errors.illegalArgument(`'${s}' is not an IP string literal.`);
    case 'auto': {
      if (typeof v !== 'string') return v;
      if (/^[+-]?\d+$/.test(s) || /^[+-]?0[xX][0-9a-fA-F]+$/.test(s)) {
        const n = /[xX]/.test(s) ? Number.parseInt(s, 16) : Number(s);
        if (Number.isSafeInteger(n)) return n;
      }
      if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return Number(s);
      if (s.toLowerCase() === 'true') return true;
      if (s.toLowerCase() === 'false') return false;
      return s;
    }
  }
}

export const convertProcessor: ProcessorFactory = defineProcessor('convert', (r) => {
  const field = fieldTemplate(r);
  const typeName = r.requiredString('type');
  if (!(CONVERT_TYPES as readonly string[]).includes(typeName)) {
    throw r.error('type', `type [${typeName}] not supported, cannot convert field.`);
  }
  const type = typeName as ConvertType;
  const target = r.optionalString('target_field');
  const targetT = target !== undefined ? compileTemplate(target) : field;
  const ignoreMissing = r.bool('ignore_missing', false);
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      const v = doc.getFieldValue(path, ignoreMissing);
      if (v === undefined || v === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`Field [${path}] is null, cannot be converted to type [${type}]`);
      }
      const out = Array.isArray(v) ? v.map((x) => convertOne(x, type)) : convertOne(v, type);
      doc.setFieldValue(pathOf(targetT, doc), out);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ string processors

function stringProcessor(
  type: string,
  fn: (s: string, r: Record<string, unknown>) => unknown,
  extra?: (r: ConfigReader) => Record<string, unknown>,
  listSupport = true,
): ProcessorFactory {
  return defineProcessor(type, (r) => {
    const field = fieldTemplate(r);
    const ignoreMissing = r.bool('ignore_missing', false);
    const target = r.optionalString('target_field');
    const targetT = target !== undefined ? compileTemplate(target) : field;
    const opts = extra ? extra(r) : {};
    return {
      execute(doc) {
        const path = pathOf(field, doc);
        const v = doc.getFieldValue(path, ignoreMissing);
        if (v === undefined || v === null) {
          if (ignoreMissing) return doc;
          throw Errors.illegalArgument(`field [${path}] is null, cannot process it.`);
        }
        let out: unknown;
        if (Array.isArray(v) && listSupport) {
          out = v.map((x) => {
            if (typeof x !== 'string') {
              throw Errors.illegalArgument(
                `value [${String(x)}] of type [${javaTypeName(x)}] in list field [${path}] cannot be cast to [java.lang.String]`,
              );
            }
            return fn(x, opts);
          });
        } else if (typeof v === 'string') {
          out = fn(v, opts);
        } else {
          throw Errors.illegalArgument(`field [${path}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
        }
        doc.setFieldValue(pathOf(targetT, doc), out);
        return doc;
      },
    };
  });
}

export const lowercaseProcessor = stringProcessor('lowercase', (s) => s.toLowerCase());
export const uppercaseProcessor = stringProcessor('uppercase', (s) => s.toUpperCase());
export const trimProcessor = stringProcessor('trim', (s) => s.trim());
export const urldecodeProcessor = stringProcessor('urldecode', (s) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw Errors.illegalArgument(`URLDecoder: Illegal hex characters in escape (%) pattern`);
  }
});

export const gsubProcessor = stringProcessor(
  'gsub',
  (s, o) => (o['pattern'] as UserRegex).replace(s, o['replacement'] as string),
  (r) => {
    const pattern = r.requiredString('pattern');
    const replacement = r.requiredString('replacement');
    let re: UserRegex;
    try {
      re = UserRegex.java(pattern);
    } catch (e) {
      throw r.error('pattern', `Invalid regex pattern. ${(e as Error).message}`);
    }
    return { pattern: re, replacement };
  },
);

const BYTE_UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4, pb: 1024 ** 5 };

export const bytesProcessor = stringProcessor('bytes', (s) => {
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*([a-zA-Z]+)\s*$/.exec(s);
  const unit = m?.[2].toLowerCase();
  if (!m || unit === undefined || BYTE_UNITS[unit] === undefined) {
    if (/^\s*-?\d+\s*$/.test(s) || s.trim() === '-1' || s.trim() === '0') {
      throw new EsError(
        'illegal_argument_exception',
        400,
        `failed to parse setting [Ingest Field] with value [${s}] as a size in bytes: unit is missing or unrecognized`,
      );
    }
    throw new EsError(
      'illegal_argument_exception',
      400,
      `failed to parse setting [Ingest Field] with value [${s}] as a size in bytes: unit is missing or unrecognized`,
    );
  }
  return Math.round(Number(m[1]) * BYTE_UNITS[unit]);
});

// ------------------------------------------------------------------------------------------ split / join

export const splitProcessor: ProcessorFactory = defineProcessor('split', (r) => {
  const field = fieldTemplate(r);
  const sep = r.requiredString('separator');
  let re: UserRegex;
  try {
    re = UserRegex.java(sep);
  } catch (e) {
    throw r.error('separator', `Invalid regex pattern. ${(e as Error).message}`);
  }
  const ignoreMissing = r.bool('ignore_missing', false);
  const preserveTrailing = r.bool('preserve_trailing', false);
  const target = r.optionalString('target_field');
  const targetT = target !== undefined ? compileTemplate(target) : field;
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      const v = doc.getFieldValue(path, ignoreMissing);
      if (v === undefined || v === null) {
        if (ignoreMissing) return doc;
        throw Errors.illegalArgument(`field [${path}] is null, cannot split.`);
      }
      if (typeof v !== 'string') {
        throw Errors.illegalArgument(`field [${path}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
      }
      const parts = re.split(v, preserveTrailing ? -1 : 0);
      doc.setFieldValue(pathOf(targetT, doc), parts);
      return doc;
    },
  };
});

export const joinProcessor: ProcessorFactory = defineProcessor('join', (r) => {
  const field = fieldTemplate(r);
  const sep = r.requiredString('separator');
  const target = r.optionalString('target_field');
  const targetT = target !== undefined ? compileTemplate(target) : field;
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      const v = doc.getFieldValue(path);
      if (v === null || v === undefined) throw Errors.illegalArgument(`field [${path}] is null, cannot join.`);
      if (!Array.isArray(v)) {
        throw Errors.illegalArgument(`field [${path}] of type [${javaTypeName(v)}] cannot be cast to [java.util.List]`);
      }
      doc.setFieldValue(pathOf(targetT, doc), v.map((x) => (x === null ? 'null' : typeof x === 'object' ? JSON.stringify(x) : String(x))).join(sep));
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ json

export const jsonProcessor: ProcessorFactory = defineProcessor('json', (r) => {
  const field = fieldTemplate(r);
  const target = r.optionalString('target_field');
  const addToRoot = r.bool('add_to_root', false);
  const strategy = r.optionalString('add_to_root_conflict_strategy');
  r.bool('allow_duplicate_keys', false);
  r.bool('strict_json_parsing', true);
  if (addToRoot && target !== undefined) {
    throw r.error('target_field', 'Cannot set a target field while also setting `add_to_root` to true');
  }
  if (strategy !== undefined && !addToRoot) {
    throw r.error('add_to_root_conflict_strategy', 'Cannot set `add_to_root_conflict_strategy` if `add_to_root` is false');
  }
  if (strategy !== undefined && strategy !== 'replace' && strategy !== 'merge') {
    throw r.error('add_to_root_conflict_strategy', `conflict strategy [${strategy}] not supported, cannot convert field.`);
  }
  const targetT = target !== undefined ? compileTemplate(target) : field;
  const merge = (dst: JsonObject, src: JsonObject) => {
    for (const [k, v] of Object.entries(src)) {
      if (isObject(v) && hasOwn(dst, k) && isObject(dst[k])) merge(dst[k] as JsonObject, v);
      else setOwn(dst, k, v);
    }
  };
  return {
    execute(doc) {
      const path = pathOf(field, doc);
      const v = doc.getFieldValue(path);
      let parsed: unknown;
      if (typeof v === 'string') {
        parsed = parseUserJson(v, (message) => Errors.illegalArgument(`cannot parse json value [${v}]: ${message}`));
      } else if (v === null || typeof v === 'number' || typeof v === 'boolean') {
        parsed = v;
      } else {
        throw Errors.illegalArgument(`field [${path}] of type [${javaTypeName(v)}] cannot be cast to [java.lang.String]`);
      }
      if (addToRoot) {
        if (!isObject(parsed)) throw Errors.illegalArgument('cannot add non-map fields to root of document');
        if (strategy === 'merge') merge(doc.source, parsed);
        else for (const [k, v] of Object.entries(parsed)) setOwn(doc.source, k, v);
      } else {
        doc.setFieldValue(pathOf(targetT, doc), parsed);
      }
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ dot_expander

export const dotExpanderProcessor: ProcessorFactory = defineProcessor('dot_expander', (r) => {
  const field = r.requiredString('field');
  if (field !== '*' && (!field.includes('.') || field.startsWith('.') || field.endsWith('.') || field.includes('..'))) {
    if (!field.includes('.')) throw r.error('field', 'field does not contain a dot and is not a wildcard');
    throw r.error('field', 'Field can\'t start or end with a dot or contain consecutive dots');
  }
  const path = r.optionalString('path');
  const override = r.bool('override', false);
  const expandKey = (map: JsonObject, key: string) => {
    if (!hasOwn(map, key)) return;
    const value = map[key];
    delete map[key];
    const parts = key.split('.');
    let cur = map;
    for (let i = 0; i < parts.length - 1; i++) {
      const next = hasOwn(cur, parts[i]) ? cur[parts[i]] : undefined;
      if (isObject(next)) cur = next;
      else {
        const o: JsonObject = {};
        setOwn(cur, parts[i], o);
        cur = o;
      }
    }
    const leaf = parts[parts.length - 1];
    if (hasOwn(cur, leaf) && !override) {
      const existing = cur[leaf];
      setOwn(cur, leaf, Array.isArray(existing) ? [...existing, value] : [existing, value]);
    } else setOwn(cur, leaf, value);
  };
  return {
    execute(doc) {
      let map: unknown = doc.source;
      if (path !== undefined) map = doc.getFieldValue(path);
      if (!isObject(map)) return doc;
      if (field === '*') {
        for (const k of Object.keys(map)) if (k.includes('.')) expandKey(map, k);
      } else expandKey(map, field);
      return doc;
    },
  };
});

// ------------------------------------------------------------------------------------------ fail / drop

export const failProcessor: ProcessorFactory = defineProcessor('fail', (r) => {
  const message = compileTemplate(r.requiredString('message'));
  return {
    execute(doc) {
      throw new EsError('fail_processor_exception', 500, message.render(doc));
    },
  };
});

export const dropProcessor: ProcessorFactory = defineProcessor('drop', () => ({
  execute() {
    return null;
  },
}));

