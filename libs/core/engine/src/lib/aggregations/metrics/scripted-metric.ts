/**
 * scripted_metric: init_script / map_script / combine_script per shard (and per parent bucket), reduce_script
 * over the shards' combined states on the coordinator, all on the shared Painless engine.
 */
import { Errors, ScriptContexts, type CompiledScript, type ScriptContext } from '@strata/core-common';
import { toJsonValue } from '@strata/core-painless';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { LeafScriptVars } from '../../script/doc-lookup.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import { AggSpec, Aggregator, asObject, checkParams } from '../framework.js';
import { aggregationScripts } from '../support/scripts.js';

interface ScriptedMetricInternal extends InternalAggregation {
  type: 'scripted_metric';
  /** combined states, one per shard (and bucket), as plain JSON */
  states: unknown[];
}

interface Phase {
  script: CompiledScript;
  params: Record<string, unknown>;
  source: string;
}

function compilePhase(name: string, key: string, v: unknown, context: ScriptContext, aggParams: Record<string, unknown>, required: boolean): Phase | undefined {
  if (v === undefined || v === null) {
    if (required) throw Errors.illegalArgument(`[${key}] must not be null: [${name}]`);
    return undefined;
  }
  const svc = aggregationScripts();
  const ref = svc.parse(v, key);
  return { script: svc.compile(ref, context), params: { ...aggParams, ...ref.params }, source: ref.source ?? ref.id ?? '' };
}

export class ScriptedMetricSpec extends AggSpec {
  init?: Phase;
  map!: Phase;
  combine!: Phase;
  reduceScript!: Phase;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): ScriptedMetricSpec {
    checkParams('scripted_metric', body, ['init_script', 'map_script', 'combine_script', 'reduce_script', 'params']);
    const params = body['params'] === undefined ? {} : asObject('scripted_metric', body['params'], 'params');
    const s = new ScriptedMetricSpec(name, 'scripted_metric');
    s.init = compilePhase(name, 'init_script', body['init_script'], ScriptContexts.SCRIPTED_METRIC_INIT, params, false);
    s.map = compilePhase(name, 'map_script', body['map_script'], ScriptContexts.SCRIPTED_METRIC_MAP, params, true)!;
    s.combine = compilePhase(name, 'combine_script', body['combine_script'], ScriptContexts.SCRIPTED_METRIC_COMBINE, params, true)!;
    s.reduceScript = compilePhase(name, 'reduce_script', body['reduce_script'], ScriptContexts.SCRIPTED_METRIC_REDUCE, params, true)!;
    return s;
  }
  override needsScores(): boolean {
    return this.map.source.includes('_score');
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return new ScriptedMetricAggregator(this, ctx);
  }
  empty(): InternalAggregation {
    return { type: 'scripted_metric', states: [] } satisfies ScriptedMetricInternal;
  }
  typedName(): string {
    return 'scripted_metric';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    return { type: 'scripted_metric', states: (list as ScriptedMetricInternal[]).flatMap((x) => x.states) } satisfies ScriptedMetricInternal;
  }
  override value(agg: InternalAggregation): number {
    const v = this.finalValue(agg);
    return typeof v === 'number' ? v : NaN;
  }
  private finalValue(agg: InternalAggregation): unknown {
    const states = (agg as ScriptedMetricInternal).states.map((s) => structuredClone(s));
    return toJsonValue(this.reduceScript.script.run({ params: { ...this.reduceScript.params }, states }));
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    return { value: this.finalValue(agg) };
  }
}

class ScriptedMetricAggregator extends Aggregator {
  private readonly states = new Map<number, Record<string, unknown>>();
  private vars: LeafScriptVars | null = null;
  private readonly bag: Record<string, unknown>;
  constructor(
    private readonly spec: ScriptedMetricSpec,
    private readonly ctx: AggregationContext,
  ) {
    super();
    this.bag = { params: { ...spec.map.params }, state: null, doc: null, _score: 0 };
  }
  private state(ord: number): Record<string, unknown> {
    let st = this.states.get(ord);
    if (!st) {
      st = {};
      const init = this.spec.init;
      if (init) init.script.run({ params: { ...init.params }, state: st });
      this.states.set(ord, st);
    }
    return st;
  }
  setLeaf(leaf: LeafReaderContext): void {
    this.vars = new LeafScriptVars(leaf.reader, (n) => this.ctx.fieldType(n), this.spec.map.params);
    this.bag['doc'] = this.vars.doc;
    this.bag['params'] = this.vars.params;
  }
  collect(doc: number, owningOrd: number, score: number): void {
    this.vars!.setDocument(doc);
    this.bag['state'] = this.state(owningOrd);
    this.bag['_score'] = score;
    this.spec.map.script.run(this.bag);
  }
  build(owningOrd: number): InternalAggregation {
    const combine = this.spec.combine;
    const combined = combine.script.run({ params: { ...combine.params }, state: this.state(owningOrd) });
    return { type: 'scripted_metric', states: [toJsonValue(combined)] } satisfies ScriptedMetricInternal;
  }
}
