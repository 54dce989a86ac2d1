/**
 * MapperService: mapping validation/merge and the per-mapping-version cache of compiled mappings,
 * document mappers and field types.
 */
import { inject, injectable, multiInject, optional } from 'inversify';
import { EsError, Errors, ExtensionPoints, Tokens, type ScriptService } from '@strata/core-common';
import { buildRuntimeFieldTypes } from '../script/runtime-fields.js';
import { DEFAULT_SCRIPT_SERVICE } from '../script/search-scripts.js';
import type { IndexMetadata } from '../cluster/metadata.js';
import { EngineTokens, type AnalysisRegistry, type DocumentMapper, type MapperService } from '../services.js';
import type { Analyzer } from '../analysis/analyzer.js';
import type { MappedFieldType } from './mapped-field-type.js';
import type { FieldMapperType } from './field-mapper-type.js';
import { ConstantKeywordFieldType, KeywordFieldType, NumberFieldType } from './field-types.js';
import {
  checkTotalFields,
  compileMapping,
  isPlainObject,
  mergeRootMappings,
  normalizeRootMapping,
  simpleMatch,
  type CompiledMapping,
  type Json,
  type NestedLookup,
  type MappingContext,
} from './mapping.js';
import { DefaultDocumentMapper } from './document-parser.js';

interface CacheEntry {
  mappings: object;
  settings: object;
  mappingVersion: number;
  settingsVersion: number;
  compiled: CompiledMapping;
  docMapper: DefaultDocumentMapper;
  meta: Map<string, MappedFieldType>;
  /** the mapping's runtime fields (compiled on first use) */
  runtime?: Map<string, MappedFieldType>;
  /** no field of an extension's type (computed on first use) */
  builtInOnly?: boolean;
}

/** whether a mapping (properties, multi-fields) declares a field of one of these types */
function declaresType(json: unknown, types: ReadonlyMap<string, unknown>): boolean {
  if (!isPlainObject(json)) return false;
  const j = json as Json;
  if (typeof j['type'] === 'string' && types.has(j['type'])) return true;
  for (const k of ['properties', 'fields']) {
    const sub = j[k];
    if (isPlainObject(sub)) for (const v of Object.values(sub as Json)) if (declaresType(v, types)) return true;
  }
  return false;
}

