/**
 * What the analyzer knows about fields: their Elasticsearch type, the exact (keyword) field to use for a
 * text field, and whether they can be used at all. The service builds it from the target indices' mappings;
 * in-process use has no mapping (a dynamic schema where every field exists and types come from the values).
 */

export interface FieldInfo {
  /** the field as referenced in the query */
  name: string;
  /** the concrete field behind an alias */
  path: string;
  /** Elasticsearch mapping type (keyword, long, date, ...), or `unsupported` */
  type: string;
  /** text fields: the keyword sub-field used for exact matches; undefined when there is none */
  exactField?: string;
  /** keyword with a normalizer */
  normalized?: boolean;
  /** set when the field lives under a nested object */
  nestedParent?: string;
  /** an object field (has sub-fields, no value of its own) */
  object?: boolean;
  /** the field is mapped with different, incompatible types in different indices */
  conflict?: string;
  /** a date field's format (for key rendering) */
  format?: string;
  /** values can be read from doc values (not a text / runtime / doc_values:false field) */
  docValues?: boolean;
}

export interface Schema {
  /** undefined: unknown field */
  field(name: string): FieldInfo | undefined;
  /** every field name (for "did you mean" suggestions) */
  fieldNames(): string[];
  /** true: no mapping; every field exists with a type known only from the values */
  readonly dynamic: boolean;
}

export const DYNAMIC_SCHEMA: Schema = {
  field: (name) => ({ name, path: name, type: 'dynamic' }),
  fieldNames: () => [],
  dynamic: true,
};

// ------------------------------------------------------------------ data types (QL's DataType)

export type DataType =
  | 'null'
  | 'boolean'
  | 'byte'
  | 'short'
  | 'integer'
  | 'long'
  | 'unsigned_long'
  | 'double'
  | 'float'
  | 'half_float'
  | 'scaled_float'
  | 'keyword'
  | 'text'
  | 'wildcard'
  | 'constant_keyword'
  | 'datetime'
  | 'date_nanos'
  | 'ip'
  | 'version'
  | 'dynamic'
  | 'unsupported';

const NUMERIC = new Set<DataType>(['byte', 'short', 'integer', 'long', 'unsigned_long', 'double', 'float', 'half_float', 'scaled_float']);
const INTEGER = new Set<DataType>(['byte', 'short', 'integer', 'long', 'unsigned_long']);
const STRING = new Set<DataType>(['keyword', 'text', 'wildcard', 'constant_keyword']);

export const isNumeric = (t: DataType): boolean => NUMERIC.has(t);
export const isInteger = (t: DataType): boolean => INTEGER.has(t);
export const isString = (t: DataType): boolean => STRING.has(t);
export const isDate = (t: DataType): boolean => t === 'datetime' || t === 'date_nanos';

/** mapping type → data type */
export function dataTypeOf(esType: string): DataType {
  switch (esType) {
    case 'date':
      return 'datetime';
    case 'match_only_text':
      return 'text';
    case 'boolean':
    case 'byte':
    case 'short':
    case 'integer':
    case 'long':
    case 'unsigned_long':
    case 'double':
    case 'float':
    case 'half_float':
    case 'scaled_float':
    case 'keyword':
    case 'text':
    case 'wildcard':
    case 'constant_keyword':
    case 'date_nanos':
    case 'ip':
    case 'version':
    case 'dynamic':
      return esType;
    default:
      return 'unsupported';
  }
}

/** the name Elasticsearch prints in "Condition expression needs to be boolean, found [LONG]" */
export function upperName(t: DataType): string {
  return t === 'dynamic' ? 'UNSUPPORTED' : t.toUpperCase();
}

/** two types that may be compared / joined on */
export function compatible(a: DataType, b: DataType): boolean {
  if (a === b || a === 'null' || b === 'null' || a === 'dynamic' || b === 'dynamic') return true;
  if (isNumeric(a) && isNumeric(b)) return true;
  if (isString(a) && isString(b)) return true;
  if (isDate(a) && isDate(b)) return true;
  return false;
}
