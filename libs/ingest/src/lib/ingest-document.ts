/**
 * The document as processors see it: `_source`, the metadata fields (`_index`, `_id`, `_routing`,
 * `_version`, `_version_type`, `_if_seq_no`, `_if_primary_term`, `_dynamic_templates`) and the ingest
 * metadata (`_ingest.timestamp`, `_ingest.pipeline`, `_ingest.on_failure_*`).
 *
 * Field paths follow Elasticsearch: `a.b.c` walks objects, numeric segments index arrays,
 * `_source.x` addresses the source explicitly, `_ingest.x` the ingest metadata, and a leading metadata
 * key (`_index`, ...) the metadata.
 */
import { Errors } from '@strata/core-common';

export const METADATA_KEYS = [
  '_index',
  '_id',
  '_routing',
  '_version',
  '_version_type',
  '_if_seq_no',
  '_if_primary_term',
  '_dynamic_templates',
] as const;
export type MetadataKey = (typeof METADATA_KEYS)[number];
const METADATA_SET = new Set<string>(METADATA_KEYS);

export function isMetadataKey(k: string): k is MetadataKey {
  return METADATA_SET.has(k);
}

export type JsonObject = Record<string, unknown>;

const hasOwnProp = Object.prototype.hasOwnProperty;

/** own-property check (never walks into Object.prototype through `__proto__`, `constructor`, ...) */
export function hasOwn(o: object, key: string): boolean {
  return hasOwnProp.call(o, key);
}

/** assignment that creates an own property even for the key `__proto__` (no prototype pollution) */
export function setOwn(o: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Java-like type name used in ES error messages. */
export function javaTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'java.lang.String';
  if (typeof v === 'boolean') return 'java.lang.Boolean';
  if (typeof v === 'number') return Number.isInteger(v) ? 'java.lang.Integer' : 'java.lang.Double';
  if (Array.isArray(v)) return 'java.util.ArrayList';
  return 'java.util.LinkedHashMap';
}

export function deepClone<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(deepClone) as unknown as T;
  const out: JsonObject = {};
  for (const k of Object.keys(v as JsonObject)) setOwn(out, k, deepClone((v as JsonObject)[k]));
  return out as T;
}

/** A compiled field path: split once, reused for every document. */
export interface FieldPath {
  readonly raw: string;
  /** where the path starts */
  readonly root: 'source' | 'meta' | 'ingest';
  readonly parts: readonly string[];
}

const pathCache = new Map<string, FieldPath>();

export function compilePath(path: string): FieldPath {
  let p = pathCache.get(path);
  if (p) return p;
  if (path === null || path === undefined || path === '') {
    throw Errors.illegalArgument('path cannot be null nor empty');
  }
  let parts = path.split('.');
  if (parts.some((x) => x === '') && path !== '_source' && path !== '_ingest') {
    throw Errors.illegalArgument(`path [${path}] is not valid`);
  }
  let root: FieldPath['root'] = 'source';
  if (parts[0] === '_ingest') {
    root = 'ingest';
    parts = parts.slice(1);
  } else if (parts[0] === '_source') {
    parts = parts.slice(1);
  } else if (isMetadataKey(parts[0])) {
    root = 'meta';
  }
  if (parts.length === 0) {
    // `_source` or `_ingest` alone: the whole map
    p = { raw: path, root, parts: [] };
  } else {
    p = { raw: path, root, parts };
  }
  if (pathCache.size > 10000) pathCache.clear();
  pathCache.set(path, p);
  return p;
}

function notPresent(path: string, key: string): Error {
  return Errors.illegalArgument(`field [${key}] not present as part of path [${path}]`);
}

function arrayIndex(part: string, arr: unknown[], path: string): number {
  if (!/^\d+$/.test(part)) {
    throw Errors.illegalArgument(`[${part}] is not an integer, cannot be used as an index as part of path [${path}]`);
  }
  const i = Number(part);
  if (i >= arr.length) {
    throw Errors.illegalArgument(`[${i}] is out of bounds for array with length [${arr.length}] as part of path [${path}]`);
  }
  return i;
}

export class IngestDocument {
  source: JsonObject;
  meta: JsonObject;
  ingest: JsonObject;
  /** set by the reroute processor: the rest of the pipeline chain is skipped */
  rerouted = false;

  constructor(source: JsonObject, meta: JsonObject, ingest: JsonObject) {
    this.source = source;
    this.meta = meta;
    this.ingest = ingest;
  }

