/**
 * `script` in values-source aggregations (terms, histogram, range, metrics, ...): each one becomes an
 * anonymous runtime field whose values are what the script returns (or, with `field`, what the value script
 * returns for each `_value`), so every aggregator reads it through doc values like any other field.
 */
import type { MappedFieldType } from '../mapper/mapped-field-type.js';

const NUMERIC_AGGS = new Set([
  'avg', 'sum', 'min', 'max', 'stats', 'extended_stats', 'percentiles', 'percentile_ranks', 'median_absolute_deviation',
  'boxplot', 'histogram', 'range',
]);
const DATE_AGGS = new Set(['date_histogram', 'date_range', 'auto_date_histogram']);
const ANY_AGGS = new Set(['terms', 'rare_terms', 'significant_terms', 'cardinality', 'missing', 'value_count']);

const VALUE_TYPES: Record<string, string> = {
  string: 'keyword', keyword: 'keyword', long: 'long', integer: 'long', double: 'double', float: 'double', number: 'double', numeric: 'double',
  date: 'date', boolean: 'boolean', ip: 'ip',
};

export interface AggregationScriptDef {
  aggType: string;
  script: unknown;
  field?: string;
  valueType?: string;
}

const PREFIX = '_script_agg_';

/** replaces `script` by a synthetic field in the aggregation JSON; returns the rewritten JSON and the scripts */
export function rewriteAggregationScripts(aggs: unknown): { aggs: unknown; defs: Record<string, AggregationScriptDef> } {
  const defs: Record<string, AggregationScriptDef> = {};
  let n = 0;
  const walk = (json: unknown): unknown => {
    if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
    const out: Record<string, unknown> = {};
    for (const [name, def] of Object.entries(json as Record<string, unknown>)) {
      if (def === null || typeof def !== 'object' || Array.isArray(def)) {
        out[name] = def;
        continue;
      }
      const d: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(def as Record<string, unknown>)) {
        if (k === 'aggs' || k === 'aggregations') d[k] = walk(v);
        else if ((NUMERIC_AGGS.has(k) || DATE_AGGS.has(k) || ANY_AGGS.has(k)) && v && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>)['script'] !== undefined) {
          const body = { ...(v as Record<string, unknown>) };
          const synthetic = `${PREFIX}${n++}`;
          const vt = body['value_type'];
          defs[synthetic] = {
            aggType: k,
            script: body['script'],
            ...(typeof body['field'] === 'string' ? { field: body['field'] } : {}),
            ...(typeof vt === 'string' ? { valueType: vt } : {}),
          };
          delete body['script'];
          delete body['value_type'];
          body['field'] = synthetic;
          d[k] = body;
        } else d[k] = v;
      }
      out[name] = d;
    }
    return out;
  };
  const rewritten = walk(aggs);
  return { aggs: Object.keys(defs).length > 0 ? rewritten : aggs, defs };
}

/** runtime-field definitions (type, script, `$agg`) of the rewritten scripts for one index */
export function aggregationScriptRuntimeDefs(defs: Record<string, AggregationScriptDef>, fieldType: (name: string) => MappedFieldType | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, d] of Object.entries(defs)) {
    let type = d.valueType !== undefined ? VALUE_TYPES[d.valueType] ?? 'keyword' : undefined;
    if (type === undefined) {
      if (NUMERIC_AGGS.has(d.aggType)) type = 'double';
      else if (DATE_AGGS.has(d.aggType)) type = 'date';
      else {
        const ft = d.field !== undefined ? fieldType(d.field) : undefined;
        type = !ft ? 'keyword' : ft.kind === 'date' ? 'date' : ft.kind === 'numeric' ? (ft.isInteger ? 'long' : 'double') : ft.kind === 'boolean' ? 'boolean' : ft.kind === 'ip' ? 'ip' : 'keyword';
      }
    }
    out[name] = { type, script: d.script, $agg: d.field !== undefined ? { field: d.field } : {} };
  }
  return out;
}
