/**
 * CONTRACT: field types contributed by features through ExtensionPoints.FieldMapperType (e.g. `join` from
 * join-queries). The core mapper handles everything else (validation of `type`, merge, `_field_names`).
 */
import type { Analyzer } from '../analysis/analyzer.js';
import type { MappedFieldType } from './mapped-field-type.js';
import type { ParsedField } from './parsed-document.js';

export interface FieldMapperContext {
  /** flat index settings */
  readonly indexSettings: Record<string, unknown>;
  analyzer(name: string): Analyzer | undefined;
}

export interface FieldIndexContext extends FieldMapperContext {
  readonly id: string;
  readonly routing?: string;
  /** the whole document source */
  readonly source: Record<string, unknown>;
}

export interface FieldMapperType {
  /** the mapping `type`, e.g. `join` */
  readonly type: string;
  /**
   * Validates a field mapping (the whole `{type, ...}` object) and returns it normalised.
   * Throw Errors.mapperParsing(...) for bad parameters, e.g. "unknown parameter [x] on mapper [f] of type [join]".
   */
  parse(name: string, mapping: Record<string, unknown>, ctx: FieldMapperContext): Record<string, unknown>;
  /**
   * Search-time field types: the first is the field itself (`name`); more may follow for internal fields
   * (e.g. join's `my_join#question`). Names must start with `name`.
   */
  fieldTypes(name: string, mapping: Record<string, unknown>, ctx: FieldMapperContext): MappedFieldType[];
  /** Index-time: the value found at `name` in a document (array elements one by one) → fields to index. */
  index(name: string, value: unknown, mapping: Record<string, unknown>, ctx: FieldIndexContext): ParsedField[];
  /** Merge of an existing and an updated mapping; throw illegal_argument_exception on conflicts. Default: must be equal. */
  merge?(name: string, existing: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown>;
  /** At most one field of this type per index (join). */
  readonly singleton?: boolean;
  /** the error for a second field of a singleton type (`names`: every field of the type); default mapper_parsing_exception */
  singletonError?(names: string[]): Error;
  /**
   * index() errors are reported as they are (a document_parsing_exception with the error's reason), not as
   * "failed to parse field [..] of type [..]" (ES: mappers that override FieldMapper#parse, like join)
   */
  readonly ownParseErrors?: boolean;
}
