/**
 * composite: paginated multi-source buckets (terms / histogram / date_histogram sources), `after` / `after_key`,
 * `missing_bucket`. Top level only.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext } from '../../index/leaf-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import {
  AggSpec,
  Aggregator,
  applyParentPipelines,
  type PipelineBucket,
  SubAggregators,
  TupleBuckets,
  asObject,
  checkParams,
  docValuesInto,
  leafValues,
  type LeafValues,
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
} from '../framework.js';
import { formatValue, type ValueFormat } from '../support/value-format.js';
import { topK } from '../support/bucket-order.js';
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

type Val = string | number | null;

interface SourceDef {
  name: string;
  kind: 'terms' | 'histogram' | 'date_histogram';
  field: string;
  asc: boolean;
  missingBucket: boolean;
  missingOrder: 'first' | 'last' | 'default';
  interval?: number;
  rounding?: RoundingSpec;
  format?: string;
  timeZone?: string;
}

/** how a source's values render: per-shard resolved, plain data */
interface SourceFmt {
  t: 'string' | 'number' | 'bool' | 'formatted';
  fmt?: ValueFormat;
}

interface CompositeBucket {
  key: Val[];
  docCount: number;
  aggs: InternalAggregations;
  ord?: number;
}

interface CompositeInternal extends InternalAggregation {
  type: 'composite';
  buckets: CompositeBucket[];
  fmts: SourceFmt[];
}

export class CompositeSpec extends AggSpec {
  sources: SourceDef[] = [];
  size = 10;
  after: Record<string, unknown> | undefined;

  static parse(name: string, body: Record<string, unknown>): CompositeSpec {
    checkParams('composite', body, ['sources', 'size', 'after']);
    const s = new CompositeSpec(name, 'composite');
    const size = optInt('composite', body, 'size');
    if (size !== undefined) {
      if (size < 1) throw Errors.illegalArgument(`[size] must be greater than 0. Found [${size}] in [${name}]`);
      s.size = size;
    }
    const sources = body['sources'];
    if (sources === undefined || sources === null) throw Errors.illegalArgument('Required [sources]');
    if (!Array.isArray(sources) || sources.length === 0) {
      throw Errors.illegalArgument(`Composite [sources] cannot be null or empty`);
    }
    const names = new Set<string>();
    for (const src of sources) {
      const o = asObject('composite', src, 'sources');
      const entries = Object.entries(o);
      if (entries.length !== 1) throw Errors.parsing(`[sources] each source must have exactly one name in [${name}]`);
      const [sname, def] = entries[0]!;
      if (names.has(sname)) throw Errors.illegalArgument(`Composite source names must be unique, found duplicates: [${sname}]`);
      names.add(sname);
      const d = asObject('composite', def, sname);
      const kinds = Object.keys(d);
      if (kinds.length !== 1) throw Errors.parsing(`[${sname}] expected exactly one value source type`);
      const kind = kinds[0]!;
      const b = asObject(kind, d[kind], kind);
      const common = ['field', 'order', 'missing_bucket', 'missing_order', 'script', 'value_type', 'format'];
      let def2: SourceDef;
      if (kind === 'terms') {
        checkParams('terms', b, common);
        def2 = { name: sname, kind, field: requireField('terms', sname, b), asc: true, missingBucket: false, missingOrder: 'default' };
      } else if (kind === 'histogram') {
        checkParams('histogram', b, [...common, 'interval']);
        const interval = optNumber('histogram', b, 'interval');
        if (interval === undefined || !(interval > 0)) throw Errors.illegalArgument(`[interval] must be greater than 0 for [histogram] source [${sname}]`);
        def2 = { name: sname, kind, field: requireField('histogram', sname, b), asc: true, missingBucket: false, missingOrder: 'default', interval };
      } else if (kind === 'date_histogram') {
        checkParams('date_histogram', b, [...common, 'calendar_interval', 'fixed_interval', 'interval', 'time_zone', 'offset']);
        let cal = optString('date_histogram', b, 'calendar_interval');
        let fixed = optString('date_histogram', b, 'fixed_interval');
        const legacy = optString('date_histogram', b, 'interval');
        if (legacy !== undefined && cal === undefined && fixed === undefined) {
          // deprecated `interval`: a calendar unit when it names one, else a fixed interval
          try {
            parseCalendarInterval(legacy);
            cal = legacy;
          } catch {
            fixed = legacy;
          }
        }
        if (cal !== undefined && fixed !== undefined) throw Errors.illegalArgument('Cannot use [fixed_interval] with [calendar_interval] configuration option.');
        if (cal === undefined && fixed === undefined) throw Errors.illegalArgument('Invalid interval specified, must be non-null and non-empty');
        const tz = optString('date_histogram', b, 'time_zone');
        if (tz !== undefined) resolveTimeZone(tz);
        def2 = {
          name: sname,
          kind,
          field: requireField('date_histogram', sname, b),
          asc: true,
          missingBucket: false,
          missingOrder: 'default',
          rounding: {
            calendar: cal !== undefined ? parseCalendarInterval(cal) : undefined,
            fixedMs: fixed !== undefined ? parseFixedInterval(fixed) : undefined,
            timeZone: tz,
            offset: parseOffset(b['offset']),
          },
          timeZone: tz,
        };
      } else {
        throw Errors.parsing(`Unknown value source type [${kind}] in composite source [${sname}]`);
      }
      const order = optString(kind, b, 'order');
      if (order !== undefined) {
        if (order !== 'asc' && order !== 'desc') throw Errors.illegalArgument(`Unknown order direction [${order}]`);
        def2.asc = order === 'asc';
      }
      def2.missingBucket = optBool(kind, b, 'missing_bucket') ?? false;
      const mo = optString(kind, b, 'missing_order');
      if (mo !== undefined) {
        if (mo !== 'first' && mo !== 'last' && mo !== 'default') throw Errors.illegalArgument(`Unknown MissingOrder value [${mo}]`);
        if (!def2.missingBucket && mo !== 'default') throw Errors.illegalArgument(`missingOrder can only be set if missingBucket is true`);
        def2.missingOrder = mo;
      }
      def2.format = optString(kind, b, 'format');
      s.sources.push(def2);
    }
    if (body['after'] !== undefined && body['after'] !== null) {
      const after = asObject('composite', body['after'], 'after');
      for (const src of s.sources) {
        if (!(src.name in after)) {
          throw Errors.illegalArgument(`[after] has ${Object.keys(after).length} value(s) but [sources] has ${s.sources.length}`);
        }
      }
      if (Object.keys(after).length !== s.sources.length) {
        throw Errors.illegalArgument(`[after] has ${Object.keys(after).length} value(s) but [sources] has ${s.sources.length}`);
      }
      s.after = after;
    }
    return s;
  }

