/**
 * percentiles and percentile_ranks (TDigest, compression 100 default).
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { numericReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import {
  AggSpec,
  Aggregator,
  asObject,
  checkParams,
  parseField,
  optBool,
  optNumber,
  optString,
  requireField,
  resolveField,
  type FieldSource,
} from '../framework.js';
import { formatValue, isRaw, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { digestAdd, digestCdf, digestMerge, digestQuantile, newDigest, type DigestState } from '../support/tdigest.js';

interface PercentilesInternal extends InternalAggregation {
  type: 'percentiles' | 'percentile_ranks';
  digest: DigestState;
  fmt: ValueFormat;
}

export class PercentilesSpec extends AggSpec {
  field = '';
  points: number[] = [];
  keyed = true;
  compression = 100;
  missing: number | undefined;
  format: string | undefined;

  override get isMetric(): boolean {
    return true;
  }

  static parse(type: 'percentiles' | 'percentile_ranks', name: string, body: Record<string, unknown>): PercentilesSpec {
    const pointsKey = type === 'percentiles' ? 'percents' : 'values';
    checkParams(type, body, ['field', pointsKey, 'keyed', 'tdigest', 'hdr', 'missing', 'format', 'script', 'value_type', 'method', 'compression']);
    const s = new PercentilesSpec(name, type);
    s.field = requireField(type, name, body);
    const pts = body[pointsKey];
    if (pts === undefined || pts === null) {
      if (type === 'percentile_ranks') throw Errors.illegalArgument(`[values] must not be null: [${name}]`);
      s.points = [1, 5, 25, 50, 75, 95, 99];
    } else {
      if (!Array.isArray(pts)) throw Errors.parsing(`[${type}] ${pointsKey} must be an array`);
      if (pts.length === 0) throw Errors.illegalArgument(`[${pointsKey}] must not be empty: [${name}]`);
      s.points = pts.map((p) => {
        const n = Number(p);
        if (typeof p === 'boolean' || Number.isNaN(n)) throw Errors.parsing(`[${type}] ${pointsKey} must contain numbers`);
        parseField(type, pointsKey, () => {
          if (type === 'percentiles' && (n < 0 || n > 100)) throw Errors.illegalArgument(`percent must be in [0,100], got [${javaDoubleString(n)}]: [${name}]`);
        });
        return n;
      });
      // ES sorts and dedups the requested points
      s.points = [...new Set(s.points)].sort((a, b) => a - b);
    }
    s.keyed = optBool(type, body, 'keyed') ?? true;
    if (body['hdr'] !== undefined) {
      throw Errors.illegalArgument(`[hdr] percentiles are not supported; use the default tdigest method in [${name}]`);
    }
    if (body['tdigest'] !== undefined) {
      const td = asObject(type, body['tdigest'], 'tdigest');
      checkParams('tdigest', td, ['compression', 'execution_hint']);
      const c = optNumber('tdigest', td, 'compression');
      if (c !== undefined) {
        if (c < 0) throw Errors.illegalArgument(`[compression] must be greater than or equal to 0. Found [${javaDoubleString(c)}] in [${name}]`);
        s.compression = Math.max(c, 20);
      }
    }
    const m = body['missing'];
    if (m !== undefined && m !== null) s.missing = Number(m);
    s.format = optString(type, body, 'format');
    return s;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    return new PercentilesAggregator(this, resolveField(ctx, this.field, { format: this.format, requireNumeric: this.type }));
  }
  empty(): InternalAggregation {
    return { type: this.type as 'percentiles', digest: newDigest(), fmt: RAW } satisfies PercentilesInternal;
  }
  typedName(): string {
    return this.type === 'percentiles' ? 'tdigest_percentiles' : 'tdigest_percentile_ranks';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    const parts = list as PercentilesInternal[];
    const d = newDigest();
    let fmt: ValueFormat = RAW;
    for (const p of parts) {
      digestMerge(d, p.digest, this.compression);
      if (isRaw(fmt) && !isRaw(p.fmt)) fmt = p.fmt;
    }
    return { type: this.type as 'percentiles', digest: d, fmt } satisfies PercentilesInternal;
  }
  private compute(d: DigestState, point: number): number {
    if (this.type === 'percentiles') return digestQuantile(d, point / 100);
    return digestCdf(d, point) * 100;
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    if (key === undefined) {
      // a single requested percent can be addressed without naming it
      if (this.points.length === 1) return this.compute((agg as PercentilesInternal).digest, this.points[0]!);
      throw Errors.illegalArgument(`Invalid aggregation order path [${this.name}]. When ordering on a multi-value metrics aggregation a metric name must be specified.`);
    }
    const n = Number(key);
    if (Number.isNaN(n)) throw Errors.illegalArgument(`Invalid aggregation order path [${this.name}.${key}]`);
    return this.compute((agg as PercentilesInternal).digest, n);
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as PercentilesInternal;
    const fmt = a.fmt;
    // the value for a point: percentiles -> value at percent; ranks -> percent at value
    const entries = this.points.map((p) => {
      const v = this.compute(a.digest, p);
      return { key: p, value: Number.isNaN(v) ? null : v };
    });
    const valueFmt = this.type === 'percentiles' ? fmt : RAW;
    if (this.keyed) {
      const values: Record<string, unknown> = {};
      for (const e of entries) {
        const k = javaDoubleString(e.key);
        values[k] = e.value;
        if (!isRaw(valueFmt) && e.value !== null) values[`${k}_as_string`] = formatValue(valueFmt, e.value);
      }
      return { values };
    }
    return {
      values: entries.map((e) => {
        const o: Record<string, unknown> = { key: e.key, value: e.value };
        if (!isRaw(valueFmt) && e.value !== null) o['value_as_string'] = formatValue(valueFmt, e.value);
        return o;
      }),
    };
  }
}

class PercentilesAggregator extends Aggregator {
  private readonly digests: (DigestState | undefined)[] = [];
  private rd: DocValuesReader | null = null;
  constructor(private readonly spec: PercentilesSpec, private readonly src: FieldSource) {
    super();
  }
  setLeaf(leaf: LeafReaderContext): void {
    const dv = this.src.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
    this.rd = dv ? numericReader(dv) : null;
  }
  private digest(ord: number): DigestState {
    let d = this.digests[ord];
    if (!d) {
      d = newDigest();
      this.digests[ord] = d;
    }
    return d;
  }
  collect(doc: number, owningOrd: number): void {
    const rd = this.rd;
    const c = this.spec.compression;
    if (rd) {
      const n = rd.advance(doc);
      if (n > 0) {
        const d = this.digest(owningOrd);
        for (let i = 0; i < n; i++) digestAdd(d, rd.value(i) * this.src.scale, c);
        return;
      }
    }
    if (this.spec.missing !== undefined) digestAdd(this.digest(owningOrd), this.spec.missing, c);
  }
  build(owningOrd: number): InternalAggregation {
    return { type: this.spec.type as 'percentiles', digest: this.digests[owningOrd] ?? newDigest(), fmt: this.src.format } satisfies PercentilesInternal;
  }
}

// ------------------------------------------------------------------ median_absolute_deviation

interface MadInternal extends InternalAggregation {
  type: 'median_absolute_deviation';
  digest: DigestState;
  fmt: ValueFormat;
}

/** MAD from a digest: the median of |x - median| over centroids (ES MedianAbsoluteDeviation) */
export function medianAbsoluteDeviation(d: DigestState, compression: number): number {
  if (d.count === 0) return NaN;
  const median = digestQuantile(d, 0.5);
  const dev = newDigest();
  if (d.samples) for (const v of d.samples) digestAdd(dev, Math.abs(v - median), compression);
  else {
    for (let i = 0; i < d.means.length; i++) {
      const w = d.weights[i]!;
      const v = Math.abs(d.means[i]! - median);
      for (let k = 0; k < w; k++) digestAdd(dev, v, compression);
    }
  }
  return digestQuantile(dev, 0.5);
}

