/**
 * MetadataIndexService: every change of index metadata (create, delete, mappings, settings, aliases,
 * open/close), validated and persisted through the MetadataStore; EngineEventListeners are notified.
 */
import { inject, injectable, multiInject, optional } from 'inversify';
import {
  EsError,
  Errors,
  ExtensionPoints,
  SettingsRegistry,
  Tokens,
  systemClock,
  type Clock,
  type HostConfig,
  wildcardRegExp,
} from '@strata/core-common';
import type { AliasMetadata, ClusterMetadata, IndexMetadata, MetadataStore } from './metadata.js';
import {
  EngineTokens,
  type AnalysisRegistry,
  type CreateIndexOptions,
  type CreateIndexRequest,
  type DeleteIndicesOptions,
  type MapperService,
  type MetadataIndexService,
} from '../services.js';
import type { EngineEventListener, MetadataParticipant } from '../spi.js';
import { randomBase64Uuid } from './metadata-store.js';
import { resolveDateMathIndexName, validateAliasName, validateIndexName } from './index-name.js';
import { PRIVATE_INDEX_SETTINGS } from './index-settings.js';
import { checkIndexBlock } from './index-blocks.js';
import { composeMappings, resolveTemplates, templateSection, TemplateSections } from './templates.js';
import { indexDataDir, removeQuietly } from '../store/directory.js';

/** Elasticsearch version id reported as index.version.created (8.x) */
export const INDEX_VERSION_CREATED = '8521000';

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export interface AliasAction {
  type: 'add' | 'remove' | 'remove_index';
  indices: string[];
  aliases: string[];
  body: Json;
  mustExist?: boolean;
}

class NoChange extends Error {}

