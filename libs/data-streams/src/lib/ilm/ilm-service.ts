/**
 * Index lifecycle management state: policies and the operation mode in cluster metadata (`custom.ilm`),
 * each managed index's execution state in its own metadata (`IndexMetadata.custom.ilm`, like ES's
 * LifecycleExecutionState), and the explain / retry / remove / move operations on it.
 */
import { inject, injectable } from 'inversify';
import { EsError, Errors, Tokens, formatTimeValue, type Clock } from '@strata/core-common';
import { EngineTokens, simpleMatch, type ClusterMetadata, type IndexMetadata, type MetadataIndexService, type MetadataStore } from '@strata/core-engine';
import { isObj, type Json } from '../util.js';
import { LIFECYCLE_NAME, ORIGINATION_DATE } from '../data-streams.settings.js';
import { dataStreams } from '../streams/data-stream-metadata.js';
import { parsePolicy, type PhaseDef, type PolicyDef, type StoredPolicy } from './policy.js';

export const ILM_SECTION = 'ilm';
export type OperationMode = 'RUNNING' | 'STOPPING' | 'STOPPED';

/** ES LifecycleExecutionState, as kept in IndexMetadata.custom.ilm */
export interface ExecutionState {
  phase: string;
  action: string;
  step: string;
  phase_time: number;
  action_time: number;
  step_time: number;
  index_creation_date: number;
  /** JSON: { policy, phase_definition, version, modified_date_in_millis } */
  phase_definition?: string;
  failed_step?: string;
  step_info?: Json;
  is_auto_retryable_error?: boolean;
  failed_step_retry_count?: number;
  /** the date phases count from: creation, or the rollover time once the index rolled over */
  lifecycle_date?: number;
  shrink_index_name?: string;
  snapshot_name?: string;
  snapshot_repository?: string;
  snapshot_index_name?: string;
}

export interface PhaseExecution {
  policy: string;
  phase_definition: PhaseDef;
  version: number;
  modified_date_in_millis: number;
}

interface IlmSection {
  policies?: Record<string, StoredPolicy>;
  operation_mode?: OperationMode;
}

export function ilmSection(md: ClusterMetadata): IlmSection {
  const s = md.custom[ILM_SECTION];
  return isObj(s) ? (s as IlmSection) : {};
}

function draftSection(d: ClusterMetadata): IlmSection {
  if (!isObj(d.custom[ILM_SECTION])) d.custom[ILM_SECTION] = {};
  return d.custom[ILM_SECTION] as IlmSection;
}

export function executionState(im: IndexMetadata): ExecutionState | undefined {
  const s = im.custom?.['ilm'];
  return s ? (s as unknown as ExecutionState) : undefined;
}

export function policyName(im: IndexMetadata): string | undefined {
  const p = im.settings[LIFECYCLE_NAME];
  return typeof p === 'string' && p !== '' ? p : undefined;
}

export function policyNotFound(name: string): EsError {
  return Errors.resourceNotFound(`Lifecycle policy not found: ${name}`);
}

