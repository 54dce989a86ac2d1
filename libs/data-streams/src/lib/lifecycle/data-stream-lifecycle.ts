/**
 * The data stream lifecycle (ES DataStreamLifecycleService): every `data_streams.lifecycle.poll_interval` of
 * the injected clock, each stream with an enabled lifecycle (and not left to ILM) rolls its write index over
 * on the default conditions, and deletes the backing indices older than `data_retention` (counted from the
 * time they stopped being the write index). Also `GET /{index}/_lifecycle/explain`.
 */
import { inject, injectable, optional } from 'inversify';
import { RestResponses, Tokens, formatTimeValue, indicesOptionsFromParams, parseTimeValue, route, type Clock, type LifecycleComponent, type Logger, type RestHandler, type RestRequest, type RestResponse } from '@strata/core-common';
import { EngineTokens, type ClusterMetadata, type IndexMetadata, type IndexNameExpressionResolver, type MetadataIndexService, type MetadataStore } from '@strata/core-engine';
import { DataStreamActions } from '../actions.js';
import { isObj, type Json } from '../util.js';
import { PeriodicRunner } from './periodic-runner.js';
import { DSL_POLL_INTERVAL, LIFECYCLE_NAME, PREFER_ILM } from '../data-streams.settings.js';
import { dataStreams, parentDataStream, writeIndexOf, type DataStreamMetadata } from '../streams/data-stream-metadata.js';
import { renderLifecycle } from '../streams/data-stream-service.js';
import { RolloverService, type RolloverCondition } from '../rollover/rollover-service.js';

const DEFAULT_POLL_MS = 300_000;
const DAY = 86_400_000;
const GB = 1024 ** 3;

/** ES `cluster.lifecycle.default.rollover` with max_age=auto: the age follows the retention */
export function defaultRolloverConditions(retentionMs: number | undefined): RolloverCondition[] {
  let maxAge = 30 * DAY;
  let raw = '30d';
  if (retentionMs !== undefined) {
    if (retentionMs < DAY) [maxAge, raw] = [3_600_000, '1h'];
    else if (retentionMs < 14 * DAY) [maxAge, raw] = [DAY, '1d'];
    else if (retentionMs < 90 * DAY) [maxAge, raw] = [7 * DAY, '7d'];
  }
  return [
    { name: 'max_age', raw, value: maxAge },
    { name: 'max_primary_shard_size', raw: '50gb', value: 50 * GB },
    { name: 'max_primary_shard_docs', raw: '200000000', value: 200_000_000 },
    { name: 'min_docs', raw: '1', value: 1 },
  ];
}

/** whether an index's lifecycle is the stream's (not ILM's) */
function managedByLifecycle(ds: DataStreamMetadata, im: IndexMetadata): boolean {
  if (!ds.lifecycle || ds.lifecycle.enabled === false) return false;
  const policy = im.settings[LIFECYCLE_NAME];
  if (typeof policy === 'string' && policy !== '' && im.settings[PREFER_ILM] !== false) return false;
  return true;
}

function retentionOf(ds: DataStreamMetadata): number | undefined {
  return ds.lifecycle?.data_retention !== undefined ? parseTimeValue(ds.lifecycle.data_retention, 'data_retention') : undefined;
}

/** when an index stopped being the write index of its stream (ES generation time) */
function rolloverTime(im: IndexMetadata, stream: string): number | undefined {
  const info = isObj(im.custom?.['rollover_info']) ? ((im.custom!['rollover_info'] as Json)[stream] as Json | undefined) : undefined;
  return info && typeof info['time'] === 'number' ? (info['time'] as number) : undefined;
}

@injectable()
export class DataStreamLifecycleRunner extends PeriodicRunner implements LifecycleComponent {
  readonly name = 'data-stream-lifecycle';

