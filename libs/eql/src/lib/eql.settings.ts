/**
 * Settings of the EQL feature: the sequence/sample memory breaker and the remote clusters EQL can search.
 */
import { getHeapStatistics } from 'node:v8';
import { Errors, parseByteSize, setting } from '@strata/core-common';

/** `breaker.eql_sequence.limit`: bytes or a percentage of the heap (default 50%, as Elasticsearch) */
export const EQL_SEQUENCE_BREAKER_LIMIT = setting<number>({
  key: 'breaker.eql_sequence.limit',
  scope: 'cluster',
  dynamic: true,
  defaultValue: Math.floor(getHeapStatistics().heap_size_limit * 0.5),
  defaultRaw: '50%',
  parse: (raw: unknown): number => {
    const s = String(raw).trim();
    const m = /^(\d+(?:\.\d+)?)%$/.exec(s);
    if (m) {
      const pct = Number(m[1]);
      if (pct < 0 || pct > 100) throw Errors.illegalArgument(`failed to parse [${s}] as a percentage`);
      return Math.floor((getHeapStatistics().heap_size_limit * pct) / 100);
    }
    return parseByteSize(raw, 'breaker.eql_sequence.limit');
  },
});

/** `cluster.remote.<alias>.seeds|mode|proxy_address|skip_unavailable`: remote clusters, reached over HTTP */
export const CLUSTER_REMOTE = setting<unknown>({
  key: 'cluster.remote',
  scope: 'cluster',
  dynamic: true,
  prefix: true,
  defaultValue: undefined,
  parse: (raw: unknown): unknown => raw,
});

export const eqlSettings = [EQL_SEQUENCE_BREAKER_LIMIT, CLUSTER_REMOTE];
