/**
 * Numeric metrics: min, max, sum, avg, value_count, stats, extended_stats.
 * Per owning-bucket state lives in growable Float64Arrays (no per-doc / per-bucket objects).
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, NumericDocValues, SortedSetDocValues } from '../../index/leaf-reader.js';
import { numericReader, ordinalsReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import {
  AggSpec,
  Aggregator,
  bytesValues,
  LongArray,
  checkParams,
  parseField,
  optNumber,
  optString,
  requireField,
  resolveField,
  type FieldSource,
} from '../framework.js';
import { formatValue, isRaw, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { parseDateMath } from '../support/date-format.js';
import { addStatsStrings, statsValues } from '../support/stats-render.js';

export type StatKind = 'min' | 'max' | 'sum' | 'avg' | 'value_count' | 'stats' | 'extended_stats';

interface StatsInternal extends InternalAggregation {
  type: StatKind;
  count: number;
  sum: number;
  min: number;
  max: number;
  sumSq: number;
  fmt: ValueFormat;
}

const ALLOWED = ['field', 'missing', 'format', 'script', 'value_type'];

export class NumericMetricSpec extends AggSpec {
  field = '';
  missing: unknown;
  format: string | undefined;
  sigma = 2;
  valueType: string | undefined;

  constructor(name: string, readonly kind: StatKind) {
    super(name, kind);
  }
  override get isMetric(): boolean {
    return true;
  }

  static parse(kind: StatKind, name: string, body: Record<string, unknown>): NumericMetricSpec {
    checkParams(kind, body, kind === 'extended_stats' ? [...ALLOWED, 'sigma'] : ALLOWED);
    const s = new NumericMetricSpec(name, kind);
    s.field = requireField(kind, name, body);
    s.missing = body['missing'];
    s.format = optString(kind, body, 'format');
    s.valueType = optString(kind, body, 'value_type');
    if (kind === 'extended_stats') {
      const sigma = optNumber(kind, body, 'sigma');
      if (sigma !== undefined) {
        parseField('extended_stats', 'sigma', () => {
          if (sigma < 0) throw Errors.illegalArgument(`[sigma] must be greater than or equal to 0. Found [${javaDoubleString(sigma)}] in [${name}]`);
        });
        s.sigma = sigma;
      }
    }
    return s;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const src = resolveField(ctx, this.field, {
      format: this.format,
      requireNumeric: this.kind === 'value_count' ? undefined : this.kind,
      valueType: this.valueType,
    });
    let missing: number | undefined;
    if (this.missing !== undefined && this.missing !== null) {
      if (src.isDate) missing = parseDateMath(this.missing, ctx.nowMillis, undefined, false, src.ft?.format);
      else if (src.isBool) missing = this.missing === true || this.missing === 'true' ? 1 : 0;
      else missing = Number(this.missing);
    }
    return new NumericMetricAggregator(this, src, missing);
  }

  empty(): InternalAggregation {
    return {
      type: this.kind,
      count: 0,
      sum: 0,
      min: Infinity,
      max: -Infinity,
      sumSq: 0,
      fmt: RAW,
    } satisfies StatsInternal;
  }

  reduce(list: InternalAggregation[]): InternalAggregation {
    let count = 0, sum = 0, comp = 0, sumSq = 0, min = Infinity, max = -Infinity;
    let fmt: ValueFormat = RAW;
    for (const x of list as StatsInternal[]) {
      count += x.count;
      // Kahan summation as ES does
      if (Number.isFinite(x.sum) && Number.isFinite(sum)) {
        const c = x.sum - comp;
        const t = sum + c;
        comp = t - sum - c;
        sum = t;
      } else sum += x.sum;
      sumSq += x.sumSq;
      if (x.min < min) min = x.min;
      if (x.max > max) max = x.max;
      if (!isRaw(x.fmt)) fmt = x.fmt;
    }
    return { type: this.kind, count, sum, min, max, sumSq, fmt } satisfies StatsInternal;
  }

  typedName(): string {
    return this.kind;
  }

  override value(agg: InternalAggregation, key: string | undefined): number {
    const a = agg as StatsInternal;
    const avg = a.count === 0 ? NaN : a.sum / a.count;
    if (key === undefined) {
      switch (this.kind) {
        case 'min': return a.min === Infinity ? Infinity : a.min;
        case 'max': return a.max === -Infinity ? -Infinity : a.max;
        case 'sum': return a.sum;
        case 'avg': return avg;
        case 'value_count': return a.count;
        default:
          throw Errors.illegalArgument(`Invalid aggregation order path [${this.name}]. When ordering on a multi-value metrics aggregation a metric name must be specified.`);
      }
    }
    if (this.kind !== 'stats' && this.kind !== 'extended_stats') {
      return super.value(agg, key);
    }
    const ext = extended(a, this.sigma);
    const m: Record<string, number> = { count: a.count, sum: a.sum, min: a.min, max: a.max, avg, ...(this.kind === 'extended_stats' ? ext : {}) };
    const v = m[key];
    if (v === undefined) throw Errors.illegalArgument(`Unknown value key [${key}] for aggregation [${this.name}]`);
    return v;
  }

  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as StatsInternal;
    const fmt = a.fmt;
    const str = !isRaw(fmt);
    const num = (v: number | null) => v;
    switch (this.kind) {
      case 'min':
      case 'max': {
        const v = this.kind === 'min' ? a.min : a.max;
        const out: Record<string, unknown> = { value: Number.isFinite(v) ? v : null };
        if (str && Number.isFinite(v)) out['value_as_string'] = formatValue(fmt, v);
        return out;
      }
      case 'sum': {
        const out: Record<string, unknown> = { value: a.sum };
        if (str) out['value_as_string'] = formatValue(fmt, a.sum);
        return out;
      }
      case 'avg': {
        const v = a.count === 0 ? null : a.sum / a.count;
        const out: Record<string, unknown> = { value: v };
        if (str && v !== null) out['value_as_string'] = formatValue(fmt, v);
        return out;
      }
      case 'value_count':
        return { value: a.count };
      case 'stats':
      case 'extended_stats': {
        const has = a.count > 0;
        const out = statsValues(a);
        if (this.kind === 'extended_stats') {
          const e = extended(a, this.sigma);
          out['sum_of_squares'] = has ? num(a.sumSq) : null;
          out['variance'] = has ? e['variance'] : null;
          out['variance_population'] = has ? e['variance_population'] : null;
          out['variance_sampling'] = has ? e['variance_sampling'] : null;
          out['std_deviation'] = has ? e['std_deviation'] : null;
          out['std_deviation_population'] = has ? e['std_deviation_population'] : null;
          out['std_deviation_sampling'] = has ? e['std_deviation_sampling'] : null;
          out['std_deviation_bounds'] = {
            upper: has ? e['std_upper'] : null,
            lower: has ? e['std_lower'] : null,
            upper_population: has ? e['std_upper_population'] : null,
            lower_population: has ? e['std_lower_population'] : null,
            upper_sampling: has ? e['std_upper_sampling'] : null,
            lower_sampling: has ? e['std_lower_sampling'] : null,
          };
        }
        if (str && has) {
          addStatsStrings(out, fmt, a);
          if (this.kind === 'extended_stats') {
            const e = extended(a, this.sigma);
            out['sum_of_squares_as_string'] = formatValue(fmt, a.sumSq);
            out['variance_as_string'] = formatValue(fmt, e['variance']!);
            out['variance_population_as_string'] = formatValue(fmt, e['variance_population']!);
            out['variance_sampling_as_string'] = formatValue(fmt, e['variance_sampling']!);
            out['std_deviation_as_string'] = formatValue(fmt, e['std_deviation']!);
            out['std_deviation_population_as_string'] = formatValue(fmt, e['std_deviation_population']!);
            out['std_deviation_sampling_as_string'] = formatValue(fmt, e['std_deviation_sampling']!);
            out['std_deviation_bounds_as_string'] = {
              upper: formatValue(fmt, e['std_upper']!),
              lower: formatValue(fmt, e['std_lower']!),
              upper_population: formatValue(fmt, e['std_upper_population']!),
              lower_population: formatValue(fmt, e['std_lower_population']!),
              upper_sampling: formatValue(fmt, e['std_upper_sampling']!),
              lower_sampling: formatValue(fmt, e['std_lower_sampling']!),
            };
          }
        }
        return out;
      }
    }
  }
}

function extended(a: StatsInternal, sigma: number): Record<string, number> {
  const n = a.count;
  const avg = a.sum / n;
  const varPop = Math.max(0, (a.sumSq - (a.sum * a.sum) / n) / n);
  const varSamp = n > 1 ? Math.max(0, (a.sumSq - (a.sum * a.sum) / n) / (n - 1)) : Infinity;
  const sdPop = Math.sqrt(varPop);
  const sdSamp = Math.sqrt(varSamp);
  return {
    sum_of_squares: a.sumSq,
    variance: varPop,
    variance_population: varPop,
    variance_sampling: varSamp,
    std_deviation: sdPop,
    std_deviation_population: sdPop,
    std_deviation_sampling: sdSamp,
    std_upper: avg + sigma * sdPop,
    std_lower: avg - sigma * sdPop,
    std_upper_population: avg + sigma * sdPop,
    std_lower_population: avg - sigma * sdPop,
    std_upper_sampling: avg + sigma * sdSamp,
    std_lower_sampling: avg - sigma * sdSamp,
    'std_deviation_bounds.upper': avg + sigma * sdPop,
    'std_deviation_bounds.lower': avg - sigma * sdPop,
  };
}

class NumericMetricAggregator extends Aggregator {
  private dv: NumericDocValues | null = null;
  private sdv: SortedSetDocValues | null = null;
  private rd: DocValuesReader | null = null;
  private srd: DocValuesReader<Uint32Array> | null = null;
  private readonly counts = new LongArray();
  private readonly sums = new LongArray();
  private readonly comps = new LongArray();
  private readonly mins = new LongArray(16, Infinity);
  private readonly maxs = new LongArray(16, -Infinity);
  private readonly sumSqs = new LongArray();
  private readonly needMinMax: boolean;
  private readonly needSum: boolean;
  private readonly needSq: boolean;

  constructor(private readonly spec: NumericMetricSpec, private readonly src: FieldSource, private readonly missing: number | undefined) {
    super();
    const k = spec.kind;
    this.needMinMax = k === 'min' || k === 'max' || k === 'stats' || k === 'extended_stats';
    this.needSum = k !== 'min' && k !== 'max' && k !== 'value_count';
    this.needSq = k === 'extended_stats';
  }

  setLeaf(leaf: LeafReaderContext): void {
    if (this.src.kind === 'numeric') this.dv = leaf.reader.numericDocValues(this.src.field);
    else if (this.src.kind === 'bytes') this.sdv = bytesValues(leaf, this.src);
    this.rd = this.dv ? numericReader(this.dv) : null;
    this.srd = this.sdv ? ordinalsReader(this.sdv) : null;
  }

  private add(ord: number, v: number): void {
    const c = this.counts.ensure(ord);
    c[ord]! += 1;
    if (this.needSum) {
      const s = this.sums.ensure(ord);
      const cp = this.comps.ensure(ord);
      const sum = s[ord]!;
      if (Number.isFinite(v) && Number.isFinite(sum)) {
        const corrected = v - cp[ord]!;
        const t = sum + corrected;
        cp[ord] = t - sum - corrected;
        s[ord] = t;
      } else s[ord] = sum + v;
    }
    if (this.needMinMax) {
      const mi = this.mins.ensure(ord);
      if (v < mi[ord]!) mi[ord] = v;
      const ma = this.maxs.ensure(ord);
      if (v > ma[ord]!) ma[ord] = v;
    }
    if (this.needSq) {
      const q = this.sumSqs.ensure(ord);
      q[ord]! += v * v;
    }
  }

  collect(doc: number, ord: number): void {
    const rd = this.rd;
    if (rd) {
      const n = rd.advance(doc);
      if (n > 0) {
        const scale = this.src.scale;
        // min/max only need the first/last value (values are sorted)
        if (this.spec.kind === 'min') { this.add(ord, rd.value(0) * scale); return; }
        if (this.spec.kind === 'max') { this.add(ord, rd.value(n - 1) * scale); return; }
        for (let i = 0; i < n; i++) this.add(ord, rd.value(i) * scale);
        return;
      }
    } else if (this.srd) {
      const n = this.srd.advance(doc);
      if (n > 0) {
        const c = this.counts.ensure(ord);
        c[ord]! += n;
        return;
      }
    }
    if (this.missing !== undefined) this.add(ord, this.missing);
  }

  build(ord: number): InternalAggregation {
    return {
      type: this.spec.kind,
      count: this.counts.get(ord),
      sum: this.sums.get(ord),
      min: this.mins.get(ord),
      max: this.maxs.get(ord),
      sumSq: this.sumSqs.get(ord),
      fmt: this.src.format,
    } satisfies StatsInternal;
  }
}