  createAggregator(ctx: AggregationContext, topLevel: boolean): Aggregator {
    if (this.size > ctx.maxBuckets) throw tooManyBuckets(ctx.maxBuckets, this.size);
    if (!topLevel) throw Errors.illegalArgument(`[composite] aggregation cannot be used with a parent aggregation of type: [${'AggregatorFactory'}]`);
    return new CompositeAggregator(this, ctx);
  }

  empty(): InternalAggregation {
    return { type: 'composite', buckets: [], fmts: this.sources.map(() => ({ t: 'string' })) } satisfies CompositeInternal;
  }

  typedName(): string {
    return 'composite';
  }

  compareKeys(a: Val[], b: Val[]): number {
    for (let i = 0; i < this.sources.length; i++) {
      const s = this.sources[i]!;
      const x = a[i]!;
      const y = b[i]!;
      if (x === y) continue;
      if (x === null || y === null) {
        const nullFirst = s.missingOrder === 'first' || (s.missingOrder === 'default' && s.asc);
        const c = x === null ? -1 : 1;
        return nullFirst ? c : -c;
      }
      const c = x < y ? -1 : 1;
      return s.asc ? c : -c;
    }
    return 0;
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as CompositeInternal[];
    const merged = new Map<string, { key: Val[]; docCount: number; aggs: InternalAggregations[] }>();
    for (const p of parts) {
      for (const b of p.buckets) {
        const k = JSON.stringify(b.key);
        let m = merged.get(k);
        if (!m) {
          m = { key: b.key, docCount: 0, aggs: [] };
          merged.set(k, m);
        }
        m.docCount += b.docCount;
        m.aggs.push(b.aggs);
      }
    }
    const sorted = [...merged.values()].sort((a, b) => this.compareKeys(a.key, b.key)).slice(0, this.size);
    rc.consumeBuckets(sorted.length);
    const fmts = parts.find((p) => p.buckets.length > 0)?.fmts ?? parts[0]?.fmts ?? [];
    let buckets = sorted.map((m) => ({ key: m.key, docCount: m.docCount, aggs: reduceSubs(this.subs, m.aggs, rc) }));
    buckets = applyParentPipelines(this, buckets, (b) => JSON.stringify(this.renderKey(b.key, fmts)));
    return { type: 'composite', buckets, fmts } satisfies CompositeInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    const c = agg as CompositeInternal;
    return { buckets: c.buckets, keyString: (b) => JSON.stringify(this.renderKey(b.key as Val[], c.fmts)) };
  }

