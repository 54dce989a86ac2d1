/**
 * The lifecycle runner: every `indices.lifecycle.poll_interval` of the injected clock it moves each managed
 * index through its policy, step by step, as Elasticsearch's IndexLifecycleRunner does. Every completed step
 * is persisted in the index's execution state before the next one starts, and every step is idempotent or
 * checks whether it already happened (a rollover that already rolled, a shrink target or a snapshot that
 * already exists, a swap already made), so a node killed in the middle of a step finishes it after restart.
 */
import { randomBytes } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { DateFormatter, EsError, Errors, Tokens, parseByteSize, parseTimeValue, type Clock, type LifecycleComponent, type Logger } from '@strata/core-common';
import {
  EngineTokens,
  ResizeService,
  SnapshotsService,
  type ClusterMetadata,
  type IndexMetadata,
  type MetadataIndexService,
  type MetadataStore,
  type StorageIndicesService,
} from '@strata/core-engine';
import { isObj, type Json } from '../util.js';
import { PeriodicRunner } from '../lifecycle/periodic-runner.js';
import { INDEXING_COMPLETE, LIFECYCLE_NAME, POLL_INTERVAL, ROLLOVER_ALIAS } from '../data-streams.settings.js';
import { dataStreams, draftDataStreams, parentDataStream, writeIndexOf } from '../streams/data-stream-metadata.js';
import { RolloverService, parseConditions } from '../rollover/rollover-service.js';
import { IlmService, executionState, policyName, type ExecutionState } from './ilm-service.js';
import { actionSteps, orderedActions, orderedPhases, type PhaseDef, type PhaseName } from './policy.js';

type StepResult = { kind: 'done'; state?: Partial<ExecutionState> } | { kind: 'wait'; info?: Json } | { kind: 'skip-action' } | { kind: 'moved' };

const DEFAULT_POLL_MS = 600_000;

function rand(n: number): string {
  return randomBytes(n).toString('base64url').replace(/[^a-z0-9]/gi, '').toLowerCase().slice(0, n) || 'x'.repeat(n);
}

function dateStamp(ms: number): string {
  return DateFormatter.of('yyyy.MM.dd').format(ms);
}

@injectable()
export class IlmRunner extends PeriodicRunner implements LifecycleComponent {
  readonly name = 'ilm-runner';

  constructor(
    @inject(EngineTokens.MetadataStore) store: MetadataStore,
    @inject(IlmService) private readonly ilm: IlmService,
    @inject(RolloverService) private readonly rollovers: RolloverService,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(EngineTokens.IndicesService) private readonly indices: StorageIndicesService,
    @inject(ResizeService) private readonly resize: ResizeService,
    @inject(SnapshotsService) private readonly snapshots: SnapshotsService,
    @inject(Tokens.Clock) clock: Clock,
    @inject(Tokens.Logger) @optional() private readonly logger?: Logger,
  ) {
    super(store, clock, POLL_INTERVAL, DEFAULT_POLL_MS);
  }

