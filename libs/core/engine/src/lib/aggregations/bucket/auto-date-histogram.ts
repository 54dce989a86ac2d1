/**
 * auto_date_histogram: picks the finest interval of the ES ladder (1s..100y) that yields at most `buckets`
 * buckets. The shard keeps the matching doc ids (4 bytes each), chooses its interval from their actual range
 * at build time and replays them into buckets and sub-aggregations; the reduce re-rounds shard buckets to
 * the (coarser or equal) final interval and fills empty buckets.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import { numericReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  IntArray,
  KeyedBucketOrds,
  SubAggregators,
  applyParentPipelines,
  checkParams,
  emptySubs,
  optInt,
  optString,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  type FieldSource,
  type PipelineBucket,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';
import { formatValue, type ValueFormat } from '../support/value-format.js';
import { buildRounding, type CalendarUnit, type Rounding } from '../support/rounding.js';
import { localToUtc, resolveTimeZone, type TimeZone } from '../support/time-zone.js';

interface Level {
  unit: CalendarUnit;
  mult: number;
  label: string;
}

const UNIT_LABEL: Partial<Record<CalendarUnit, string>> = { second: 's', minute: 'm', hour: 'h', day: 'd', month: 'M', year: 'y' };
const LADDER: Level[] = (
  [
    ['second', [1, 5, 10, 30]],
    ['minute', [1, 5, 10, 30]],
    ['hour', [1, 3, 12]],
    ['day', [1, 7]],
    ['month', [1, 3]],
    ['year', [1, 5, 10, 20, 50, 100]],
  ] as [CalendarUnit, number[]][]
).flatMap(([unit, mults]) => mults.map((mult) => ({ unit, mult, label: `${mult}${UNIT_LABEL[unit]}` })));

const UNIT_MS: Partial<Record<CalendarUnit, number>> = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 };

class YearMultipleRounding implements Rounding {
  constructor(private readonly mult: number, private readonly tz: TimeZone) {}
  round(v: number): number {
    const local = new Date(v + this.tz.offsetAt(v));
    const y = Math.floor(local.getUTCFullYear() / this.mult) * this.mult;
    const d = new Date(0);
    d.setUTCFullYear(y, 0, 1);
    return localToUtc(this.tz, d.getTime());
  }
  next(key: number): number {
    const local = new Date(key + this.tz.offsetAt(key));
    const d = new Date(0);
    d.setUTCFullYear(local.getUTCFullYear() + this.mult, 0, 1);
    return localToUtc(this.tz, d.getTime());
  }
}

function levelRounding(l: Level, tzId: string | undefined): Rounding {
  if (l.mult === 1) return buildRounding({ calendar: l.unit, timeZone: tzId });
  if (l.unit === 'month') return buildRounding({ calendar: 'quarter', timeZone: tzId });
  if (l.unit === 'year') return new YearMultipleRounding(l.mult, resolveTimeZone(tzId));
  return buildRounding({ fixedMs: l.mult * UNIT_MS[l.unit]!, timeZone: tzId });
}

function bucketCount(r: Rounding, min: number, max: number, limit: number): number {
  let n = 0;
  for (let k = r.round(min); k <= max && n <= limit; k = r.next(k)) n++;
  return n;
}

interface AutoBucket {
  key: number;
  docCount: number;
  aggs: InternalAggregations;
}

interface AutoInternal extends InternalAggregation {
  type: 'auto_date_histogram';
  buckets: AutoBucket[];
  level: number;
  fmt: ValueFormat;
}

const MIN_INTERVALS: Record<string, CalendarUnit> = { second: 'second', minute: 'minute', hour: 'hour', day: 'day', month: 'month', year: 'year' };

export class AutoDateHistogramSpec extends AggSpec {
  field = '';
  target = 10;
  timeZone: string | undefined;
  format: string | undefined;
  minLevel = 0;
  missing: unknown;

  static parse(name: string, body: Record<string, unknown>): AutoDateHistogramSpec {
    checkParams('auto_date_histogram', body, ['field', 'buckets', 'time_zone', 'format', 'minimum_interval', 'missing', 'script', 'value_type']);
    const s = new AutoDateHistogramSpec(name, 'auto_date_histogram');
    s.field = requireField('auto_date_histogram', name, body);
    const b = optInt('auto_date_histogram', body, 'buckets');
    if (b !== undefined) {
      if (b < 1) throw Errors.illegalArgument(`[buckets] must be greater than 0. Found [${b}] in [${name}]`);
      s.target = b;
    }
    s.timeZone = optString('auto_date_histogram', body, 'time_zone');
    if (s.timeZone !== undefined) resolveTimeZone(s.timeZone);
    s.format = optString('auto_date_histogram', body, 'format');
    const mi = optString('auto_date_histogram', body, 'minimum_interval');
    if (mi !== undefined) {
      const u = MIN_INTERVALS[mi];
      if (!u) throw Errors.illegalArgument(`minimum_interval must be one of [second, minute, hour, day, month, year]`);
      s.minLevel = LADDER.findIndex((l) => l.unit === u);
    }
    s.missing = body['missing'];
    return s;
  }

  /** the first ladder level (>= from) giving at most `target` buckets over [min, max] */
  chooseLevel(min: number, max: number, from: number): number {
    for (let i = Math.max(from, this.minLevel); i < LADDER.length; i++) {
      if (bucketCount(levelRounding(LADDER[i]!, this.timeZone), min, max, this.target) <= this.target) return i;
    }
    return LADDER.length - 1;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const src = resolveField(ctx, this.field, { format: this.format, timeZone: this.timeZone, requireNumeric: 'auto_date_histogram' });
    const fmt: ValueFormat = src.isDate ? src.format : { t: 'date', format: this.format ?? 'strict_date_optional_time', tz: this.timeZone ?? 'UTC' };
    return new AutoDateHistogramAggregator(this, ctx, src, fmt);
  }

  empty(): InternalAggregation {
    return { type: 'auto_date_histogram', buckets: [], level: this.minLevel, fmt: { t: 'date', format: this.format ?? 'strict_date_optional_time', tz: this.timeZone ?? 'UTC' } } satisfies AutoInternal;
  }

  typedName(): string {
    return 'auto_date_histogram';
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as AutoInternal[];
    let min = Infinity;
    let max = -Infinity;
    let level = this.minLevel;
    for (const p of parts) {
      level = Math.max(level, p.level);
      for (const b of p.buckets) {
        if (b.key < min) min = b.key;
        if (b.key > max) max = b.key;
      }
    }
    const fmt = parts.find((p) => p.buckets.length > 0)?.fmt ?? parts[0]!.fmt;
    if (!Number.isFinite(min)) return { type: 'auto_date_histogram', buckets: [], level, fmt } satisfies AutoInternal;
    level = this.chooseLevel(min, max, level);
    const r = levelRounding(LADDER[level]!, this.timeZone);
    const groups = new Map<number, { docCount: number; aggs: InternalAggregations[] }>();
    for (const p of parts) {
      for (const b of p.buckets) {
        const k = r.round(b.key);
        let g = groups.get(k);
        if (!g) {
          g = { docCount: 0, aggs: [] };
          groups.set(k, g);
        }
        g.docCount += b.docCount;
        g.aggs.push(b.aggs);
      }
    }
    let buckets: AutoBucket[] = [];
    for (let k = r.round(min); k <= max; k = r.next(k)) {
      const g = groups.get(k);
      buckets.push(g ? { key: k, docCount: g.docCount, aggs: reduceSubs(this.subs, g.aggs, rc) } : { key: k, docCount: 0, aggs: emptySubs(this.subs) });
    }
    rc.consumeBuckets(buckets.length);
    buckets = applyParentPipelines(this, buckets, (b) => formatValue(fmt, b.key));
    return { type: 'auto_date_histogram', buckets, level, fmt } satisfies AutoInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const a = agg as AutoInternal;
    return { buckets: a.buckets, keyString: (b) => formatValue(a.fmt, b.key as number) };
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const a = agg as AutoInternal;
    return {
      buckets: a.buckets.map((b) => {
        const o: Record<string, unknown> = { key_as_string: formatValue(a.fmt, b.key), key: b.key, doc_count: b.docCount };
        renderSubsInto(o, this.subs, b.aggs, rc);
        return o;
      }),
      interval: LADDER[a.level]!.label,
    };
  }
}

