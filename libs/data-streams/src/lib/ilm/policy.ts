/**
 * Lifecycle policies (ES TimeseriesLifecycleType): parsing and validation of `PUT _ilm/policy`, the order of
 * phases and actions, and the steps each action runs as.
 */
import { Errors, parseTimeValue, type EsError } from '@strata/core-common';
import { isObj, type Json } from '../util.js';
import { parseConditions } from '../rollover/rollover-service.js';

export const PHASES = ['hot', 'warm', 'cold', 'frozen', 'delete'] as const;
export type PhaseName = (typeof PHASES)[number];

const ORDERED_ACTIONS: Record<PhaseName, readonly string[]> = {
  hot: ['set_priority', 'unfollow', 'rollover', 'readonly', 'downsample', 'shrink', 'forcemerge', 'searchable_snapshot'],
  warm: ['set_priority', 'unfollow', 'readonly', 'downsample', 'allocate', 'migrate', 'shrink', 'forcemerge'],
  cold: ['set_priority', 'unfollow', 'readonly', 'downsample', 'searchable_snapshot', 'allocate', 'migrate', 'freeze'],
  frozen: ['unfollow', 'searchable_snapshot'],
  delete: ['wait_for_snapshot', 'delete'],
};
const KNOWN_ACTIONS = new Set(Object.values(ORDERED_ACTIONS).flat());
const HOT_ACTIONS_THAT_REQUIRE_ROLLOVER = ['readonly', 'shrink', 'forcemerge', 'downsample', 'searchable_snapshot'];
const ACTIONS_CANNOT_FOLLOW_SEARCHABLE_SNAPSHOT = ['forcemerge', 'freeze', 'shrink', 'downsample'];

export interface PhaseDef {
  /** as given (`10d`), `0ms` when absent */
  min_age: string;
  actions: Record<string, Json>;
}

export interface PolicyDef {
  phases: Partial<Record<PhaseName, PhaseDef>>;
  _meta?: Json;
}

/** the stored policy: definition, version, modification time */
export interface StoredPolicy {
  policy: PolicyDef;
  version: number;
  modified_date: number;
}

function parseError(reason: string, cause?: EsError | Error): EsError {
  return Errors.xContentParse(reason, 1, 2, cause);
}

function intField(action: string, body: Json, key: string, min: number): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isInteger(n)) throw parseError(`[${action}] failed to parse field [${key}]`);
  if (n < min) throw Errors.illegalArgument(`[${key}] must be greater than or equal to ${min}`);
  return n;
}

/** an action's body with ES's defaults made explicit (as GET _ilm/policy shows it) */
function parseAction(name: string, raw: unknown, phase: string): Json {
  if (!KNOWN_ACTIONS.has(name)) throw parseError(`[${phase}] unknown field [${name}]`);
  const body = isObj(raw) ? raw : {};
  const only = (keys: string[]) => {
    for (const k of Object.keys(body)) if (!keys.includes(k)) throw parseError(`[${name}] unknown field [${k}]`);
  };
  switch (name) {
    case 'rollover': {
      const conds = parseConditions(body, name);
      if (!conds.some((c) => c.name.startsWith('max_'))) {
        throw Errors.illegalArgument('At least one max_* rollover condition must be set.');
      }
      return { ...body };
    }
    case 'forcemerge': {
      only(['max_num_segments', 'index_codec']);
      const n = intField(name, body, 'max_num_segments', 1);
      if (n === undefined) throw Errors.illegalArgument('[max_num_segments] must be a positive integer');
      const out: Json = { max_num_segments: n };
      if (body['index_codec'] !== undefined) out['index_codec'] = body['index_codec'];
      return out;
    }
    case 'shrink': {
      only(['number_of_shards', 'max_primary_shard_size', 'allow_write_after_shrink']);
      const n = intField(name, body, 'number_of_shards', 1);
      if (n === undefined && body['max_primary_shard_size'] === undefined) {
        throw Errors.illegalArgument('Either [number_of_shards] or [max_primary_shard_size] must be set');
      }
      if (n !== undefined && body['max_primary_shard_size'] !== undefined) {
        throw Errors.illegalArgument('Cannot set both [number_of_shards] and [max_primary_shard_size]');
      }
      return { ...(n !== undefined ? { number_of_shards: n } : { max_primary_shard_size: body['max_primary_shard_size'] }), allow_write_after_shrink: body['allow_write_after_shrink'] === true };
    }
    case 'searchable_snapshot': {
      only(['snapshot_repository', 'force_merge_index', 'total_shards_per_node', 'replicate_for']);
      if (typeof body['snapshot_repository'] !== 'string' || body['snapshot_repository'] === '') {
        throw Errors.illegalArgument('the snapshot repository must be specified');
      }
      return { snapshot_repository: body['snapshot_repository'], force_merge_index: body['force_merge_index'] !== false };
    }
    case 'set_priority': {
      only(['priority']);
      const p = intField(name, body, 'priority', 0);
      return { priority: p ?? null };
    }
    case 'delete':
      only(['delete_searchable_snapshot']);
      return { delete_searchable_snapshot: body['delete_searchable_snapshot'] !== false };
    case 'readonly':
    case 'unfollow':
    case 'freeze':
      only([]);
      return {};
    case 'wait_for_snapshot':
      only(['policy']);
      if (typeof body['policy'] !== 'string') throw Errors.illegalArgument('policy name must be specified');
      return { policy: body['policy'] };
    case 'migrate':
      only(['enabled']);
      return { enabled: body['enabled'] !== false };
    default:
      return { ...body };
  }
}

