/**
 * The `join` field type (ES ParentJoinFieldMapper), contributed through ExtensionPoints.FieldMapperType:
 * the relation name is indexed (and kept in doc values) under the field; each parent relation adds an
 * internal `<field>#<parent>` keyword field holding the parent id — a parent's own id, a child's parent id.
 */
import { Errors, type EsError } from '@strata/core-common';
import {
  KeywordFieldType,
  type FieldIndexContext,
  type FieldMapperContext,
  type FieldMapperType,
  type LeafReaderContext,
  type MappedFieldType,
  type ParsedField,
} from '@strata/core-engine';
import { Joiner } from './joiner.js';
import { keywordValue } from './parent-index.js';

const PARAMS = new Set(['type', 'relations', 'eager_global_ordinals', 'meta']);

function javaClass(v: unknown): string {
  if (typeof v === 'string') return 'class java.lang.String';
  if (typeof v === 'number') return Number.isInteger(v) ? 'class java.lang.Integer' : 'class java.lang.Double';
  if (typeof v === 'boolean') return 'class java.lang.Boolean';
  if (Array.isArray(v)) return 'class java.util.ArrayList';
  return 'class java.lang.Object';
}

/** the join field: the relation name of each document */
class JoinFieldType extends KeywordFieldType {
  /** `fields`: the relation name, whether the source holds `"question"` or `{name, parent}` */
  fetchValues(sourceValues: readonly unknown[]): unknown[] {
    const out: unknown[] = [];
    for (const v of sourceValues) {
      if (typeof v === 'string') out.push(v);
      else if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const n = (v as Record<string, unknown>)['name'];
        if (n !== undefined && n !== null) out.push(String(n));
      }
    }
    return out;
  }
}

/** `<join>#<parent>`: the parent id, read from doc values (it is not in `_source`) */
class ParentIdFieldType extends KeywordFieldType {
  fetchValues(_sourceValues: readonly unknown[], leaf: LeafReaderContext, doc: number): unknown[] {
    const v = keywordValue(leaf.reader.sortedSetDocValues(this.name), doc);
    return v === undefined ? [] : [v];
  }
}

export const joinFieldMapperType: FieldMapperType = {
  type: 'join',
  singleton: true,
  ownParseErrors: true,
  singletonError(names: string[]): EsError {
    return Errors.illegalArgument(`Only one [parent-join] field can be defined per index, got [${names.join(', ')}]`);
  },

  parse(name: string, mapping: Record<string, unknown>, _ctx: FieldMapperContext): Record<string, unknown> {
    if (name.includes('.')) throw Errors.illegalArgument(`join field [${name}] cannot be added inside an object or in a multi-field`);
    for (const k of Object.keys(mapping)) if (!PARAMS.has(k)) throw Errors.mapperParsing(`unknown parameter [${k}] on mapper [${name}] of type [join]`);
    const rel = mapping['relations'] ?? {};
    if (rel === null || typeof rel !== 'object' || Array.isArray(rel)) throw Errors.mapperParsing(`relations should be a hash but was of type: ${javaClass(rel)}`);
    const relations: Record<string, string | string[]> = {};
    for (const [parent, v] of Object.entries(rel as Record<string, unknown>)) {
      const children = Array.isArray(v) ? v.map(String) : [String(v)];
      relations[parent] = children.length === 1 ? children[0]! : children;
    }
    new Joiner(name, relations); // "[child] cannot have multiple parents"
    const ego = mapping['eager_global_ordinals'];
    if (ego !== undefined && typeof ego !== 'boolean' && ego !== 'true' && ego !== 'false') {
      throw Errors.mapperParsing(`Cannot parse value [${String(ego)}] as only [true] or [false] are allowed for [eager_global_ordinals] of field [${name}]`);
    }
    const out: Record<string, unknown> = { type: 'join', eager_global_ordinals: ego === undefined ? true : ego === true || ego === 'true', relations };
    if (mapping['meta'] !== undefined) out['meta'] = mapping['meta'];
    return out;
  },

  fieldTypes(name: string, mapping: Record<string, unknown>, ctx: FieldMapperContext): MappedFieldType[] {
    const kw = ctx.analyzer('keyword');
    const base = { searchable: true, hasDocValues: true, indexAnalyzer: kw, searchAnalyzer: kw };
    const out: MappedFieldType[] = [new JoinFieldType({ ...base, name, type: 'join', params: mapping })];
    for (const parent of Object.keys((mapping['relations'] ?? {}) as Record<string, unknown>)) {
      out.push(new ParentIdFieldType({ ...base, name: `${name}#${parent}`, type: 'parent', params: { eager_global_ordinals: mapping['eager_global_ordinals'] } }));
    }
    return out;
  },

  index(name: string, value: unknown, mapping: Record<string, unknown>, ctx: FieldIndexContext): ParsedField[] {
    const joiner = new Joiner(name, (mapping['relations'] ?? {}) as Record<string, unknown>);
    let relation: string | undefined;
    let parent: string | undefined;
    if (typeof value === 'string') relation = value;
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (k === 'name' && typeof v === 'string') relation = v;
        else if (k === 'parent' && (typeof v === 'string' || typeof v === 'number')) parent = String(v);
        else if (typeof v === 'string' || typeof v === 'number') throw Errors.illegalArgument(`unknown field name [${k}] in join field [${name}]`);
      }
    } else {
      const token = typeof value === 'number' ? 'VALUE_NUMBER' : typeof value === 'boolean' ? 'VALUE_BOOLEAN' : 'START_ARRAY';
      throw Errors.illegalState(`[${name}] expected START_OBJECT or VALUE_STRING but was: ${token}`);
    }
    if (relation === undefined) throw Errors.illegalArgument(`null join name in field [${name}]`);
    if (!joiner.knownRelation(relation)) throw Errors.illegalArgument(`unknown join name [${relation}] for field [${name}]`);
    const keyword = (field: string, term: string): ParsedField => ({ name: field, tokens: [{ term, position: 0 }], indexOptions: 'docs', keywordValues: [term] });
    const out: ParsedField[] = [];
    if (joiner.childTypeExists(relation)) {
      if (parent === undefined) throw Errors.illegalArgument(`[parent] is missing for join field [${name}]`);
      if (ctx.routing === undefined || ctx.routing === null) throw Errors.illegalArgument(`[routing] is missing for join field [${name}]`);
      out.push(keyword(joiner.parentJoinField(relation), parent));
    }
    if (joiner.parentTypeExists(relation)) out.push(keyword(joiner.childJoinField(relation), ctx.id));
    out.push(keyword(name, relation));
    return out;
  },

  merge(name: string, existing: Record<string, unknown>, update: Record<string, unknown>): Record<string, unknown> {
    const a = new Joiner(name, (existing['relations'] ?? {}) as Record<string, unknown>);
    const b = new Joiner(name, (update['relations'] ?? {}) as Record<string, unknown>);
    const conflicts = a.mergeConflicts(b);
    if (existing['eager_global_ordinals'] !== undefined && update['eager_global_ordinals'] === undefined) update = { ...update, eager_global_ordinals: existing['eager_global_ordinals'] };
    if (conflicts.length) throw Errors.illegalArgument(`Mapper for [${name}] conflicts with existing mapper:\n\t${conflicts.join('\n\t')}`);
    return update;
  },
};