  constructor(
    @inject(EngineTokens.MetadataStore) store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(RolloverService) private readonly rollovers: RolloverService,
    @inject(Tokens.Clock) clock: Clock,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    super(store, clock, DSL_POLL_INTERVAL, DEFAULT_POLL_MS);
  }

  protected async pass(): Promise<void> {
    for (const ds of Object.values(dataStreams(this.store.current()))) {
      try {
        await this.runStream(ds.name);
      } catch (e) {
        this.logger?.warn({ data_stream: ds.name, err: String(e) }, 'data stream lifecycle failed');
      }
    }
  }

  private async runStream(name: string): Promise<void> {
    let md = this.store.current();
    let ds = dataStreams(md)[name];
    if (!ds || !ds.lifecycle || ds.lifecycle.enabled === false) return;
    const retention = retentionOf(ds);
    const write = md.indices[writeIndexOf(ds)];
    if (write && managedByLifecycle(ds, write)) {
      const ev = this.rollovers.evaluate(write, defaultRolloverConditions(retention));
      if (ev.met) await this.rollovers.rollover({ target: name, conditions: defaultRolloverConditions(retention) });
    }
    if (retention === undefined) return;
    md = this.store.current();
    ds = dataStreams(md)[name];
    if (!ds) return;
    const now = this.clock.now();
    const expired = ds.indices
      .slice(0, -1)
      .map((b) => md.indices[b.index_name])
      .filter((im): im is IndexMetadata => im !== undefined && managedByLifecycle(ds!, im))
      .filter((im) => now - (rolloverTime(im, name) ?? im.creationDate) >= retention)
      .map((im) => im.name);
    if (expired.length) await this.mis.deleteIndices(expired);
  }

  explain(im: IndexMetadata, md: ClusterMetadata, human: boolean): Json {
    const ds = parentDataStream(md, im.name);
    if (!ds || !managedByLifecycle(ds, im)) return { index: im.name, managed_by_lifecycle: false };
    const now = this.clock.now();
    const o: Json = { index: im.name, managed_by_lifecycle: true };
    if (human) o['index_creation_date'] = new Date(im.creationDate).toISOString();
    o['index_creation_date_millis'] = im.creationDate;
    o['time_since_index_creation'] = formatTimeValue(now - im.creationDate);
    const rolled = rolloverTime(im, ds.name);
    if (rolled !== undefined) {
      if (human) o['rollover_date'] = new Date(rolled).toISOString();
      o['rollover_date_millis'] = rolled;
      o['time_since_rollover'] = formatTimeValue(now - rolled);
    }
    o['lifecycle'] = renderLifecycle(ds.lifecycle!);
    if (writeIndexOf(ds) !== im.name) o['generation_time'] = formatTimeValue(now - (rolled ?? im.creationDate));
    return o;
  }
}

@injectable()
export class ExplainDataLifecycleRestHandler implements RestHandler {
  readonly name = 'explain_data_lifecycle_action';
  readonly routes = [route('GET', '/{index}/_lifecycle/explain', DataStreamActions.LIFECYCLE_EXPLAIN)];
  readonly params = ['include_defaults', 'human', 'master_timeout', 'expand_wildcards', 'ignore_unavailable', 'allow_no_indices'];

  constructor(
    @inject(DataStreamLifecycleRunner) private readonly runner: DataStreamLifecycleRunner,
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.IndexNameExpressionResolver) private readonly resolver: IndexNameExpressionResolver,
  ) {}

  handle(req: RestRequest): RestResponse {
    const md = this.store.current();
    const opts = indicesOptionsFromParams((n) => req.param(n), { ignoreUnavailable: false, allowNoIndices: true, expandWildcards: { open: true, closed: true, hidden: false } });
    const out: Json = {};
    for (const n of this.resolver.concreteIndices(req.pathParam('index'), opts, 'read').sort()) {
      const im = md.indices[n];
      if (im) out[n] = this.runner.explain(im, md, req.boolParam('human', false));
    }
    return RestResponses.ok({ indices: out });
  }
}
