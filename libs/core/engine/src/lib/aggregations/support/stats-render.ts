/**
 * The response fields shared by stats, extended_stats and stats_bucket.
 */
import { formatValue, type ValueFormat } from './value-format.js';

export interface StatsTotals {
  count: number;
  sum: number;
  min: number;
  max: number;
}

/** count, min, max, avg and sum (min, max and avg null without values) */
export function statsValues(a: StatsTotals): Record<string, unknown> {
  const has = a.count > 0;
  return {
    count: a.count,
    min: has ? a.min : null,
    max: has ? a.max : null,
    avg: has ? a.sum / a.count : null,
    sum: a.sum,
  };
}

/** min_as_string, max_as_string, avg_as_string and sum_as_string (for stats with values and a format) */
export function addStatsStrings(out: Record<string, unknown>, fmt: ValueFormat, a: StatsTotals): void {
  out['min_as_string'] = formatValue(fmt, a.min);
  out['max_as_string'] = formatValue(fmt, a.max);
  out['avg_as_string'] = formatValue(fmt, a.sum / a.count);
  out['sum_as_string'] = formatValue(fmt, a.sum);
}
