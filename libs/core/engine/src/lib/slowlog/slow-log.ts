/**
 * Elasticsearch's search and indexing slow logs: per-index thresholds (dynamic index settings
 * `index.search.slowlog.threshold.{query,fetch}.{warn,info,debug,trace}` and
 * `index.indexing.slowlog.threshold.index.*`, `-1` = off, the default) decide at which level a slow
 * shard query, fetch or index operation is logged, as an ECS line with Elasticsearch's field names
 * (`log.logger: index.search.slowlog.query`, `elasticsearch.slowlog.*`, `event.dataset`).
 */
import { RequestContexts, formatTimeValue, parseTimeValue, type Logger } from '@strata/core-common';

export type SlowLogKind = 'query' | 'fetch' | 'index';
type Level = 'warn' | 'info' | 'debug' | 'trace';
const LEVELS: readonly Level[] = ['warn', 'info', 'debug', 'trace'];

/** thresholds in nanoseconds per level, most severe first; undefined when every level is off */
type Thresholds = Array<[Level, bigint]> | undefined;

const PREFIX: Record<SlowLogKind, string> = {
  query: 'index.search.slowlog.threshold.query.',
  fetch: 'index.search.slowlog.threshold.fetch.',
  index: 'index.indexing.slowlog.threshold.index.',
};

const cache: Record<SlowLogKind, WeakMap<object, Thresholds>> = { query: new WeakMap(), fetch: new WeakMap(), index: new WeakMap() };

/** the thresholds of an index's settings (cached per settings object: metadata updates replace it) */
export function slowLogThresholds(settings: Record<string, unknown>, kind: SlowLogKind): Thresholds {
  const c = cache[kind];
  if (c.has(settings)) return c.get(settings);
  const out: Array<[Level, bigint]> = [];
  for (const level of LEVELS) {
    const key = PREFIX[kind] + level;
    const raw = settings[key];
    if (raw === undefined || raw === null || raw === '-1' || raw === -1) continue;
    try {
      const ms = parseTimeValue(raw, key);
      if (ms >= 0) out.push([level, BigInt(Math.round(ms * 1_000_000))]);
    } catch {
      // validated when set; an unparsable stored value disables the level
    }
  }
  const t = out.length ? out : undefined;
  c.set(settings, t);
  return t;
}

function levelFor(t: Thresholds, tookNanos: bigint): Level | undefined {
  if (!t) return undefined;
  for (const [level, nanos] of t) if (tookNanos >= nanos) return level;
  return undefined;
}

function tookText(nanos: bigint): string {
  const ms = Number(nanos) / 1e6;
  return ms < 1 ? `${(Number(nanos) / 1000).toFixed(1)}micros` : ms < 1000 ? `${ms.toFixed(1)}ms` : formatTimeValue(Math.round(ms));
}

function write(logger: Logger, level: Level, fields: Record<string, unknown>, message: string): void {
  if (level === 'warn') logger.warn(fields, message);
  else if (level === 'info') logger.info(fields, message);
  else logger.debug(fields, message);
}

export interface SearchSlowLogEntry {
  index: string;
  shardId: number;
  tookNanos: bigint;
  source?: string;
  totalHits?: { value: number; relation: string };
  totalShards: number;
  searchType: string;
}

/** logs a shard query or fetch phase that crossed a threshold of its index */
export function searchSlowLog(logger: Logger | undefined, kind: 'query' | 'fetch', settings: Record<string, unknown>, e: SearchSlowLogEntry): void {
  if (!logger) return;
  const level = levelFor(slowLogThresholds(settings, kind), e.tookNanos);
  if (!level) return;
  const message = `[${e.index}][${e.shardId}]`;
  const rc = RequestContexts.current();
  const includeUser = settings['index.search.slowlog.include.user'] === true || settings['index.search.slowlog.include.user'] === 'true';
  write(
    logger,
    level,
    {
      'log.logger': `index.search.slowlog.${kind}`,
      'event.dataset': 'elasticsearch.index_search_slowlog',
      'elasticsearch.slowlog.message': message,
      'elasticsearch.slowlog.took': tookText(e.tookNanos),
      'elasticsearch.slowlog.took_millis': Number(e.tookNanos / 1_000_000n),
      'elasticsearch.slowlog.total_hits': e.totalHits ? `${e.totalHits.value}${e.totalHits.relation === 'gte' ? '+' : ''} hits` : '-1',
      'elasticsearch.slowlog.stats': '[]',
      'elasticsearch.slowlog.search_type': e.searchType.toUpperCase(),
      'elasticsearch.slowlog.total_shards': e.totalShards,
      'elasticsearch.slowlog.source': e.source ?? '{}',
      ...(rc?.opaqueId ? { 'elasticsearch.slowlog.id': rc.opaqueId } : {}),
      ...(includeUser && rc?.principal ? { 'user.name': rc.principal.username, 'user.realm': rc.principal.realm.name } : {}),
    },
    message,
  );
}

export interface IndexingSlowLogEntry {
  index: string;
  uuid: string;
  id: string;
  routing?: string;
  tookNanos: bigint;
  source: Uint8Array;
}

/** logs an index operation that crossed a threshold: `index.indexing.slowlog.source` chars of source (default 1000, false = none) */
export function indexingSlowLog(logger: Logger | undefined, settings: Record<string, unknown>, e: IndexingSlowLogEntry): void {
  if (!logger) return;
  const level = levelFor(slowLogThresholds(settings, 'index'), e.tookNanos);
  if (!level) return;
  const rawMax = settings['index.indexing.slowlog.source'];
  const max = rawMax === undefined ? 1000 : rawMax === false || rawMax === 'false' ? 0 : rawMax === true || rawMax === 'true' ? Infinity : Number(rawMax);
  let source = '';
  if (max > 0) {
    const text = Buffer.from(e.source).toString('utf8');
    const reformat = settings['index.indexing.slowlog.reformat'] !== false && settings['index.indexing.slowlog.reformat'] !== 'false';
    let shown = text;
    if (reformat) {
      try {
        shown = JSON.stringify(JSON.parse(text));
      } catch {
        shown = text;
      }
    }
    source = Number.isFinite(max) && shown.length > max ? shown.slice(0, max) : shown;
  }
  const message = `[${e.index}/${e.uuid}]`;
  write(
    logger,
    level,
    {
      'log.logger': 'index.indexing.slowlog.index',
      'event.dataset': 'elasticsearch.index_indexing_slowlog',
      'elasticsearch.slowlog.message': message,
      'elasticsearch.slowlog.id': e.id,
      'elasticsearch.slowlog.routing': e.routing ?? null,
      'elasticsearch.slowlog.took': tookText(e.tookNanos),
      'elasticsearch.slowlog.took_millis': Number(e.tookNanos / 1_000_000n),
      'elasticsearch.slowlog.source': source,
    },
    message,
  );
}
