/**
 * Data streams: creation (explicit or on the first write), deletion, migration of an alias, modification of
 * the backing indices, statistics and the data stream lifecycle configuration. Every change is one atomic
 * metadata update that also creates or deletes the indices involved, so a crash leaves either the old or
 * the new state.
 */
import { inject, injectable } from 'inversify';
import { DEFAULT_INDICES_OPTIONS, EsError, Errors, Tokens, formatByteSize, type Clock, type ExpandWildcards } from '@strata/core-common';
import {
  EngineTokens,
  KeyedMutex,
  TemplateSections,
  findV2Template,
  indexNameProblem,
  isHiddenIndex,
  pointAccess,
  simpleMatch,
  templateSection,
  type ClusterMetadata,
  type IndexMetadata,
  type MetadataIndexService,
  type MetadataStore,
  type StorageIndicesService,
} from '@strata/core-engine';
import { isObj, type Json } from '../util.js';
import {
  TIMESTAMP_FIELD,
  backingIndexName,
  dataStreams,
  draftDataStreams,
  parentDataStream,
  writeIndexOf,
  type DataStreamMetadata,
} from './data-stream-metadata.js';

/** `expand_wildcards` states (parsed by core-common's parseExpandWildcards) */
export type ExpandOptions = ExpandWildcards;

const DEFAULT_EXPAND: ExpandOptions = DEFAULT_INDICES_OPTIONS.expandWildcards;

export function dataStreamNotFound(name: string): EsError {
  return new EsError('index_not_found_exception', 404, `no such index [${name}]`, {
    metadata: { 'resource.type': 'index_or_alias', 'resource.id': name, index_uuid: '_na_', index: name },
  });
}

