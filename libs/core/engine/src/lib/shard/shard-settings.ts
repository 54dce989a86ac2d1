/** Index/cluster settings owned by the storage engine (contributed through ExtensionPoints.Setting). */
import { Errors, SettingParsers, parseTimeValue, parseByteSize, type SettingDef, wildcardRegExp } from '@strata/core-common';

export const REFRESH_INTERVAL: SettingDef<string> = {
  key: 'index.refresh_interval',
  scope: 'index',
  dynamic: true,
  defaultValue: '1s',
  parse: (raw) => {
    const s = String(raw); // a JSON number is its text, as in ES Settings (so -1 works, 1000 needs a unit)
    parseTimeValue(s, 'index.refresh_interval');
    return s;
  },
};

export const TRANSLOG_DURABILITY: SettingDef<string> = {
  key: 'index.translog.durability',
  scope: 'index',
  dynamic: true,
  defaultValue: 'request',
  parse: (raw) => SettingParsers.oneOf('index.translog.durability', ['request', 'async'])(String(raw).toLowerCase()),
};

export const TRANSLOG_SYNC_INTERVAL: SettingDef<string> = {
  key: 'index.translog.sync_interval',
  scope: 'index',
  dynamic: true,
  defaultValue: '5s',
  parse: (raw) => {
    const s = String(raw); // a JSON number is its text, as in ES Settings (so -1 works, 1000 needs a unit)
    const ms = parseTimeValue(s, 'index.translog.sync_interval');
    if (ms < 100) {
      throw Errors.illegalArgument(`failed to parse value [${s}] for setting [index.translog.sync_interval], must be >= [100ms]`);
    }
    return s;
  },
};

export const TRANSLOG_FLUSH_THRESHOLD: SettingDef<string> = {
  key: 'index.translog.flush_threshold_size',
  scope: 'index',
  dynamic: true,
  defaultValue: '512mb',
  parse: (raw) => {
    const s = String(raw); // a JSON number is its text, as in ES Settings
    parseByteSize(s, 'index.translog.flush_threshold_size');
    return s;
  },
};

export const GC_DELETES: SettingDef<string> = {
  key: 'index.gc_deletes',
  scope: 'index',
  dynamic: true,
  defaultValue: '60s',
  parse: (raw) => {
    const s = String(raw); // a JSON number is its text, as in ES Settings (so -1 works, 1000 needs a unit)
    parseTimeValue(s, 'index.gc_deletes');
    return s;
  },
};

export const SEARCH_IDLE_AFTER: SettingDef<string> = {
  key: 'index.search.idle.after',
  scope: 'index',
  dynamic: true,
  defaultValue: '30s',
  parse: (raw) => {
    const s = String(raw); // a JSON number is its text, as in ES Settings (so -1 works, 1000 needs a unit)
    parseTimeValue(s, 'index.search.idle.after');
    return s;
  },
};

/** `action.auto_create_index`: true/false or a comma list of +/- patterns */
export const AUTO_CREATE_INDEX: SettingDef<string> = {
  key: 'action.auto_create_index',
  scope: 'cluster',
  dynamic: true,
  defaultValue: 'true',
  parse: (raw) => String(raw),
};

/**
 * `indices.store.block_cache.size` (node, static): bytes of decoded segment blocks (postings, term blocks,
 * doc-value columns, `_source` blocks) kept in memory; segment files are read through it.
 */
export const BLOCK_CACHE_SIZE: SettingDef<number> = {
  key: 'indices.store.block_cache.size',
  scope: 'node',
  dynamic: false,
  defaultValue: 512 * 1024 * 1024,
  parse: SettingParsers.bytes('indices.store.block_cache.size'),
};

/** the block cache size from node settings (default 512mb) */
export function blockCacheBytesFrom(settings: Record<string, unknown> | undefined): number {
  return bytes(settings?.['indices.store.block_cache.size'], 'indices.store.block_cache.size', '512mb');
}

/**
 * `thread_pool.merge.size`: worker threads that run background and force merges off the event loop (default 1;
 * each holds one merge's buffers); with at least one, a thread more writes refreshed segments' files. 0 runs
 * merges and segment writes on the event loop (merges in slices).
 */
