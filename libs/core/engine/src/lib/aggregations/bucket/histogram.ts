/**
 * histogram and date_histogram: per-doc key by arithmetic (or memoized calendar rounding), buckets in a
 * keyed ordinal map with a last-key cache; empty buckets (min_doc_count 0, extended_bounds) filled at reduce.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, NumericDocValues } from '../../index/leaf-reader.js';
import { numericReader, singleValuedBlocks, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  applyParentPipelines,
  type PipelineBucket,
  IntArray,
  KeyedBucketOrds,
  LongArray,
  SubAggregators,
  asObject,
  checkParams,
  parseField,
  emptySubs,
  optBool,
  optInt,
  optNumber,
  optString,
  reduceSubs,
  renderSubsInto,
  requireField,
  resolveField,
  tooManyBuckets,
  type FieldSource,
  type ReduceContext,
  type RenderContext,
  collectBucket,
} from '../framework.js';
import { bucketComparator, isKeyOrder, parseOrder, validateOrderPaths, type BucketOrder } from '../support/bucket-order.js';
import { formatValue, isRaw, javaDoubleString, RAW, type ValueFormat } from '../support/value-format.js';
import { parseDateMath } from '../support/date-format.js';
import {
  buildRounding,
  parseCalendarInterval,
  parseFixedInterval,
  parseOffset,
  type Rounding,
  type RoundingSpec,
} from '../support/rounding.js';
import { resolveTimeZone } from '../support/time-zone.js';

interface HistoBucket {
  key: number;
  docCount: number;
  aggs: InternalAggregations;
}

interface HistoInternal extends InternalAggregation {
  type: 'histogram' | 'date_histogram';
  buckets: HistoBucket[];
  fmt: ValueFormat;
  /** extended bounds resolved at the shard (dates need `now`) */
  ext: [number, number] | null;
  /** hard bounds (values), when set: empty buckets are never created outside them */
  hard?: [number, number] | null;
}

const COMMON = ['field', 'min_doc_count', 'order', 'keyed', 'missing', 'extended_bounds', 'hard_bounds', 'format', 'script', 'value_type'];

abstract class HistoSpecBase extends AggSpec {
  field = '';
  minDocCount = 0;
  order: BucketOrder = [{ kind: 'key', path: '_key', asc: true }];
  keyed = false;
  missing: unknown;
  extMin: unknown;
  extMax: unknown;
  hardMin: unknown;
  hardMax: unknown;
  format: string | undefined;

  protected parseCommon(type: string, name: string, body: Record<string, unknown>): void {
    this.field = requireField(type, name, body);
    const mdc = optInt(type, body, 'min_doc_count');
    if (mdc !== undefined) {
      if (mdc < 0) throw Errors.illegalArgument(`[minDocCount] must be greater than or equal to 0. Found [${mdc}] in [${name}]`);
      this.minDocCount = mdc;
    }
    if (body['order'] !== undefined) this.order = parseOrder(type, body['order'], ['_key', '_time']);
    this.keyed = optBool(type, body, 'keyed') ?? false;
    this.missing = body['missing'];
    this.format = optString(type, body, 'format');
    if (body['extended_bounds'] !== undefined) {
      const eb = asObject(type, body['extended_bounds'], 'extended_bounds');
      checkParams('extended_bounds', eb, ['min', 'max']);
      this.extMin = eb['min'];
      this.extMax = eb['max'];
    }
    if (body['hard_bounds'] !== undefined) {
      const hb = asObject(type, body['hard_bounds'], 'hard_bounds');
      checkParams('hard_bounds', hb, ['min', 'max']);
      this.hardMin = hb['min'];
      this.hardMax = hb['max'];
    }
  }

  abstract rounding(): Rounding;
  abstract bound(v: unknown, ctx: AggregationContext, src: FieldSource, roundUp: boolean): number;
  abstract formatFor(src: FieldSource): ValueFormat;