export class MedianAbsoluteDeviationSpec extends AggSpec {
  field = '';
  compression = 1000;
  missing: number | undefined;
  format: string | undefined;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): MedianAbsoluteDeviationSpec {
    checkParams('median_absolute_deviation', body, ['field', 'compression', 'missing', 'format', 'script', 'value_type', 'execution_hint']);
    const s = new MedianAbsoluteDeviationSpec(name, 'median_absolute_deviation');
    s.field = requireField('median_absolute_deviation', name, body);
    const c = optNumber('median_absolute_deviation', body, 'compression');
    if (c !== undefined) {
      if (c <= 0) throw Errors.illegalArgument(`[compression] must be greater than 0. Found [${javaDoubleString(c)}] in [${name}]`);
      s.compression = c;
    }
    const m = body['missing'];
    if (m !== undefined && m !== null) s.missing = Number(m);
    s.format = optString('median_absolute_deviation', body, 'format');
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return digestAggregator(ctx, this, 'median_absolute_deviation', this.format);
  }
  empty(): InternalAggregation {
    return { type: 'median_absolute_deviation', digest: newDigest(), fmt: RAW } satisfies MadInternal;
  }
  typedName(): string {
    return 'median_absolute_deviation';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    const d = newDigest();
    let fmt: ValueFormat = RAW;
    for (const p of list as MadInternal[]) {
      digestMerge(d, p.digest, this.compression);
      if (isRaw(fmt) && !isRaw(p.fmt)) fmt = p.fmt;
    }
    return { type: 'median_absolute_deviation', digest: d, fmt } satisfies MadInternal;
  }
  override value(agg: InternalAggregation): number {
    return medianAbsoluteDeviation((agg as MadInternal).digest, this.compression);
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as MadInternal;
    const v = medianAbsoluteDeviation(a.digest, this.compression);
    const out: Record<string, unknown> = { value: Number.isNaN(v) ? null : v };
    if (!Number.isNaN(v) && !isRaw(a.fmt)) out['value_as_string'] = formatValue(a.fmt, v);
    return out;
  }
}

