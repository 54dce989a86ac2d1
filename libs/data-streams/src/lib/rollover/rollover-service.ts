/**
 * Rollover of a data stream (a new backing index becomes the write index) or of an alias with a write index
 * (a new index numbered after the old one takes the write alias), when the conditions are met (ES: any
 * max_* condition, and every min_* one). The new index, the stream's generation or the alias swap and the
 * old index's rollover info are one atomic metadata update.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, Tokens, parseByteSize, parseTimeValue, type Clock } from '@strata/core-common';
import { EngineTokens, type ClusterMetadata, type IndexMetadata, type MetadataIndexService, type MetadataStore, type StorageIndicesService } from '@strata/core-engine';
import { isObj, type Json } from '../util.js';
import { backingIndexName, dataStreams, draftDataStreams, writeIndexOf } from '../streams/data-stream-metadata.js';
import { DataStreamService, checkTimestampMapping } from '../streams/data-stream-service.js';

type Kind = 'age' | 'docs' | 'size';
const CONDITIONS: Record<string, Kind> = {
  max_age: 'age',
  max_docs: 'docs',
  max_size: 'size',
  max_primary_shard_size: 'size',
  max_primary_shard_docs: 'docs',
  min_age: 'age',
  min_docs: 'docs',
  min_size: 'size',
  min_primary_shard_size: 'size',
  min_primary_shard_docs: 'docs',
};

export interface RolloverCondition {
  name: string;
  /** the value as given (rendered in `[max_age: 7d]`) */
  raw: string;
  /** millis, docs or bytes */
  value: number;
}

/** Parses the `conditions` object of a rollover request or an ILM rollover action. */
export function parseConditions(raw: unknown, parser = 'conditions'): RolloverCondition[] {
  if (raw === undefined || raw === null) return [];
  if (!isObj(raw)) throw Errors.xContentParse(`[${parser}] conditions must be an object`);
  const out: RolloverCondition[] = [];
  for (const [k, v] of Object.entries(raw)) {
    const kind = CONDITIONS[k];
    if (!kind) throw Errors.xContentParse(`[${parser}] unknown field [${k}]`);
    if (v === null || v === undefined) continue;
    let value: number;
    if (kind === 'age') value = parseTimeValue(v, k);
    else if (kind === 'size') value = parseByteSize(v, k);
    else {
      value = typeof v === 'number' ? v : Number(v);
      if (!Number.isInteger(value)) throw Errors.xContentParse(`[${parser}] failed to parse field [${k}]`);
    }
    out.push({ name: k, raw: String(v), value });
  }
  const hasMax = out.some((c) => c.name.startsWith('max_'));
  if (!hasMax && out.some((c) => c.name.startsWith('min_'))) {
    throw Errors.actionRequestValidation(['at least one max_* rollover condition must be set when using min_* conditions']);
  }
  return out;
}

export interface RolloverRequest {
  target: string;
  newIndex?: string;
  conditions?: RolloverCondition[];
  settings?: unknown;
  mappings?: unknown;
  aliases?: unknown;
  dryRun?: boolean;
  lazy?: boolean;
}

export interface RolloverResult {
  acknowledged: boolean;
  shards_acknowledged: boolean;
  old_index: string;
  new_index: string;
  rolled_over: boolean;
  dry_run: boolean;
  lazy?: boolean;
  conditions: Record<string, boolean>;
}

@injectable()
export class RolloverService {
  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @inject(DataStreamService) private readonly streams: DataStreamService,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  /** the value of each condition for an index: age (ms), docs, sizes (bytes) */
  private measure(im: IndexMetadata): Record<string, number> {
    const s = this.indices.indexStatsSummary(im.name);
    return {
      age: this.clock.now() - im.creationDate,
      docs: s.total.docsCount,
      size: s.total.storeSizeInBytes,
      primary_shard_size: Math.max(0, ...s.shards.map((x) => x.storeSizeInBytes)),
      primary_shard_docs: Math.max(0, ...s.shards.map((x) => x.docsCount)),
    };
  }

  /** each condition's result (`[max_docs: 1000]` → met) and whether the rollover happens */
  evaluate(im: IndexMetadata, conditions: readonly RolloverCondition[]): { results: Record<string, boolean>; met: boolean; metConditions: Json } {
    const results: Record<string, boolean> = {};
    const metConditions: Json = {};
    if (conditions.length === 0) return { results, met: true, metConditions };
    const m = this.measure(im);
    let anyMax = false;
    let allMin = true;
    for (const c of conditions) {
      const stat = c.name.slice(4);
      const actual = m[stat];
      const ok = actual >= c.value;
      results[`[${c.name}: ${c.raw}]`] = ok;
      if (c.name.startsWith('max_')) anyMax ||= ok;
      else allMin &&= ok;
      if (ok) metConditions[c.name] = c.raw;
    }
    return { results, met: anyMax && allMin, metConditions };
  }

  async rollover(req: RolloverRequest): Promise<RolloverResult> {
    const md = this.store.current();
    if (dataStreams(md)[req.target]) return this.rolloverDataStream(req);
    return this.rolloverAlias(req);
  }

  // ------------------------------------------------------------------ data streams

