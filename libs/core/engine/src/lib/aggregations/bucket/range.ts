/**
 * range and date_range: [from, to) buckets, sorted by (from, to); keys generated like ES ("10.0-20.0", "*-100.0").
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { numericReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  applyParentPipelines,
  type PipelineBucket,
  IntArray,
  SubAggregators,
  checkParams,
  emptySubs,
  optBool,
  optString,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  type FieldSource,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';
import { formatValue, isRaw, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { parseDateMath } from '../support/date-format.js';
import { resolveTimeZone } from '../support/time-zone.js';

interface RangeDef {
  key?: string;
  from: unknown;
  to: unknown;
}

interface RangeBucket {
  key?: string;
  from: number;
  to: number;
  docCount: number;
  aggs: InternalAggregations;
}

interface RangeInternal extends InternalAggregation {
  type: 'range' | 'date_range';
  buckets: RangeBucket[];
  fmt: ValueFormat;
}

export class RangeSpec extends AggSpec {
  field = '';
  ranges: RangeDef[] = [];
  keyed = false;
  format: string | undefined;
  timeZone: string | undefined;
  missing: unknown;

  static parse(type: 'range' | 'date_range', name: string, body: Record<string, unknown>): RangeSpec {
    checkParams(type, body, ['field', 'ranges', 'keyed', 'format', 'missing', 'script', 'value_type', ...(type === 'date_range' ? ['time_zone'] : [])]);
    const s = new RangeSpec(name, type);
    s.field = requireField(type, name, body);
    s.keyed = optBool(type, body, 'keyed') ?? false;
    s.format = optString(type, body, 'format');
    s.timeZone = optString(type, body, 'time_zone');
    if (s.timeZone !== undefined) resolveTimeZone(s.timeZone);
    s.missing = body['missing'];
    const ranges = body['ranges'];
    if (!Array.isArray(ranges)) {
      if (ranges === undefined) throw Errors.illegalArgument(`No [ranges] specified for the [${name}] aggregation`);
      throw Errors.parsing(`[ranges] must be an array in [${name}]`);
    }
    if (ranges.length === 0) throw Errors.illegalArgument(`No [ranges] specified for the [${name}] aggregation`);
    for (const r of ranges) {
      if (r === null || typeof r !== 'object' || Array.isArray(r)) throw Errors.parsing(`[ranges] must contain objects in [${name}]`);
      const o = r as Record<string, unknown>;
      checkParams('range', o, ['from', 'to', 'key']);
      s.ranges.push({ key: o['key'] === undefined || o['key'] === null ? undefined : String(o['key']), from: o['from'], to: o['to'] });
    }
    return s;
  }

  private bound(v: unknown, ctx: AggregationContext, src: FieldSource, dflt: number): number {
    if (v === undefined || v === null) return dflt;
    if (this.type === 'date_range' || src.isDate) {
      if (typeof v === 'number') return v;
      if (src.ft?.parseValue && typeof v === 'string' && !v.startsWith('now') && !v.includes('||')) {
        try {
          return src.ft.parseValue(v, this.format, false, this.timeZone);
        } catch {
          /* local parser below */
        }
      }
      return parseDateMath(v, ctx.nowMillis, this.timeZone, false, this.format ?? src.ft?.format);
    }
    const n = typeof v === 'number' ? v : Number(v);
    if (Number.isNaN(n)) throw Errors.illegalArgument(`For input string: "${String(v)}"`);
    return n;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const src = resolveField(ctx, this.field, { format: this.format, timeZone: this.timeZone, requireNumeric: this.type });
    if (this.type === 'date_range' && src.kind === 'numeric' && !src.isDate) {
      throw Errors.illegalArgument(`Field [${this.field}] of type [${src.ft?.type}] is not supported for aggregation [date_range]`);
    }
    const ranges = this.ranges.map((r) => ({ key: r.key, from: this.bound(r.from, ctx, src, -Infinity), to: this.bound(r.to, ctx, src, Infinity) }));
    let fmt: ValueFormat = src.format;
    if (this.type === 'date_range' && !src.isDate) fmt = { t: 'date', format: this.format ?? 'strict_date_optional_time', tz: this.timeZone ?? 'UTC' };
    let missing: number | undefined;
    if (this.missing !== undefined && this.missing !== null) missing = this.bound(this.missing, ctx, src, NaN);
    return new RangeAggregator(this, src, ctx, sortRanges(ranges), fmt, missing);
  }

  empty(): InternalAggregation {
    // ranges whose bounds need `now` are resolved at the shard; an empty result renders the literal bounds
    const ranges = sortRanges(
      this.ranges.map((r) => ({
        key: r.key,
        from: typeof r.from === 'number' ? r.from : r.from === undefined || r.from === null ? -Infinity : Number(r.from),
        to: typeof r.to === 'number' ? r.to : r.to === undefined || r.to === null ? Infinity : Number(r.to),
      })),
    );
    return {
      type: this.type as 'range',
      buckets: ranges.map((r) => ({ key: r.key, from: r.from, to: r.to, docCount: 0, aggs: emptySubs(this.subs) })),
      fmt: RAW,
    } satisfies RangeInternal;
  }

  typedName(): string {
    return this.type;
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as RangeInternal[];
    const first = parts[0]!;
    let buckets = first.buckets.map((b, i) => ({
      key: b.key,
      from: b.from,
      to: b.to,
      docCount: parts.reduce((s, p) => s + (p.buckets[i]?.docCount ?? 0), 0),
      aggs: reduceSubs(this.subs, parts.map((p) => p.buckets[i]?.aggs ?? {}), rc),
    }));
    rc.consumeBuckets(buckets.length);
    let fmt = first.fmt;
    for (const p of parts) if (isRaw(fmt) && !isRaw(p.fmt)) fmt = p.fmt;
    const f = fmt;
    buckets = applyParentPipelines(this, buckets, (b) => rangeKey(b, f));
    return { type: this.type as 'range', buckets, fmt } satisfies RangeInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const r = agg as RangeInternal;
    return { buckets: r.buckets, keyString: (b) => rangeKey(b as RangeBucket, r.fmt) };
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const r = agg as RangeInternal;
    const fmt = r.fmt;
    const keyOf = (b: RangeBucket) => rangeKey(b, fmt);
    const one = (b: RangeBucket, withKey: boolean) => {
      const o: Record<string, unknown> = {};
      if (withKey) o['key'] = keyOf(b);
      if (b.from !== -Infinity) {
        o['from'] = b.from;
        if (!isRaw(fmt)) o['from_as_string'] = formatValue(fmt, b.from);
      }
      if (b.to !== Infinity) {
        o['to'] = b.to;
        if (!isRaw(fmt)) o['to_as_string'] = formatValue(fmt, b.to);
      }
      o['doc_count'] = b.docCount;
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    };
    if (this.keyed) {
      const out: Record<string, unknown> = {};
      for (const b of r.buckets) out[keyOf(b)] = one(b, false);
      return { buckets: out };
    }
    return { buckets: r.buckets.map((b) => one(b, true)) };
  }
}

