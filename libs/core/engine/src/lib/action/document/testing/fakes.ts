/** Minimal stand-ins for H2's mapper / resolver / metadata index service, for storage tests. */
import { Errors } from '@strata/core-common';
import type { ClusterMetadata, IndexMetadata, MetadataStore } from '../../../cluster/metadata.js';
import type {
  CreateIndexRequest,
  DocumentMapper,
  IndexNameExpressionResolver,
  MapperService,
  MetadataIndexService,
} from '../../../services.js';
import type { IndicesOptions } from '../../../spi.js';
import type { MappedFieldType } from '../../../mapper/mapped-field-type.js';
import { simpleParse } from '../../../shard/testing/simple-parser.js';

export class FakeMapperService implements MapperService {
  parseMappings(m: unknown): Record<string, unknown> {
    return (m as Record<string, unknown>) ?? {};
  }
  merge(existing: Record<string, unknown>, update: unknown): Record<string, unknown> {
    const props = { ...((existing['properties'] as Record<string, unknown>) ?? {}), ...(((update as Record<string, unknown>)['properties'] as Record<string, unknown>) ?? {}) };
    return { ...existing, properties: props };
  }
  documentMapper(index: IndexMetadata): DocumentMapper {
    return {
      parse: (source, id, routing) => {
        const props = (index.mappings['properties'] as Record<string, { type: string }>) ?? {};
        const newProps: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(source)) {
          const t = typeof v === 'number' ? 'long' : 'text';
          if (props[k] && props[k].type === 'long' && typeof v === 'string' && !/^-?\d+$/.test(v)) {
            throw Errors.documentParsing(`[1:2] failed to parse field [${k}] of type [long] in document with id '${id}'. Preview of field's value: '${v}'`);
          }
          if (!props[k]) newProps[k] = { type: t };
        }
        if (index.mappings['dynamic'] === 'strict' && Object.keys(newProps).length) {
          throw Errors.strictDynamicMapping(`[1:2] mapping set to strict, dynamic introduction of [${Object.keys(newProps)[0]}] within [_doc] is not allowed`);
        }
        const doc = simpleParse(source, id, routing);
        return Object.keys(newProps).length ? { doc, dynamicMappingUpdate: { properties: newProps } } : { doc };
      },
    };
  }
  fieldType(): MappedFieldType | undefined {
    return undefined;
  }
  matchingFieldNames(): string[] {
    return [];
  }
}

export class FakeResolver implements IndexNameExpressionResolver {
  constructor(private readonly store: MetadataStore) {}
  concreteIndices(expression: string | string[] | undefined, options: IndicesOptions): string[] {
    const md = this.store.current();
    const names = Array.isArray(expression) ? expression : String(expression ?? '_all').split(',');
    const out: string[] = [];
    for (const n of names) {
      if (n === '_all' || n === '*') out.push(...Object.keys(md.indices));
      else if (md.indices[n]) out.push(n);
      else {
        const viaAlias = Object.values(md.indices).filter((m) => m.aliases[n]).map((m) => m.name);
        if (viaAlias.length) out.push(...viaAlias);
        else if (!options.ignoreUnavailable) throw Errors.indexNotFound(n);
      }
    }
    return out;
  }
  writeIndex(name: string): string | undefined {
    const md = this.store.current();
    if (md.indices[name]) return name;
    const withAlias = Object.values(md.indices).filter((m) => m.aliases[name]);
    if (withAlias.length === 1 && withAlias[0].aliases[name].is_write_index !== false) return withAlias[0].name;
    const w = withAlias.find((m) => m.aliases[name].is_write_index === true);
    return w?.name;
  }
}

let uuidCounter = 0;

export function indexMetadata(name: string, opts: Partial<IndexMetadata> = {}): IndexMetadata {
  return {
    name,
    uuid: `uuid-${name}-${++uuidCounter}`,
    settings: {},
    mappings: {},
    mappingVersion: 1,
    settingsVersion: 1,
    aliasesVersion: 1,
    aliases: {},
    state: 'open',
    numberOfShards: 1,
    numberOfReplicas: 1,
    creationDate: Date.now(),
    primaryTerms: [1],
    ...opts,
  };
}

export class FakeMetadataIndexService implements MetadataIndexService {
  created: string[] = [];
  constructor(private readonly store: MetadataStore) {}
  async createIndex(name: string, request: CreateIndexRequest): Promise<IndexMetadata> {
    if (this.store.current().indices[name]) throw Errors.resourceAlreadyExists(name, this.store.current().indices[name].uuid);
    this.created.push(name);
    const md = await this.store.update((d: ClusterMetadata) => {
      d.indices[name] = indexMetadata(name, { mappings: (request.mappings as Record<string, unknown>) ?? {} });
    });
    return md.indices[name];
  }
  async deleteIndices(names: string[]): Promise<void> {
    await this.store.update((d) => {
      for (const n of names) delete d.indices[n];
    });
  }
  async putMapping(indices: string[], mapping: unknown): Promise<void> {
    await this.store.update((d) => {
      for (const n of indices) {
        const m = d.indices[n];
        const props = { ...((m.mappings['properties'] as Record<string, unknown>) ?? {}), ...(((mapping as Record<string, unknown>)['properties'] as Record<string, unknown>) ?? {}) };
        m.mappings = { ...m.mappings, properties: props };
        m.mappingVersion++;
      }
    });
  }
  async updateSettings(indices: string[], settings: unknown): Promise<void> {
    await this.store.update((d) => {
      for (const n of indices) {
        d.indices[n].settings = { ...d.indices[n].settings, ...(settings as Record<string, unknown>) };
        d.indices[n].settingsVersion++;
      }
    });
  }
}