  createAggregator(ctx: AggregationContext): Aggregator {
    validateOrderPaths(this.order, this.subs, this.name);
    const src = resolveField(ctx, this.field, { format: this.format, timeZone: this.timeZoneId(), requireNumeric: this.type });
    let ext: [number, number] | null = null;
    if (this.extMin !== undefined || this.extMax !== undefined) {
      const r = this.rounding();
      // date bounds are shifted by the offset before rounding (ES LongBounds with offset)
      const shift = this.boundsShift();
      const min = this.extMin === undefined || this.extMin === null ? Infinity : r.round(this.bound(this.extMin, ctx, src, false) + shift);
      const max = this.extMax === undefined || this.extMax === null ? -Infinity : r.round(this.bound(this.extMax, ctx, src, false) + shift);
      if (Number.isFinite(min) && Number.isFinite(max) && min > max) {
        throw Errors.illegalArgument(`[extended_bounds.min][${min}] cannot be greater than [extended_bounds.max][${max}] for histogram aggregation [${this.name}]`);
      }
      ext = [min, max];
    }
    const hard: [number, number] = [
      this.hardMin === undefined || this.hardMin === null ? -Infinity : this.bound(this.hardMin, ctx, src, false),
      this.hardMax === undefined || this.hardMax === null ? Infinity : this.bound(this.hardMax, ctx, src, false),
    ];
    let missing: number | undefined;
    if (this.missing !== undefined && this.missing !== null) missing = this.bound(this.missing, ctx, src, false);
    return new HistogramAggregator(this, src, ctx, this.formatFor(src), ext, hard, missing);
  }

  timeZoneId(): string | undefined {
    return undefined;
  }

  boundsShift(): number {
    return 0;
  }

  empty(): InternalAggregation {
    return { type: this.type as 'histogram', buckets: [], fmt: RAW, ext: null } satisfies HistoInternal;
  }

  typedName(): string {
    return this.type;
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as HistoInternal[];
    const merged = new Map<number, { docCount: number; aggs: InternalAggregations[] }>();
    let fmt: ValueFormat = RAW;
    let ext: [number, number] | null = null;
    let hard: [number, number] | null = null;
    for (const p of parts) {
      if (isRaw(fmt) && !isRaw(p.fmt)) fmt = p.fmt;
      if (p.ext) ext = p.ext;
      if (p.hard) hard = p.hard;
      for (const b of p.buckets) {
        let m = merged.get(b.key);
        if (!m) {
          m = { docCount: 0, aggs: [] };
          merged.set(b.key, m);
        }
        m.docCount += b.docCount;
        m.aggs.push(b.aggs);
      }
    }
    const keys = [...merged.keys()].sort((a, b) => a - b);
    let buckets: HistoBucket[] = [];
    const push = (key: number, docCount: number, aggs: InternalAggregations) => {
      buckets.push({ key, docCount, aggs });
      if ((buckets.length & 1023) === 0) rc.consumeBuckets(1024);
    };
    if (this.minDocCount === 0) {
      const r = this.rounding();
      let lo = keys.length ? keys[0]! : Infinity;
      let hi = keys.length ? keys[keys.length - 1]! : -Infinity;
      if (ext) {
        if (Number.isFinite(ext[0]) && ext[0] < lo) lo = ext[0];
        if (Number.isFinite(ext[1]) && ext[1] > hi) hi = ext[1];
      }
      if (hard) {
        if (Number.isFinite(hard[0])) lo = Math.max(lo, r.round(hard[0]));
        if (Number.isFinite(hard[1])) hi = Math.min(hi, r.round(hard[1]));
      }
      let i = 0;
      if (Number.isFinite(lo) && Number.isFinite(hi)) {
        for (let k = lo; k <= hi; ) {
          // take real buckets that precede (can happen with offsets / DST irregularities)
          while (i < keys.length && keys[i]! < k) {
            const m = merged.get(keys[i]!)!;
            push(keys[i]!, m.docCount, reduceSubs(this.subs, m.aggs, rc));
            i++;
          }
          if (i < keys.length && keys[i] === k) {
            const m = merged.get(k)!;
            push(k, m.docCount, reduceSubs(this.subs, m.aggs, rc));
            i++;
          } else {
            push(k, 0, emptySubs(this.subs));
          }
          const n = r.next(k);
          k = n > k ? n : k + 1;
        }
      }
      while (i < keys.length) {
        const m = merged.get(keys[i]!)!;
        push(keys[i]!, m.docCount, reduceSubs(this.subs, m.aggs, rc));
        i++;
      }
    } else {
      for (const k of keys) {
        const m = merged.get(k)!;
        if (m.docCount >= this.minDocCount) push(k, m.docCount, reduceSubs(this.subs, m.aggs, rc));
      }
    }
    rc.consumeBuckets(buckets.length & 1023);
    // rate sub-aggregations need each bucket's span
    const rates = this.subs.filter((s) => s.type === 'rate');
    if (rates.length > 0) {
      const r = this.rounding();
      for (const b of buckets) {
        const end = r.next(b.key);
        const a = new Date(b.key);
        const e = new Date(end);
        const months = (e.getUTCFullYear() - a.getUTCFullYear()) * 12 + (e.getUTCMonth() - a.getUTCMonth());
        const aggs = { ...b.aggs };
        for (const s of rates) {
          const x = aggs[s.name];
          if (x) aggs[s.name] = { ...x, durationMs: end - b.key, months: this.type === 'date_histogram' && months >= 1 && a.getUTCDate() === e.getUTCDate() ? months : undefined };
        }
        b.aggs = aggs;
      }
    }
    if (!(isKeyOrder(this.order) && this.order[0]!.asc && this.order.length === 1)) {
      buckets = buckets.sort(bucketComparator(this.order, this.subs));
    }
    buckets = applyParentPipelines(this, buckets, (b) => this.keyString(b, fmt));
    return { type: this.type as 'histogram', buckets, fmt, ext } satisfies HistoInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const h = agg as HistoInternal;
    return { buckets: h.buckets, keyString: (b) => this.keyString(b as HistoBucket, h.fmt) };
  }

