/**
 * Pipeline aggregations (reduce-time only): parent pipelines derivative, cumulative_sum, bucket_script,
 * bucket_selector, bucket_sort; sibling pipelines avg_bucket, sum_bucket, min_bucket, max_bucket, stats_bucket.
 */
import { Errors } from '@strata/core-common';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  checkParams,
  optInt,
  optString,
  resolveBucketPath,
  type PipelineBucket,
} from '../framework.js';
import { formatValue, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { parseFixedInterval } from '../support/rounding.js';
import { addStatsStrings, statsValues } from '../support/stats-render.js';
import { EsError, ScriptContexts, type ScriptContext } from '@strata/core-common';
import { boxDouble } from '@strata/core-painless';
import { aggregationScripts } from '../support/scripts.js';

type CompiledScript = (vars: Record<string, unknown>) => unknown;

type GapPolicy = 'skip' | 'insert_zeros' | 'keep_values';

interface SimpleValueInternal extends InternalAggregation {
  type: 'simple_value';
  value: number;
  normalized?: number;
}

function parseGap(type: string, body: Record<string, unknown>): GapPolicy {
  const g = optString(type, body, 'gap_policy');
  if (g === undefined) return 'skip';
  if (g !== 'skip' && g !== 'insert_zeros' && g !== 'keep_values') {
    throw Errors.illegalArgument(`Invalid gap policy: [${g}], accepted values: [skip, insert_zeros, keep_values]`);
  }
  return g;
}

function requirePath(type: string, name: string, body: Record<string, unknown>): unknown {
  const p = body['buckets_path'];
  if (p === undefined || p === null) throw Errors.illegalArgument(`[buckets_path] must be set for aggregation [${name}]`);
  return p;
}

/** a `buckets_path` that must be a single path (every pipeline but bucket_script / bucket_selector) */
function requireSinglePath(type: string, name: string, body: Record<string, unknown>): string {
  const p = requirePath(type, name, body);
  if (typeof p !== 'string') throw Errors.parsing(`[buckets_path] must be a string for [${type}] aggregation [${name}]`);
  return p;
}

/** value of a bucket path inside one bucket, NaN when missing */
function bucketValue(parent: AggSpec, b: PipelineBucket, path: string): number {
  if (path === '_count') return b.docCount;
  if (path === '_key') return typeof b.key === 'number' ? b.key : NaN;
  // ES BucketHelpers: a metric of an empty bucket is a gap
  if (b.docCount === 0) return NaN;
  const head = path.split(/[>.[]/)[0]!;
  if (!b.aggs[head]) {
    if (parent.subs.some((s) => s.name === head)) return NaN;
  }
  return resolveBucketPath(parent.subs, b.aggs, b.docCount, path);
}

function withGap(v: number, gap: GapPolicy): number {
  if (Number.isNaN(v) || !Number.isFinite(v)) return gap === 'insert_zeros' ? 0 : NaN;
  return v;
}

class NoopAggregator extends Aggregator {
  setLeaf(): void {
    // pipelines collect nothing
  }
  collect(): void {
    // pipelines collect nothing
  }
  build(): InternalAggregation {
    return { type: 'simple_value', value: NaN };
  }
}

abstract class PipelineSpec extends AggSpec {
  format: string | undefined;
  override get isMetric(): boolean {
    return true;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    void ctx;
    return new NoopAggregator();
  }
  empty(): InternalAggregation {
    return { type: 'simple_value', value: NaN } satisfies SimpleValueInternal;
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    return list[0] ?? this.empty();
  }
  typedName(): string {
    return 'simple_value';
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    if (key !== undefined && key !== 'value') return super.value(agg, key);
    return (agg as SimpleValueInternal).value;
  }
  fmt(): ValueFormat {
    return this.format ? { t: 'decimal', pattern: this.format } : RAW;
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as SimpleValueInternal;
    const v = Number.isFinite(a.value) ? a.value : null;
    const out: Record<string, unknown> = { value: v };
    if (v !== null && this.format) out['value_as_string'] = formatValue(this.fmt(), v);
    return out;
  }
}

// ------------------------------------------------------------------ parent pipelines

const HISTOGRAM_PARENTS = ['histogram', 'date_histogram', 'auto_date_histogram'];

/** derivative, cumulative_sum, moving_fn and serial_diff live under a histogram-like parent only */
function requireHistogramParent(spec: AggSpec, parent: AggSpec | undefined): void {
  if (!parent || !HISTOGRAM_PARENTS.includes(parent.type)) {
    throw Errors.actionRequestValidation([
      `${spec.type} aggregation [${spec.name}] must have a histogram, date_histogram or auto_date_histogram as parent`,
    ]);
  }
}

export class DerivativeSpec extends PipelineSpec {
  path = '';
  gap: GapPolicy = 'skip';
  unitMs: number | undefined;
  override get pipeline(): 'parent' {
    return 'parent';
  }
  static parse(name: string, body: Record<string, unknown>): DerivativeSpec {
    checkParams('derivative', body, ['buckets_path', 'gap_policy', 'format', 'unit']);
    const s = new DerivativeSpec(name, 'derivative');
    s.path = requireSinglePath('derivative', name, body);
    s.gap = parseGap('derivative', body);
    s.format = optString('derivative', body, 'format');
    const unit = optString('derivative', body, 'unit');
    if (unit !== undefined) s.unitMs = parseFixedInterval(unit === 'second' ? '1s' : unit === 'minute' ? '1m' : unit === 'hour' ? '1h' : unit === 'day' ? '1d' : unit, 'unit');
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    requireHistogramParent(this, parent);
  }
  override typedName(): string {
    return 'derivative';
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    let lastValue = NaN;
    let lastKey = NaN;
    for (const b of buckets) {
      const v = withGap(bucketValue(parent, b, this.path), this.gap);
      if (!Number.isNaN(lastValue) && !Number.isNaN(v)) {
        const d = v - lastValue;
        const out: SimpleValueInternal = { type: 'simple_value', value: d };
        if (this.unitMs !== undefined && typeof b.key === 'number') {
          out.normalized = d / ((b.key - lastKey) / this.unitMs);
        }
        b.aggs = { ...b.aggs, [this.name]: out };
      }
      if (!Number.isNaN(v)) {
        lastValue = v;
        lastKey = typeof b.key === 'number' ? b.key : NaN;
      }
    }
    return buckets;
  }
  override render(agg: InternalAggregation): Record<string, unknown> {
    const out = super.render(agg);
    const n = (agg as SimpleValueInternal).normalized;
    if (n !== undefined) out['normalized_value'] = Number.isFinite(n) ? n : null;
    return out;
  }
}

export class CumulativeSumSpec extends PipelineSpec {
  path = '';
  override get pipeline(): 'parent' {
    return 'parent';
  }
  static parse(name: string, body: Record<string, unknown>): CumulativeSumSpec {
    checkParams('cumulative_sum', body, ['buckets_path', 'format']);
    const s = new CumulativeSumSpec(name, 'cumulative_sum');
    s.path = requireSinglePath('cumulative_sum', name, body);
    s.format = optString('cumulative_sum', body, 'format');
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    requireHistogramParent(this, parent);
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    let sum = 0;
    for (const b of buckets) {
      const v = bucketValue(parent, b, this.path);
      if (Number.isFinite(v)) sum += v;
      b.aggs = { ...b.aggs, [this.name]: { type: 'simple_value', value: sum } satisfies SimpleValueInternal };
    }
    return buckets;
  }
}

function parsePathMap(type: string, name: string, p: unknown): Record<string, string> {
  if (typeof p === 'string') return { _value: p };
  if (Array.isArray(p)) return Object.fromEntries(p.map((x, i) => [`_value${i}`, String(x)]));
  if (p && typeof p === 'object') return Object.fromEntries(Object.entries(p as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  throw Errors.parsing(`[buckets_path] must be a string, an array or an object for [${type}] aggregation [${name}]`);
}

function parseScript(type: string, name: string, v: unknown, context: ScriptContext = ScriptContexts.BUCKET_AGGREGATION): CompiledScript {
  if (v === undefined || v === null) throw Errors.illegalArgument(`[script] must be set for aggregation [${name}]`);
  void type;
  const svc = aggregationScripts();
  const ref = svc.parse(v);
  const compiled = svc.compile(ref, context);
  const params = ref.params;
  if (context === ScriptContexts.MOVING_FUNCTION) return (vars) => compiled.run({ params, values: vars['values'] });
  // buckets_path variables are added to the script's params (ES BucketScriptPipelineAggregator)
  return (vars) => {
    const p: Record<string, unknown> = { ...params };
    // bucket values are Doubles in Elasticsearch (10.0 / 4 is 2.5)
    for (const [k, x] of Object.entries(vars)) p[k] = typeof x === 'number' ? boxDouble(x) : x;
    return compiled.run({ params: p });
  };
}

abstract class ScriptedParentSpec extends PipelineSpec {
  paths: Record<string, string> = {};
  script!: CompiledScript;
  gap: GapPolicy = 'skip';
  override get pipeline(): 'parent' {
    return 'parent';
  }
  override validateParent(parent: AggSpec | undefined): void {
    if (!parent || parent.isMetric || !['terms', 'histogram', 'date_histogram', 'range', 'date_range', 'filters', 'composite'].includes(parent.type)) {
      throw Errors.actionRequestValidation([`${this.type} aggregation [${this.name}] must be declared inside of another aggregation`]);
    }
  }
  /** resolved vars, or null when a var is a gap under `skip` */
  vars(parent: AggSpec, b: PipelineBucket): Record<string, unknown> | null {
    const vars: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(this.paths)) {
      const v = withGap(bucketValue(parent, b, p), this.gap);
      if (Number.isNaN(v) && this.gap === 'skip') return null;
      vars[k] = v;
    }
    return vars;
  }
}

export class BucketScriptSpec extends ScriptedParentSpec {
  static parse(name: string, body: Record<string, unknown>): BucketScriptSpec {
    checkParams('bucket_script', body, ['buckets_path', 'script', 'gap_policy', 'format']);
    const s = new BucketScriptSpec(name, 'bucket_script');
    s.paths = parsePathMap('bucket_script', name, requirePath('bucket_script', name, body));
    s.script = parseScript('bucket_script', name, body['script']);
    s.gap = parseGap('bucket_script', body);
    s.format = optString('bucket_script', body, 'format');
    return s;
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    for (const b of buckets) {
      const vars = this.vars(parent, b);
      if (!vars) continue;
      const r = this.script(vars);
      if (r === null) continue;
      if (typeof r !== 'number') {
        throw new EsError('illegal_argument_exception', 400, `Invalid pipeline aggregation named [${this.name}] of type [bucket_script]. Script must return a number, but returned [${typeof r === 'string' ? 'java.lang.String' : typeof r === 'boolean' ? 'java.lang.Boolean' : 'java.util.HashMap'}]`);
      }
      const v = r;
      b.aggs = { ...b.aggs, [this.name]: { type: 'simple_value', value: v } satisfies SimpleValueInternal };
    }
    return buckets;
  }
}

export class BucketSelectorSpec extends ScriptedParentSpec {
  static parse(name: string, body: Record<string, unknown>): BucketSelectorSpec {
    checkParams('bucket_selector', body, ['buckets_path', 'script', 'gap_policy']);
    const s = new BucketSelectorSpec(name, 'bucket_selector');
    s.paths = parsePathMap('bucket_selector', name, requirePath('bucket_selector', name, body));
    s.script = parseScript('bucket_selector', name, body['script']);
    s.gap = parseGap('bucket_selector', body);
    return s;
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    return buckets.filter((b) => {
      const vars = this.vars(parent, b);
      if (!vars) return true;
      const r = this.script(vars);
      if (typeof r !== 'boolean') {
        throw Errors.illegalArgument(`Invalid pipeline aggregation named [${this.name}] of type [bucket_selector]. Script must return a boolean`);
      }
      return r;
    });
  }
}

interface SortField {
  path: string;
  asc: boolean;
}

export class BucketSortSpec extends PipelineSpec {
  sort: SortField[] = [];
  from = 0;
  size: number | undefined;
  gap: GapPolicy = 'skip';
  override get pipeline(): 'parent' {
    return 'parent';
  }
  static parse(name: string, body: Record<string, unknown>): BucketSortSpec {
    checkParams('bucket_sort', body, ['sort', 'from', 'size', 'gap_policy']);
    const s = new BucketSortSpec(name, 'bucket_sort');
    const sort = body['sort'];
    const items = sort === undefined || sort === null ? [] : Array.isArray(sort) ? sort : [sort];
    for (const it of items) {
      if (typeof it === 'string') s.sort.push({ path: it, asc: it !== '_count' });
      else if (it && typeof it === 'object') {
        for (const [p, o] of Object.entries(it as Record<string, unknown>)) {
          const order = typeof o === 'string' ? o : (o as { order?: string } | null)?.order ?? 'asc';
          s.sort.push({ path: p, asc: order === 'asc' });
        }
      }
    }
    const from = optInt('bucket_sort', body, 'from');
    if (from !== undefined) {
      if (from < 0) throw Errors.illegalArgument(`[from] must be a non-negative integer: [${from}]`);
      s.from = from;
    }
    const size = optInt('bucket_sort', body, 'size');
    if (size !== undefined) {
      if (size < 1) throw Errors.illegalArgument(`[size] must be a positive integer: [${size}]`);
      s.size = size;
    }
    s.gap = parseGap('bucket_sort', body);
    if (s.sort.length === 0 && s.from === 0 && s.size === undefined) {
      throw Errors.illegalArgument(`[bucket_sort] aggregation [${name}] must have a non-empty sort, a from or a size`);
    }
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    if (!parent || parent.isMetric) {
      throw Errors.actionRequestValidation([`bucket_sort aggregation [${this.name}] must be declared inside of another aggregation`]);
    }
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    let list = buckets;
    if (this.sort.length > 0) {
      const keyed = buckets.map((b) => ({
        b,
        vals: this.sort.map((f) => (f.path === '_key' ? b.key : withGap(bucketValue(parent, b, f.path), this.gap))),
      }));
      const kept = this.gap === 'skip' ? keyed.filter((k) => k.vals.every((v) => !(typeof v === 'number' && Number.isNaN(v)))) : keyed;
      kept.sort((x, y) => {
        for (let i = 0; i < this.sort.length; i++) {
          const a = x.vals[i] as number | string;
          const c = y.vals[i] as number | string;
          if (a === c) continue;
          const r = a < c ? -1 : 1;
          return this.sort[i]!.asc ? r : -r;
        }
        return 0;
      });
      list = kept.map((k) => k.b);
    }
    const end = this.size === undefined ? undefined : this.from + this.size;
    return list.slice(this.from, end);
  }
}

// ------------------------------------------------------------------ sibling pipelines

type SiblingKind = 'avg_bucket' | 'sum_bucket' | 'min_bucket' | 'max_bucket' | 'stats_bucket';

interface BucketMetricInternal extends InternalAggregation {
  type: 'bucket_metric';
  value: number;
  keys: string[];
  count: number;
  sum: number;
  min: number;
  max: number;
}

export class SiblingBucketSpec extends PipelineSpec {
  path = '';
  gap: GapPolicy = 'skip';
  constructor(name: string, readonly kind: SiblingKind) {
    super(name, kind);
  }
  override get pipeline(): 'sibling' {
    return 'sibling';
  }
  static parse(kind: SiblingKind, name: string, body: Record<string, unknown>): SiblingBucketSpec {
    checkParams(kind, body, ['buckets_path', 'gap_policy', 'format']);
    const s = new SiblingBucketSpec(name, kind);
    s.path = requireSinglePath(kind, name, body);
    s.gap = parseGap(kind, body);
    s.format = optString(kind, body, 'format');
    return s;
  }
  override typedName(): string {
    return this.kind === 'min_bucket' || this.kind === 'max_bucket' ? 'bucket_metric_value' : this.kind === 'stats_bucket' ? 'stats_bucket' : 'simple_value';
  }
  override empty(): InternalAggregation {
    return { type: 'bucket_metric', value: NaN, keys: [], count: 0, sum: 0, min: Infinity, max: -Infinity } satisfies BucketMetricInternal;
  }
  override reduceSibling(siblings: AggSpec[], reduced: InternalAggregations): InternalAggregation {
    // `multi>metric`, `multi>_count`, or the dotted form `multi.metric`
    const gt = this.path.indexOf('>');
    const dot = this.path.indexOf('.');
    const cut = gt >= 0 ? gt : dot;
    const head = cut >= 0 ? this.path.slice(0, cut) : this.path;
    const rest = cut >= 0 ? this.path.slice(cut + 1) : undefined;
    const spec = siblings.find((s) => s.name === head);
    const agg = reduced[head];
    if (!spec || !agg) {
      throw Errors.illegalArgument(`No aggregation found for path [${this.path}]`);
    }
    const bs = spec.bucketsOf(agg);
    if (!bs) {
      throw Errors.illegalArgument(
        `The first aggregation in buckets_path must be a multi-bucket aggregation for aggregation [${this.name}] found :${spec.constructor.name} for buckets path: ${this.path}`,
      );
    }
    let count = 0, sum = 0, min = Infinity, max = -Infinity;
    let minKeys: string[] = [];
    let maxKeys: string[] = [];
    for (const b of bs.buckets) {
      const raw = rest === undefined ? b.docCount : bucketValue(spec, b, rest);
      const v = withGap(raw, this.gap);
      if (Number.isNaN(v)) continue;
      count++;
      sum += v;
      const k = bs.keyString(b);
      if (v < min) { min = v; minKeys = [k]; } else if (v === min) minKeys.push(k);
      if (v > max) { max = v; maxKeys = [k]; } else if (v === max) maxKeys.push(k);
    }
    let value: number;
    let keys: string[] = [];
    switch (this.kind) {
      case 'avg_bucket': value = count ? sum / count : NaN; break;
      case 'sum_bucket': value = sum; break;
      case 'min_bucket': value = count ? min : NaN; keys = minKeys; break;
      case 'max_bucket': value = count ? max : NaN; keys = maxKeys; break;
      default: value = NaN;
    }
    return { type: 'bucket_metric', value, keys, count, sum, min, max } satisfies BucketMetricInternal;
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    const a = agg as BucketMetricInternal;
    if (this.kind === 'stats_bucket' && key !== undefined) {
      const m: Record<string, number> = { count: a.count, sum: a.sum, min: a.min, max: a.max, avg: a.count ? a.sum / a.count : NaN };
      if (m[key] === undefined) return super.value(agg, key);
      return m[key]!;
    }
    return a.value;
  }
  override render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as BucketMetricInternal;
    const f = this.fmt();
    if (this.kind === 'stats_bucket') {
      const out = statsValues(a);
      if (a.count > 0 && this.format) addStatsStrings(out, f, a);
      return out;
    }
    const v = Number.isFinite(a.value) ? a.value : null;
    const out: Record<string, unknown> = { value: v };
    if (v !== null && this.format) out['value_as_string'] = formatValue(f, v);
    if (this.kind === 'min_bucket' || this.kind === 'max_bucket') out['keys'] = a.keys;
    return out;
  }
}


// ------------------------------------------------------------------ moving_fn, serial_diff, percentiles_bucket

export class MovingFnSpec extends PipelineSpec {
  path = '';
  window = 0;
  shift = 0;
  gap: GapPolicy = 'skip';
  script!: CompiledScript;
  override get pipeline(): 'parent' {
    return 'parent';
  }
  static parse(name: string, body: Record<string, unknown>): MovingFnSpec {
    checkParams('moving_fn', body, ['buckets_path', 'window', 'shift', 'script', 'gap_policy', 'format']);
    const s = new MovingFnSpec(name, 'moving_fn');
    s.path = requireSinglePath('moving_fn', name, body);
    const w = optInt('moving_fn', body, 'window');
    if (w === undefined) throw Errors.illegalArgument(`[window] must be set for aggregation [${name}]`);
    if (w <= 0) throw Errors.illegalArgument(`[window] must be a positive, non-zero integer.`);
    s.window = w;
    s.shift = optInt('moving_fn', body, 'shift') ?? 0;
    s.gap = parseGap('moving_fn', body);
    s.format = optString('moving_fn', body, 'format');
    s.script = parseScript('moving_fn', name, body['script'], ScriptContexts.MOVING_FUNCTION);
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    requireHistogramParent(this, parent);
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    const values = buckets.map((b) => withGap(bucketValue(parent, b, this.path), this.gap));
    buckets.forEach((b, index) => {
      if (Number.isNaN(values[index]!)) return;
      const from = Math.min(Math.max(index - this.window + this.shift, 0), values.length);
      const to = Math.min(Math.max(index + this.shift, 0), values.length);
      const r = this.script({ values: values.slice(from, to).filter((x) => !Number.isNaN(x)) });
      const v = typeof r === 'number' ? r : NaN;
      b.aggs = { ...b.aggs, [this.name]: { type: 'simple_value', value: v } satisfies SimpleValueInternal };
    });
    return buckets;
  }
}

export class SerialDiffSpec extends PipelineSpec {
  path = '';
  lag = 1;
  gap: GapPolicy = 'skip';
  override get pipeline(): 'parent' {
    return 'parent';
  }
  static parse(name: string, body: Record<string, unknown>): SerialDiffSpec {
    checkParams('serial_diff', body, ['buckets_path', 'lag', 'gap_policy', 'format']);
    const s = new SerialDiffSpec(name, 'serial_diff');
    s.path = requireSinglePath('serial_diff', name, body);
    const lag = optInt('serial_diff', body, 'lag');
    if (lag !== undefined) {
      if (lag <= 0) throw Errors.illegalArgument(`[lag] must be a positive integer: [${name}]`);
      s.lag = lag;
    }
    s.gap = parseGap('serial_diff', body);
    s.format = optString('serial_diff', body, 'format');
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    requireHistogramParent(this, parent);
  }
  override applyToBuckets<B extends PipelineBucket>(parent: AggSpec, buckets: B[]): B[] {
    const window: number[] = [];
    for (const b of buckets) {
      const v = withGap(bucketValue(parent, b, this.path), this.gap);
      if (Number.isNaN(v) && this.gap === 'skip') continue;
      if (window.length >= this.lag) {
        const lagValue = window[window.length - this.lag]!;
        if (!Number.isNaN(v) && !Number.isNaN(lagValue)) {
          b.aggs = { ...b.aggs, [this.name]: { type: 'simple_value', value: v - lagValue } satisfies SimpleValueInternal };
        }
      }
      window.push(v);
    }
    return buckets;
  }
}

interface PercentilesBucketInternal extends InternalAggregation {
  type: 'percentiles_bucket';
  values: number[];
}

export class PercentilesBucketSpec extends PipelineSpec {
  path = '';
  gap: GapPolicy = 'skip';
  percents = [1, 5, 25, 50, 75, 95, 99];
  keyed = true;
  override get pipeline(): 'sibling' {
    return 'sibling';
  }
  static parse(name: string, body: Record<string, unknown>): PercentilesBucketSpec {
    checkParams('percentiles_bucket', body, ['buckets_path', 'gap_policy', 'format', 'percents', 'keyed']);
    const s = new PercentilesBucketSpec(name, 'percentiles_bucket');
    s.path = requireSinglePath('percentiles_bucket', name, body);
    s.gap = parseGap('percentiles_bucket', body);
    s.format = optString('percentiles_bucket', body, 'format');
    const pc = body['percents'];
    if (pc !== undefined && pc !== null) {
      if (!Array.isArray(pc)) throw Errors.parsing(`[percents] must be an array in [${name}]`);
      s.percents = pc.map((x) => {
        const n = Number(x);
        if (Number.isNaN(n) || n < 0 || n > 100) throw Errors.illegalArgument(`[percents] must only contain non-null doubles from 0.0-100.0 for aggregation [${name}]`);
        return n;
      });
    }
    const keyed = body['keyed'];
    if (keyed !== undefined) s.keyed = keyed === true || keyed === 'true';
    return s;
  }
  override typedName(): string {
    return 'percentiles_bucket';
  }
  override empty(): InternalAggregation {
    return { type: 'percentiles_bucket', values: [] } satisfies PercentilesBucketInternal;
  }
  override reduceSibling(siblings: AggSpec[], reduced: InternalAggregations): InternalAggregation {
    const gt = this.path.indexOf('>');
    const dot = this.path.indexOf('.');
    const cut = gt >= 0 ? gt : dot;
    const head = cut >= 0 ? this.path.slice(0, cut) : this.path;
    const rest = cut >= 0 ? this.path.slice(cut + 1) : undefined;
    const spec = siblings.find((s) => s.name === head);
    const agg = reduced[head];
    const bs = spec && agg ? spec.bucketsOf(agg) : undefined;
    if (!spec || !bs) throw Errors.illegalArgument(`No aggregation found for path [${this.path}]`);
    const values: number[] = [];
    for (const b of bs.buckets) {
      const v = withGap(rest === undefined ? b.docCount : bucketValue(spec, b, rest), this.gap);
      if (!Number.isNaN(v)) values.push(v);
    }
    values.sort((a, b) => a - b);
    return { type: 'percentiles_bucket', values } satisfies PercentilesBucketInternal;
  }
  private at(values: number[], percent: number): number | null {
    if (values.length === 0) return null;
    const index = Math.round((percent / 100) * (values.length - 1));
    return values[index]!;
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    const v = this.at((agg as PercentilesBucketInternal).values, Number(key ?? 50));
    return v === null ? NaN : v;
  }
  override render(agg: InternalAggregation): Record<string, unknown> {
    const vals = (agg as PercentilesBucketInternal).values;
    if (this.keyed) {
      const out: Record<string, unknown> = {};
      for (const p of this.percents) out[javaDoubleString(p)] = this.at(vals, p);
      return { values: out };
    }
    return { values: this.percents.map((p) => ({ key: p, value: this.at(vals, p) })) };
  }
}
