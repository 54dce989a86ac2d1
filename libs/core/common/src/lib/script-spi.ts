/**
 * The ScriptService extension point: the one way any library runs a user script (Painless), so a feature
 * never needs another feature (or a language of its own) to evaluate `script` / `if` / `emit`.
 * The engine binds `Tokens.ScriptService` to the shared Painless engine (@strata/core-painless).
 */

/** A script as it appears in a request: `{source | id, params, lang, options}` (or the string shorthand). */
export interface ScriptRef {
  /** inline source, or undefined for a stored script */
  readonly source?: string;
  /** stored script id */
  readonly id?: string;
  readonly lang: string;
  readonly params: Record<string, unknown>;
  readonly options?: Record<string, string>;
}

/**
 * Where a script runs: decides which variables it sees (`ctx`, `doc`, `_score`, `params`, `_value`,
 * `state`, `states`, ...) and which context functions it may call (`emit`, `saturation`, ...).
 */
export interface ScriptContext {
  /** ES context name, e.g. 'ingest', 'update', 'score', 'filter', 'field', 'aggs', 'bucket_aggregation', 'long_field' */
  readonly name: string;
  /** variable names the script can read (values are given per run, by name) */
  readonly globals: readonly string[];
  /** functions the script can call by plain name (given per run as JS functions under the same name) */
  readonly functions?: readonly string[];
  /**
   * the script's result keeps Painless's Java boxing (an integral double stays a Double, printed `2.0`) instead
   * of plain JSON values: for callers that print the value as Java does (aggregation keyword values)
   */
  readonly boxedResult?: boolean;
}

export interface CompiledScript {
  readonly source: string;
  /** runs once with the given variables; throws script_exception (runtime error) on failure */
  run(vars: Record<string, unknown>): unknown;
}

export interface ScriptService {
  /** parses a request's `script` value (object or string); throws parsing_exception on a bad shape */
  parse(json: unknown, where?: string): ScriptRef;
  /** compiles (cached by lang + source + context); stored scripts are looked up by id; script_exception on errors */
  compile(script: ScriptRef | string, context: ScriptContext): CompiledScript;
}

/** the score functions script_score scripts may call */
const SCORE_FUNCTIONS = [
  'saturation', 'sigmoid', 'randomScore',
  'decayNumericLinear', 'decayNumericExp', 'decayNumericGauss',
  'decayDateLinear', 'decayDateExp', 'decayDateGauss',
  'decayGeoLinear', 'decayGeoExp', 'decayGeoGauss',
] as const;

/** The script contexts Elasticsearch defines, with the variables each one sees. */
export const ScriptContexts = {
  INGEST: { name: 'ingest', globals: ['ctx', 'params'] },
  /** `_update`, `_update_by_query`, `_reindex` */
  UPDATE: { name: 'update', globals: ['ctx', 'params'] },
  /** script_score query and function_score's script_score */
  SCORE: { name: 'score', globals: ['doc', 'params', '_score'], functions: SCORE_FUNCTIONS },
  /** script query */
  FILTER: { name: 'filter', globals: ['doc', 'params'] },
  /** script_fields */
  FIELD: { name: 'field', globals: ['doc', 'params'] },
  /** `_script` sort */
  SORT: { name: 'sort', globals: ['doc', 'params', '_score'] },
  /** `script` of terms / histogram / metric aggregations (`_value` for value scripts) */
  AGGS: { name: 'aggs', globals: ['doc', 'params', '_value', '_score'], boxedResult: true },
  /** bucket_script / bucket_selector: buckets_path variables are in params */
  BUCKET_AGGREGATION: { name: 'bucket_aggregation', globals: ['params'] },
  /** moving_fn: the window as `values` (MovingFunctions.*) */
  MOVING_FUNCTION: { name: 'moving-function', globals: ['params', 'values'] },
  SCRIPTED_METRIC_INIT: { name: 'aggs_init', globals: ['params', 'state'] },
  SCRIPTED_METRIC_MAP: { name: 'aggs_map', globals: ['params', 'state', 'doc', '_score'] },
  SCRIPTED_METRIC_COMBINE: { name: 'aggs_combine', globals: ['params', 'state'] },
  SCRIPTED_METRIC_REDUCE: { name: 'aggs_reduce', globals: ['params', 'states'] },
  /** runtime fields (`emit`), one context per type like ES's long_field, keyword_field, ... */
  runtimeField(type: string): ScriptContext {
    return { name: `${type}_field`, globals: ['doc', 'params'], functions: ['emit'] };
  },
} as const;