  keyString(b: HistoBucket, fmt: ValueFormat): string {
    return isRaw(fmt) ? javaDoubleString(b.key) : formatValue(fmt, b.key);
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const h = agg as HistoInternal;
    const fmt = h.fmt;
    const one = (b: HistoBucket) => {
      const o: Record<string, unknown> = {};
      if (!isRaw(fmt)) o['key_as_string'] = formatValue(fmt, b.key);
      o['key'] = b.key;
      o['doc_count'] = b.docCount;
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    };
    if (this.keyed) {
      const out: Record<string, unknown> = {};
      for (const b of h.buckets) out[this.keyString(b, fmt)] = one(b);
      return { buckets: out };
    }
    return { buckets: h.buckets.map(one) };
  }
}

export class HistogramSpec extends HistoSpecBase {
  interval = 0;
  offset = 0;
  constructor(name: string) {
    super(name, 'histogram');
  }
  static parse(name: string, body: Record<string, unknown>): HistogramSpec {
    checkParams('histogram', body, [...COMMON, 'interval', 'offset']);
    const s = new HistogramSpec(name);
    s.parseCommon('histogram', name, body);
    const interval = optNumber('histogram', body, 'interval');
    if (interval === undefined) throw Errors.illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
    parseField('histogram', 'interval', () => {
      if (!(interval > 0)) throw Errors.illegalArgument(`[interval] must be >0 for histogram aggregation [${name}]`);
    });
    s.interval = interval;
    s.offset = optNumber('histogram', body, 'offset') ?? 0;
    return s;
  }
  rounding(): Rounding {
    const i = this.interval;
    const off = this.offset;
    return {
      round: (v: number) => Math.floor((v - off) / i) * i + off,
      next: (k: number) => k + i,
    };
  }
  bound(v: unknown): number {
    const n = Number(v);
    if (Number.isNaN(n)) throw Errors.illegalArgument(`For input string: "${String(v)}"`);
    return n;
  }
  formatFor(src: FieldSource): ValueFormat {
    if (this.format) return src.isDate ? src.format : { t: 'decimal', pattern: this.format };
    return src.isDate ? src.format : RAW;
  }
}

