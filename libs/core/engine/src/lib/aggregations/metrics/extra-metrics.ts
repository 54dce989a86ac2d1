/**
 * weighted_avg and top_metrics.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { numericReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation } from '../api.js';
import {
  AggSpec,
  Aggregator,
  LongArray,
  asObject,
  checkParams,
  leafValues,
  type LeafValues,
  optInt,
  optString,
  resolveField,
  type FieldSource,
} from '../framework.js';
import { formatValue, isRaw, RAW, type ValueFormat } from '../support/value-format.js';

// ------------------------------------------------------------------ weighted_avg

interface WeightedAvgInternal extends InternalAggregation {
  type: 'weighted_avg';
  sum: number;
  weight: number;
  fmt: ValueFormat;
}

interface MultiValueSourceDef {
  field: string;
  missing: number | undefined;
}

function parseVs(type: string, name: string, key: string, v: unknown): MultiValueSourceDef {
  if (v === undefined || v === null) throw Errors.illegalArgument(`[${key}] must be set for aggregation [${name}]`);
  const o = asObject(type, v, key);
  checkParams(key, o, ['field', 'missing', 'script']);
  const field = optString(type, o, 'field');
  if (field === undefined) throw Errors.illegalArgument(`[${key}.field] must be set for aggregation [${name}]`);
  const m = o['missing'];
  return { field, missing: m === undefined || m === null ? undefined : Number(m) };
}

export class WeightedAvgSpec extends AggSpec {
  valueSrc!: MultiValueSourceDef;
  weight!: MultiValueSourceDef;
  format: string | undefined;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): WeightedAvgSpec {
    checkParams('weighted_avg', body, ['value', 'weight', 'format', 'value_type']);
    const s = new WeightedAvgSpec(name, 'weighted_avg');
    s.valueSrc = parseVs('weighted_avg', name, 'value', body['value']);
    s.weight = parseVs('weighted_avg', name, 'weight', body['weight']);
    s.format = optString('weighted_avg', body, 'format');
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const v = resolveField(ctx, this.valueSrc.field, { format: this.format, requireNumeric: 'weighted_avg' });
    const w = resolveField(ctx, this.weight.field, { requireNumeric: 'weighted_avg' });
    return new WeightedAvgAggregator(this, v, w);
  }
  empty(): InternalAggregation {
    return { type: 'weighted_avg', sum: 0, weight: 0, fmt: RAW } satisfies WeightedAvgInternal;
  }
  typedName(): string {
    return 'weighted_avg';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    let sum = 0, weight = 0;
    let fmt: ValueFormat = RAW;
    for (const x of list as WeightedAvgInternal[]) {
      sum += x.sum;
      weight += x.weight;
      if (isRaw(fmt) && !isRaw(x.fmt)) fmt = x.fmt;
    }
    return { type: 'weighted_avg', sum, weight, fmt } satisfies WeightedAvgInternal;
  }
  override value(agg: InternalAggregation): number {
    const a = agg as WeightedAvgInternal;
    return a.weight === 0 ? NaN : a.sum / a.weight;
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as WeightedAvgInternal;
    const v = a.weight === 0 ? null : a.sum / a.weight;
    const out: Record<string, unknown> = { value: v };
    if (v !== null && !isRaw(a.fmt)) out['value_as_string'] = formatValue(a.fmt, v);
    return out;
  }
}

class WeightedAvgAggregator extends Aggregator {
  private vrd: DocValuesReader | null = null;
  private wrd: DocValuesReader | null = null;
  private readonly sums = new LongArray();
  private readonly weights = new LongArray();
  constructor(private readonly spec: WeightedAvgSpec, private readonly v: FieldSource, private readonly w: FieldSource) {
    super();
  }
  setLeaf(leaf: LeafReaderContext): void {
    const vdv = this.v.kind === 'numeric' ? leaf.reader.numericDocValues(this.v.field) : null;
    const wdv = this.w.kind === 'numeric' ? leaf.reader.numericDocValues(this.w.field) : null;
    this.vrd = vdv ? numericReader(vdv) : null;
    this.wrd = wdv ? numericReader(wdv) : null;
  }
  collect(doc: number, ord: number): void {
    let weight: number | undefined;
    const wrd = this.wrd;
    const wn = wrd ? wrd.advance(doc) : 0;
    if (wn > 0) {
      if (wn > 1) {
        throw Errors.illegalArgument(
          'Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value.',
        );
      }
      weight = wrd!.value(0) * this.w.scale;
    } else weight = this.spec.weight.missing;
    if (weight === undefined) return;
    const vrd = this.vrd;
    const s = this.sums.ensure(ord);
    const ws = this.weights.ensure(ord);
    const vn = vrd ? vrd.advance(doc) : 0;
    if (vn > 0) {
      for (let i = 0; i < vn; i++) {
        s[ord]! += vrd!.value(i) * this.v.scale * weight;
        ws[ord]! += weight;
      }
    } else if (this.spec.valueSrc.missing !== undefined) {
      s[ord]! += this.spec.valueSrc.missing * weight;
      ws[ord]! += weight;
    }
  }
  build(ord: number): InternalAggregation {
    return { type: 'weighted_avg', sum: this.sums.get(ord), weight: this.weights.get(ord), fmt: this.v.format } satisfies WeightedAvgInternal;
  }
}

// ------------------------------------------------------------------ top_metrics

type MetricVal = number | string | null;

interface TopMetricsRow {
  sort: number;
  metrics: MetricVal[];
}

interface TopMetricsInternal extends InternalAggregation {
  type: 'top_metrics';
  rows: TopMetricsRow[];
  sortFmt: ValueFormat;
  metricFmts: ValueFormat[];
}

export class TopMetricsSpec extends AggSpec {
  metrics: string[] = [];
  sortField = '';
  asc = true;
  size = 1;
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): TopMetricsSpec {
    checkParams('top_metrics', body, ['metrics', 'sort', 'size']);
    const s = new TopMetricsSpec(name, 'top_metrics');
    const m = body['metrics'];
    const list = m === undefined || m === null ? [] : Array.isArray(m) ? m : [m];
    if (list.length === 0) throw Errors.illegalArgument(`[metrics] must not be empty: [${name}]`);
    s.metrics = list.map((x) => {
      const f = optString('top_metrics', asObject('top_metrics', x, 'metrics'), 'field');
      if (f === undefined) throw Errors.illegalArgument(`[metrics.field] must be set for aggregation [${name}]`);
      return f;
    });
    const sort = body['sort'];
    if (sort === undefined || sort === null) throw Errors.illegalArgument(`[sort] must be set for aggregation [${name}]`);
    const sorts = Array.isArray(sort) ? sort : [sort];
    if (sorts.length !== 1) throw Errors.illegalArgument('only supports sorting on one field');
    const first = sorts[0];
    if (typeof first === 'string') {
      s.sortField = first;
    } else {
      const [[f, o]] = Object.entries(asObject('top_metrics', first, 'sort')) as [[string, unknown]];
      s.sortField = f;
      const order = typeof o === 'string' ? o : (o as { order?: string } | null)?.order ?? 'asc';
      s.asc = order === 'asc';
    }
    const size = optInt('top_metrics', body, 'size');
    if (size !== undefined) {
      if (size < 1) throw Errors.illegalArgument(`[size] must be more than 0 but was [${size}]`);
      s.size = size;
    }
    return s;
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const sortSrc = resolveField(ctx, this.sortField, { requireNumeric: 'top_metrics' });
    const metricSrcs = this.metrics.map((f) => resolveField(ctx, f));
    return new TopMetricsAggregator(this, sortSrc, metricSrcs);
  }
  empty(): InternalAggregation {
    return { type: 'top_metrics', rows: [], sortFmt: RAW, metricFmts: this.metrics.map(() => RAW) } satisfies TopMetricsInternal;
  }
  typedName(): string {
    return 'top_metrics';
  }
  cmp(a: TopMetricsRow, b: TopMetricsRow): number {
    return this.asc ? a.sort - b.sort : b.sort - a.sort;
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    const parts = list as TopMetricsInternal[];
    const rows = parts.flatMap((p) => p.rows).sort((a, b) => this.cmp(a, b)).slice(0, this.size);
    const withRows = parts.find((p) => p.rows.length > 0) ?? parts[0]!;
    return { type: 'top_metrics', rows, sortFmt: withRows.sortFmt, metricFmts: withRows.metricFmts } satisfies TopMetricsInternal;
  }
  override value(agg: InternalAggregation, key: string | undefined): number {
    const a = agg as TopMetricsInternal;
    const i = key === undefined ? 0 : this.metrics.indexOf(key);
    if (i < 0) throw Errors.illegalArgument(`unknown metric [${key}]`);
    const v = a.rows[0]?.metrics[i];
    return typeof v === 'number' ? v : NaN;
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    const a = agg as TopMetricsInternal;
    return {
      top: a.rows.map((r) => ({
        sort: [isRaw(a.sortFmt) ? r.sort : formatValue(a.sortFmt, r.sort)],
        metrics: Object.fromEntries(
          this.metrics.map((m, i) => {
            const v = r.metrics[i] ?? null;
            const f = a.metricFmts[i] ?? RAW;
            return [m, v === null || typeof v === 'string' || isRaw(f) ? v : formatValue(f, v)];
          }),
        ),
      })),
    };
  }
}

class TopMetricsAggregator extends Aggregator {
  private srd: DocValuesReader | null = null;
  /** per metric: a reader of numbers, or of ordinals with the terms */
  private mrds: (LeafValues | null)[] = [];
  private readonly tops: (TopMetricsRow[] | undefined)[] = [];
  constructor(private readonly spec: TopMetricsSpec, private readonly sortSrc: FieldSource, private readonly metricSrcs: FieldSource[]) {
    super();
  }
  setLeaf(leaf: LeafReaderContext): void {
    const sdv = this.sortSrc.kind === 'numeric' ? leaf.reader.numericDocValues(this.sortSrc.field) : null;
    this.srd = sdv ? numericReader(sdv) : null;
    this.mrds = this.metricSrcs.map((m) => leafValues(leaf, m));
  }
  collect(doc: number, ord: number): void {
    const srd = this.srd;
    if (!srd) return;
    const n = srd.advance(doc);
    if (n === 0) return;
    const sort = srd.value(this.spec.asc ? 0 : n - 1) * this.sortSrc.scale;
    let top = this.tops[ord];
    if (!top) {
      top = [];
      this.tops[ord] = top;
    }
    if (top.length >= this.spec.size && this.spec.cmp({ sort, metrics: [] }, top[top.length - 1]!) >= 0) return;
    const metrics: MetricVal[] = this.mrds.map((m, i) => {
      if (!m || m.rd.advance(doc) === 0) return null;
      return m.terms ? m.terms[m.rd.value(0)]! : m.rd.value(0) * this.metricSrcs[i]!.scale;
    });
    const row = { sort, metrics };
    let i = top.length;
    while (i > 0 && this.spec.cmp(row, top[i - 1]!) < 0) i--;
    top.splice(i, 0, row);
    if (top.length > this.spec.size) top.pop();
  }
  build(ord: number): InternalAggregation {
    return {
      type: 'top_metrics',
      rows: this.tops[ord] ?? [],
      sortFmt: this.sortSrc.format,
      metricFmts: this.metricSrcs.map((m) => m.format),
    } satisfies TopMetricsInternal;
  }
}