@injectable()
export class DataStreamService {
  private readonly locks = new KeyedMutex();
  private readonly creating = new Map<string, Promise<void>>();

  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  /** runs fn with the stream's lock held (rollover, modify, delete of one stream never interleave) */
  withLock<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`ds:${name}`, fn);
  }

  get(name: string): DataStreamMetadata | undefined {
    return dataStreams(this.store.current())[name];
  }

  // ------------------------------------------------------------------ create

  validateName(name: string): void {
    const problem = indexNameProblem(name, { lowercase: false });
    if (problem) throw Errors.illegalArgument(`data_stream [${name}] ${problem}`);
    if (name.toLowerCase() !== name) throw Errors.illegalArgument(`data_stream [${name}] must be lowercase`);
    if (name.startsWith('.ds-')) throw Errors.illegalArgument(`data_stream [${name}] must not start with '.ds-'`);
  }

  /** the composable template that creates stream `name` (ES: it must have a data_stream section) */
  templateFor(md: ClusterMetadata, name: string): { name: string; body: Json } {
    const t = findV2Template(md, name, false);
    if (!t) throw Errors.illegalArgument(`no matching index template found for data stream [${name}]`);
    const body = templateSection(md, TemplateSections.INDEX)[t];
    if (!isObj(body['data_stream'])) throw Errors.illegalArgument(`matching index template [${t}] for data stream [${name}] has no data stream template`);
    return { name: t, body };
  }

  async create(name: string, cause = 'create_data_stream'): Promise<DataStreamMetadata> {
    this.validateName(name);
    return this.withLock(name, async () => {
      const md = this.store.current();
      if (dataStreams(md)[name]) throw new EsError('resource_already_exists_exception', 400, `data_stream [${name}] already exists`);
      if (md.indices[name]) throw new EsError('resource_already_exists_exception', 400, `index [${name}/${md.indices[name].uuid}] already exists`, { metadata: { index_uuid: md.indices[name].uuid, index: name } });
      if (Object.values(md.indices).some((im) => im.aliases[name])) throw Errors.illegalArgument(`data_stream [${name}] conflicts with existing alias`);
      const tpl = this.templateFor(md, name);
      const now = this.clock.now();
      const first = backingIndexName(name, 1, now);
      await this.mis.createIndex(first, { settings: { 'index.hidden': true } }, cause, {
        templateName: name,
        dataStreamBackingIndex: true,
        apply: (d, im) => {
          checkTimestampMapping(im);
          const streams = draftDataStreams(d);
          if (streams[name]) throw new EsError('resource_already_exists_exception', 400, `data_stream [${name}] already exists`);
          streams[name] = newStream(d, name, tpl.body, [im]);
        },
      });
      return this.get(name)!;
    });
  }

  /** creates the stream on the first write unless someone else just did (concurrent bulk items) */
  async autoCreate(name: string): Promise<void> {
    let p = this.creating.get(name);
    if (!p) {
      p = (async () => {
        try {
          await this.create(name, 'auto-create');
        } catch (e) {
          if (!(e instanceof EsError && e.type === 'resource_already_exists_exception' && this.get(name))) throw e;
        }
      })().finally(() => this.creating.delete(name));
      this.creating.set(name, p);
    }
    await p;
  }

  // ------------------------------------------------------------------ resolve

  /** names of streams matching a comma list with wildcards (ES: missing concrete names → 404) */
  resolveNames(expr: string | undefined, expand: ExpandOptions = DEFAULT_EXPAND, opts: { ignoreMissing?: boolean } = {}): string[] {
    const streams = dataStreams(this.store.current());
    const parts = (expr ?? '*').split(',').map((s) => s.trim()).filter(Boolean);
    const out = new Set<string>();
    for (const p of parts.length ? parts : ['*']) {
      if (p.startsWith('-') && out.size) {
        const pat = p.slice(1);
        for (const n of [...out]) if (simpleMatch(pat, n)) out.delete(n);
        continue;
      }
      if (p === '_all' || p.includes('*')) {
        for (const ds of Object.values(streams)) {
          if (p !== '_all' && !simpleMatch(p, ds.name)) continue;
          if (!this.visible(ds, expand, p)) continue;
          out.add(ds.name);
        }
      } else if (streams[p]) out.add(p);
      else if (!opts.ignoreMissing) throw dataStreamNotFound(p);
    }
    return [...out].sort();
  }

  private visible(ds: DataStreamMetadata, expand: ExpandOptions, pattern: string): boolean {
    if (!expand.open && !expand.closed) return false;
    if (ds.hidden && !expand.hidden && !(pattern.startsWith('.') && ds.name.startsWith('.'))) return false;
    return true;
  }

  // ------------------------------------------------------------------ get

  render(ds: DataStreamMetadata, md: ClusterMetadata, ilmPolicyOf: (im: IndexMetadata) => string | undefined): Json {
    const tpl = findV2Template(md, ds.name, ds.hidden);
    let status: 'GREEN' | 'YELLOW' | 'RED' = 'GREEN';
    const lcEnabled = ds.lifecycle !== undefined && ds.lifecycle.enabled !== false;
    const indices = ds.indices.map((b) => {
      const im = md.indices[b.index_name];
      if (!im) status = 'RED';
      else if (im.numberOfReplicas > 0 && status === 'GREEN') status = 'YELLOW';
      const policy = im ? ilmPolicyOf(im) : undefined;
      const preferIlm = im ? im.settings['index.lifecycle.prefer_ilm'] !== false : true;
      const o: Json = { index_name: b.index_name, index_uuid: b.index_uuid, prefer_ilm: preferIlm };
      if (policy) o['ilm_policy'] = policy;
      o['managed_by'] = managedBy(policy, preferIlm, lcEnabled);
      return o;
    });
    const templateSettings = tpl ? this.templateSettings(md, tpl) : {};
    const nextPolicy = typeof templateSettings['index.lifecycle.name'] === 'string' ? (templateSettings['index.lifecycle.name'] as string) : undefined;
    const nextPreferIlm = templateSettings['index.lifecycle.prefer_ilm'] !== false && templateSettings['index.lifecycle.prefer_ilm'] !== 'false';
    const out: Json = {
      name: ds.name,
      timestamp_field: { name: ds.timestamp_field.name },
      indices,
      generation: ds.generation,
    };
    if (ds._meta) out['_meta'] = ds._meta;
    out['status'] = status;
    if (tpl) out['template'] = tpl;
    if (nextPolicy) out['ilm_policy'] = nextPolicy;
    out['next_generation_managed_by'] = managedBy(nextPolicy, nextPreferIlm, lcEnabled);
    out['prefer_ilm'] = nextPreferIlm;
    out['hidden'] = ds.hidden;
    out['system'] = ds.system;
    out['allow_custom_routing'] = ds.allow_custom_routing;
    out['replicated'] = ds.replicated;
    out['rollover_on_write'] = ds.rollover_on_write === true;
    if (ds.lifecycle) out['lifecycle'] = renderLifecycle(ds.lifecycle);
    return out;
  }

  private templateSettings(md: ClusterMetadata, tpl: string): Json {
    const t = templateSection(md, TemplateSections.INDEX)[tpl];
    const out: Json = {};
    const comps = templateSection(md, TemplateSections.COMPONENT);
    const add = (inner: unknown) => {
      if (isObj(inner) && isObj(inner['settings'])) Object.assign(out, inner['settings']);
    };
    for (const c of Array.isArray(t['composed_of']) ? (t['composed_of'] as string[]) : []) add(comps[c]?.['template']);
    add(t['template']);
    return out;
  }

  // ------------------------------------------------------------------ delete

  async delete(names: string[]): Promise<void> {
    for (const name of names) {
      await this.withLock(name, async () => {
        const ds = this.get(name);
        if (!ds) return;
        const md = this.store.current();
        const backing = ds.indices.map((b) => b.index_name).filter((n) => md.indices[n]);
        await this.mis.deleteIndices(backing, {
          apply: (d) => {
            delete draftDataStreams(d)[name];
          },
        });
      });
    }
  }

  // ------------------------------------------------------------------ migrate

  async migrate(alias: string): Promise<void> {
    return this.withLock(alias, async () => {
      const md = this.store.current();
      if (dataStreams(md)[alias]) throw new EsError('resource_already_exists_exception', 400, `data_stream [${alias}] already exists`);
      const members = Object.values(md.indices).filter((im) => im.aliases[alias]);
      if (members.length === 0) throw Errors.illegalArgument(`alias [${alias}] does not exist`);
      const explicit = members.filter((im) => im.aliases[alias].is_write_index === true);
      const write = explicit.length === 1 ? explicit[0] : members.length === 1 && members[0].aliases[alias].is_write_index !== false ? members[0] : undefined;
      if (!write) throw Errors.illegalArgument(`alias [${alias}] must specify a write index`);
      for (const im of members) {
        const a = im.aliases[alias];
        if (a.filter || a.index_routing || a.search_routing) throw Errors.illegalArgument(`alias [${alias}] may not have custom filtering or routing`);
      }
      this.validateName(alias);
      const tpl = this.templateFor(md, alias);
      // each index gets the data stream timestamp meta field; its @timestamp must be a date
      for (const im of members) checkTimestampMapping({ ...im, mappings: im.mappings }, true);
      const ordered = members.filter((im) => im !== write).sort((a, b) => a.creationDate - b.creationDate || (a.name < b.name ? -1 : 1));
      ordered.push(write);
      for (const im of members) await this.mis.putMapping([im.name], { _data_stream_timestamp: { enabled: true } });
      await this.store.update((d) => {
        const streams = draftDataStreams(d);
        if (streams[alias]) throw new EsError('resource_already_exists_exception', 400, `data_stream [${alias}] already exists`);
        for (const im of ordered) {
          const cur = d.indices[im.name];
          if (!cur || !cur.aliases[alias]) throw Errors.illegalArgument(`alias [${alias}] changed while migrating`);
          delete cur.aliases[alias];
          cur.aliasesVersion += 1;
          cur.settings = { ...cur.settings, 'index.hidden': true };
          cur.settingsVersion += 1;
        }
        streams[alias] = newStream(d, alias, tpl.body, ordered);
      });
    });
  }

  // ------------------------------------------------------------------ modify

  async modify(actions: Array<{ type: 'add_backing_index' | 'remove_backing_index'; dataStream: string; index: string }>): Promise<void> {
    await this.store.update((d) => {
      const streams = draftDataStreams(d);
      for (const a of actions) {
        const ds = streams[a.dataStream];
        if (!ds) throw Errors.illegalArgument(`data stream [${a.dataStream}] not found`);
        const im = d.indices[a.index];
        if (!im) throw Errors.indexNotFound(a.index);
        if (a.type === 'add_backing_index') {
          const parent = Object.values(streams).find((s) => s.indices.some((b) => b.index_name === a.index));
          if (parent && parent.name !== ds.name) {
            throw Errors.illegalArgument(`cannot add index [${a.index}] to data stream [${ds.name}] because it is already a backing index on data stream [${parent.name}]`);
          }
          if (parent) continue;
          const aliases = Object.keys(im.aliases);
          if (aliases.length) {
            throw Errors.illegalArgument(`cannot add index [${a.index}] to data stream [${ds.name}] until its ${aliases.length === 1 ? 'alias' : 'aliases'} [${aliases.sort().join(', ')}] ${aliases.length === 1 ? 'is' : 'are'} removed`);
          }
          ds.indices.unshift({ index_name: im.name, index_uuid: im.uuid });
          if (!isHiddenIndex(im)) {
            im.settings = { ...im.settings, 'index.hidden': true };
            im.settingsVersion += 1;
          }
        } else {
          const i = ds.indices.findIndex((b) => b.index_name === a.index);
          if (i < 0) throw Errors.illegalArgument(`index [${a.index}] not found`);
          if (i === ds.indices.length - 1) {
            throw Errors.illegalArgument(`cannot remove backing index [${a.index}] of data stream [${ds.name}] because it is the write index`);
          }
          ds.indices.splice(i, 1);
          im.settings = { ...im.settings, 'index.hidden': false };
          im.settingsVersion += 1;
        }
      }
    });
  }

  // ------------------------------------------------------------------ stats

  stats(names: string[], human: boolean): Json {
    const md = this.store.current();
    let shardsTotal = 0;
    let backing = 0;
    let total = 0;
    const out: Json[] = [];
    for (const n of names) {
      const ds = dataStreams(md)[n];
      if (!ds) continue;
      let size = 0;
      let maxTs = 0;
      for (const b of ds.indices) {
        const im = md.indices[b.index_name];
        if (!im || im.state !== 'open') continue;
        backing++;
        shardsTotal += im.numberOfShards * (1 + im.numberOfReplicas);
        const st = this.indices.indexStatsSummary(b.index_name);
        size += st.total.storeSizeInBytes;
        maxTs = Math.max(maxTs, this.maxTimestamp(im));
      }
      total += size;
      const o: Json = { data_stream: n, backing_indices: ds.indices.length };
      if (human) o['store_size'] = formatByteSize(size);
      o['store_size_bytes'] = size;
      o['maximum_timestamp'] = maxTs;
      out.push(o);
    }
    const primaries = names.reduce((acc, n) => {
      const ds = dataStreams(md)[n];
      if (!ds) return acc;
      return acc + ds.indices.reduce((a, b) => a + (md.indices[b.index_name]?.numberOfShards ?? 0), 0);
    }, 0);
    const body: Json = {
      _shards: { total: shardsTotal, successful: primaries, failed: 0 },
      data_stream_count: out.length,
      backing_indices: backing,
    };
    if (human) body['total_store_size'] = formatByteSize(total);
    body['total_store_size_bytes'] = total;
    body['data_streams'] = out;
    return body;
  }

  /** the highest `@timestamp` of an index (epoch millis), from the field's sorted point index */
  private maxTimestamp(im: IndexMetadata): number {
    const props = isObj(im.mappings['properties']) ? (im.mappings['properties'] as Json) : {};
    const ft = isObj(props[TIMESTAMP_FIELD]) ? ((props[TIMESTAMP_FIELD] as Json)['type'] as string) : 'date';
    let max = 0;
    for (const shard of this.indices.shards(im.name)) {
      const reader = shard.acquireReader();
      try {
        for (const leaf of reader.leaves) {
          const pi = leaf.reader.pointIndex(TIMESTAMP_FIELD);
          if (!pi) continue;
          // from the largest value down: on disk only the last block(s) are read
          const pts = pointAccess(pi);
          for (let i = pts.size - 1; i >= 0; i--) {
            if (!leaf.reader.isLive(pts.doc(i))) continue;
            const v = ft === 'date_nanos' ? Math.floor(pts.value(i) / 1e6) : pts.value(i);
            if (v > max) max = v;
            break;
          }
        }
      } finally {
        reader.decRef();
      }
    }
    return max;
  }

  // ------------------------------------------------------------------ lifecycle

  async putLifecycle(names: string[], lifecycle: { enabled?: boolean; data_retention?: string }): Promise<void> {
    await this.store.update((d) => {
      const streams = draftDataStreams(d);
      for (const n of names) {
        const ds = streams[n];
        if (!ds) throw dataStreamNotFound(n);
        const lc: { enabled?: boolean; data_retention?: string } = { enabled: lifecycle.enabled !== false };
        if (lifecycle.data_retention !== undefined) lc.data_retention = lifecycle.data_retention;
        ds.lifecycle = lc;
      }
    });
  }

  async deleteLifecycle(names: string[]): Promise<void> {
    await this.store.update((d) => {
      const streams = draftDataStreams(d);
      for (const n of names) {
        const ds = streams[n];
        if (!ds) throw dataStreamNotFound(n);
        delete ds.lifecycle;
      }
    });
  }

  /** the data stream a backing index belongs to */
  parentOf(index: string): DataStreamMetadata | undefined {
    return parentDataStream(this.store.current(), index);
  }

  writeIndex(ds: DataStreamMetadata): string {
    return writeIndexOf(ds);
  }
}