  private async rolloverDataStream(req: RolloverRequest): Promise<RolloverResult> {
    if (req.settings !== undefined || req.mappings !== undefined || req.aliases !== undefined) {
      throw Errors.illegalArgument('aliases, mappings, and index settings may not be specified when rolling over a data stream');
    }
    if (req.newIndex !== undefined) throw Errors.illegalArgument('new index name may not be specified when rolling over a data stream');
    return this.streams.withLock(req.target, async () => {
      const md = this.store.current();
      const ds = dataStreams(md)[req.target];
      if (!ds) throw Errors.indexNotFound(req.target);
      const old = writeIndexOf(ds);
      const oldMeta = md.indices[old];
      const gen = ds.generation + 1;
      const now = this.clock.now();
      const next = backingIndexName(ds.name, gen, now);
      const base = { acknowledged: false, shards_acknowledged: false, old_index: old, new_index: next, rolled_over: false, dry_run: req.dryRun === true };
      if (req.lazy) {
        if (req.dryRun) return { ...base, lazy: true, conditions: {} };
        await this.store.update((d) => {
          const s = draftDataStreams(d)[ds.name];
          if (s) s.rollover_on_write = true;
        });
        return { ...base, acknowledged: true, lazy: true, conditions: {} };
      }
      const ev = oldMeta && ds.rollover_on_write !== true ? this.evaluate(oldMeta, req.conditions ?? []) : { results: {}, met: true, metConditions: {} };
      if (!ev.met || req.dryRun) return { ...base, conditions: ev.results };
      this.streams.templateFor(md, ds.name);
      await this.mis.createIndex(next, { settings: { 'index.hidden': true } }, 'rollover_data_stream', {
        templateName: ds.name,
        dataStreamBackingIndex: true,
        apply: (d, im) => {
          checkTimestampMapping(im);
          const s = draftDataStreams(d)[ds.name];
          if (!s || writeIndexOf(s) !== old) throw new EsError('illegal_state_exception', 500, `data stream [${ds.name}] changed during rollover`);
          s.indices.push({ index_name: im.name, index_uuid: im.uuid });
          s.generation = gen;
          delete s.rollover_on_write;
          recordRollover(d, old, ds.name, ev.metConditions, now);
        },
      });
      return { ...base, acknowledged: true, shards_acknowledged: true, rolled_over: true, conditions: ev.results };
    });
  }

  // ------------------------------------------------------------------ aliases

  private async rolloverAlias(req: RolloverRequest): Promise<RolloverResult> {
    const alias = req.target;
    return this.streams.withLock(`alias:${alias}`, async () => {
      const md = this.store.current();
      if (md.indices[alias]) throw Errors.illegalArgument(`rollover target is a [concrete index] but one of [alias,data_stream] was expected`);
      const members = Object.values(md.indices).filter((im) => im.aliases[alias]);
      if (members.length === 0) throw Errors.indexNotFound(alias);
      const explicit = members.filter((im) => im.aliases[alias].is_write_index === true);
      const write = explicit.length === 1 ? explicit[0] : members.length === 1 && members[0].aliases[alias].is_write_index !== false ? members[0] : undefined;
      if (!write) throw Errors.illegalArgument(`rollover target [${alias}] does not point to a write index`);
      const explicitWrite = write.aliases[alias].is_write_index === true;
      const next = req.newIndex ?? nextIndexName(write.name);
      const base = { acknowledged: false, shards_acknowledged: false, old_index: write.name, new_index: next, rolled_over: false, dry_run: req.dryRun === true };
      if (req.lazy) throw Errors.actionRequestValidation(['lazy rollover can be applied only on a data stream']);
      const ev = this.evaluate(write, req.conditions ?? []);
      if (!ev.met || req.dryRun) return { ...base, conditions: ev.results };
      if (md.indices[next]) throw Errors.resourceAlreadyExists(next, md.indices[next].uuid);
      const now = this.clock.now();
      await this.mis.createIndex(next, { settings: req.settings, mappings: req.mappings, aliases: req.aliases }, 'rollover_index', {
        apply: (d, im) => {
          const old = d.indices[write.name];
          if (!old || !old.aliases[alias]) throw new EsError('illegal_state_exception', 500, `alias [${alias}] changed during rollover`);
          const body = { ...old.aliases[alias] };
          if (explicitWrite) {
            old.aliases[alias] = { ...old.aliases[alias], is_write_index: false };
            im.aliases[alias] = { ...body, is_write_index: true };
          } else {
            delete old.aliases[alias];
            im.aliases[alias] = body;
          }
          old.aliasesVersion += 1;
          recordRollover(d, write.name, alias, ev.metConditions, now);
        },
      });
      return { ...base, acknowledged: true, shards_acknowledged: true, rolled_over: true, conditions: ev.results };
    });
  }
}

/** ES rollover_info on the old index: when, through which alias or stream, on which conditions */
function recordRollover(d: ClusterMetadata, index: string, target: string, met: Json, time: number): void {
  const im = d.indices[index];
  if (!im) return;
  im.custom = { ...(im.custom ?? {}) };
  const info = { ...((im.custom['rollover_info'] as Json | undefined) ?? {}) };
  info[target] = { met_conditions: met, time };
  im.custom['rollover_info'] = info;
}

/** `logs-000001` → `logs-000002` (ES MetadataRolloverService.generateRolloverIndexName) */
export function nextIndexName(name: string): string {
  const m = /^(.*-)(\d+)$/.exec(name);
  if (!m) throw Errors.illegalArgument(`index name [${name}] does not match pattern '^.*-\\d+$'`);
  return `${m[1]}${String(Number(m[2]) + 1).padStart(6, '0')}`;
}
