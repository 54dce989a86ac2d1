/**
 * The analyzer's schema over the mappings of the searched indices (and the request's runtime_mappings):
 * leaves, multi-fields (a text field's keyword sub-field is its exact field), aliases, objects, nested
 * hierarchies, runtime fields; a field mapped with incompatible types in different indices is refused as
 * Elasticsearch's field-caps based resolution does.
 */
import type { IndexMetadata } from '@strata/core-engine';
import { compatible, dataTypeOf, type FieldInfo, type Schema } from '../analysis/schema.js';

type Json = Record<string, unknown>;

interface RawField {
  type: string;
  exactField?: string;
  normalized?: boolean;
  nestedParent?: string;
  object?: boolean;
  aliasPath?: string;
  format?: string;
  docValues?: boolean;
}

const NO_DOC_VALUES = new Set(['text', 'match_only_text', 'annotated_text', 'geo_shape', 'binary', 'completion', 'search_as_you_type']);

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** every field of one mapping, by full name */
export function mappingFields(mappings: Json): Map<string, RawField> {
  const out = new Map<string, RawField>();
  const walk = (props: Json, prefix: string, nested: string | undefined): void => {
    for (const [k, v] of Object.entries(props)) {
      if (!isObj(v)) continue;
      const full = prefix + k;
      const type = typeof v['type'] === 'string' ? (v['type'] as string) : isObj(v['properties']) ? 'object' : 'object';
      if (type === 'alias') {
        out.set(full, { type: 'alias', aliasPath: String(v['path']) });
        continue;
      }
      if (type === 'object' || type === 'nested') {
        out.set(full, { type, object: type === 'object', ...(nested ? { nestedParent: nested } : {}) });
        if (isObj(v['properties'])) walk(v['properties'], full + '.', type === 'nested' ? (nested ?? full) : nested);
        continue;
      }
      const f: RawField = { type, ...(nested ? { nestedParent: nested } : {}) };
      if (typeof v['format'] === 'string') f.format = v['format'];
      f.docValues = v['doc_values'] !== false && !NO_DOC_VALUES.has(type);
      if (type === 'keyword' && typeof v['normalizer'] === 'string') f.normalized = true;
      if (isObj(v['fields'])) {
        for (const [sk, sv] of Object.entries(v['fields'])) {
          if (!isObj(sv)) continue;
          const st = String(sv['type'] ?? 'object');
          const sub: RawField = { type: st, docValues: sv['doc_values'] !== false && !NO_DOC_VALUES.has(st), ...(nested ? { nestedParent: nested } : {}) };
          if (st === 'keyword' && typeof sv['normalizer'] === 'string') sub.normalized = true;
          out.set(`${full}.${sk}`, sub);
          if (type === 'text' && f.exactField === undefined && (st === 'keyword' || st === 'constant_keyword' || st === 'wildcard') && !sub.normalized) {
            f.exactField = `${full}.${sk}`;
          }
        }
      }
      out.set(full, f);
    }
  };
  if (isObj(mappings['properties'])) walk(mappings['properties'], '', undefined);
  if (isObj(mappings['runtime'])) {
    for (const [k, v] of Object.entries(mappings['runtime'])) if (isObj(v)) out.set(k, { type: String(v['type'] ?? 'keyword') });
  }
  return out;
}

export class MappingSchema implements Schema {
  readonly dynamic = false;
  private readonly fields = new Map<string, FieldInfo>();

  constructor(indices: IndexMetadata[], runtimeMappings?: Json) {
    const perIndex = new Map<string, Array<{ index: string; f: RawField; resolved: RawField; path: string }>>();
    for (const meta of indices) {
      const fields = mappingFields(meta.mappings ?? {});
      if (runtimeMappings) for (const [k, v] of Object.entries(runtimeMappings)) if (isObj(v)) fields.set(k, { type: String(v['type'] ?? 'keyword') });
      for (const [name, f] of fields) {
        let resolved = f;
        let path = name;
        if (f.type === 'alias' && f.aliasPath) {
          const target = fields.get(f.aliasPath);
          if (!target) continue;
          resolved = target;
          path = f.aliasPath;
        }
        let list = perIndex.get(name);
        if (!list) perIndex.set(name, (list = []));
        list.push({ index: meta.name, f, resolved, path });
      }
    }
    for (const [name, list] of perIndex) {
      const first = list[0]!;
      const info: FieldInfo = { name, path: first.path, type: first.resolved.type };
      if (first.resolved.exactField) info.exactField = first.resolved.exactField;
      if (first.resolved.normalized) info.normalized = true;
      if (first.resolved.nestedParent) info.nestedParent = first.resolved.nestedParent;
      if (first.resolved.object) info.object = true;
      if (first.resolved.format) info.format = first.resolved.format;
      info.docValues = list.every((x) => x.resolved.docValues === true);
      const types = [...new Set(list.map((x) => x.resolved.type))];
      if (types.length > 1) {
        const dts = types.map(dataTypeOf);
        const ok = dts.every((t) => compatible(t, dts[0]!) && t !== 'unsupported');
        if (!ok) {
          const byType = types.map((t) => `[${t}] in [${list.filter((x) => x.resolved.type === t).map((x) => x.index).join(', ')}]`);
          info.conflict = `Cannot use field [${name}] due to ambiguities being mapped as [${types.length}] incompatible types: ${byType.join(', ')}`;
        } else if (types.includes('text') && !list.every((x) => x.resolved.exactField)) {
          info.exactField = undefined;
        }
      }
      // a field that is an object in one index and a leaf in another: use the leaf
      if (info.object && list.some((x) => !x.resolved.object)) {
        const leaf = list.find((x) => !x.resolved.object)!;
        info.object = false;
        info.type = leaf.resolved.type;
      }
      this.fields.set(name, info);
    }
  }

  field(name: string): FieldInfo | undefined {
    return this.fields.get(name);
  }

  fieldNames(): string[] {
    return [...this.fields.entries()].filter(([, f]) => !f.object).map(([n]) => n);
  }
}
