/**
 * ip_range: ranges (`from`/`to`, or CIDR `mask`) over the sortable encoded IP terms of keyword doc values.
 * Range membership is computed once per segment ordinal (terms are sorted), so per-doc cost is a mask lookup.
 */
import { Errors } from '@strata/core-common';
import type { LeafReaderContext, SortedSetDocValues } from '../../index/leaf-reader.js';
import { ordinalsReader, type DocValuesReader } from '../../index/doc-values-reader.js';
import type { AggregationContext, InternalAggregation, InternalAggregations } from '../api.js';
import { cidrRange, decodeIp, encodeIp } from '../../mapper/ip.js';
import {
  AggSpec,
  Aggregator,
  IntArray,
  SubAggregators,
  applyParentPipelines,
  bytesValues,
  checkParams,
  emptySubs,
  optBool,
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

interface IpRangeDef {
  key?: string;
  /** encoded, inclusive; null = unbounded */
  from: string | null;
  /** encoded, exclusive; null = unbounded */
  to: string | null;
}

interface IpBucket {
  key: string;
  from: string | null;
  to: string | null;
  docCount: number;
  aggs: InternalAggregations;
}

interface IpRangeInternal extends InternalAggregation {
  type: 'ip_range';
  buckets: IpBucket[];
}

/** next address after an encoded term (exclusive upper bound of a CIDR block); null past the last address */
function nextTerm(term: string): string | null {
  const digits = term.split('');
  for (let i = digits.length - 1; i >= 0; i--) {
    const v = parseInt(digits[i]!, 16);
    if (v < 15) {
      digits[i] = (v + 1).toString(16);
      return digits.join('');
    }
    digits[i] = '0';
  }
  return null;
}

export class IpRangeSpec extends AggSpec {
  field = '';
  ranges: IpRangeDef[] = [];
  keyed = false;

  static parse(name: string, body: Record<string, unknown>): IpRangeSpec {
    checkParams('ip_range', body, ['field', 'ranges', 'keyed', 'missing', 'script']);
    const s = new IpRangeSpec(name, 'ip_range');
    s.field = requireField('ip_range', name, body);
    s.keyed = optBool('ip_range', body, 'keyed') ?? false;
    const ranges = body['ranges'];
    if (!Array.isArray(ranges) || ranges.length === 0) throw Errors.illegalArgument(`No [ranges] specified for the [${name}] aggregation`);
    for (const r of ranges) {
      const o = (r ?? {}) as Record<string, unknown>;
      checkParams('range', o, ['from', 'to', 'key', 'mask']);
      const key = o['key'] === undefined || o['key'] === null ? undefined : String(o['key']);
      if (o['mask'] !== undefined && o['mask'] !== null) {
        if (o['from'] != null || o['to'] != null) throw Errors.illegalArgument('Cannot set [from] or [to] with [mask]');
        const mask = String(o['mask']);
        const [lo, hi] = cidrRange(mask);
        s.ranges.push({ key: key ?? mask, from: lo, to: nextTerm(hi) });
      } else {
        const enc = (v: unknown) => (v === undefined || v === null ? null : encodeIp(String(v)));
        s.ranges.push({ key, from: enc(o['from']), to: enc(o['to']) });
      }
    }
    return s;
  }

  keyOf(r: { key?: string; from: string | null; to: string | null }): string {
    return r.key ?? `${r.from === null ? '*' : decodeIp(r.from)}-${r.to === null ? '*' : decodeIp(r.to)}`;
  }

  createAggregator(ctx: AggregationContext): Aggregator {
    const src = resolveField(ctx, this.field);
    if (src.kind !== 'unmapped' && !src.isIp) {
      throw Errors.illegalArgument(`Field [${this.field}] of type [${src.ft?.type}] is not supported for aggregation [ip_range]`);
    }
    return new IpRangeAggregator(this, ctx, src);
  }

  empty(): InternalAggregation {
    return {
      type: 'ip_range',
      buckets: this.ranges.map((r) => ({ key: this.keyOf(r), from: r.from, to: r.to, docCount: 0, aggs: emptySubs(this.subs) })),
    } satisfies IpRangeInternal;
  }

  typedName(): string {
    return 'ip_range';
  }

  reduce(list: InternalAggregation[], rc: ReduceContext): InternalAggregation {
    const parts = list as IpRangeInternal[];
    let buckets = parts[0]!.buckets.map((b, i) => ({
      ...b,
      docCount: parts.reduce((s, p) => s + (p.buckets[i]?.docCount ?? 0), 0),
      aggs: reduceSubs(this.subs, parts.map((p) => p.buckets[i]?.aggs ?? {}), rc),
    }));
    rc.consumeBuckets(buckets.length);
    buckets = applyParentPipelines(this, buckets, (b) => b.key);
    return { type: 'ip_range', buckets } satisfies IpRangeInternal;
  }

  override bucketsOf(agg: InternalAggregation): { buckets: PipelineBucket[]; keyString: (b: PipelineBucket) => string } {
    return { buckets: (agg as IpRangeInternal).buckets, keyString: (b) => String(b.key) };
  }

  render(agg: InternalAggregation, rc: RenderContext): Record<string, unknown> {
    const r = agg as IpRangeInternal;
    const one = (b: IpBucket, withKey: boolean) => {
      const o: Record<string, unknown> = {};
      if (withKey) o['key'] = b.key;
      if (b.from !== null) o['from'] = decodeIp(b.from);
      if (b.to !== null) o['to'] = decodeIp(b.to);
      o['doc_count'] = b.docCount;
      renderSubsInto(o, this.subs, b.aggs, rc);
      return o;
    };
    if (this.keyed) {
      const out: Record<string, unknown> = {};
      for (const b of r.buckets) out[b.key] = one(b, false);
      return { buckets: out };
    }
    return { buckets: r.buckets.map((b) => one(b, true)) };
  }
}

class IpRangeAggregator extends Aggregator {
  private readonly subs: SubAggregators;
  private readonly counts = new IntArray(16);
  private dv: SortedSetDocValues | null = null;
  private rd: DocValuesReader<Uint32Array> | null = null;
  /** per segment ordinal: the ranges it falls in (bit i = range i, first 31 ranges); lists beyond */
  private ordRanges: number[][] = [];
  private readonly hit: Uint8Array;
  private readonly ranges: IpRangeDef[];

  constructor(private readonly spec: IpRangeSpec, ctx: AggregationContext, private readonly src: FieldSource) {
    super();
    this.subs = new SubAggregators(spec.subs, ctx);
    this.ranges = spec.ranges;
    this.hit = new Uint8Array(spec.ranges.length);
  }

  setLeaf(leaf: LeafReaderContext): void {
    this.dv = this.src.kind === 'bytes' ? bytesValues(leaf, this.src) : null;
    this.rd = this.dv ? ordinalsReader(this.dv) : null;
    const terms = this.dv?.terms ?? [];
    this.ordRanges = terms.map((t) => {
      const out: number[] = [];
      this.ranges.forEach((r, i) => {
        if ((r.from === null || t >= r.from) && (r.to === null || t < r.to)) out.push(i);
      });
      return out;
    });
    this.subs.setLeaf(leaf);
  }

  collect(doc: number, owningOrd: number, score: number): void {
    const rd = this.rd;
    if (!rd) return;
    const m = rd.advance(doc);
    if (m === 0) return;
    const hit = this.hit;
    for (let i = 0; i < m; i++) for (const r of this.ordRanges[rd.value(i)]!) hit[r] = 1;
    const n = this.ranges.length;
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
      type: 'ip_range',
      buckets: this.ranges.map((r, i) => ({
        key: this.spec.keyOf(r),
        from: r.from,
        to: r.to,
        docCount: this.counts.get(owningOrd * n + i),
        aggs: this.subs.build(owningOrd * n + i),
      })),
    } satisfies IpRangeInternal;
  }
}