export const MERGE_THREADS: SettingDef<number> = {
  key: 'thread_pool.merge.size',
  scope: 'node',
  dynamic: false,
  defaultValue: 1,
  parse: SettingParsers.int('thread_pool.merge.size', 0, 64),
};

/** the number of merge threads from node settings */
export function mergeThreadsFrom(settings: Record<string, unknown> | undefined): number {
  const v = settings?.['thread_pool.merge.size'];
  return v === undefined || v === null ? 1 : MERGE_THREADS.parse(v);
}

/**
 * `thread_pool.bulk_parse.size`: worker threads that parse the documents of large bulks (JSON, mapping,
 * analysis) off the event loop (default 1; 0 parses them on the event loop; none without merge threads either)
 */
export const BULK_PARSE_THREADS: SettingDef<number> = {
  key: 'thread_pool.bulk_parse.size',
  scope: 'node',
  dynamic: false,
  defaultValue: 1,
  parse: SettingParsers.int('thread_pool.bulk_parse.size', 0, 64),
};

/** the number of bulk parse threads from node settings */
export function bulkParseThreadsFrom(settings: Record<string, unknown> | undefined): number {
  const v = settings?.['thread_pool.bulk_parse.size'];
  return v === undefined || v === null ? 1 : BULK_PARSE_THREADS.parse(v);
}

export const STORAGE_SETTINGS: readonly SettingDef[] = [
  BLOCK_CACHE_SIZE,
  MERGE_THREADS,
  BULK_PARSE_THREADS,
  REFRESH_INTERVAL,
  TRANSLOG_DURABILITY,
  TRANSLOG_SYNC_INTERVAL,
  TRANSLOG_FLUSH_THRESHOLD,
  GC_DELETES,
  SEARCH_IDLE_AFTER,
  AUTO_CREATE_INDEX,
] as SettingDef[];

function timeMs(v: unknown, key: string, dflt: string): number {
  if (v === undefined || v === null) return parseTimeValue(dflt, key);
  if (typeof v === 'number') return v;
  return parseTimeValue(String(v), key);
}

function bytes(v: unknown, key: string, dflt: string): number {
  if (v === undefined || v === null) return parseByteSize(dflt, key);
  if (typeof v === 'number') return v;
  return parseByteSize(String(v), key);
}

/** the engine-relevant values of an index's flat settings, tolerant of raw or parsed values */
export function shardSettingsFrom(settings: Record<string, unknown>): {
  refreshIntervalMs: number;
  refreshIntervalExplicit: boolean;
  durability: 'request' | 'async';
  syncIntervalMs: number;
  flushThresholdBytes: number;
  gcDeletesMs: number;
  searchIdleAfterMs: number;
} {
  const ri = settings['index.refresh_interval'];
  return {
    refreshIntervalMs: timeMs(ri, 'index.refresh_interval', '1s'),
    refreshIntervalExplicit: ri !== undefined && ri !== null,
    durability: String(settings['index.translog.durability'] ?? 'request').toLowerCase() === 'async' ? 'async' : 'request',
    syncIntervalMs: timeMs(settings['index.translog.sync_interval'], 'index.translog.sync_interval', '5s'),
    flushThresholdBytes: bytes(settings['index.translog.flush_threshold_size'], 'index.translog.flush_threshold_size', '512mb'),
    gcDeletesMs: timeMs(settings['index.gc_deletes'], 'index.gc_deletes', '60s'),
    searchIdleAfterMs: timeMs(settings['index.search.idle.after'], 'index.search.idle.after', '30s'),
  };
}

/** whether auto-creating `index` is allowed by the action.auto_create_index value */
export function autoCreateAllowed(value: unknown, index: string): boolean {
  if (value === undefined || value === null || value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  const patterns = String(value)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  for (const p of patterns) {
    const neg = p.startsWith('-');
    const pat = p.replace(/^[+-]/, '');
    const re = wildcardRegExp(pat);
    if (re.test(index)) return !neg;
  }
  return false;
}