export class DateHistogramSpec extends HistoSpecBase {
  roundingSpec: RoundingSpec = {};
  timeZone: string | undefined;
  private cached: Rounding | undefined;
  constructor(name: string) {
    super(name, 'date_histogram');
  }
  static parse(name: string, body: Record<string, unknown>): DateHistogramSpec {
    checkParams('date_histogram', body, [...COMMON, 'calendar_interval', 'fixed_interval', 'time_zone', 'offset']);
    const s = new DateHistogramSpec(name);
    s.parseCommon('date_histogram', name, body);
    const cal = optString('date_histogram', body, 'calendar_interval');
    const fixed = optString('date_histogram', body, 'fixed_interval');
    if (cal !== undefined && fixed !== undefined) {
      throw Errors.illegalArgument('Cannot use [fixed_interval] with [calendar_interval] configuration option.');
    }
    if (cal === undefined && fixed === undefined) {
      throw Errors.illegalArgument('Invalid interval specified, must be non-null and non-empty');
    }
    s.timeZone = optString('date_histogram', body, 'time_zone');
    const tz = s.timeZone;
    if (tz !== undefined) parseField('date_histogram', 'time_zone', () => resolveTimeZone(tz));
    s.roundingSpec = {
      calendar: cal !== undefined ? parseField('date_histogram', 'calendar_interval', () => parseCalendarInterval(cal)) : undefined,
      fixedMs: fixed !== undefined ? parseField('date_histogram', 'fixed_interval', () => parseFixedInterval(fixed)) : undefined,
      timeZone: s.timeZone,
      offset: parseField('date_histogram', 'offset', () => parseOffset(body['offset'])),
    };
    return s;
  }
  override timeZoneId(): string | undefined {
    return this.timeZone;
  }
  override boundsShift(): number {
    return this.roundingSpec.offset ?? 0;
  }
  rounding(): Rounding {
    // a fresh memo per use keeps aggregators independent; the arithmetic roundings are stateless anyway
    return buildRounding(this.roundingSpec);
  }
  cachedRounding(): Rounding {
    return (this.cached ??= this.rounding());
  }
  bound(v: unknown, ctx: AggregationContext, src: FieldSource, roundUp: boolean): number {
    if (src.ft?.parseValue && typeof v === 'string' && !v.startsWith('now') && !v.includes('||')) {
      try {
        return src.ft.parseValue(v, this.format, roundUp, this.timeZone);
      } catch {
        /* fall back to the local parser */
      }
    }
    return parseDateMath(v, ctx.nowMillis, this.timeZone, roundUp, this.format ?? src.ft?.format);
  }
  formatFor(src: FieldSource): ValueFormat {
    if (src.isDate) return src.format;
    return { t: 'date', format: this.format ?? 'strict_date_optional_time', tz: this.timeZone ?? 'UTC' };
  }
  override keyString(b: HistoBucket, fmt: ValueFormat): string {
    return formatValue(fmt, b.key);
  }
}

class HistogramAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly ords = new KeyedBucketOrds<number>();
  private readonly counts = new IntArray(256);
  private dv: NumericDocValues | null = null;
  private rd: DocValuesReader | null = null;
  private maxDoc = 0;
  private readonly r: Rounding;
  private lastKey = NaN;
  private lastOrd = -1;
  private readonly maxBuckets: number;

  constructor(
    private readonly spec: HistoSpecBase,
    private readonly src: FieldSource,
    ctx: AggregationContext,
    private readonly fmt: ValueFormat,
    private readonly ext: [number, number] | null,
    private readonly hard: [number, number],
    private readonly missing: number | undefined,
  ) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.r = spec.rounding();
    this.maxBuckets = ctx.maxBuckets;
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.dv = this.src.kind === 'numeric' ? leaf.reader.numericDocValues(this.src.field) : null;
    this.rd = this.dv ? numericReader(this.dv) : null;
    this.maxDoc = leaf.reader.maxDoc;
    this.subs.setLeaf(leaf);
  }

  /** per owning ordinal: the last key and its bucket (docs of one owner mostly arrive in time order) */
  private readonly lastKeys = new LongArray(16, NaN);
  private readonly lastOrds = new IntArray(16);

  private bucket(owningOrd: number, key: number): number {
    if (owningOrd === 0) {
      if (key === this.lastKey) return this.lastOrd;
      const b = this.ords.add(0, key);
      this.lastKey = key;
      this.lastOrd = b;
      return b;
    }
    const lk = this.lastKeys.ensure(owningOrd);
    const lo = this.lastOrds.ensure(owningOrd);
    if (lk[owningOrd] === key) return lo[owningOrd]!;
    const b = this.ords.add(owningOrd, key);
    lk[owningOrd] = key;
    lo[owningOrd] = b;
    return b;
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rd = this.rd;
    const r = this.r;
    const n = rd ? rd.advance(doc) : 0;
    if (n === 0) {
      if (this.missing === undefined) return;
      this.add(doc, owningOrd, r.round(this.missing), score);
      return;
    }
    const scale = this.src.scale;
    if (n === 1) {
      this.add(doc, owningOrd, r.round(rd!.value(0) * scale), score);
      return;
    }
    let prev = NaN;
    for (let i = 0; i < n; i++) {
      const key = r.round(rd!.value(i) * scale);
      if (key === prev) continue; // values ascending: same bucket counted once per doc
      prev = key;
      this.add(doc, owningOrd, key, score);
    }
  }

  override canCollectAll(): boolean {
    return this.subs.empty && this.missing === undefined && this.src.kind === 'numeric';
  }

  /**
   * every live doc of the leaf, column-wise (block by block on disk): values of consecutive docs that fall in
   * the current bucket ([key, next key)) are counted as one run, so the rounding runs once per bucket change,
   * not per value
   */
  override collectAll(live: Uint32Array | null): void {
    const dv = this.dv;
    const rd = this.rd;
    if (!dv || !rd) return;
    const r = this.r;
    const scale = this.src.scale;
    let key = NaN;
    let start = Infinity;
    let end = -Infinity;
    let run = 0;
    const flush = (): void => {
      if (run === 0) return;
      const hard = this.hard;
      if (!(key < hard[0] || key > hard[1])) {
        const b = this.bucket(0, key);
        this.counts.ensure(b)[b]! += run;
      }
      run = 0;
    };
    // (the run bounds stay plain locals of the hot loops, not captured by a closure: V8 keeps them in registers)
    const maxDoc = this.maxDoc;
    const blocks = singleValuedBlocks(dv);
    for (let b = 0, base = 0; base < maxDoc; b++) {
      // single-valued on disk: one block of values at a time (value j is the value of doc base + j); otherwise
      // the whole leaf through the per-doc reader, docs with several values through collect
      const vals = blocks ? blocks.block(b) : null;
      const n = vals ? vals.length : maxDoc;
      for (let j = 0; j < n; j++) {
        const doc = base + j;
        if (live !== null && (live[doc >>> 5]! & (1 << (doc & 31))) === 0) continue;
        let v: number;
        if (vals !== null) v = vals[j]! * scale;
        else if (rd.advance(doc) === 1) v = rd.value(0) * scale;
        else {
          if (rd.count > 1) {
            flush();
            this.collect(doc, 0, 0);
          }
          continue;
        }
        if (v >= start && v < end) {
          run++;
          continue;
        }
        flush();
        key = r.round(v);
        start = key;
        end = r.next(key);
        if (!(v >= start && v < end) || r.round(end - 1) !== key) {
          // a rounding whose bucket does not contain the value as [key, next): no runs for it
          start = Infinity;
          end = -Infinity;
        }
        run = 1;
      }
      base += n;
    }
    flush();
  }

  private add(doc: number, owningOrd: number, key: number, score: number): void {
    const hard = this.hard;
    if (key < hard[0] || key > hard[1]) return;
    const b = this.bucket(owningOrd, key);
    collectBucket(this.counts, this.subs, doc, b, score);
  }

  build(owningOrd: number): InternalAggregation {
    const buckets: HistoBucket[] = [];
    if (this.ords.size > this.maxBuckets) throw tooManyBuckets(this.maxBuckets, this.ords.size);
    for (const b of this.ords.ordsOf(owningOrd)) {
      buckets.push({ key: this.ords.keys[b]!, docCount: this.counts.get(b), aggs: this.subs.build(b) });
    }
    buckets.sort((a, b) => a.key - b.key);
    const hard = Number.isFinite(this.hard[0]) || Number.isFinite(this.hard[1]) ? this.hard : null;
    return { type: this.spec.type as 'histogram', buckets, fmt: this.fmt, ext: this.ext, hard } satisfies HistoInternal;
  }
}