function rangeKey(b: RangeBucket, fmt: ValueFormat): string {
  const str = (v: number) => (isRaw(fmt) ? javaDoubleString(v) : formatValue(fmt, v));
  return b.key ?? `${b.from === -Infinity ? '*' : str(b.from)}-${b.to === Infinity ? '*' : str(b.to)}`;
}

function sortRanges<T extends { from: number; to: number }>(ranges: T[]): T[] {
  return [...ranges].sort((a, b) => (a.from !== b.from ? (a.from < b.from ? -1 : 1) : a.to === b.to ? 0 : a.to < b.to ? -1 : 1));
}

class RangeAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly counts = new IntArray(16);
  private rd: DocValuesReader | null = null;
  private readonly froms: Float64Array;
  private readonly tos: Float64Array;
  private readonly hit: Uint8Array;

  constructor(
    private readonly spec: RangeSpec,
    private readonly src: FieldSource,
    ctx: AggregationContext,
    private readonly ranges: { key?: string; from: number; to: number }[],
    private readonly fmt: ValueFormat,
    private readonly missing: number | undefined,
  ) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.froms = Float64Array.from(ranges.map((r) => r.from));
    this.tos = Float64Array.from(ranges.map((r) => r.to));
    this.hit = new Uint8Array(ranges.length);
  }

  setLeaf(leaf: LeafReaderContext): void {
    const dv = this.src.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
    this.rd = dv ? numericReader(dv) : null;
    this.subs.setLeaf(leaf);
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rd = this.rd;
    const n = this.froms.length;
    const hit = this.hit;
    let any = false;
    const test = (v: number) => {
      for (let r = 0; r < n; r++) {
        if (v >= this.froms[r]! && v < this.tos[r]!) {
          hit[r] = 1;
          any = true;
        }
      }
    };
    const m = rd ? rd.advance(doc) : 0;
    if (m === 0) {
      if (this.missing === undefined || Number.isNaN(this.missing)) return;
      test(this.missing);
    } else {
      const scale = this.src.scale;
      for (let i = 0; i < m; i++) test(rd!.value(i) * scale);
    }
    if (!any) return;
    for (let r = 0; r < n; r++) {
      if (hit[r] === 0) continue;
      hit[r] = 0;
      const b = owningOrd * n + r;
      collectBucket(this.counts, this.subs, doc, b, score);
    }
  }

  build(owningOrd: number): InternalAggregation {
    const n = this.ranges.length;
    return {
      type: this.spec.type as 'range',
      buckets: this.ranges.map((r, i) => ({
        key: r.key,
        from: r.from,
        to: r.to,
        docCount: this.counts.get(owningOrd * n + i),
        aggs: this.subs.build(owningOrd * n + i),
      })),
      fmt: this.fmt,
    } satisfies RangeInternal;
  }
}
