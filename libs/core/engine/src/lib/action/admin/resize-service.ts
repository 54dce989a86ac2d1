/**
 * Shrink and clone (ES resize): a new index with fewer (or as many) primary shards holding the documents
 * of a read-only source. Each target shard is built from the commits of the source shards that route to
 * it (`floor(sourceShard / factor)`, which the routing keeps consistent through the number of routing
 * shards), their segment files hard-linked, then published; no document is re-indexed.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, Tokens, type SettingsRegistry } from '@strata/core-common';
import type { IndexMetadata, MetadataStore } from '../../cluster/metadata.js';
import { EngineTokens, type CreateIndexRequest, type MetadataIndexService } from '../../services.js';
import type { StorageIndicesService } from '../../shard/indices-service.js';
import type { IndexCommitRef } from '../../shard/index-shard.js';
import { writeShardFromCommits } from '../../shard/shard-files.js';
import { routingNumShards } from '../../shard/routing.js';
import { removeQuietly } from '../../store/directory.js';

type Json = Record<string, unknown>;

export type ResizeType = 'shrink' | 'clone';

/** source settings a resized index does not take over (ES MetadataCreateIndexService.copySettingsFromSource) */
const NOT_COPIED = [/^index\.number_of_shards$/, /^index\.number_of_routing_shards$/, /^index\.blocks\./, /^index\.routing\.allocation\./, /^index\.resize\./, /^index\.hidden$/];

@injectable()
export class ResizeService {
  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @inject(Tokens.SettingsRegistry) private readonly registry: SettingsRegistry,
  ) {}

  /**
   * `options.custom`: per-index state the target starts with (ILM hands its execution state over this way,
   * so the new index is never seen unmanaged).
   */
  async resize(type: ResizeType, source: string, target: string, request: CreateIndexRequest = {}, options: { custom?: Record<string, Record<string, unknown>> } = {}): Promise<IndexMetadata> {
    const md = this.store.current();
    const src = md.indices[source];
    if (!src) throw Errors.indexNotFound(source);
    if (md.indices[target]) throw Errors.resourceAlreadyExists(target, md.indices[target].uuid);
    if (src.state !== 'open') throw Errors.indexClosed(source, src.uuid);
    const blocked = src.settings['index.blocks.write'] === true || src.settings['index.blocks.read_only'] === true;
    if (!blocked) {
      throw new EsError('illegal_state_exception', 500, `index ${source} must be read-only to resize index. use "index.blocks.write=true"`);
    }
    const reqSettings = request.settings !== undefined && request.settings !== null ? this.registry.normalizeIndexSettings(request.settings) : {};
    const rawShards = reqSettings['index.number_of_shards'];
    const targetShards = rawShards === undefined ? (type === 'clone' ? src.numberOfShards : 1) : this.registry.value<number>('index.number_of_shards', { 'index.number_of_shards': this.registry.get('index.number_of_shards')!.parse(rawShards) });
    if (type === 'clone' && targetShards !== src.numberOfShards) {
      throw Errors.illegalArgument(`cannot clone index [${source}] with [${src.numberOfShards}] shards to an index with [${targetShards}] shards; both must have the same number of shards`);
    }
    if (type === 'shrink') {
      if (targetShards > src.numberOfShards) {
        throw Errors.illegalArgument(`the number of target shards [${targetShards}] must be less that the number of source shards [${src.numberOfShards}]`);
      }
      if (src.numberOfShards % targetShards !== 0) {
        throw Errors.illegalArgument(`the number of source shards [${src.numberOfShards}] must be a multiple of [${targetShards}]`);
      }
    }
    const settings: Json = {};
    for (const [k, v] of Object.entries(src.settings)) if (!NOT_COPIED.some((re) => re.test(k))) settings[k] = v;
    Object.assign(settings, reqSettings, { 'index.number_of_shards': targetShards });
    if (targetShards > 1) settings['index.number_of_routing_shards'] = routingNumShards(src);
    const factor = src.numberOfShards / targetShards;
    const refs: IndexCommitRef[] = [];
    try {
      // the point-in-time of every source shard, held while the target is built
      for (let i = 0; i < src.numberOfShards; i++) refs.push(this.indices.acquireIndexCommit(source, i));
      return await this.mis.createIndex(
        target,
        { settings, mappings: src.mappings, aliases: request.aliases },
        `${type}_index`,
        {
          skipTemplates: true,
          custom: options.custom,
          privateSettings: { 'index.resize.source.name': source, 'index.resize.source.uuid': src.uuid },
          primaryTerms: Array.from({ length: targetShards }, (_, t) => Math.max(...src.primaryTerms.slice(t * factor, (t + 1) * factor))),
          populate: (uuid) => {
            try {
              for (let t = 0; t < targetShards; t++) writeShardFromCommits(this.indices.shardPath(uuid, t), refs.slice(t * factor, (t + 1) * factor));
            } catch (e) {
              for (let t = 0; t < targetShards; t++) removeQuietly(this.indices.shardPath(uuid, t));
              throw e;
            }
          },
        },
      );
    } finally {
      for (const r of refs) r.release();
    }
  }
}