/** parses and validates the `policy` object of `PUT _ilm/policy/<name>` */
export function parsePolicy(raw: unknown): PolicyDef {
  if (!isObj(raw)) throw parseError('[put_lifecycle_request] policy is required');
  for (const k of Object.keys(raw)) if (k !== 'phases' && k !== '_meta' && k !== 'name') throw parseError(`[lifecycle_policy] unknown field [${k}]`);
  const phasesRaw = raw['phases'];
  if (!isObj(phasesRaw)) throw parseError('Required [phases]');
  const phases: Partial<Record<PhaseName, PhaseDef>> = {};
  for (const [pname, pbody] of Object.entries(phasesRaw)) {
    if (!(PHASES as readonly string[]).includes(pname)) throw Errors.illegalArgument(`Timeseries lifecycle does not support phase [${pname}]`);
    const pb = isObj(pbody) ? pbody : {};
    for (const k of Object.keys(pb)) if (k !== 'min_age' && k !== 'actions') throw parseError(`[phase] unknown field [${k}]`);
    let minAge = '0ms';
    if (pb['min_age'] !== undefined && pb['min_age'] !== null) {
      minAge = String(pb['min_age']);
      const ms = parseTimeValue(minAge, 'min_age');
      if (ms < 0) throw Errors.illegalArgument(`[min_age] must be >= 0`);
    }
    const actions: Record<string, Json> = {};
    const ab = isObj(pb['actions']) ? pb['actions'] : {};
    for (const [aname, abody] of Object.entries(ab)) {
      if (KNOWN_ACTIONS.has(aname) && !ORDERED_ACTIONS[pname as PhaseName].includes(aname)) {
        throw Errors.illegalArgument(`invalid action [${aname}] defined in phase [${pname}]`);
      }
      actions[aname] = parseAction(aname, abody, pname);
    }
    phases[pname as PhaseName] = { min_age: minAge, actions };
  }
  validatePhases(phases);
  const out: PolicyDef = { phases };
  if (isObj(raw['_meta'])) out._meta = raw['_meta'];
  return out;
}

function validatePhases(phases: Partial<Record<PhaseName, PhaseDef>>): void {
  const hot = phases.hot;
  if (hot && !hot.actions['rollover']) {
    const bad = HOT_ACTIONS_THAT_REQUIRE_ROLLOVER.filter((a) => hot.actions[a]);
    if (bad.length) throw Errors.illegalArgument(`the [${bad.join(', ')}] action(s) may not be used in the [hot] phase without an accompanying [rollover] action`);
  }
  // nothing that rewrites segments after the index became a searchable snapshot
  const following: PhaseName[] = [];
  if (hot?.actions['searchable_snapshot']) following.push(...(PHASES.filter((p) => p !== 'hot' && phases[p]) as PhaseName[]));
  else if (phases.cold?.actions['searchable_snapshot'] && phases.frozen) following.push('frozen');
  const illegal = following.filter((p) => ACTIONS_CANNOT_FOLLOW_SEARCHABLE_SNAPSHOT.some((a) => phases[p]!.actions[a]));
  if (illegal.length) {
    throw Errors.illegalArgument(
      `phases [${illegal.join(',')}] define one or more of [${ACTIONS_CANNOT_FOLLOW_SEARCHABLE_SNAPSHOT.join(', ')}] actions which are not allowed after a managed index is mounted as a searchable snapshot`,
    );
  }
  const repos = new Set(PHASES.map((p) => phases[p]?.actions['searchable_snapshot']?.['snapshot_repository']).filter((r) => r !== undefined));
  if (repos.size > 1) {
    throw Errors.illegalArgument(
      `policy specifies [searchable_snapshot] action multiple times with differing repositories [${[...repos].join(', ')}], the same repository must be used for all searchable snapshot actions`,
    );
  }
  if (phases.frozen && !phases.frozen.actions['searchable_snapshot']) {
    throw Errors.illegalArgument(
      'policy specifies the [frozen] phase without a corresponding [searchable_snapshot] action, but a searchable snapshot action is required in the frozen phase',
    );
  }
  const timing = phaseTimingErrors(phases);
  if (timing) throw Errors.illegalArgument(timing);
}