// ------------------------------------------------------------------ rate

const RATE_UNIT_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};
const RATE_UNIT_MONTHS: Record<string, number> = { month: 1, quarter: 3, year: 12 };

interface RateInternal extends InternalAggregation {
  type: 'rate';
  sum: number;
  /** set by the parent date_histogram at reduce time */
  durationMs?: number;
  months?: number;
}

export class RateSpec extends AggSpec {
  field: string | undefined;
  unit: string | undefined;
  mode: 'sum' | 'value_count' = 'sum';
  override get isMetric(): boolean {
    return true;
  }
  static parse(name: string, body: Record<string, unknown>): RateSpec {
    checkParams('rate', body, ['field', 'unit', 'mode', 'script', 'format']);
    const s = new RateSpec(name, 'rate');
    s.field = optString('rate', body, 'field');
    s.unit = optString('rate', body, 'unit');
    if (s.unit !== undefined && RATE_UNIT_MS[s.unit] === undefined && RATE_UNIT_MONTHS[s.unit] === undefined) {
      throw Errors.illegalArgument(`Unsupported unit ${s.unit}`);
    }
    const mode = optString('rate', body, 'mode');
    if (mode !== undefined) {
      if (mode !== 'sum' && mode !== 'value_count') throw Errors.illegalArgument(`Unknown rate mode [${mode}]`);
      if (s.field === undefined) throw Errors.illegalArgument(`The mode parameter is only supported with field or script`);
      s.mode = mode;
    }
    return s;
  }
  override validateParent(parent: AggSpec | undefined): void {
    if (!parent || (parent.type !== 'date_histogram' && parent.type !== 'composite')) {
      throw Errors.illegalArgument(
        'The rate aggregation can only be used inside a date histogram aggregation or composite aggregation with one date histogram value source',
      );
    }
  }
  createAggregator(ctx: AggregationContext): Aggregator {
    const src = this.field === undefined ? undefined : resolveField(ctx, this.field, { requireNumeric: 'rate' });
    return new RateAggregator(this, src);
  }
  empty(): InternalAggregation {
    return { type: 'rate', sum: 0 } satisfies RateInternal;
  }
  typedName(): string {
    return 'rate';
  }
  reduce(list: InternalAggregation[]): InternalAggregation {
    let sum = 0;
    for (const x of list as RateInternal[]) sum += x.sum;
    return { type: 'rate', sum } satisfies RateInternal;
  }
  rate(a: RateInternal): number {
    if (this.unit === undefined) return a.sum;
    const ms = RATE_UNIT_MS[this.unit];
    if (ms !== undefined) return a.durationMs ? a.sum / (a.durationMs / ms) : a.sum;
    const months = RATE_UNIT_MONTHS[this.unit]!;
    if (a.months) return a.sum / (a.months / months);
    if (a.durationMs) return a.sum / (a.durationMs / (months * 30.436875 * 86_400_000));
    return a.sum;
  }
  override value(agg: InternalAggregation): number {
    return this.rate(agg as RateInternal);
  }
  render(agg: InternalAggregation): Record<string, unknown> {
    return { value: this.rate(agg as RateInternal) };
  }
}

class RateAggregator extends Aggregator {
  private rd: DocValuesReader | null = null;
  private readonly sums = new LongArray();
  constructor(private readonly spec: RateSpec, private readonly src: FieldSource | undefined) {
    super();
  }
  setLeaf(leaf: LeafReaderContext): void {
    const dv = this.src?.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
    this.rd = dv ? numericReader(dv) : null;
  }
  collect(doc: number, ord: number): void {
    const s = this.sums.ensure(ord);
    if (!this.src) {
      s[ord]! += 1;
      return;
    }
    const rd = this.rd;
    if (!rd) return;
    const n = rd.advance(doc);
    for (let i = 0; i < n; i++) s[ord]! += this.spec.mode === 'sum' ? rd.value(i) * this.src.scale : 1;
  }
  build(ord: number): InternalAggregation {
    return { type: 'rate', sum: this.sums.get(ord) } satisfies RateInternal;
  }
}
