/**
 * CONTRACT (owned by the mapper; consumed by query parsing, search, sort, aggregations and fetch).
 * The search-time view of one mapped field.
 */
import type { CompiledScript } from '@strata/core-common';
import type { Analyzer } from '../analysis/analyzer.js';
import type { LeafReaderContext } from '../index/leaf-reader.js';

export type FieldTypeName =
  | 'text'
  | 'keyword'
  | 'match_only_text'
  | 'long'
  | 'integer'
  | 'short'
  | 'byte'
  | 'double'
  | 'float'
  | 'half_float'
  | 'scaled_float'
  | 'unsigned_long'
  | 'date'
  | 'date_nanos'
  | 'boolean'
  | 'ip'
  | 'object'
  | 'nested'
  | 'flattened'
  | 'wildcard'
  | 'constant_keyword'
  | 'join'
  | 'alias'
  | string;

export type ValueKind = 'text' | 'keyword' | 'numeric' | 'date' | 'boolean' | 'ip' | 'none';

export interface MappedFieldType {
  readonly name: string;
  readonly type: FieldTypeName;
  /** coarse family deciding which query and doc-values structures apply */
  readonly kind: ValueKind;
  /** indexed in the inverted index (or points for numerics) */
  readonly searchable: boolean;
  readonly hasDocValues: boolean;
  readonly hasNorms: boolean;
  /** for numeric kinds: true when values are integers (long, integer, short, byte, date, boolean) */
  readonly isInteger: boolean;
  /** index-time analyzer for text fields; normalizer-backed analyzer for keyword fields (or keyword analyzer) */
  readonly indexAnalyzer?: Analyzer;
  /** search-time analyzer (search_analyzer, else analyzer) */
  readonly searchAnalyzer?: Analyzer;
  /** date fields: the mapping's format string (e.g. "strict_date_optional_time||epoch_millis") */
  readonly format?: string;
  /** scaled_float */
  readonly scalingFactor?: number;
  /** raw mapping params for anything else (null_value, ignore_above, relations of join, ...) */
  readonly params: Readonly<Record<string, unknown>>;

  /**
   * Converts a query value to the term stored in the inverted index (keyword: normalized string;
   * ip: sortable encoded string; boolean: "T"/"F"), or to the numeric point value for numeric/date/boolean
   * kinds. Throws query_shard_exception / illegal_argument_exception on bad input (e.g. "For input string").
   */
  termValue(value: unknown): string | number;
  /** Converts a doc value (number or keyword term) back to the value shown to users in `fields`, `sort`, agg keys. */
  valueForDisplay(docValue: string | number): unknown;
  /** Formats a doc value as a string with an optional format (date formats for dates; DocValueFormat semantics). */
  formatValue(docValue: string | number, format?: string): string;
  /** runtime fields (mapping `runtime` section or the request's `runtime_mappings`): how values are computed */
  readonly runtime?: RuntimeFieldSpec;
  /** Parses a date/number with the field's format (dates: date math supported by the caller; returns epoch millis or nanos). */
  parseValue?(value: unknown, format?: string, roundUp?: boolean, timeZone?: string): number;
  /**
   * The values `fields` returns for a document (ES ValueFetcher), when the field's own rules apply instead of
   * the `_source` values: `sourceValues` are the raw values at the field's path (field types contributed by
   * features, e.g. join's relation name and `<join>#<parent>` ids from doc values).
   */
  fetchValues?(sourceValues: readonly unknown[], leaf: LeafReaderContext, doc: number): unknown[];
}

/** How a runtime field computes its values: a script that calls `emit`, or (without a script) its `_source` value. */
export interface RuntimeFieldSpec {
  /** boolean, composite, date, double, geo_point, ip, keyword, long */
  readonly type: string;
  readonly script?: CompiledScript;
  readonly params: Readonly<Record<string, unknown>>;
  /** a composite's sub-field: the composite field's name (whose script emits a map) */
  readonly parent?: string;
  /** a composite field: its sub-fields and their types */
  readonly fields?: Readonly<Record<string, string>>;
  /** the definition as written */
  readonly def: Readonly<Record<string, unknown>>;
  /** an aggregation `script`: its return value(s) are the values; with `field` it is a value script (`_value`) */
  readonly returns?: { readonly field?: string };
}