  static create(
    source: JsonObject,
    meta: Partial<Record<MetadataKey, unknown>>,
    timestamp: string,
  ): IngestDocument {
    const m: JsonObject = {};
    for (const k of METADATA_KEYS) if (meta[k] !== undefined && meta[k] !== null) m[k] = meta[k];
    return new IngestDocument(source, m, { timestamp });
  }

  deepCopy(): IngestDocument {
    const d = new IngestDocument(deepClone(this.source), deepClone(this.meta), deepClone(this.ingest));
    d.rerouted = this.rerouted;
    return d;
  }

  private rootOf(p: FieldPath): JsonObject {
    return p.root === 'source' ? this.source : p.root === 'ingest' ? this.ingest : this.meta;
  }

  /** Value at path; throws "field [x] not present as part of path [p]" when missing (unless ignoreMissing). */
  getFieldValue(path: string | FieldPath, ignoreMissing = false): unknown {
    const p = typeof path === 'string' ? compilePath(path) : path;
    let cur: unknown = this.rootOf(p);
    for (const part of p.parts) {
      if (isObject(cur)) {
        if (!hasOwn(cur, part)) {
          if (ignoreMissing) return undefined;
          throw notPresent(p.raw, part);
        }
        cur = cur[part];
      } else if (Array.isArray(cur)) {
        if (!/^\d+$/.test(part) || Number(part) >= cur.length) {
          if (ignoreMissing) return undefined;
          arrayIndex(part, cur, p.raw);
        }
        cur = cur[Number(part)];
      } else {
        if (ignoreMissing) return undefined;
        if (cur === null || cur === undefined) {
          throw Errors.illegalArgument(`cannot resolve [${part}] from null as part of path [${p.raw}]`);
        }
        throw Errors.illegalArgument(
          `cannot resolve [${part}] from object of type [${javaTypeName(cur)}] as part of path [${p.raw}]`,
        );
      }
    }
    return cur;
  }

  hasField(path: string | FieldPath, failOutOfRange = false): boolean {
    const p = typeof path === 'string' ? compilePath(path) : path;
    let cur: unknown = this.rootOf(p);
    for (const part of p.parts) {
      if (isObject(cur)) {
        if (!hasOwn(cur, part)) return false;
        cur = cur[part];
      } else if (Array.isArray(cur)) {
        if (!/^\d+$/.test(part)) return false;
        const i = Number(part);
        if (i >= cur.length) {
          if (failOutOfRange) arrayIndex(part, cur, p.raw);
          return false;
        }
        cur = cur[i];
      } else {
        return false;
      }
    }
    return true;
  }

  /** Sets (creating intermediate objects); `append` adds to a list instead of replacing. */
  setFieldValue(path: string | FieldPath, value: unknown, append = false, allowDuplicates = true): void {
    const p = typeof path === 'string' ? compilePath(path) : path;
    if (p.parts.length === 0) {
      if (!isObject(value)) throw Errors.illegalArgument(`cannot set [${p.raw}] to a non-object value`);
      if (p.root === 'source') this.source = value;
      else if (p.root === 'ingest') this.ingest = value;
      return;
    }
    let cur: unknown = this.rootOf(p);
    const n = p.parts.length;
    for (let i = 0; i < n - 1; i++) {
      const part = p.parts[i];
      if (isObject(cur)) {
        let next = hasOwn(cur, part) ? cur[part] : undefined;
        if (next === undefined) {
          next = {};
          setOwn(cur, part, next);
        } else if (next === null) {
          throw Errors.illegalArgument(`cannot set [${p.parts[i + 1]}] with null parent as part of path [${p.raw}]`);
        }
        cur = next;
      } else if (Array.isArray(cur)) {
        cur = cur[arrayIndex(part, cur, p.raw)];
        if (cur === null || cur === undefined) {
          throw Errors.illegalArgument(`cannot set [${p.parts[i + 1]}] with null parent as part of path [${p.raw}]`);
        }
      } else {
        throw Errors.illegalArgument(
          `cannot set [${part}] with parent object of type [${javaTypeName(cur)}] as part of path [${p.raw}]`,
        );
      }
    }
    const leaf = p.parts[n - 1];
    if (isObject(cur)) {
      if (append && hasOwn(cur, leaf)) {
        setOwn(cur, leaf, appendValues(cur[leaf], value, allowDuplicates));
      } else if (append) {
        setOwn(cur, leaf, Array.isArray(value) ? (allowDuplicates ? [...value] : dedupe([], value)) : [value]);
      } else {
        setOwn(cur, leaf, value);
      }
    } else if (Array.isArray(cur)) {
      const i = arrayIndex(leaf, cur, p.raw);
      cur[i] = append ? appendValues(cur[i], value, allowDuplicates) : value;
    } else {
      throw Errors.illegalArgument(
        `cannot set [${leaf}] with parent object of type [${javaTypeName(cur)}] as part of path [${p.raw}]`,
      );
    }
  }