interface OwnerDocs {
  leaves: LeafReaderContext[];
  /** per collected doc: index into leaves, doc id, score */
  leafIdx: number[];
  docs: number[];
  scores: number[];
}

class AutoDateHistogramAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private leaf: LeafReaderContext | null = null;
  private readonly owners = new Map<number, OwnerDocs>();
  private readonly ords = new KeyedBucketOrds<number>();
  private readonly counts = new IntArray(64);
  private readonly dvs = new Map<LeafReaderContext, DocValuesReader | null>();
  private readonly missing: number | undefined;

  constructor(private readonly spec: AutoDateHistogramSpec, ctx: AggregationContext, private readonly src: FieldSource, private readonly fmt: ValueFormat) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    const m = spec.missing;
    this.missing = m === undefined || m === null ? undefined : typeof m === 'number' ? m : Date.parse(String(m));
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.leaf = leaf;
    if (!this.dvs.has(leaf)) {
      const dv = this.src.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
      this.dvs.set(leaf, dv ? numericReader(dv) : null);
    }
  }

  collect(doc: number, owningOrd: number, score: number): void {
    let o = this.owners.get(owningOrd);
    if (!o) {
      o = { leaves: [], leafIdx: [], docs: [], scores: [] };
      this.owners.set(owningOrd, o);
    }
    const leaf = this.leaf!;
    if (o.leaves[o.leaves.length - 1] !== leaf) o.leaves.push(leaf);
    o.leafIdx.push(o.leaves.length - 1);
    o.docs.push(doc);
    o.scores.push(score);
  }

  private values(leaf: LeafReaderContext, doc: number): number[] {
    const rd = this.dvs.get(leaf);
    const out: number[] = [];
    const n = rd ? rd.advance(doc) : 0;
    for (let i = 0; i < n; i++) out.push(rd!.value(i) * this.src.scale);
    if (out.length === 0 && this.missing !== undefined && !Number.isNaN(this.missing)) out.push(this.missing);
    return out;
  }

  build(owningOrd: number): InternalAggregation {
    const o = this.owners.get(owningOrd);
    if (!o || o.docs.length === 0) return { type: 'auto_date_histogram', buckets: [], level: this.spec.minLevel, fmt: this.fmt } satisfies AutoInternal;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < o.docs.length; i++) {
      for (const v of this.values(o.leaves[o.leafIdx[i]!]!, o.docs[i]!)) {
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
    if (!Number.isFinite(min)) return { type: 'auto_date_histogram', buckets: [], level: this.spec.minLevel, fmt: this.fmt } satisfies AutoInternal;
    const level = this.spec.chooseLevel(min, max, 0);
    const r = levelRounding(LADDER[level]!, this.spec.timeZone);
    let current = -1;
    for (let i = 0; i < o.docs.length; i++) {
      const li = o.leafIdx[i]!;
      if (li !== current) {
        current = li;
        this.subs.setLeaf(o.leaves[li]!);
      }
      let prev = NaN;
      for (const v of this.values(o.leaves[li]!, o.docs[i]!)) {
        const k = r.round(v);
        if (k === prev) continue;
        prev = k;
        const b = this.ords.add(owningOrd, k);
        collectBucket(this.counts, this.subs, o.docs[i]!, b, o.scores[i]!);
      }
    }
    const buckets = this.ords
      .ordsOf(owningOrd)
      .map((b) => ({ key: this.ords.keys[b]!, docCount: this.counts.get(b), aggs: this.subs.build(b) }))
      .sort((a, b) => a.key - b.key);
    this.owners.delete(owningOrd);
    return { type: 'auto_date_histogram', buckets, level, fmt: this.fmt } satisfies AutoInternal;
  }
}