@injectable()
export class DefaultMapperService implements MapperService {
  private readonly extensions: Map<string, FieldMapperType>;
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    @inject(EngineTokens.AnalysisRegistry) private readonly analysis: AnalysisRegistry,
    @multiInject(ExtensionPoints.FieldMapperType) @optional() extensions: FieldMapperType[] = [],
    @inject(Tokens.ScriptService) @optional() private readonly scripts: ScriptService = DEFAULT_SCRIPT_SERVICE,
  ) {
    this.scripts ??= DEFAULT_SCRIPT_SERVICE;
    this.extensions = new Map();
    for (const e of extensions ?? []) {
      if (this.extensions.has(e.type)) throw new Error(`field mapper type [${e.type}] is already registered`);
      this.extensions.set(e.type, e);
    }
  }

  context(indexSettings: Record<string, unknown>): MappingContext {
    const analysis = this.analysis;
    return {
      analysis,
      extensions: this.extensions,
      indexSettings,
      analyzer: (name: string): Analyzer | undefined => analysis.analyzer(name, indexSettings),
    };
  }

  /** Validates and normalises mappings for index creation (errors wrapped as "Failed to parse mapping: ..."). */
  parseMappings(mappings: unknown, indexSettings: Record<string, unknown>): Record<string, unknown> {
    let norm: Record<string, unknown>;
    let compiled: ReturnType<typeof compileMapping>;
    try {
      const ctx = this.context(indexSettings);
      norm = normalizeRootMapping(mappings, ctx);
      compiled = compileMapping(norm, ctx);
      buildRuntimeFieldTypes(compiled.runtime, ctx, this.scripts);
    } catch (e) {
      // MapperService.parseMapping wraps whatever the parser threw
      if (e instanceof EsError && (e.type === 'mapper_parsing_exception' || e.type === 'illegal_argument_exception')) {
        throw Errors.mapperParsing(`Failed to parse mapping: ${e.reason}`, e);
      }
      throw e;
    }
    // the field limit is checked after parsing (MappingLookup), so its error is not wrapped
    checkTotalFields(compiled, indexSettings);
    return norm;
  }

  /** Validates an update (PUT _mapping / dynamic) and merges it into existing mappings. */
  merge(existing: Record<string, unknown>, update: unknown, indexSettings: Record<string, unknown>): Record<string, unknown> {
    const ctx = this.context(indexSettings);
    const norm = normalizeRootMapping(update, ctx);
    const merged = mergeRootMappings(existing, norm, ctx);
    const compiled = compileMapping(merged, ctx);
    buildRuntimeFieldTypes(compiled.runtime, ctx, this.scripts);
    const before = Object.keys(existing).length ? compileMapping(existing, ctx).totalFields : 0;
    checkTotalFields(compiled, indexSettings, Math.max(0, compiled.totalFields - before));
    return merged;
  }

  private entry(index: IndexMetadata): CacheEntry {
    const hit = this.cache.get(index.uuid);
    if (hit && ((hit.mappings === index.mappings && hit.settings === index.settings) || (hit.mappingVersion === index.mappingVersion && hit.settingsVersion === index.settingsVersion && index.mappingVersion > 0))) {
      return hit;
    }
    const ctx = this.context(index.settings);
    const compiled = compileMapping(index.mappings as Json, ctx);
    const kw = this.analysis.analyzer('keyword');
    const meta = new Map<string, MappedFieldType>([
      ['_id', new KeywordFieldType({ name: '_id', type: '_id', searchable: true, hasDocValues: false, params: {}, indexAnalyzer: kw, searchAnalyzer: kw })],
      ['_routing', new KeywordFieldType({ name: '_routing', type: '_routing', searchable: true, hasDocValues: false, params: {}, indexAnalyzer: kw, searchAnalyzer: kw })],
      ['_index', new ConstantKeywordFieldType({ name: '_index', type: '_index', searchable: true, hasDocValues: false, params: { value: index.name } })],
      ['_ignored', new KeywordFieldType({ name: '_ignored', type: '_ignored', searchable: true, hasDocValues: true, params: {}, indexAnalyzer: kw, searchAnalyzer: kw })],
      ['_field_names', new KeywordFieldType({ name: '_field_names', type: '_field_names', searchable: true, hasDocValues: false, params: {}, indexAnalyzer: kw, searchAnalyzer: kw })],
      ['_seq_no', new NumberFieldType({ name: '_seq_no', type: 'long', searchable: true, hasDocValues: true, params: {} })],
    ]);
    const e: CacheEntry = {
      mappings: index.mappings,
      settings: index.settings,
      mappingVersion: index.mappingVersion,
      settingsVersion: index.settingsVersion,
      compiled,
      docMapper: new DefaultDocumentMapper(index.name, compiled, ctx),
      meta,
    };
    this.cache.set(index.uuid, e);
    return e;
  }

  /** drops cached state of a deleted index */
  evict(uuid: string): void {
    this.cache.delete(uuid);
  }

  compiled(index: IndexMetadata): CompiledMapping {
    return this.entry(index).compiled;
  }

  nestedLookup(index: IndexMetadata): NestedLookup {
    return this.entry(index).compiled.nested;
  }

  documentMapper(index: IndexMetadata): DocumentMapper {
    return this.entry(index).docMapper;
  }

  parsableInThread(index: IndexMetadata): boolean {
    const e = this.entry(index);
    e.builtInOnly ??= this.extensions.size === 0 || !declaresType(e.compiled.json, this.extensions);
    return e.builtInOnly;
  }

  private runtimeOf(e: CacheEntry, index: IndexMetadata): Map<string, MappedFieldType> {
    if (!e.runtime) e.runtime = Object.keys(e.compiled.runtime).length === 0 ? new Map() : buildRuntimeFieldTypes(e.compiled.runtime, this.context(index.settings), this.scripts);
    return e.runtime;
  }

  hasRuntimeFields(index: IndexMetadata): boolean {
    return Object.keys(this.entry(index).compiled.runtime).length > 0;
  }

  runtimeFieldTypes(index: IndexMetadata | undefined, defs: Record<string, unknown>, where: 'request' | 'aggregation' = 'request'): Map<string, MappedFieldType> {
    return buildRuntimeFieldTypes(defs as Json, this.context(index?.settings ?? {}), this.scripts, where);
  }

  fieldType(index: IndexMetadata, field: string): MappedFieldType | undefined {
    const e = this.entry(index);
    const rt = this.runtimeOf(e, index).get(field);
    if (rt) return rt;
    const ft = e.compiled.fieldTypes.get(field) ?? e.meta.get(field);
    if (ft) return ft;
    if (e.compiled.flattened.size) {
      for (const [name, leaf] of e.compiled.flattened) {
        if (field.startsWith(name + '.')) {
          const kw = this.analysis.analyzer('keyword');
          return new KeywordFieldType({ name: field, type: 'flattened', searchable: leaf.index, hasDocValues: leaf.docValues, params: leaf.def, indexAnalyzer: kw, searchAnalyzer: kw });
        }
      }
    }
    return undefined;
  }

  matchingFieldNames(index: IndexMetadata, pattern: string): string[] {
    const e = this.entry(index);
    const out: string[] = [];
    for (const [name, ft] of e.compiled.fieldTypes) {
      if (ft.kind === 'none' && ft.type !== 'constant_keyword') {
        if (simpleMatch(pattern, name)) out.push(name);
        continue;
      }
      if (simpleMatch(pattern, name)) out.push(name);
    }
    for (const [name, ft] of this.runtimeOf(e, index)) {
      if (ft.runtime?.type !== 'composite' && simpleMatch(pattern, name) && !out.includes(name)) out.push(name);
    }
    if (!pattern.includes('*') && out.length === 0 && e.meta.has(pattern)) out.push(pattern);
    return out.sort();
  }

  /**
   * For `GET _mapping/field/{fields}`: the mapping snippet of each matching field,
   * `{ full_name, mapping: { leafName: def } }`, keyed by full name.
   */
  fieldMappings(index: IndexMetadata, patterns: string[], includeDefaults = false): Record<string, unknown> {
    void includeDefaults;
    const e = this.entry(index);
    const out: Record<string, unknown> = {};
    const all = new Map<string, Json>();
    const walk = (props: Json | undefined, prefix: string) => {
      for (const [k, v] of Object.entries(props ?? {})) {
        const full = prefix + k;
        const def = v as Json;
        all.set(full, def);
        if (isPlainObject(def['properties'])) walk(def['properties'] as Json, full + '.');
        if (isPlainObject(def['fields'])) walk(def['fields'] as Json, full + '.');
      }
    };
    walk(e.compiled.json['properties'] as Json | undefined, '');
    for (const p of patterns) {
      for (const [full, def] of all) {
        if (!simpleMatch(p, full)) continue;
        const leaf = full.slice(full.lastIndexOf('.') + 1);
        const { fields, properties, ...rest } = def;
        void properties;
        const snippet = isPlainObject(def['properties']) ? def : fields ? { ...rest, fields } : rest;
        out[full] = { full_name: full, mapping: { [leaf]: snippet } };
      }
      if (!p.includes('*') && ['_id', '_routing', '_index', '_source', '_field_names', '_seq_no', '_version', '_ignored'].includes(p)) {
        out[p] = { full_name: p, mapping: {} };
      }
    }
    return out;
  }
}