  appendFieldValue(path: string | FieldPath, value: unknown, allowDuplicates = true): void {
    this.setFieldValue(path, value, true, allowDuplicates);
  }

  removeField(path: string | FieldPath, ignoreMissing = false): void {
    const p = typeof path === 'string' ? compilePath(path) : path;
    let cur: unknown = this.rootOf(p);
    const n = p.parts.length;
    if (n === 0) throw Errors.illegalArgument(`cannot remove [${p.raw}]`);
    for (let i = 0; i < n - 1; i++) {
      const part = p.parts[i];
      if (isObject(cur)) {
        if (!hasOwn(cur, part)) {
          if (ignoreMissing) return;
          throw notPresent(p.raw, part);
        }
        cur = cur[part];
      } else if (Array.isArray(cur)) {
        if (ignoreMissing && (!/^\d+$/.test(part) || Number(part) >= cur.length)) return;
        cur = cur[arrayIndex(part, cur, p.raw)];
      } else {
        if (ignoreMissing) return;
        if (cur === null || cur === undefined) {
          throw Errors.illegalArgument(`cannot remove [${part}] from null as part of path [${p.raw}]`);
        }
        throw Errors.illegalArgument(`cannot remove [${part}] from object of type [${javaTypeName(cur)}] as part of path [${p.raw}]`);
      }
    }
    const leaf = p.parts[n - 1];
    if (isObject(cur)) {
      if (!hasOwn(cur, leaf)) {
        if (ignoreMissing) return;
        throw notPresent(p.raw, leaf);
      }
      delete cur[leaf];
    } else if (Array.isArray(cur)) {
      if (ignoreMissing && (!/^\d+$/.test(leaf) || Number(leaf) >= cur.length)) return;
      cur.splice(arrayIndex(leaf, cur, p.raw), 1);
    } else {
      if (ignoreMissing) return;
      if (cur === null || cur === undefined) {
        throw Errors.illegalArgument(`cannot remove [${leaf}] from null as part of path [${p.raw}]`);
      }
      throw Errors.illegalArgument(`cannot remove [${leaf}] from object of type [${javaTypeName(cur)}] as part of path [${p.raw}]`);
    }
  }

  /** Resolves a template/script variable (`field.sub`, `_ingest.timestamp`, `_index`). */
  resolve(path: string): unknown {
    try {
      return this.getFieldValue(path, true);
    } catch {
      return undefined;
    }
  }

  /** Elasticsearch's rendering of the document inside simulate responses. */
  toSimulateDoc(includeIngestPipeline: boolean): JsonObject {
    const out: JsonObject = {};
    out['_index'] = this.meta['_index'] === undefined ? undefined : String(this.meta['_index']);
    // Elasticsearch renders metadata values with toString()
    out['_version'] = this.meta['_version'] !== undefined ? String(this.meta['_version']) : '-3';
    out['_id'] = this.meta['_id'] === undefined ? undefined : String(this.meta['_id']);
    for (const k of ['_routing', '_version_type', '_if_seq_no', '_if_primary_term'] as const) {
      if (this.meta[k] !== undefined && this.meta[k] !== null) out[k] = String(this.meta[k]);
    }
    if (this.meta['_dynamic_templates'] !== undefined) out['_dynamic_templates'] = this.meta['_dynamic_templates'];
    out['_source'] = deepClone(this.source);
    const ingest: JsonObject = {};
    for (const [k, v] of Object.entries(this.ingest)) {
      if (k === 'pipeline' && !includeIngestPipeline) continue;
      if (k === 'timestamp') continue;
      ingest[k] = deepClone(v);
    }
    ingest['timestamp'] = this.ingest['timestamp'];
    out['_ingest'] = ingest;
    return out;
  }
}

export type TemplateModel = Pick<IngestDocument, 'resolve'>;

function appendValues(existing: unknown, value: unknown, allowDuplicates: boolean): unknown[] {
  const list: unknown[] = Array.isArray(existing) ? existing : existing === undefined ? [] : [existing];
  const add = Array.isArray(value) ? value : [value];
  if (allowDuplicates) {
    for (const v of add) list.push(v);
    return list;
  }
  return dedupe(list, add);
}

function dedupe(list: unknown[], add: unknown[]): unknown[] {
  for (const v of add) {
    const key = JSON.stringify(v);
    if (!list.some((x) => JSON.stringify(x) === key)) list.push(v);
  }
  return list;
}
