import { getHeapStatistics } from 'node:v8';
import { EsError, parseByteSize, SettingParsers, setting, type SettingDef } from '@strata/core-common';

export const INDEX_REQUESTS_CACHE_ENABLE = 'index.requests.cache.enable';
export const INDICES_REQUESTS_CACHE_SIZE = 'indices.requests.cache.size';
export const INDICES_REQUESTS_CACHE_EXPIRE = 'indices.requests.cache.expire';

/** index.requests.cache.enable: index scope, dynamic, default true. */
export const indexRequestsCacheEnableSetting: SettingDef<boolean> = setting<boolean>({
  key: INDEX_REQUESTS_CACHE_ENABLE,
  scope: 'index',
  dynamic: true,
  defaultValue: true,
  parse: SettingParsers.boolean(INDEX_REQUESTS_CACHE_ENABLE),
});

/**
 * Validates a memory size: a percentage of the heap ("1%", "0.5%") or an absolute byte size ("10mb", 1048576).
 * Returns the value normalised as a string (percentages keep their form, as Elasticsearch reports them).
 */
export function parseMemorySizeSetting(key: string) {
  return (raw: unknown): string => {
    if (typeof raw === 'string' && raw.trim().endsWith('%')) {
      const s = raw.trim();
      const pct = s.slice(0, -1);
      const n = Number(pct);
      if (pct.trim() === '' || !Number.isFinite(n)) {
        throw new EsError('parse_exception', 400, `failed to parse [${pct}] as a double`);
      }
      if (n < 0 || n > 100) {
        throw new EsError('parse_exception', 400, `percentage should be in [0-100], got [${pct}]`);
      }
      return s;
    }
    const bytes = parseByteSize(raw, key);
    if (bytes < 0) throw negativeSize(key, raw);
    return typeof raw === 'string' ? raw.trim() : `${bytes}b`;
  };
}

function negativeSize(key: string, raw: unknown): EsError {
  return new EsError(
    'illegal_argument_exception',
    400,
    `failed to parse setting [${key}] with value [${String(raw)}] as a size in bytes`,
  );
}

/** Resolves a validated memory size ("1%", "10mb") against the heap limit. */
export function resolveMemorySize(value: string, heapBytes: number = getHeapStatistics().heap_size_limit): number {
  const v = value.trim();
  if (v.endsWith('%')) return Math.floor((heapBytes * Number(v.slice(0, -1))) / 100);
  return parseByteSize(v, INDICES_REQUESTS_CACHE_SIZE);
}

/** indices.requests.cache.size: node scope, static, default 1% of the heap. */
export const indicesRequestsCacheSizeSetting: SettingDef<string> = setting<string>({
  key: INDICES_REQUESTS_CACHE_SIZE,
  scope: 'node',
  dynamic: false,
  defaultValue: '1%',
  parse: parseMemorySizeSetting(INDICES_REQUESTS_CACHE_SIZE),
});

/** indices.requests.cache.expire: node scope, static, optional TTL in ms (0 = none, the default). */
export const indicesRequestsCacheExpireSetting: SettingDef<number> = setting<number>({
  key: INDICES_REQUESTS_CACHE_EXPIRE,
  scope: 'node',
  dynamic: false,
  defaultValue: 0,
  parse: (raw: unknown): number => {
    const ms = SettingParsers.time(INDICES_REQUESTS_CACHE_EXPIRE)(raw);
    return ms < 0 ? 0 : ms;
  },
});

export const requestCacheSettings: readonly SettingDef[] = [
  indexRequestsCacheEnableSetting as SettingDef,
  indicesRequestsCacheSizeSetting as SettingDef,
  indicesRequestsCacheExpireSetting as SettingDef,
];

/** Reads index.requests.cache.enable from flat index settings (missing → true). */
export function indexCacheEnabled(settings: Readonly<Record<string, unknown>> | undefined): boolean {
  const v = settings?.[INDEX_REQUESTS_CACHE_ENABLE];
  if (v === undefined || v === null) return true;
  return !(v === false || v === 'false');
}
