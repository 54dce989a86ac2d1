import { Errors } from './errors.js';
import { parseByteSize, parseTimeValue } from './units.js';

export type SettingScope = 'node' | 'cluster' | 'index';

/**
 * A setting definition, in the spirit of Elasticsearch's Setting. Contributed through
 * ExtensionPoints.Setting by whoever owns it. Values are kept as parsed JS values.
 */
export interface SettingDef<T = unknown> {
  key: string;
  scope: SettingScope;
  dynamic: boolean;
  /** default value; for index settings the value reported by `include_defaults` */
  defaultValue: T;
  /** parses a raw value (string from -E / query, or JSON value) into T; throws illegal_argument_exception */
  parse(raw: unknown): T;
  /** true for index settings that may only be given at creation (e.g. number_of_shards) */
  finalSetting?: boolean;
  /** settings that are part of a family (`index.analysis.*`) are matched by prefix */
  prefix?: boolean;
  /**
   * the default as Elasticsearch reports it under `include_defaults` (Setting#getDefaultRaw) when
   * `defaultValue` is a parsed number: a time or byte size (`30s`, `5m`, `100mb`)
   */
  defaultRaw?: string;
  /** a secret (`bootstrap.password`): accepted and parsed, never shown by any API */
  secure?: boolean;
}

export const SettingParsers = {
  boolean(key: string) {
    return (raw: unknown): boolean => {
      if (raw === true || raw === 'true') return true;
      if (raw === false || raw === 'false') return false;
      throw Errors.illegalArgument(
        `Failed to parse value [${String(raw)}] as only [true] or [false] are allowed for setting [${key}].`,
      );
    };
  },
  int(key: string, min = -Infinity, max = Infinity) {
    return (raw: unknown): number => {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isInteger(n)) {
        throw Errors.illegalArgument(`Failed to parse value [${String(raw)}] for setting [${key}]`);
      }
      if (n < min) throw Errors.illegalArgument(`Failed to parse value [${n}] for setting [${key}] must be >= ${min}`);
      if (n > max) throw Errors.illegalArgument(`Failed to parse value [${n}] for setting [${key}] must be <= ${max}`);
      return n;
    };
  },
  time(key: string) {
    return (raw: unknown): number => parseTimeValue(raw, key);
  },
  bytes(key: string) {
    return (raw: unknown): number => parseByteSize(raw, key);
  },
  string() {
    return (raw: unknown): string => {
      if (raw === null || raw === undefined) return '';
      if (typeof raw === 'object') throw Errors.illegalArgument(`expected a string value, got [${JSON.stringify(raw)}]`);
      return String(raw);
    };
  },
  oneOf(key: string, values: readonly string[]) {
    return (raw: unknown): string => {
      const s = String(raw);
      if (!values.includes(s)) {
        throw Errors.illegalArgument(`unknown value for [${key}] must be one of [${values.join(', ')}] but was: ${s}`);
      }
      return s;
    };
  },
  any() {
    return (raw: unknown): unknown => raw;
  },
};

export function setting<T>(def: SettingDef<T>): SettingDef<T> {
  return def;
}

/** Flattens nested settings JSON ({index:{number_of_shards:1}}) into dotted keys. */
export function flattenSettings(obj: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) {
    if (prefix) out[prefix] = obj;
    return out;
  }
  for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) flattenSettings(v, key, out);
    else out[key] = v;
  }
  return out;
}

/** Expands dotted keys back into nested objects (for `?flat_settings=false` output). */
export function nestSettings(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const parts = key.split('.');
    let cur = out;
    for (let i = 0; i < parts.length - 1; i++) {
      const p = parts[i];
      if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
      cur = cur[p] as Record<string, unknown>;
    }
    cur[parts[parts.length - 1]] = value;
  }
  return out;
}
