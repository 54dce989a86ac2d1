import { formatByteSize, formatTimeValue } from '@strata/core-common';

/** Adds Elasticsearch's `?human` companions: `size` before `size_in_bytes`, `time` before `time_in_millis`. */
export function humanize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(humanize);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v === 'number' && k.endsWith('_in_bytes')) out[k.slice(0, -'_in_bytes'.length)] = formatByteSize(v);
    else if (typeof v === 'number' && k.endsWith('_in_millis') && !k.endsWith('date_in_millis')) {
      out[k.slice(0, -'_in_millis'.length)] = formatTimeValue(v);
    }
    out[k] = humanize(v);
  }
  return out;
}
