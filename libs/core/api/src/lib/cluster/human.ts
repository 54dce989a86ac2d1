import { formatByteSize, formatTimeValue } from '@strata/core-common';

/** Instants, not durations: Elasticsearch prints their `?human` companion as a date (`XContentBuilder.timeField`). */
const INSTANT_KEY = /(_at|^start_time|^end_time|^expiration_time|^completion_time)_in_millis$/;

/**
 * Adds Elasticsearch's `?human` companions: `size` before `size_in_bytes`, `time` before `time_in_millis`
 * (a duration), `opened_at` before `opened_at_in_millis` (an instant, as an ISO-8601 date).
 */
export function humanize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(humanize);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'number' && k.endsWith('_in_bytes')) out[k.slice(0, -'_in_bytes'.length)] = formatByteSize(v);
    else if (typeof v === 'number' && INSTANT_KEY.test(k)) out[k.slice(0, -'_in_millis'.length)] = new Date(v).toISOString();
    else if (typeof v === 'number' && k.endsWith('_in_millis') && !k.endsWith('date_in_millis')) {
      out[k.slice(0, -'_in_millis'.length)] = formatTimeValue(v);
    }
    out[k] = humanize(v);
  }
  return out;
}