/**
 * The collector of median_absolute_deviation and boxplot: the percentiles one (it fills one digest per owning
 * bucket), its results retyped as `{ type, digest, fmt }`.
 */
function digestAggregator(
  ctx: AggregationContext,
  spec: { name: string; field: string; missing: number | undefined; compression: number },
  type: 'median_absolute_deviation' | 'boxplot',
  format: string | undefined,
): Aggregator {
  const inner = new PercentilesSpec(spec.name, 'percentiles');
  inner.field = spec.field;
  inner.missing = spec.missing;
  inner.compression = spec.compression;
  inner.format = format;
  const agg = inner.createAggregator(ctx);
  return {
    setLeaf: (leaf: LeafReaderContext) => agg.setLeaf(leaf),
    collect: (doc: number, ord: number, score: number) => agg.collect(doc, ord, score),
    build: (ord: number) => {
      const r = agg.build(ord) as PercentilesInternal;
      return { type, digest: r.digest, fmt: r.fmt } satisfies MadInternal | BoxplotInternal;
    },
  } as Aggregator;
}

// ------------------------------------------------------------------ boxplot

interface BoxplotInternal extends InternalAggregation {
  type: 'boxplot';
  digest: DigestState;
  fmt: ValueFormat;
}

export class BoxplotSpec extends AggSpec {
  field = '';
  compression = 100;
  missing: number | undefined;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): BoxplotSpec {
    checkParams('boxplot', body, ['field', 'compression', 'missing', 'script', 'execution_hint']);
    const s = new BoxplotSpec(name, 'boxplot');
    s.field = requireField('boxplot', name, body);
    const c = optNumber('boxplot', body, 'compression');
    if (c !== undefined) s.compression = c;
    const m = body['missing'];
    if (m !== undefined && m !== null) s.missing = Number(m);
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    return digestAggregator(ctx, this, 'boxplot', undefined);
  }
  empty(): InternalAggregation {
    return { type: 'boxplot', digest: newDigest(), fmt: RAW } satisfies BoxplotInternal;
  }
  typedName(): string {
    return 'boxplot';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    const d = newDigest();
    for (const p of list as BoxplotInternal[]) digestMerge(d, p.digest, this.compression);
    return { type: 'boxplot', digest: d, fmt: (list[0] as BoxplotInternal | undefined)?.fmt ?? RAW } satisfies BoxplotInternal;
  }
  private stats(d: DigestState): Record<string, number> {
    const q1 = digestQuantile(d, 0.25);
    const q2 = digestQuantile(d, 0.5);
    const q3 = digestQuantile(d, 0.75);
    const iqr = q3 - q1;
    const lowFence = q1 - 1.5 * iqr;
    const highFence = q3 + 1.5 * iqr;
    const means = d.samples ?? d.means;
    let lower = Infinity;
    let upper = -Infinity;
    for (const m of means) {
      if (m >= lowFence && m < lower) lower = m;
      if (m <= highFence && m > upper) upper = m;
    }
    return { min: d.min, max: d.max, q1, q2, q3, lower, upper };
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    const v = this.stats((agg as BoxplotInternal).digest)[key ?? 'q2'];
    if (v === undefined) throw Errors.illegalArgument(`Unknown value key [${key}] for aggregation [${this.name}]`);
    return v;
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const d = (agg as BoxplotInternal).digest;
    if (d.count === 0) return { min: null, max: null, q1: null, q2: null, q3: null, lower: null, upper: null };
    return this.stats(d);
  }
}