  renderKey(key: Val[], fmts: SourceFmt[]): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    this.sources.forEach((s, i) => {
      const v = key[i]!;
      const f = fmts[i] ?? { t: 'string' };
      if (v === null) o[s.name] = null;
      else if (f.t === 'bool') o[s.name] = v === 1 || v === '1' || v === 'true';
      else if (f.t === 'formatted' && f.fmt) o[s.name] = formatValue(f.fmt, v);
      else o[s.name] = v;
    });
    return o;
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const c = agg as CompositeInternal;
    const out: Record<string, unknown> = {};
    if (c.buckets.length > 0) out['after_key'] = this.renderKey(c.buckets[c.buckets.length - 1]!.key, c.fmts);
    out['buckets'] = c.buckets.map((b) => {
      const o: Record<string, unknown> = { key: this.renderKey(b.key, c.fmts), doc_count: b.docCount };
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    });
    return out;
  }
}

interface ResolvedSource {
  def: SourceDef;
  src: FieldSource;
  rounding: Rounding | null;
  fmt: SourceFmt;
  lv: LeafValues | null;
}

class CompositeAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly tuples: TupleBuckets;
  private readonly rs: ResolvedSource[];
  private readonly after: Val[] | undefined;

  constructor(private readonly spec: CompositeSpec, ctx: AggregationContext) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.rs = spec.sources.map((def) => {
      const src = resolveField(ctx, def.field, {
        format: def.format,
        timeZone: def.timeZone,
        requireNumeric: def.kind === 'terms' ? undefined : def.kind,
      });
      let fmt: SourceFmt;
      if (def.kind === 'date_histogram') {
        fmt = def.format ? { t: 'formatted', fmt: { t: 'date', format: def.format, tz: def.timeZone ?? 'UTC' } } : { t: 'number' };
      } else if (def.kind === 'histogram') {
        fmt = { t: 'number' };
      } else if (src.isBool) fmt = { t: 'bool' };
      else if (src.isDate) fmt = { t: 'formatted', fmt: src.format };
      else if (src.kind === 'numeric') fmt = def.format ? { t: 'formatted', fmt: src.format } : { t: 'number' };
      else fmt = { t: 'string' };
      let rounding: Rounding | null = null;
      if (def.kind === 'date_histogram') rounding = buildRounding(def.rounding!);
      else if (def.kind === 'histogram') {
        const i = def.interval!;
        rounding = { round: (v) => Math.floor(v / i) * i, next: (k) => k + i };
      }
      return { def, src, rounding, fmt, lv: null };
    });
    if (spec.after) {
      this.after = this.rs.map((r) => {
        const v = spec.after![r.def.name];
        if (v === null || v === undefined) return null;
        if (r.src.kind === 'numeric') {
          if (typeof v === 'string' && (r.src.isDate || r.def.kind === 'date_histogram')) {
            return parseDateMath(v, ctx.nowMillis, r.def.timeZone, false, r.def.format ?? r.src.ft?.format);
          }
          if (typeof v === 'boolean') return v ? 1 : 0;
          const n = Number(v);
          if (Number.isNaN(n)) throw Errors.illegalArgument(`Invalid value for [after.${r.def.name}]: [${String(v)}]`);
          return n;
        }
        return String(v);
      });
    }
    this.tuples = new TupleBuckets(this.rs.length, this.subs);
  }

  setLeaf(leaf: LeafReaderContext): void {
    for (const r of this.rs) {
      r.lv = leafValues(leaf, r.src);
    }
    this.subs.setLeaf(leaf);
  }

  /** fills the values of source i for doc; returns how many */
  private fill(i: number, r: ResolvedSource, doc: number): number {
    const out = this.tuples.vals[i]!;
    let n = 0;
    if (r.lv) n = docValuesInto(r.src, r.lv, doc, out, r.rounding);
    if (n === 0 && r.def.missingBucket) out[n++] = null;
    this.tuples.nvals[i] = n;
    return n;
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rs = this.rs;
    for (let i = 0; i < rs.length; i++) if (this.fill(i, rs[i]!, doc) === 0) return;
    this.tuples.collect(doc, owningOrd, score);
  }

  build(owningOrd: number): InternalAggregation {
    const after = this.after;
    let cands: CompositeBucket[] = this.tuples.ords.ordsOf(owningOrd).map((b) => ({ key: (this.tuples.ords.keys[b]! as Val[]), docCount: this.tuples.counts.get(b), aggs: {}, ord: b }));
    if (after) cands = cands.filter((c) => this.spec.compareKeys(c.key, after) > 0);
    const buckets = topK(cands, this.spec.size, (a, b) => this.spec.compareKeys(a.key, b.key)).map((c) => ({ key: c.key, docCount: c.docCount, aggs: this.subs.build(c.ord!) }));
    return { type: 'composite', buckets, fmts: this.rs.map((r) => r.fmt) } satisfies CompositeInternal;
  }
}