/** a stream's metadata as its data-stream template makes it, over `backing` (oldest first, write index last) */
function newStream(d: ClusterMetadata, name: string, template: Json, backing: ReadonlyArray<Pick<IndexMetadata, 'name' | 'uuid'>>): DataStreamMetadata {
  const dsTpl = template['data_stream'] as Json;
  const ds: DataStreamMetadata = {
    name,
    timestamp_field: { name: TIMESTAMP_FIELD },
    indices: backing.map((im) => ({ index_name: im.name, index_uuid: im.uuid })),
    generation: backing.length,
    hidden: dsTpl['hidden'] === true,
    system: false,
    replicated: false,
    allow_custom_routing: dsTpl['allow_custom_routing'] === true,
  };
  if (isObj(template['_meta'])) ds._meta = template['_meta'] as Json;
  const lc = templateLifecycle(d, template);
  if (lc) ds.lifecycle = lc;
  return ds;
}

/** `Index Lifecycle Management` / `Data stream lifecycle` / `Unmanaged` (ES ManagedBy) */
export function managedBy(policy: string | undefined, preferIlm: boolean, lifecycleEnabled: boolean): string {
  if (policy && (preferIlm || !lifecycleEnabled)) return 'Index Lifecycle Management';
  if (lifecycleEnabled) return 'Data stream lifecycle';
  return 'Unmanaged';
}