@injectable()
export class IlmService {
  constructor(
    @inject(EngineTokens.MetadataStore) private readonly store: MetadataStore,
    @inject(EngineTokens.MetadataIndexService) private readonly mis: MetadataIndexService,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  // ------------------------------------------------------------------ policies

  policies(md: ClusterMetadata = this.store.current()): Record<string, StoredPolicy> {
    return ilmSection(md).policies ?? {};
  }

  async putPolicy(name: string, raw: unknown): Promise<void> {
    const policy = parsePolicy(raw);
    await this.store.update((d) => {
      const sec = draftSection(d);
      const policies = (sec.policies ??= {});
      const prev = policies[name];
      if (prev && JSON.stringify(prev.policy) === JSON.stringify(policy)) return;
      policies[name] = { policy, version: (prev?.version ?? 0) + 1, modified_date: this.clock.now() };
    });
  }

  /** ES GET _ilm/policy: a comma list of names, or one wildcard; every concrete name must exist */
  getPolicies(expr: string | undefined): Array<[string, StoredPolicy]> {
    const all = this.policies();
    const names = Object.keys(all).sort();
    if (expr === undefined || expr === '' || expr === '_all' || expr === '*') return names.map((n) => [n, all[n]]);
    const parts = expr.split(',').map((s) => s.trim()).filter(Boolean);
    if (parts.length > 1 && parts.some((p) => p.includes('*'))) {
      throw Errors.illegalArgument('wildcard only supports a single value, please use comma-separated values or a single wildcard value');
    }
    if (parts.length === 1 && parts[0].includes('*')) return names.filter((n) => simpleMatch(parts[0], n)).map((n) => [n, all[n]]);
    const missing = parts.filter((p) => !all[p]);
    if (missing.length) throw policyNotFound(missing.join(','));
    return parts.map((p) => [p, all[p]]);
  }

  /** indices, data streams and composable templates that use a policy (ES in_use_by) */
  inUseBy(name: string, md: ClusterMetadata = this.store.current()): Json {
    const indices = Object.values(md.indices)
      .filter((im) => policyName(im) === name)
      .map((im) => im.name)
      .sort();
    const streams = Object.values(dataStreams(md))
      .filter((ds) => ds.indices.some((b) => indices.includes(b.index_name)))
      .map((ds) => ds.name)
      .sort();
    const templates: string[] = [];
    const sec = md.custom['index_template'];
    if (isObj(sec)) {
      const comps = isObj(md.custom['component_template']) ? (md.custom['component_template'] as Record<string, Json>) : {};
      for (const [tn, t] of Object.entries(sec as Record<string, Json>)) {
        const settings: Json = {};
        for (const c of Array.isArray(t['composed_of']) ? (t['composed_of'] as string[]) : []) {
          const inner = comps[c]?.['template'];
          if (isObj(inner) && isObj(inner['settings'])) Object.assign(settings, inner['settings']);
        }
        const own = isObj(t['template']) ? (t['template'] as Json)['settings'] : undefined;
        if (isObj(own)) Object.assign(settings, own);
        if (settings[LIFECYCLE_NAME] === name) templates.push(tn);
      }
    }
    return { indices, data_streams: streams, composable_templates: templates.sort() };
  }

  async deletePolicy(name: string): Promise<void> {
    await this.store.update((d) => {
      const policies = draftSection(d).policies ?? {};
      if (!policies[name]) throw policyNotFound(name);
      const using = Object.values(d.indices)
        .filter((im) => policyName(im) === name)
        .map((im) => im.name)
        .sort();
      if (using.length) throw Errors.illegalArgument(`Cannot delete policy [${name}]. It is in use by one or more indices: [${using.join(', ')}]`);
      delete policies[name];
    });
  }

  // ------------------------------------------------------------------ operation mode

  operationMode(): OperationMode {
    return ilmSection(this.store.current()).operation_mode ?? 'RUNNING';
  }

  async setOperationMode(mode: OperationMode): Promise<void> {
    await this.store.update((d) => {
      const sec = draftSection(d);
      if ((sec.operation_mode ?? 'RUNNING') === mode) return;
      if (mode === 'STOPPING' && sec.operation_mode === 'STOPPED') return;
      sec.operation_mode = mode;
    });
  }

  // ------------------------------------------------------------------ execution state

  /** the phase definition cached in the state (in-flight phases keep the definition they started with) */
  phaseExecution(state: ExecutionState): PhaseExecution | undefined {
    if (!state.phase_definition) return undefined;
    try {
      return JSON.parse(state.phase_definition) as PhaseExecution;
    } catch {
      return undefined;
    }
  }

  /** stamps a phase definition of a policy for the state */
  stampPhase(policy: string, stored: StoredPolicy, phase: string): string {
    const def: PhaseDef = (stored.policy.phases as Record<string, PhaseDef>)[phase] ?? { min_age: '0ms', actions: {} };
    return JSON.stringify({ policy, phase_definition: def, version: stored.version, modified_date_in_millis: stored.modified_date });
  }

  /** writes an index's execution state (and optional setting changes) in one metadata update */
  async writeState(index: string, state: ExecutionState | undefined): Promise<void> {
    await this.store.update((d) => {
      const im = d.indices[index];
      if (!im) return;
      im.custom = { ...(im.custom ?? {}) };
      if (state) im.custom['ilm'] = state as unknown as Json;
      else delete im.custom['ilm'];
    });
  }

  lifecycleDate(im: IndexMetadata, state: ExecutionState | undefined): number {
    const orig = im.settings[ORIGINATION_DATE];
    if (typeof orig === 'number' && orig >= 0) return orig;
    return state?.lifecycle_date ?? im.creationDate;
  }

  // ------------------------------------------------------------------ explain / retry / remove

  explain(im: IndexMetadata, human: boolean): Json {
    const policy = policyName(im);
    if (!policy) return { index: im.name, managed: false };
    const state = executionState(im);
    const now = this.clock.now();
    const o: Json = { index: im.name, managed: true, policy };
    const time = (key: string, ms: number | undefined) => {
      if (ms === undefined) return;
      if (human) o[key] = new Date(ms).toISOString();
      o[`${key}_millis`] = ms;
    };
    const created = state?.index_creation_date ?? im.creationDate;
    time('index_creation_date', created);
    o['time_since_index_creation'] = formatTimeValue(now - created);
    if (state) {
      const ld = this.lifecycleDate(im, state);
      time('lifecycle_date', ld);
      o['age'] = formatTimeValue(now - ld);
      o['phase'] = state.phase;
      time('phase_time', state.phase_time);
      o['action'] = state.action;
      time('action_time', state.action_time);
      o['step'] = state.step;
      time('step_time', state.step_time);
      if (state.failed_step) o['failed_step'] = state.failed_step;
      if (state.is_auto_retryable_error !== undefined) o['is_auto_retryable_error'] = state.is_auto_retryable_error;
      if (state.failed_step_retry_count !== undefined) o['failed_step_retry_count'] = state.failed_step_retry_count;
      if (state.shrink_index_name) o['shrink_index_name'] = state.shrink_index_name;
      if (state.snapshot_repository) o['repository_name'] = state.snapshot_repository;
      if (state.snapshot_name) o['snapshot_name'] = state.snapshot_name;
      if (state.step_info) o['step_info'] = state.step_info;
      const pe = this.phaseExecution(state);
      if (pe) o['phase_execution'] = pe;
    }
    o['skip'] = false;
    return o;
  }

  /** ES retry: an index in the ERROR step goes back to the step that failed */
  async retry(indices: string[]): Promise<void> {
    await this.store.update((d) => {
      for (const n of indices) {
        const im = d.indices[n];
        if (!im) throw Errors.indexNotFound(n);
        const state = executionState(im);
        if (!state || state.step !== 'ERROR' || !state.failed_step) {
          throw Errors.illegalArgument(`cannot retry an action for an index [${n}] that has not encountered an error when running a Lifecycle Policy`);
        }
        const now = this.clock.now();
        const next: ExecutionState = { ...state, step: state.failed_step, step_time: now, failed_step_retry_count: (state.failed_step_retry_count ?? 0) + 1 };
        delete next.failed_step;
        delete next.step_info;
        delete next.is_auto_retryable_error;
        im.custom = { ...(im.custom ?? {}), ilm: next as unknown as Json };
      }
    });
  }

  /** ES remove policy: the setting and the execution state go */
  async removePolicy(indices: string[]): Promise<string[]> {
    const failed: string[] = [];
    const names = indices.filter((n) => this.store.current().indices[n]);
    if (names.length) await this.mis.updateSettings(names, { [LIFECYCLE_NAME]: null, 'index.lifecycle.rollover_alias': null, 'index.lifecycle.indexing_complete': null });
    await this.store.update((d) => {
      for (const n of names) {
        const im = d.indices[n];
        if (im?.custom?.['ilm']) {
          im.custom = { ...im.custom };
          delete im.custom['ilm'];
        }
      }
    });
    return failed;
  }

  /** ES move to step: from the current step (which must match) to another step of the policy */
  async moveToStep(index: string, current: { phase: string; action: string; name: string }, next: { phase: string; action?: string; name?: string }): Promise<void> {
    await this.store.update((d) => {
      const im = d.indices[index];
      if (!im) throw Errors.indexNotFound(index);
      const policy = policyName(im);
      const state = executionState(im);
      if (!policy || !state) throw Errors.illegalArgument(`index [${index}] is not associated with an Index Lifecycle Policy`);
      if (state.phase !== current.phase || state.action !== current.action || state.step !== current.name) {
        throw Errors.illegalArgument(
          `index [${index}] is not on current step [{"phase":"${current.phase}","action":"${current.action}","name":"${current.name}"}], currently: [{"phase":"${state.phase}","action":"${state.action}","name":"${state.step}"}]`,
        );
      }
      const stored = (draftSection(d).policies ?? {})[policy];
      if (!stored) throw policyNotFound(policy);
      if (next.phase !== 'new' && !(stored.policy.phases as Record<string, unknown>)[next.phase]) {
        throw Errors.illegalArgument(`step [{"phase":"${next.phase}","action":"${next.action ?? ''}","name":"${next.name ?? ''}"}] for index [${index}] with policy [${policy}] does not exist`);
      }
      const now = this.clock.now();
      const moved: ExecutionState = {
        ...state,
        phase: next.phase,
        action: next.action ?? (next.phase === 'new' ? 'complete' : 'init'),
        step: next.name ?? (next.phase === 'new' ? 'complete' : 'init'),
        phase_time: next.phase !== state.phase ? now : state.phase_time,
        action_time: now,
        step_time: now,
        phase_definition: next.phase === 'new' ? undefined : this.stampPhase(policy, stored, next.phase),
      };
      delete moved.failed_step;
      delete moved.step_info;
      im.custom = { ...(im.custom ?? {}), ilm: moved as unknown as Json };
    });
  }
}

export type { PolicyDef };