/** ES validateMonotonicallyIncreasingPhaseTimings */
function phaseTimingErrors(phases: Partial<Record<PhaseName, PhaseDef>>): string {
  const errors: string[] = [];
  const invalid = new Set<string>();
  const age = (p: PhaseDef): number => parseTimeValue(p.min_age, 'min_age');
  PHASES.forEach((name, i) => {
    const phase = phases[name];
    if (!phase || age(phase) === 0 || invalid.has(name)) return;
    const bad = PHASES.slice(i + 1).filter((n) => phases[n] && age(phases[n]!) !== 0 && age(phases[n]!) < age(phase));
    if (!bad.length) return;
    bad.forEach((b) => invalid.add(b));
    let error = bad.map((b) => `the ${b} phase (min_age: ${phases[b]!.min_age})`).join(', ');
    const last = error.lastIndexOf(',');
    if (bad.length > 1) error = `${error.slice(0, last)} and${error.slice(last + 1)}`;
    errors.push(`Your policy is configured to run ${error} before the ${name} phase (min_age: ${phase.min_age}). You should change the phase timing so that the phases will execute in the order of hot, warm, then cold.`);
  });
  return errors.join(',');
}

export function orderedPhases(policy: PolicyDef): PhaseName[] {
  return PHASES.filter((p) => policy.phases[p] !== undefined);
}

export function orderedActions(phase: PhaseName, def: PhaseDef): string[] {
  return ORDERED_ACTIONS[phase].filter((a) => def.actions[a] !== undefined);
}

/** the steps an action runs as (ES step names), given its phase and configuration */
export function actionSteps(action: string, body: Json, dataStreamIndex: boolean): string[] {
  switch (action) {
    case 'rollover':
      return ['check-rollover-ready', 'attempt-rollover', 'wait-for-active-shards', 'update-rollover-lifecycle-date', 'set-indexing-complete'];
    case 'readonly':
      return ['check-not-write-index', 'readonly'];
    case 'set_priority':
      return ['set_priority'];
    case 'forcemerge':
      return ['check-not-write-index', 'forcemerge', 'segment-count'];
    case 'shrink':
      return [
        'branch-check-prerequisites',
        'check-not-write-index',
        'readonly',
        'check-shrink-allowed',
        'generate-shrink-index-name',
        'shrink',
        'copy-execution-state',
        dataStreamIndex ? 'replace-datastream-backing-index' : 'aliases',
      ];
    case 'searchable_snapshot':
      return [
        'branch-check-skip-action',
        'check-not-write-index',
        ...(body['force_merge_index'] !== false ? ['forcemerge', 'segment-count'] : []),
        'generate-snapshot-name',
        'cleanup-snapshot',
        'create-snapshot',
        'mount-snapshot',
        'copy-execution-state',
        'copy-settings',
        dataStreamIndex ? 'replace-datastream-backing-index' : 'swap-aliases',
      ];
    case 'delete':
      return ['delete'];
    case 'wait_for_snapshot':
      return ['wait-for-snapshot'];
    case 'allocate':
      return ['allocate', 'check-allocation'];
    case 'migrate':
      return ['migrate', 'check-migration'];
    case 'unfollow':
      return ['wait-for-indexing-complete', 'unfollow-follower-index'];
    case 'freeze':
      return ['freeze'];
    default:
      return [action];
  }
}