  protected async pass(): Promise<void> {
    const mode = this.ilm.operationMode();
    if (mode === 'STOPPING') await this.ilm.setOperationMode('STOPPED');
    if (mode !== 'RUNNING') return;
    // indices a step created (a rollover's new write index, a shrunk or mounted replacement) are visited in
    // the same pass, as ES reacts to the cluster state change they make
    const visited = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const names = Object.values(this.store.current().indices)
        .filter((im) => policyName(im) !== undefined && !visited.has(im.name))
        .map((im) => im.name)
        .sort();
      if (names.length === 0) return;
      for (const n of names) {
        if (this.stopped) return;
        visited.add(n);
        try {
          await this.runIndex(n);
        } catch (e) {
          this.logger?.warn({ index: n, err: String(e) }, 'lifecycle step failed');
        }
      }
    }
  }

  // ------------------------------------------------------------------ state machine

  private initialState(im: IndexMetadata): ExecutionState {
    const now = this.clock.now();
    return { phase: 'new', action: 'complete', step: 'complete', phase_time: now, action_time: now, step_time: now, index_creation_date: im.creationDate };
  }

  private phaseDef(state: ExecutionState): PhaseDef | undefined {
    return this.ilm.phaseExecution(state)?.phase_definition;
  }

  /** the step that follows, after a step finished (next step, next action, or the phase's end) */
  private advance(state: ExecutionState, im: IndexMetadata, skipAction = false): ExecutionState {
    const now = this.clock.now();
    const def = this.phaseDef(state);
    const phase = state.phase as PhaseName;
    if (!def) return { ...state, action: 'complete', step: 'complete', action_time: now, step_time: now };
    const actions = orderedActions(phase, def);
    const ds = parentDataStream(this.store.current(), im.name) !== undefined;
    if (state.action !== 'init' && state.action !== 'complete' && !skipAction) {
      const steps = actionSteps(state.action, def.actions[state.action] ?? {}, ds);
      const i = steps.indexOf(state.step);
      if (i >= 0 && i + 1 < steps.length) return { ...state, step: steps[i + 1], step_time: now };
    }
    const ai = state.action === 'init' ? -1 : actions.indexOf(state.action);
    const nextAction = actions[ai + 1];
    if (nextAction === undefined) return { ...state, action: 'complete', step: 'complete', action_time: now, step_time: now };
    return { ...state, action: nextAction, step: actionSteps(nextAction, def.actions[nextAction], ds)[0], action_time: now, step_time: now };
  }

  async runIndex(name: string): Promise<void> {
    for (let guard = 0; guard < 64; guard++) {
      const md = this.store.current();
      const im = md.indices[name];
      if (!im || im.state !== 'open') return;
      const policy = policyName(im);
      if (!policy) return;
      let state = executionState(im);
      const stored = this.ilm.policies(md)[policy];
      if (!stored) {
        if (state?.step !== 'ERROR') {
          const err = this.errorState(state ?? this.initialState(im), Errors.illegalArgument(`policy [${policy}] does not exist`));
          await this.ilm.writeState(name, { ...err, is_auto_retryable_error: true });
        }
        return;
      }
      // a step that failed only because the policy was missing resumes once the policy exists
      if (state?.step === 'ERROR' && state.is_auto_retryable_error && state.failed_step) {
        const resumed: ExecutionState = { ...state, step: state.failed_step, step_time: this.clock.now(), failed_step_retry_count: (state.failed_step_retry_count ?? 0) + 1 };
        delete resumed.failed_step;
        delete resumed.step_info;
        delete resumed.is_auto_retryable_error;
        await this.ilm.writeState(name, resumed);
        continue;
      }
      if (!state) {
        state = this.initialState(im);
        await this.ilm.writeState(name, state);
        continue;
      }
      if (state.step === 'ERROR') return;
      if (state.action === 'complete' && state.step === 'complete') {
        const phases = orderedPhases(stored.policy);
        const next = state.phase === 'new' ? phases[0] : phases[phases.indexOf(state.phase as PhaseName) + 1];
        if (next === undefined) return;
        const def = stored.policy.phases[next]!;
        const age = this.clock.now() - this.ilm.lifecycleDate(im, state);
        if (age < parseTimeValue(def.min_age, 'min_age')) return;
        const now = this.clock.now();
        const entered: ExecutionState = { ...state, phase: next, action: 'init', step: 'init', phase_time: now, action_time: now, step_time: now, phase_definition: this.ilm.stampPhase(policy, stored, next) };
        delete entered.step_info;
        await this.ilm.writeState(name, this.advance(entered, im));
        continue;
      }
      if (state.action === 'init') {
        await this.ilm.writeState(name, this.advance(state, im));
        continue;
      }
      const def = this.phaseDef(state);
      const body = def?.actions[state.action] ?? {};
      let result: StepResult;
      try {
        result = await this.execute(im, policy, state, body);
      } catch (e) {
        await this.ilm.writeState(name, this.errorState(state, e));
        return;
      }
      if (result.kind === 'moved') return;
      if (result.kind === 'wait') {
        const cur = executionState(this.store.current().indices[name] ?? im) ?? state;
        if (JSON.stringify(cur.step_info) !== JSON.stringify(result.info)) {
          const next = { ...cur };
          if (result.info) next.step_info = result.info;
          else delete next.step_info;
          await this.ilm.writeState(name, next);
        }
        return;
      }
      const after: ExecutionState = { ...state, ...(result.kind === 'done' ? (result.state ?? {}) : {}) };
      delete after.step_info;
      await this.ilm.writeState(name, this.advance(after, im, result.kind === 'skip-action'));
    }
  }

  private errorState(state: ExecutionState, e: unknown): ExecutionState {
    const err = e instanceof EsError ? e : new EsError('exception', 500, e instanceof Error ? e.message : String(e));
    const now = this.clock.now();
    return {
      ...state,
      failed_step: state.step,
      step: 'ERROR',
      step_time: now,
      step_info: { type: err.type, reason: err.reason },
      is_auto_retryable_error: false,
    };
  }

  // ------------------------------------------------------------------ steps

  /** the rollover target of an index: its data stream, or `index.lifecycle.rollover_alias` */
  private rolloverTarget(md: ClusterMetadata, im: IndexMetadata): { target: string; stream: boolean } {
    const ds = parentDataStream(md, im.name);
    if (ds) return { target: ds.name, stream: true };
    const alias = im.settings[ROLLOVER_ALIAS];
    if (typeof alias !== 'string' || alias === '') {
      throw Errors.illegalArgument(`setting [${ROLLOVER_ALIAS}] for index [${im.name}] is empty or not defined`);
    }
    if (!im.aliases[alias]) throw Errors.illegalArgument(`${ROLLOVER_ALIAS} [${alias}] does not point to index [${im.name}]`);
    return { target: alias, stream: false };
  }

  /** true when the index is no longer the one writes go to (it rolled over already, or was rolled over by hand) */
  private rolledOver(md: ClusterMetadata, im: IndexMetadata, target: string, stream: boolean): boolean {
    if (isObj(im.custom?.['rollover_info']) && isObj((im.custom!['rollover_info'] as Json)[target])) return true;
    if (stream) {
      const ds = dataStreams(md)[target];
      return ds !== undefined && writeIndexOf(ds) !== im.name;
    }
    return false;
  }

  /** ES CheckNotDataStreamWriteIndexStep: a stream's write index waits until it is rolled over */
  private waitWhileWriteIndex(md: ClusterMetadata, index: string, policy: string): StepResult | undefined {
    const ds = parentDataStream(md, index);
    if (!ds || writeIndexOf(ds) !== index) return undefined;
    return {
      kind: 'wait',
      info: {
        message: `index [${index}] is the write index for data stream [${ds.name}], pausing ILM execution of lifecycle [${policy}] until this index is no longer the write index for the data stream via manual or automated rollover`,
      },
    };
  }

  private async execute(im: IndexMetadata, policy: string, state: ExecutionState, body: Json): Promise<StepResult> {
    const md = this.store.current();
    const name = im.name;
    switch (state.step) {
      // rollover
      case 'check-rollover-ready': {
        if (im.settings[INDEXING_COMPLETE] === true) return { kind: 'done' };
        const { target, stream } = this.rolloverTarget(md, im);
        if (this.rolledOver(md, im, target, stream)) return { kind: 'done' };
        if (!stream && im.aliases[target].is_write_index === false) throw Errors.illegalArgument(`index [${name}] is not the write index for alias [${target}]`);
        return this.rollovers.evaluate(im, parseConditions(body, 'rollover')).met ? { kind: 'done' } : { kind: 'wait' };
      }
      case 'attempt-rollover': {
        if (im.settings[INDEXING_COMPLETE] === true) return { kind: 'done' };
        const { target, stream } = this.rolloverTarget(md, im);
        if (this.rolledOver(md, im, target, stream)) return { kind: 'done' };
        await this.rollovers.rollover({ target });
        return { kind: 'done' };
      }
      case 'wait-for-active-shards':
        return { kind: 'done' };
      case 'update-rollover-lifecycle-date': {
        if (im.settings[INDEXING_COMPLETE] === true && !isObj(im.custom?.['rollover_info'])) return { kind: 'done' };
        const { target } = this.rolloverTarget(md, im);
        const info = isObj(im.custom?.['rollover_info']) ? ((im.custom!['rollover_info'] as Json)[target] as Json | undefined) : undefined;
        if (!info || typeof info['time'] !== 'number') {
          throw Errors.illegalState(`no rollover info found for [${name}] with rollover target [${target}], the index has not yet rolled over with that target`);
        }
        return { kind: 'done', state: { lifecycle_date: info['time'] } };
      }
      case 'set-indexing-complete':
        if (im.settings[INDEXING_COMPLETE] !== true) await this.mis.updateSettings([name], { [INDEXING_COMPLETE]: true });
        return { kind: 'done' };

      // guards and settings
      case 'check-not-write-index':
        return this.waitWhileWriteIndex(md, name, policy) ?? { kind: 'done' };
      case 'readonly':
        if (im.settings['index.blocks.write'] !== true) await this.mis.updateSettings([name], { 'index.blocks.write': true });
        return { kind: 'done' };
      case 'set_priority':
        await this.mis.updateSettings([name], { 'index.priority': body['priority'] ?? null });
        return { kind: 'done' };

      // forcemerge
      case 'forcemerge': {
        const max = state.action === 'searchable_snapshot' ? 1 : Number(body['max_num_segments'] ?? 1);
        await this.indices.forceMerge(name, max);
        this.indices.flushIndex(name);
        return { kind: 'done' };
      }
      case 'segment-count': {
        const max = state.action === 'searchable_snapshot' ? 1 : Number(body['max_num_segments'] ?? 1);
        // ES SegmentCountStep: reports, never blocks (a merge may leave more segments than asked)
        const over = this.indices.shards(name).filter((s) => s.stats().segmentsCount > max).length;
        if (over > 0) this.logger?.info({ index: name, shards: over, max }, 'force merge left more segments than requested');
        return { kind: 'done' };
      }

      // shrink
      case 'branch-check-prerequisites': {
        const shards = this.shrinkTargetShards(im, body);
        return im.numberOfShards <= shards ? { kind: 'skip-action' } : { kind: 'done' };
      }
      case 'check-shrink-allowed': {
        const shards = this.shrinkTargetShards(im, body);
        if (im.numberOfShards % shards !== 0) {
          throw Errors.illegalArgument(`the number of source shards [${im.numberOfShards}] must be a multiple of [${shards}]`);
        }
        return { kind: 'done' };
      }
      case 'generate-shrink-index-name':
        return { kind: 'done', state: { shrink_index_name: state.shrink_index_name ?? `shrink-${rand(4)}-${name}` } };
      case 'shrink': {
        const target = state.shrink_index_name!;
        const existing = md.indices[target];
        if (existing) {
          if (existing.settings['index.resize.source.uuid'] !== im.uuid) throw Errors.illegalState(`shrink index [${target}] already exists and was not shrunk from [${name}]`);
          return { kind: 'done' };
        }
        const settings: Json = {
          'index.number_of_shards': this.shrinkTargetShards(im, body),
          'index.number_of_replicas': im.numberOfReplicas,
          [LIFECYCLE_NAME]: policy,
        };
        if (body['allow_write_after_shrink'] !== true) settings['index.blocks.write'] = true;
        // the target starts with the source's execution state, at the step that skips the shrink on it
        const handed = this.handover(state, 'branch-check-prerequisites');
        await this.resize.resize('shrink', name, target, { settings }, { custom: { ilm: handed as unknown as Json } });
        return { kind: 'done' };
      }
      case 'copy-execution-state':
      case 'copy-settings':
        return { kind: 'done' };
      case 'aliases':
      case 'swap-aliases':
      case 'replace-datastream-backing-index': {
        const target = state.action === 'shrink' ? state.shrink_index_name! : this.mountedName(name, state);
        if (!md.indices[target]) throw Errors.illegalState(`target index [${target}] of [${name}] does not exist`);
        await this.replaceIndex(name, target);
        return { kind: 'moved' };
      }

      // searchable snapshot
      case 'branch-check-skip-action': {
        const repo = String(body['snapshot_repository'] ?? '');
        const mounted = im.settings['index.store.type'] === 'snapshot' && im.settings['index.store.snapshot.repository_name'] === repo;
        const partial = im.settings['index.store.snapshot.partial'] === true;
        return mounted && partial === (state.phase === 'frozen') ? { kind: 'skip-action' } : { kind: 'done' };
      }
      case 'generate-snapshot-name':
        return {
          kind: 'done',
          state: {
            snapshot_name: state.snapshot_name ?? `${dateStamp(this.clock.now())}-${name}-${policy}-${rand(8)}`.toLowerCase(),
            snapshot_repository: String(body['snapshot_repository']),
            snapshot_index_name: this.mountedName(name, state),
          },
        };
      case 'cleanup-snapshot': {
        const repo = state.snapshot_repository!;
        if (this.snapshots.getSnapshots(repo, state.snapshot_name!, true).length) await this.snapshots.deleteSnapshots(repo, state.snapshot_name!);
        return { kind: 'done' };
      }
      case 'create-snapshot': {
        const repo = state.snapshot_repository!;
        const snap = state.snapshot_name!;
        const existing = this.snapshots.getSnapshots(repo, snap, true)[0];
        if (existing?.state === 'SUCCESS') return { kind: 'done' };
        if (existing && existing.state !== 'IN_PROGRESS') await this.snapshots.deleteSnapshots(repo, snap);
        const { done } = await this.snapshots.createSnapshot(repo, snap, { indices: [name], includeGlobalState: false });
        const info = await done;
        if (info.state !== 'SUCCESS') throw Errors.illegalState(`snapshot [${snap}] of index [${name}] finished in state [${info.state}]`);
        return { kind: 'done' };
      }
      case 'mount-snapshot': {
        const target = this.mountedName(name, state);
        if (md.indices[target]) return { kind: 'done' };
        const handed = this.handover(state, 'branch-check-skip-action');
        await this.snapshots.mount(state.snapshot_repository!, state.snapshot_name!, {
          index: name,
          renamedIndex: target,
          storage: state.phase === 'frozen' ? 'shared_cache' : 'full_copy',
          indexSettings: { [LIFECYCLE_NAME]: policy },
          custom: { ilm: handed as unknown as Json },
        });
        return { kind: 'done' };
      }

      // delete
      case 'delete': {
        const waiting = this.waitWhileWriteIndex(md, name, policy);
        if (waiting) return waiting;
        const repo = im.settings['index.store.snapshot.repository_name'];
        const snap = im.settings['index.store.snapshot.snapshot_name'];
        await this.mis.deleteIndices([name]);
        if (body['delete_searchable_snapshot'] !== false && typeof repo === 'string' && typeof snap === 'string') {
          const stillUsed = Object.values(this.store.current().indices).some((x) => x.settings['index.store.snapshot.snapshot_name'] === snap && x.settings['index.store.snapshot.repository_name'] === repo);
          if (!stillUsed) {
            try {
              await this.snapshots.deleteSnapshots(repo, snap);
            } catch (e) {
              this.logger?.warn({ snapshot: snap, err: String(e) }, 'could not delete the snapshot of a deleted searchable snapshot index');
            }
          }
        }
        return { kind: 'moved' };
      }
      case 'wait-for-snapshot':
        throw Errors.illegalArgument(`snapshot lifecycle policy [${String(body['policy'])}] does not exist`);

      // single-node no-ops: allocation, tiers, cross-cluster following, freezing
      case 'allocate':
      case 'check-allocation':
      case 'migrate':
      case 'check-migration':
      case 'wait-for-indexing-complete':
      case 'unfollow-follower-index':
      case 'freeze':
        return { kind: 'done' };
      case 'downsample':
        throw Errors.illegalArgument('the [downsample] action needs time series indices, which this service does not have');
      default:
        throw Errors.illegalState(`unknown step [${state.step}] of action [${state.action}]`);
    }
  }

  /** the number of shards a shrink makes: number_of_shards, or the fewest a factor of the source's shards allows */
  private shrinkTargetShards(im: IndexMetadata, body: Json): number {
    if (typeof body['number_of_shards'] === 'number') return body['number_of_shards'] as number;
    const max = parseByteSize(body['max_primary_shard_size'], 'max_primary_shard_size');
    const total = this.indices.indexStatsSummary(im.name).total.storeSizeInBytes;
    for (let n = 1; n <= im.numberOfShards; n++) {
      if (im.numberOfShards % n === 0 && total / n <= max) return n;
    }
    return im.numberOfShards;
  }

  /** `restored-<index>` (full copy) or `partial-<index>` (frozen), from the original name */
  private mountedName(name: string, state: ExecutionState): string {
    if (state.snapshot_index_name) return state.snapshot_index_name;
    const base = name.replace(/^(restored-|partial-)/, '');
    return `${state.phase === 'frozen' ? 'partial-' : 'restored-'}${base}`;
  }

  /** the execution state a replacement index (shrunk, mounted) starts with */
  private handover(state: ExecutionState, step: string): ExecutionState {
    const h: ExecutionState = { ...state, step, step_time: this.clock.now() };
    delete h.shrink_index_name;
    delete h.snapshot_name;
    delete h.snapshot_repository;
    delete h.snapshot_index_name;
    delete h.step_info;
    return h;
  }

  /**
   * The replacement takes the source's place in one atomic metadata update that also deletes the source:
   * the same position among a data stream's backing indices, or the source's aliases.
   */
  private async replaceIndex(source: string, target: string): Promise<void> {
    const md = this.store.current();
    if (!md.indices[source]) return;
    await this.mis.deleteIndices([source], {
      apply: (d) => {
        const t = d.indices[target];
        if (!t) throw Errors.illegalState(`replacement index [${target}] disappeared`);
        for (const ds of Object.values(draftDataStreams(d))) {
          const i = ds.indices.findIndex((b) => b.index_name === source);
          if (i >= 0) ds.indices[i] = { index_name: t.name, index_uuid: t.uuid };
        }
        const src = md.indices[source];
        if (Object.keys(src.aliases).length) {
          t.aliases = { ...src.aliases, ...t.aliases };
          t.aliasesVersion += 1;
        }
      },
    });
  }
}