export function renderLifecycle(lc: { enabled?: boolean; data_retention?: string }): Json {
  const o: Json = { enabled: lc.enabled !== false };
  if (lc.data_retention !== undefined) o['data_retention'] = lc.data_retention;
  return o;
}

/** the `template.lifecycle` of a composable template (its own over its components') */
function templateLifecycle(md: ClusterMetadata, t: Json): { enabled?: boolean; data_retention?: string } | undefined {
  let lc: Json | undefined;
  const comps = templateSection(md, TemplateSections.COMPONENT);
  for (const c of Array.isArray(t['composed_of']) ? (t['composed_of'] as string[]) : []) {
    const inner = comps[c]?.['template'];
    if (isObj(inner) && isObj(inner['lifecycle'])) lc = { ...(lc ?? {}), ...(inner['lifecycle'] as Json) };
  }
  const own = isObj(t['template']) ? (t['template'] as Json)['lifecycle'] : undefined;
  if (isObj(own)) lc = { ...(lc ?? {}), ...own };
  if (!lc) return undefined;
  const out: { enabled?: boolean; data_retention?: string } = { enabled: lc['enabled'] !== false };
  if (typeof lc['data_retention'] === 'string') out.data_retention = lc['data_retention'];
  return out;
}

/** ES: the data stream timestamp field must be mapped as date or date_nanos */
export function checkTimestampMapping(im: Pick<IndexMetadata, 'mappings'>, mustExist = false): void {
  const props = isObj(im.mappings['properties']) ? (im.mappings['properties'] as Json) : {};
  const f = props[TIMESTAMP_FIELD];
  if (!isObj(f)) {
    if (mustExist) throw Errors.illegalArgument(`data stream timestamp field [${TIMESTAMP_FIELD}] does not exist`);
    return;
  }
  const type = f['type'] ?? 'object';
  if (type !== 'date' && type !== 'date_nanos') {
    throw Errors.illegalArgument(`data stream timestamp field [${TIMESTAMP_FIELD}] is of type [${String(type)}], but [date,date_nanos] is expected`);
  }
}