@injectable()
export class DefaultMetadataIndexService implements MetadataIndexService {
  private readonly listeners: EngineEventListener[];

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(Tokens.SettingsRegistry) private readonly settings: SettingsRegistry,
    @inject(EngineTokens.MapperService) private readonly mappers: MapperService,
    @inject(EngineTokens.AnalysisRegistry) private readonly analysis: AnalysisRegistry,
    @multiInject(ExtensionPoints.EngineEventListener) @optional() listeners: EngineEventListener[] = [],
    @inject(Tokens.Clock) @optional() private readonly clock: Clock = systemClock,
    @multiInject(ExtensionPoints.MetadataParticipant) @optional() participants: MetadataParticipant[] = [],
    @inject(Tokens.HostConfig) @optional() hostConfig?: HostConfig,
  ) {
    this.listeners = listeners ?? [];
    this.clock = clock ?? systemClock;
    this.participants = participants ?? [];
    const dp = hostConfig?.settings?.['path.data'];
    this.dataPath = dp === undefined || dp === null ? undefined : String(dp);
  }

  private readonly participants: MetadataParticipant[];
  private readonly dataPath: string | undefined;

  /** lets every MetadataParticipant veto or follow a deletion, inside the same update */
  private participateInDelete(names: readonly string[], d: ClusterMetadata): void {
    for (const p of this.participants) p.onDeleteIndices?.(names, d);
  }

  private emit(fn: (l: EngineEventListener) => void): void {
    for (const l of this.listeners) {
      try {
        fn(l);
      } catch {
        // listeners must not break metadata changes
      }
    }
  }

  // ---------------------------------------------------------------- settings

  /** Normalises, validates and parses index settings for creation. */
  validateCreateSettings(raw: unknown): Json {
    const flat = this.settings.normalizeIndexSettings(raw);
    for (const k of Object.keys(flat)) {
      if (PRIVATE_INDEX_SETTINGS.includes(k)) throw Errors.illegalArgument(`private index setting [${k}] can not be set explicitly`);
    }
    const parsed = this.settings.validate('index', flat);
    for (const [k, v] of Object.entries(parsed)) if (v === null) delete parsed[k];
    const an = this.analysis as AnalysisRegistry & { validateSettings?(s: Json): void };
    an.validateSettings?.(parsed);
    return parsed;
  }

  // ---------------------------------------------------------------- create / delete

  async createIndex(rawName: string, request: CreateIndexRequest, cause = 'api', options: CreateIndexOptions = {}): Promise<IndexMetadata> {
    void cause;
    const name = resolveDateMathIndexName(rawName, this.clock.now());
    validateIndexName(name);
    const pre = this.store.current();
    if (pre.indices[name]) throw Errors.resourceAlreadyExists(name, pre.indices[name].uuid);
    if (this.aliasExists(pre, name)) throw Errors.invalidIndexName(name, 'already exists as alias');
    if (request.settings !== undefined && request.settings !== null && !isObj(request.settings)) {
      throw Errors.illegalArgument('settings must be an object');
    }
    const tpl = this.templateFor(pre, name, request, options);
    const settings = this.validateCreateSettings(tpl.settings);
    if (options.privateSettings) Object.assign(settings, options.privateSettings);
    const composed = composeMappings(tpl.mappings);
    const mappings: Json = composed && Object.keys(composed).length > 0 ? this.mappers.parseMappings(composed, settings) : {};
    const aliases = this.parseCreateAliases(name, tpl.aliases);
    const shards = this.settings.value<number>('index.number_of_shards', settings);
    const replicas = effectiveReplicas(settings, this.settings.value<number>('index.number_of_replicas', settings));
    const uuid = randomBase64Uuid();
    let created: IndexMetadata | undefined;
    try {
      if (options.populate) await options.populate(uuid);
      await this.store.update((d) => {
        if (d.indices[name]) throw Errors.resourceAlreadyExists(name, d.indices[name].uuid);
        if (this.aliasExists(d, name)) throw Errors.invalidIndexName(name, 'already exists as alias');
        for (const a of Object.keys(aliases)) {
          if (d.indices[a]) {
            throw new EsError('invalid_alias_name_exception', 400, `Invalid alias name [${a}]: an index or data stream exists with the same name as the alias`, {
              metadata: { index_uuid: '_na_', index: a },
            });
          }
          if (aliases[a].is_write_index) {
            for (const [iname, im] of Object.entries(d.indices)) {
              if (im.aliases[a]?.is_write_index) throw Errors.illegalArgument(`alias [${a}] has more than one write index [${iname},${name}]`);
            }
          }
        }
        const im: IndexMetadata = {
          name,
          uuid,
          settings,
          mappings,
          mappingVersion: 1,
          settingsVersion: 1,
          aliasesVersion: 1,
          aliases,
          state: 'open',
          numberOfShards: shards,
          numberOfReplicas: replicas,
          creationDate: options.creationDate ?? this.clock.now(),
          primaryTerms: options.primaryTerms && options.primaryTerms.length === shards ? [...options.primaryTerms] : new Array<number>(shards).fill(1),
        };
        if (options.custom) im.custom = structuredClone(options.custom);
        d.indices[name] = im;
        options.apply?.(d, im);
        created = im;
      });
    } catch (e) {
      if (options.populate && this.dataPath) removeQuietly(indexDataDir(this.dataPath, uuid));
      throw e;
    }
    const im = this.store.current().indices[name] ?? created!;
    this.emit((l) => l.onIndexCreated?.(name, im.uuid));
    return im;
  }

  /**
   * The settings, mappings (in precedence order) and aliases of a new index: the templates that match
   * (cluster/templates.ts: one composable template, or else the legacy ones), then the request itself.
   * A composable template with `data_stream` only creates data stream backing indices.
   */
  private templateFor(
    md: ClusterMetadata,
    name: string,
    request: CreateIndexRequest,
    options: CreateIndexOptions,
  ): { settings: Json; mappings: unknown[]; aliases: Json } {
    const reqSettings = request.settings !== undefined && request.settings !== null ? this.settings.normalizeIndexSettings(request.settings) : {};
    const h = reqSettings['index.hidden'];
    const isHidden = h === undefined || h === null ? undefined : h === true || h === 'true';
    const settings: Json = {};
    const mappings: unknown[] = [];
    const aliases: Json = {};
    if (!options.skipTemplates) {
      const t = resolveTemplates(md, name, { templateName: options.templateName, isHidden, backingIndex: options.dataStreamBackingIndex });
      if (t.v2 && !options.dataStreamBackingIndex) {
        const body = templateSection(md, TemplateSections.INDEX)[t.v2];
        if (isObj(body['data_stream'])) {
          throw Errors.illegalArgument(
            `cannot create index with name [${name}], because it matches with template [${t.v2}] that creates data streams only, use create data stream api instead`,
          );
        }
      }
      Object.assign(settings, this.settings.normalizeIndexSettings(t.settings));
      mappings.push(...t.mappings);
      Object.assign(aliases, t.aliases);
    }
    Object.assign(settings, reqSettings);
    if (request.mappings !== undefined && request.mappings !== null) mappings.push(request.mappings);
    if (isObj(request.aliases)) Object.assign(aliases, request.aliases);
    else if (request.aliases !== undefined && request.aliases !== null) throw Errors.illegalArgument('aliases must be an object');
    return { settings, mappings, aliases };
  }

  private aliasExists(md: ClusterMetadata, alias: string): boolean {
    for (const im of Object.values(md.indices)) if (im.aliases[alias]) return true;
    return false;
  }

  private parseCreateAliases(index: string, raw: unknown): Record<string, AliasMetadata> {
    if (raw === undefined || raw === null) return {};
    if (!isObj(raw)) throw Errors.illegalArgument('aliases must be an object');
    const out: Record<string, AliasMetadata> = {};
    for (const [alias, body] of Object.entries(raw)) {
      validateAliasName(alias, index);
      if (alias === index) throw Errors.illegalArgument(`alias [${alias}] cannot have the same name as the index`);
      out[alias] = this.aliasMetadata(alias, isObj(body) ? body : {});
    }
    return out;
  }

  aliasMetadata(alias: string, body: Json): AliasMetadata {
    const a: AliasMetadata = {};
    for (const [k, v] of Object.entries(body)) {
      switch (k) {
        case 'filter':
          if (!isObj(v)) throw Errors.illegalArgument(`failed to parse filter for alias [${alias}]`);
          a.filter = v;
          break;
        case 'routing':
          a.index_routing = String(v);
          a.search_routing = String(v);
          break;
        case 'index_routing':
          a.index_routing = String(v);
          break;
        case 'search_routing':
          a.search_routing = String(v);
          break;
        case 'is_write_index':
          if (v !== null) a.is_write_index = v === true || v === 'true';
          break;
        case 'is_hidden':
          if (v !== null) a.is_hidden = v === true || v === 'true';
          break;
        case 'index':
        case 'indices':
        case 'alias':
        case 'aliases':
        case 'must_exist':
          break;
        default:
          throw Errors.parsing(`[aliases] unknown field [${k}]`);
      }
    }
    if (a.index_routing && a.index_routing.includes(',')) {
      throw Errors.illegalArgument(`alias [${alias}] has several index routing values associated with it`);
    }
    return a;
  }

  async deleteIndices(names: string[], options: DeleteIndicesOptions = {}): Promise<void> {
    if (names.length === 0 && !options.apply) return;
    const removed: Array<[string, string]> = [];
    await this.store.update((d) => {
      removed.length = 0;
      for (const n of names) {
        const im = d.indices[n];
        if (!im) throw Errors.indexNotFound(n);
        removed.push([n, im.uuid]);
        delete d.indices[n];
      }
      options.apply?.(d);
      if (names.length) this.participateInDelete(names, d);
    });
    const ms = this.mappers as MapperService & { evict?(uuid: string): void };
    for (const [n, uuid] of removed) {
      ms.evict?.(uuid);
      this.emit((l) => l.onIndexDeleted?.(n, uuid));
    }
  }

  // ---------------------------------------------------------------- mappings

  async putMapping(indices: string[], mapping: unknown): Promise<void> {
    if (!isObj(mapping)) throw Errors.mapperParsing('Failed to parse mapping: mapping source must be an object');
    const cur = this.store.current();
    // fast path: nothing would change (concurrent dynamic updates of the same field)
    let changes = false;
    for (const n of indices) {
      const im = cur.indices[n];
      if (!im) throw Errors.indexNotFound(n);
      checkIndexBlock(im, 'metadata_write');
      const merged = this.mappers.merge(im.mappings, mapping, im.settings);
      if (JSON.stringify(merged) !== JSON.stringify(im.mappings)) changes = true;
    }
    if (!changes) return;
    const bumped: Array<[string, number]> = [];
    try {
      await this.store.update((d) => {
        for (const n of indices) {
          const im = d.indices[n];
          if (!im) throw Errors.indexNotFound(n);
          const merged = this.mappers.merge(im.mappings, mapping, im.settings);
          if (JSON.stringify(merged) === JSON.stringify(im.mappings)) continue;
          im.mappings = merged;
          im.mappingVersion += 1;
          bumped.push([n, im.mappingVersion]);
        }
        if (bumped.length === 0) throw new NoChange();
      });
    } catch (e) {
      if (e instanceof NoChange) return;
      throw e;
    }
    for (const [n, v] of bumped) this.emit((l) => l.onMappingUpdate?.(n, v));
  }

  // ---------------------------------------------------------------- settings

  async updateSettings(indices: string[], raw: unknown, opts: { reopen?: boolean } = {}): Promise<void> {
    if (!isObj(raw)) throw Errors.actionRequestValidation(['no settings to update']);
    const flat = this.settings.normalizeIndexSettings(raw);
    if (Object.keys(flat).length === 0) throw Errors.actionRequestValidation(['no settings to update']);
    for (const k of Object.keys(flat)) {
      if (PRIVATE_INDEX_SETTINGS.includes(k)) throw Errors.illegalArgument(`private index setting [${k}] can not be set explicitly`);
      const def = this.settings.get(k);
      if (def && def.scope === 'index' && def.finalSetting) {
        const cur = this.store.current();
        const same = indices.every((n) => JSON.stringify(cur.indices[n]?.settings[k] ?? def.defaultValue) === JSON.stringify(flat[k] === null ? def.defaultValue : def.parse(flat[k])));
        if (!same) throw Errors.illegalArgument(`final index setting [${k}], not updateable`);
      }
    }
    const notify: Array<[string, unknown, string]> = [];
    await this.store.update((d) => {
      const onlyBlocks = Object.keys(flat).every((k) => k.startsWith('index.blocks.'));
      for (const n of indices) {
        const im = d.indices[n];
        if (!im) throw Errors.indexNotFound(n);
        if (!onlyBlocks) checkIndexBlock(im, 'metadata_write');
        if (im.state === 'open' && !opts.reopen) {
          const nonDynamic = Object.keys(flat).filter((k) => {
            const def = this.settings.get(k);
            if (!def || def.dynamic) return false;
            const cur = im.settings[k] ?? def.defaultValue;
            const next = flat[k] === null ? def.defaultValue : def.parse(flat[k]);
            return JSON.stringify(cur) !== JSON.stringify(next);
          });
          if (nonDynamic.length) {
            throw Errors.illegalArgument(`Can't update non dynamic settings [[${nonDynamic.join(', ')}]] for open indices [[${n}/${im.uuid}]]`);
          }
        }
        const parsed = this.settings.validate('index', flat, { update: im.state === 'open' && !opts.reopen, existing: im.settings });
        const next: Json = { ...im.settings };
        for (const [k, v] of Object.entries(parsed)) {
          if (v === null || v === undefined) delete next[k];
          else next[k] = v;
          notify.push([k, v, n]);
        }
        const an = this.analysis as AnalysisRegistry & { validateSettings?(s: Json): void };
        an.validateSettings?.(next);
        if (JSON.stringify(next) !== JSON.stringify(im.settings)) {
          im.settings = next;
          im.settingsVersion += 1;
          im.numberOfReplicas = effectiveReplicas(next, this.settings.value<number>('index.number_of_replicas', next));
        }
      }
    });
    for (const [k, v, n] of notify) this.settings.notify(k, v, n);
  }

  // ---------------------------------------------------------------- aliases

  /** Applies `POST /_aliases` actions atomically. `resolve` expands index expressions to concrete names. */
  async updateAliases(actions: AliasAction[], resolve: (expr: string[]) => string[]): Promise<void> {
    // resolve index expressions before the update (they use the current metadata)
    const resolved = actions.map((a) => ({ ...a, concrete: resolve(a.indices) }));
    await this.store.update((d) => {
      for (const a of resolved) {
        if (a.type === 'remove_index') {
          for (const n of a.concrete) {
            if (!d.indices[n]) throw Errors.indexNotFound(n);
            delete d.indices[n];
          }
          this.participateInDelete(a.concrete, d);
          continue;
        }
        for (const n of a.concrete) {
          const im = d.indices[n];
          if (!im) throw Errors.indexNotFound(n);
          if (a.type === 'add') {
            for (const alias of a.aliases) {
              validateAliasName(alias, n);
              if (d.indices[alias]) {
                throw new EsError('invalid_alias_name_exception', 400, `Invalid alias name [${alias}]: an index or data stream exists with the same name as the alias`, {
                  metadata: { index_uuid: '_na_', index: alias },
                });
              }
              im.aliases[alias] = this.aliasMetadata(alias, a.body);
              im.aliasesVersion += 1;
            }
          } else {
            let any = false;
            for (const alias of a.aliases) {
              const matches = Object.keys(im.aliases).filter((x) => (alias.includes('*') ? wildcardRegExp(alias).test(x) : x === alias));
              for (const m of matches) {
                delete im.aliases[m];
                im.aliasesVersion += 1;
                any = true;
              }
            }
            if (!any && a.mustExist === true) {
              throw Errors.resourceNotFound(`required alias [${a.aliases.join(',')}] does not exist`);
            }
            if (!any && a.mustExist !== false) {
              throw new EsError('aliases_not_found_exception', 404, `aliases [${a.aliases.join(',')}] missing`, {
                metadata: { 'resource.type': 'aliases', 'resource.id': a.aliases.join(',') },
              });
            }
          }
        }
      }
      // at most one write index per alias
      const writers = new Map<string, string[]>();
      for (const [n, im] of Object.entries(d.indices)) {
        for (const [alias, am] of Object.entries(im.aliases)) {
          if (am.is_write_index) writers.set(alias, [...(writers.get(alias) ?? []), n]);
        }
      }
      for (const [alias, idx] of writers) {
        if (idx.length > 1) throw Errors.illegalArgument(`alias [${alias}] has more than one write index [${idx.join(',')}]`);
      }
    });
  }

  // ---------------------------------------------------------------- open / close

  async setState(indices: string[], state: 'open' | 'close'): Promise<void> {
    await this.store.update((d) => {
      for (const n of indices) {
        const im = d.indices[n];
        if (!im) throw Errors.indexNotFound(n);
        if (im.state !== state) {
          im.state = state;
          im.settingsVersion += 1;
        }
      }
    });
  }
}

/** index.auto_expand_replicas on a single data node (ES AutoExpandReplicas): min(max, nodes-1) but at least min. */
export function effectiveReplicas(settings: Record<string, unknown>, configured: number, dataNodes = 1): number {
  const ae = settings['index.auto_expand_replicas'];
  if (ae === undefined || ae === null || ae === false || ae === 'false') return configured;
  const m = /^(\d+)-(\d+|all)$/.exec(String(ae));
  if (!m) return configured;
  const min = Number(m[1]);
  const max = m[2] === 'all' ? dataNodes - 1 : Number(m[2]);
  if (dataNodes - 1 < min) return min;
  return Math.min(max, dataNodes - 1);
}
