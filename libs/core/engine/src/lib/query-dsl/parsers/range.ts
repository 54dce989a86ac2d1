import { Errors } from '@strata/core-common';
import { TermRangeQuery } from '../../search/multi-term-query.js';
import { PointRangeQuery } from '../../search/point-range-query.js';
import { DocValuesRangeQuery } from '../../search/doc-values-query.js';
import { boolValue, boostOf, checkKeys, exactLongRangeQuery, isObject, noMatch, pointValue, singleField, withBoost } from '../parse-utils.js';
import type { QueryParser } from '../query-parser.js';

export const rangeParser: QueryParser = {
  name: 'range',
  parse(json, ctx) {
    const [field, v] = singleField('range', json);
    if (!isObject(v)) throw Errors.parsing(`[range] query malformed, no start_object after query name`);
    checkKeys('range', v, ['gt', 'gte', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'format', 'time_zone', 'relation']);
    let lower: unknown = null;
    let upper: unknown = null;
    let incLower = true;
    let incUpper = true;
    for (const [k, val] of Object.entries(v)) {
      if (k === 'gt') {
        lower = val;
        incLower = false;
      } else if (k === 'gte') {
        lower = val;
        incLower = true;
      } else if (k === 'lt') {
        upper = val;
        incUpper = false;
      } else if (k === 'lte') {
        upper = val;
        incUpper = true;
      } else if (k === 'from') lower = val;
      else if (k === 'to') upper = val;
      else if (k === 'include_lower') incLower = boolValue('range', k, val);
      else if (k === 'include_upper') incUpper = boolValue('range', k, val);
    }
    const relation = v['relation'];
    if (relation !== undefined && !['intersects', 'contains', 'within'].includes(String(relation).toLowerCase())) {
      throw Errors.illegalArgument(`[range] query does not support relation [${String(relation)}]`);
    }
    const format = v['format'] === undefined ? undefined : String(v['format']);
    const timeZone = v['time_zone'] === undefined ? undefined : String(v['time_zone']);
    const boost = boostOf('range', v);
    const ft = ctx.fieldType(field);
    if (!ft) return noMatch(`unmapped field [${field}]`);
    if (timeZone !== undefined && ft.kind !== 'date') {
      throw Errors.queryShard(`[range] time_zone can not be applied to non date field [${field}]`, ctx.indexName, undefined, ctx.index?.uuid);
    }
    if (ft.kind === 'numeric' || ft.kind === 'date' || ft.kind === 'boolean') {
      // date: gt and lte round up (Elasticsearch's roundUp semantics)
      const lo = lower === null || lower === undefined ? -Infinity : pointValue(ctx, ft, lower, !incLower, format, timeZone);
      const hi = upper === null || upper === undefined ? Infinity : pointValue(ctx, ft, upper, incUpper, format, timeZone);
      if (lo > hi) return noMatch('empty range');
      const exact = exactLongRangeQuery(ft, lower, upper, incLower, incUpper);
      if (exact) return withBoost(exact, boost);
      if (!ft.searchable && ft.hasDocValues) return withBoost(new DocValuesRangeQuery(field, lo, hi, incLower, incUpper), boost);
      return withBoost(new PointRangeQuery(field, lo, hi, incLower, incUpper), boost);
    }
    const conv = (x: unknown): string | null => (x === null || x === undefined ? null : String(ft.kind === 'text' ? x : ft.termValue(x)));
    return withBoost(new TermRangeQuery(field, conv(lower), conv(upper), incLower, incUpper), boost);
  },
};
